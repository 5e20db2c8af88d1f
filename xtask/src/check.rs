//! `cargo check` read through its JSON messages: what each of a
//! workspace's own packages' compilation said (errors, warnings, whether
//! it finished), for the corpora's table and for CI's checks of the pet
//! store crate's feature sets, which fail on a warning.

use crate::project_root;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where every check here builds: the workspace's own target directory,
/// so that the dependencies the tests built are not built again (the
/// corpora's workspace builds there too).
pub fn target_dir() -> PathBuf {
    project_root().join("target")
}

/// What checking one package found.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    pub errors: usize,
    pub warnings: usize,
    pub first_error: Option<String>,
    /// Every message as the compiler rendered it, for the log.
    pub rendered: String,
    /// The package's own library was checked (not stopped by a failure).
    pub built: bool,
}

/// `cargo check ARGS` in the workspace at `work`, going on past failures:
/// what each of its own packages' compilation said, by package name.
pub fn check(work: &Path, args: &[String]) -> Result<BTreeMap<String, Checked>, String> {
    let out = Command::new("cargo")
        .args(["check", "--quiet"])
        .args(args)
        .args(["--keep-going", "--message-format=json"])
        .current_dir(work)
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let mut found: BTreeMap<String, Checked> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(package) = message["package_id"].as_str().and_then(package_name) else {
            continue;
        };
        let entry = found.entry(package).or_default();
        match message["reason"].as_str() {
            Some("compiler-message") => {
                let level = message["message"]["level"].as_str().unwrap_or_default();
                let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
                entry.rendered.push_str(rendered);
                match level {
                    "error" => {
                        entry.errors += 1;
                        if entry.first_error.is_none() {
                            entry.first_error = rendered.lines().next().map(str::to_string);
                        }
                    }
                    "warning" => entry.warnings += 1,
                    _ => {}
                }
            }
            Some("compiler-artifact") => entry.built = true,
            _ => {}
        }
    }
    // Cargo stopped before compiling any of the packages (an unknown
    // feature, a manifest it cannot read): nothing above says so.
    if found.is_empty() && !out.status.success() {
        return Err(format!(
            "cargo check {} failed before compiling anything:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(found)
}

/// The name of a local package from a cargo package id (`None` for a
/// registry's, whose warnings cargo caps): `path+file:///.../foo#0.1.0`
/// or `path+file:///.../dir#foo@0.1.0` (cargo 1.77 and later), or `foo
/// 0.1.0 (path+file:///...)`.
fn package_name(id: &str) -> Option<String> {
    if !id.contains("path+file://") {
        return None;
    }
    let name = match id.split_once('#') {
        Some((path, fragment)) => match fragment.split_once('@') {
            Some((name, _)) => name,
            None => path.rsplit('/').next()?,
        },
        None => id.split(' ').next()?,
    };
    Some(name.to_string())
}

/// `cargo check ARGS` in this workspace, failing on any warning or error
/// in its own packages (the dependencies' are capped by cargo), each
/// printed as the compiler rendered it: a plain check, where clippy's
/// driver would add its own minutes for lints the full build already
/// runs.
pub fn denying_warnings(args: &[&str]) -> Result<(), String> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    eprintln!("$ cargo check {} (warnings denied)", args.join(" "));
    let found = check(&project_root(), &args)?;
    let mut failed = Vec::new();
    for (package, checked) in &found {
        if checked.errors + checked.warnings > 0 {
            eprint!("{}", checked.rendered);
            failed.push(format!(
                "{package}: {} errors, {} warnings",
                checked.errors, checked.warnings
            ));
        }
    }
    if failed.is_empty() && found.values().all(|c| c.built) {
        Ok(())
    } else if failed.is_empty() {
        Err(format!("cargo check {} did not finish", args.join(" ")))
    } else {
        Err(format!(
            "cargo check {}: {}",
            args.join(" "),
            failed.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn local_packages_are_named_from_their_ids_and_registry_ones_are_not() {
        let named = |id| package_name(id).unwrap_or_default();
        assert_eq!(
            named("path+file:///w/target/corpus/corpus-foo#0.1.0"),
            "corpus-foo"
        );
        assert_eq!(
            named("path+file:///w/tests#petstore-tests@0.1.0"),
            "petstore-tests"
        );
        assert_eq!(
            named("corpus-foo 0.1.0 (path+file:///w/corpus-foo)"),
            "corpus-foo"
        );
        let registry = "registry+https://github.com/rust-lang/crates.io-index#serde@1.0.228";
        assert_eq!(package_name(registry), None);
    }
}
