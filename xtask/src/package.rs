//! `cargo xtask package`: the crates meant for a registry packed as
//! `cargo publish` would pack them, each verified by building from its own
//! packed sources (cargo's verification; a crate depending on another of
//! them builds against that one's package, not the workspace), and no
//! warning from cargo (a missing description, license, repository, readme;
//! a target left out of a package). Every other workspace member must say
//! `publish = false`.

use crate::project_root;
use std::process::Command;

/// The crates published, in the order a release publishes them.
pub const PUBLISHED: &[&str] = &["apigen-macros", "apigen-runtime", "apigen", "apigen-cli"];

pub fn package() -> Result<(), String> {
    publish_flags()?;
    let target = project_root().join("target").join("package-check");
    forget_earlier_packages(&target)?;
    let mut args = vec!["package", "--allow-dirty"];
    for name in PUBLISHED {
        args.extend(["--package", name]);
    }
    eprintln!("$ cargo {}", args.join(" "));
    // A target directory of its own: the packages build with their own
    // features and without the workspace's profile, so they share nothing
    // with the workspace's builds, and need not wait on their lock.
    // Without debug information, which nothing here reads.
    let out = Command::new(env!("CARGO"))
        .args(&args)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .current_dir(project_root())
        .output()
        .map_err(|e| format!("cannot run cargo package: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprint!("{stderr}");
    if !out.status.success() {
        return Err(format!(
            "`cargo {}` failed ({})",
            args.join(" "),
            out.status
        ));
    }
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("warning"))
        .collect();
    if !warnings.is_empty() {
        return Err(format!("cargo package warned:\n{}", warnings.join("\n")));
    }
    Ok(())
}

/// Makes cargo forget the packages of an earlier run. Cargo verifies a
/// crate that depends on another of [`PUBLISHED`] against that one's
/// package, through a local registry, and takes a registry's package of a
/// given version to be immutable: it neither unpacks it again (under
/// `$CARGO_HOME/registry/src/-<hash>/`, the only registries whose
/// directory starts with `-`) nor rebuilds it (its fingerprint in the
/// target directory). A second run would build `apigen-cli` against the
/// first run's `apigen`. Both are removed; the rest of the target
/// directory stays warm.
fn forget_earlier_packages(target: &std::path::Path) -> Result<(), String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    let local_registries: Vec<std::path::PathBuf> =
        std::fs::read_dir(home.join("registry").join("src"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|r| r.file_name().to_string_lossy().starts_with('-'))
            .map(|r| r.path())
            .collect();
    let fingerprints = target.join("debug").join(".fingerprint");
    for dir in local_registries.iter().chain([&fingerprints]) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // `apigen-0.1.0` unpacked, `apigen-0123456789abcdef` built.
            let ours = PUBLISHED.iter().any(|p| {
                name.strip_prefix(p)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|rest| {
                        let version = rest.starts_with(|c: char| c.is_ascii_digit());
                        let hash = rest.len() == 16 && rest.chars().all(|c| c.is_ascii_hexdigit());
                        (version && rest.contains('.')) || hash
                    })
            });
            if ours {
                std::fs::remove_dir_all(entry.path())
                    .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
            }
        }
    }
    Ok(())
}

/// Every workspace member but [`PUBLISHED`] says `publish = false`, and
/// those do not.
fn publish_flags() -> Result<(), String> {
    let mut wrong = Vec::new();
    for package in crate::workspace_packages()? {
        let name = package["name"].as_str().unwrap_or_default();
        // `publish = false` is an empty list of registries.
        let publishable = package["publish"] != serde_json::json!([]);
        if publishable != PUBLISHED.contains(&name) {
            wrong.push(format!(
                "{name}: publish = {publishable}, meant to be {}",
                !publishable
            ));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n"))
    }
}
