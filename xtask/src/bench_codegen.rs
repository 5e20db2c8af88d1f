//! `cargo xtask bench-codegen [DOC...] [--against APIGEN] [--rounds N]`:
//! the generator's speed and peak memory as a user runs it (`apigen
//! generate DOC --out DIR --server --client`, release build), on each
//! document: Stripe's, Microsoft Graph's v1.0 description
//! (`../shared/bench/msgraph-v1.0.json`, 20 MB) and the pet store's spec by
//! default. For each: wall time, CPU time (user and system) and peak
//! resident memory, medians of N runs (5), and the time per MB of input.
//! `--against APIGEN` runs another `apigen` binary (an older release, say)
//! in alternation with this one, and prints the ratios: the figures of one
//! run are comparable, those of two runs on a busy machine less so.
//!
//! Then, on the first document: the same document translated to 3.1
//! against its 3.0 original, the evolution gate on the document against
//! itself, and openapi-generator's rust-axum generator once, when Java is
//! present.
//!
//! Every figure is the child process's, read from the clock and `/proc`.

/// The 3.0-to-3.1 translation the generator's tests use.
#[path = "../../crates/apigen/tests/support/upgrade.rs"]
mod upgrade;

use crate::{project_root, run, venv_tool};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DEFAULT_DOCS: &[&str] = &[
    "../shared/corpus/stripe-spec3.yaml",
    "../shared/bench/msgraph-v1.0.json",
    "spec/openapi.yaml",
];
const OPENAPI_GENERATOR: &str = "openapi-generator-cli==7.26.0";

/// What one run of a process cost.
#[derive(Debug, Clone, Copy)]
struct Cost {
    wall: Duration,
    /// User and system CPU time.
    cpu: Duration,
    /// Peak resident memory, in KiB.
    peak: u64,
}

/// Runs a command to completion and returns what it cost: the clock for
/// wall time; `/proc` for the rest, read as `time` would: peak memory is
/// the process's high-water mark (`VmHWM`, sampled while it runs), CPU time
/// its user and system time once it has exited and before it is reaped
/// (`/proc/PID/stat` of the zombie holds every thread's).
fn measure(command: &mut Command) -> Result<Cost, String> {
    // Linux reports times in `/proc` in USER_HZ, 100 per second on every
    // architecture it runs on.
    const TICK: Duration = Duration::from_millis(10);
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let proc = PathBuf::from(format!("/proc/{}", child.id()));
    let mut peak = 0;
    let mut cpu = None;
    let mut wall = None;
    while cpu.is_none() {
        let Ok(stat) = std::fs::read_to_string(proc.join("stat")) else {
            break;
        };
        // After the command's name, in parentheses: the state, then fields
        // 4 to 52; utime and stime are fields 14 and 15.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
        if fields.first() == Some(&"Z") {
            wall = Some(started.elapsed());
            let ticks = |i: usize| fields.get(i - 3).and_then(|v| v.parse::<u32>().ok());
            cpu = ticks(14).zip(ticks(15)).map(|(u, s)| TICK * (u + s));
            break;
        }
        if let Some(kb) = std::fs::read_to_string(proc.join("status"))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find(|l| l.starts_with("VmHWM:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|v| v.parse::<u64>().ok())
            })
        {
            peak = peak.max(kb);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("{command:?} failed: {status}"));
    }
    Ok(Cost {
        wall: wall.unwrap_or_else(|| started.elapsed()),
        cpu: cpu.ok_or_else(|| format!("no CPU time read for {command:?}"))?,
        peak,
    })
}

/// The median of each figure over some runs.
fn median(runs: &[Cost]) -> Cost {
    let mid = |mut values: Vec<Duration>| {
        values.sort();
        values[values.len() / 2]
    };
    let mut peaks: Vec<u64> = runs.iter().map(|r| r.peak).collect();
    peaks.sort();
    Cost {
        wall: mid(runs.iter().map(|r| r.wall).collect()),
        cpu: mid(runs.iter().map(|r| r.cpu).collect()),
        peak: peaks[peaks.len() / 2],
    }
}

/// `apigen generate DOC --out OUT --server --client`, as a user runs it.
fn generate(apigen: &Path, doc: &Path, out: &Path) -> Result<Cost, String> {
    let _ = std::fs::remove_dir_all(out);
    measure(
        Command::new(apigen)
            .arg("generate")
            .arg(doc)
            .arg("--out")
            .arg(out)
            .args(["--server", "--client"]),
    )
}

pub fn bench_codegen(args: &[&str]) -> Result<(), String> {
    let mut docs = Vec::new();
    let mut against = None;
    let mut rounds = 5;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--against" => {
                against = Some(PathBuf::from(
                    rest.next().ok_or("--against needs a binary")?,
                ))
            }
            "--rounds" => {
                rounds = rest
                    .next()
                    .and_then(|n| n.parse::<usize>().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--rounds needs a count above 0")?
            }
            other if !other.starts_with("--") => docs.push(other.to_string()),
            other => return Err(format!("bench-codegen: unknown argument `{other}`")),
        }
    }
    let root = project_root();
    let docs: Vec<PathBuf> = if docs.is_empty() {
        DEFAULT_DOCS.iter().map(|d| root.join(d)).collect()
    } else {
        docs.iter().map(|d| root.join(d)).collect()
    };
    for doc in &docs {
        if !doc.exists() {
            return Err(format!("no document at {}", doc.display()));
        }
    }
    run(
        "cargo",
        &[
            "build",
            "--release",
            "--quiet",
            "-p",
            "xtask",
            "-p",
            "apigen-cli",
        ],
    )?;
    let apigen = root.join("target/release/apigen");
    let xtask = root.join("target/release/xtask");
    let out = std::env::temp_dir().join(format!("bench-codegen-{}", std::process::id()));

    println!(
        "apigen generate DOC --server --client, release; medians of {rounds}{}",
        if against.is_some() {
            ", alternating with --against"
        } else {
            ""
        }
    );
    println!(
        "{:<28} {:>8} {:>8} {:>8} {:>9} {:>8} {:>10}",
        "document", "MB", "wall s", "CPU s", "peak MB", "s/MB", "peak/size"
    );
    let mut per_mb = Vec::new();
    for doc in &docs {
        let size = std::fs::metadata(doc).map_err(|e| e.to_string())?.len() as f64 / 1e6;
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            ours.push(generate(&apigen, doc, &out.join("ours"))?);
            if let Some(other) = &against {
                theirs.push(generate(other, doc, &out.join("theirs"))?);
            }
        }
        let name = doc
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let row = |label: &str, cost: Cost| {
            println!(
                "{:<28} {:>8.2} {:>8.3} {:>8.3} {:>9.0} {:>8.3} {:>10.1}",
                label,
                size,
                cost.wall.as_secs_f64(),
                cost.cpu.as_secs_f64(),
                cost.peak as f64 / 1024.0,
                cost.wall.as_secs_f64() / size,
                cost.peak as f64 * 1024.0 / 1e6 / size
            );
        };
        let mine = median(&ours);
        row(&name, mine);
        per_mb.push((name.clone(), size, mine));
        if !theirs.is_empty() {
            let other = median(&theirs);
            row("  --against", other);
            println!(
                "  ratio (this / against)     wall {:.3}, CPU {:.3}, peak {:.3}",
                mine.wall.as_secs_f64() / other.wall.as_secs_f64(),
                mine.cpu.as_secs_f64() / other.cpu.as_secs_f64(),
                mine.peak as f64 / other.peak.max(1) as f64
            );
        }
    }
    // Time per MB against the first document's (Stripe's by default): a
    // generator linear in its input keeps these near 1. A document under
    // 1 MB is timed mostly starting and writing the crate, not reading it.
    if let Some((first, first_size, first_cost)) = per_mb.first() {
        let base = first_cost.wall.as_secs_f64() / first_size;
        for (name, size, cost) in per_mb[1..].iter().filter(|(_, size, _)| *size >= 1.0) {
            println!(
                "time per MB of {name} against {first}'s: {:.2}x",
                cost.wall.as_secs_f64() / size / base
            );
        }
    }
    let doc = &docs[0];

    // The same document in 3.1: a 3.1 document must cost no more than its
    // 3.0 original. Both are written by the same YAML emitter, and run in
    // alternation.
    let text = std::fs::read_to_string(doc).map_err(|e| e.to_string())?;
    let original: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| e.to_string())?;
    let mut translated = original.clone();
    upgrade::upgrade(&mut translated);
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let (v30, v31) = (out.join("v30.yaml"), out.join("v31.yaml"));
    for (path, value) in [(&v30, &original), (&v31, &translated)] {
        let yaml = serde_yaml::to_string(value).map_err(|e| e.to_string())?;
        std::fs::write(path, yaml).map_err(|e| e.to_string())?;
    }
    let (mut times30, mut times31) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        for (spec, times) in [(&v30, &mut times30), (&v31, &mut times31)] {
            times.push(generate(&apigen, spec, &out.join("versions"))?.wall);
        }
    }
    times30.sort();
    times31.sort();
    let (median30, median31) = (times30[2], times31[2]);
    println!(
        "same document as 3.1    {:>8.2} s  against {:.2} s as 3.0: ratio {:.3} (medians of 5, alternating)",
        median31.as_secs_f64(),
        median30.as_secs_f64(),
        median31.as_secs_f64() / median30.as_secs_f64()
    );

    // The evolution gate on the same document, against itself.
    let mut diffs = Vec::new();
    for _ in 0..5 {
        diffs.push(measure(
            Command::new(&xtask).arg("spec-diff").arg(doc).arg(doc),
        )?);
    }
    let diff = median(&diffs);
    println!(
        "spec-diff against itself {:>6.2} s  {:>7.0} MB peak   (median of 5)",
        diff.wall.as_secs_f64(),
        diff.peak as f64 / 1024.0
    );

    let java = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !java {
        println!("openapi-generator       skipped: no Java on this machine");
        return Ok(());
    }
    let cli = venv_tool(OPENAPI_GENERATOR, "openapi-generator-cli")?;
    let jar = jar_of(&cli).ok_or("cannot find the openapi-generator jar")?;
    let theirs = measure(
        Command::new("java")
            // Its YAML parser refuses documents over 3 MiB by default.
            .arg("-DmaxYamlCodePoints=99999999")
            .arg("-jar")
            .arg(&jar)
            .args(["generate", "-g", "rust-axum", "--skip-validate-spec", "-i"])
            .arg(doc)
            .arg("-o")
            .arg(out.join("theirs")),
    )?;
    println!(
        "openapi-generator 7.26  {:>8.2} s  {:>7.0} MB peak   (rust-axum, one run)",
        theirs.wall.as_secs_f64(),
        theirs.peak as f64 / 1024.0
    );
    let ours = per_mb[0].2;
    println!(
        "ratio                   {:>8.1}x faster, {:.1}x less memory",
        theirs.wall.as_secs_f64() / ours.wall.as_secs_f64(),
        theirs.peak as f64 / ours.peak.max(1) as f64
    );
    let _ = std::fs::remove_dir_all(&out);
    Ok(())
}

/// The jar the PyPI package ships, next to its Python module.
fn jar_of(cli: &Path) -> Option<std::path::PathBuf> {
    let venv = cli.parent()?.parent()?;
    let lib = venv.join("lib");
    for python in std::fs::read_dir(lib).ok()?.flatten() {
        let jar = python
            .path()
            .join("site-packages/openapi_generator_cli/openapi-generator.jar");
        if jar.exists() {
            return Some(jar);
        }
    }
    None
}
