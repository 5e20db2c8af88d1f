//! `cargo xtask codegen [--check]`: spec/openapi.yaml -> crates/petstore-api/src/generated.

use crate::project_root;
use std::fs;
use std::path::Path;

pub const SPEC: &str = "spec/openapi.yaml";
pub const OUT_DIR: &str = "crates/petstore-api/src/generated";
const COMMAND: &str = "cargo xtask codegen";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write the generated files.
    Write,
    /// Compare instead of writing; fail with a diff when anything differs.
    Check,
}

pub fn run(mode: Mode) -> Result<(), String> {
    let root = project_root();
    let text =
        fs::read_to_string(root.join(SPEC)).map_err(|e| format!("cannot read {SPEC}: {e}"))?;
    let config = apigen::Config {
        command: COMMAND.to_string(),
        source: SPEC.to_string(),
        lenient: false,
        check_formats: false,
        runtime: apigen::Runtime::Crate,
    };
    let files = apigen::generate(SPEC, &text, &config)
        .map_err(|d| d.to_string())?
        .files;
    let out = root.join(OUT_DIR);
    let mut stale = Vec::new();
    for (name, contents) in &files {
        if let Some(diff) = ensure_file_contents(&out.join(name), contents, mode)? {
            stale.push(format!("{OUT_DIR}/{name}:\n{diff}"));
        }
    }
    // Files left over from an earlier run are stale too.
    if let Ok(entries) = fs::read_dir(&out) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if !files.contains_key(&name) {
                match mode {
                    Mode::Write => fs::remove_file(entry.path())
                        .map_err(|e| format!("cannot remove {OUT_DIR}/{name}: {e}"))?,
                    Mode::Check => stale.push(format!("{OUT_DIR}/{name}: no longer generated\n")),
                }
            }
        }
    }
    if stale.is_empty() {
        if mode == Mode::Write {
            eprintln!("generated {} files in {OUT_DIR}", files.len());
        }
        Ok(())
    } else {
        Err(format!(
            "{}\nThe generated code is stale: run `{COMMAND}` and commit the result.",
            stale.join("\n")
        ))
    }
}

/// Writes `contents` to `path` (Write), or returns a diff when they differ (Check).
fn ensure_file_contents(path: &Path, contents: &str, mode: Mode) -> Result<Option<String>, String> {
    let old = fs::read_to_string(path).unwrap_or_default();
    if old == contents {
        return Ok(None);
    }
    match mode {
        Mode::Write => {
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            fs::write(path, contents)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            Ok(None)
        }
        // The same readable diff as `apigen generate --check`.
        Mode::Check => Ok(Some(apigen::standalone::diff(&old, contents))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo test` catches a spec edit that was not followed by `cargo xtask codegen`.
    #[test]
    fn generated_code_is_fresh() {
        if let Err(message) = run(Mode::Check) {
            panic!("{message}");
        }
    }

    /// README says a plain `cargo test` catches stale generated code: that
    /// holds only while the workspace's default members include this crate.
    #[test]
    fn plain_cargo_test_includes_the_freshness_check() {
        let manifest = fs::read_to_string(crate::project_root().join("Cargo.toml")).unwrap();
        let default_members = manifest
            .lines()
            .skip_while(|l| !l.starts_with("default-members"))
            .take_while(|l| !l.trim().is_empty())
            .collect::<String>();
        assert!(
            default_members.is_empty() || default_members.contains("\"xtask\""),
            "default-members leaves xtask out of a plain `cargo test`: {default_members}"
        );
    }

    #[test]
    fn check_mode_reports_a_diff_and_leaves_the_file_alone() {
        let dir = std::env::temp_dir().join(format!("xtask-codegen-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("x.rs");
        fs::write(&file, "a\nb\n").unwrap();
        let diff = ensure_file_contents(&file, "a\nc\n", Mode::Check)
            .unwrap()
            .unwrap();
        assert!(diff.contains("-b\n") && diff.contains("+c\n"), "{diff}");
        assert_eq!(fs::read_to_string(&file).unwrap(), "a\nb\n");
        assert_eq!(
            ensure_file_contents(&file, "a\nc\n", Mode::Write).unwrap(),
            None
        );
        assert_eq!(fs::read_to_string(&file).unwrap(), "a\nc\n");
        fs::remove_dir_all(&dir).unwrap();
    }
}
