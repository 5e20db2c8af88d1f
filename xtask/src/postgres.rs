//! A private PostgreSQL cluster for chores that need one (`conformance` on
//! PostgreSQL, the test suites' shared cluster in `ci`): started by the
//! end-to-end tests' own script (`pg-cluster.sh`: `initdb` in a temporary
//! directory, TLS certificates, the server on a free loopback port), which
//! stops it and removes its directory when the `Cluster` is dropped or this
//! process ends, however it ends. Nothing runs as a system service; as
//! root, the binaries run as the `postgres` user (`initdb` refuses root).
//!
//! The binaries are found as the end-to-end tests find them: `PG_BIN`,
//! `pg_config --bindir`, or the newest `/usr/lib/postgresql/*/bin`.

use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// The script that owns a cluster, shared with the end-to-end tests.
const SCRIPT: &str = include_str!("../../crates/petstore-server/tests/common/pg-cluster.sh");

pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
    /// The script, waiting for its standard input to close.
    owner: Child,
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
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| "no PostgreSQL under /usr/lib/postgresql (set PG_BIN)".to_string())?
        .filter_map(|e| {
            let e = e.ok()?;
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, bin)| bin)
        .ok_or_else(|| "no initdb under /usr/lib/postgresql/*/bin (set PG_BIN)".into())
}

impl Cluster {
    /// Creates and starts a cluster.
    pub fn start() -> Result<Cluster, String> {
        let bin = bin_dir()?;
        let dir = std::env::temp_dir().join(format!("petstore-xtask-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let as_postgres = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
        if as_postgres {
            crate::succeed(
                Command::new("chown").arg("postgres:postgres").arg(&dir),
                "chown postgres:postgres",
            )?;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let run_as = if as_postgres {
            "runuser -u postgres --"
        } else {
            ""
        };
        let mut owner = Command::new("sh")
            .args(["-c", SCRIPT, "pg-cluster", run_as])
            .arg(&bin)
            .arg(&dir)
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run sh: {e}"))?;
        let mut first = String::new();
        BufReader::new(owner.stdout.take().expect("piped stdout"))
            .read_line(&mut first)
            .map_err(|e| e.to_string())?;
        if first.trim() != "ready" {
            let _ = owner.wait();
            return Err(format!("PostgreSQL did not start: {}", first.trim()));
        }
        eprintln!("PostgreSQL on 127.0.0.1:{port} ({})", dir.display());
        Ok(Cluster {
            dir,
            bin,
            port,
            as_postgres,
            owner,
        })
    }

    /// The cluster as the end-to-end tests take a shared one
    /// (`PETSTORE_TEST_CLUSTER`): `PORT:DIR`.
    pub fn shared_name(&self) -> String {
        format!("{}:{}", self.port, self.dir.display())
    }

    /// A new, empty database; its URL.
    pub fn database(&self, name: &str) -> Result<String, String> {
        let createdb = self.bin.join("createdb");
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&createdb);
            c
        } else {
            Command::new(&createdb)
        };
        let port = self.port.to_string();
        command.args(["-h", "127.0.0.1", "-p", &port, "-U", "postgres", name]);
        crate::succeed(&mut command, &format!("createdb {name}"))?;
        Ok(format!(
            "postgres://postgres@127.0.0.1:{}/{name}",
            self.port
        ))
    }
}

impl Drop for Cluster {
    /// Closes the script's lifeline and waits while it stops the server and
    /// removes its directory.
    fn drop(&mut self) {
        drop(self.owner.stdin.take());
        let _ = self.owner.wait();
    }
}
