//! A spec-agnostic OpenAPI code generator for Rust: from an OpenAPI 3.0,
//! 3.1 or 3.2 document, serde models, one route trait per tag with glue
//! for servers on actix-web and on axum, a typed client, operation metadata and a reference page;
//! and the evolution gate ([`diff`]) that judges a change to a document.
//!
//! The pipeline has four stages, each in its own module:
//!
//! 1. [`load`]: text -> `openapiv3::OpenAPI` (YAML or JSON; syntax errors carry a
//!    line and column, structural ones a JSON pointer). Before the typed
//!    parse, [`normalize`] brings a 3.1 document to the 3.0 shape, the
//!    bundler inlines references into other files or odd places, and the
//!    repairs make the common deviations readable, each one reported;
//! 2. [`lower`]: `OpenAPI` -> [`ir::Api`], where references are resolved, `allOf`
//!    merged, unions decided, and every name is a unique Rust identifier;
//! 3. [`emit`]: `ir::Api` -> formatted Rust source files;
//! 4. [`sync`]: the files written to a directory, or checked against it.
//!
//! Every stage reports problems as [`Diagnostic`]s and keeps going, so one run lists
//! all of a document's errors. Nothing here panics on a document.

// The docs show a build script, whose `fn main` is the point.
#[allow(clippy::needless_doctest_main)]
pub mod build;
mod bundle;
pub mod diag;
pub mod diff;
pub mod emit;
pub mod ir;
pub mod load;
pub mod lower;
#[path = "../runtime/src/media.rs"]
pub mod media;
pub mod names;

mod schema_view;
pub mod source;
pub mod standalone;
pub mod sync;
/// The words generated code and the runtime share (stability, parameter
/// styles): the runtime's own definition, compiled here too, so that the
/// names the generator emits are the ones the runtime defines.
#[path = "../runtime/src/vocabulary.rs"]
pub mod vocabulary;

pub use diag::{Diagnostic, Diagnostics, Location};

use std::collections::BTreeMap;

/// Generated files, by path relative to the output directory, in a stable order.
pub type Files = BTreeMap<String, String>;

/// Settings of one generation run.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The command that regenerates the output, named in each file's preamble.
    pub command: String,
    /// The document's path as the preamble names it (`spec/openapi.yaml`).
    pub source: String,
    /// Where generated code finds its runtime support code.
    pub runtime: Runtime,
    /// Skip an operation (or schema) the generator cannot express, reporting it
    /// in [`Generated::skipped`], instead of failing the whole document.
    pub lenient: bool,
    /// Check `format: email`, `uri` and `duration` strings in generated
    /// validation (they are `String` either way).
    pub check_formats: bool,
    /// Compile each group of operations (a route trait) under a Cargo
    /// feature of its own, with the types it reaches: for a crate that
    /// declares the features ([`standalone`] writes them into its
    /// manifest).
    pub group_features: bool,
    /// Compile a model's `Serialize` and `Deserialize` only for the sides
    /// that use them (a client writes requests and reads responses, a
    /// server the other way round; the `serialize` and `deserialize`
    /// features add the rest). Off by default: every model is an ordinary
    /// serde type both ways. On, a client-only build of a large API checks
    /// in about a seventh less time and memory (BENCHMARKS.md).
    pub serde_sides: bool,
}

/// Where generated code finds `apigen-runtime`, which it names `runtime::`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Runtime {
    /// The `apigen-runtime` crate is a dependency of the generated crate.
    #[default]
    Crate,
    /// Its sources are written beside the generated files, as the module
    /// `runtime/`, so that the generated crate builds on its own.
    Vendored,
}

/// The output of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub files: Files,
    /// What a lenient run left out, each with its location and reason.
    pub skipped: Vec<Diagnostic>,
    /// What was read but is not enforced, or what became of it (a 3.1
    /// keyword with no 3.0 equivalent, a webhook), each at its location.
    pub notes: Vec<Diagnostic>,
    /// The lowered API the files were emitted from.
    pub api: ir::Api,
    /// Time spent in each stage, for benchmarks.
    pub timings: Vec<(&'static str, std::time::Duration)>,
    /// The files the document was read from, when it was read from disk
    /// ([`generate_file`]): itself and every file its references name.
    pub sources: Vec<std::path::PathBuf>,
}

impl Generated {
    /// Operations generated.
    pub fn operations(&self) -> usize {
        self.api.operations.len()
    }

    /// Named types generated.
    pub fn types(&self) -> usize {
        self.api.types.len()
    }

    /// What was left out and what was noted, a line each
    /// (`skipped: MESSAGE (LOCATION)`, `note: ...`), for a tool to print.
    pub fn remarks(&self) -> impl Iterator<Item = String> + '_ {
        let skipped = self.skipped.iter().map(|s| ("skipped", s));
        let notes = self.notes.iter().map(|n| ("note", n));
        skipped
            .chain(notes)
            .map(|(kind, d)| format!("{kind}: {} ({})", d.message, d.location))
    }
}

/// Runs the whole pipeline over the text of a self-contained document. `file`
/// names the document in diagnostics.
pub fn generate(file: &str, text: &str, config: &Config) -> Result<Generated, Diagnostics> {
    let fail = |errors| Diagnostics {
        file: file.to_string(),
        errors,
    };
    let started = std::time::Instant::now();
    let value = load::syntax(text).map_err(fail)?;
    run(file, value, config, vec![("parse", started.elapsed())])
}

/// Runs the whole pipeline over a document on disk, following references to
/// other files relative to it.
pub fn generate_file(path: &std::path::Path, config: &Config) -> Result<Generated, Diagnostics> {
    let file = path.display().to_string();
    let started = std::time::Instant::now();
    let fail = |errors| Diagnostics {
        file: file.clone(),
        errors,
    };
    let text = bundle::read(path).map_err(fail)?;
    let (value, others) = bundle::bundle_text(path, &text).map_err(fail)?;
    let mut generated = run(&file, value, config, vec![("parse", started.elapsed())])?;
    generated.sources = std::iter::once(path.to_path_buf()).chain(others).collect();
    Ok(generated)
}

/// The document on disk at `path` as one self-contained document: what
/// its references to other files name, copied into its `components`.
pub fn bundled(path: &std::path::Path) -> Result<serde_yaml::Value, Diagnostics> {
    bundle::bundle(path).map_err(|errors| Diagnostics {
        file: path.display().to_string(),
        errors,
    })
}

fn run(
    file: &str,
    value: serde_yaml::Value,
    config: &Config,
    mut timings: Vec<(&'static str, std::time::Duration)>,
) -> Result<Generated, Diagnostics> {
    let fail = |errors| Diagnostics {
        file: file.to_string(),
        errors,
    };
    let mut stage = std::time::Instant::now();
    let mut lap = |name: &'static str, timings: &mut Vec<_>| {
        timings.push((name, stage.elapsed()));
        stage = std::time::Instant::now();
    };
    let doc = load::from_value(value).map_err(fail)?;
    lap("load", &mut timings);
    let options = lower::Options {
        lenient: config.lenient,
        check_formats: config.check_formats,
        share_structs: true,
    };
    let lower::Lowered {
        api,
        skipped,
        notes,
    } = lower::lower(&doc, options).map_err(fail)?;
    // Nothing reads the document past lowering: its memory goes back
    // before emission takes the most.
    drop(doc);
    lap("lower", &mut timings);
    let files = emit::emit(&api, config);
    lap("emit", &mut timings);
    Ok(Generated {
        files,
        skipped,
        notes,
        api,
        timings,
        sources: Vec::new(),
    })
}
