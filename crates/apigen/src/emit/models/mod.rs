//! `models.rs`: one Rust type per named schema, with doc comments from the
//! spec, deriving its serde impls and, where a request can carry the type
//! and the schema bounds something ([`Api::checked`]), `Validate`.
//!
//! Only requests are validated (the glue on the way in, the client on the way
//! out), so a type only responses hold has no `Validate`. A model is its type
//! and one derive line of the runtime's derives (`apigen-macros`), with
//! `#[wire(...)]` and `#[check(...)]` attributes only where the wire differs
//! from the Rust or the schema bounds a value. The derives expand to what
//! such a type held written out: a struct implements `runtime::Record` (its
//! wire names, a slot per field, how each is filled and finished), and its
//! `Serialize` and `Deserialize` impls are a few lines over
//! `runtime::read_record` and `runtime::Writer` (a struct in JSON, every
//! property in order in a format that is not self-describing). A string
//! enum implements `runtime::StringEnum` and has an `Unknown` variant for
//! values the spec does not list. Serde's derive would expand each type
//! into hundreds of lines the compiler then type-checks, once per type; the
//! runtime's generic reader is compiled once (on Stripe's crate this cut
//! `cargo check` time by 60%, see BENCHMARKS.md). Reading is tolerant
//! unless `runtime::strictly`: the glue reads requests and writes answers
//! strictly, a client only when told.
//!
//! An object that is also one of several shapes (`oneOf` beside `properties`)
//! holds the union as a flattened field read from the properties it does not
//! name, and from those it shares with the union (`Field::shared`, marked in
//! `lower/passes.rs`). A property that admits null and has no text `null` of
//! its own (a number, a date) is read through `runtime::NullText`, so that a
//! form's or multipart's `null` is null.

mod case;
mod enums;
mod structs;
mod unions;

use super::gates::Gates;
use super::text::{self, Pieces};
use super::validation::{attribute, checks};
use super::{ident, rust_type};
use crate::ir::{Api, Field, TypeDef, TypeKind};
use enums::enumeration;
use structs::{derive_line, structure};
use unions::union;

/// The module's doc comment.
pub const DOC: &str = "Models: one type per schema of the spec.";

/// What the module imports: the runtime, when a type has an impl calling
/// it (every struct, enum and union, and a checked newtype) or an alias
/// names a runtime type; under the features that compile such a type in.
pub fn imports(api: &Api, gates: &Gates) -> Vec<String> {
    let using: Vec<&str> = api
        .types
        .values()
        .filter(|t| match &t.kind {
            TypeKind::Alias(shape) => super::uses_runtime(shape),
            TypeKind::Newtype { shape, .. } => {
                api.checked.contains(&t.name) || super::uses_runtime(shape)
            }
            _ => true,
        })
        .map(|t| t.name.as_str())
        .collect();
    if using.is_empty() {
        Vec::new()
    } else {
        vec![gates.types_import("use super::runtime;", using)]
    }
}

/// The items for some of the named types (the file is rendered in chunks),
/// each under the `cfg` of the features that compile it in. Structs and
/// enums, whose items have a fixed shape, are written as text.
pub fn items(api: &Api, gates: &Gates, defs: &[&TypeDef]) -> String {
    let mut pieces = Pieces::default();
    for def in defs {
        let own = gates.of_type(&def.name);
        let serde = gates.serde_cfgs(&def.name, own.as_deref());
        let sides = gates.serde_sides(&def.name);
        let cfg = Gates::attr(own);
        match &def.kind {
            TypeKind::Struct(s) => structure(api, def, s, &cfg, &serde, &sides, &mut pieces),
            TypeKind::Enum(variants) => pieces.text(&enumeration(def, variants, &cfg, &sides)),
            TypeKind::Union(u) => {
                let docs = text::doc_text(&type_paragraphs(def), "");
                pieces.text(&union(api, def, u, &docs, &text::cfg_line(&cfg), &sides));
            }
            TypeKind::Alias(shape) => {
                let ty = rust_type(shape, "");
                let name = ident(&def.name).to_string();
                pieces.text(&(type_docs_text(def, &cfg) + &text::type_alias(&name, &ty)));
            }
            TypeKind::Newtype { shape, boxed } => {
                pieces.text(&newtype(api, def, shape, *boxed, &cfg));
            }
        }
    }
    pieces.finish()
}

/// A type's doc paragraphs: its description, and whether it is deprecated.
fn type_paragraphs(def: &TypeDef) -> [Option<String>; 2] {
    let deprecated = def.deprecated.then(|| "**Deprecated.**".to_string());
    [def.doc.clone(), deprecated]
}

/// A type's doc comment and `cfg` attribute, as text.
fn type_docs_text(def: &TypeDef, cfg: &str) -> String {
    text::doc_text(&type_paragraphs(def), "") + &text::cfg_line(cfg)
}

/// A struct wrapping a shape that leads back to itself, read and written
/// as that shape (serde's own derive: one field), and checked as it is.
fn newtype(api: &Api, def: &TypeDef, shape: &crate::ir::Shape, boxed: bool, cfg: &str) -> String {
    let ty = rust_type(shape, "");
    let ty = if boxed { format!("Box<{ty}>") } else { ty };
    let mut derives = vec![
        "Debug",
        "Clone",
        "PartialEq",
        "serde::Serialize",
        "serde::Deserialize",
    ];
    let checks = checks(shape, api);
    let checked = api.checked.contains(&def.name);
    if checked {
        derives.push("runtime::Validate");
    }
    let field = if checked && !checks.is_empty() {
        format!("#[check({})] pub {ty}", attribute(&checks))
    } else {
        format!("pub {ty}")
    };
    format!(
        "{}{}#[serde(transparent)]\npub struct {}({field});\n",
        type_docs_text(def, cfg),
        derive_line(&derives),
        ident(&def.name)
    )
}

fn field_type(f: &Field) -> String {
    let ty = rust_type(&f.shape, "");
    let ty = if f.boxed { format!("Box<{ty}>") } else { ty };
    if three_state(f) {
        format!("runtime::Nullable<{ty}>")
    } else if is_optional(f) {
        format!("Option<{ty}>")
    } else {
        ty
    }
}

/// A field is an `Option` when it may be absent or null, and when it is
/// read-only or write-only (clients never send the one, servers never send
/// the other back, whatever `required` says; a required write-only field
/// is checked present in requests).
fn is_optional(f: &Field) -> bool {
    !f.required || f.shape.nullable || f.read_only || f.write_only
}

/// A field that may be absent and may be `null`, and where the two mean
/// different things (PATCH-style bodies): `runtime::Nullable`, not `Option`.
fn three_state(f: &Field) -> bool {
    !f.required && f.shape.nullable && !f.read_only && !f.write_only && !f.flatten
}

fn to_snake(name: &str) -> String {
    crate::names::sanitize(name, crate::names::Case::Snake)
}

#[cfg(test)]
mod tests;
