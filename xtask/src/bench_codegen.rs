//! `cargo xtask bench-codegen [DOC]`: the generator's speed and peak memory on
//! a document (Stripe's by default), and the evolution gate's on the
//! document against itself, beside openapi-generator's rust-axum generator
//! on the same document when Java is present.
//!
//! Both run as child processes of this command; wall time comes from the
//! clock, peak memory from the child's `VmHWM` in `/proc`, sampled while it
//! runs. Our generator runs five times (the median is reported), the
//! reference once (it takes tens of seconds).

/// The 3.0-to-3.1 translation the generator's tests use.
#[path = "../../crates/apigen/tests/support/upgrade.rs"]
mod upgrade;

use crate::{project_root, run, venv_tool};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DEFAULT_DOC: &str = "../shared/corpus/stripe-spec3.yaml";
const OPENAPI_GENERATOR: &str = "openapi-generator-cli==7.26.0";

/// Runs a command to completion, returning its wall time and peak resident
/// memory in KiB.
fn measure(command: &mut Command) -> Result<(Duration, u64), String> {
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            if !status.success() {
                return Err(format!("{command:?} failed: {status}"));
            }
            return Ok((started.elapsed(), peak));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

pub fn bench_codegen(doc: Option<&str>) -> Result<(), String> {
    let root = project_root();
    let doc = root.join(doc.unwrap_or(DEFAULT_DOC));
    if !doc.exists() {
        return Err(format!("no document at {}", doc.display()));
    }
    run("cargo", &["build", "--release", "--quiet", "-p", "xtask"])?;
    let xtask = root.join("target/release/xtask");
    let out = std::env::temp_dir().join(format!("bench-codegen-{}", std::process::id()));

    let mut runs = Vec::new();
    for _ in 0..5 {
        let (time, peak) = measure(
            Command::new(&xtask)
                .args(["codegen", "--spec"])
                .arg(&doc)
                .arg("--out")
                .arg(out.join("ours")),
        )?;
        runs.push((time, peak));
    }
    runs.sort();
    let (ours_time, ours_peak) = runs[runs.len() / 2];
    println!(
        "apigen (release)        {:>8.2} s  {:>7.0} MB peak   (median of 5; runs {})",
        ours_time.as_secs_f64(),
        ours_peak as f64 / 1024.0,
        runs.iter()
            .map(|(t, _)| format!("{:.2}", t.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    );

    // The same document in 3.1: a 3.1 document must cost no more than its
    // 3.0 original. Both are written by the same YAML emitter, and run in
    // alternation.
    let text = std::fs::read_to_string(&doc).map_err(|e| e.to_string())?;
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
            let (time, _) = measure(
                Command::new(&xtask)
                    .args(["codegen", "--spec"])
                    .arg(spec)
                    .arg("--out")
                    .arg(out.join("versions")),
            )?;
            times.push(time);
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
            Command::new(&xtask).arg("spec-diff").arg(&doc).arg(&doc),
        )?);
    }
    diffs.sort();
    let (diff_time, diff_peak) = diffs[diffs.len() / 2];
    println!(
        "spec-diff against itself {:>6.2} s  {:>7.0} MB peak   (median of 5)",
        diff_time.as_secs_f64(),
        diff_peak as f64 / 1024.0
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
    let (their_time, their_peak) = measure(
        Command::new("java")
            // Its YAML parser refuses documents over 3 MiB by default.
            .arg("-DmaxYamlCodePoints=99999999")
            .arg("-jar")
            .arg(&jar)
            .args(["generate", "-g", "rust-axum", "--skip-validate-spec", "-i"])
            .arg(&doc)
            .arg("-o")
            .arg(out.join("theirs")),
    )?;
    println!(
        "openapi-generator 7.26  {:>8.2} s  {:>7.0} MB peak   (rust-axum, one run)",
        their_time.as_secs_f64(),
        their_peak as f64 / 1024.0
    );
    println!(
        "ratio                   {:>8.1}x faster, {:.1}x less memory",
        their_time.as_secs_f64() / ours_time.as_secs_f64(),
        their_peak as f64 / ours_peak.max(1) as f64
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
