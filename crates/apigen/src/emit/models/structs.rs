//! A struct: its fields, defaults and `Validate` impl; its record in
//! [`super::record`].

use super::record::{record, Reading, Slots};
use super::{field_type, is_optional, three_state, to_snake, type_docs_text};
use crate::emit::gates::ImplCfg;
use crate::emit::literals::default_expr;
use crate::emit::text::{self, Expr, Pieces};
use crate::emit::validation::{check_expr, check_fn};
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

/// How a field without a default Rust can spell is read and written.
fn reading(f: &Field) -> Reading {
    if three_state(f) {
        Reading::ThreeState
    } else if f.required && f.shape.nullable && !f.read_only && !f.write_only {
        Reading::RequiredNullable
    } else if is_optional(f) && f.shape.nullable {
        Reading::OptionalNullable
    } else if is_optional(f) {
        Reading::Optional
    } else if matches!(f.shape.ty, Ty::Array(_)) && !f.boxed {
        Reading::RequiredList
    } else {
        Reading::Required
    }
}

/// A struct's `Validate` impl, where a request can carry it: each field's
/// checks, and the additional properties'.
fn struct_validate(api: &Api, def: &TypeDef, s: &Struct, cfg: &str) -> Option<String> {
    let checks = s.fields.iter().map(|f| field_check(api, f));
    let additional_check = s.additional.as_ref().and_then(|shape| {
        let wrapped = crate::ir::Shape::new(Ty::Map(Box::new(shape.clone())));
        check_expr("&self.additional_properties", &wrapped, api)
            .map(|c| Expr::Stmt(String::new(), Box::new(c), "?;"))
    });
    let checks: Vec<Expr> = checks.flatten().chain(additional_check).collect();
    validate_impl(api, def, cfg, checks)
}

/// A struct, its defaults, its record and serde impls (written as text)
/// and its `Validate` impl.
pub(super) fn structure(
    api: &Api,
    def: &TypeDef,
    s: &Struct,
    cfg: &str,
    serde: &[ImplCfg; 2],
    pieces: &mut Pieces,
) {
    let docs = type_docs_text(def, cfg);
    // Printed by prettyplease, which lays each out by its length.
    let mut defaults = String::new();
    // Per named property: its field, wire name, reading and plain type.
    let mut named: Vec<(proc_macro2::Ident, &str, Reading, String)> = Vec::new();
    let mut flattened: Vec<proc_macro2::Ident> = Vec::new();
    // The indices in `named` of the properties the flattened parts read too.
    let mut shared: Vec<usize> = Vec::new();
    // Those that admit null and have no text `null` (`runtime::NullText`).
    let mut null_text: Vec<usize> = Vec::new();
    let mut fields: Vec<String> = s
        .fields
        .iter()
        .map(|f| {
            let fname = ident(&f.rust);
            let mut paragraphs = field_paragraphs(f);
            let plain = rust_type(&f.shape, "");
            let plain = if f.boxed {
                format!("Box<{plain}>")
            } else {
                plain
            };
            if f.flatten {
                let ty = field_type(f);
                let docs = text::doc_text(std::slice::from_ref(&f.doc), "    ");
                flattened.push(fname.clone());
                return format!("{docs}    pub {fname}: {ty},\n");
            }
            let (reading, ty) = if let Some(expr) = spelled_default(api, f) {
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
                (Reading::Defaulted(fn_name), plain.clone())
            } else {
                if let Some(value) = &f.default {
                    paragraphs.push(Some(format!("Defaults to `{value}` when absent.")));
                }
                (reading(f), field_type(f))
            };
            if f.shared {
                shared.push(named.len());
            }
            let nullable_slot = matches!(
                reading,
                Reading::OptionalNullable | Reading::RequiredNullable | Reading::ThreeState
            );
            if nullable_slot && !text_may_be_null(api, &f.shape) {
                null_text.push(named.len());
            }
            named.push((fname.clone(), f.wire.as_str(), reading, plain));
            let docs = text::doc_text(&paragraphs, "    ");
            format!("{docs}    pub {fname}: {ty},\n")
        })
        .collect();
    if let Some(shape) = &s.additional {
        let ty = rust_type(shape, "");
        fields.push(format!(
            "    /// Properties beyond the named ones.\n    \
             pub additional_properties: std::collections::BTreeMap<String, {ty}>,\n"
        ));
    }
    let validate = struct_validate(api, def, s, cfg);
    let body = if fields.is_empty() {
        "{}\n".to_string()
    } else {
        format!("{{\n{}}}\n", fields.concat())
    };
    pieces.text(&format!(
        "{docs}#[derive(Debug, Clone, PartialEq)]\npub struct {} {body}",
        def.name
    ));
    pieces.printed(&defaults);
    let slots = Slots {
        named: &named,
        flattened: &flattened,
        shared: &shared,
        null_text: &null_text,
    };
    let mut record = record(def, s, &slots, serde);
    if let Some(validate) = validate {
        record.push('\n');
        record.push_str(&validate);
    }
    pieces.text(&record);
}

/// A checked type's `Validate` impl, running `checks` (statements that
/// return a violation), as text; nothing for a type no value of which can
/// break a bound ([`Api::checked`]).
pub(super) fn validate_impl(
    api: &Api,
    def: &TypeDef,
    cfg: &str,
    checks: Vec<Expr>,
) -> Option<String> {
    api.checked.contains(&def.name).then(|| {
        crate::emit::validation::validate_impl(&ident(&def.name).to_string(), cfg, &checks)
    })
}

/// The default of an optional field, when Rust can spell it: the field is then
/// the plain type, filled in by serde when absent.
fn spelled_default(api: &Api, f: &Field) -> Option<String> {
    if f.required || f.shape.nullable || f.read_only || f.write_only || f.boxed {
        return None;
    }
    default_expr(f.default.as_ref()?, &f.shape, api, "")
}

/// The statements that check one field, with the field's wire name in
/// errors.
fn field_check(api: &Api, f: &Field) -> Vec<Expr> {
    let name = ident(&f.rust);
    let wire = text::string_literal(&f.wire);
    let refuse = |test: &str, message: &str| Expr::Scope {
        head: format!("if self.{name}.{test}()"),
        body: vec![Expr::text(format!(
            "return Err(runtime::Violation::new(\"{message}\").within({wire}));"
        ))],
        tail: "",
    };
    if f.read_only {
        return vec![refuse("is_some", "is read-only")];
    }
    let mut statements = Vec::new();
    // Required in requests, the one place it travels.
    if f.write_only && f.required && !f.shape.nullable {
        statements.push(refuse("is_none", "is required"));
    }
    let field = format!("&self.{name}");
    let check = if three_state(f) {
        check_fn("value", &f.shape, api).map(|inner| {
            Expr::call(
                "runtime::check_nullable",
                vec![Expr::text(field), inner],
                "",
            )
        })
    } else if is_optional(f) && spelled_default(api, f).is_none() {
        check_fn("value", &f.shape, api)
            .map(|inner| Expr::call("runtime::check_some", vec![Expr::text(field), inner], ""))
    } else {
        check_expr(&field, &f.shape, api)
    };
    if let Some(check) = check {
        statements.push(Expr::Stmt(
            String::new(),
            Box::new(Expr::call(
                "runtime::within",
                vec![Expr::Text(wire), check],
                "?",
            )),
            ";",
        ));
    }
    statements
}
