//! A union (`oneOf`, `anyOf`): one variant per shape, read by its
//! discriminator or by trying each. Its impls are derived
//! (`apigen-macros`); what the derive cannot see (the variants' own
//! schemas) is written in their attributes: which tag values name each,
//! when each is tried, and what an object must hold to be tried as one.

use super::structs::{attribute_line, derive_line, model_derives, sided};
use crate::emit::text::{self, string_literal as lit};
use crate::emit::validation::{attribute, checks};
use crate::emit::{ident, rust_type};
use crate::ir::{Api, Ty, TypeDef, TypeKind, Union};

/// A union's enum, deriving its serde impls (by the discriminator's value,
/// or the variants that read the value) and, where a request can carry it,
/// `Validate`: `docs` and `cfg` are attributes' text.
pub(super) fn union(
    api: &Api,
    def: &TypeDef,
    u: &Union,
    docs: &str,
    cfg: &str,
    sides: &[Option<String>; 2],
) -> String {
    let name = ident(&def.name);
    let checked = api.checked.contains(&def.name);
    let optional_tag = u
        .tag
        .as_ref()
        .is_some_and(|tag| !u.variants.iter().all(|v| requires(api, &v.shape, tag)));
    // Whether the variants are tried by their structure: without a tag, or
    // when the tag may be absent. Only then do their tiers and what an
    // object must hold matter.
    let structural = u.tag.is_none() || optional_tag;
    let mut variants = String::new();
    for v in &u.variants {
        let ty = rust_type(&v.shape, "");
        let ty = if v.boxed { format!("Box<{ty}>") } else { ty };
        if !v.tag_values.is_empty() {
            let mut t = format!("`{}`", v.tag_values.join("`, `"));
            if u.fallback.as_ref() == Some(&v.rust) {
                if let Some(tag) = &u.tag {
                    t.push_str(&format!(
                        ", and any `{tag}` no other variant names, or none"
                    ));
                }
            }
            variants.push_str(&text::doc_text(&[Some(t)], "    "));
        }
        let mut wire: Vec<String> = Vec::new();
        let quoted =
            |values: &[String]| values.iter().map(|v| lit(v)).collect::<Vec<_>>().join(", ");
        if !v.tag_values.is_empty() {
            wire.push(format!("tag({})", quoted(&v.tag_values)));
        }
        if let Some(implicit) = &v.implicit_tag {
            wire.push(format!("implicit_tag({})", lit(implicit)));
        }
        if u.fallback.as_ref() == Some(&v.rust) {
            wire.push("fallback".into());
        }
        if structural && free_text(api, &v.shape) {
            wire.push("text".into());
        } else if structural && matches!(v.shape.ty, Ty::Array(_)) {
            wire.push("array".into());
        }
        if let Some((required, only)) = object_fit(api, &v.shape).filter(|_| structural) {
            let mut inner = Vec::new();
            if !required.is_empty() || only.is_some() {
                inner.push(format!("required({})", quoted(&required)));
            }
            if let Some(only) = only {
                inner.push(format!("only({})", quoted(&only)));
            }
            wire.push(if inner.is_empty() {
                "object".into()
            } else {
                format!("object({})", inner.join(", "))
            });
        }
        variants.push_str(&attribute_line("wire", &wire, "    "));
        let checks = checks(&v.shape, api);
        if checked && !checks.is_empty() {
            variants.push_str(&format!("    #[check({})]\n", attribute(&checks)));
        }
        variants.push_str(&format!("    {}({ty}),\n", ident(&v.rust)));
    }
    let derives = model_derives(checked);
    let mut wire: Vec<String> = Vec::new();
    if let Some(tag) = &u.tag {
        wire.push(format!("tag = {}", lit(tag)));
    }
    if optional_tag {
        wire.push("optional_tag".into());
    }
    // Whether one variant or the first reads a value matters where the
    // variants are tried.
    if u.exclusive && structural {
        wire.push("one_of".into());
    }
    wire.extend(sided(sides));
    format!(
        "{docs}{cfg}{}{}pub enum {name} {{\n{variants}}}\n",
        derive_line(&derives),
        attribute_line("wire", &wire, "")
    )
}

/// Whether a shape is any text: every value written as text reads as it.
fn free_text(api: &Api, shape: &crate::ir::Shape) -> bool {
    match &shape.ty {
        Ty::String => true,
        Ty::Named(name) => matches!(
            crate::lower::resolve(&api.types, name).map(|t| &t.kind),
            Some(TypeKind::Alias(crate::ir::Shape { ty: Ty::String, .. }))
        ),
        _ => false,
    }
}

/// Whether a union variant of this shape always carries the property
/// `tag` (an object whose schema requires it).
fn requires(api: &Api, shape: &crate::ir::Shape, tag: &str) -> bool {
    let Ty::Named(name) = &shape.ty else {
        return false;
    };
    crate::lower::resolve(&api.types, name).is_some_and(|def| match &def.kind {
        TypeKind::Struct(s) => s
            .fields
            .iter()
            .any(|f| f.wire == tag && f.required && !f.flatten),
        _ => false,
    })
}

/// The test an object variant's value must pass before it is tried: its
/// required properties present and, when it refuses others, nothing else
/// (those it may hold). `None` for a variant that is not an object.
fn object_fit(api: &Api, shape: &crate::ir::Shape) -> Option<(Vec<String>, Option<Vec<String>>)> {
    let Ty::Named(name) = &shape.ty else {
        return None;
    };
    let TypeKind::Struct(s) = &crate::lower::resolve(&api.types, name)?.kind else {
        return None;
    };
    // Read-only properties are the server's to send: a request may lack them.
    let required: Vec<String> = s
        .fields
        .iter()
        // A required property that admits null is present when null: its
        // reading checks it (the pre-check wants a value).
        .filter(|f| f.required && !f.read_only && !f.write_only && !f.flatten)
        .filter(|f| !f.shape.nullable)
        .map(|f| f.wire.clone())
        .collect();
    let known = s
        .deny_unknown
        .then(|| s.fields.iter().map(|f| f.wire.clone()).collect());
    Some((required, known))
}
