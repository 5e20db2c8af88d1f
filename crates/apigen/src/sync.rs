//! The one way generated files reach a directory, or are compared with it:
//! `cargo xtask codegen [--check]`, `apigen generate [--check]` and the
//! snapshot tests all call [`sync`].
//!
//! A directory of generated files holds nothing else under the part the
//! generator owns: a file there that the generator no longer makes is
//! stale, removed when writing and reported when checking.

use crate::Files;
use std::fmt::Write as _;
use std::path::Path;

/// Whether [`sync`] writes or only compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write what differs, remove what is no longer generated.
    Write,
    /// Change nothing; report what differs.
    Check,
}

/// A file that is not what the generator makes now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// Its path, relative to the directory.
    pub path: String,
    /// A unified diff (checked in -> generated now), shortened; or why:
    /// `missing`, `no longer generated`.
    pub diff: String,
}

/// Brings `dir` in line with `files` (paths relative to `dir`), or compares
/// it with them. Every file under `dir/owned` (`""` for the whole
/// directory) is the generator's: one `files` does not hold is no longer
/// generated. Writing returns nothing stale; checking returns every
/// difference, in path order.
pub fn sync(dir: &Path, files: &Files, owned: &str, mode: Mode) -> Result<Vec<Stale>, String> {
    let mut stale = Vec::new();
    for path in leftovers(dir, owned, files) {
        match mode {
            Mode::Write => std::fs::remove_file(dir.join(&path))
                .map_err(|e| format!("cannot remove {}: {e}", dir.join(&path).display()))?,
            Mode::Check => stale.push(Stale {
                path,
                diff: "no longer generated\n".into(),
            }),
        }
    }
    for (path, contents) in files {
        let target = dir.join(path);
        let old = std::fs::read_to_string(&target).ok();
        if old.as_deref() == Some(contents.as_str()) {
            continue;
        }
        match mode {
            Mode::Write => {
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
                }
                std::fs::write(&target, contents)
                    .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
            }
            Mode::Check => stale.push(Stale {
                path: path.clone(),
                diff: match old {
                    Some(old) => diff(&old, contents),
                    None => "missing\n".into(),
                },
            }),
        }
    }
    stale.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(stale)
}

/// Diff lines shown per stale file; the rest are counted, not printed.
const MAX_DIFF_LINES: usize = 80;

/// A unified diff of two versions of a file, shortened.
pub fn diff(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("checked in", "generated now")
        .to_string();
    let total = diff.lines().count();
    if total <= MAX_DIFF_LINES {
        return diff;
    }
    let mut out: String = diff
        .lines()
        .take(MAX_DIFF_LINES)
        .flat_map(|l| [l, "\n"])
        .collect();
    let _ = writeln!(out, "... {} more diff lines", total - MAX_DIFF_LINES);
    out
}

/// Files under `dir/owned` that `files` does not hold, relative to `dir`.
fn leftovers(dir: &Path, owned: &str, files: &Files) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, found: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.path().is_dir() {
                walk(&entry.path(), &path, found);
            } else {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&dir.join(owned), owned, &mut found);
    found.retain(|path| !files.contains_key(path));
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_reports_and_write_brings_the_directory_in_line() {
        let dir = tempfile_dir();
        std::fs::create_dir_all(dir.join("gen/old")).unwrap();
        std::fs::write(dir.join("gen/a.rs"), "a\nb\n").unwrap();
        std::fs::write(dir.join("gen/old/gone.rs"), "x").unwrap();
        std::fs::write(dir.join("keep.txt"), "not the generator's").unwrap();
        let files: Files = [
            ("gen/a.rs".to_string(), "a\nc\n".to_string()),
            ("gen/new.rs".to_string(), "n\n".to_string()),
        ]
        .into();
        let stale = sync(&dir, &files, "gen", Mode::Check).unwrap();
        let paths: Vec<&str> = stale.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["gen/a.rs", "gen/new.rs", "gen/old/gone.rs"]);
        assert!(stale[0].diff.contains("-b\n") && stale[0].diff.contains("+c\n"));
        assert_eq!(stale[1].diff, "missing\n");
        assert_eq!(stale[2].diff, "no longer generated\n");
        assert_eq!(
            std::fs::read_to_string(dir.join("gen/a.rs")).unwrap(),
            "a\nb\n"
        );

        assert_eq!(sync(&dir, &files, "gen", Mode::Write).unwrap(), Vec::new());
        assert_eq!(sync(&dir, &files, "gen", Mode::Check).unwrap(), Vec::new());
        assert!(!dir.join("gen/old/gone.rs").exists());
        assert!(
            dir.join("keep.txt").exists(),
            "outside what the generator owns"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "apigen-sync-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
