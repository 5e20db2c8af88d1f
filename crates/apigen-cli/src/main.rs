//! `apigen`: Rust from an OpenAPI document, for any team's API.
//!
//! - `apigen generate SPEC --out DIR`: a crate of its own (models, a route
//!   trait per tag, actix-web glue, a typed client, operation metadata);
//!   `--check` compares DIR with what would be generated and fails with a
//!   diff, for CI;
//! - `apigen diff BASE REVISION`: the evolution gate, what a revision breaks
//!   for callers of the base (`apigen diff --rules` lists its rules);
//! - `apigen check SPEC`: what the generator says about a document, alone;
//! - `apigen mock SPEC`: a mock server of the API, answering from the
//!   spec's examples and schemas.
//!
//! Thin over the `apigen` library: the same code paths as this
//! repository's `cargo xtask codegen` and `spec-diff`.

mod mock;
#[cfg(test)]
mod reference;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Rust from an OpenAPI document (3.0, 3.1 or 3.2).
#[derive(Debug, Parser)]
#[command(name = "apigen", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate a crate from a document, or check that one is current.
    Generate {
        /// The OpenAPI document (YAML or JSON; references to other files
        /// are followed).
        spec: PathBuf,
        /// The crate's directory.
        #[arg(long)]
        out: PathBuf,
        /// The crate's name (default: from `info.title`).
        #[arg(long)]
        name: Option<String>,
        /// Make the server glue a default feature.
        #[arg(long)]
        server: bool,
        /// Make the typed client a default feature.
        #[arg(long)]
        client: bool,
        /// Compare the directory with what would be generated; fail with a
        /// diff and the command to run when they differ.
        #[arg(long)]
        check: bool,
        /// Fail on what the generator cannot express, instead of leaving it
        /// out and listing it.
        #[arg(long)]
        strict: bool,
        /// Check `format: email`, `format: uri` and `format: duration` strings.
        #[arg(long)]
        check_formats: bool,
        /// Compile a model's serde impls only for the sides that use them
        /// (a client writes requests and reads responses): a client-only
        /// build of a large API checks in about a seventh less time and
        /// memory, and its models are no longer serde types both ways.
        #[arg(long)]
        serde_sides: bool,
        /// Where the crate finds apigen-runtime: `vendored`, its sources
        /// carried in the crate (`src/generated/runtime/`), which builds with
        /// nothing else; or `crate`, the `apigen-runtime` crate of this
        /// tool's version as a dependency, which crates generated side by
        /// side compile once.
        #[arg(long, value_enum, default_value_t = RuntimeChoice::Vendored)]
        runtime: RuntimeChoice,
    },
    /// The evolution gate: what REVISION breaks for callers of BASE, judged
    /// by each operation's stability, deprecation and sunset. Exits 0 when
    /// nothing is at error level, 1 when something is, 2 when a document
    /// cannot be read.
    Diff {
        /// The document as callers know it: the last release's
        /// (`git show v1.2.0:openapi.yaml > base.yaml`, say).
        #[arg(required_unless_present = "rules")]
        base: Option<PathBuf>,
        /// The document as it would be released.
        #[arg(required_unless_present = "rules")]
        revision: Option<PathBuf>,
        /// List every rule (id, severity, what it reports) and exit.
        #[arg(long, conflicts_with_all = ["base", "revision"])]
        rules: bool,
        /// `text` for a person; `json` for tools (versioned, see the
        /// guide); `markdown`, release notes (breaking, deprecated,
        /// removed, changed, added); `github`, workflow commands that show
        /// each finding at its line in a pull request. The exit status is
        /// the same whatever the format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// The day to judge sunsets on (YYYY-MM-DD; default: today, UTC).
        #[arg(long)]
        date: Option<String>,
    },
    /// What the generator says about a document: errors, what it would
    /// leave out, and notes. Exits 1 when the document cannot be generated.
    Check {
        /// The OpenAPI document.
        spec: PathBuf,
        /// Count what would be left out as errors.
        #[arg(long)]
        strict: bool,
    },
    /// Serve a mock of the API: every operation answers its first declared
    /// success with the spec's example or a value made from its schema;
    /// `Prefer: code=N`, `example=NAME` and `dynamic=true` ask otherwise.
    /// The first start builds it (a Rust toolchain is needed); later starts
    /// of the same document reuse the build.
    Mock {
        /// The OpenAPI document.
        spec: PathBuf,
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:4010")]
        listen: String,
        /// Made values follow from it: the same seed, the same answers.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The framework the mock serves on.
        #[arg(long, value_enum, default_value_t = MockFramework::Actix)]
        framework: MockFramework,
        /// Where built mocks are kept (default: `$XDG_CACHE_HOME/apigen/mock`,
        /// or `~/.cache/apigen/mock`). They are compiled in its `target`
        /// directory, or in `CARGO_TARGET_DIR` when that is set.
        #[arg(long)]
        cache: Option<PathBuf>,
        /// Build the mock (or find it built), print its binary's path, and
        /// stop; the binary takes ADDR, SEED, FRAMEWORK (`actix` or
        /// `axum`) and the credentials to take.
        #[arg(long)]
        build_only: bool,
        /// Where the mock's crate finds apigen-runtime, as for `generate`.
        #[arg(long, value_enum, default_value_t = RuntimeChoice::Vendored)]
        runtime: RuntimeChoice,
        /// Depend on the `apigen-runtime` crate in this directory (of the
        /// same version as this tool): `--runtime crate` from a checkout,
        /// say. Mocks of many documents built in one target directory then
        /// compile the runtime once.
        #[arg(long, value_name = "DIR")]
        runtime_crate: Option<PathBuf>,
        /// Take only this credential where an operation asks for one
        /// (repeatable), whatever its scheme carries: a bearer or OAuth 2
        /// token, an API key, a basic `user:password`. A missing or other
        /// credential is refused with 401 and the error body. Without it,
        /// any non-empty credential is taken.
        #[arg(long = "accept-credential", value_name = "VALUE")]
        accept_credential: Vec<String>,
        /// Serve the mock's OAuth 2 token endpoint at this path too (it is
        /// served where the spec's token URLs are relative): for a spec
        /// whose `tokenUrl` is absolute, with the client's session pointed
        /// here. It issues the credentials the mock takes, by client
        /// credentials or refresh token.
        #[arg(long, value_name = "PATH")]
        token_path: Option<String>,
        /// Build the mock optimized, for load tests against it (the first
        /// build takes several times longer; the default debug build
        /// answers several times fewer requests per second).
        #[arg(long)]
        release: bool,
    },
}

/// `--runtime`: where a generated crate finds apigen-runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RuntimeChoice {
    /// The runtime's sources, carried in the crate.
    Vendored,
    /// The `apigen-runtime` crate, as a dependency.
    Crate,
}

/// `--framework`: actix-web (the `server` feature) or axum (`axum`).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum MockFramework {
    Actix,
    Axum,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
    Github,
}

fn main() -> ExitCode {
    no_huge_pages();
    let cli = Cli::parse();
    match cli.command {
        Command::Generate {
            spec,
            out,
            name,
            server,
            client,
            check,
            strict,
            check_formats,
            serde_sides,
            runtime,
        } => {
            let options = apigen::standalone::Options {
                name,
                server,
                client,
                strict,
                check_formats,
                serde_sides,
                runtime: match runtime {
                    RuntimeChoice::Vendored => apigen::standalone::RuntimeSource::Vendored,
                    RuntimeChoice::Crate => apigen::standalone::RuntimeSource::Registry,
                },
            };
            exit(generate(&spec, &out, &options, check))
        }
        Command::Diff { rules: true, .. } => {
            print!("{}", apigen::diff::rules::listing());
            ExitCode::SUCCESS
        }
        Command::Diff {
            base: Some(base),
            revision: Some(revision),
            format,
            date,
            ..
        } => {
            let format = match format {
                Format::Text => apigen::diff::Format::Text,
                Format::Json => apigen::diff::Format::Json,
                Format::Markdown => apigen::diff::Format::Markdown,
                Format::Github => apigen::diff::Format::Github,
            };
            let outcome = apigen::diff::gate(&base, &revision, format, date.as_deref());
            outcome.print();
            ExitCode::from(outcome.code)
        }
        Command::Diff { .. } => unreachable!("clap requires both documents without --rules"),
        Command::Check { spec, strict } => exit(check_spec(&spec, strict)),
        Command::Mock {
            spec,
            listen,
            seed,
            framework,
            cache,
            build_only,
            runtime,
            runtime_crate,
            accept_credential,
            token_path,
            release,
        } => exit(mock::run(mock::Request {
            spec: &spec,
            listen: &listen,
            seed,
            framework: match framework {
                MockFramework::Actix => "actix",
                MockFramework::Axum => "axum",
            },
            cache,
            build_only,
            runtime_crate,
            on_runtime_crate: runtime == RuntimeChoice::Crate,
            credentials: accept_credential,
            token_path,
            release,
        })),
    }
}

fn exit(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The command that regenerates the crate, as the files' preambles name it.
fn command(
    spec: &std::path::Path,
    out: &std::path::Path,
    options: &apigen::standalone::Options,
) -> String {
    let mut command = format!("apigen generate {} --out {}", spec.display(), out.display());
    if let Some(name) = &options.name {
        command.push_str(&format!(" --name {name}"));
    }
    for (on, flag) in [
        (options.server, "--server"),
        (options.client, "--client"),
        (options.strict, "--strict"),
        (options.check_formats, "--check-formats"),
        (options.serde_sides, "--serde-sides"),
        (
            options.runtime != apigen::standalone::RuntimeSource::Vendored,
            "--runtime crate",
        ),
    ] {
        if on {
            command.push(' ');
            command.push_str(flag);
        }
    }
    command
}

fn generate(
    spec: &std::path::Path,
    out: &std::path::Path,
    options: &apigen::standalone::Options,
    check: bool,
) -> Result<(), String> {
    let command = command(spec, out, options);
    let krate = apigen::standalone::generate(spec, options, &command).map_err(|d| d.to_string())?;
    report(&krate.generated);
    if check {
        let stale = apigen::standalone::check(out, &krate.files)?;
        if stale.is_empty() {
            eprintln!("{} is current", out.display());
            return Ok(());
        }
        let mut message = String::new();
        for s in &stale {
            message.push_str(&format!("{}/{}:\n{}\n", out.display(), s.path, s.diff));
        }
        message.push_str(&format!(
            "The generated code in {} is stale: run `{command}` and commit the result.",
            out.display()
        ));
        return Err(message);
    }
    apigen::standalone::write(out, &krate.files)?;
    eprintln!("{}", krate.summary(out));
    Ok(())
}

/// What the generator left out and noted, on stderr.
fn report(g: &apigen::Generated) {
    for remark in g.remarks() {
        eprintln!("{remark}");
    }
}

fn check_spec(spec: &std::path::Path, strict: bool) -> Result<(), String> {
    let config = apigen::Config {
        command: "apigen check".into(),
        source: spec.display().to_string(),
        lenient: !strict,
        check_formats: false,
        runtime: apigen::Runtime::Vendored,
        group_features: true,
        serde_sides: false,
    };
    let generated = apigen::generate_file(spec, &config).map_err(|d| d.to_string())?;
    report(&generated);
    eprintln!(
        "{}: {} operations, {} types, {} skipped, {} notes",
        spec.display(),
        generated.operations(),
        generated.types(),
        generated.skipped.len(),
        generated.notes.len()
    );
    Ok(())
}

/// Turns transparent huge pages off for this process. The allocator
/// returns freed memory to the kernel and takes it back as the generator's
/// buffers grow; with huge pages each fault zeroes 2 MB, which took a
/// third of a large document's run (Microsoft Graph: about 3.0 s against
/// 2.5 s without, `cargo xtask bench-codegen`), and left peak memory a
/// quarter higher. A kernel without the setting runs as before.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}
