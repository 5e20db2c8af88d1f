//! `cargo xtask conformance`: schemathesis against the real server.
//!
//! Installs a pinned schemathesis into `target/venv`, starts the server on a
//! temporary database, and runs every check over every operation (examples,
//! coverage, fuzzing and stateful phases through the spec's `links`) with an
//! enterprise key whose limits never get in the way. A second run uses a key
//! limited to a few requests a minute, so that 429 responses are checked too.
//! The event stream (`watchStore`), which never ends, runs on its own with a
//! request timeout: its events are read for 2 seconds and each is checked
//! against the spec's schema of a whole event.
//! All of it on SQLite, then on PostgreSQL (a private cluster), the stream on
//! the first of them.

use crate::bench::seed_pets;
use crate::launch::{pet_store_with, Launched};
use crate::{project_root, succeed, venv_tool};
use std::path::Path;
use std::process::Command;

pub(crate) const SCHEMATHESIS: &str = "schemathesis==4.32.5";

fn server_binary() -> String {
    project_root()
        .join("target/debug/petstore-server")
        .to_string_lossy()
        .into_owned()
}

pub(crate) fn create_key(database_url: &str, per_minute: u32) -> Result<String, String> {
    let out = Command::new(server_binary())
        .args([
            "--database-url",
            database_url,
            "keys",
            "create",
            "--plan",
            "enterprise",
        ])
        .args([
            "--per-minute",
            &per_minute.to_string(),
            "--per-day",
            "100000000",
        ])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Schemathesis against `server` with `key`. Every request goes out as a
/// client address of its own (`tests/conformance/hooks.py` sets
/// `X-Forwarded-For`, which the server trusts from loopback), so that the
/// requests without a key are never limited by the free plan's rate per
/// address, however fast the run.
fn schemathesis(bin: &Path, server: &Launched, key: &str, extra: &[&str]) -> Result<(), String> {
    let root = project_root();
    let auth = format!("Authorization: Bearer {key}");
    let url = format!("http://{}/v1", server.address);
    let mut args = vec![
        "--config-file",
        "tests/conformance/schemathesis.toml",
        "run",
        "spec/openapi.yaml",
        "--url",
        &url,
        "--header",
        &auth,
        "--checks",
        "all",
        // One worker: runs repeat exactly for a given seed.
        "--workers",
        "1",
    ];
    args.extend_from_slice(extra);
    eprintln!("$ schemathesis {}", args.join(" ").replace(key, "<key>"));
    succeed(
        Command::new(bin).args(&args).current_dir(&root).env(
            "SCHEMATHESIS_HOOKS",
            root.join("tests/conformance/hooks.py"),
        ),
        "schemathesis",
    )
}

/// Runs `work` with the URL of a fresh SQLite database in a temporary
/// directory, removed afterwards.
pub(crate) fn with_scratch_database<T>(
    name: &str,
    work: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, String> {
    let dir = std::env::temp_dir().join(format!("petstore-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let result = work(&format!(
        "sqlite://{}",
        dir.join(format!("{name}.db")).display()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Which databases `conformance` runs the server on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Databases {
    Sqlite,
    Postgres,
    Both,
}

/// What `conformance` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub databases: Databases,
    /// The event stream's run too (on the first database): its framing
    /// and events do not depend on the database, so one run is enough.
    pub stream: bool,
    /// The framework the server serves on (`--framework`).
    pub framework: &'static str,
}

impl Options {
    /// `[--database sqlite|postgres] [--framework actix|axum]
    /// [--without-stream]`, in any order.
    pub fn parse(args: &[&str]) -> Result<Options, String> {
        let mut options = Options {
            databases: Databases::Both,
            stream: true,
            framework: "actix",
        };
        let usage = "conformance takes `[--database sqlite|postgres] [--framework actix|axum] \
                     [--without-stream]` (both databases when none is named, on actix-web \
                     when no framework is)";
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match (*arg, rest.clone().next().copied()) {
                ("--without-stream", _) => options.stream = false,
                ("--database", Some("sqlite")) => options.databases = Databases::Sqlite,
                ("--database", Some("postgres")) => options.databases = Databases::Postgres,
                ("--framework", Some("actix")) => options.framework = "actix",
                ("--framework", Some("axum")) => options.framework = "axum",
                _ => return Err(format!("{usage}, not {args:?}")),
            }
            if *arg != "--without-stream" {
                rest.next();
            }
        }
        Ok(options)
    }
}

/// Every phase, every check, on SQLite and on PostgreSQL (a private
/// cluster), each on a fresh database.
pub fn conformance(options: Options) -> Result<(), String> {
    crate::build_binaries()?;
    let bin = venv_tool(SCHEMATHESIS, "schemathesis")?;
    let Options {
        databases,
        stream,
        framework,
    } = options;
    if databases != Databases::Postgres {
        eprintln!("conformance on SQLite, on {framework}");
        with_scratch_database("conformance", |url| conform(&bin, url, stream, framework))?;
    }
    if databases != Databases::Sqlite {
        eprintln!("conformance on PostgreSQL, on {framework}");
        let cluster = crate::postgres::Cluster::start()?;
        let stream = stream && databases == Databases::Postgres;
        conform(&bin, &cluster.database("conformance")?, stream, framework)?;
    }
    Ok(())
}

/// The operation that answers with an event stream.
const STREAM: &str = "watchStore";

/// Schemathesis against a fresh server on `database_url`, serving on
/// `framework`; the event stream too when `stream` (its framing and events
/// do not depend on the database, so one run of them is enough).
fn conform(bin: &Path, database_url: &str, stream: bool, framework: &str) -> Result<(), String> {
    let examples = std::env::var("CONFORMANCE_EXAMPLES").unwrap_or_else(|_| "60".into());
    let seed = std::env::var("CONFORMANCE_SEED").unwrap_or_else(|_| "20261122".into());
    let key = create_key(database_url, 100_000_000)?;
    // Each request names a client address of its own (`schemathesis`).
    let server = pet_store_with(
        database_url,
        &[
            "--trusted-proxies",
            "127.0.0.1/32",
            "--framework",
            framework,
        ],
    )?;
    // Pets to order from: generated requests name small ids often, and an
    // order for a pet that exists (in stock) gets past the 422s to the
    // 201 and the order's own operations.
    seed_pets(&server.address, &key, 20)?;
    // The event stream has no end for schemathesis to read to: it is run
    // on its own, each answer read for 2 seconds and its events held to
    // the spec's schema of an event (ST108), so that no other operation
    // is cut short by that timeout.
    schemathesis(
        bin,
        &server,
        &key,
        &[
            "--exclude-operation-id",
            STREAM,
            "--max-examples",
            &examples,
            "--seed",
            &seed,
        ],
    )?;
    if stream {
        schemathesis(
            bin,
            &server,
            &key,
            &[
                "--include-operation-id",
                STREAM,
                "--request-timeout",
                "2",
                // Its links lead to no other operation of this run.
                "--phases",
                "examples,coverage,fuzzing",
                "--max-examples",
                "3",
                "--seed",
                &seed,
            ],
        )?;
    }

    // Rate limits: 429s (and the bans they lead to) must conform too.
    let limited = create_key(database_url, 5)?;
    schemathesis(
        bin,
        &server,
        &limited,
        &[
            "--exclude-operation-id",
            STREAM,
            "--phases",
            "fuzzing",
            "--max-examples",
            "10",
            "--seed",
            &seed,
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_read_in_any_order_and_refuse_the_unknown() {
        let parsed = |args: &[&str]| Options::parse(args).map(|o| (o.databases, o.stream));
        assert_eq!(parsed(&[]), Ok((Databases::Both, true)));
        assert_eq!(
            parsed(&["--database", "postgres", "--without-stream"]),
            Ok((Databases::Postgres, false))
        );
        let on = Options::parse(&["--framework", "axum", "--database", "sqlite"]).unwrap();
        assert_eq!((on.framework, on.databases), ("axum", Databases::Sqlite));
        assert!(Options::parse(&["--framework", "rocket"]).is_err());
        assert_eq!(
            parsed(&["--without-stream", "--database", "sqlite"]),
            Ok((Databases::Sqlite, false))
        );
        assert!(parsed(&["--database", "mysql"]).is_err());
        assert!(parsed(&["--stream"]).is_err());
    }
}
