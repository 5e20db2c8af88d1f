//! Test support: a 3.0 document rewritten into its 3.1 spelling, so that
//! tests and `cargo xtask bench-codegen` can compare a document with its
//! translation. Included by path where it is needed.

use serde_yaml::{Mapping, Value};

/// Rewrites a 3.0 document into its 3.1 spelling, in place: the inverse of
/// `apigen::load::normalize::normalize` for what 3.0 can say (`nullable` as a `type` array or a
/// `null` branch, boolean exclusive bounds as numbers, a lone `allOf`
/// reference beside other keywords as a `$ref` beside them, schema
/// `example` as `examples`). For tests and benchmarks that compare a
/// document with its translation.
pub fn upgrade(doc: &mut Value) {
    if let Some(root) = doc.as_mapping_mut() {
        root.insert("openapi".into(), "3.1.0".into());
    }
    apigen::load::normalize::visit_schemas(doc, &mut |schema| {
        let Value::Mapping(map) = schema else { return };
        if map.contains_key("$ref") {
            // 3.0 ignores what stands beside a reference; 3.1 would apply it.
            map.retain(|k, _| k.as_str() == Some("$ref"));
            return;
        }
        if map.get("nullable") == Some(&Value::Bool(true)) {
            if let Some(Value::String(t)) = map.get("type").cloned() {
                map.remove("nullable");
                map.insert(
                    "type".into(),
                    Value::Sequence(vec![Value::String(t), "null".into()]),
                );
            } else if let Some(Value::Sequence(branches)) = map.get_mut("anyOf") {
                let mut null = Mapping::new();
                null.insert("type".into(), "null".into());
                branches.push(Value::Mapping(null));
                map.remove("nullable");
            }
        }
        for (exclusive, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if map.get(exclusive) == Some(&Value::Bool(true)) {
                if let Some(n) = map.remove(bound) {
                    map.insert(exclusive.into(), n);
                }
            } else if map.get(exclusive) == Some(&Value::Bool(false)) {
                map.remove(exclusive);
            }
        }
        if let Some(example) = map.remove("example") {
            map.insert("examples".into(), Value::Sequence(vec![example]));
        }
        let lone_reference = match map.get("allOf") {
            Some(Value::Sequence(parts)) if parts.len() == 1 && map.len() > 1 => parts[0]
                .get("$ref")
                .filter(|_| parts[0].as_mapping().is_some_and(|m| m.len() == 1))
                .cloned(),
            _ => None,
        };
        if let Some(reference) = lone_reference {
            map.remove("allOf");
            map.insert("$ref".into(), reference);
        }
    });
}
