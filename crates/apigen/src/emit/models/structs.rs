//! A struct: its fields with the attributes its derives read, and its
//! defaults.

use super::{field_type, three_state, to_snake, type_docs_text};
use crate::emit::gates::ImplCfg;
use crate::emit::literals::default_expr;
use crate::emit::text::{self, Pieces};
use crate::emit::validation::{attribute as attribute_words, checks};
use crate::emit::{ident, rust_type};
use crate::ir::{Api, Field, Struct, Ty, TypeDef, TypeKind};
use quote::format_ident;

/// Whether the text `null` may be a value of the shape itself (a string
/// without a format, an enum that lists it, any JSON), so that a form's
/// `null` cannot mean null.
fn text_may_be_null(api: &Api, shape: &crate::ir::Shape) -> bool {
    match &shape.ty {
        Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 | Ty::DateTime | Ty::Date | Ty::Uuid => {
            false
        }
        // No format's text (a URI, an email address, a duration) is `null`;
        // other checks may refuse it too.
        Ty::String => {
            let c = &shape.checks;
            c.format.is_none()
                && c.min_length.is_none_or(|min| min <= 4)
                && c.max_length.is_none_or(|max| max >= 4)
                && c.pattern.as_deref().is_none_or(|p| {
                    regex::Regex::new(p).is_ok_and(|pattern| pattern.is_match("null"))
                })
                && !c.not_in.iter().any(|v| v.as_str() == Some("null"))
        }
        Ty::Named(name) => match crate::lower::resolve(&api.types, name).map(|d| &d.kind) {
            Some(TypeKind::Enum(variants)) => variants.iter().any(|v| v.wire == "null"),
            // `resolve` ends at a shape of no named type.
            Some(TypeKind::Alias(inner)) => text_may_be_null(api, inner),
            _ => true,
        },
        _ => true,
    }
}

/// A field's doc paragraphs: the spec's description, and what its
/// read-only, write-only and deprecated flags mean.
fn field_paragraphs(f: &Field) -> Vec<Option<String>> {
    vec![
        f.doc.clone(),
        f.read_only
            .then(|| "Read-only: sent by the server, refused in requests.".to_string()),
        f.write_only
            .then(|| "Write-only: accepted in requests, never sent back.".to_string()),
        f.deprecated.then(|| "**Deprecated.**".to_string()),
    ]
}

/// How a field without a default Rust can spell is read and written, as
/// its `#[wire(...)]` flags say it (its type says the rest: a plain field
/// is required, an `Option` optional, a `Nullable` three-state).
fn reading(f: &Field) -> &'static [&'static str] {
    // A nullable field is an `Option` (or, three-state, a `Nullable`).
    if !f.shape.nullable || three_state(f) {
        &[]
    } else if f.required && !f.read_only && !f.write_only {
        &["required", "nullable"]
    } else {
        &["nullable"]
    }
}

/// A struct: its fields, with the attributes its derives read where the
/// wire differs from the Rust, and its defaults' functions. Its serde and
/// `Validate` impls are derived (`apigen-macros`).
pub(super) fn structure(
    api: &Api,
    def: &TypeDef,
    s: &Struct,
    cfg: &str,
    serde: &[ImplCfg; 2],
    sides: &[Option<String>; 2],
    pieces: &mut Pieces,
) {
    let docs = type_docs_text(def, cfg);
    // Only a type a request can carry is checked ([`Api::checked`]).
    let checked = api.checked.contains(&def.name);
    // Printed by prettyplease, which lays each out by its length.
    let mut defaults = String::new();
    let mut fields: Vec<String> = s
        .fields
        .iter()
        .map(|f| {
            let fname = ident(&f.rust);
            let mut paragraphs = field_paragraphs(f);
            if f.flatten {
                let ty = field_type(f);
                let docs = text::doc_text(std::slice::from_ref(&f.doc), "    ");
                return format!("{docs}    #[wire(flatten)]\n    pub {fname}: {ty},\n");
            }
            let mut wire: Vec<String> = Vec::new();
            if f.wire != fname.to_string().trim_start_matches("r#") {
                wire.push(format!("rename = {}", text::string_literal(&f.wire)));
            }
            let ty = if let Some(expr) = spelled_default(api, f) {
                let plain = rust_type(&f.shape, "");
                let value = f.default.as_ref().expect("a spelled default has a value");
                let fn_name = format_ident!(
                    "default_{}_{}",
                    to_snake(&def.name),
                    f.rust.trim_end_matches('_')
                );
                // Only reading fills a default in.
                let read = serde[1].line();
                defaults.push_str(&format!("{read}fn {fn_name}() -> {plain} {{ {expr} }}\n"));
                paragraphs.push(Some(format!("Defaults to `{value}`.")));
                wire.push(format!("default = \"{fn_name}\""));
                plain
            } else {
                if let Some(value) = &f.default {
                    paragraphs.push(Some(format!("Defaults to `{value}` when absent.")));
                }
                wire.extend(reading(f).iter().map(|flag| flag.to_string()));
                field_type(f)
            };
            if f.shared {
                wire.push("shared".into());
            }
            // Every nullable field's slot tells `null` from absent.
            if f.shape.nullable && !text_may_be_null(api, &f.shape) {
                wire.push("null_text".into());
            }
            let docs = text::doc_text(&paragraphs, "    ");
            let wire = attribute("wire", &wire);
            let check = if checked {
                attribute("check", &field_checks(api, f))
            } else {
                String::new()
            };
            format!("{docs}{wire}{check}    pub {fname}: {ty},\n")
        })
        .collect();
    if let Some(shape) = &s.additional {
        let ty = rust_type(shape, "");
        let wrapped = crate::ir::Shape::new(Ty::Map(Box::new(shape.clone())));
        let checks: Vec<String> = check_attribute(&wrapped, api)
            .filter(|_| checked)
            .into_iter()
            .collect();
        fields.push(format!(
            "    /// Properties beyond the named ones.\n    #[wire(additional)]\n{}    \
             pub additional_properties: std::collections::BTreeMap<String, {ty}>,\n",
            attribute("check", &checks)
        ));
    }
    let body = if fields.is_empty() {
        "{}\n".to_string()
    } else {
        format!("{{\n{}}}\n", fields.concat())
    };
    let derives = model_derives(checked);
    let mut wire = sided(sides);
    if s.deny_unknown {
        wire.insert(0, "deny_unknown".into());
    }
    pieces.text(&format!(
        "{docs}{}{}pub struct {} {body}",
        derive_line(&derives),
        attribute_line("wire", &wire, ""),
        def.name
    ));
    pieces.printed(&defaults);
}

/// What a struct or union derives: the standard traits a person would, serde
/// both ways through the runtime, and `Validate` when `checked`.
pub(super) fn model_derives(checked: bool) -> Vec<&'static str> {
    let mut derives = vec![
        "Debug",
        "Clone",
        "PartialEq",
        "runtime::Serialize",
        "runtime::Deserialize",
    ];
    if checked {
        derives.push("runtime::Validate");
    }
    derives
}

/// The `#[wire(...)]` words that compile a type's serde impls only for
/// the sides that use them: `write_if(...)` and `read_if(...)`.
pub(super) fn sided(sides: &[Option<String>; 2]) -> Vec<String> {
    let [write, read] = sides;
    let mut words = Vec::new();
    if let Some(write) = write {
        words.push(format!("write_if({write})"));
    }
    if let Some(read) = read {
        words.push(format!("read_if({read})"));
    }
    words
}

/// `#[derive(...)]` of `derives`, laid out as rustfmt would: on one line
/// when it fits.
pub(super) fn derive_line(derives: &[&str]) -> String {
    let one = format!("#[derive({})]\n", derives.join(", "));
    if one.len() <= text::WIDTH + 1 {
        return one;
    }
    format!("#[derive(\n    {},\n)]\n", derives.join(", "))
}

/// A field's `#[name(...)]` attribute of `words`, or nothing.
fn attribute(name: &str, words: &[String]) -> String {
    attribute_line(name, words, "    ")
}

/// `#[name(...)]` of `words` at `indent`, or nothing when there are none:
/// on one line when it fits, else a word a line.
pub(super) fn attribute_line(name: &str, words: &[String], indent: &str) -> String {
    if words.is_empty() {
        return String::new();
    }
    let one = format!("{indent}#[{name}({})]\n", words.join(", "));
    if one.len() <= text::WIDTH + 1 {
        return one;
    }
    let lines: String = words
        .iter()
        .map(|word| format!("{indent}    {word},\n"))
        .collect();
    format!("{indent}#[{name}(\n{lines}{indent})]\n")
}

/// The `#[check(...)]` words of a value of `shape`, or `None`.
fn check_attribute(shape: &crate::ir::Shape, api: &Api) -> Option<String> {
    let checks = checks(shape, api);
    (!checks.is_empty()).then(|| attribute_words(&checks))
}

/// The default of an optional field, when Rust can spell it: the field is then
/// the plain type, filled in by serde when absent.
fn spelled_default(api: &Api, f: &Field) -> Option<String> {
    if f.required || f.shape.nullable || f.read_only || f.write_only || f.boxed {
        return None;
    }
    default_expr(f.default.as_ref()?, &f.shape, api, "")
}

/// The `#[check(...)]` words of one field: refused when read-only,
/// required when write-only and required, and its value's checks (run on
/// the value an `Option` or `Nullable` holds).
fn field_checks(api: &Api, f: &Field) -> Vec<String> {
    if f.read_only {
        return vec!["read_only".into()];
    }
    let mut words = Vec::new();
    // Required in requests, the one place it travels.
    if f.write_only && f.required && !f.shape.nullable {
        words.push("required".into());
    }
    words.extend(check_attribute(&f.shape, api));
    words
}
