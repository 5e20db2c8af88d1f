//! Snapshot tests: each `snapshots/NAME.yaml` exercises one area of the
//! generator; its expected output is checked in under `snapshots/NAME/`, and
//! the `petstore-tests` crate compiles every snapshot with warnings denied, so
//! a snapshot can never be "updated" into code that does not build.
//!
//! A reference page (`docs.html`) is kept without its inline style and
//! script, which are the same for every document (`emit/docs/`): the
//! snapshot shows what the document put in the page.
//!
//! After an intended change, regenerate them with
//! `UPDATE_SNAPSHOTS=1 cargo test -p apigen --test snapshots` and review the diff.

use std::fs;
use std::path::{Path, PathBuf};

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("snapshots")
}

fn check(name: &str) {
    let spec = snapshot_dir().join(format!("{name}.yaml"));
    let text = fs::read_to_string(&spec).unwrap();
    let config = apigen::Config {
        command: "UPDATE_SNAPSHOTS=1 cargo test -p apigen --test snapshots".into(),
        source: format!("crates/apigen/tests/snapshots/{name}.yaml"),
        lenient: false,
        // The `petstore-tests` crate compiles them against `apigen-runtime`.
        runtime: apigen::Runtime::Crate,
        // The formats snapshot is generated as `--check-formats` would.
        check_formats: name == "formats",
    };
    let files = apigen::generate(&format!("{name}.yaml"), &text, &config)
        .unwrap_or_else(|d| panic!("{d}"))
        .files;
    let again = apigen::generate(&format!("{name}.yaml"), &text, &config)
        .unwrap()
        .files;
    assert_eq!(files, again, "generation is not deterministic");

    let files: Vec<(String, String)> = files
        .into_iter()
        .map(|(file, contents)| {
            let contents = if file == "docs.html" {
                let contents =
                    without_inner(&contents, "<style>", "</style>", "/* emit/docs/page.css */");
                without_inner(
                    &contents,
                    "<script>",
                    "</script>",
                    "/* emit/docs/page.js */",
                )
            } else {
                contents
            };
            (file, contents)
        })
        .collect();
    let out = snapshot_dir().join(name);
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut stale = Vec::new();
    for (file, contents) in &files {
        let path = out.join(file);
        if update {
            fs::create_dir_all(&out).unwrap();
            fs::write(&path, contents).unwrap();
        } else if fs::read_to_string(&path).ok().as_deref() != Some(contents.as_str()) {
            stale.push(file.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "snapshot {name}: {stale:?} differ from the generator's output; \
         run `UPDATE_SNAPSHOTS=1 cargo test -p apigen --test snapshots` and review the diff"
    );
}

/// `text` with what stands between the first `open` and the `close` after
/// it replaced by `marker`.
fn without_inner(text: &str, open: &str, close: &str, marker: &str) -> String {
    let start = text.find(open).expect("the page has its tag") + open.len();
    let end = start + text[start..].find(close).expect("the tag is closed");
    format!("{}{marker}{}", &text[..start], &text[end..])
}

#[test]
fn composition() {
    check("composition");
}

#[test]
fn unions() {
    check("unions");
}

#[test]
fn formats() {
    check("formats");
}

#[test]
fn parameters() {
    check("parameters");
}

#[test]
fn lifecycle() {
    check("lifecycle");
}

#[test]
fn real_world() {
    check("real_world");
}

#[test]
fn security() {
    check("security");
}

#[test]
fn hygiene() {
    check("hygiene");
}

#[test]
fn errors() {
    check("errors");
}

#[test]
fn references() {
    check("references");
}

#[test]
fn statuses() {
    check("statuses");
}

#[test]
fn oneof() {
    check("oneof");
}

#[test]
fn param_shapes() {
    check("param_shapes");
}

#[test]
fn empty() {
    check("empty");
}

#[test]
fn bare() {
    check("bare");
}
#[test]
fn v31_nullability() {
    check("v31_nullability");
}

#[test]
fn v31_keywords() {
    check("v31_keywords");
}

#[test]
fn v31_structure() {
    check("v31_structure");
}

#[test]
fn v31_document() {
    check("v31_document");
}

/// Every snapshot spec has a test above.
#[test]
fn every_snapshot_is_checked() {
    let source = fs::read_to_string(file!()).unwrap_or_else(|_| {
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots.rs"))
            .unwrap()
    });
    for entry in fs::read_dir(snapshot_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            assert!(
                source.contains(&format!("check(\"{name}\")")),
                "no test for {name}.yaml"
            );
        }
    }
}
