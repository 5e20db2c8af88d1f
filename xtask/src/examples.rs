//! `cargo xtask examples`: the example clients run against the real server as
//! the README runs them, so that the README's commands keep working. Each
//! must exit successfully.

use crate::conformance::{create_key, with_scratch_database};
use crate::launch::pet_store;
use crate::{project_root, run, succeed};
use std::process::Command;

pub fn examples() -> Result<(), String> {
    run("cargo", &["build", "--workspace", "--bins", "--examples"])?;
    with_scratch_database("examples", |database_url| {
        // 20 a minute: `backoff` is limited partway through its 30 requests
        // and has to wait for the window to reset (at most a minute).
        let key = create_key(database_url, 20)?;
        let server = pet_store(database_url)?;
        let base = format!("http://{}/v1", server.address);
        example("walkthrough", &[], &base, &key)?;
        example("inventory_report", &["2"], &base, &key)?;
        // The walkthrough's changes, replayed from the first event kept: it
        // makes four (a pet's stock, an order placed with the stock it took,
        // the order completed); three are asked for, so the example ends
        // whatever else the walkthrough comes to do.
        example("watch", &["3", "--from", "0"], &base, &key)?;
        example("backoff", &["30"], &base, &key)
    })
}

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
