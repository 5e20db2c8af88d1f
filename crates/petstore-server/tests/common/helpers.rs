use crate::postgres;
use chrono::{DateTime, Utc};
use petstore_server::app::{Application, Framework, Listen, Settings};
use petstore_server::keys::{self, Limits, Plan};
use petstore_server::limiter::BanPolicy;
use petstore_server::limits::ClientLimits;
use petstore_server::service::Clock;
use petstore_server::store::Db;
use petstore_server::webhooks::WebhookSettings;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// A test whose one body runs on each framework, as two tests (`NAME::on_actix`
/// and `NAME::on_axum`): for what can differ between them (routing,
/// middleware, streaming, limits), where the storage behind is the same.
///
/// ```ignore
/// on_both! {
///     /// What it shows.
///     async fn every_answer_is_json(framework) {
///         let app = spawn_app_on(framework).await;
///         ...
///     }
/// }
/// ```
macro_rules! on_both {
    ($(#[$attr:meta])* async fn $name:ident($framework:ident) $body:block) => {
        $(#[$attr])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body($framework: petstore_server::app::Framework) $body

            #[actix_web::test]
            async fn on_actix() {
                body(petstore_server::app::Framework::Actix).await
            }

            #[actix_web::test]
            async fn on_axum() {
                body(petstore_server::app::Framework::Axum).await
            }
        }
    };
}

/// A running server with an enterprise key whose limits never get in the way.
pub struct TestApp {
    /// The framework it serves on.
    pub framework: Framework,
    /// Its stop.
    pub shutdown: petstore_server::shutdown::Shutdown,
    pub base: String,
    pub key: String,
    pub db: Db,
    /// The database's URL.
    pub url: String,
    pub client: reqwest::Client,
    pub now: Arc<Mutex<DateTime<Utc>>>,
    pub dir: tempfile::TempDir,
    /// `http://127.0.0.1:PORT/metrics`, when metrics are on.
    pub metrics: Option<String>,
    /// The server's event feed.
    pub feed: petstore_server::feed::Feed,
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts an error reply: the status, and the seed's Error object with the
    /// same status and the given code.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "{self:?}");
        assert_eq!(self.body["code"], code, "{self:?}");
        assert_eq!(self.body["status"], status, "{self:?}");
        assert!(
            self.body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{self:?}"
        );
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{self:?}"
        );
    }
}

pub async fn spawn_app() -> TestApp {
    spawn(Options::default()).await
}

/// The framework servers run on unless a test names one: actix-web, or
/// `PETSTORE_FRAMEWORK` (as the server's own command line reads it), so
/// that the whole suite can be run on axum.
pub fn default_framework() -> Framework {
    match std::env::var("PETSTORE_FRAMEWORK").as_deref() {
        Ok("axum") => Framework::Axum,
        _ => Framework::Actix,
    }
}

/// How a test's server is set up.
#[derive(Debug, Clone)]
pub struct Options {
    pub framework: Framework,
    pub ban: BanPolicy,
    /// Prometheus metrics on a port of their own.
    pub metrics: bool,
    pub client_limits: ClientLimits,
    pub webhooks: WebhookSettings,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            framework: default_framework(),
            ban: BanPolicy::default(),
            metrics: false,
            client_limits: ClientLimits::default(),
            webhooks: WebhookSettings::default(),
        }
    }
}

/// A server on `framework`.
pub async fn spawn_app_on(framework: Framework) -> TestApp {
    spawn(Options {
        framework,
        ..Options::default()
    })
    .await
}

/// The database the suite runs on: `PETSTORE_TEST_DATABASE=postgres` runs it
/// on a private PostgreSQL cluster, anything else (or nothing) on SQLite.
pub fn on_postgres() -> bool {
    std::env::var("PETSTORE_TEST_DATABASE").is_ok_and(|v| v == "postgres")
}

/// A fresh, empty database for one test: a file in `dir`, or a new database
/// on the private PostgreSQL cluster.
pub async fn database_url(dir: &std::path::Path) -> String {
    if on_postgres() {
        postgres::cluster().fresh_database().await
    } else {
        format!("sqlite://{}", dir.join("petstore.db").display())
    }
}

/// A server delivering webhooks as `webhooks` says, with metrics on.
pub async fn spawn_app_with_webhooks(webhooks: WebhookSettings) -> TestApp {
    spawn(Options {
        metrics: true,
        webhooks,
        ..Options::default()
    })
    .await
}

/// A server set up as `options` say.
pub async fn spawn(options: Options) -> TestApp {
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = database_url(dir.path()).await;
    let db = Db::connect(&url).await.expect("database opens");
    let now = Arc::new(Mutex::new(
        DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc),
    ));
    let clock: Clock = {
        let now = now.clone();
        Arc::new(move || *now.lock().unwrap())
    };
    let limits = Limits {
        per_minute: 1_000_000,
        per_day: 1_000_000,
    };
    let (_, key) = keys::create(&db, Plan::Enterprise, Some(limits), Some("tests"), clock())
        .await
        .expect("key created");
    let app = Application::build(Settings {
        framework: options.framework,
        workers: Some(2),
        ban: options.ban,
        // Revocation must show at once in tests.
        key_cache_ttl: std::time::Duration::ZERO,
        metrics_listen: options.metrics.then(Listen::any_local_port),
        client_limits: options.client_limits,
        webhooks: options.webhooks,
        ..Settings::new(Listen::any_local_port(), db.clone(), clock)
    })
    .expect("server binds");
    let base = format!("http://{}", app.address());
    let metrics = app
        .metrics_address()
        .map(|address| format!("http://{address}/metrics"));
    let feed = app.feed();
    let shutdown = app.shutdown();
    actix_web::rt::spawn(app.run_until_stopped());
    TestApp {
        framework: options.framework,
        shutdown,
        base,
        key: key.expose().to_string(),
        db,
        url,
        client: reqwest::Client::new(),
        now,
        dir,
        metrics,
        feed,
    }
}

/// The tables of the store's records (not the keys', nor the rate limits').
pub const STORE_TABLES: &[&str] = &[
    "categories",
    "pets",
    "inventory",
    "orders",
    "idempotency",
    "events",
    "event_horizon",
    "webhook_endpoints",
    "webhook_deliveries",
    "webhook_attempts",
];

/// The database held from outside (another process, as far as the server
/// can tell), so that the server cannot use it, until dropped.
pub enum Held {
    /// A connection holding the file's write lock: no other connection
    /// may write it. (Readers of a WAL database take no lock a writer
    /// holds: SQLite's reads never wait, and nothing from outside can make
    /// them.)
    Sqlite(rusqlite::Connection),
    /// A transaction holding an exclusive lock on every store table.
    Postgres(sqlx::PgConnection),
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Held::Sqlite(_) => "Held::Sqlite",
            Held::Postgres(_) => "Held::Postgres",
        })
    }
}

impl TestApp {
    /// Runs `sql` (one or more statements) on the app's database from a
    /// connection of the test's own, as an operator's shell would.
    pub async fn outside(&self, sql: &str) {
        if on_postgres() {
            use sqlx::{Connection as _, Executor as _};
            let mut conn = sqlx::PgConnection::connect(&self.url)
                .await
                .expect("a connection of the test's own");
            conn.execute(sql).await.expect(sql);
            conn.close().await.ok();
        } else {
            let conn = rusqlite::Connection::open(self.dir.path().join("petstore.db"))
                .expect("the database file opens");
            conn.execute_batch(sql).expect(sql);
        }
    }

    /// Commits an `inventory.changed` event of `pet_id` from outside, as a
    /// write of another instance would: on PostgreSQL it stays pending
    /// (no final id) until a feed's sequencer runs, at this app's next
    /// write or within a second.
    pub async fn commit_event_outside(&self, pet_id: i64) {
        self.outside(&format!(
            "INSERT INTO events (kind, pet_id, stock, status, occurred_at) \
             VALUES ('inventory.changed', {pet_id}, 9, 'available', {})",
            Utc::now().timestamp_millis()
        ))
        .await;
    }

    /// Holds the database from outside so that every request that needs
    /// it (on SQLite, every write) waits out the database timeout;
    /// released when dropped.
    pub async fn hold_database(&self) -> Held {
        if on_postgres() {
            use sqlx::{Connection as _, Executor as _};
            let mut conn = sqlx::PgConnection::connect(&self.url)
                .await
                .expect("a connection of the test's own");
            let lock = format!(
                "BEGIN; LOCK TABLE {} IN ACCESS EXCLUSIVE MODE",
                STORE_TABLES.join(", ")
            );
            conn.execute(lock.as_str()).await.expect(&lock);
            Held::Postgres(conn)
        } else {
            let conn = rusqlite::Connection::open(self.dir.path().join("petstore.db"))
                .expect("the database file opens");
            conn.execute_batch("BEGIN IMMEDIATE")
                .expect("the file's write lock");
            Held::Sqlite(conn)
        }
    }

    /// The directories holding this test's data on disk.
    pub async fn data_dirs(&self) -> Vec<std::path::PathBuf> {
        if on_postgres() {
            // Everything written so far goes to the data files too.
            postgres::cluster().execute("CHECKPOINT").await;
            vec![postgres::cluster().dir().to_path_buf()]
        } else {
            vec![self.dir.path().to_path_buf()]
        }
    }

    /// A new key with this plan (and limits, for enterprise).
    pub async fn key(&self, plan: Plan, limits: Option<Limits>) -> String {
        let now = *self.now.lock().unwrap();
        let (_, key) = keys::create(&self.db, plan, limits, None, now)
            .await
            .unwrap();
        key.expose().to_string()
    }

    /// Sends a GET with the given key (or none).
    pub async fn get_as(&self, key: Option<&str>, path: &str) -> Reply {
        let mut request = self.client.get(format!("{}{path}", self.base));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let reply = read(request.send().await.expect("request sent")).await;
        crate::contract::contract().check(&Method::GET, path, &reply);
        reply
    }

    /// Moves the injected clock.
    pub fn advance(&self, by: chrono::Duration) {
        *self.now.lock().unwrap() += by;
    }

    pub fn set_time(&self, rfc3339: &str) {
        *self.now.lock().unwrap() = DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .with_timezone(&Utc);
    }

    /// Sends a request with the test key; `body` is sent as JSON when given.
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        call(&self.client, &self.base, &self.key, method, path, body).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.call(Method::POST, path, Some(body)).await
    }

    pub async fn category(&self, name: &str) -> i64 {
        let r = self.post("/v1/categories", json!({ "name": name })).await;
        assert_eq!(r.status, StatusCode::CREATED, "{r:?}");
        r.body["id"].as_i64().unwrap()
    }

    /// A new available pet in a new category, with the given stock.
    pub async fn pet_with_stock(&self, stock: i64) -> i64 {
        let category = self.category("Dogs").await;
        let r = self
            .post("/v1/pets", json!({ "name": "Rex", "categoryId": category }))
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{r:?}");
        let id = r.body["id"].as_i64().unwrap();
        if stock != 1 {
            let r = self
                .call(
                    Method::PATCH,
                    &format!("/v1/inventory/{id}"),
                    Some(json!({ "quantity": stock })),
                )
                .await;
            assert_eq!(r.status, StatusCode::OK, "{r:?}");
        }
        id
    }
}

pub async fn read(response: reqwest::Response) -> Reply {
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.expect("body read");
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()))
    };
    Reply {
        status,
        headers,
        body,
    }
}

/// Sends `method path` to the server at `base` with `key` as its bearer
/// token, and `body` as JSON when given. The answer is held to the spec
/// (see [`crate::contract`]).
pub async fn call(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> Reply {
    let mut request = client
        .request(method.clone(), format!("{base}{path}"))
        .bearer_auth(key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let reply = read(request.send().await.expect("the server answers")).await;
    crate::contract::contract().check(&method, path, &reply);
    reply
}

/// How long a test waits for an event before calling the server hung: a
/// ceiling far above any healthy wait, never a measure of speed.
pub const HUNG: std::time::Duration = std::time::Duration::from_secs(60);

/// How often a test that waits for an event looks again.
pub const POLL: std::time::Duration = std::time::Duration::from_millis(5);

/// Waits for `happened` to say so, looking again every [`POLL`]:
/// a test waits for the event itself, never for a sleep that stands in for
/// it. `ceiling` only says the event never came (something hung): set it
/// at ten times or more what the event takes on a loaded machine.
pub async fn eventually<F, Fut>(what: &str, ceiling: std::time::Duration, mut happened: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = std::time::Instant::now() + ceiling;
    while !happened().await {
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: not after {ceiling:?} (it hung)"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// For tests against a server on the real clock, whose rate-limit windows
/// are aligned to the UTC minute: waits for the next minute when fewer
/// than `needed` seconds are left in this one, so that the requests that
/// fill a window are all counted in the same one.
pub async fn within_one_minute_window(needed: u32) {
    use chrono::Timelike;
    let left = 60 - Utc::now().second();
    if left < needed {
        tokio::time::sleep(std::time::Duration::from_millis(
            u64::from(left) * 1000 + 100,
        ))
        .await;
    }
}

/// The real server binary, running in its own process.
pub struct Server {
    child: Child,
    pub base: String,
    /// The metrics URL it printed (with `--metrics-listen`).
    pub metrics: Option<String>,
}

impl Server {
    /// Starts the binary on a free port and reads its address and (on the
    /// first start on a database) its bootstrap key from stdout.
    pub fn start(database_url: &str) -> (Server, Option<String>) {
        Server::start_with(database_url, &[])
    }

    /// As [`Server::start`], with more command-line arguments.
    pub fn start_with(database_url: &str, args: &[&str]) -> (Server, Option<String>) {
        Server::start_logging(database_url, args, None)
    }

    /// As [`Server::start_with`], its log (at `info`, one line per
    /// request) written to `log` when given.
    pub fn start_logging(
        database_url: &str,
        args: &[&str],
        log: Option<&std::path::Path>,
    ) -> (Server, Option<String>) {
        match log {
            Some(log) => Server::start_logging_at(database_url, args, log, "info"),
            None => Server::spawn(database_url, args, Stdio::null(), "warn"),
        }
    }

    /// As [`Server::start_with`], its log written to `log` at `filter`
    /// (`RUST_LOG`'s syntax).
    pub fn start_logging_at(
        database_url: &str,
        args: &[&str],
        log: &std::path::Path,
        filter: &str,
    ) -> (Server, Option<String>) {
        let stderr = Stdio::from(std::fs::File::create(log).expect("log file"));
        Server::spawn(database_url, args, stderr, filter)
    }

    fn spawn(
        database_url: &str,
        args: &[&str],
        stderr: Stdio,
        filter: &str,
    ) -> (Server, Option<String>) {
        let child = Command::new(env!("CARGO_BIN_EXE_petstore-server"))
            .args(["--listen", "127.0.0.1:0", "--database-url", database_url])
            .args(args)
            .env("RUST_LOG", filter)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("server starts");
        let mut server = Server {
            child,
            base: String::new(),
            metrics: None,
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
                server.metrics = rest
                    .split_once("metrics at ")
                    .map(|(_, url)| url.trim_end_matches(')').to_string());
                return (server, key);
            }
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A line of the process's `/proc/PID/status`, in kB (`VmHWM`: the
    /// peak resident memory; `VmRSS`: now).
    pub fn memory_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc status"))
    }

    /// How many file descriptors the server holds open (its sockets among
    /// them).
    pub fn open_files(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .unwrap()
            .count()
    }

    /// How many TCP connections the server holds open (its sockets that
    /// are not listening), read from `/proc`: a socket descriptor of the
    /// process whose inode the kernel's TCP tables list in a state other
    /// than LISTEN.
    pub fn connection_sockets(&self) -> usize {
        let pid = self.pid();
        let inodes: std::collections::HashSet<String> =
            std::fs::read_dir(format!("/proc/{pid}/fd"))
                .map(|entries| {
                    entries
                        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
                        .filter_map(|t| {
                            let t = t.to_string_lossy().into_owned();
                            Some(t.strip_prefix("socket:[")?.strip_suffix(']')?.to_string())
                        })
                        .collect()
                })
                .unwrap_or_default();
        ["tcp", "tcp6"]
            .iter()
            .filter_map(|table| std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).ok())
            .flat_map(|text| {
                text.lines()
                    .skip(1)
                    .filter_map(|line| {
                        let fields: Vec<&str> = line.split_whitespace().collect();
                        // `st` is the fourth field (0A: LISTEN), the inode
                        // the tenth.
                        let (state, inode) = (fields.get(3)?, fields.get(9)?);
                        (*state != "0A" && inodes.contains(*inode)).then_some(())
                    })
                    .collect::<Vec<_>>()
            })
            .count()
    }

    /// SIGTERM, as an orchestrator stops a server; waits for the process
    /// to exit, at most `within`, and returns whether it exited cleanly.
    pub fn terminate(&mut self, within: std::time::Duration) -> Option<bool> {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let started = std::time::Instant::now();
        while started.elapsed() < within {
            if let Some(exit) = self.child.try_wait().expect("the server's status") {
                return Some(exit.success());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        None
    }

    /// SIGKILL: no chance to flush or shut down.
    pub fn kill_9(&mut self) {
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

/// The data of every event `chunk` completes, as JSON; `pending` keeps
/// what a later chunk will complete (a stream's body read by hand, as a
/// client of no library would).
pub fn event_data(pending: &mut String, chunk: &[u8]) -> Vec<Value> {
    pending.push_str(std::str::from_utf8(chunk).expect("UTF-8 events"));
    let mut events = Vec::new();
    while let Some(end) = pending.find("\n\n") {
        let frame: String = pending.drain(..end + 2).collect();
        if let Some(data) = frame.lines().find_map(|l| l.strip_prefix("data: ")) {
            events.push(serde_json::from_str(data).expect("JSON data"));
        }
    }
    events
}

/// Creates a key with `keys create`, as an operator would; returns it.
pub fn create_key(database_url: &str, plan: &str, limits: Option<(u32, u32)>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_petstore-server"));
    command.args([
        "--database-url",
        database_url,
        "keys",
        "create",
        "--plan",
        plan,
    ]);
    if let Some((per_minute, per_day)) = limits {
        command.args([
            "--per-minute",
            &per_minute.to_string(),
            "--per-day",
            &per_day.to_string(),
        ]);
    }
    let out = command.output().expect("keys create runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
