//! A union (`oneOf`, `anyOf`): one variant per shape, read by its
//! discriminator or by trying each.
//!
//! Its items are irregular (their length follows the variants and the
//! discriminator's values), so they are written as unformatted text and
//! laid out by prettyplease (`text::Pieces::printed`).

use crate::emit::gates::ImplCfg;
use crate::emit::text::string_literal as lit;
use crate::emit::validation::check_expr;
use crate::emit::{ident, rust_type};
use crate::ir::{Api, Ty, TypeDef, TypeKind, Union, UnionVariant};

/// A union's enum, its serde impls (by the discriminator's value, or the
/// first variant that reads the value) and, where a request can carry it,
/// its `Validate` impl: `docs` and `cfg` are attributes' text.
pub(super) fn union(
    api: &Api,
    def: &TypeDef,
    u: &Union,
    docs: &str,
    cfg: &str,
    serde: &[ImplCfg; 2],
) -> String {
    let [write, read] = serde.each_ref().map(ImplCfg::line);
    let name = ident(&def.name);
    let mut variants = String::new();
    for v in &u.variants {
        let ty = rust_type(&v.shape, "");
        let ty = if v.boxed { format!("Box<{ty}>") } else { ty };
        if !v.tag_values.is_empty() {
            let mut t = format!(" `{}`", v.tag_values.join("`, `"));
            if u.fallback.as_ref() == Some(&v.rust) {
                if let Some(tag) = &u.tag {
                    t.push_str(&format!(
                        ", and any `{tag}` no other variant names, or none"
                    ));
                }
            }
            variants.push_str(&format!("#[doc = {}]\n", lit(&t)));
        }
        variants.push_str(&format!("{}({ty}),\n", ident(&v.rust)));
    }
    let validate = validate_impl(api, def, u, cfg).unwrap_or_default();
    let type_name = &def.name;
    let decide_body = match &u.tag {
        Some(tag) => by_tag(api, u, tag, type_name),
        None => structural(api, u, type_name),
    };
    // A value is written as its variant's value (serde's `untagged`,
    // written out: the derive's expansion is several times the size).
    let writes: String = u
        .variants
        .iter()
        .map(|v| {
            format!(
                "Self::{}(value) => serde::Serialize::serialize(value, serializer),\n",
                ident(&v.rust)
            )
        })
        .collect();
    format!(
        "{docs}{cfg}#[derive(Debug, Clone, PartialEq)]
pub enum {name} {{ {variants} }}
{write}impl serde::Serialize for {name} {{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{
        // A format that is not self-describing could not tell the
        // variants apart on reading: there, the JSON text.
        if !serializer.is_human_readable() {{
            return runtime::json_text(self, serializer);
        }}
        match self {{ {writes} }}
    }}
}}
{read}impl runtime::Decide for {name} {{
    fn decide(value: serde_json::Value, source: runtime::Source) -> Result<Self, String> {{
        {decide_body}
    }}
}}
{read}impl<'de> serde::Deserialize<'de> for {name} {{
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{
        runtime::decide_json(deserializer)
    }}
}}
{validate}"
    )
}

/// A union's `Validate` impl, where a request can carry it: its variant's
/// checks.
fn validate_impl(api: &Api, def: &TypeDef, u: &Union, cfg: &str) -> Option<String> {
    api.checked.contains(&def.name).then(|| {
        let mut checks = String::new();
        for v in &u.variants {
            let variant = ident(&v.rust);
            match check_expr("value", &v.shape, api).map(|check| check.written()) {
                Some(check) => checks.push_str(&format!("Self::{variant}(value) => {check},\n")),
                None => checks.push_str(&format!("Self::{variant}(_) => Ok(()),\n")),
            }
        }
        format!(
            "{cfg}impl runtime::Validate for {} {{
    fn validate(&self) -> Result<(), runtime::Violation> {{
        match self {{ {checks} }}
    }}
}}
",
            ident(&def.name)
        )
    })
}

/// `decide`'s body without a tag: every variant tried, by its structure.
fn structural(api: &Api, u: &Union, type_name: &str) -> String {
    let names: Vec<String> = u.variants.iter().map(|v| lit(&v.rust)).collect();
    let names = names.join(", ");
    // In text (a query, a header) every value is a string, and one
    // value is also an array of one: array variants come after the
    // others, free-text ones last.
    let tier = |v: &UnionVariant| {
        if free_text(api, &v.shape) {
            2
        } else if matches!(v.shape.ty, Ty::Array(_)) {
            1
        } else {
            0
        }
    };
    let mut ordered: Vec<&UnionVariant> = u.variants.iter().collect();
    ordered.sort_by_key(|v| tier(v));
    let attempt = |v: &UnionVariant, then: String| {
        let read = format!("if let Ok(v) = runtime::read_variant(&value, source) {{ {then} }}\n");
        match object_fit(api, &v.shape) {
            Some(fits) => format!("if {fits} {{ {read} }}\n"),
            None => read,
        }
    };
    let wrap = |v: &UnionVariant| {
        let variant = ident(&v.rust);
        if v.boxed {
            format!("Self::{variant}(Box::new(v))")
        } else {
            format!("Self::{variant}(v)")
        }
    };
    let type_name = lit(type_name);
    if u.exclusive {
        // `oneOf`: every variant is tried, and exactly one must
        // accept. In text, later tiers only when earlier ones took
        // nothing.
        let mut blocks = String::new();
        for level in 0..3 {
            let tries: String = ordered
                .iter()
                .filter(|v| tier(v) == level)
                .map(|v| {
                    let (name, value) = (lit(&v.rust), wrap(v));
                    attempt(v, format!("accepted.push(({name}, {value}));"))
                })
                .collect();
            if tries.is_empty() {
                continue;
            }
            if level == 0 {
                blocks.push_str(&tries);
            } else {
                blocks.push_str(&format!(
                    "if source == runtime::Source::Json || accepted.is_empty() {{ {tries} }}\n"
                ));
            }
        }
        format!(
            "let mut accepted = Vec::new();\n{blocks}runtime::decide({type_name}, &[{names}], accepted)"
        )
    } else {
        // `anyOf`: the first variant, in tier order, that accepts.
        let tries: String = ordered
            .iter()
            .map(|v| attempt(v, format!("return Ok({});", wrap(v))))
            .collect();
        format!("{tries}Err(runtime::none_of({type_name}, &[{names}]))")
    }
}

/// `decide`'s body with the tag `tag`: the variants the tag's value names,
/// and, where a variant may omit the tag, by structure when it is absent.
fn by_tag(api: &Api, u: &Union, tag: &str, type_name: &str) -> String {
    // Each tag value, with the variants it names in order (a value
    // two variants allow tries them in turn); values naming the
    // same variants share an arm.
    let mut named: Vec<(&str, Vec<&UnionVariant>)> = Vec::new();
    for v in &u.variants {
        for value in v.tag_values.iter().chain(&v.implicit_tag) {
            match named.iter_mut().find(|(t, _)| t == value) {
                Some((_, variants)) => variants.push(v),
                None => named.push((value, vec![v])),
            }
        }
    }
    let mut arms: Vec<(Vec<&str>, Vec<&UnionVariant>)> = Vec::new();
    for (value, variants) in named {
        let same = |(_, vs): &&mut (Vec<&str>, Vec<&UnionVariant>)| {
            vs.len() == variants.len() && vs.iter().zip(&variants).all(|(a, b)| a.rust == b.rust)
        };
        match arms.iter_mut().find(same) {
            Some((values, _)) => values.push(value),
            None => arms.push((vec![value], variants)),
        }
    }
    let read = |v: &UnionVariant| {
        let variant = ident(&v.rust);
        if v.boxed {
            format!("runtime::read_variant(&value, source).map(|v| Self::{variant}(Box::new(v)))")
        } else {
            format!("runtime::read_variant(&value, source).map(Self::{variant})")
        }
    };
    // The values the document names (an implicit name is taken,
    // not offered).
    let values = arms
        .iter()
        .flat_map(|(values, _)| values.iter().copied())
        .filter(|value| {
            u.variants
                .iter()
                .any(|v| v.tag_values.iter().any(|t| t == value))
        })
        .collect::<Vec<_>>()
        .join("`, `");
    // The variant `defaultMapping` names reads a value whose tag is absent
    // or names no variant (a value naming it alone among them too); without
    // one, such a value is refused.
    let fallback = u
        .variants
        .iter()
        .find(|v| u.fallback.as_ref() == Some(&v.rust));
    let only_fallback = |variants: &[&UnionVariant]| {
        fallback.is_some_and(|f| variants.len() == 1 && variants[0].rust == f.rust)
    };
    let arms: String = arms
        .iter()
        .filter(|(_, variants)| !only_fallback(variants))
        .map(|(values, variants)| {
            let mut tries = variants.iter().map(|v| read(v));
            let first = tries.next().expect("a value names a variant");
            let rest: String = tries.map(|t| format!(".or_else(|_| {t})")).collect();
            let values: Vec<String> = values.iter().map(|v| lit(v)).collect();
            let values = values.join(" | ");
            if fallback.is_some() {
                format!("Some({values}) => {first}{rest},\n")
            } else {
                format!("{values} => {first}{rest},\n")
            }
        })
        .collect();
    let tag_lit = lit(tag);
    if let Some(fallback) = fallback {
        return format!(
            "match runtime::tag_of(&value, {tag_lit}).ok() {{ {arms} _ => {}, }}",
            read(fallback)
        );
    }
    let unknown = lit(&format!(
        "unknown `{tag}` value `{{other}}`: expected `{values}`"
    ));
    let by_tag = format!(
        "match runtime::tag_of(&value, {tag_lit})? {{ {arms} other => Err(format!({unknown})), }}"
    );
    // A variant that may omit the tag (the discriminator is a hint
    // where the schemas leave it optional) is found by its
    // structure when the tag is absent.
    if u.variants.iter().all(|v| requires(api, &v.shape, tag)) {
        by_tag
    } else {
        let structural = structural(api, u, type_name);
        format!("if value.get({tag_lit}).is_none() {{ {structural} }} else {{ {by_tag} }}")
    }
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
/// required properties present and, when it refuses others, nothing else.
/// `None` for a variant that is not an object.
fn object_fit(api: &Api, shape: &crate::ir::Shape) -> Option<String> {
    let Ty::Named(name) = &shape.ty else {
        return None;
    };
    let TypeKind::Struct(s) = &crate::lower::resolve(&api.types, name)?.kind else {
        return None;
    };
    // Read-only properties are the server's to send: a request may lack them.
    let required: Vec<&str> = s
        .fields
        .iter()
        // A required property that admits null is present when null: its
        // reading checks it (the pre-check wants a value).
        .filter(|f| f.required && !f.read_only && !f.write_only && !f.flatten)
        .filter(|f| !f.shape.nullable)
        .map(|f| f.wire.as_str())
        .collect();
    if required.is_empty() && !s.deny_unknown {
        return Some("value.is_object()".to_string());
    }
    let list =
        |names: &mut dyn Iterator<Item = &str>| names.map(lit).collect::<Vec<_>>().join(", ");
    let known = if s.deny_unknown {
        format!(
            "Some(&[{}])",
            list(&mut s.fields.iter().map(|f| f.wire.as_str()))
        )
    } else {
        "None".to_string()
    };
    let required = list(&mut required.into_iter());
    Some(format!(
        "runtime::fits_object(&value, &[{required}], {known})"
    ))
}
