//! A spec-agnostic OpenAPI 3.0 code generator for Rust servers.
//!
//! The pipeline has three stages, each in its own module:
//!
//! 1. [`load`]: text -> `openapiv3::OpenAPI` (YAML or JSON; syntax errors carry a
//!    line and column, structural ones a JSON pointer);
//! 2. [`lower`]: `OpenAPI` -> [`ir::Api`], where references are resolved, `allOf`
//!    merged, and every name is a unique Rust identifier;
//! 3. [`emit`]: `ir::Api` -> formatted Rust source files.
//!
//! Every stage reports problems as [`Diagnostic`]s and keeps going, so one run lists
//! all of a document's errors. Nothing here panics on a document.

pub mod diag;
pub mod emit;
pub mod ir;
pub mod load;
pub mod lower;
pub mod names;
mod schema_view;

pub use diag::{Diagnostic, Diagnostics, Location};

use std::collections::BTreeMap;

/// Generated files, by path relative to the output directory, in a stable order.
pub type Files = BTreeMap<String, String>;

/// Settings of one generation run.
#[derive(Debug, Clone)]
pub struct Config {
    /// The command that regenerates the output, named in each file's preamble.
    pub command: String,
    /// The document's path as the preamble names it (`spec/openapi.yaml`).
    pub source: String,
}

/// Runs the whole pipeline over the text of a document. `file` names the
/// document in diagnostics.
pub fn generate(file: &str, text: &str, config: &Config) -> Result<Files, Diagnostics> {
    let fail = |errors| Diagnostics {
        file: file.to_string(),
        errors,
    };
    let doc = load::parse(text).map_err(fail)?;
    let api = lower::lower(&doc).map_err(fail)?;
    Ok(emit::emit(&api, config))
}
