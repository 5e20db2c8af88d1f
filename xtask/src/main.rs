//! Project chores, one module per group (`cargo xtask help` lists them all):
//!
//! - generated code: `codegen [--check]` ([`codegen`]); `codegen --spec`
//!   (a standalone crate from any document) and `corpus` ([`corpus`]);
//! - the interface's evolution: `spec-diff` and `release` ([`spec_diff`]);
//! - the server's behaviour: `conformance` (schemathesis), `examples`, and
//!   `ci`, which runs everything CI checks (here);
//! - measurements, run by hand: `bench`, `bench-client`, `bench-codegen`,
//!   `bench-compile`, `docs-screenshot`.
//!
//! Thin over the `apigen` library; nothing depends on this crate.

mod bench;
mod bench_client;
mod bench_codegen;
mod bench_compile;
mod check;
mod ci;
mod codegen;
mod conformance;
mod corpus;
mod delay_proxy;
mod docs_screenshot;
mod examples;
mod guide;
mod installs;
mod jobs;
mod launch;
mod mock_conformance;
mod package;
mod postgres;
mod rooms;
mod runtime_manifest;
mod spec_diff;
mod tests;
#[cfg(test)]
mod unified;

use std::path::{Path, PathBuf};

/// The spec, from the project root: the one source of the interface.
pub const SPEC: &str = "spec/openapi.yaml";
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  codegen           regenerate crates/petstore-api/src/generated from spec/openapi.yaml
  codegen --check   fail (with a diff) when the checked-in generated code is stale
  codegen --spec FILE --out DIR [--strict]
                    a standalone crate from any OpenAPI 3.0, 3.1 or 3.2 document; unsupported
                    operations are skipped and listed (--strict: fail instead)
  spec-diff BASE REVISION [--format text|json|markdown|github] [--date YYYY-MM-DD]
                    the evolution gate: changes that break callers, judged by each
                    operation's stability, deprecation and sunset; exits 1 on errors,
                    2 when a document cannot be read
  release           record spec/openapi.yaml as the released interface of its major
                    version (spec/released/vMAJOR.yaml), after the evolution gate
  corpus PATH... [--allow-skips]
                    generate every document (a PATH, or under a PATH that is a directory)
                    and `cargo check` the crates
                    (in parallel, every feature on); prints a table of operations,
                    warnings and what was skipped. Fails on a warning, an error, or
                    anything skipped unless --allow-skips
  bench [--seconds N] [--rounds R] [--only TEXT] [--database-url URL] [--instructions N] [--server-binary PATH]
                    load the release server with wrk on four endpoints (or those whose
                    name contains TEXT), beside a bare actix-web route answering the
                    same bytes, in R alternating rounds of N s each (5 of 4 s);
                    prints ratios and memory. The server runs on a fresh SQLite
                    file, or on the empty database at URL. --instructions N: count
                    each one's instructions per request under callgrind over N
                    requests instead (free of the machine's timing noise)
  bench-client [--rounds R] [--calls N]
                    a call through the generated client against the same call sent by
                    hand with reqwest, one release server, alternating rounds
  bench-codegen [DOC...] [--against APIGEN] [--rounds N]
                    the release generator as a user runs it on each DOC (Stripe's,
                    Microsoft Graph's and the pet store's by default): wall and CPU
                    time, peak memory, time per MB, medians of N (5); --against:
                    another apigen binary in alternation, with ratios. Then the
                    first DOC as 3.1, spec-diff, and openapi-generator's rust-axum
                    where Java is present
  bench-compile [DOC] [--group FEATURE] [--against APIGEN]
                    `cargo check` time and rustc's peak memory for the crate generated
                    from DOC (Stripe's by default), dependencies built first: every
                    feature, client only, server only, one group's feature with the
                    client (a mid-sized one unless named). --against: also the crate
                    another apigen binary generates, in the same run, with ratios
  delay-proxy --listen ADDR --to ADDR --delay-us N
                    a TCP proxy holding every chunk N us in each direction: a database
                    on this host at the latency of one on another (a round trip gains
                    2N us), where the kernel has no netem
  docs-screenshot [PAGE]
                    PNGs of the reference page (the pet store's by default) at desktop
                    and phone width: target/docs-desktop.png, target/docs-phone.png
  mock-conformance [--build-only | --framework actix|axum] PATH...
                    schemathesis against the mock server (`apigen mock`) of
                    each document (a directory's under 1 MB), every check, on
                    actix-web and on axum unless one is named (--build-only: build
                    the mocks and install schemathesis, run nothing);
                    MOCK_CONFORMANCE_PHASES and _EXAMPLES change its phases
                    (examples,coverage,fuzzing) and examples per operation (20)
  conformance [--database sqlite|postgres] [--without-stream]
                    schemathesis (pinned, in target/venv, on Python 3.12 or newer)
                    against the real server, every phase and check, on SQLite and on
                    PostgreSQL (a private cluster) unless one is named; the event
                    stream on the first (--without-stream: on neither)
  examples          the example clients (walkthrough, backoff) against the real server
  flake-hunt [RUNS] the end-to-end suites (on SQLite and PostgreSQL) and the tests
                    crate RUNS times in a row (5) while stress-ng --cpu 2 keeps both
                    cores busy; a table of each run's time and result
  guide             the user's guide (docs/, an mdBook) built into target/guide with
                    mdbook, and every link and anchor in it checked, offline
  package           the published crates (apigen-runtime, apigen, apigen-cli) packed as
                    `cargo publish` packs them, each built from its packed sources;
                    fails on any warning, or a crate whose `publish` is not as meant
  rooms             the generator's and the runtime's long files (over 1,000 lines),
                    long functions (over 120) and import loops between modules
  ci [--only STEP]  everything CI checks: fmt, rooms, codegen --check, spec validation, the
                    evolution gate, feature sets, clippy and tests (one build: clippy's
                    driver compiles the workspace, warnings denied), doc tests, the
                    guide, then side by side: (where ../shared holds them) the
                    corpora, schemathesis against the server and the mocks, and the
                    example clients (one job per core, and the corpora beside them);
                    ends with a table of each step's duration. --only: that step alone
";

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    jobs::remember_exe();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if let ["spec-diff", rest @ ..] = args.as_slice() {
        return ExitCode::from(spec_diff::spec_diff(rest));
    }
    let result = match args.as_slice() {
        ["codegen"] => codegen::run(codegen::Mode::Write),
        ["package"] => package::package(),
        ["codegen", "--check"] => codegen::run(codegen::Mode::Check),
        ["codegen", "--spec", spec, "--out", out] => corpus::codegen_standalone(spec, out, false),
        ["codegen", "--spec", spec, "--out", out, "--strict"] => {
            corpus::codegen_standalone(spec, out, true)
        }
        ["corpus", paths @ .., "--allow-skips"] if !paths.is_empty() => corpus::corpus(paths, true),
        ["corpus", paths @ ..] if !paths.is_empty() => corpus::corpus(paths, false),
        ["conformance", options @ ..] => {
            conformance::Options::parse(options).and_then(conformance::conformance)
        }
        ["examples"] => examples::examples(),
        ["mock-conformance", options @ ..] => mock_conformance::Run::parse(options)
            .and_then(|(run, paths)| mock_conformance::mock_conformance(run, paths)),
        ["release"] => spec_diff::release(),
        ["bench", options @ ..] => bench::Options::parse(options).and_then(bench::bench),
        ["bench-client", options @ ..] => bench_client::bench_client(options),
        ["bench-compile", options @ ..] => bench_compile::bench_compile(options),
        ["bench-codegen", options @ ..] => bench_codegen::bench_codegen(options),
        ["delay-proxy", options @ ..] => delay_proxy::delay_proxy(options),
        ["docs-screenshot"] => docs_screenshot::docs_screenshot(None),
        ["docs-screenshot", page] => docs_screenshot::docs_screenshot(Some(page)),
        ["ci"] => ci::ci(None),
        ["ci", "--only", step] => ci::ci(Some(step)),
        ["guide"] => guide::guide(),
        ["rooms"] => rooms::rooms(),
        ["flake-hunt", options @ ..] => tests::flake_hunt(options),
        ["help" | "--help" | "-h"] => {
            print!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("unknown arguments: {}\n\n{USAGE}", args.join(" "))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of this crate's directory).
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The workspace's own packages, as `cargo metadata` describes them
/// (workspace inheritance resolved).
pub fn workspace_packages() -> Result<Vec<serde_json::Value>, String> {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(project_root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut metadata: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cargo metadata wrote no JSON: {e}"))?;
    match metadata["packages"].take() {
        serde_json::Value::Array(packages) => Ok(packages),
        _ => Err("cargo metadata listed no packages".into()),
    }
}

/// Runs a command in the workspace root, echoing it; fails if it fails.
fn run(program: &str, args: &[&str]) -> Result<(), String> {
    run_with_env(program, args, &[])
}

/// As [`run`], with environment variables set for the command.
fn run_with_env(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    eprintln!("$ {}{program} {}", shown.concat(), args.join(" "));
    succeed(
        Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .current_dir(project_root()),
        &format!("{program} {}", args.join(" ")),
    )
}

/// Runs a command to its end; fails, naming it as `shown`, when it cannot
/// start or does not succeed.
fn succeed(command: &mut Command, shown: &str) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("could not run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// Set by an xtask that built the workspace's binaries before it started
/// others side by side ([`jobs`]): they need not wait on cargo's lock of
/// the target directory to learn that nothing is left to build.
pub(crate) const BUILT: &str = "XTASK_BINARIES_BUILT";

/// Set (by `ci`, for itself and the xtasks it starts) when every build of
/// the workspace is to be linted as it compiles ([`cargo`]).
pub(crate) const LINTED: &str = "XTASK_LINTED_BUILDS";

/// Runs `cargo ARGS` (with `env`) on the workspace, built as clippy would
/// check it when [`LINTED`] is set: clippy's driver compiles the
/// workspace's own crates (as `build.rustc-workspace-wrapper`), with
/// warnings denied, so one build both lints and makes the binaries; the
/// dependencies are compiled once, not once for clippy's check and again
/// for the tests. Set through cargo's configuration, not its environment,
/// so that a test that runs cargo on another workspace (a generated mock,
/// say) does not inherit it. Every build of the workspace in a run goes
/// through here, so all take the same flags and cargo builds nothing twice.
pub(crate) fn cargo(args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let mut all = args.to_vec();
    if std::env::var_os(LINTED).is_some() {
        all.extend([
            "--config",
            "build.rustc-workspace-wrapper=\"clippy-driver\"",
            "--config",
            "env.CLIPPY_ARGS=\"-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__\"",
        ]);
    }
    run_with_env("cargo", &all, env)
}

/// The `apigen-runtime` crate's directory, which generated crates built
/// side by side depend on instead of each carrying its sources (the
/// corpora, CI's mocks).
pub fn runtime_crate() -> PathBuf {
    project_root().join("crates").join("apigen-runtime")
}

/// The workspace's binaries and examples (the server, `apigen`, the example
/// clients), as the tests build them: the same features, so nothing is
/// built twice.
pub fn build_binaries() -> Result<(), String> {
    if std::env::var_os(BUILT).is_some() {
        return Ok(());
    }
    cargo(&["build", "--workspace", "--bins", "--examples"], &[])
}

/// Validates the spec with openapi-spec-validator.
pub fn validate_spec() -> Result<(), String> {
    let validator = venv_tool("openapi-spec-validator==0.9.0", "openapi-spec-validator")?;
    run(&validator.to_string_lossy(), &["spec/openapi.yaml"])
}

/// A Python tool installed, at the pinned version, into the project's own
/// virtualenv (`target/venv`), created on first use with [`python`].
pub fn venv_tool(requirement: &str, executable: &str) -> Result<PathBuf, String> {
    let venv = project_root().join("target").join("venv");
    let bin = venv.join("bin");
    let interpreter = python()?;
    // A virtualenv made by another interpreter (an older checkout's, say)
    // is made again.
    let made_by = venv.join(".made-by");
    let stamp = interpreter.to_string_lossy().into_owned();
    if std::fs::read_to_string(&made_by).ok().as_deref() != Some(stamp.as_str()) {
        let _ = std::fs::remove_dir_all(&venv);
    }
    if !bin.join("pip").exists() {
        run(&stamp, &["-m", "venv", &venv.to_string_lossy()])?;
        std::fs::write(&made_by, &stamp).map_err(|e| e.to_string())?;
    }
    let marker = venv.join(format!(".installed-{requirement}"));
    if !marker.exists() {
        let pip = bin.join("pip").to_string_lossy().into_owned();
        run(&pip, &["install", "--quiet", requirement])?;
        std::fs::write(&marker, "").map_err(|e| e.to_string())?;
    }
    Ok(bin.join(executable))
}

/// The oldest Python the tools run on: schemathesis' coverage phase
/// crashes inside older interpreters' `ast` module.
const PYTHON_AT_LEAST: (u32, u32) = (3, 12);

/// A Python interpreter, 3.12 or newer: `PETSTORE_PYTHON` when set, else
/// the first of `python3.13`, `python3.12`, `python3` on the PATH, else
/// one that pyenv installed.
pub fn python() -> Result<PathBuf, String> {
    let version = |candidate: &Path| -> Option<(u32, u32)> {
        let out = Command::new(candidate)
            .args([
                "-c",
                "import sys; print(sys.version_info[0], sys.version_info[1])",
            ])
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        let mut parts = text.split_whitespace().map(|p| p.parse().ok());
        Some((parts.next()??, parts.next()??))
    };
    if let Some(chosen) = std::env::var_os("PETSTORE_PYTHON") {
        let chosen = PathBuf::from(chosen);
        return match version(&chosen) {
            Some(v) if v >= PYTHON_AT_LEAST => Ok(chosen),
            found => Err(format!(
                "PETSTORE_PYTHON={} is {found:?}; the tools need Python {}.{} or newer",
                chosen.display(),
                PYTHON_AT_LEAST.0,
                PYTHON_AT_LEAST.1
            )),
        };
    }
    let mut candidates: Vec<PathBuf> = ["python3.13", "python3.12", "python3"]
        .into_iter()
        .map(PathBuf::from)
        .collect();
    let pyenv_root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".pyenv")));
    if let Some(Ok(versions)) = pyenv_root.map(|r| std::fs::read_dir(r.join("versions"))) {
        let mut installed: Vec<PathBuf> = versions
            .filter_map(|e| Some(e.ok()?.path().join("bin/python3")))
            .filter(|p| p.exists())
            .collect();
        installed.sort();
        candidates.extend(installed.into_iter().rev());
    }
    candidates
        .into_iter()
        .find(|c| version(c).is_some_and(|v| v >= PYTHON_AT_LEAST))
        .ok_or_else(|| {
            format!(
                "no Python {}.{} or newer found (tried python3.13, python3.12, python3 and \
                 pyenv's versions); install one, or point PETSTORE_PYTHON at it",
                PYTHON_AT_LEAST.0, PYTHON_AT_LEAST.1
            )
        })
}
