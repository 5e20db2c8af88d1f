//! `cargo xtask codegen [--check]`: spec/openapi.yaml -> crates/petstore-api/src/generated,
//! the release notes, and the manifest fragment of generated crates that the
//! generator's package carries ([`crate::runtime_manifest`]).

use crate::project_root;
use crate::SPEC;
use std::fs;

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
        group_features: false,
        serde_sides: false,
    };
    let files = apigen::generate(SPEC, &text, &config)
        .map_err(|d| d.to_string())?
        .files;
    let out = root.join(OUT_DIR);
    let sync_mode = match mode {
        Mode::Write => apigen::sync::Mode::Write,
        Mode::Check => apigen::sync::Mode::Check,
    };
    let stale = apigen::sync::sync(&out, &files, "", sync_mode)?;
    // The release notes, from the released interface to the spec.
    let changelog = crate::spec_diff::changelog()?;
    let changelog_path = root.join(crate::spec_diff::CHANGELOG);
    let written = fs::read_to_string(&changelog_path).unwrap_or_default();
    let stale_changelog = written != changelog;
    if stale_changelog && mode == Mode::Write {
        fs::write(&changelog_path, &changelog)
            .map_err(|e| format!("cannot write {}: {e}", changelog_path.display()))?;
    }
    let mut stale_manifests = Vec::new();
    for (path, manifest) in crate::runtime_manifest::files()? {
        let full = root.join(path);
        if fs::read_to_string(&full).unwrap_or_default() == manifest {
            continue;
        }
        if mode == Mode::Write {
            fs::write(&full, &manifest)
                .map_err(|e| format!("cannot write {}: {e}", full.display()))?;
        }
        stale_manifests.push(format!("{path} is stale: it should read\n{manifest}"));
    }
    let stale_manifest = !stale_manifests.is_empty();
    if stale.is_empty() && (!(stale_changelog || stale_manifest) || mode == Mode::Write) {
        if mode == Mode::Write {
            eprintln!(
                "generated {} files in {OUT_DIR}, {}, {} and {}",
                files.len(),
                crate::spec_diff::CHANGELOG,
                crate::runtime_manifest::PATH,
                crate::runtime_manifest::MACROS_PATH
            );
        }
        return Ok(());
    }
    let mut shown: Vec<String> = stale
        .iter()
        .map(|s| format!("{OUT_DIR}/{}:\n{}", s.path, s.diff))
        .collect();
    if stale_changelog {
        shown.push(format!(
            "{} is stale: it should read\n{changelog}",
            crate::spec_diff::CHANGELOG
        ));
    }
    shown.extend(stale_manifests);
    Err(format!(
        "{}\nThe generated code is stale: run `{COMMAND}` and commit the result.",
        shown.join("\n")
    ))
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
}
