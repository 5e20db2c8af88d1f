//! `apigen mock SPEC`: the document's crate with its `mock` feature, built
//! once and kept under a key of what was generated (so of the document and
//! of this tool's version alike), then run.
//!
//! The cache holds one workspace per crate name, rewritten in place, and
//! one binary per key beside it. A workspace per key would be wrong, not
//! just wasteful: cargo keys a path package's build by its path relative
//! to its workspace, so two such workspaces in one target directory share
//! one fingerprint; and when the cache lies inside the target directory,
//! cargo records the sources relative to that directory, so the second
//! build checks the first one's sources, finds them unchanged, and keeps
//! the first one's binary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// What `apigen mock` was asked.
pub struct Request<'a> {
    pub spec: &'a Path,
    pub listen: &'a str,
    pub seed: u64,
    /// The framework the mock serves on: `actix` or `axum`.
    pub framework: &'a str,
    pub cache: Option<PathBuf>,
    /// Build (or find) the mock, print its binary's path, and stop.
    pub build_only: bool,
    /// The `apigen-runtime` crate's directory to depend on, instead of
    /// carrying the runtime's sources.
    pub runtime_crate: Option<PathBuf>,
    /// Depend on the `apigen-runtime` crate (from crates.io, unless
    /// [`Request::runtime_crate`] names a directory).
    pub on_runtime_crate: bool,
    /// The only credentials a secured operation takes (any when empty).
    pub credentials: Vec<String>,
    /// A path to serve the mock's OAuth 2 token endpoint at, besides the
    /// spec's relative token URLs.
    pub token_path: Option<String>,
    /// Build with the release profile.
    pub release: bool,
}

/// Where built mocks are kept: `$XDG_CACHE_HOME/apigen/mock`, else
/// `~/.cache/apigen/mock`, else a directory under the system's temporary
/// one.
fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("apigen").join("mock")
}

/// FNV-1a over every file of the mock's workspace, by path, this tool's
/// version and the build's profile: the same document, tool and profile
/// give the same key on any machine.
fn key(files: &apigen::Files, profile: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let version = env!("CARGO_PKG_VERSION");
    let parts = files
        .iter()
        .flat_map(|(path, text)| [path.as_str(), text.as_str()])
        .chain([version, profile]);
    for part in parts {
        for byte in part.bytes().chain([0]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

pub fn run(request: Request) -> Result<(), String> {
    let spec = request.spec;
    // Absolute: the manifest that names it lies in the cache.
    let runtime = match &request.runtime_crate {
        Some(dir) => apigen::standalone::RuntimeSource::Path(runtime_crate(dir)?),
        None if request.on_runtime_crate => apigen::standalone::RuntimeSource::Registry,
        None => apigen::standalone::RuntimeSource::Vendored,
    };
    // Formats checked: the mock refuses an `email` that is not one, and
    // makes ones that are.
    let options = apigen::standalone::Options {
        server: true,
        check_formats: true,
        runtime,
        ..Default::default()
    };
    let command = format!("apigen mock {}", spec.display());
    let krate =
        apigen::standalone::generate(spec, &options, &command).map_err(|d| d.to_string())?;
    let cache = request.cache.unwrap_or_else(default_cache);
    std::fs::create_dir_all(&cache)
        .map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    // Absolute: cargo runs in the mock's directory.
    let cache = cache
        .canonicalize()
        .map_err(|e| format!("cannot read {}: {e}", cache.display()))?;
    let dir = cache.join(&krate.name);
    let files = apigen::standalone::mock_workspace(&krate);
    let profile = if request.release { "release" } else { "debug" };
    let binary = dir.join(format!("mock-server-{profile}-{}", key(&files, profile)));
    if !binary.exists() {
        eprintln!(
            "building the mock of {} ({} operations, {profile}) in {}: the first start for \
             this document takes a while, later ones reuse the build",
            spec.display(),
            krate.generated.operations(),
            dir.display()
        );
        let started = Instant::now();
        build(&cache, &dir, &files, &binary, request.release)?;
        eprintln!("built in {:.1} s", started.elapsed().as_secs_f64());
    }
    if request.build_only {
        println!("{}", binary.display());
        return Ok(());
    }
    let mut run = Command::new(&binary);
    run.args([request.listen, &request.seed.to_string(), request.framework]);
    run.args(&request.credentials);
    if let Some(path) = &request.token_path {
        run.env("APIGEN_MOCK_TOKEN_PATH", path);
    }
    exec(run, &binary)
}

/// `dir` as the runtime crate's absolute path, if it holds the
/// `apigen-runtime` package.
fn runtime_crate(dir: &Path) -> Result<PathBuf, String> {
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| {
        format!(
            "--runtime-crate {}: cannot read {} ({e}); it names the apigen-runtime crate's directory",
            dir.display(),
            manifest.display()
        )
    })?;
    let names_the_runtime = text.lines().any(|line| {
        line.split_once('=').is_some_and(|(key, value)| {
            key.trim() == "name" && value.trim() == r#""apigen-runtime""#
        })
    });
    if !names_the_runtime {
        return Err(format!(
            "--runtime-crate {}: {} is not the apigen-runtime package's manifest",
            dir.display(),
            manifest.display()
        ));
    }
    dir.canonicalize()
        .map_err(|e| format!("--runtime-crate {}: {e}", dir.display()))
}

/// Writes the crate and the server beside it into `dir` (only what
/// changed, so cargo sees what changed), builds the server in the cache's
/// shared target directory (or `CARGO_TARGET_DIR`), optimized when
/// `release`, and keeps its binary as `binary`, removing the binaries of
/// earlier builds of that profile in `dir`.
fn build(
    cache: &Path,
    dir: &Path,
    files: &apigen::Files,
    binary: &Path,
    release: bool,
) -> Result<(), String> {
    apigen::sync::sync(dir, files, "api/src/generated", apigen::sync::Mode::Write)?;
    // A lock file at the cache's root (a project's own, say) pins what
    // every mock builds with.
    let shared_lock = cache.join("Cargo.lock");
    if shared_lock.exists() && !dir.join("Cargo.lock").exists() {
        std::fs::copy(&shared_lock, dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
    }
    // The cache's own target directory, unless the caller names one (a
    // project's, whose dependencies are built already).
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| cache.join("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(["build", "--package", "mock-server"]);
    if release {
        command.arg("--release");
    }
    let status = command
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .map_err(|e| format!("cannot run cargo (a Rust toolchain is needed): {e}"))?;
    if !status.success() {
        return Err(format!(
            "the mock did not build (the crate is in {}); please report it with the document",
            dir.display()
        ));
    }
    let built = target
        .join(if release { "release" } else { "debug" })
        .join("mock-server");
    let partial = dir.join("mock-server.partial");
    std::fs::copy(&built, &partial).map_err(|e| format!("cannot copy {}: {e}", built.display()))?;
    std::fs::rename(&partial, binary).map_err(|e| e.to_string())?;
    // The binaries of earlier versions of this crate: never run again.
    let profile = if release { "release" } else { "debug" };
    let entries = std::fs::read_dir(dir).map_err(|e| e.to_string())?;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let earlier = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&format!("mock-server-{profile}-")));
        if earlier && path != binary {
            std::fs::remove_file(&path)
                .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn exec(mut command: Command, binary: &Path) -> Result<(), String> {
    use std::os::unix::process::CommandExt as _;
    let error = command.exec();
    Err(format!("cannot run {}: {error}", binary.display()))
}

#[cfg(not(unix))]
fn exec(mut command: Command, binary: &Path) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the mock stopped: {status}"))
    }
}
