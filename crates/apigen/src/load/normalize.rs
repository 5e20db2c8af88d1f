//! OpenAPI 3.1 documents, read through the 3.0 model: a pass that rewrites a
//! 3.1 document, in place, into the 3.0 shape `openapiv3` reads, so that the
//! rest of the pipeline (lowering, emission, the evolution gate) is the one
//! that serves 3.0.
//!
//! Each 3.1 construct becomes its 3.0 equivalent where there is one:
//!
//! | 3.1 | 3.0 |
//! |---|---|
//! | `type: [T, "null"]` | `type: T`, `nullable: true` |
//! | `type: [A, B]` | `anyOf: [{type: A}, {type: B}]` |
//! | `anyOf`/`oneOf` with a `{type: "null"}` branch | the other branches, `nullable: true` |
//! | `const: v` | `enum: [v]` |
//! | `examples: [a, ...]` in a schema | `example: a` |
//! | `$ref` beside other keywords | `allOf: [{$ref}]` beside them |
//! | `exclusiveMinimum: n` | `minimum: n`, `exclusiveMinimum: true` (maximum alike) |
//! | `$defs` | schemas of `components`, references rewritten |
//! | `prefixItems` | `items` of their `anyOf` |
//! | `patternProperties` | `additionalProperties` (the key patterns not checked) |
//! | `contentEncoding: base64` | `format: byte` |
//! | `contentMediaType` of bytes | `format: binary` |
//! | `unevaluatedProperties: false` | `additionalProperties: false` |
//! | `components.pathItems` | the path items, where paths refer to them |
//! | `webhooks` | taken out: each payload becomes a model, each operation a metadata entry |
//! | `info.summary`, `license.identifier`, `jsonSchemaDialect` | dropped: nothing in the code depends on them |
//!
//! What has no 3.0 equivalent (`if`/`then`/`else`, `dependentRequired`,
//! `propertyNames`, ...) is removed from the schema, which stands without
//! it, and reported as a note at its pointer. Moves (`$defs`, path items,
//! wrapped references) are recorded, so that every pointer the rest of the
//! pipeline reports is mapped back into the document the user wrote.

use super::provenance::Provenance;
use super::tree::{operations, rewrite_refs};
use crate::diag::Pointer;
use serde_yaml::{Mapping, Value};
use std::collections::BTreeMap;

/// Keywords of JSON Schema 2020-12 with no 3.0 equivalent: removed, noted.
const UNMAPPED: &[(&str, &str)] = &[
    (
        "if",
        "conditional schemas (`if`/`then`/`else`) are not checked",
    ),
    (
        "then",
        "conditional schemas (`if`/`then`/`else`) are not checked",
    ),
    (
        "else",
        "conditional schemas (`if`/`then`/`else`) are not checked",
    ),
    ("dependentRequired", "`dependentRequired` is not checked"),
    ("dependentSchemas", "`dependentSchemas` is not checked"),
    (
        "propertyNames",
        "`propertyNames`: the keys of the map are not checked",
    ),
    ("contains", "`contains` is not checked"),
    ("minContains", "`minContains` is not checked"),
    ("maxContains", "`maxContains` is not checked"),
    ("unevaluatedItems", "`unevaluatedItems` is not checked"),
    ("$dynamicRef", "`$dynamicRef` is not followed"),
    ("$dynamicAnchor", "`$dynamicAnchor` is not followed"),
];

/// Keys whose values are data (or not schemas), never walked for schemas.
fn is_data(key: &str) -> bool {
    matches!(
        key,
        "example" | "examples" | "default" | "enum" | "const" | "discriminator" | "xml"
    ) || key.starts_with("x-")
}

/// A 3.1 document rewritten into the 3.0 shape, and its webhooks taken
/// out (each name and path item, rewritten like the rest); what it moved
/// and noted is recorded in `out`. Path items given by `$ref` are already
/// inlined (the stage before).
pub fn normalize(mut doc: Value, out: &mut Provenance) -> (Value, Vec<(String, Value)>) {
    let mut webhooks = Vec::new();
    rewrite_document(&mut doc, out, &mut webhooks);
    (doc, webhooks)
}

fn rewrite_document(doc: &mut Value, out: &mut Provenance, taken: &mut Vec<(String, Value)>) {
    let Some(root) = doc.as_mapping_mut() else {
        return;
    };
    root.insert("openapi".into(), "3.0.3".into());
    root.remove("jsonSchemaDialect");
    if let Some(Value::Mapping(info)) = root.get_mut("info") {
        if let Some(summary) = info.remove("summary") {
            // Kept as the description's first line when there is none.
            if !info.contains_key("description") {
                info.insert("description".into(), summary);
            }
        }
        if let Some(Value::Mapping(license)) = info.get_mut("license") {
            license.remove("identifier");
        }
    }
    if !root.contains_key("paths") {
        root.insert("paths".into(), Value::Mapping(Mapping::new()));
    }
    if let Some(Value::Mapping(c)) = root.get_mut("components") {
        c.remove("pathItems");
    }
    let mut webhooks = root.remove("webhooks");
    // 3.1 lets an operation declare no `responses`, which 3.0 requires:
    // none declared, as the lowering reads them (and notes).
    if let Some(Value::Mapping(paths)) = root.get_mut("paths") {
        paths.values_mut().for_each(declare_no_responses);
    }
    if let Some(Value::Mapping(hooks)) = &mut webhooks {
        hooks.values_mut().for_each(declare_no_responses);
    }

    let mut defs = Vec::new();
    walk(doc, &Path::Root, false, &mut |schema, at| {
        rewrite(schema, at, out, &mut defs)
    });

    if let Some(Value::Mapping(mut hooks)) = webhooks {
        for (name, item) in hooks.iter_mut() {
            let name = name.as_str().unwrap_or_default().to_string();
            let at = Path::Key(&Path::Key(&Path::Root, "webhooks"), &name);
            walk(item, &at, false, &mut |schema, at| {
                rewrite(schema, at, out, &mut defs)
            });
            taken.push((name, item.clone()));
        }
    }
    // Moved schemas are rewritten where they land, and may hold `$defs` of
    // their own.
    while !defs.is_empty() {
        let moved = relocate_defs(doc, std::mem::take(&mut defs), out);
        let Some(Value::Mapping(schemas)) =
            doc.get_mut("components").and_then(|c| c.get_mut("schemas"))
        else {
            break;
        };
        for name in moved {
            if let Some(schema) = schemas.get_mut(name.as_str()) {
                let at = Path::Key(
                    &Path::Key(&Path::Key(&Path::Root, "components"), "schemas"),
                    &name,
                );
                walk(schema, &at, true, &mut |schema, at| {
                    rewrite(schema, at, out, &mut defs)
                });
            }
        }
    }
}

/// Gives each operation of a path item that declares no `responses` an
/// empty set of them.
fn declare_no_responses(item: &mut Value) {
    let Some(item) = item.as_mapping_mut() else {
        return;
    };
    for place in operations(item) {
        if let Some(Value::Mapping(operation)) = place.get_mut(item) {
            if !operation.contains_key("responses") {
                operation.insert("responses".into(), Value::Mapping(Mapping::new()));
            }
        }
    }
}

/// Where the walk stands, without allocating: a chain of keys.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn pointer(&self) -> Pointer {
        match self {
            Path::Root => Pointer::root(),
            Path::Key(parent, key) => parent.pointer().join(key),
            Path::Index(parent, i) => parent.pointer().join(i),
        }
    }

    /// The last key, when the last step was a key.
    fn key(&self) -> Option<&str> {
        match self {
            Path::Key(_, key) => Some(key),
            _ => None,
        }
    }

    fn parent(&self) -> Option<&Path<'_>> {
        match self {
            Path::Root => None,
            Path::Key(parent, _) | Path::Index(parent, _) => Some(parent),
        }
    }
}

/// Keys under which a value is a schema.
fn holds_schema(key: &str) -> bool {
    matches!(
        key,
        "schema" | "items" | "additionalProperties" | "not" | "unevaluatedProperties"
    )
}

/// Keys under which each value of a map is a schema.
fn holds_schemas(key: &str) -> bool {
    matches!(key, "properties" | "patternProperties" | "$defs")
}

/// Keys under which each item of a list is a schema.
fn lists_schemas(key: &str) -> bool {
    matches!(key, "allOf" | "anyOf" | "oneOf" | "prefixItems")
}

/// The reference to the component schema a path stands in
/// (`#/components/schemas/Name`), if it stands in one.
fn component_root(at: &Path<'_>) -> Option<String> {
    let mut keys = Vec::new();
    let mut here = Some(at);
    while let Some(path) = here {
        if let Path::Key(_, key) = path {
            keys.push(*key);
        }
        here = path.parent();
    }
    keys.reverse();
    match keys.as_slice() {
        ["components", "schemas", name, ..] => Some(
            Pointer::root()
                .join("components")
                .join("schemas")
                .join(name)
                .to_string(),
        ),
        _ => None,
    }
}

/// A `$defs` entry to move: the schema's path (as written) and name.
type Def = (Pointer, Value);

/// A schema's 3.1 spelling rewritten into 3.0's, its children after.
fn rewrite(schema: &mut Value, at: &Path<'_>, out: &mut Provenance, defs: &mut Vec<Def>) {
    if let Value::Bool(allowed) = schema {
        // A boolean schema: `true` allows anything; `false` nothing, which
        // 3.0 cannot say.
        if !*allowed {
            out.note(&at.pointer(), "the schema `false` is read as any value");
        }
        *schema = Value::Mapping(Mapping::new());
    }
    if let Value::Mapping(map) = schema {
        rewrite_schema(map, at, out, defs);
    }
}

/// Walks `value`, calling `visit` on every schema met before walking into
/// it. `schema` says whether `value` is one.
fn walk(
    value: &mut Value,
    at: &Path<'_>,
    schema: bool,
    visit: &mut dyn FnMut(&mut Value, &Path<'_>),
) {
    if schema {
        visit(value, at);
    }
    match value {
        Value::Mapping(map) => {
            // Components' schemas, and the schemas inside `components`.
            let under_schemas = at.key() == Some("schemas")
                && at
                    .parent()
                    .and_then(Path::key)
                    .is_some_and(|k| k == "components");
            for (k, v) in map.iter_mut() {
                let Some(key) = k.as_str() else { continue };
                if is_data(key) && !under_schemas {
                    continue;
                }
                let here = Path::Key(at, key);
                let child_is_schema = if under_schemas {
                    true
                } else if schema {
                    // `additionalProperties: false` is 3.0 as it stands.
                    holds_schema(key) && !v.is_bool()
                } else {
                    key == "schema"
                };
                if schema && holds_schemas(key) {
                    if let Value::Mapping(entries) = v {
                        for (name, s) in entries.iter_mut() {
                            let Some(name) = name.as_str() else { continue };
                            walk(s, &Path::Key(&here, name), true, visit);
                        }
                    }
                } else if schema && lists_schemas(key) {
                    if let Value::Sequence(items) = v {
                        for (i, s) in items.iter_mut().enumerate() {
                            walk(s, &Path::Index(&here, i), true, visit);
                        }
                    }
                } else {
                    walk(v, &here, child_is_schema, visit);
                }
            }
        }
        Value::Sequence(items) if !schema => {
            for (i, v) in items.iter_mut().enumerate() {
                walk(v, &Path::Index(at, i), false, visit);
            }
        }
        _ => {}
    }
}

fn take(map: &mut Mapping, key: &str) -> Option<Value> {
    map.remove(key)
}

/// Whether a schema has anything this pass rewrites: one scan of its keys,
/// so that most schemas cost no more than that.
fn needs_rewrite(map: &Mapping) -> bool {
    map.iter().any(|(k, v)| match k.as_str() {
        Some("$ref") => map.len() > 1,
        Some("type") => v.is_sequence(),
        Some("exclusiveMinimum" | "exclusiveMaximum") => v.is_number(),
        Some("examples") => v.is_sequence(),
        // One match, so that a key this pass does not know costs one
        // comparison per length class: every keyword of UNMAPPED is here.
        Some(
            "anyOf"
            | "oneOf"
            | "const"
            | "prefixItems"
            | "patternProperties"
            | "contentEncoding"
            | "contentMediaType"
            | "unevaluatedProperties"
            | "$defs"
            | "if"
            | "then"
            | "else"
            | "dependentRequired"
            | "dependentSchemas"
            | "propertyNames"
            | "contains"
            | "minContains"
            | "maxContains"
            | "unevaluatedItems"
            | "$dynamicRef"
            | "$dynamicAnchor"
            | "$recursiveRef"
            | "$recursiveAnchor",
        ) => true,
        _ => false,
    })
}

/// Rewrites one schema's own keywords (its children are walked after).
fn rewrite_schema(map: &mut Mapping, at: &Path<'_>, out: &mut Provenance, defs: &mut Vec<Def>) {
    if !needs_rewrite(map) {
        return;
    }
    rewrite_references(map, at, out);
    rewrite_type_list(map);
    for key in ["anyOf", "oneOf"] {
        collapse_null_branch(map, key, at, out);
    }
    if let Some(value) = take(map, "const") {
        if !map.contains_key("enum") {
            map.insert("enum".into(), Value::Sequence(vec![value]));
        }
    }
    if let Some(Value::Sequence(mut examples)) = map.get("examples").cloned() {
        map.remove("examples");
        if !map.contains_key("example") && !examples.is_empty() {
            map.insert("example".into(), examples.swap_remove(0));
        }
    }
    for (exclusive, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(n @ Value::Number(_)) = map.get(exclusive).cloned() {
            map.insert(bound.into(), n);
            map.insert(exclusive.into(), true.into());
        }
    }
    rewrite_prefix_items(map, at, out);
    rewrite_pattern_properties(map, at, out);
    rewrite_content(map);
    if let Some(unevaluated) = take(map, "unevaluatedProperties") {
        let here = at.pointer().join("unevaluatedProperties");
        if unevaluated == Value::Bool(false) && !map.contains_key("additionalProperties") {
            map.insert("additionalProperties".into(), false.into());
        } else {
            out.note(&here, "`unevaluatedProperties` is not checked");
        }
    }
    if let Some(Value::Mapping(entries)) = take(map, "$defs") {
        let here = at.pointer().join("$defs");
        for (name, schema) in entries {
            if let Some(name) = name.as_str() {
                defs.push((here.join(name), schema));
            }
        }
    }
    for (keyword, why) in UNMAPPED {
        if map.remove(*keyword).is_some() {
            out.note(&at.pointer().join(keyword), *why);
        }
    }
}

/// `$recursiveRef` (2019-09's recursive reference, as OpenAI's documents
/// use it) and a reference beside other keywords, in 3.0's terms.
fn rewrite_references(map: &mut Mapping, at: &Path<'_>, out: &mut Provenance) {
    // `#` with a `$recursiveAnchor` at the component is that component.
    map.remove("$recursiveAnchor");
    if let Some(target) = take(map, "$recursiveRef") {
        match (target.as_str(), component_root(at)) {
            (Some("#"), Some(component)) => {
                map.insert("$ref".into(), component.into());
            }
            _ => out.note(
                &at.pointer().join("$recursiveRef"),
                "`$recursiveRef` outside a component schema is read as any value",
            ),
        }
    }
    // Extensions and comments beside a reference say nothing of the value
    // or of its documentation: the reference alone.
    if map.contains_key("$ref")
        && map.keys().all(|k| {
            k.as_str()
                .is_some_and(|k| k == "$ref" || k == "$comment" || k.starts_with("x-"))
        })
    {
        map.retain(|k, _| k.as_str() == Some("$ref"));
    }
    // A reference beside other keywords: 3.1 applies them, 3.0 ignores them.
    if map.contains_key("$ref") && map.len() > 1 {
        let reference = take(map, "$ref").unwrap_or_default();
        let mut only = Mapping::new();
        only.insert("$ref".into(), reference);
        let mut parts = vec![Value::Mapping(only)];
        if let Some(Value::Sequence(existing)) = take(map, "allOf") {
            parts.extend(existing);
        }
        map.insert("allOf".into(), Value::Sequence(parts));
        let here = at.pointer();
        out.moved
            .insert(here.join("allOf").join(0).to_string(), here.to_string());
    }
}

/// A list of types: nullable, and one type or any of several.
fn rewrite_type_list(map: &mut Mapping) {
    if let Some(Value::Sequence(types)) = map.get("type").filter(|t| t.is_sequence()).cloned() {
        let names: Vec<String> = types
            .iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect();
        let nullable = names.iter().any(|t| t == "null");
        let others: Vec<&String> = names.iter().filter(|t| *t != "null").collect();
        if others.len() > 1 {
            map.remove("type");
            let branches = others
                .iter()
                .map(|t| {
                    let mut branch = Mapping::new();
                    branch.insert("type".into(), t.as_str().into());
                    Value::Mapping(branch)
                })
                .collect();
            map.insert("anyOf".into(), Value::Sequence(branches));
        } else if let Some(slot) = map.get_mut("type") {
            // Rewritten in place, so that the keys keep their order.
            *slot = others.first().map_or("null", |t| t.as_str()).into();
        }
        if nullable && !others.is_empty() {
            map.insert("nullable".into(), true.into());
        }
    }
}

/// `prefixItems` (a tuple) as a list of any of its items' shapes.
fn rewrite_prefix_items(map: &mut Mapping, at: &Path<'_>, out: &mut Provenance) {
    if let Some(Value::Sequence(prefix)) = take(map, "prefixItems") {
        let here = at.pointer();
        if !matches!(map.get("items"), Some(Value::Mapping(_))) {
            // A tuple: an array of any of its items' shapes, each shape once.
            let mut shapes: Vec<Value> = Vec::new();
            for item in prefix {
                if !shapes.contains(&item) {
                    shapes.push(item);
                }
            }
            let prefix = shapes;
            let items = match prefix.len() {
                1 => {
                    out.moved.insert(
                        here.join("items").to_string(),
                        here.join("prefixItems").join(0).to_string(),
                    );
                    prefix.into_iter().next().unwrap_or_default()
                }
                _ => {
                    for i in 0..prefix.len() {
                        out.moved.insert(
                            here.join("items").join("anyOf").join(i).to_string(),
                            here.join("prefixItems").join(i).to_string(),
                        );
                    }
                    let mut any = Mapping::new();
                    any.insert("anyOf".into(), Value::Sequence(prefix));
                    Value::Mapping(any)
                }
            };
            map.insert("items".into(), items);
            out.note(&here.join("prefixItems"), "`prefixItems`: the array is read as a list of any of the items' shapes, not as a tuple");
        }
    }
}

/// `patternProperties` as `additionalProperties`.
fn rewrite_pattern_properties(map: &mut Mapping, at: &Path<'_>, out: &mut Provenance) {
    if let Some(Value::Mapping(patterns)) = take(map, "patternProperties") {
        let here = at.pointer();
        if !map.contains_key("additionalProperties") {
            if let Some((pattern, schema)) = patterns.into_iter().next() {
                let pattern = pattern.as_str().unwrap_or_default().to_string();
                out.moved.insert(
                    here.join("additionalProperties").to_string(),
                    here.join("patternProperties").join(&pattern).to_string(),
                );
                map.insert("additionalProperties".into(), schema);
            }
        }
        out.note(
            &here.join("patternProperties"),
            "`patternProperties`: values are read as `additionalProperties`; the key patterns are not checked",
        );
    }
}

/// `contentEncoding` and `contentMediaType` as 3.0's `format`.
fn rewrite_content(map: &mut Mapping) {
    let encoding = take(map, "contentEncoding");
    let media = take(map, "contentMediaType");
    if !map.contains_key("format") {
        let is_base64 = encoding.as_ref().and_then(Value::as_str).is_some_and(|e| {
            e.eq_ignore_ascii_case("base64") || e.eq_ignore_ascii_case("base64url")
        });
        let is_bytes = media
            .as_ref()
            .and_then(Value::as_str)
            .is_some_and(|m| !m.starts_with("text/") && !m.contains("json"));
        if is_base64 {
            map.insert("format".into(), "byte".into());
        } else if is_bytes {
            map.insert("format".into(), "binary".into());
        }
    }
}

/// `anyOf: [X, {type: "null"}]` (or `oneOf`): `X`, nullable.
fn collapse_null_branch(map: &mut Mapping, key: &str, at: &Path<'_>, out: &mut Provenance) {
    let Some(Value::Sequence(branches)) = map.get(key) else {
        return;
    };
    let is_null = |b: &Value| {
        b.get("type").and_then(Value::as_str) == Some("null")
            && b.as_mapping().is_some_and(|m| m.len() == 1)
    };
    let Some(null_at) = branches.iter().position(is_null) else {
        return;
    };
    let mut branches = branches.clone();
    branches.remove(null_at);
    map.insert("nullable".into(), true.into());
    let here = at.pointer();
    if branches.len() == 1 {
        // The one other branch, as a single `allOf` part.
        map.remove(key);
        let kept = usize::from(null_at == 0);
        out.moved.insert(
            here.join("allOf").join(0).to_string(),
            here.join(key).join(kept).to_string(),
        );
        let mut parts = match map.remove("allOf") {
            Some(Value::Sequence(parts)) => parts,
            _ => Vec::new(),
        };
        parts.insert(0, branches.pop().unwrap_or_default());
        map.insert("allOf".into(), Value::Sequence(parts));
    } else {
        for i in null_at..branches.len() {
            out.moved.insert(
                here.join(key).join(i).to_string(),
                here.join(key).join(i + 1).to_string(),
            );
        }
        map.insert(key.into(), Value::Sequence(branches));
    }
}

/// Moves every `$defs` schema into `components.schemas` under a name of its
/// own, and points the references to it there; the names given.
fn relocate_defs(doc: &mut Value, defs: Vec<Def>, out: &mut Provenance) -> Vec<String> {
    let mut given = Vec::new();
    let Some(root) = doc.as_mapping_mut() else {
        return given;
    };
    let components = root
        .entry("components".into())
        .or_insert_with(|| Value::Mapping(Mapping::new()));
    let Some(components) = components.as_mapping_mut() else {
        return given;
    };
    let schemas = components
        .entry("schemas".into())
        .or_insert_with(|| Value::Mapping(Mapping::new()));
    let Some(schemas) = schemas.as_mapping_mut() else {
        return given;
    };
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    for (written, schema) in defs {
        // `Owner` + `Name` for `#/components/schemas/Owner/$defs/Name`, the
        // name alone for a document's own `$defs`.
        let segments: Vec<String> = written.segments().collect();
        let owner = match segments.as_slice() {
            [c, s, owner, ..] if c == "components" && s == "schemas" => owner.clone(),
            _ => String::new(),
        };
        let base = format!("{owner}{}", segments.last().cloned().unwrap_or_default());
        let mut name = base.clone();
        let mut n = 2;
        while schemas.contains_key(name.as_str()) {
            name = format!("{base}{n}");
            n += 1;
        }
        let new = Pointer::root()
            .join("components")
            .join("schemas")
            .join(&name);
        schemas.insert(name.as_str().into(), schema);
        out.moved.insert(new.to_string(), written.to_string());
        renamed.insert(written.to_string(), new.to_string());
        given.push(name);
    }
    rewrite_refs(doc, &renamed);
    given
}

/// Calls `visit` on every schema of a document (components, parameters,
/// bodies, responses, headers, and every schema inside another), each once,
/// parents before their children. For tools that rewrite schemas the way
/// this pass does (the tests' 3.0-to-3.1 translation among them).
pub fn visit_schemas(doc: &mut Value, visit: &mut dyn FnMut(&mut Value)) {
    walk(doc, &Path::Root, false, &mut |schema, _| visit(schema));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalized(yaml: &str) -> (Value, Provenance) {
        let (doc, out, _) = with_webhooks(yaml);
        (doc, out)
    }

    fn with_webhooks(yaml: &str) -> (Value, Provenance, Vec<(String, Value)>) {
        let doc: Value = serde_yaml::from_str(yaml).unwrap();
        let mut out = Provenance::default();
        let doc = super::super::paths::inline_path_items(doc, &mut out);
        let (doc, webhooks) = normalize(doc, &mut out);
        (doc, out, webhooks)
    }

    fn schema<'a>(doc: &'a Value, name: &str) -> &'a Value {
        &doc["components"]["schemas"][name]
    }

    const HEAD: &str = "openapi: 3.1.0\ninfo: {title: t, version: '1', summary: s, license: {name: MIT, identifier: MIT}}\njsonSchemaDialect: https://spec.openapis.org/oas/3.1/dialect/base\n";

    #[test]
    fn schemas_take_their_3_0_spelling() {
        let (doc, out) = normalized(&format!(
            "{HEAD}components:\n  schemas:\n    A:\n      type: object\n      properties:\n        maybe: {{type: [string, 'null']}}\n        either: {{type: [string, integer]}}\n        fixed: {{const: dog}}\n        sample: {{type: integer, examples: [3, 4], exclusiveMinimum: 0}}\n        ref: {{$ref: '#/components/schemas/B', description: Beside.}}\n        tuple: {{type: array, prefixItems: [{{type: string}}]}}\n        map: {{type: object, patternProperties: {{'^x': {{type: integer}}}}}}\n        blob: {{type: string, contentEncoding: base64}}\n        orNull: {{anyOf: [{{$ref: '#/components/schemas/B'}}, {{type: 'null'}}]}}\n      unevaluatedProperties: false\n      if: {{required: [maybe]}}\n    B: {{type: string}}\n"
        ));
        let a = &schema(&doc, "A")["properties"];
        assert_eq!(doc["openapi"], "3.0.3");
        assert_eq!(doc["info"]["description"], "s");
        assert!(doc.get("jsonSchemaDialect").is_none());
        assert_eq!(a["maybe"]["type"], "string");
        assert_eq!(a["maybe"]["nullable"], true);
        assert_eq!(a["either"]["anyOf"][1]["type"], "integer");
        assert_eq!(a["fixed"]["enum"][0], "dog");
        assert_eq!(a["sample"]["example"], 3);
        assert_eq!(a["sample"]["minimum"], 0);
        assert_eq!(a["sample"]["exclusiveMinimum"], true);
        assert_eq!(a["ref"]["allOf"][0]["$ref"], "#/components/schemas/B");
        assert_eq!(a["ref"]["description"], "Beside.");
        assert_eq!(a["tuple"]["items"]["type"], "string");
        assert_eq!(a["map"]["additionalProperties"]["type"], "integer");
        assert_eq!(a["blob"]["format"], "byte");
        assert_eq!(a["orNull"]["allOf"][0]["$ref"], "#/components/schemas/B");
        assert_eq!(a["orNull"]["nullable"], true);
        assert_eq!(schema(&doc, "A")["additionalProperties"], false);
        let notes: Vec<String> = out
            .notes
            .iter()
            .map(|n| format!("{:?} {}", n.location, n.message))
            .collect();
        assert!(
            notes
                .iter()
                .any(|n| n.contains("#/components/schemas/A/if")),
            "{notes:?}"
        );
        // A pointer into the wrapped reference goes back to where it was written.
        assert_eq!(
            out.original("#/components/schemas/A/properties/ref/allOf/0"),
            "#/components/schemas/A/properties/ref"
        );
        assert_eq!(
            out.original("#/components/schemas/A/properties/orNull/allOf/0"),
            "#/components/schemas/A/properties/orNull/anyOf/0"
        );
    }

    #[test]
    fn defs_move_into_components_and_references_follow() {
        let (doc, out) = normalized(&format!(
            "{HEAD}paths: {{}}\ncomponents:\n  schemas:\n    Outer:\n      type: object\n      properties:\n        inner: {{$ref: '#/components/schemas/Outer/$defs/Inner'}}\n      $defs:\n        Inner: {{type: object, properties: {{n: {{type: integer}}}}}}\n"
        ));
        assert_eq!(
            schema(&doc, "Outer")["properties"]["inner"]["$ref"],
            "#/components/schemas/OuterInner"
        );
        assert_eq!(schema(&doc, "OuterInner")["type"], "object");
        assert_eq!(
            out.original("#/components/schemas/OuterInner/properties/n"),
            "#/components/schemas/Outer/$defs/Inner/properties/n"
        );
    }

    #[test]
    fn webhooks_come_out_and_path_items_are_inlined() {
        let (doc, out, webhooks) = with_webhooks(&format!(
            "{HEAD}paths:\n  /a: {{$ref: '#/components/pathItems/A'}}\nwebhooks:\n  ping:\n    post:\n      requestBody: {{content: {{application/json: {{schema: {{type: [object, 'null']}}}}}}}}\n      responses: {{'200': {{description: ok}}}}\ncomponents:\n  pathItems:\n    A:\n      get:\n        responses: {{'204': {{description: ok}}}}\n"
        ));
        assert!(doc["paths"]["/a"]["get"].is_mapping());
        assert!(doc["components"].get("pathItems").is_none());
        assert!(doc.get("webhooks").is_none());
        let (name, hook) = &webhooks[0];
        assert_eq!(name, "ping");
        assert_eq!(
            hook["post"]["requestBody"]["content"]["application/json"]["schema"]["nullable"],
            true
        );
        assert_eq!(
            out.original("#/paths/~1a/get"),
            "#/components/pathItems/A/get"
        );
    }

    #[test]
    fn data_and_extensions_are_left_alone() {
        let (doc, _) = normalized(&format!(
            "{HEAD}paths: {{}}\ncomponents:\n  schemas:\n    A:\n      type: object\n      example: {{type: [a, b], const: 1}}\n      x-doc: {{$ref: ./README.md, type: [x, 'null']}}\n"
        ));
        let a = schema(&doc, "A");
        assert_eq!(a["example"]["type"][0], "a");
        assert_eq!(a["x-doc"]["type"][1], "null");
        assert_eq!(a["x-doc"]["$ref"], "./README.md");
    }
}

#[cfg(test)]
mod keyword_tests {
    use super::*;

    /// `needs_rewrite` names every keyword the pass removes.
    #[test]
    fn every_unmapped_keyword_is_noticed() {
        for (keyword, _) in UNMAPPED {
            let mut map = Mapping::new();
            map.insert((*keyword).into(), Value::Mapping(Mapping::new()));
            assert!(needs_rewrite(&map), "{keyword}");
        }
    }
}
