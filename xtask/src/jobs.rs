//! Several xtask commands at once: each a child process of this binary
//! with its output in a log file of its own, at most `width` running, a job
//! started only once the job it waits for has passed. Each log is printed
//! whole when its job ends, so that runs side by side do not interleave.
//!
//! For work that leaves cores idle when run alone: schemathesis is one
//! Python process, busy on one core and waiting on the server the rest of
//! the time.

use crate::project_root;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

/// This binary, as it was when it started: building the workspace replaces
/// its file, after which the running process's own path names a deleted one.
static EXE: OnceLock<PathBuf> = OnceLock::new();

/// Records this binary's path; called first thing in `main`.
pub fn remember_exe() {
    if let Ok(exe) = std::env::current_exe() {
        let _ = EXE.set(exe);
    }
}

/// One command of this binary (`cargo xtask ARGS`).
#[derive(Debug)]
pub struct Job {
    pub name: &'static str,
    pub args: Vec<String>,
    /// The job that must pass before this one starts (an index into the
    /// list), if any.
    pub after: Option<usize>,
}

impl Job {
    pub fn new(name: &'static str, args: &[&str]) -> Job {
        Job::with(name, args.iter().map(|a| a.to_string()).collect())
    }

    pub fn with(name: &'static str, args: Vec<String>) -> Job {
        Job {
            name,
            args,
            after: None,
        }
    }

    /// This job, started only once job `index` has passed.
    pub fn after(mut self, index: usize) -> Job {
        self.after = Some(index);
        self
    }
}

/// How each job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Waiting,
    Running,
    Passed,
    Failed,
    /// Not started: the job it waits for failed.
    Dropped,
}

/// The most jobs run at once: `XTASK_JOBS`, else one per core.
pub fn width() -> usize {
    std::env::var("XTASK_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// Runs `jobs`, at most `width` at once, in list order as they become
/// ready; every job that can run does, whatever another's result. Ends
/// with each job's time and result; fails if any job failed or was not run.
pub fn run_all(jobs: &[Job], width: usize) -> Result<(), String> {
    let (logs, exe) = logs_and_exe()?;
    let log_paths: Vec<PathBuf> = (0..jobs.len())
        .map(|i| log_path(&logs, i, jobs[i].name))
        .collect();
    let mut states = vec![State::Waiting; jobs.len()];
    let mut took = vec![Duration::ZERO; jobs.len()];
    let (done, ended) = mpsc::channel::<(usize, bool, Duration)>();
    let mut running = 0;
    loop {
        // Jobs whose wait is over for good: dropped with what they wait for.
        for i in 0..jobs.len() {
            if let Some(first) = jobs[i].after {
                if states[i] == State::Waiting
                    && matches!(states[first], State::Failed | State::Dropped)
                {
                    states[i] = State::Dropped;
                }
            }
        }
        while running < width.max(1) {
            let ready = (0..jobs.len()).find(|&i| {
                states[i] == State::Waiting
                    && jobs[i]
                        .after
                        .is_none_or(|first| states[first] == State::Passed)
            });
            let Some(i) = ready else { break };
            eprintln!(
                "-- started: {} (cargo xtask {})",
                jobs[i].name,
                jobs[i].args.join(" ")
            );
            match start(&exe, &jobs[i], &log_paths[i], i, done.clone(), true) {
                Ok(()) => {
                    states[i] = State::Running;
                    running += 1;
                }
                // The others run on: every job that can run does.
                Err(e) => {
                    eprintln!("== {}: FAILED to start: {e}", jobs[i].name);
                    states[i] = State::Failed;
                }
            }
        }
        if running == 0 {
            break;
        }
        let (i, passed, elapsed) = ended.recv().map_err(|e| e.to_string())?;
        running -= 1;
        states[i] = if passed { State::Passed } else { State::Failed };
        took[i] = elapsed;
        let log = &log_paths[i];
        let text = std::fs::read_to_string(log).unwrap_or_default();
        eprintln!(
            "== {}: {} in {:.1} s (log: {})\n{text}",
            jobs[i].name,
            if passed { "passed" } else { "FAILED" },
            elapsed.as_secs_f64(),
            log.display()
        );
    }
    eprintln!("{}", summary(jobs, &states, &took));
    let failed: Vec<&str> = jobs
        .iter()
        .zip(&states)
        .filter(|(_, s)| **s != State::Passed)
        .map(|(j, _)| j.name)
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "jobs that failed or did not run: {}",
            failed.join(", ")
        ))
    }
}

/// Where the jobs' logs go (made if need be), and this binary, which
/// runs each job.
fn logs_and_exe() -> Result<(PathBuf, PathBuf), String> {
    let logs = project_root().join("target").join("jobs");
    std::fs::create_dir_all(&logs).map_err(|e| e.to_string())?;
    let exe = EXE
        .get()
        .cloned()
        .ok_or("this binary's path is unknown: `jobs::remember_exe` was not called")?;
    Ok((logs, exe))
}

fn log_path(logs: &std::path::Path, i: usize, name: &str) -> PathBuf {
    logs.join(format!("{i:02}-{}.log", slug(name)))
}

/// A job's name as a file name's part.
fn slug(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A job run beside what its caller goes on to do ([`beside`]).
pub struct Beside {
    name: &'static str,
    log: PathBuf,
    ended: mpsc::Receiver<(usize, bool, Duration)>,
}

/// Starts `job` now, beside what the caller goes on to do, its output in
/// its log; [`Beside::wait`] waits for it. It builds what it needs (the
/// workspace may not be built yet): a build of the workspace the caller
/// runs meanwhile holds cargo's lock, and the job's waits for it.
pub fn beside(job: &Job) -> Result<Beside, String> {
    let (logs, exe) = logs_and_exe()?;
    let log = logs.join(format!("beside-{}.log", slug(job.name)));
    let (done, ended) = mpsc::channel();
    eprintln!(
        "-- started beside: {} (cargo xtask {})",
        job.name,
        job.args.join(" ")
    );
    start(&exe, job, &log, 0, done, false)?;
    Ok(Beside {
        name: job.name,
        log,
        ended,
    })
}

impl Beside {
    /// Waits for the job to end, prints its log, and fails if it failed.
    pub fn wait(self) -> Result<(), String> {
        let (_, passed, elapsed) = self.ended.recv().map_err(|e| e.to_string())?;
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        eprintln!(
            "== {} (beside): {} in {:.1} s (log: {})\n{text}",
            self.name,
            if passed { "passed" } else { "FAILED" },
            elapsed.as_secs_f64(),
            self.log.display()
        );
        if passed {
            Ok(())
        } else {
            Err(format!("{} failed", self.name))
        }
    }
}

/// Starts job `i`, its output into `log`; a thread reports its end on
/// `done`. `built`: the workspace's binaries are built, and the job
/// need not build them (`crate::BUILT`).
fn start(
    exe: &std::path::Path,
    job: &Job,
    log: &std::path::Path,
    i: usize,
    done: mpsc::Sender<(usize, bool, Duration)>,
    built: bool,
) -> Result<(), String> {
    let out = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut command = Command::new(exe);
    if built {
        command.env(crate::BUILT, "1");
    }
    let mut child = command
        .args(&job.args)
        .current_dir(project_root())
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", job.name))?;
    std::thread::spawn(move || {
        let passed = child.wait().is_ok_and(|s| s.success());
        let _ = done.send((i, passed, started.elapsed()));
    });
    Ok(())
}

/// Each job's time and result.
fn summary(jobs: &[Job], states: &[State], took: &[Duration]) -> String {
    use std::fmt::Write as _;
    let width = jobs.iter().map(|j| j.name.len()).max().unwrap_or(3).max(3);
    let mut out = format!("{:<width$}  {:>8}  result\n", "job", "time");
    for ((job, state), took) in jobs.iter().zip(states).zip(took) {
        let result = match state {
            State::Passed => "passed",
            State::Failed => "FAILED",
            State::Dropped => "not run (what it waits for failed)",
            State::Waiting | State::Running => "not run",
        };
        let time = match state {
            State::Passed | State::Failed => format!("{:.1}s", took.as_secs_f64()),
            _ => "-".into(),
        };
        let _ = writeln!(out, "{:<width$}  {time:>8}  {result}", job.name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_each_job_and_why_one_did_not_run() {
        let jobs = [
            Job::new("build", &[]),
            Job::new("run on actix", &[]).after(0),
            Job::new("other", &[]),
        ];
        let text = summary(
            &jobs,
            &[State::Failed, State::Dropped, State::Passed],
            &[
                Duration::from_secs(3),
                Duration::ZERO,
                Duration::from_millis(1500),
            ],
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[1].starts_with("build")
                && lines[1].contains("3.0s")
                && lines[1].ends_with("FAILED")
        );
        assert!(
            lines[2].contains("not run (what it waits for failed)"),
            "{text}"
        );
        assert!(
            lines[3].contains("1.5s") && lines[3].ends_with("passed"),
            "{text}"
        );
    }
}
