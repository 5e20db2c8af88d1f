//! Project chores: `cargo xtask codegen [--check]` and `cargo xtask ci`.
//!
//! Thin over the `apigen` library; nothing depends on this crate.

mod codegen;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  codegen           regenerate crates/petstore-api/src/generated from spec/openapi.yaml
  codegen --check   fail (with a diff) when the checked-in generated code is stale
  ci                everything CI checks: fmt, clippy, codegen --check, spec validation, tests
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["codegen"] => codegen::run(codegen::Mode::Write),
        ["codegen", "--check"] => codegen::run(codegen::Mode::Check),
        ["ci"] => ci(),
        ["help" | "--help" | "-h"] => {
            print!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("unknown arguments: {}\n\n{USAGE}", args.join(" "))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of this crate's directory).
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// Runs a command in the workspace root, echoing it; fails if it fails.
fn run(program: &str, args: &[&str]) -> Result<(), String> {
    eprintln!("$ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(project_root())
        .status()
        .map_err(|e| format!("could not run {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

/// Everything CI checks, in order from cheapest to dearest.
fn ci() -> Result<(), String> {
    run("cargo", &["fmt", "--all", "--", "--check"])?;
    codegen::run(codegen::Mode::Check)?;
    validate_spec()?;
    run(
        "cargo",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    run("cargo", &["test", "--workspace", "--all-targets"])?;
    run("cargo", &["test", "--workspace", "--doc"])?;
    Ok(())
}

/// Validates the spec with openapi-spec-validator, installed into a local
/// virtualenv (`target/venv`) on first use.
fn validate_spec() -> Result<(), String> {
    let root = project_root();
    let venv = root.join("target").join("venv");
    let bin = venv.join("bin");
    let validator = bin.join("openapi-spec-validator");
    if !validator.exists() {
        let venv_str = venv.to_string_lossy().to_string();
        run("python3", &["-m", "venv", &venv_str])?;
        let pip = bin.join("pip").to_string_lossy().to_string();
        run(
            &pip,
            &["install", "--quiet", "openapi-spec-validator==0.9.0"],
        )?;
    }
    run(&validator.to_string_lossy(), &["spec/openapi.yaml"])
}
