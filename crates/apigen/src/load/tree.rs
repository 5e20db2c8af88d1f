//! The document as a YAML tree, as every stage walks it: which keys are
//! extensions, the value at a pointer, what a reference names, and
//! references pointed at values that moved.

use crate::diag::Pointer;
use serde_yaml::Value;
use std::collections::BTreeMap;

/// Keys whose value is a map from names to things: a name there that
/// starts with `x-` (a header `x-request-id`, a property `x-total`) is a
/// name, not an extension.
const NAME_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "headers",
    "schemas",
    "parameters",
    "responses",
    "requestBodies",
    "securitySchemes",
    "examples",
    "links",
    "callbacks",
    "pathItems",
    "content",
    "encoding",
    "variables",
    "mapping",
    "scopes",
    "$defs",
    "definitions",
    "webhooks",
];

/// Whether `key`, in a map that stands under `container`, is a
/// specification extension (`x-...` where the map is an object of the
/// specification, not a map of names).
pub(crate) fn is_extension(container: Option<&str>, key: &str) -> bool {
    key.starts_with("x-") && !container.is_some_and(|c| NAME_MAPS.contains(&c))
}

/// serde_yaml appends " at line L column C" to its messages; the location is
/// reported separately, so drop it from the text.
pub(super) fn strip_location(message: &str) -> &str {
    message.find(" at line ").map_or(message, |i| &message[..i])
}

/// Points every `$ref` that names a moved value (or something inside it)
/// at its new place.
pub(crate) fn rewrite_refs(value: &mut Value, renamed: &BTreeMap<String, String>) {
    rewrite_refs_in(value, None, renamed);
}

fn rewrite_refs_in(value: &mut Value, container: Option<&str>, renamed: &BTreeMap<String, String>) {
    match value {
        Value::Mapping(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref") {
                for (old, new) in renamed {
                    if let Some(rest) = reference.strip_prefix(old.as_str()) {
                        if rest.is_empty() || rest.starts_with('/') {
                            *reference = format!("{new}{rest}");
                            break;
                        }
                    }
                }
            }
            for (k, v) in map.iter_mut() {
                let key = k.as_str();
                if !key.is_some_and(|k| is_extension(container, k)) {
                    rewrite_refs_in(v, key, renamed);
                }
            }
        }
        Value::Sequence(items) => items
            .iter_mut()
            .for_each(|v| rewrite_refs_in(v, container, renamed)),
        _ => {}
    }
}

/// References followed at most to reach one path item.
const MAX_HOPS: usize = 32;

/// The value at a JSON pointer in the raw document.
pub(super) fn at<'v>(root: &'v Value, pointer: &Pointer) -> Option<&'v Value> {
    let mut here = root;
    for segment in pointer.segments() {
        here = match here {
            Value::Mapping(map) => map.get(segment.as_str())?,
            Value::Sequence(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(here)
}

pub(super) fn at_mut<'v>(root: &'v mut Value, pointer: &Pointer) -> Option<&'v mut Value> {
    let mut here = root;
    for segment in pointer.segments() {
        here = match here {
            Value::Mapping(map) => map.get_mut(segment.as_str())?,
            Value::Sequence(items) => items.get_mut(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(here)
}

/// What a local `$ref` standing in `value` names, after following any
/// chain of them; with the pointer where it was found.
pub(super) fn target(root: &Value, value: &Value) -> Option<(Pointer, Value)> {
    let mut reference = value.get("$ref")?.as_str()?.to_string();
    for _ in 0..MAX_HOPS {
        let pointer = Pointer::from_ref(&reference)?;
        let found = at(root, &pointer)?;
        match found.get("$ref").and_then(Value::as_str) {
            Some(next) => reference = next.to_string(),
            None => return Some((pointer, found.clone())),
        }
    }
    None
}

/// The operations a path item may hold, by their keys.
pub(super) const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// OpenAPI 3.2's `query` operation, beside the methods' own fields.
pub(super) const QUERY: &str = "query";

/// OpenAPI 3.2's map from other methods (`LINK`, `COPY`) to operations.
pub(super) const ADDITIONAL: &str = "additionalOperations";

/// An operation of a path item: where it stands below the item (`get`,
/// `query`, `additionalOperations/LINK`) and the method a request names.
pub(super) struct Place {
    pub key: Pointer,
    pub method: String,
    pub field: Field,
}

/// Which field of a path item holds an operation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    /// A method's own field that the 3.0 model reads (`get`, `trace`).
    Model,
    /// 3.2's `query`.
    Query,
    /// An entry of 3.2's `additionalOperations`.
    Additional,
}

impl Place {
    /// Where the operation stands, for an item at `item`.
    pub fn at(&self, item: &Pointer) -> Pointer {
        self.key
            .segments()
            .fold(item.clone(), |p, segment| p.join(segment))
    }

    /// The operation, in its path item `item`.
    pub fn get<'v>(&self, item: &'v serde_yaml::Mapping) -> Option<&'v Value> {
        let mut segments = self.key.segments();
        let mut here = item.get(segments.next()?.as_str())?;
        for segment in segments {
            here = here.get(segment.as_str())?;
        }
        Some(here)
    }

    /// The operation, in its path item `item`, to change.
    pub fn get_mut<'v>(&self, item: &'v mut serde_yaml::Mapping) -> Option<&'v mut Value> {
        let mut segments = self.key.segments();
        let mut here = item.get_mut(segments.next()?.as_str())?;
        for segment in segments {
            here = here.get_mut(segment.as_str())?;
        }
        Some(here)
    }
}

/// Every operation `item` holds, in the order written: the methods' own
/// fields, then `query`, then `additionalOperations` (whose keys are the
/// methods as sent).
pub(super) fn operations(map: &serde_yaml::Mapping) -> Vec<Place> {
    let own = METHODS
        .iter()
        .chain([&QUERY])
        .filter(|m| map.contains_key(**m))
        .map(|m| Place {
            key: Pointer::root().join(m),
            method: m.to_ascii_uppercase(),
            field: if *m == QUERY {
                Field::Query
            } else {
                Field::Model
            },
        });
    let additional = match map.get(ADDITIONAL) {
        Some(Value::Mapping(others)) => others
            .keys()
            .filter_map(Value::as_str)
            .map(|m| Place {
                key: Pointer::root().join(ADDITIONAL).join(m),
                method: m.to_string(),
                field: Field::Additional,
            })
            .collect(),
        _ => Vec::new(),
    };
    own.chain(additional).collect()
}
