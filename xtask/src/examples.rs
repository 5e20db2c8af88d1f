//! `cargo xtask examples`: the example clients run against the real server as
//! the README runs them, so that the README's commands keep working, with
//! the program of the crate that generates its client at build time
//! (`examples/build-time`); and its OAuth 2 client credentials program
//! against the real authorization server of the client's OAuth tests
//! (`tests/oauth/server.mjs`); the guide's quickstart (its generated crate
//! current, its server on axum and on actix-web, a `curl`'s worth of
//! requests and its client); and the gate chapter's CI recipe
//! (`examples/gate/gate.sh`). Each must exit successfully.

use crate::conformance::{create_key, with_scratch_database};
use crate::launch::{launch, pet_store_with};
use crate::{project_root, succeed};
use std::process::Command;

pub fn examples() -> Result<(), String> {
    crate::build_binaries()?;
    client_credentials()?;
    quickstart()?;
    succeed(
        Command::new("bash")
            .arg(project_root().join("examples/gate/gate.sh"))
            .arg(project_root().join("target/debug/apigen")),
        "examples/gate/gate.sh",
    )?;
    with_scratch_database("examples", |database_url| {
        // 20 a minute: `backoff` is limited partway through its 30 requests
        // and has to wait for the window to reset (at most a minute).
        let key = create_key(database_url, 20)?;
        // Webhooks to the receiver below, on loopback.
        let server = pet_store_with(database_url, &["--webhooks-allow-private"])?;
        let base = format!("http://{}/v1", server.address);
        // The webhook receiver subscribes itself (with a key of its own,
        // outside the others' limits) and ends once it has printed the
        // first of the walkthrough's changes, verified.
        let receiver = launch(
            Command::new(project_root().join("target/debug/examples/webhook_receiver"))
                .args(["--listen", "127.0.0.1:0", "--subscribe", "--count", "1"])
                .env("PETSTORE_URL", &base)
                .env("PETSTORE_KEY", create_key(database_url, 20)?),
        )?;
        eprintln!("$ webhook_receiver --listen 127.0.0.1:0 --subscribe --count 1");
        example("walkthrough", &[], &base, &key)?;
        receiver
            .finish(std::time::Duration::from_secs(60))
            .map_err(|e| format!("example webhook_receiver: {e}"))?;
        example("inventory_report", &["2"], &base, &key)?;
        // The walkthrough's changes, replayed from the first event kept: it
        // makes four (a pet's stock, an order placed with the stock it took,
        // the order completed); three are asked for, so the example ends
        // whatever else the walkthrough comes to do.
        example("watch", &["3", "--from", "0"], &base, &key)?;
        // The client generated at build time (examples/build-time).
        example("../petstore-build-time", &[], &base, &key)?;
        example("backoff", &["30"], &base, &key)
    })
}

/// The partner reports client (`examples/build-time`), getting its tokens
/// by client credentials from oidc-provider, as the guide runs it.
fn client_credentials() -> Result<(), String> {
    let server = launch(
        Command::new("node")
            .arg("server.mjs")
            .current_dir(project_root().join("tests/oauth")),
    )
    .map_err(|e| format!("{e} (is `npm ci --prefix tests/oauth` done?)"))?;
    let base = format!("http://{}/v1", server.address);
    eprintln!("$ PARTNER_URL={base} client-credentials");
    succeed(
        Command::new(project_root().join("target/debug/client-credentials"))
            .env("PARTNER_URL", &base),
        "example client-credentials",
    )
}

/// The quickstart (`docs/src/quickstart.md`): its crate is what `apigen
/// generate` writes today, and its server answers as the chapter says on
/// both frameworks, to the client and to plain HTTP.
fn quickstart() -> Result<(), String> {
    let apigen = project_root().join("target/debug/apigen");
    succeed(
        Command::new(&apigen)
            .args([
                "generate",
                "examples/quickstart/notes.yaml",
                "--out",
                "examples/quickstart/notes-api",
                "--name",
                "notes-api",
                "--runtime",
                "crate",
                "--check",
            ])
            .current_dir(project_root()),
        "the quickstart's crate is current",
    )?;
    for server in ["notes-server", "notes-on-actix"] {
        let running = launch(
            Command::new(project_root().join("target/debug").join(server))
                .env("NOTES_LISTEN", "127.0.0.1:0"),
        )?;
        let base = format!("http://{}/v1", running.address);
        eprintln!("$ NOTES_URL={base} notes-client    # against {server}");
        succeed(
            Command::new(project_root().join("target/debug/notes-client")).env("NOTES_URL", &base),
            "the quickstart's client",
        )?;
        // The notes API takes no credentials: the key sent goes unread.
        for (path, status, text) in [
            ("/v1/notes/1", 200, "Buy milk"),
            ("/v1/notes/7", 404, "no note 7"),
        ] {
            let reply = crate::bench::http(&running.address, "GET", path, "", None)?;
            if reply.status != status || !reply.body.contains(text) {
                return Err(format!(
                    "GET {path} on {server}: {} {}",
                    reply.status, reply.body
                ));
            }
        }
    }
    Ok(())
}

/// Runs the example program `name` (under `target/debug/examples`).
fn example(name: &str, args: &[&str], base: &str, key: &str) -> Result<(), String> {
    eprintln!(
        "$ PETSTORE_URL={base} PETSTORE_KEY=<key> {name} {}",
        args.join(" ")
    );
    succeed(
        Command::new(project_root().join("target/debug/examples").join(name))
            .args(args)
            .env("PETSTORE_URL", base)
            .env("PETSTORE_KEY", key),
        &format!("example {name}"),
    )
}
