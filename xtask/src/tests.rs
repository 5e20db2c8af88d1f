//! The test suites as CI runs them (`tests`), and the same under a loaded
//! machine (`flake-hunt`).
//!
//! Tests run under cargo-nextest, each in a process of its own with a
//! deadline (`.config/nextest.toml`). One private PostgreSQL cluster serves
//! every test process that needs one (`PETSTORE_TEST_CLUSTER`), started
//! here for the run and removed after it. Every test runs once per
//! configuration: the whole workspace on SQLite, then only the `api` suite
//! (the tests that run on the database they are given) on PostgreSQL, on
//! actix-web alone (a test written for both frameworks runs on axum in the
//! SQLite pass: what differs there is the framework, not the database).

use crate::postgres::Cluster;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

/// The nextest profile CI runs (a JUnit report in
/// `target/nextest/ci/junit.xml`).
const PROFILE: &str = "ci";

/// Every test of the workspace but the doc tests (nextest does not run
/// them; `ci` runs them as a step of their own), once per configuration.
pub fn all() -> Result<(), String> {
    let cluster = Cluster::start()?;
    let shared = cluster.shared_name();
    nextest(None, &[("PETSTORE_TEST_CLUSTER", shared.as_str())])?;
    on_postgres(&shared)
}

/// The `api` suite's tests that depend on the database: all but the
/// second framework's run of a test written for both (`on_both!`), whose
/// difference is the framework, not the storage behind it.
const API_ON_POSTGRES: &str = "package(petstore-server) & binary(api) & !test(/::on_axum$/)";

/// `cargo nextest run` over the whole workspace, running only the tests
/// `filter` selects (a nextest filterset). Always the whole workspace:
/// cargo unifies the dependencies' features over the packages it builds, so
/// a run of one package would build them all again, differently.
fn nextest(filter: Option<&str>, env: &[(&str, &str)]) -> Result<(), String> {
    let mut args = vec!["nextest", "run", "--workspace", "--profile", PROFILE];
    if let Some(filter) = filter {
        args.extend(["-E", filter]);
    }
    crate::cargo(&args, env)
}

/// The `api` suite on PostgreSQL, on the shared cluster `shared`.
fn on_postgres(shared: &str) -> Result<(), String> {
    nextest(
        Some(API_ON_POSTGRES),
        &[
            ("PETSTORE_TEST_CLUSTER", shared),
            ("PETSTORE_TEST_DATABASE", "postgres"),
        ],
    )
}

/// `flake-hunt [N]`: the end-to-end suites (`api` on SQLite and on
/// PostgreSQL, `system`) and the `tests` crate, N times in a row (5 by
/// default) while `stress-ng --cpu 2` keeps two cores busy. Makes every
/// run, failed or not, and prints each run's time and result.
pub fn flake_hunt(options: &[&str]) -> Result<(), String> {
    let runs: usize = match options {
        [] => 5,
        [n] => n
            .parse()
            .map_err(|_| format!("flake-hunt takes a number of runs, not `{n}`"))?,
        _ => return Err("usage: cargo xtask flake-hunt [RUNS]".into()),
    };
    // Built before the load starts: the runs measure the tests, not rustc.
    crate::run(
        "cargo",
        &[
            "nextest",
            "run",
            "--workspace",
            "--no-run",
            "--profile",
            PROFILE,
        ],
    )?;
    let cluster = Cluster::start()?;
    let shared = cluster.shared_name();
    let stress = Stress::start(2)?;
    let mut results = Vec::new();
    for run in 1..=runs {
        eprintln!("== flake-hunt: run {run} of {runs} (stress-ng --cpu 2 running)");
        let started = Instant::now();
        let outcome = one_run(&shared);
        // Every run is made, failed or not: the hunt measures how often.
        results.push((started.elapsed(), outcome));
    }
    drop(stress);
    eprintln!("\nrun  time       result");
    for (i, (took, outcome)) in results.iter().enumerate() {
        let shown = match outcome {
            Ok(()) => "passed".to_string(),
            Err(e) => format!("FAILED: {e}"),
        };
        eprintln!("{:>3}  {:>7.1} s  {shown}", i + 1, took.as_secs_f64());
    }
    let passed = results.iter().filter(|(_, o)| o.is_ok()).count();
    eprintln!("{passed} of {runs} runs passed under stress-ng --cpu 2");
    if passed == runs {
        Ok(())
    } else {
        Err(format!("{} of {runs} runs failed", runs - passed))
    }
}

/// One run: the end-to-end suites and the `tests` crate.
fn one_run(shared: &str) -> Result<(), String> {
    let env = [("PETSTORE_TEST_CLUSTER", shared)];
    nextest(
        Some("package(petstore-server) & (binary(api) | binary(system))"),
        &env,
    )?;
    on_postgres(shared)?;
    nextest(Some("package(petstore-tests)"), &env)
}

/// `stress-ng --cpu N`, stopped when dropped.
struct Stress(Child);

impl Stress {
    fn start(cpus: usize) -> Result<Stress, String> {
        let child = Command::new("stress-ng")
            .args(["--cpu", &cpus.to_string(), "--quiet"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run stress-ng ({e}): apt-get install stress-ng"))?;
        Ok(Stress(child))
    }
}

impl Drop for Stress {
    fn drop(&mut self) {
        // SIGTERM to the parent stops its workers too.
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}
