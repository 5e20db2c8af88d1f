//! The one way xtask starts a server and waits for it: run the command,
//! read its stdout until it prints `... listening on ADDR ...`, and hand back
//! the process with ADDR. The process is killed when the handle is dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A started server, killed when dropped.
pub struct Launched {
    child: Child,
    /// `127.0.0.1:PORT`
    pub address: String,
}

impl Launched {
    /// The process id, for tools that watch it.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the process to end by itself, within `within`; an error
    /// when it fails or is still running then (it is killed).
    pub fn finish(mut self, within: std::time::Duration) -> Result<(), String> {
        let deadline = std::time::Instant::now() + within;
        loop {
            match self.child.try_wait().map_err(|e| e.to_string())? {
                Some(status) if status.success() => return Ok(()),
                Some(status) => return Err(format!("it exited with {status}")),
                None if std::time::Instant::now() >= deadline => {
                    return Err(format!("it did not end within {within:?}"))
                }
                None => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `command` and waits until it prints `listening on ADDR` (an
/// `http://` prefix and anything after the address allowed).
pub fn launch(command: &mut Command) -> Result<Launched, String> {
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut launched = Launched {
        child,
        address: String::new(),
    };
    let mut lines = BufReader::new(stdout).lines();
    while let Some(line) = lines.next() {
        let line = line.map_err(|e| e.to_string())?;
        if let Some(rest) = line.split("listening on ").nth(1) {
            launched.address = rest
                .trim_start_matches("http://")
                .split(['/', ' '])
                .next()
                .unwrap_or_default()
                .to_string();
            // What it prints later goes on to our stderr: a closed pipe
            // would fail its writes.
            std::thread::spawn(move || {
                for line in lines.map_while(Result::ok) {
                    eprintln!("{line}");
                }
            });
            return Ok(launched);
        }
    }
    Err(format!("{command:?} exited before listening"))
}

/// The pet store's debug build, started on `database_url` at a free port,
/// with `args` added to its command line.
pub fn pet_store_with(database_url: &str, args: &[&str]) -> Result<Launched, String> {
    launch(
        Command::new(crate::project_root().join("target/debug/petstore-server"))
            .args(["--listen", "127.0.0.1:0", "--database-url", database_url])
            .args(args)
            .env("RUST_LOG", "warn")
            .stderr(Stdio::inherit()),
    )
}
