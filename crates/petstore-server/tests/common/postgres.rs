//! A private PostgreSQL cluster for the tests: `initdb` in a temporary
//! directory, the server on a free loopback port, one fresh database per test.
//!
//! The shared cluster is the one named by `PETSTORE_TEST_CLUSTER`
//! (`PORT:DIR`), when set: `cargo xtask ci` starts one for the whole run,
//! since nextest runs every test in a process of its own. Otherwise it is
//! started once per test process and lives exactly as long as it. A test
//! that stops or freezes PostgreSQL starts one of its own
//! ([`Cluster::start`]), which lives as long as its `Cluster`. A small shell
//! watchdog (`pg-cluster.sh`) owns each cluster and waits on a pipe from
//! the process that started it; when the pipe closes (the `Cluster`
//! dropped, or the process gone however it went) the watchdog continues a
//! frozen server, stops it and removes its directory.
//!
//! The binaries are found through `PG_BIN`, `pg_config --bindir` or
//! `/usr/lib/postgresql/<version>/bin`. Run as root, they run as the
//! `postgres` user (`initdb` refuses root). The cluster offers TLS, with a
//! certificate signed by a test authority that `openssl` makes.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

pub struct Cluster {
    port: u16,
    dir: PathBuf,
    bin: PathBuf,
    /// `runuser -u postgres --` when run as root, or nothing.
    run_as: &'static str,
    /// Closed when the process exits; the watchdog then stops the cluster.
    /// `None` for a cluster another process started and owns.
    _lifeline: Option<Mutex<ChildStdin>>,
}

/// The watchdog: initdb, start, report `ready`, wait for the lifeline to
/// close, stop, clean up. Arguments: run-as prefix, bin dir, dir, port.
const WATCHDOG: &str = include_str!("pg-cluster.sh");

/// The process's cluster, started on first use. Panics, saying why, when
/// PostgreSQL cannot be started here.
pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    let shared = || match std::env::var("PETSTORE_TEST_CLUSTER") {
        Ok(named) => Cluster::attach(&named),
        Err(_) => Cluster::start(),
    };
    match CLUSTER.get_or_init(shared) {
        Ok(cluster) => cluster,
        Err(e) => panic!(
            "cannot start a private PostgreSQL cluster: {e}\n\
             (install PostgreSQL 15, e.g. `apt-get install postgresql-15`, or set PG_BIN)"
        ),
    }
}

fn bin_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("PG_BIN") {
        return Ok(dir.into());
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && dir.join("initdb").exists() {
            return Ok(dir);
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| "no PostgreSQL under /usr/lib/postgresql".to_string())?
        .filter_map(|e| {
            let e = e.ok()?;
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .ok_or_else(|| "no initdb under /usr/lib/postgresql/*/bin".into())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// A free loopback port below the kernel's ephemeral range (32768 and up
/// on Linux), which it hands to every `bind(0)` and outgoing connection:
/// a port from that range can be taken between this check and
/// PostgreSQL's bind, or while a test has the server stopped. Below it,
/// only a process that chooses its port can take it. Candidates are
/// spread by process id, so that test processes running side by side try
/// different ones first.
fn free_port() -> Result<u16, String> {
    const FIRST: u32 = 20_000;
    const SPAN: u32 = 12_000;
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let start = std::process::id().wrapping_mul(7919);
    for _ in 0..SPAN {
        let offset = start.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed) * 101) % SPAN;
        let port = (FIRST + offset) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    Err(format!("no free port in {FIRST}..{}", FIRST + SPAN))
}

impl Cluster {
    /// Starts a cluster of the caller's own, stopped and removed when the
    /// `Cluster` is dropped. A port another process took after it was
    /// found free is tried again with another.
    pub fn start() -> Result<Cluster, String> {
        let mut tries = 3;
        loop {
            match Cluster::start_once() {
                Err(e) if e.contains("Address already in use") && tries > 1 => tries -= 1,
                started => return started,
            }
        }
    }

    fn start_once() -> Result<Cluster, String> {
        let bin = bin_dir()?;
        let dir = tempfile::Builder::new()
            .prefix("petstore-pg-")
            .tempdir()
            .map_err(|e| e.to_string())?
            .keep();
        let run_as = if is_root() {
            let owned = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&dir)
                .status()
                .map_err(|e| e.to_string())?;
            if !owned.success() {
                return Err("cannot hand the cluster directory to the postgres user".into());
            }
            "runuser -u postgres --"
        } else {
            ""
        };
        let port = free_port()?;
        let mut watchdog = Command::new("sh")
            .args(["-c", WATCHDOG, "watchdog", run_as])
            .arg(&bin)
            .arg(&dir)
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run sh: {e}"))?;
        let lifeline = watchdog.stdin.take().expect("piped stdin");
        let mut first = String::new();
        BufReader::new(watchdog.stdout.take().expect("piped stdout"))
            .read_line(&mut first)
            .map_err(|e| e.to_string())?;
        if first.trim() != "ready" {
            return Err(first.trim().to_string());
        }
        Ok(Cluster {
            port,
            dir,
            bin,
            run_as,
            _lifeline: Some(Mutex::new(lifeline)),
        })
    }

    /// The cluster another process started and owns, named `PORT:DIR`
    /// (`PETSTORE_TEST_CLUSTER`).
    fn attach(named: &str) -> Result<Cluster, String> {
        let (port, dir) = named
            .split_once(':')
            .ok_or_else(|| format!("PETSTORE_TEST_CLUSTER={named} is not PORT:DIR"))?;
        Ok(Cluster {
            port: port
                .parse()
                .map_err(|_| format!("PETSTORE_TEST_CLUSTER={named}: no port"))?,
            dir: dir.into(),
            bin: bin_dir()?,
            run_as: if is_root() {
                "runuser -u postgres --"
            } else {
                ""
            },
            _lifeline: None,
        })
    }

    /// Runs `pg_ctl` on the cluster, as the user that owns it.
    fn pg_ctl(&self, args: &[&str]) {
        let mut words = self.run_as.split_whitespace();
        let program = words
            .next()
            .map_or_else(|| self.bin.join("pg_ctl"), PathBuf::from);
        let mut command = Command::new(program);
        if !self.run_as.is_empty() {
            command.args(words).arg(self.bin.join("pg_ctl"));
        }
        let out = command
            .arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("server.log"))
            .args(args)
            .output()
            .expect("pg_ctl runs");
        assert!(
            out.status.success(),
            "pg_ctl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Stops the server as an operator would (`pg_ctl stop -m fast`: open
    /// sessions are ended, nothing committed is lost).
    pub fn stop(&self) {
        self.pg_ctl(&["-m", "fast", "-w", "stop"]);
    }

    /// Starts the stopped server and waits until it accepts connections.
    pub fn restart(&self) {
        self.pg_ctl(&["-w", "-t", "60", "start"]);
    }

    /// The postmaster's process id.
    fn postmaster(&self) -> u32 {
        let pid = std::fs::read_to_string(self.dir.join("data/postmaster.pid"))
            .expect("the server is running");
        pid.lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .expect("postmaster.pid starts with a pid")
    }

    /// The server's processes: the postmaster first, then the processes it
    /// started (each in a session of its own, so no process group holds
    /// them all). A child that has exited is not listed.
    fn processes(&self) -> Vec<u32> {
        let postmaster = self.postmaster();
        let children = std::fs::read_dir("/proc")
            .expect("/proc is readable")
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
                let status = std::fs::read_to_string(entry.path().join("status")).ok()?;
                let parent = status.lines().find_map(|l| l.strip_prefix("PPid:"))?;
                (parent.trim().parse() == Ok(postmaster)).then_some(pid)
            })
            .collect::<Vec<_>>();
        std::iter::once(postmaster).chain(children).collect()
    }

    /// A process's scheduling state, from `/proc/PID/stat` (`R`, `S`, `T`
    /// for stopped, `Z`, ...); `None` once it is gone.
    fn state(pid: u32) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name, in parentheses, may hold spaces: the state is
        // the first field after its closing parenthesis.
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .next()?
            .chars()
            .next()
    }

    /// Whether a process can run no more: stopped by a signal, or gone.
    fn halted(pid: u32) -> bool {
        matches!(Self::state(pid), None | Some('T' | 't' | 'Z' | 'X'))
    }

    /// Sends `signal` to `pids`, with the shell's own `kill` (no package
    /// needed). A process that exited in the meantime is not an error.
    fn signal(signal: &str, pids: &[u32]) {
        if pids.is_empty() {
            return;
        }
        let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
        let command = format!("kill {signal} {} 2>/dev/null; true", pids.join(" "));
        let sent = Command::new("sh")
            .args(["-c", &command])
            .status()
            .expect("sh runs");
        assert!(sent.success(), "{command}");
    }

    /// Waits until every one of `pids` is stopped or gone. A stop signal
    /// takes effect when the process is next scheduled, so `kill` returning
    /// is not enough; a process still running after 10 s is a failure of
    /// the test machine, said as such.
    fn await_halted(pids: &[u32]) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while let Some(pid) = pids.iter().find(|&&pid| !Self::halted(pid)) {
            assert!(
                std::time::Instant::now() < deadline,
                "process {pid} still runs 10 s after SIGSTOP (state {:?})",
                Self::state(*pid)
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Freezes the server (SIGSTOP), as a network partition looks to its
    /// clients: connections open, nothing answered. The postmaster is
    /// stopped first and seen stopped, so it forks nothing more; then its
    /// children are stopped, and listed again, until a listing finds none
    /// still running (a child forked just before the postmaster stopped
    /// is caught by the next round). Returns once every server process is
    /// stopped: [`Cluster::running`] is then empty.
    pub fn freeze(&self) {
        let postmaster = self.postmaster();
        Self::signal("-STOP", &[postmaster]);
        Self::await_halted(&[postmaster]);
        loop {
            let running: Vec<u32> = self
                .processes()
                .into_iter()
                .filter(|&pid| !Self::halted(pid))
                .collect();
            if running.is_empty() {
                return;
            }
            Self::signal("-STOP", &running);
            Self::await_halted(&running);
        }
    }

    /// The server's processes that are still able to run (not stopped).
    pub fn running(&self) -> Vec<u32> {
        self.processes()
            .into_iter()
            .filter(|&pid| !Self::halted(pid))
            .collect()
    }

    /// Continues a frozen server: its children first, then the postmaster.
    pub fn thaw(&self) {
        let mut pids = self.processes();
        pids.rotate_left(1);
        Self::signal("-CONT", &pids);
    }

    /// The cluster's directory (data files, logs).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The authority that signed the cluster's certificate.
    pub fn authority(&self) -> PathBuf {
        self.dir.join("ca.crt")
    }

    /// An authority that did not.
    pub fn other_authority(&self) -> PathBuf {
        self.dir.join("other-ca.crt")
    }

    /// The port the cluster listens on (127.0.0.1, TLS offered).
    pub fn port(&self) -> u16 {
        self.port
    }

    fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// A new, empty database; its URL.
    pub async fn fresh_database(&self) -> String {
        // Named by process too: test processes may share the cluster. A
        // process id alone is reused within a long run (nextest starts a
        // process per test, and a flake hunt's stress more), and a later
        // process met its predecessor's database: the time the process
        // first asked is part of the name.
        static NEXT: AtomicU32 = AtomicU32::new(0);
        static STARTED: std::sync::OnceLock<u128> = std::sync::OnceLock::new();
        let started = STARTED.get_or_init(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        });
        let name = format!(
            "test_{}_{started:x}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        self.execute(&format!("CREATE DATABASE {name}")).await;
        self.url(&name)
    }

    /// Runs one statement as the superuser on the `postgres` database.
    pub async fn execute(&self, sql: &str) {
        use sqlx::{Connection, Executor};
        let mut admin = sqlx::PgConnection::connect(&self.url("postgres"))
            .await
            .expect("the cluster accepts connections");
        admin.execute(sql).await.expect(sql);
        admin.close().await.ok();
    }
}
