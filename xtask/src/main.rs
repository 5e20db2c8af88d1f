//! Project chores: `cargo xtask codegen [--check]` and `cargo xtask ci`.
//!
//! Thin over the `apigen` library; nothing depends on this crate.

mod bench;
mod bench_client;
mod bench_codegen;
mod codegen;
mod conformance;
mod corpus;
mod docs_screenshot;
mod examples;
mod launch;
mod spec_diff;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  codegen           regenerate crates/petstore-api/src/generated from spec/openapi.yaml
  codegen --check   fail (with a diff) when the checked-in generated code is stale
  codegen --spec FILE --out DIR [--strict]
                    a standalone crate from any OpenAPI 3.0 document; unsupported
                    operations are skipped and listed (--strict: fail instead)
  spec-diff BASE REVISION [--format text|json] [--date YYYY-MM-DD]
                    the evolution gate: changes that break callers, judged by each
                    operation's stability, deprecation and sunset; exits 1 on errors,
                    2 when a document cannot be read
  release           record spec/openapi.yaml as the released interface of its major
                    version (spec/released/vMAJOR.yaml), after the evolution gate
  corpus DIR [--allow-skips]
                    generate every document under DIR and `cargo check` the crates
                    (in parallel, every feature on); prints a table of operations,
                    warnings and what was skipped. Fails on a warning, an error, or
                    anything skipped unless --allow-skips
  bench [--seconds N] [--rounds R] [--only TEXT] [--database-url URL] [--instructions N]
                    load the release server with wrk on four endpoints (or those whose
                    name contains TEXT), beside a bare actix-web route answering the
                    same bytes, in R alternating rounds of N s each (5 of 4 s);
                    prints ratios and memory. The server runs on a fresh SQLite
                    file, or on the empty database at URL. --instructions N: count
                    each one's instructions per request under callgrind over N
                    requests instead (free of the machine's timing noise)
  bench-client [--rounds R] [--calls N]
                    a call through the generated client against the same call sent by
                    hand with reqwest, one release server, alternating rounds
  bench-codegen [DOC]
                    time the release generator on DOC (Stripe's by default) beside
                    openapi-generator's rust-axum, where Java is present
  docs-screenshot [PAGE]
                    PNGs of the reference page (the pet store's by default) at desktop
                    and phone width: target/docs-desktop.png, target/docs-phone.png
  conformance       schemathesis (pinned, in target/venv) against the real server
  examples          the example clients (walkthrough, backoff) against the real server
  ci                everything CI checks: fmt, codegen --check, spec validation, the
                    evolution gate, clippy, tests, conformance, examples
";

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if let ["spec-diff", rest @ ..] = args.as_slice() {
        return ExitCode::from(spec_diff::spec_diff(rest));
    }
    let result = match args.as_slice() {
        ["codegen"] => codegen::run(codegen::Mode::Write),
        ["codegen", "--check"] => codegen::run(codegen::Mode::Check),
        ["codegen", "--spec", spec, "--out", out] => corpus::codegen_standalone(spec, out, false),
        ["codegen", "--spec", spec, "--out", out, "--strict"] => {
            corpus::codegen_standalone(spec, out, true)
        }
        ["corpus", dir] => corpus::corpus(dir, false),
        ["corpus", dir, "--allow-skips"] => corpus::corpus(dir, true),
        ["conformance"] => conformance::conformance(),
        ["examples"] => examples::examples(),
        ["release"] => spec_diff::release(),
        ["bench", options @ ..] => bench::Options::parse(options).and_then(bench::bench),
        ["bench-client", options @ ..] => bench_client::bench_client(options),
        ["bench-codegen"] => bench_codegen::bench_codegen(None),
        ["bench-codegen", doc] => bench_codegen::bench_codegen(Some(doc)),
        ["docs-screenshot"] => docs_screenshot::docs_screenshot(None),
        ["docs-screenshot", page] => docs_screenshot::docs_screenshot(Some(page)),
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
    run_with_env(program, args, &[])
}

/// As [`run`], with environment variables set for the command.
fn run_with_env(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    eprintln!("$ {}{program} {}", shown.concat(), args.join(" "));
    succeed(
        Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .current_dir(project_root()),
        &format!("{program} {}", args.join(" ")),
    )
}

/// Runs a command to its end; fails, naming it as `shown`, when it cannot
/// start or does not succeed.
fn succeed(command: &mut Command, shown: &str) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("could not run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// Everything CI checks, in order from cheapest to dearest.
fn ci() -> Result<(), String> {
    run("cargo", &["fmt", "--all", "--", "--check"])?;
    codegen::run(codegen::Mode::Check)?;
    validate_spec()?;
    spec_diff::gate()?;
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
    // The end-to-end suite again, on PostgreSQL (a private cluster the tests
    // start themselves).
    run_with_env(
        "cargo",
        &["test", "--package", "petstore-server", "--test", "api"],
        &[("PETSTORE_TEST_DATABASE", "postgres")],
    )?;
    run("cargo", &["test", "--workspace", "--doc"])?;
    // The runtime's public surface is documented, with no broken links.
    run_with_env(
        "cargo",
        &["doc", "--no-deps", "--package", "apigen-runtime"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    conformance::conformance()?;
    examples::examples()?;
    Ok(())
}

/// Validates the spec with openapi-spec-validator.
fn validate_spec() -> Result<(), String> {
    let validator = venv_tool("openapi-spec-validator==0.9.0", "openapi-spec-validator")?;
    run(&validator.to_string_lossy(), &["spec/openapi.yaml"])
}

/// A Python tool installed, at the pinned version, into the project's own
/// virtualenv (`target/venv`), created on first use.
pub fn venv_tool(requirement: &str, executable: &str) -> Result<PathBuf, String> {
    let venv = project_root().join("target").join("venv");
    let bin = venv.join("bin");
    if !bin.join("pip").exists() {
        run("python3", &["-m", "venv", &venv.to_string_lossy()])?;
    }
    let marker = venv.join(format!(".installed-{requirement}"));
    if !marker.exists() {
        let pip = bin.join("pip").to_string_lossy().into_owned();
        run(&pip, &["install", "--quiet", requirement])?;
        std::fs::write(&marker, "").map_err(|e| e.to_string())?;
    }
    Ok(bin.join(executable))
}
