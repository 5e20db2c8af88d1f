//! The guide, README, ARCHITECTURE and CONTRIBUTING stay true to the
//! repository: every file a chapter shows whole is that file, and every
//! repository path they name exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The documents a reader is sent to.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut docs: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    let guide = std::fs::read_dir(root.join("docs/src")).expect("the guide");
    let mut chapters: Vec<PathBuf> = guide
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.sort();
    docs.extend(chapters);
    docs
}

/// A block after `<!-- file: PATH -->` is the file at PATH, whole: the
/// quickstart's code is the code CI builds and runs.
#[test]
fn every_file_a_chapter_shows_is_that_file() {
    let mut shown = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let mut rest = text.as_str();
        while let Some(start) = rest.find("<!-- file: ") {
            let after = &rest[start + "<!-- file: ".len()..];
            let (path, after) = after.split_once(" -->").expect("a closed marker");
            let fence = after.find("```").expect("a block after the marker");
            let body = &after[fence..];
            let body = &body[body.find('\n').expect("a fence line") + 1..];
            let end = body.find("\n```").expect("a closed block");
            let block = &body[..=end];
            let file = std::fs::read_to_string(root().join(path))
                .unwrap_or_else(|e| panic!("{}: {path}: {e}", doc.display()));
            assert_eq!(
                block,
                file,
                "{} shows {path}, which has changed: copy it again",
                doc.display()
            );
            shown += 1;
            rest = &body[end..];
        }
    }
    assert!(shown >= 5, "the quickstart shows its files ({shown})");
}

/// Every repository path a document names in backticks exists:
/// `crates/apigen/src/load`, `examples/build-time/build.rs`, ...
#[test]
fn every_path_the_documents_name_exists() {
    let tops = [
        "crates/",
        "examples/",
        "docs/",
        "tests/",
        "spec/",
        "xtask/",
        ".ci/",
    ];
    let mut missing = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (i, quoted) in text.split('`').enumerate() {
            // Inside backticks: every other piece.
            if i % 2 == 0 || quoted.contains(char::is_whitespace) {
                continue;
            }
            // A pattern (`spec/released/v{MAJOR}.yaml`) names no one file.
            if !tops.iter().any(|t| quoted.starts_with(t)) || quoted.contains('{') {
                continue;
            }
            // `path:line`, `path#anchor`, a glob's directory.
            let path = quoted.split([':', '#', '*']).next().unwrap_or(quoted);
            let path = path.trim_end_matches(['.', ',', ')']);
            if !root().join(path).exists() {
                missing.push(format!("{}: `{quoted}`", doc.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "named but not there:\n{}",
        missing.join("\n")
    );
}
