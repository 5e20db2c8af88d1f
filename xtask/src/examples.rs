//! `cargo xtask examples`: the example clients run against the real server as
//! the README runs them, so that the README's commands keep working. Each
//! must exit successfully.

use crate::conformance::{create_key, start};
use crate::{project_root, run};
use std::process::Command;

pub fn examples() -> Result<(), String> {
    run("cargo", &["build", "--workspace", "--bins", "--examples"])?;
    let dir = std::env::temp_dir().join(format!("petstore-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let database_url = format!("sqlite://{}", dir.join("examples.db").display());
    let result = (|| {
        // 20 a minute: `backoff` is limited partway through its 30 requests
        // and has to wait for the window to reset (at most a minute).
        let key = create_key(&database_url, 20)?;
        let server = start(&database_url)?;
        example("walkthrough", &[], &server.url, &key)?;
        example("backoff", &["30"], &server.url, &key)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn example(name: &str, args: &[&str], base: &str, key: &str) -> Result<(), String> {
    eprintln!(
        "$ PETSTORE_URL={base} PETSTORE_KEY=<key> {name} {}",
        args.join(" ")
    );
    let status = Command::new(project_root().join("target/debug/examples").join(name))
        .args(args)
        .env("PETSTORE_URL", base)
        .env("PETSTORE_KEY", key)
        .status()
        .map_err(|e| format!("cannot run example {name}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("example {name} failed ({status})"))
    }
}
