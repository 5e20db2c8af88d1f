//! What `.ci/run` installs in the background while the first steps run
//! (Chromium, PostgreSQL, openssl, mdBook): the steps that need them wait
//! here until they are installed.
//!
//! The installer names a directory in [`INSTALLS`]. It holds an exclusive
//! lock on the directory's `lock` file until it is done, and lists what it
//! could not install in `failed`, one line each, with a log beside it.

use std::fs::{self, File, TryLockError};
use std::path::Path;
use std::time::Instant;

/// The variable naming the background installer's directory.
pub const INSTALLS: &str = "APIGEN_CI_INSTALLS";

/// Waits until the background installs are done, and fails with what
/// could not be installed. Without [`INSTALLS`] (a run by hand, with the
/// tools already installed), there is nothing to wait for.
pub fn installed() -> Result<(), String> {
    match std::env::var_os(INSTALLS) {
        Some(dir) => installed_in(Path::new(&dir), || {
            eprintln!("waiting for the installs `.ci/run` started in the background ...")
        }),
        None => Ok(()),
    }
}

/// [`installed`] for the installer's directory `dir`; `waiting` is called
/// once if the installer still holds the lock.
fn installed_in(dir: &Path, waiting: impl FnOnce()) -> Result<(), String> {
    let path = dir.join("lock");
    let lock = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    match lock.try_lock_shared() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            waiting();
            let started = Instant::now();
            lock.lock_shared()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("  (waited {:.1} s)", started.elapsed().as_secs_f64());
        }
        Err(TryLockError::Error(e)) => return Err(format!("{}: {e}", path.display())),
    }
    let failed = match fs::read_to_string(dir.join("failed")) {
        Ok(failed) => failed,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{}: {e}", dir.join("failed").display())),
    };
    let mut report = String::from("the background installs of `.ci/run` failed:\n");
    report.push_str(&failed);
    // The end of each log, where apt and cargo say why.
    let mut logs: Vec<_> = fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    for log in logs {
        let text = fs::read_to_string(&log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = &lines[lines.len().saturating_sub(30)..];
        report.push_str(&format!("-- {} --\n{}\n", log.display(), tail.join("\n")));
    }
    Err(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn installer_dir(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("xtask-installs-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        File::create(dir.join("lock")).unwrap();
        dir
    }

    #[test]
    fn done_installs_pass_and_failed_ones_say_what_and_why() {
        let dir = installer_dir("done");
        assert_eq!(installed_in(&dir, || panic!("nothing to wait for")), Ok(()));
        fs::write(
            dir.join("failed"),
            "apt-get install chromium (log: apt.log)\n",
        )
        .unwrap();
        fs::write(
            dir.join("apt.log"),
            "E: Unable to locate package chromium\n",
        )
        .unwrap();
        let report = installed_in(&dir, || panic!("nothing to wait for")).unwrap_err();
        assert!(report.contains("apt-get install chromium"), "{report}");
        assert!(
            report.contains("E: Unable to locate package chromium"),
            "{report}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_step_waits_for_the_installer_to_finish() {
        let dir = installer_dir("busy");
        let installer = File::open(dir.join("lock")).unwrap();
        installer.lock().unwrap();
        let (tx, rx) = mpsc::channel();
        let step = {
            let dir = dir.clone();
            std::thread::spawn(move || installed_in(&dir, move || tx.send(()).unwrap()))
        };
        // Once the step waits, the installer fails and lets go: the step
        // sees the failure, written after it started waiting.
        rx.recv().expect("the step did not wait for the lock");
        fs::write(dir.join("failed"), "cargo install mdbook\n").unwrap();
        drop(installer);
        let report = step.join().unwrap().unwrap_err();
        assert!(report.contains("cargo install mdbook"), "{report}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
