//! Durability: every write answered with 2xx survives `kill -9`.

use crate::helpers::read;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

struct Server {
    child: Child,
    base: String,
}

impl Server {
    /// SIGKILL: no chance to flush or shut down.
    fn kill_9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the real binary and reads its address and (on first start) its
/// bootstrap key from stdout.
fn start(database_url: &str) -> (Server, Option<String>) {
    let child = Command::new(env!("CARGO_BIN_EXE_petstore-server"))
        .args(["--listen", "127.0.0.1:0", "--database-url", database_url])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let mut server = Server {
        child,
        base: String::new(),
    };
    let mut lines = BufReader::new(server.child.stdout.take().unwrap()).lines();
    let mut key = None;
    loop {
        let line = lines.next().expect("server prints its address").unwrap();
        if let Some(k) = line.trim().strip_prefix("psk_") {
            key = Some(format!("psk_{k}"));
        }
        if let Some(rest) = line.strip_prefix("Pet store listening on ") {
            server.base = rest.split("/v1").next().unwrap().to_string();
            return (server, key);
        }
    }
}

#[actix_web::test]
async fn acknowledged_writes_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("crash.db").display());
    let (mut server, key) = start(&url);
    let key = key.expect("a fresh database prints a bootstrap key");
    let client = reqwest::Client::new();
    let category = read(
        client
            .post(format!("{}/v1/categories", server.base))
            .bearer_auth(&key)
            .json(&json!({ "name": "Dogs" }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(category.status, 201);
    let mut pets = Vec::new();
    for i in 0..20 {
        let r = read(
            client
                .post(format!("{}/v1/pets", server.base))
                .bearer_auth(&key)
                .json(&json!({ "name": format!("Pet {i}"), "categoryId": category.body["id"] }))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(r.status, 201);
        pets.push(r.body);
    }
    server.kill_9();

    let (mut server, second_key) = start(&url);
    assert_eq!(second_key, None, "the bootstrap key is made only once");
    let listed = read(
        client
            .get(format!("{}/v1/pets?limit=100", server.base))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(listed.body, json!(pets));
    server.kill_9();
}
