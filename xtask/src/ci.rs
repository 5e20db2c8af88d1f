//! `cargo xtask ci`: everything CI checks, as named steps in order from
//! cheapest to dearest, each timed; a table of the steps' durations ends
//! the run, whether it passed or not.
//!
//! The public documents beside the project (`../shared/corpus`,
//! `../shared/corpus31`) are generated and checked, and their mocks run
//! under schemathesis, when they are present.

use crate::jobs::{self, Job};
use crate::{check, codegen, conformance, installs, mock_conformance, project_root, spec_diff};
use std::time::{Duration, Instant};

/// A step: its name and what it runs.
type Step<'a> = (&'a str, Box<dyn FnOnce() -> Result<(), String> + 'a>);

/// The documents of the corpora whose mocks CI runs under schemathesis
/// (beside the pet store's spec); BENCHMARKS.md lists where the others
/// stand.
const MOCK_DOCUMENTS: &[&str] = &[
    "../shared/corpus/oai-petstore-expanded.yaml",
    "../shared/corpus/oai-api-with-examples.yaml",
    "../shared/corpus/oai-uspto.yaml",
    "../shared/corpus/readme-schema-circular.yaml",
    "../shared/corpus/readme-discriminators.yaml",
    "../shared/corpus/readme-parameters-style.yaml",
    "../shared/corpus/swagger-petstore-v3.yaml",
    "../shared/corpus31/lakekeeper-generic-table.yaml",
    "../shared/corpus31/train-travel.yaml",
];

/// The public 3.2 documents (`crates/apigen/tests/corpus32`) whose crates
/// CI compiles with the corpora: those with operations or schemas of
/// note. The openapi32 test generates every one of them; compiling all 37
/// (each a crate with the runtime beside it) would cost minutes.
const CORPUS32: &[&str] = &[
    "oai-link-object-examples.yaml",
    "oai-media-type-examples.yaml",
    "oai-mega.yaml",
    "oai-operation-object-example.yaml",
    "oai-path-item-object-example.yaml",
    "oai-path_item_servers_parameters.yaml",
    "oai-valid_schema_types.yaml",
    "oai-webhook-example.yaml",
];

/// Every step, or only the step named `only`.
pub fn ci(only: Option<&str>) -> Result<(), String> {
    // Every build of the workspace in this run, and in the xtasks it
    // starts, is linted as it compiles (`crate::cargo`).
    std::env::set_var(crate::LINTED, "1");
    let root = project_root();
    let mut steps: Vec<Step> = vec![
        (
            "fmt",
            Box::new(|| crate::run("cargo", &["fmt", "--all", "--", "--check"])),
        ),
        ("rooms", Box::new(crate::rooms::rooms)),
        (
            "codegen --check",
            Box::new(|| codegen::run(codegen::Mode::Check)),
        ),
        ("spec validation", Box::new(crate::validate_spec)),
        ("evolution gate", Box::new(spec_diff::gate)),
        (
            "feature sets",
            Box::new(|| {
                // The pet store's crate with one side alone, as a program
                // that only calls the API (or only serves it, on either
                // framework) builds it: its models are serde types both
                // ways either way. Then the models alone, for a program
                // that only stores or forwards them. A warning that only
                // one side's build shows (an unused import, a dead helper
                // of the runtime's) fails it.
                for features in [
                    &["--no-default-features", "--features", "client"][..],
                    &[],
                    &["--no-default-features", "--features", "axum"],
                    &["--no-default-features"],
                ] {
                    let mut args = vec!["-p", "petstore-api"];
                    args.extend(features);
                    check::denying_warnings(&args)?;
                }
                Ok(())
            }),
        ),
        (
            "clippy and tests",
            Box::new(|| {
                // The tests need Chromium, PostgreSQL, openssl and the OAuth
                // test server's packages, which `.ci/run` installs while the
                // steps before run.
                installs::installed()?;
                // The mocks that conformance runs are built beside the
                // tests, and schemathesis installed. Cargo's lock lets one
                // of the two builds run at a time (the workspace's binaries,
                // which both need, are built once), and the mocks compile
                // while the tests run, which mostly wait on servers and
                // clocks (flake-hunt shows them unhurt by a busy machine).
                // Conformance then finds them built, and the corpora start
                // at once.
                let builds = jobs::beside(&mock_builds())?;
                // Built by clippy's driver (`crate::cargo`): the build is
                // `cargo clippy --workspace --all-targets -- -D warnings`
                // too, with the benchmarks, which no test run builds.
                let tested = crate::tests::all().and_then(|()| {
                    crate::cargo(&["test", "--workspace", "--benches", "--no-run"], &[])
                });
                let built = builds.wait();
                tested.and(built)
            }),
        ),
        (
            "doc tests",
            Box::new(|| crate::cargo(&["test", "--workspace", "--doc"], &[])),
        ),
        (
            "guide",
            Box::new(|| installs::installed().and_then(|()| crate::guide::guide())),
        ),
        (
            "runtime docs",
            Box::new(|| {
                // The runtime's public surface is documented, with no
                // broken links, as docs.rs shows it: every feature on.
                crate::run_with_env(
                    "cargo",
                    &[
                        "doc",
                        "--no-deps",
                        "--package",
                        "apigen-runtime",
                        "--all-features",
                    ],
                    &[("RUSTDOCFLAGS", "-D warnings")],
                )
            }),
        ),
    ];
    // Both corpora in one workspace, so that cargo checks their crates side
    // by side and their dependencies once; beside them, the pet store's own
    // spec (a small crate whose docs show paging and event streams,
    // compiled as doc tests), the document whose names collide with every
    // item generated code uses, the 3.2 tour and the richest public 3.2
    // documents, each with a feature per group. The pet store's comes
    // first: its crate carries the runtime's sources, as `apigen generate`
    // writes them (`corpus` vendors the first crate's only).
    let corpora: Vec<String> = ["../shared/corpus", "../shared/corpus31"]
        .iter()
        .map(|dir| root.join(dir))
        .filter(|dir| dir.is_dir())
        .map(|dir| dir.to_string_lossy().into_owned())
        .collect();
    let mut corpus_paths = None;
    if !corpora.is_empty() {
        let mut paths = vec![root
            .join("spec/openapi.yaml")
            .to_string_lossy()
            .into_owned()];
        paths.extend(corpora);
        paths.extend(
            [
                "crates/apigen/tests/snapshots/collisions.yaml",
                "crates/apigen/tests/snapshots/tour32.yaml",
            ]
            .iter()
            .map(|b| root.join(b).to_string_lossy().into_owned()),
        );
        paths.extend(CORPUS32.iter().map(|d| {
            root.join("crates/apigen/tests/corpus32")
                .join(d)
                .to_string_lossy()
                .into_owned()
        }));
        corpus_paths = Some(paths);
    }
    steps.push((
        "corpora and conformance",
        Box::new(move || side_by_side(corpus_paths)),
    ));
    if let Some(name) = only {
        steps.retain(|(step, _)| *step == name);
        if steps.is_empty() {
            return Err(format!("ci has no step named `{name}`"));
        }
    }
    run_steps(steps)
}

/// The corpora (`cargo xtask corpus`, when `corpus` names their
/// documents), schemathesis against the real server (on SQLite, on
/// PostgreSQL) and against the mocks (on actix-web, on axum), and the
/// example clients, and the published crates' packages
/// ([`crate::package`]), side by side ([`jobs`]), once the binaries are
/// built.
/// A schemathesis run keeps about one core busy and waits on its server
/// the rest of the time (the runs alone used 1.5 of 2 cores), so they run
/// one per core, and the corpora's checks run beside them in that slack:
/// one job more than there are cores.
fn side_by_side(corpus: Option<Vec<String>>) -> Result<(), String> {
    crate::build_binaries()?;
    // Installed once, before the runs that use it start.
    crate::venv_tool(conformance::SCHEMATHESIS, "schemathesis")?;
    mock_conformance::prepare_cache()?;
    // In the order they start as slots come free. The mocks' builds
    // first (done beside the tests, so found built), and the corpora, the
    // longest job, once they are done: both run cargo in the target
    // directory the tests built (where the corpora's doc tests find the
    // dependencies built), so one would wait on the other's lock, and the
    // mocks' runs, the longest after the corpora, wait on the builds.
    // Meanwhile the example clients: they mostly wait (for up to a
    // minute, on a rate limit's window).
    let mut jobs = vec![mock_builds()];
    let width = match corpus {
        Some(paths) => {
            let mut args = vec!["corpus".to_string()];
            args.extend(paths);
            jobs.push(Job::with("corpora", args).after(0));
            jobs::width() + 1
        }
        None => jobs::width(),
    };
    jobs.extend([
        Job::new("examples", &["examples"]),
        // The store under schemathesis on each framework: axum on SQLite
        // (with the event stream), actix-web on PostgreSQL.
        Job::new(
            "conformance on SQLite, on axum",
            &["conformance", "--database", "sqlite", "--framework", "axum"],
        ),
        Job::with(
            "mocks on actix-web",
            mocks(&["mock-conformance", "--framework", "actix"]),
        )
        .after(0),
        Job::with(
            "mocks on axum",
            mocks(&["mock-conformance", "--framework", "axum"]),
        )
        .after(0),
        // The published crates packed and built from their packages, in
        // a target directory of their own.
        Job::new("packages", &["package"]),
        Job::new(
            "conformance on PostgreSQL, on actix-web",
            &[
                "conformance",
                "--database",
                "postgres",
                "--framework",
                "actix",
                "--without-stream",
            ],
        ),
    ]);
    jobs::run_all(&jobs, width)
}

/// `cargo xtask ARGS` followed by the documents whose mocks CI runs
/// under schemathesis: the pet store's spec and [`MOCK_DOCUMENTS`].
fn mocks(first: &[&str]) -> Vec<String> {
    let root = project_root();
    let mut docs = vec![root.join("spec/openapi.yaml")];
    docs.extend(
        MOCK_DOCUMENTS
            .iter()
            .map(|d| root.join(d))
            .filter(|d| d.is_file()),
    );
    let mut args: Vec<String> = first.iter().map(|a| a.to_string()).collect();
    args.extend(docs.iter().map(|d| d.to_string_lossy().into_owned()));
    args
}

/// The job that builds those mocks.
fn mock_builds() -> Job {
    Job::with("mock builds", mocks(&["mock-conformance", "--build-only"]))
}

/// Runs the steps in order until one fails, then prints each one's
/// duration (and the steps not reached).
fn run_steps(steps: Vec<Step>) -> Result<(), String> {
    let names: Vec<&str> = steps.iter().map(|(name, _)| *name).collect();
    let mut took: Vec<(Duration, bool)> = Vec::new();
    let mut outcome = Ok(());
    for (name, step) in steps {
        eprintln!("== ci: {name}");
        let started = Instant::now();
        let result = step();
        took.push((started.elapsed(), result.is_ok()));
        if let Err(e) = result {
            outcome = Err(format!("ci step `{name}` failed: {e}"));
            break;
        }
    }
    eprintln!("{}", table(&names, &took));
    outcome
}

/// The steps' table: name, duration, result; a total.
fn table(names: &[&str], took: &[(Duration, bool)]) -> String {
    use std::fmt::Write as _;
    let width = names.iter().map(|n| n.len()).max().unwrap_or(4).max(5);
    let mut out = format!("\n{:<width$}  {:>9}  result\n", "step", "time");
    let mut total = Duration::ZERO;
    for (i, name) in names.iter().enumerate() {
        match took.get(i) {
            Some((t, ok)) => {
                total += *t;
                let result = if *ok { "ok" } else { "FAILED" };
                let _ = writeln!(out, "{name:<width$}  {:>8.1}s  {result}", t.as_secs_f64());
            }
            None => {
                let _ = writeln!(out, "{name:<width$}  {:>9}  not run", "-");
            }
        }
    }
    let _ = writeln!(out, "{:<width$}  {:>8.1}s", "total", total.as_secs_f64());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_step_and_the_ones_not_reached() {
        let table = table(
            &["fmt", "tests", "examples"],
            &[
                (Duration::from_millis(1500), true),
                (Duration::from_secs(60), false),
            ],
        );
        let lines: Vec<&str> = table.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 5, "{table}");
        assert!(
            lines[1].starts_with("fmt") && lines[1].contains("1.5s") && lines[1].ends_with("ok")
        );
        assert!(lines[2].contains("60.0s") && lines[2].ends_with("FAILED"));
        assert!(lines[3].starts_with("examples") && lines[3].ends_with("not run"));
        assert!(lines[4].starts_with("total") && lines[4].contains("61.5s"));
    }
}
