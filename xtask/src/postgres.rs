//! A private PostgreSQL cluster for chores that need one (`conformance` on
//! PostgreSQL, `bench --postgres`): `initdb` in a temporary directory, the
//! server on a free loopback port, stopped and removed when dropped. Nothing
//! runs as a system service; as root, the binaries run as the `postgres`
//! user (`initdb` refuses root).
//!
//! The binaries are found as the end-to-end tests find them: `PG_BIN`,
//! `pg_config --bindir`, or the newest `/usr/lib/postgresql/*/bin`.

use std::path::PathBuf;
use std::process::Command;

pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
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
        let cluster = Cluster {
            dir,
            bin,
            port,
            as_postgres,
        };
        let data = cluster.dir.join("data");
        cluster.pg(
            "initdb",
            &[
                "-D",
                &data.to_string_lossy(),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        )?;
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off",
            cluster.dir.display()
        );
        cluster.pg(
            "pg_ctl",
            &[
                "-D",
                &data.to_string_lossy(),
                "-l",
                &cluster.dir.join("server.log").to_string_lossy(),
                "-o",
                &options,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )?;
        eprintln!("PostgreSQL on 127.0.0.1:{port} ({})", cluster.dir.display());
        Ok(cluster)
    }

    /// Runs one of the cluster's binaries, as the `postgres` user when run
    /// as root.
    fn pg(&self, program: &str, args: &[&str]) -> Result<(), String> {
        let path = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        let out = command
            .args(args)
            .current_dir(&self.dir)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{program} failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// A new, empty database; its URL.
    pub fn database(&self, name: &str) -> Result<String, String> {
        self.pg(
            "createdb",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                name,
            ],
        )?;
        Ok(format!(
            "postgres://postgres@127.0.0.1:{}/{name}",
            self.port
        ))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let _ = self.pg(
            "pg_ctl",
            &["-D", &data.to_string_lossy(), "-m", "immediate", "stop"],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
