//! The `apigen` binary as a team would run it: generate a crate, check it
//! is current in CI (after a hand edit, after a spec edit), run the
//! evolution gate, and check a document alone.

use std::path::Path;
use std::process::{Command, Output};

const SPEC: &str = r#"openapi: 3.0.3
info: {title: Notes Service, version: '1.0.0'}
paths:
  /notes/{id}:
    get:
      operationId: getNote
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        '200':
          description: The note.
          content: {application/json: {schema: {$ref: '#/components/schemas/Note'}}}
components:
  schemas:
    Note:
      type: object
      required: [id, text]
      properties:
        id: {type: integer}
        text: {type: string}
"#;

fn apigen(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_apigen"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("apigen runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn generate_then_check_catches_hand_edits_and_spec_edits() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.yaml"), SPEC).unwrap();
    let generate = ["generate", "notes.yaml", "--out", "notes"];
    let out = apigen(&generate, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wrote crate `notes-service`"),
        "{}",
        stderr(&out)
    );
    let manifest = std::fs::read_to_string(dir.path().join("notes/Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"notes-service\""), "{manifest}");

    let check = ["generate", "notes.yaml", "--out", "notes", "--check"];
    let out = apigen(&check, dir.path());
    assert!(
        out.status.success(),
        "a fresh crate is current: {}",
        stderr(&out)
    );

    // A hand edit of generated code.
    let models = dir.path().join("notes/src/generated/models.rs");
    let edited = std::fs::read_to_string(&models)
        .unwrap()
        .replace("pub text: String", "pub text: Option<String>");
    std::fs::write(&models, edited).unwrap();
    let out = apigen(&check, dir.path());
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains("notes/src/generated/models.rs:"),
        "{message}"
    );
    assert!(
        message.contains("-    pub text: Option<String>"),
        "{message}"
    );
    assert!(message.contains("+    pub text: String"), "{message}");
    assert!(
        message.contains(
            "is stale: run `apigen generate notes.yaml --out notes` and commit the result"
        ),
        "{message}"
    );
    assert!(apigen(&generate, dir.path()).status.success());
    assert!(apigen(&check, dir.path()).status.success());

    // A spec edit not followed by generation.
    let spec = SPEC.replace(
        "        text: {type: string}\n",
        "        text: {type: string}\n        pinned: {type: boolean}\n",
    );
    std::fs::write(dir.path().join("notes.yaml"), spec).unwrap();
    let out = apigen(&check, dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("+    pub pinned: Option<bool>"),
        "{}",
        stderr(&out)
    );
    // A file the generator no longer writes is stale too.
    std::fs::write(dir.path().join("notes/src/generated/extra.rs"), "").unwrap();
    assert!(apigen(&generate, dir.path()).status.success());
    assert!(!dir.path().join("notes/src/generated/extra.rs").exists());
    assert!(apigen(&check, dir.path()).status.success());
}

#[test]
fn names_and_features_are_chosen_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.yaml"), SPEC).unwrap();
    let out = apigen(
        &[
            "generate",
            "notes.yaml",
            "--out",
            "n",
            "--name",
            "notes-api",
            "--client",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest = std::fs::read_to_string(dir.path().join("n/Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"notes-api\""), "{manifest}");
    assert!(
        manifest.contains("default = [\"client\", \"all-groups\"]"),
        "{manifest}"
    );
    assert!(manifest.contains("default-tag = []"), "{manifest}");
    let lib = std::fs::read_to_string(dir.path().join("n/src/lib.rs")).unwrap();
    assert!(
        lib.contains("use notes_api::{client, operations};"),
        "{lib}"
    );
    assert!(lib.contains("client.get_note("), "{lib}");
}

/// `--runtime crate` writes a crate that asks for `apigen-runtime` at this
/// tool's version and carries no copy of it; the command that regenerates
/// it says so, and checking it as a vendoring crate finds it stale.
#[test]
fn a_crate_on_the_runtime_crate_holds_no_copy_of_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.yaml"), SPEC).unwrap();
    let on_crate = ["generate", "notes.yaml", "--out", "n", "--runtime", "crate"];
    let out = apigen(&on_crate, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest = std::fs::read_to_string(dir.path().join("n/Cargo.toml")).unwrap();
    let requirement = format!(
        "apigen-runtime = {{ version = \"{}\", default-features = false }}",
        env!("CARGO_PKG_VERSION")
    );
    assert!(manifest.contains(&requirement), "{manifest}");
    assert!(
        manifest.contains("client = [\"apigen-runtime/client\""),
        "{manifest}"
    );
    assert!(!dir.path().join("n/src/generated/runtime").exists());
    let module = std::fs::read_to_string(dir.path().join("n/src/generated/mod.rs")).unwrap();
    assert!(module.contains("pub use apigen_runtime::*;"), "{module}");
    let models = std::fs::read_to_string(dir.path().join("n/src/generated/models.rs")).unwrap();
    assert!(
        models.contains("apigen generate notes.yaml --out n --runtime crate"),
        "{models}"
    );
    let check: Vec<&str> = on_crate.iter().copied().chain(["--check"]).collect();
    assert!(apigen(&check, dir.path()).status.success());
    let vendored = ["generate", "notes.yaml", "--out", "n", "--check"];
    let out = apigen(&vendored, dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("runtime/mod.rs"), "{}", stderr(&out));
}

#[test]
fn diff_is_the_evolution_gate_with_its_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("base.yaml"), SPEC).unwrap();
    std::fs::write(dir.path().join("same.yaml"), SPEC).unwrap();
    let broken = SPEC.replace("required: [id, text]", "required: [id]");
    std::fs::write(dir.path().join("broken.yaml"), broken).unwrap();
    assert_eq!(
        apigen(&["diff", "base.yaml", "same.yaml"], dir.path())
            .status
            .code(),
        Some(0)
    );
    let out = apigen(&["diff", "base.yaml", "broken.yaml"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = apigen(&["diff", "base.yaml", "missing.yaml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let out = apigen(
        &["diff", "base.yaml", "same.yaml", "--format", "json"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["version"], 1, "{json}");
    // The exit status is the gate's whatever the format, and every format
    // names the breaking change.
    for format in ["text", "json", "markdown", "github"] {
        let out = apigen(
            &["diff", "base.yaml", "broken.yaml", "--format", format],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(1), "--format {format}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("response-property-became-optional")
                || stdout.contains("property `text`"),
            "--format {format}: {stdout}"
        );
    }
    let out = apigen(
        &["diff", "base.yaml", "broken.yaml", "--format", "html"],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown format is a usage error"
    );
}

#[test]
fn check_reports_diagnostics_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.yaml"), SPEC).unwrap();
    let out = apigen(&["check", "ok.yaml"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 operations, 1 types, 0 skipped, 0 notes"),
        "{}",
        stderr(&out)
    );
    let bad = SPEC.replace("#/components/schemas/Note", "#/components/schemas/Nope");
    std::fs::write(dir.path().join("bad.yaml"), bad).unwrap();
    let out = apigen(&["check", "bad.yaml", "--strict"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error: unresolved reference `#/components/schemas/Nope`"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("bad").exists(), "check writes nothing");
}

#[test]
fn the_gate_lists_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let out = apigen(&["diff", "--rules"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let rules: Vec<&str> = text.lines().collect();
    assert!(rules.len() > 80, "{} rules", rules.len());
    assert!(
        text.contains("request-parameter-removed-before-sunset"),
        "{text}"
    );
    assert!(
        rules.iter().all(|l| l.split_whitespace().count() >= 3),
        "{text}"
    );
}

/// The workspace's target directory, whose dependencies the tests built.
fn workspace_target() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")
}

/// Builds the mock of `spec` into `dir/cache`, compiled in the
/// workspace's target directory, and returns its binary. The workspace's
/// lock file at the cache's root pins the versions the tests built, as
/// `cargo xtask mock-conformance` does: without it, cargo resolves the
/// newest versions and compiles a second copy of most dependencies.
fn build_mock(dir: &Path, spec: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("notes.yaml"), spec).unwrap();
    std::fs::create_dir_all(dir.join("cache")).unwrap();
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    std::fs::copy(lock, dir.join("cache/Cargo.lock")).unwrap();
    let target = workspace_target();
    let out = Command::new(env!("CARGO_BIN_EXE_apigen"))
        .args(["mock", "notes.yaml", "--cache", "cache", "--build-only"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("apigen runs");
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8(out.stdout).unwrap().trim().into()
}

/// Starts the mock binary on a free port and answers `GET path` with it.
fn ask_mock(binary: &Path, path: &str) -> String {
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    let mut mock = Command::new(binary)
        .args(["127.0.0.1:0", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the mock starts");
    let mut line = String::new();
    BufReader::new(mock.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    mock.kill().unwrap();
    mock.wait().unwrap();
    answer
}

#[test]
fn a_changed_document_gets_a_mock_of_its_own_version() {
    // The same document (so the same crate name) before and after an edit
    // of its example: the second mock answers with the second example,
    // built from the edited sources, not found stale in the target
    // directory the first build left. Inside the target directory, as
    // `cargo xtask mock-conformance` keeps its cache, cargo records the
    // sources relative to it, where a cache keyed by directory went stale.
    let dir = tempfile::tempdir_in(workspace_target()).unwrap();
    let example = |text: &str| {
        SPEC.replace(
            "          content: {application/json: {schema: {$ref: '#/components/schemas/Note'}}}",
            &format!(
                "          content:\n            application/json:\n              \
                 schema: {{$ref: '#/components/schemas/Note'}}\n              \
                 example: {{id: 1, text: {text}}}"
            ),
        )
    };
    let first = build_mock(dir.path(), &example("first"));
    assert!(ask_mock(&first, "/notes/1").contains(r#""text":"first""#));
    let second = build_mock(dir.path(), &example("second"));
    assert_ne!(first, second, "each version has its own binary");
    assert!(!first.exists(), "the earlier version's binary is removed");
    let answer = ask_mock(&second, "/notes/1");
    assert!(answer.contains(r#""text":"second""#), "{answer}");
}

#[test]
fn a_mock_on_a_runtime_crate_names_a_real_one() {
    // `--runtime-crate` must name the apigen-runtime package: any other
    // directory is refused before anything is generated or built.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.yaml"), SPEC).unwrap();
    let cache = dir.path().join("cache");
    let mock = |runtime: &Path| {
        apigen(
            &[
                "mock",
                "notes.yaml",
                "--build-only",
                "--cache",
                &cache.to_string_lossy(),
                "--runtime-crate",
                &runtime.to_string_lossy(),
            ],
            dir.path(),
        )
    };
    let out = mock(&dir.path().join("nowhere"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("it names the apigen-runtime crate's directory"),
        "{}",
        stderr(&out)
    );
    let cli = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = mock(cli);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is not the apigen-runtime package's manifest"),
        "{}",
        stderr(&out)
    );
    assert!(!cache.exists(), "nothing is generated");
}
