//! `cargo xtask codegen --spec FILE --out DIR` and `cargo xtask corpus DIR`:
//! the generator on any OpenAPI 3.0 document, as a standalone crate.

use crate::check::{self, Checked};
use crate::project_root;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Writes a standalone crate generated from `spec` into `out`, through the
/// same code path as `apigen generate` (`apigen::standalone`).
pub fn write_crate(
    spec: &Path,
    out: &Path,
    options: &apigen::standalone::Options,
) -> Result<apigen::standalone::Crate, String> {
    let command = format!(
        "cargo xtask codegen --spec {} --out {}",
        spec.display(),
        out.display()
    );
    let krate = apigen::standalone::generate(spec, options, &command).map_err(|d| d.to_string())?;
    apigen::standalone::write(out, &krate.files)?;
    Ok(krate)
}

/// `codegen --spec FILE --out DIR [--strict]`: the crate's name from the
/// document's title, as `apigen generate` gives it.
pub fn codegen_standalone(spec: &str, out: &str, strict: bool) -> Result<(), String> {
    let out = PathBuf::from(out);
    let options = apigen::standalone::Options {
        strict,
        ..Default::default()
    };
    let krate = write_crate(Path::new(spec), &out, &options)?;
    let generated = &krate.generated;
    for remark in generated.remarks() {
        eprintln!("{remark}");
    }
    let timings: Vec<String> = generated
        .timings
        .iter()
        .map(|(stage, t)| format!("{stage} {:.0} ms", t.as_secs_f64() * 1000.0))
        .collect();
    eprintln!("stages: {}", timings.join(", "));
    eprintln!("{}", krate.summary(&out));
    Ok(())
}

/// A corpus crate's name: unique in the corpus workspace, whatever the
/// documents' titles.
fn crate_name(spec: &Path) -> String {
    let stem = spec
        .file_stem()
        .map_or("api".into(), |s| s.to_string_lossy().into_owned());
    format!(
        "corpus-{}",
        apigen::names::sanitize(&stem, apigen::names::Case::Snake).replace('_', "-")
    )
}

/// The OpenAPI documents under `dir`: YAML or JSON files with an `openapi` key.
fn documents(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            documents(&path, found);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            let text = fs::read_to_string(&path).unwrap_or_default();
            // A top-level `openapi` key: unindented in YAML, anywhere in JSON
            // (model files never carry it).
            let is_doc =
                text.lines().any(|l| l.starts_with("openapi:")) || text.contains("\"openapi\"");
            if is_doc {
                found.push(path);
            }
        }
    }
}

struct Row {
    document: String,
    operations: usize,
    types: usize,
    time: Duration,
    /// `corpus-NAME` while the crate waits to be checked, then the result.
    result: String,
    skipped: Vec<String>,
    /// What the generator read and does not enforce (3.1 keywords with no
    /// 3.0 equivalent) or says it did (webhooks).
    notes: usize,
    /// Compiler warnings in the generated crate.
    warnings: usize,
    /// The evolution gate with the document against itself: it must find
    /// nothing.
    self_diff: String,
    /// The feature of the group with the fewest operations, checked alone.
    smallest_group: Option<String>,
    /// Whether the crate docs show paging and event streams (their
    /// examples are doc tests worth compiling).
    pages: bool,
    streams: bool,
}

impl Row {
    /// How many operations and schemas a lenient run left out (an
    /// operation may be reported more than once), and other skips.
    fn skipped_counts(&self) -> (usize, usize, usize) {
        let mut operations = std::collections::BTreeSet::new();
        let mut schemas = std::collections::BTreeSet::new();
        let mut other = 0;
        for s in &self.skipped {
            let what = s.split(" skipped:").next().unwrap_or_default();
            if what.starts_with("operation ") {
                operations.insert(what.to_string());
            } else if what.starts_with("schema ") {
                schemas.insert(what.to_string());
            } else {
                other += 1;
            }
        }
        (operations.len(), schemas.len(), other)
    }
}

/// `spec-diff DOC DOC`: the number of findings (0 is right), and how long
/// reading and comparing took.
fn self_diff(doc: &Path) -> String {
    let started = Instant::now();
    match apigen::diff::Document::read(doc) {
        Ok(d) => {
            let found = apigen::diff::diff(&d, &d, &apigen::diff::today())
                .findings
                .len();
            format!(
                "{found} ({:.0} ms)",
                started.elapsed().as_secs_f64() * 1000.0
            )
        }
        Err(_) => "unreadable".into(),
    }
}

/// `corpus PATH... [--allow-skips]`: generates every document (each PATH
/// a document, or a directory of them) and checks the crates, in
/// parallel, with every feature on. A document fails when its crate does
/// not compile, has a warning, or compared with itself gives a finding;
/// and when anything was skipped, unless `allow_skips`.
pub fn corpus(paths: &[&str], allow_skips: bool) -> Result<(), String> {
    // Each document, and the directory its name in the table is relative to.
    let mut docs: Vec<(PathBuf, PathBuf)> = Vec::new();
    for path in paths {
        let path = PathBuf::from(path);
        if path.is_dir() {
            let mut found = Vec::new();
            documents(&path, &mut found);
            if found.is_empty() {
                return Err(format!("no OpenAPI documents under {}", path.display()));
            }
            docs.extend(found.into_iter().map(|doc| (path.clone(), doc)));
        } else if path.is_file() {
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            docs.push((base, path));
        } else {
            return Err(format!(
                "{} is neither a document nor a directory",
                path.display()
            ));
        }
    }
    if docs.is_empty() {
        return Err("corpus needs documents or directories of them".into());
    }
    let work = project_root().join("target").join("corpus");
    fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    let mut members = Vec::new();
    // The first crate carries the runtime's sources, as `apigen generate`
    // writes every crate; the others depend on the runtime crate instead.
    // Their generated code is the same but for the line that names the
    // runtime, and the runtime's own code is the same in every crate: so it
    // is checked once per feature set, not once per document (with 32
    // crates, two thirds of the corpora's checks were the runtime again).
    // The first document is generated both ways, so that the same crate is
    // checked carrying the runtime and on the runtime crate.
    let mut vendored = None;
    let mut both_ways = true;
    let mut entries = Vec::new();
    for (dir, doc) in &docs {
        entries.push((dir, doc, false));
        if std::mem::take(&mut both_ways) {
            entries.push((dir, doc, true));
        }
    }
    for (dir, doc, on_crate) in entries {
        let name = match on_crate {
            false => crate_name(doc),
            true => format!("{}-on-runtime-crate", crate_name(doc)),
        };
        let out = work.join(&name);
        let started = Instant::now();
        // Format checks on, server and client both default features: the
        // corpus compiles what they generate, and their crate docs' examples.
        let options = apigen::standalone::Options {
            name: Some(name.clone()),
            server: true,
            client: true,
            strict: false,
            check_formats: true,
            // The copy on the runtime crate also compiles each model's
            // serde impls only for the sides that use them: its checks with
            // `client` alone and `server` alone build each side's half.
            serde_sides: on_crate,
            runtime: match vendored {
                None if !on_crate => apigen::standalone::RuntimeSource::Vendored,
                _ => apigen::standalone::RuntimeSource::Registry,
            },
        };
        let generated = write_crate(doc, &out, &options).map(|k| k.generated);
        if generated.is_ok() && vendored.is_none() && !on_crate {
            vendored = Some(name.clone());
        }
        let smallest_group = generated.as_ref().ok().and_then(|g| {
            let groups = g.api.groups();
            groups.into_iter().min_by_key(|(_, n)| *n).map(|(f, _)| f)
        });
        let time = started.elapsed();
        let mut document = doc.strip_prefix(dir).unwrap_or(doc).display().to_string();
        if on_crate {
            document.push_str(" (on apigen-runtime)");
        }
        match generated {
            Ok(g) => {
                members.push(name.clone());
                rows.push(Row {
                    document,
                    operations: g.operations(),
                    types: g.types(),
                    time,
                    result: name,
                    skipped: g
                        .skipped
                        .iter()
                        .map(|d| format!("{} ({})", d.message, d.location))
                        .collect(),
                    notes: g.notes.len(),
                    warnings: 0,
                    self_diff: self_diff(doc),
                    smallest_group,
                    pages: g.api.operations.iter().any(|op| op.paging.is_some()),
                    streams: g.api.operations.iter().any(|op| {
                        op.responses
                            .iter()
                            .any(|r| r.media == apigen::ir::Media::Events)
                    }),
                });
            }
            Err(e) => rows.push(Row {
                document,
                operations: 0,
                types: 0,
                time,
                result: format!(
                    "generation failed: {}",
                    e.lines().next().unwrap_or_default()
                ),
                skipped: Vec::new(),
                notes: 0,
                warnings: 0,
                self_diff: String::new(),
                smallest_group: None,
                pages: false,
                streams: false,
            }),
        }
    }
    // One workspace, so that the dependencies build once for all crates.
    // Every crate is checked once per feature set, so incremental state
    // (gigabytes for the largest documents) and debug info would only fill
    // the disk: a CI machine's may be small. The crates on the runtime
    // crate ask crates.io for it, as `apigen generate --runtime crate`
    // writes them; the patch gives them this workspace's.
    let manifest = format!(
        "[workspace]\nresolver = \"2\"\nmembers = [{}]\n\n\
         [patch.crates-io]\napigen-runtime = {{ path = {:?} }}\n\n\
         [profile.dev]\ndebug = false\nincremental = false\n",
        members
            .iter()
            .map(|m| format!("\"{m}\""))
            .collect::<Vec<_>>()
            .join(", "),
        crate::runtime_crate().display().to_string()
    );
    fs::write(work.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    let lock = project_root().join("Cargo.lock");
    if !work.join("Cargo.lock").exists() {
        fs::copy(&lock, work.join("Cargo.lock")).map_err(|e| e.to_string())?;
    }
    eprintln!("checking {} crates ...", members.len());
    let phase = Instant::now();
    let checked = check_all(&work, &["--all-features".to_string()])?;
    eprintln!("  ({:.1} s)", phase.elapsed().as_secs_f64());
    // Then each crate with one side alone: with its smallest group, once
    // with `client` and once with the server's glue (`server` and `axum`,
    // which share everything but their routing), and with every group and
    // `client`. Every other group's items are out, and the serde impls
    // only the other side uses, so a type a group uses but does not pull
    // in, an impl a side needs but does not compile (a model no operation
    // uses holding one a response carries), or an item left dead, shows
    // here. Last, axum and the client with no group at all: what is left
    // of the glue and the routers (imports, the routes of every path) must
    // be used. That pass checks the first crate alone (the pet store's,
    // with groups, webhooks and callbacks): what it compiles is the same
    // skeleton for every document, and all 22 crates took 17 s more.
    let mut alone = Vec::new();
    for (sides, groups) in [
        (&["client"][..], Groups::Smallest),
        (&["server", "axum"][..], Groups::Smallest),
        (&["client"][..], Groups::Every),
        (&["axum", "client"][..], Groups::None),
    ] {
        let side = sides.join("` and `");
        let features: Vec<String> = rows
            .iter()
            .filter(|r| r.result.starts_with("corpus-"))
            .filter(|r| !matches!(groups, Groups::None) || vendored.as_ref() == Some(&r.result))
            .flat_map(|r| {
                let package = &r.result;
                let groups: Vec<String> = match groups {
                    Groups::Every => vec![apigen::ir::ALL_GROUPS.to_string()],
                    Groups::Smallest => r.smallest_group.iter().cloned().collect(),
                    Groups::None => Vec::new(),
                };
                let sides = sides.iter().map(|s| s.to_string());
                sides.chain(groups).map(move |f| format!("{package}/{f}"))
            })
            .collect();
        let which = match groups {
            Groups::Every => "every group",
            Groups::Smallest => "one group each",
            Groups::None => "no group",
        };
        eprintln!("checking them with {which} and `{side}` ...");
        let phase = Instant::now();
        let mut args = vec![
            "--no-default-features".to_string(),
            format!("--features={}", features.join(",")),
        ];
        if let (Groups::None, Some(first)) = (groups, &vendored) {
            args.extend(["--package".to_string(), first.clone()]);
        }
        let found = check_all(&work, &args)?;
        eprintln!("  ({:.1} s)", phase.elapsed().as_secs_f64());
        alone.push((side, groups, found));
    }
    for row in rows.iter_mut().filter(|r| r.result.starts_with("corpus-")) {
        let package = row.result.clone();
        let mut found = checked.get(&package).cloned().unwrap_or_default();
        for (side, groups, pass) in &alone {
            if matches!(groups, Groups::None) && vendored.as_ref() != Some(&package) {
                continue;
            }
            let alone = pass.get(&package).cloned().unwrap_or_default();
            found.errors += alone.errors;
            found.warnings += alone.warnings;
            found.built &= alone.built;
            let with = match (&row.smallest_group, groups) {
                (_, Groups::Every) => format!("with `{side}` and every group"),
                (_, Groups::None) => format!("with `{side}` and no group"),
                (Some(group), Groups::Smallest) => format!("with `{group}` alone and `{side}`"),
                (None, Groups::Smallest) => format!("with `{side}` alone"),
            };
            if found.first_error.is_none() {
                found.first_error = alone.first_error.map(|e| format!("{with}: {e}"));
            }
            if !alone.rendered.is_empty() {
                found
                    .rendered
                    .push_str(&format!("\n-- {with} --\n{}", alone.rendered));
            }
        }
        row.warnings = found.warnings;
        if found.errors == 0 && found.warnings == 0 && found.built {
            row.result = "ok".into();
            continue;
        }
        fs::write(
            work.join(format!("{package}.log")),
            found.rendered.as_bytes(),
        )
        .map_err(|e| e.to_string())?;
        row.result = match found.first_error {
            Some(first) => format!("FAILED: {first} (target/corpus/{package}.log)"),
            None if found.warnings > 0 => format!("FAILED: warnings (target/corpus/{package}.log)"),
            None => "FAILED: not built".to_string(),
        };
    }
    doc_tests(&work, &mut rows)?;

    let mut table = String::new();
    let _ = writeln!(
        table,
        "\n| document | operations | types | generation | result | warnings | operations skipped | schemas skipped | notes | spec-diff against itself |"
    );
    let _ = writeln!(table, "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|");
    let blank = |n: usize| if n == 0 { String::new() } else { n.to_string() };
    for r in &rows {
        let (ops, schemas, other) = r.skipped_counts();
        let schemas = if other > 0 {
            format!("{} (+{other} other)", blank(schemas))
        } else {
            blank(schemas)
        };
        let _ = writeln!(
            table,
            "| {} | {} | {} | {:.0} ms | {} | {} | {} | {} | {} | {} |",
            r.document,
            r.operations,
            r.types,
            r.time.as_secs_f64() * 1000.0,
            r.result,
            r.warnings,
            blank(ops),
            schemas,
            blank(r.notes),
            r.self_diff
        );
    }
    let total_skipped: usize = rows.iter().map(|r| r.skipped.len()).sum();
    // A document may fail in several ways: it is counted once.
    let ok = rows
        .iter()
        .filter(|r| {
            r.result.starts_with("ok") && (r.self_diff.is_empty() || r.self_diff.starts_with("0 "))
        })
        .count();
    let failed = rows.len() - ok;
    let _ = writeln!(
        table,
        "\n{ok} of {} documents generate crates that compile without warnings (every feature on; with one group alone, with `client` and with `server`; `client` with every group; the first, `axum` and `client` with no group); {total_skipped} constructs skipped",
        rows.len()
    );
    if let Some(name) = &vendored {
        let _ = writeln!(
            table,
            "(the runtime's sources carried in {name}, as `apigen generate` writes a crate; \
             the others on the `apigen-runtime` crate)"
        );
    }
    for r in rows.iter().filter(|r| !r.skipped.is_empty()) {
        let _ = writeln!(table, "\nskipped in {}:", r.document);
        for s in &r.skipped {
            let _ = writeln!(table, "  - {s}");
        }
    }
    println!("{table}");
    if failed > 0 {
        return Err(format!("{failed} of {} documents failed", rows.len()));
    }
    if total_skipped > 0 && !allow_skips {
        return Err(format!(
            "{total_skipped} constructs were skipped (listed above); pass --allow-skips to accept that"
        ));
    }
    Ok(())
}

/// Crates whose crate docs' examples are compiled (`cargo test --doc`): a
/// few of the smallest that have operations, to keep the run short.
const DOC_TESTED: usize = 3;

/// Runs the doc tests of the smallest crates that compiled, and of the
/// smallest whose docs show paging and event streams, marking each row
/// tested or failed.
fn doc_tests(work: &Path, rows: &mut [Row]) -> Result<(), String> {
    let mut candidates: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].result == "ok" && rows[i].operations > 0)
        .collect();
    candidates.sort_by_key(|&i| rows[i].operations + rows[i].types);
    let mut chosen: Vec<usize> = candidates.iter().copied().take(DOC_TESTED).collect();
    for shows in [|r: &Row| r.pages, |r: &Row| r.streams] {
        // Only a small crate: building a large one for its doc tests costs
        // a minute (the pet store's spec, which CI adds to the corpus,
        // shows both).
        let small = |i: usize| rows[i].operations <= 50;
        if let Some(&i) = candidates.iter().find(|&&i| shows(&rows[i]) && small(i)) {
            if !chosen.contains(&i) {
                chosen.push(i);
            }
        }
    }
    let packages: Vec<String> = chosen
        .iter()
        .map(|&i| crate_name(Path::new(&rows[i].document)))
        .collect();
    eprintln!("doc tests of {} ...", packages.join(", "));
    let phase = Instant::now();
    // One run for all, so that cargo builds the crates side by side; only
    // when it fails, one run each, to tell which.
    let together = doc_test(work, &packages)?;
    eprintln!("  ({:.1} s)", phase.elapsed().as_secs_f64());
    for (i, package) in chosen.into_iter().zip(&packages) {
        let failure = match &together {
            Ok(()) => None,
            Err(_) => doc_test(work, std::slice::from_ref(package))?.err(),
        };
        match failure {
            None => rows[i].result = "ok, doc tests pass".into(),
            Some(stderr) => {
                fs::write(work.join(format!("{package}.doctest.log")), stderr)
                    .map_err(|e| e.to_string())?;
                rows[i].result = format!("FAILED: doc tests (target/corpus/{package}.doctest.log)");
            }
        }
    }
    Ok(())
}

/// `cargo test --doc` of `packages` in the corpus workspace: its stderr
/// when it fails.
fn doc_test(work: &Path, packages: &[String]) -> Result<Result<(), Vec<u8>>, String> {
    let mut command = Command::new("cargo");
    command.args(["test", "--quiet", "--doc"]);
    for package in packages {
        command.args(["--package", package]);
    }
    let out = command
        .current_dir(work)
        .env("CARGO_TARGET_DIR", check::target_dir())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    Ok(if out.status.success() {
        Ok(())
    } else {
        Err(out.stderr)
    })
}

/// Which of a crate's groups a check of the corpora turns on.
#[derive(Debug, Clone, Copy)]
enum Groups {
    /// The group with the fewest operations.
    Smallest,
    /// All of them.
    Every,
    /// None: only what every build compiles.
    None,
}

/// `cargo check` of every crate of the corpus workspace in one run (or of
/// the one named by a `--package` among `args`), so that cargo builds them
/// in parallel on every core, going on past failures; what each crate's
/// compilation said, by package name.
///
/// The runtime crate the others depend on is checked with them: a warning
/// or an error of its own fails the run, as no crate's row would show it.
fn check_all(work: &Path, args: &[String]) -> Result<BTreeMap<String, Checked>, String> {
    let mut all = Vec::new();
    if !args.iter().any(|a| a == "--package") {
        all.push("--workspace".to_string());
    }
    all.extend(args.iter().cloned());
    let checked = check::check(work, &all)?;
    for (package, found) in &checked {
        if !package.starts_with("corpus-") && found.errors + found.warnings > 0 {
            return Err(format!(
                "{package}, checked with the corpora ({}), says:\n{}",
                args.join(" "),
                found.rendered
            ));
        }
    }
    Ok(checked)
}
