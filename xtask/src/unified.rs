//! `cargo xtask` builds xtask alone, and cargo resolves the features of
//! its dependencies for that build only; the tests' build resolves them for
//! the whole workspace. Where the two differ, CI compiles apigen's
//! dependencies twice. xtask's manifest names the features the rest of the
//! workspace turns on, so that they agree; this test keeps them agreeing.

use std::collections::BTreeSet;
use std::process::Command;

/// Each package of `cargo tree SELECTION` with the features it is built
/// with, one line each (`name vX.Y.Z [f1,f2]`); the compiler's side
/// (proc macros, build scripts) has lines of its own.
fn resolved(selection: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .arg("tree")
        .args(selection)
        .args(["--format", "{p} [{f}]", "--prefix", "none", "--offline"])
        .current_dir(crate::project_root())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree {selection:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            line.trim_end_matches(" (*)")
                .replace(" (proc-macro)", "")
                .to_string()
        })
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn xtask_alone_resolves_as_the_workspace() {
    let alone = resolved(&["--package", "xtask", "--edges", "normal,build"]);
    let workspace = resolved(&["--workspace", "--edges", "normal,build,dev"]);
    let differ: Vec<&String> = alone
        .iter()
        .filter(|line| !line.starts_with("xtask "))
        .filter(|line| !workspace.contains(*line))
        .collect();
    assert!(
        differ.is_empty(),
        "`cargo xtask` builds these with other features than the workspace's \
         build does, so CI compiles them (and what depends on them) twice; \
         name the workspace's features for them in xtask/Cargo.toml:\n{}",
        differ
            .iter()
            .map(|l| format!("  {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
