//! SQLite's file in trouble: a full disk, and a write lock another process
//! holds. Writes answer 503 `unavailable` with the Error JSON, within the
//! database timeout; reads go on; writes resume, with no restart, once the
//! trouble is gone; every acknowledged write is there.

use crate::helpers::{call, Reply, Server};
use reqwest::Method;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

struct Client {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Client {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        call(&self.http, &self.base, &self.key, method, path, body).await
    }

    async fn new_pet(&self, category: &Value, n: usize) -> Reply {
        let name = format!("{n:0>100}");
        let body = json!({ "name": name, "categoryId": category });
        self.call(Method::POST, "/v1/pets", Some(body)).await
    }

    /// Every pet's id, page by page.
    async fn pet_ids(&self) -> Vec<i64> {
        let mut ids = Vec::new();
        loop {
            let after = ids.last().copied().unwrap_or(0);
            let path = format!("/v1/pets?limit=100&after={after}");
            let page = self.call(Method::GET, &path, None).await;
            assert_eq!(page.status, 200, "reads go on: {page:?}");
            let items = page.body.as_array().unwrap();
            ids.extend(items.iter().map(|p| p["id"].as_i64().unwrap()));
            if items.len() < 100 {
                return ids;
            }
        }
    }
}

/// A server on a fresh SQLite file in `dir`, and a client with its key.
fn start(dir: &Path, args: &[&str]) -> (Server, Client) {
    let url = format!("sqlite://{}", dir.join("petstore.db").display());
    let (server, key) = Server::start_with(&url, args);
    let client = Client {
        http: reqwest::Client::new(),
        base: server.base.clone(),
        key: key.expect("a fresh database prints a bootstrap key"),
    };
    (server, client)
}

/// A small tmpfs, unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(bytes: u64) -> Result<SmallDisk, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(SmallDisk { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the disk with a file, then frees `leave` bytes of it; the file.
    fn fill(&self, leave: u64) -> PathBuf {
        use std::io::Write;
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![0xa5u8; 64 * 1024];
        let mut written = 0u64;
        while let Ok(n) = file.write(&block) {
            if n == 0 {
                break;
            }
            written += n as u64;
        }
        file.set_len(written.saturating_sub(leave)).unwrap();
        file.sync_all().unwrap();
        path
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[actix_web::test]
async fn a_full_disk_refuses_writes_with_503_while_reads_go_on() {
    let disk = match SmallDisk::mount(16 << 20) {
        Ok(disk) => disk,
        Err(e) => {
            // Mounting needs root (or CAP_SYS_ADMIN). Where CI says this
            // test must run (`PETSTORE_REQUIRE_PRIVILEGES`, which `.ci/run`
            // sets), that is a failure; elsewhere it is skipped, saying
            // why (the store's mapping of SQLITE_FULL is unit-tested
            // either way).
            assert!(
                std::env::var_os("PETSTORE_REQUIRE_PRIVILEGES").is_none(),
                "PETSTORE_REQUIRE_PRIVILEGES is set and a small tmpfs cannot be mounted \
                 to fill (this test needs root or CAP_SYS_ADMIN): {e}"
            );
            eprintln!("skipped: cannot mount a small tmpfs here to fill: {e}");
            return;
        }
    };
    let (server, client) = start(disk.path(), &["--database-timeout", "500ms"]);
    let category = client
        .call(
            Method::POST,
            "/v1/categories",
            Some(json!({ "name": "Dogs" })),
        )
        .await;
    assert_eq!(category.status, 201, "{category:?}");
    let category = category.body["id"].clone();
    // Room for a few hundred KB more: the WAL grows into it, then fills it.
    let filler = disk.fill(256 << 10);
    let mut acknowledged = Vec::new();
    let mut refused = None;
    for n in 0..5_000 {
        let reply = client.new_pet(&category, n).await;
        match reply.status.as_u16() {
            201 => acknowledged.push(reply.body["id"].as_i64().unwrap()),
            _ => {
                refused = Some(reply);
                break;
            }
        }
    }
    let refused = refused.expect("the disk filled up");
    println!("the disk filled after {} pets", acknowledged.len());
    refused.assert_error(503, "unavailable");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");
    assert!(!acknowledged.is_empty());
    // Reads go on, and see every acknowledged write.
    assert_eq!(client.pet_ids().await, acknowledged);
    let again = client.new_pet(&category, 0).await;
    again.assert_error(503, "unavailable");

    // Space again: writes resume without a restart.
    std::fs::remove_file(filler).unwrap();
    let resumed = client.new_pet(&category, 1).await;
    assert_eq!(resumed.status, 201, "{resumed:?}");
    acknowledged.push(resumed.body["id"].as_i64().unwrap());
    assert_eq!(client.pet_ids().await, acknowledged);
    drop(server);
}

#[actix_web::test]
async fn a_locked_file_answers_503_within_the_timeout() {
    const TIMEOUT: Duration = Duration::from_secs(2);
    let dir = tempfile::tempdir().unwrap();
    let (_server, client) = start(dir.path(), &["--database-timeout", "2s"]);
    let category = client
        .call(
            Method::POST,
            "/v1/categories",
            Some(json!({ "name": "Dogs" })),
        )
        .await;
    assert_eq!(category.status, 201, "{category:?}");
    let category = category.body["id"].clone();
    let first = client.new_pet(&category, 0).await;
    assert_eq!(first.status, 201);

    // Another process takes the file's write lock and keeps it.
    let other = rusqlite::Connection::open(dir.path().join("petstore.db")).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    // One write alone waits out the timeout: the control.
    let started = Instant::now();
    client
        .new_pet(&category, 1)
        .await
        .assert_error(503, "unavailable");
    let alone = started.elapsed();
    // Eight at once are answered together, not one timeout after another
    // (which would take eight times as long as the one alone).
    let started = Instant::now();
    let replies =
        futures_util::future::join_all((2..=9).map(|n| client.new_pet(&category, n))).await;
    let together = started.elapsed();
    for reply in &replies {
        reply.assert_error(503, "unavailable");
    }
    println!("with the file locked: one write answered after {alone:?}, eight after {together:?}");
    assert!(alone >= TIMEOUT - Duration::from_millis(100), "{alone:?}");
    assert!(
        together < alone * 3,
        "eight writes answered after {together:?}, one alone after {alone:?}"
    );
    // Reads do not wait for a writer: one that did would wait out the
    // timeout and be answered 503, since the lock is still held.
    assert_eq!(
        client.pet_ids().await,
        vec![first.body["id"].as_i64().unwrap()]
    );

    other.execute_batch("ROLLBACK").unwrap();
    let resumed = client.new_pet(&category, 10).await;
    assert_eq!(resumed.status, 201, "{resumed:?}");
}
