//! The stage after the syntax: path items and callbacks given by `$ref`,
//! which the 3.0 model cannot hold, inlined from where the reference
//! points (anywhere in the document), each move recorded.

use super::provenance::Provenance;
use super::tree::{at, at_mut, operations, target};
use crate::diag::Pointer;
use serde_yaml::Value;

/// A mapping given by `$ref`, replaced by what the reference names; the
/// keys written beside the reference (`summary`, `description`) kept over
/// the target's. `false` when it is not a reference, or names nothing.
fn inline(root: &Value, here: &Pointer, out: &mut Provenance, value: &mut Value) -> bool {
    let Some((there, Value::Mapping(mut resolved))) = target(root, value) else {
        return false;
    };
    if let Value::Mapping(beside) = value {
        for (k, v) in beside.iter() {
            if k.as_str() != Some("$ref") {
                resolved.insert(k.clone(), v.clone());
            }
        }
    }
    *value = Value::Mapping(resolved);
    out.record(here, &there);
    true
}

/// Path items and callbacks given by `$ref`, inlined: under `paths`, in
/// `components.pathItems` and `components.callbacks`, and in every
/// operation's `callbacks` (each callback, and each path item in one).
pub(super) fn inline_path_items(mut doc: Value, out: &mut Provenance) -> Value {
    inline_all(&mut doc, out);
    doc
}

fn inline_all(doc: &mut Value, out: &mut Provenance) {
    enum Work {
        PathItem(Pointer),
        Callback(Pointer),
    }
    if !mentions_path_item_refs(doc) {
        return;
    }
    let root = doc.clone();
    let entries = |section: Pointer| -> Vec<Pointer> {
        match at(&root, &section) {
            Some(Value::Mapping(map)) => map
                .keys()
                .filter_map(Value::as_str)
                .map(|k| section.join(k))
                .collect(),
            _ => Vec::new(),
        }
    };
    let components = Pointer::root().join("components");
    let mut work: Vec<Work> = entries(Pointer::root().join("paths"))
        .into_iter()
        .chain(entries(Pointer::root().join("webhooks")))
        .chain(entries(components.join("pathItems")))
        .map(Work::PathItem)
        .chain(
            entries(components.join("callbacks"))
                .into_iter()
                .map(Work::Callback),
        )
        .collect();
    work.reverse();
    let mut seen = std::collections::HashSet::new();
    while let Some(next) = work.pop() {
        let (Work::PathItem(here) | Work::Callback(here)) = &next;
        // A callback whose path item holds the callback again is met once.
        if !seen.insert(here.clone()) {
            continue;
        }
        match next {
            Work::PathItem(here) => {
                let Some(value) = at_mut(doc, &here) else {
                    continue;
                };
                inline(&root, &here, out, value);
                let places = match value {
                    Value::Mapping(item) => operations(item),
                    _ => Vec::new(),
                };
                for place in places {
                    // An operation given by `$ref`: not OpenAPI, and common.
                    let operation = place.at(&here);
                    if let Some(value) = at_mut(doc, &operation) {
                        inline(&root, &operation, out, value);
                    }
                    let callbacks = operation.join("callbacks");
                    if let Some(Value::Mapping(found)) = at(doc, &callbacks) {
                        work.extend(
                            found
                                .keys()
                                .filter_map(Value::as_str)
                                .map(|k| Work::Callback(callbacks.join(k))),
                        );
                    }
                }
            }
            Work::Callback(here) => {
                let Some(value) = at_mut(doc, &here) else {
                    continue;
                };
                inline(&root, &here, out, value);
                if let Value::Mapping(expressions) = value {
                    work.extend(
                        expressions
                            .keys()
                            .filter_map(Value::as_str)
                            .map(|e| Work::PathItem(here.join(e))),
                    );
                }
            }
        }
    }
}

/// Whether any path item or callback could be given by `$ref`: cheaper to
/// ask of the few places they stand than to walk the document.
fn mentions_path_item_refs(doc: &Value) -> bool {
    let is_ref = |v: &Value| v.get("$ref").is_some();
    let section = |v: Option<&Value>| match v {
        Some(Value::Mapping(m)) => m.values().any(is_ref),
        _ => false,
    };
    let components = doc.get("components");
    let operation_refs = |items: Option<&Value>| match items {
        Some(Value::Mapping(items)) => items
            .values()
            .any(|item| held(item, &|o| o.get("$ref").is_some())),
        _ => false,
    };
    section(doc.get("paths"))
        || section(doc.get("webhooks"))
        || operation_refs(doc.get("paths"))
        || section(components.and_then(|c| c.get("pathItems")))
        || components.and_then(|c| c.get("callbacks")).is_some()
        || doc
            .get("paths")
            .and_then(Value::as_mapping)
            .is_some_and(|paths| {
                paths
                    .values()
                    .any(|item| held(item, &|o| o.get("callbacks").is_some()))
            })
}

/// Whether an operation of the path item `item` is one `this` holds of.
fn held(item: &Value, this: &dyn Fn(&Value) -> bool) -> bool {
    let Value::Mapping(item) = item else {
        return false;
    };
    operations(item)
        .iter()
        .any(|place| place.get(item).is_some_and(this))
}
