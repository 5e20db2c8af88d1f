//! Snapshot tests: each `snapshots/NAME.yaml` exercises one area of the
//! generator; its expected output is checked in under `snapshots/NAME/`, and
//! the `petstore-tests` crate compiles every snapshot with warnings denied, so
//! a snapshot can never be "updated" into code that does not build. The
//! directory is the list: a new document is generated, compared and
//! compiled without editing any list.
//!
//! A document named `lenient_*` is generated as `apigen generate` does by
//! default (what is strictly invalid read with a note, not refused); what
//! the generator said about any document, skips and notes, is kept as
//! `NAME/remarks.txt`, so that a note is reviewed like the code.
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

/// Generates `NAME.yaml` and compares (or, with `UPDATE_SNAPSHOTS`, writes)
/// its output under `NAME/`; what differs, as messages.
fn check(name: &str) -> Vec<String> {
    let spec = snapshot_dir().join(format!("{name}.yaml"));
    let text = fs::read_to_string(&spec).unwrap();
    let config = apigen::Config {
        command: "UPDATE_SNAPSHOTS=1 cargo test -p apigen --test snapshots".into(),
        source: format!("crates/apigen/tests/snapshots/{name}.yaml"),
        lenient: name.starts_with("lenient_"),
        // The `petstore-tests` crate compiles them against `apigen-runtime`.
        runtime: apigen::Runtime::Crate,
        group_features: false,
        serde_sides: false,
        // The formats snapshot is generated as `--check-formats` would.
        check_formats: name == "formats",
    };
    let (files, remarks) = match apigen::generate(&format!("{name}.yaml"), &text, &config) {
        Ok(generated) => {
            let remarks: Vec<String> = generated.remarks().collect();
            (generated.files, remarks)
        }
        Err(d) => return vec![format!("snapshot {name}: {d}")],
    };
    let again = apigen::generate(&format!("{name}.yaml"), &text, &config)
        .unwrap()
        .files;
    if files != again {
        return vec![format!("snapshot {name}: generation is not deterministic")];
    }

    let remarks = (!remarks.is_empty()).then(|| {
        (
            "remarks.txt".to_string(),
            remarks.iter().map(|r| format!("{r}\n")).collect(),
        )
    });
    let files: apigen::Files = files
        .into_iter()
        .chain(remarks)
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
    let mode = if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        apigen::sync::Mode::Write
    } else {
        apigen::sync::Mode::Check
    };
    let stale = apigen::sync::sync(&snapshot_dir().join(name), &files, "", mode).unwrap();
    stale
        .into_iter()
        .map(|s| {
            format!(
                "snapshot {name}: {} differs from the generator's output:\n{}",
                s.path, s.diff
            )
        })
        .collect()
}

/// `text` with what stands between the first `open` and the `close` after
/// it replaced by `marker`.
fn without_inner(text: &str, open: &str, close: &str, marker: &str) -> String {
    let start = text.find(open).expect("the page has its tag") + open.len();
    let end = start + text[start..].find(close).expect("the tag is closed");
    format!("{}{marker}{}", &text[..start], &text[end..])
}

/// Every `snapshots/*.yaml`, generated and compared with its directory; a
/// snapshot directory without its document is stale too.
#[test]
fn every_snapshot_matches_the_generator() {
    let mut names = Vec::new();
    let mut orphans = Vec::new();
    for entry in fs::read_dir(snapshot_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.extension().is_some_and(|e| e == "yaml") {
            names.push(name);
        } else if path.is_dir() && !snapshot_dir().join(format!("{name}.yaml")).exists() {
            orphans.push(path);
        }
    }
    names.sort();
    assert!(!names.is_empty());
    let mut problems: Vec<String> = names.iter().flat_map(|name| check(name)).collect();
    for orphan in orphans {
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            fs::remove_dir_all(&orphan).unwrap();
        } else {
            problems.push(format!("{} has no document: remove it", orphan.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nRun `UPDATE_SNAPSHOTS=1 cargo test -p apigen --test snapshots` and review the diff.",
        problems.join("\n")
    );
}
