//! `cargo xtask bench-compile [DOC] [--group NAME] [--only LABEL] [--against
//! APIGEN]`: what a generated crate costs to build. `cargo check` time and
//! rustc's peak memory for the crate alone (its dependencies are built
//! first, against an empty `lib.rs`), with every feature on, with `client`
//! only, with `server` only, and with one group's feature and `client`;
//! `--only` keeps the builds whose label contains LABEL (`server`).
//!
//! `--against APIGEN` also generates the document with another build of
//! the `apigen` binary (an older release, say) and measures its crate the
//! same way in the same run, printing the ratios: the figures of one run
//! are comparable, those of two runs on a busy machine less so.
//!
//! A big document's crate takes minutes and gigabytes to check: run this by
//! hand, never in CI.

use crate::project_root;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DEFAULT_DOC: &str = "../shared/corpus/stripe-spec3.yaml";

/// One way of building the crate: a label and cargo's feature arguments,
/// for our crate and for the older one (none when it has no counterpart).
struct Build {
    label: String,
    ours: Vec<String>,
    theirs: Option<Vec<String>>,
}

/// What one check cost.
#[derive(Debug, Clone, Copy)]
struct Cost {
    time: Duration,
    /// rustc's peak resident memory, in KiB.
    peak: u64,
}

pub fn bench_compile(args: &[&str]) -> Result<(), String> {
    let mut doc = None;
    let mut group = None;
    let mut against = None;
    let mut only = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--group" => group = Some(rest.next().ok_or("--group needs a name")?.to_string()),
            "--only" => only = Some(rest.next().ok_or("--only needs a label")?.to_string()),
            "--against" => {
                against = Some(PathBuf::from(
                    rest.next().ok_or("--against needs a binary")?,
                ))
            }
            other if !other.starts_with("--") && doc.is_none() => doc = Some(other.to_string()),
            other => return Err(format!("bench-compile: unknown argument `{other}`")),
        }
    }
    let root = project_root();
    let doc = root.join(doc.as_deref().unwrap_or(DEFAULT_DOC));
    if !doc.exists() {
        return Err(format!("no document at {}", doc.display()));
    }
    let work = root.join("target").join("bench-compile");
    let _ = fs::remove_dir_all(work.join("ours"));
    let _ = fs::remove_dir_all(work.join("theirs"));
    fs::create_dir_all(&work).map_err(|e| e.to_string())?;

    let options = apigen::standalone::Options {
        name: Some("bench-ours".into()),
        server: true,
        client: true,
        strict: false,
        check_formats: false,
        serde_sides: false,
        runtime: apigen::standalone::RuntimeSource::Vendored,
    };
    let krate = crate::corpus::write_crate(&doc, &work.join("ours"), &options)?;
    let groups = krate.generated.api.groups();
    let group = match group {
        Some(g) => Some(g),
        None => median_group(&krate.generated.api),
    };
    let mut members = vec!["ours"];
    if let Some(apigen) = &against {
        let status = Command::new(apigen)
            .arg("generate")
            .arg(&doc)
            .arg("--out")
            .arg(work.join("theirs"))
            .args(["--name", "bench-theirs", "--server", "--client"])
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run {}: {e}", apigen.display()))?;
        if !status.success() {
            return Err(format!("{} failed on {}", apigen.display(), doc.display()));
        }
        members.push("theirs");
    }
    let manifest = format!(
        "[workspace]\nresolver = \"2\"\nmembers = [{}]\n",
        members
            .iter()
            .map(|m| format!("\"{m}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    fs::write(work.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    if !work.join("Cargo.lock").exists() {
        fs::copy(root.join("Cargo.lock"), work.join("Cargo.lock")).map_err(|e| e.to_string())?;
    }

    // Our crate has a feature per group, and `all-groups` turns them all
    // on; an older crate may have none, so its builds name only `client`
    // and `server`, and it has no counterpart of a one-group build. One
    // that has them is built as ours is.
    let their_manifest = fs::read_to_string(work.join("theirs/Cargo.toml")).unwrap_or_default();
    let theirs_declare = |feature: &str| {
        their_manifest
            .lines()
            .any(|l| l.starts_with(&format!("{feature} = ")))
    };
    let their_groups = theirs_declare("all-groups");
    let both = |label: &str, features: &str| {
        let ours = vec![
            "--no-default-features".into(),
            format!("--features={features},all-groups"),
        ];
        let theirs = if their_groups {
            ours.clone()
        } else {
            vec![
                "--no-default-features".into(),
                format!("--features={features}"),
            ]
        };
        Build {
            label: label.into(),
            ours,
            theirs: Some(theirs),
        }
    };
    let mut builds = vec![
        both("every feature", "client,server"),
        both("client only", "client"),
        both("server only", "server"),
    ];
    match &group {
        Some(g) if groups.iter().any(|(name, _)| name == g) => builds.push(Build {
            label: format!("`{g}` with client"),
            ours: vec![
                "--no-default-features".into(),
                format!("--features=client,{g}"),
            ],
            theirs: theirs_declare(g).then(|| {
                vec![
                    "--no-default-features".into(),
                    format!("--features=client,{g}"),
                ]
            }),
        }),
        Some(g) => return Err(format!("the crate has no group `{g}`")),
        None => {}
    }
    if let Some(only) = &only {
        builds.retain(|b| b.label.contains(only.as_str()));
    }
    let api = &krate.generated.api;
    let reach = api.reach();
    let everywhere = reach
        .values()
        .filter(|g| (0..groups.len()).all(|i| g.contains(&i)))
        .count();
    let nowhere = reach
        .values()
        .filter(|g| g.iter().all(|&i| i == groups.len()))
        .count();
    println!(
        "{}: {} operations, {} types ({} reached by every group, {} by none), {} groups",
        doc.display(),
        krate.generated.operations(),
        krate.generated.types(),
        everywhere,
        nowhere,
        groups.len()
    );
    if let Some(g) = &group {
        let index = api.traits.iter().position(|t| &t.feature == g);
        let types = reach
            .values()
            .filter(|groups| index.is_some_and(|i| groups.contains(&i)))
            .count();
        println!(
            "`{g}`: {} operations, {types} types",
            groups
                .iter()
                .find(|(name, _)| name == g)
                .map_or(0, |(_, n)| *n)
        );
    }
    println!(
        "\n| build | time | rustc peak |{}",
        if against.is_some() {
            " against | time ratio | memory ratio |"
        } else {
            ""
        }
    );
    println!(
        "|---|---:|---:|{}",
        if against.is_some() {
            "---:|---:|---:|"
        } else {
            ""
        }
    );
    for build in &builds {
        let ours = check(&work, "bench-ours", &work.join("ours"), &build.ours)?;
        let mut line = format!(
            "| {} | {:.1} s | {:.0} MB |",
            build.label,
            ours.time.as_secs_f64(),
            ours.peak as f64 / 1024.0
        );
        match (&against, &build.theirs) {
            (Some(_), Some(features)) => {
                let theirs = check(&work, "bench-theirs", &work.join("theirs"), features)?;
                line.push_str(&format!(
                    " {:.1} s, {:.0} MB | {:.2} | {:.2} |",
                    theirs.time.as_secs_f64(),
                    theirs.peak as f64 / 1024.0,
                    ours.time.as_secs_f64() / theirs.time.as_secs_f64(),
                    ours.peak as f64 / theirs.peak.max(1) as f64
                ));
            }
            (Some(_), None) => line.push_str(" | | |"),
            (None, _) => {}
        }
        println!("{line}");
    }
    Ok(())
}

/// The group in the middle when groups are ordered by their number of
/// operations: a mid-sized one.
fn median_group(api: &apigen::ir::Api) -> Option<String> {
    let mut groups = api.groups();
    groups.sort_by_key(|(name, ops)| (*ops, name.clone()));
    groups.get(groups.len() / 2).map(|(name, _)| name.clone())
}

/// `cargo check` of `package` with `features`: first with its `lib.rs`
/// emptied (so that only its dependencies are built), then with it, timed.
fn check(work: &Path, package: &str, dir: &Path, features: &[String]) -> Result<Cost, String> {
    let lib = dir.join("src/lib.rs");
    let text = fs::read_to_string(&lib).map_err(|e| e.to_string())?;
    let cargo = |quiet: bool| {
        let mut command = Command::new("cargo");
        command
            .args(["check", "--package", package])
            .args(features)
            .current_dir(work)
            .env("CARGO_TARGET_DIR", work.join("target"))
            // A cache of an earlier run of the same sources would make a
            // check look nearly free.
            .env("CARGO_INCREMENTAL", "0");
        if quiet {
            command.stdout(Stdio::null()).stderr(Stdio::null());
        }
        command
    };
    fs::write(&lib, "//! Emptied while its dependencies build.\n").map_err(|e| e.to_string())?;
    let built = cargo(true).status();
    fs::write(&lib, &text).map_err(|e| e.to_string())?;
    if !built.map_err(|e| e.to_string())?.success() {
        return Err(format!("the dependencies of {package} do not build"));
    }
    let started = Instant::now();
    let mut child = cargo(true)
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let mut peak = 0;
    loop {
        peak = peak.max(rustc_peak());
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            if !status.success() {
                return Err(format!(
                    "{package} does not check with {}",
                    features.join(" ")
                ));
            }
            return Ok(Cost {
                time: started.elapsed(),
                peak,
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The largest peak resident memory (`VmHWM`, KiB) of the rustc processes
/// running now. Only the crate's own rustc runs while it is checked, its
/// dependencies being built already.
fn rustc_peak() -> u64 {
    let Ok(entries) = fs::read_dir("/proc") else {
        return 0;
    };
    let mut peak = 0;
    for entry in entries.flatten() {
        let Ok(status) = fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        if !status.lines().next().is_some_and(|l| l.ends_with("rustc")) {
            continue;
        }
        if let Some(kb) = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
        {
            peak = peak.max(kb);
        }
    }
    peak
}
