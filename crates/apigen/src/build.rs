//! Generation at build time: a build script turns the crate's OpenAPI
//! document into its modules in `OUT_DIR`, and the crate includes them.
//! Nothing generated is checked in; a spec edit is picked up by the next
//! `cargo build`.
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     apigen::build::Builder::new("openapi.yaml").generate();
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs: the same modules as a crate `apigen generate` writes
//! // (`models`, `operations`, `server`, `axum_glue`, `client`, `runtime`,
//! // `metadata`, ...), under the same features.
//! include!(concat!(env!("OUT_DIR"), "/api.rs"));
//! ```
//!
//! The build script:
//! - reads the document (YAML or JSON) and every file its references
//!   name, and tells cargo to run it again when any of them, or the
//!   crate's manifest, changes (`cargo:rerun-if-changed`);
//! - prints what the generator left out or noted as `cargo:warning=`
//!   lines, each with its place in the document;
//! - fails the build on an error, naming the document and the place in it
//!   (`--> openapi.yaml#/paths/~1pets/get`), as `apigen generate` would;
//! - checks that the crate's manifest declares the features and
//!   dependencies the generated code uses, and fails with the lines to add
//!   when it does not (the same `[features]` and `[dependencies]` as a
//!   generated crate's manifest).
//!
//! Checked-in generation (`apigen generate`) and build-time generation
//! make the same code; the guide's chapter "Generating at build time" says
//! when to choose which.

use crate::standalone::{self, RuntimeSource};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where the crate's generated code finds the runtime: its sources
/// written into `OUT_DIR` beside the generated code and compiled as part
/// of the crate (`Vendored`, a build script's default), or the
/// `apigen-runtime` crate the crate names as a dependency (`Crate`).
pub use crate::Runtime;

/// A build script's generation of one document.
#[derive(Debug, Clone)]
pub struct Builder {
    spec: PathBuf,
    module: String,
    /// What `apigen generate` would be told: the runtime, strictness,
    /// format checks, serde sides.
    options: standalone::Options,
    check_manifest: bool,
    notes: bool,
}

/// What a run wrote: the file to include, what the generator said, and the
/// files it read.
#[derive(Debug)]
pub struct Output {
    /// `OUT_DIR/<module>.rs`, which the crate includes.
    pub include: PathBuf,
    /// What the generator left out and noted.
    pub generated: crate::Generated,
}

impl Builder {
    /// The document at `spec`, relative to the crate's directory
    /// (`CARGO_MANIFEST_DIR`) unless absolute.
    pub fn new(spec: impl AsRef<Path>) -> Self {
        Builder {
            spec: spec.as_ref().to_path_buf(),
            module: "api".to_string(),
            options: standalone::Options::default(),
            check_manifest: true,
            notes: true,
        }
    }

    /// The name of the file to include, `OUT_DIR/<name>.rs` (`api` unless
    /// given): a crate generating from two documents includes each in a
    /// module of its own.
    pub fn module(mut self, name: &str) -> Self {
        self.module = name.to_string();
        self
    }

    /// Where the generated code finds the runtime ([`Runtime::Vendored`]
    /// unless given).
    pub fn runtime(mut self, runtime: Runtime) -> Self {
        self.options.runtime = match runtime {
            Runtime::Vendored => RuntimeSource::Vendored,
            Runtime::Crate => RuntimeSource::Registry,
        };
        self
    }

    /// Fail on what the generator cannot express, instead of leaving it out
    /// with a warning.
    pub fn strict(mut self, strict: bool) -> Self {
        self.options.strict = strict;
        self
    }

    /// Check `format: email`, `format: uri` and `format: duration` strings.
    pub fn check_formats(mut self, check: bool) -> Self {
        self.options.check_formats = check;
        self
    }

    /// A model's serde impls only for the sides that use them (see
    /// `apigen generate --serde-sides`); the crate then declares the
    /// `serialize` and `deserialize` features too.
    pub fn serde_sides(mut self, on: bool) -> Self {
        self.options.serde_sides = on;
        self
    }

    /// Whether to warn of the generator's notes: what it read but does not
    /// enforce, or how it read something (on unless turned off). What it
    /// left out is warned of either way.
    pub fn notes(mut self, warn: bool) -> Self {
        self.notes = warn;
        self
    }

    /// Whether to check the crate's manifest for the features and
    /// dependencies the generated code uses (on unless turned off).
    pub fn check_manifest(mut self, check: bool) -> Self {
        self.check_manifest = check;
        self
    }

    /// Generates, as a build script does: the modules written, cargo told
    /// what to watch and warned of what was left out; on an error, the
    /// error printed with its place in the document and the build failed.
    pub fn generate(self) -> Output {
        match self.try_generate() {
            Ok(output) => output,
            Err(message) => {
                eprintln!("{message}");
                std::process::exit(1);
            }
        }
    }

    /// As [`Builder::generate`], handing back the error instead of failing
    /// the build.
    pub fn try_generate(self) -> Result<Output, String> {
        let dir = env_path("CARGO_MANIFEST_DIR")?;
        let out_dir = env_path("OUT_DIR")?;
        self.generate_into(&dir, &out_dir, &mut std::io::stdout())
    }

    /// The run, with the crate's directory, `OUT_DIR` and cargo's channel
    /// given: what [`Builder::try_generate`] does with the build's own.
    fn generate_into(
        self,
        dir: &Path,
        out_dir: &Path,
        cargo: &mut dyn std::io::Write,
    ) -> Result<Output, String> {
        let say = |cargo: &mut dyn std::io::Write, line: String| {
            writeln!(cargo, "{line}").map_err(|e| format!("cannot talk to cargo: {e}"))
        };
        let manifest = dir.join("Cargo.toml");
        say(
            cargo,
            format!("cargo:rerun-if-changed={}", manifest.display()),
        )?;
        let spec = dir.join(&self.spec);
        // Watched before it is read: a document that fails to read or
        // generate is looked at again once it changes.
        say(cargo, format!("cargo:rerun-if-changed={}", spec.display()))?;
        if !is_identifier(&self.module) {
            return Err(format!(
                "apigen::build: module `{}` is not a Rust identifier",
                self.module
            ));
        }
        let config = self
            .options
            .config("cargo build", &self.spec.display().to_string());
        let mut generated = crate::generate_file(&spec, &config).map_err(|d| d.to_string())?;
        for source in generated.sources.iter().skip(1) {
            say(
                cargo,
                format!("cargo:rerun-if-changed={}", source.display()),
            )?;
        }
        let skipped = generated.skipped.iter().map(|d| ("skipped", d));
        let notes = generated.notes.iter().map(|d| ("note", d));
        for (kind, d) in skipped.chain(notes.filter(|_| self.notes)) {
            // One line per warning: cargo reads the rest as another.
            let message = d.message.replace(['\r', '\n'], " ");
            say(
                cargo,
                format!(
                    "cargo:warning={}: {kind}: {message} ({})",
                    self.spec.display(),
                    d.location
                ),
            )?;
        }
        if self.check_manifest {
            let wanted = standalone::manifest_sections(
                &self.options,
                &standalone::group_features(&generated.api),
                &standalone::macros_on_registry(),
            );
            let text = std::fs::read_to_string(&manifest)
                .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
            check_manifest(&text, &wanted)
                .map_err(|missing| missing_message(&manifest, &missing, &wanted))?;
        }
        let modules = out_dir.join("apigen").join(&self.module);
        let files = std::mem::take(&mut generated.files);
        crate::sync::sync(&modules, &files, "", crate::sync::Mode::Write)?;
        let include = out_dir.join(format!("{}.rs", self.module));
        let root = modules.join("mod.rs");
        let root = root
            .to_str()
            .ok_or_else(|| format!("OUT_DIR is not UTF-8: {}", root.display()))?;
        let text = format!(
            "// @generated by apigen::build from {}: the modules of the API, as\n\
             // `apigen generate` writes them, included with\n\
             // `include!(concat!(env!(\"OUT_DIR\"), \"/{}.rs\"));`.\n\n\
             #[rustfmt::skip]\n#[path = {root:?}]\nmod generated;\n\npub use generated::*;\n",
            self.spec.display(),
            self.module
        );
        write_if_changed(&include, &text)?;
        Ok(Output { include, generated })
    }
}

fn env_path(name: &str) -> Result<PathBuf, String> {
    std::env::var_os(name).map(PathBuf::from).ok_or_else(|| {
        format!("apigen::build: {name} is not set; call it from a build script (build.rs)")
    })
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Writes `text` unless the file holds it already, so that cargo and
/// rustc see an unchanged file as unchanged.
fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// What the crate's manifest lacks of `wanted` (a generated crate's
/// `[features]` and `[dependencies]`): each feature but `default`, with at
/// least what it turns on there, and each dependency, by name (its
/// version and features are the crate's to choose, or its workspace's: on
/// the runtime crate, `apigen-runtime` by version, path or workspace).
fn check_manifest(text: &str, wanted: &str) -> Result<(), Vec<String>> {
    let parse = |text: &str| text.parse::<toml::Table>();
    let have = parse(text).map_err(|e| vec![format!("the manifest is not TOML: {e}")])?;
    let wanted = parse(wanted).map_err(|e| vec![format!("(a bug) {e}")])?;
    let table = |t: &toml::Table, key: &str| t.get(key).and_then(|v| v.as_table()).cloned();
    let have_features = table(&have, "features").unwrap_or_default();
    let have_dependencies = table(&have, "dependencies").unwrap_or_default();
    let strings = |v: &toml::Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let mut missing = Vec::new();
    for (feature, enables) in table(&wanted, "features").unwrap_or_default() {
        if feature == "default" {
            continue;
        }
        let Some(declared) = have_features.get(&feature) else {
            missing.push(format!("feature `{feature}`"));
            continue;
        };
        let declared = strings(declared);
        let lacking: Vec<String> = strings(&enables)
            .into_iter()
            .filter(|e| !declared.contains(e))
            .collect();
        if !lacking.is_empty() {
            missing.push(format!(
                "feature `{feature}` turning on {}",
                lacking.join(", ")
            ));
        }
    }
    for (name, _) in table(&wanted, "dependencies").unwrap_or_default() {
        if !have_dependencies.contains_key(&name) {
            missing.push(format!("dependency `{name}`"));
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

fn missing_message(manifest: &Path, missing: &[String], wanted: &str) -> String {
    let mut out = format!(
        "error: {} lacks what the generated code uses:\n",
        manifest.display()
    );
    for item in missing {
        let _ = writeln!(out, "  - {item}");
    }
    let _ = write!(
        out,
        "A crate generated by `apigen generate` declares these (keep your own `default`, \
         and the versions and features you already pin):\n\n{wanted}"
    );
    out
}

#[cfg(test)]
mod tests;
