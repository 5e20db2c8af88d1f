//! The last stage: the document, as a value, read as the 3.0 model, and
//! each webhook as a path item.
//!
//! Documents that are strictly invalid but that every mainstream tool reads
//! (an operation without `responses`, a response without `description`, a
//! parameter without `schema`, `info.version: 1.0`, `responses: ~`) are
//! repaired as they are read: the model is read first as it is; only when
//! that fails is the failure looked at, repaired if it is one of these, and
//! read again. A document that needs nothing pays nothing. serde loses the
//! path inside `#[serde(flatten)]` structs, so a failure is located by
//! reading the document's parts one by one ([`locate`]).

use super::provenance::Provenance;
use super::tree::{at_mut, operations, strip_location, Field, Place, ADDITIONAL, METHODS, QUERY};
use super::OtherOperation;
use crate::diag::{Diagnostic, Pointer};
use openapiv3::{OpenAPI, Operation, PathItem};
use serde_yaml::{Mapping, Value};

/// The document read as the model, each webhook as a path item, and each
/// operation the model has no field for.
pub(super) struct Resolved {
    pub doc: OpenAPI,
    pub webhooks: Vec<(String, PathItem)>,
    pub other_operations: Vec<OtherOperation>,
}

/// The document read as the model, each webhook as a path item and each
/// operation of a method the model has no field for (3.2's `query` and
/// `additionalOperations`) on its own; every repair noted in `provenance`,
/// located in the document as written.
pub(super) fn resolve(
    mut value: Value,
    webhooks: Vec<(String, Value)>,
    version: &str,
    provenance: &mut Provenance,
) -> Result<Resolved, Vec<Diagnostic>> {
    let label = version.get(..3).unwrap_or("3.0");
    let others = take_other_operations(&mut value, provenance);
    let doc = deserialize::<OpenAPI>(&mut value, &mut provenance.assumed, |value| {
        match serde_path_to_error::deserialize::<_, OpenAPI>(value) {
            Ok(_) => (Pointer::root(), "the document reads".into()),
            Err(e) => locate(value, &Pointer::root(), &e),
        }
    })
    .map_err(|(pointer, message)| {
        vec![provenance.locate(Diagnostic::at(
            &pointer,
            format!("not a valid OpenAPI {label} document: {message}"),
        ))]
    })?;
    let webhooks = webhooks
        .into_iter()
        .map(|(name, item)| (Pointer::root().join("webhooks").join(&name), name, item))
        .collect();
    let webhooks = read_each::<PathItem, _>(webhooks, Part::PathItem, "webhook", provenance);
    let others = read_each::<Operation, _>(others, Part::Operation, "operation", provenance);
    match (webhooks, others) {
        (Ok(webhooks), Ok(others)) => Ok(Resolved {
            doc,
            webhooks,
            other_operations: others
                .into_iter()
                .map(|((path, method, at), op)| OtherOperation {
                    path,
                    method,
                    at,
                    op,
                })
                .collect(),
        }),
        (webhooks, others) => Err(webhooks
            .err()
            .into_iter()
            .chain(others.err())
            .flatten()
            .collect()),
    }
}

/// Each operation of the path items under `paths` that stands where the
/// model has no field (`query`, `additionalOperations`), taken out: where
/// it stood, its path and method, and the operation. A method that is not
/// an HTTP token, or that has a field of its own, is left out with a note.
fn take_other_operations(
    doc: &mut Value,
    out: &mut Provenance,
) -> Vec<(Pointer, (String, String, Pointer), Value)> {
    let mut taken = Vec::new();
    let Some(Value::Mapping(paths)) = doc.get_mut("paths") else {
        return taken;
    };
    for (path, item) in paths.iter_mut() {
        let (Some(path), Value::Mapping(item)) = (path.as_str(), item) else {
            continue;
        };
        let at = Pointer::root().join("paths").join(path);
        for place in operations(item) {
            if place.field == Field::Model {
                continue;
            }
            let Some(op) = place.get(item).cloned() else {
                continue;
            };
            let here = place.at(&at);
            match foreign_method(&place) {
                Some(why) => out.note(&here, why),
                None => taken.push((here.clone(), (path.to_string(), place.method, here), op)),
            }
        }
        item.remove(QUERY);
        item.remove(ADDITIONAL);
    }
    taken
}

/// Why an operation of `additionalOperations` is not generated, if it is
/// not: its key is not a method a request can name, or it names one that
/// has a field of its own.
fn foreign_method(place: &Place) -> Option<String> {
    let method = &place.method;
    // RFC 9110's `token`.
    let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if method.is_empty() || !method.chars().all(tchar) {
        return Some(format!(
            "`{method}` is not an HTTP method name (a token): this operation is left out"
        ));
    }
    let own = METHODS
        .iter()
        .chain([&QUERY])
        .find(|m| m.eq_ignore_ascii_case(method));
    match own {
        Some(own) if place.field == Field::Additional => Some(format!(
            "`{method}` has a field of its own (`{own}`), which `additionalOperations` must not \
             repeat: this operation is left out"
        )),
        _ => None,
    }
}

/// Each part (a webhook's path item, an operation read on its own) read as
/// `T`, with the same repairs as the document's, each noted where the part
/// stands; `what` names the part in an error.
fn read_each<T: serde::de::DeserializeOwned, K>(
    parts: Vec<(Pointer, K, Value)>,
    part: Part,
    what: &str,
    provenance: &mut Provenance,
) -> Result<Vec<(K, T)>, Vec<Diagnostic>> {
    let mut read_all = Vec::new();
    let mut errors = Vec::new();
    for (here, key, mut value) in parts {
        let mut assumed = Vec::new();
        let read = deserialize::<T>(&mut value, &mut assumed, |value| {
            match serde_path_to_error::deserialize::<_, T>(value) {
                Ok(_) => (Pointer::root(), format!("the {what} reads")),
                Err(e) => locate_part(value, &e, part),
            }
        });
        let rebased = |pointer: &Pointer| {
            pointer
                .segments()
                .fold(here.clone(), |p, segment| p.join(&segment))
        };
        provenance.assumed.extend(assumed.into_iter().map(|d| {
            let pointer = match &d.location {
                crate::diag::Location::Pointer(p) => Pointer::from_ref(p),
                _ => None,
            };
            match pointer {
                Some(pointer) => Diagnostic::at(&rebased(&pointer), d.message),
                None => Diagnostic::at(&here, d.message),
            }
        }));
        match read {
            Ok(read) => read_all.push((key, read)),
            Err((pointer, message)) => errors.push(provenance.locate(Diagnostic::at(
                &rebased(&pointer),
                format!("not a valid {what}: {}", strip_location(&message)),
            ))),
        }
    }
    if errors.is_empty() {
        Ok(read_all)
    } else {
        Err(errors)
    }
}

/// serde loses the path inside `#[serde(flatten)]` structs, which openapiv3 uses
/// at every level. So, from the path serde did report, deserialize the document's
/// parts one by one (path items, operations, parameters, responses, components)
/// and report the innermost part that fails.
fn locate(
    root: &serde_yaml::Value,
    base: &Pointer,
    error: &serde_path_to_error::Error<serde_yaml::Error>,
) -> (Pointer, String) {
    use serde_path_to_error::Segment;
    let mut pointer = base.clone();
    for segment in error.path().iter() {
        match segment {
            Segment::Seq { index } => pointer = pointer.join(index),
            Segment::Map { key } => pointer = pointer.join(key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    let message = error.inner().to_string();
    refine(root, Pointer::root(), Part::Document).unwrap_or((pointer, message))
}

/// As [`locate`], for a value that is a `part` of a document read on its
/// own (a webhook's path item): the pointer is relative to it.
fn locate_part(
    value: &serde_yaml::Value,
    error: &serde_path_to_error::Error<serde_yaml::Error>,
    part: Part,
) -> (Pointer, String) {
    use serde_path_to_error::Segment;
    let mut pointer = Pointer::root();
    for segment in error.path().iter() {
        match segment {
            Segment::Seq { index } => pointer = pointer.join(index),
            Segment::Map { key } => pointer = pointer.join(key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    let message = error.inner().to_string();
    refine(value, Pointer::root(), part).unwrap_or((pointer, message))
}

/// The parts of a document that can be deserialized on their own.
#[derive(Clone, Copy)]
enum Part {
    Document,
    Paths,
    PathItem,
    Operation,
    Responses,
    Leaf(fn(serde_yaml::Value) -> Result<(), String>),
    /// A list, each item read on its own.
    List(fn(serde_yaml::Value) -> Result<(), String>),
    Components,
    ComponentMap(fn(serde_yaml::Value) -> Result<(), String>),
}

fn check<T: serde::de::DeserializeOwned>(value: serde_yaml::Value) -> Result<(), String> {
    serde_yaml::from_value::<T>(value)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The innermost failing part below `value`, if any part fails on its own.
fn refine(value: &serde_yaml::Value, at: Pointer, part: Part) -> Option<(Pointer, String)> {
    use openapiv3 as o;
    let entries = || {
        value
            .as_mapping()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| {
                Some((
                    k.as_str()
                        .map(str::to_string)
                        .or_else(|| k.as_u64().map(|n| n.to_string()))?,
                    v,
                ))
            })
    };
    let children: Vec<(Pointer, &serde_yaml::Value, Part)> = match part {
        Part::Document => entries()
            .filter_map(|(k, v)| {
                let part = match k.as_str() {
                    "paths" => Part::Paths,
                    "components" => Part::Components,
                    "info" => Part::Leaf(check::<o::Info>),
                    "servers" => Part::Leaf(check::<Vec<o::Server>>),
                    "tags" => Part::Leaf(check::<Vec<o::Tag>>),
                    _ => return None,
                };
                Some((at.join(&k), v, part))
            })
            .collect(),
        Part::Paths => entries()
            .map(|(k, v)| (at.join(&k), v, Part::PathItem))
            .collect(),
        Part::PathItem => entries()
            .map(|(k, v)| {
                let part = match k.as_str() {
                    "parameters" => Part::List(check::<o::ReferenceOr<o::Parameter>>),
                    "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace" => {
                        Part::Operation
                    }
                    _ => Part::Leaf(|_| Ok(())),
                };
                (at.join(&k), v, part)
            })
            .collect(),
        Part::Operation => entries()
            .map(|(k, v)| {
                let part = match k.as_str() {
                    "responses" => Part::Responses,
                    "requestBody" => Part::Leaf(check::<o::ReferenceOr<o::RequestBody>>),
                    "parameters" => Part::List(check::<o::ReferenceOr<o::Parameter>>),
                    _ => Part::Leaf(|_| Ok(())),
                };
                (at.join(&k), v, part)
            })
            .collect(),
        Part::Responses => entries()
            .map(|(k, v)| {
                (
                    at.join(&k),
                    v,
                    Part::Leaf(check::<o::ReferenceOr<o::Response>>),
                )
            })
            .collect(),
        Part::Components => entries()
            .filter_map(|(k, v)| {
                let part = match k.as_str() {
                    "schemas" => Part::ComponentMap(check::<o::ReferenceOr<o::Schema>>),
                    "parameters" => Part::ComponentMap(check::<o::ReferenceOr<o::Parameter>>),
                    "responses" => Part::ComponentMap(check::<o::ReferenceOr<o::Response>>),
                    "headers" => Part::ComponentMap(check::<o::ReferenceOr<o::Header>>),
                    "requestBodies" => Part::ComponentMap(check::<o::ReferenceOr<o::RequestBody>>),
                    "securitySchemes" => {
                        Part::ComponentMap(check::<o::ReferenceOr<o::SecurityScheme>>)
                    }
                    _ => return None,
                };
                Some((at.join(&k), v, part))
            })
            .collect(),
        Part::ComponentMap(f) => entries()
            .map(|(k, v)| (at.join(&k), v, Part::Leaf(f)))
            .collect(),
        Part::List(f) => match value.as_sequence() {
            Some(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (at.join(i), v, Part::Leaf(f)))
                .collect(),
            None => {
                return check::<Vec<serde_yaml::Value>>(value.clone())
                    .err()
                    .map(|m| (at, m))
            }
        },
        Part::Leaf(f) => {
            return f(value.clone()).err().map(|m| (at, m));
        }
    };
    if let Some(found) = children
        .into_iter()
        .find_map(|(at, v, part)| refine(v, at, part))
    {
        return Some(found);
    }
    // No part inside fails on its own: the part as a whole may (a field of
    // its own missing).
    let whole: Option<fn(serde_yaml::Value) -> Result<(), String>> = match part {
        Part::PathItem => Some(check::<o::PathItem>),
        Part::Operation => Some(check::<o::Operation>),
        Part::Responses => Some(check::<o::Responses>),
        Part::Components => Some(check::<o::Components>),
        _ => None,
    };
    whole.and_then(|f| f(value.clone()).err()).map(|m| (at, m))
}

/// Repairs made at most before a document is given up.
const MAX_REPAIRS: usize = 1000;

/// Reads the model, repairing what every mainstream tool reads past (see
/// the module's doc), each repair a note. The failure that cannot be
/// repaired is returned, located by `locate`.
fn deserialize<T: serde::de::DeserializeOwned>(
    doc: &mut Value,
    assumed: &mut Vec<Diagnostic>,
    locate: impl Fn(&Value) -> (Pointer, String),
) -> Result<T, (Pointer, String)> {
    for _ in 0..MAX_REPAIRS {
        if let Ok(model) = T::deserialize(&*doc) {
            return Ok(model);
        }
        let (pointer, message) = locate(doc);
        match repair_at(doc, &pointer, &message) {
            Some((at, note)) => assumed.push(Diagnostic::at(&at, note)),
            None => return Err((pointer, message)),
        }
    }
    Err(locate(doc))
}

/// One repair at or below `pointer` for the failure `message`: where, and
/// what was assumed; `None` when the failure is not one to repair.
fn repair_at(doc: &mut Value, pointer: &Pointer, message: &str) -> Option<(Pointer, String)> {
    let node = at_mut(doc, pointer)?;
    if let Some(field) = missing_field(message) {
        let map = node.as_mapping_mut()?;
        let (value, said) = missing_default(field)?;
        map.insert(field.into(), value);
        return Some((pointer.clone(), said.to_string()));
    }
    if message.contains("no variant of enum ParameterSchemaOrContent") {
        let map = node.as_mapping_mut()?;
        if map.contains_key("schema") || map.contains_key("content") {
            return None;
        }
        let mut schema = Mapping::new();
        schema.insert("type".into(), "string".into());
        map.insert("schema".into(), Value::Mapping(schema));
        let said = "neither `schema` nor `content` is given: read as a string";
        return Some((pointer.clone(), said.into()));
    }
    if let Some(expected) = message.strip_prefix("invalid type: null, expected ") {
        let empty = if expected.contains("sequence") {
            Value::Sequence(Vec::new())
        } else if expected.contains("string") {
            Value::String(String::new())
        } else {
            Value::Mapping(Mapping::new())
        };
        // `expected struct Responses`: a null under `responses`, however
        // deep the failure was reported above it; else the first null.
        let key = expected.strip_prefix("struct ").map(|name| {
            let mut chars = name.chars();
            chars
                .next()
                .map(|c| c.to_ascii_lowercase().to_string() + chars.as_str())
                .unwrap_or_default()
        });
        let (path, described) = replace_null(node, key.as_deref(), &empty)
            .or_else(|| replace_null(node, None, &empty))?;
        let at = path.iter().fold(pointer.clone(), |p, s| p.join(s));
        let name = path.last().map_or("the value", String::as_str);
        return Some((
            at,
            format!("`{name}` is null: read as {}", describe(&described)),
        ));
    }
    if message.starts_with("invalid type: map, expected a string")
        || message.starts_with("invalid type: sequence, expected a string")
    {
        // `summary: {text: ...}`: a mapping or a list under a key that holds
        // text, as its JSON text (nothing it says is lost).
        let (key, value) = replace_keyed(node, &|key, v| {
            STRING_FIELDS.contains(&key) && matches!(v, Value::Mapping(_) | Value::Sequence(_))
        })?;
        let at = key.iter().fold(pointer.clone(), |p, s| p.join(s));
        let name = key.last().map_or("the value", String::as_str);
        return Some((
            at,
            format!("`{name}` is not text: read as its JSON text, {value}"),
        ));
    }
    if message.contains(", expected a string") {
        // `version: 1.0`: the scalar named in the message, as its text.
        let quoted = between_backticks(message);
        let (key, value) = replace_first(
            node,
            &|v| {
                matches!(v, Value::Number(_) | Value::Bool(_))
                    && quoted.is_none_or(|q| scalar_text(v).as_deref() == Some(q))
            },
            &|v| scalar_text(v).map(Value::String),
        )?;
        let at = key.iter().fold(pointer.clone(), |p, s| p.join(s));
        let name = key.last().map_or("the value", String::as_str);
        return Some((
            at,
            format!("`{name}` is not a string: read as \"{}\"", value.as_str()?),
        ));
    }
    if message.contains("expected a boolean") {
        let (key, value) = replace_first(
            node,
            &|v| matches!(v.as_str(), Some("true" | "false")),
            &|v| Some(Value::Bool(v.as_str() == Some("true"))),
        )?;
        let at = key.iter().fold(pointer.clone(), |p, s| p.join(s));
        let name = key.last().map_or("the value", String::as_str);
        return Some((
            at,
            format!(
                "`{name}` is a string: read as the boolean {}",
                value.as_bool()?
            ),
        ));
    }
    None
}

/// What a missing required field is read as, and the note that says so.
fn missing_default(field: &str) -> Option<(Value, &'static str)> {
    let default = match field {
        "responses" => (
            Value::Mapping(Mapping::new()),
            "`responses` is missing: read as none declared",
        ),
        "description" => (
            Value::String(String::new()),
            "`description` is missing: read as empty",
        ),
        "paths" => (
            Value::Mapping(Mapping::new()),
            "`paths` is missing: read as none",
        ),
        "info" => {
            let mut info = Mapping::new();
            info.insert("title".into(), "API".into());
            info.insert("version".into(), "0".into());
            (
                Value::Mapping(info),
                "`info` is missing: the API is called `API`, version 0",
            )
        }
        "title" => (
            Value::String("API".into()),
            "`title` is missing: read as `API`",
        ),
        "version" => (Value::String("0".into()), "`version` is missing: read as 0"),
        _ => return None,
    };
    Some(default)
}

/// The field a serde "missing field `x`" message names.
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}

fn between_backticks(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(&message[start..end])
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Sequence(_) => "an empty list",
        Value::String(_) => "empty text",
        _ => "an empty map",
    }
}

/// Replaces the first value in `node` (itself, or a child, or a child's
/// child, breadth first) that `matches`, with what `with` makes of it; the
/// keys that lead to it from `node` and the new value.
fn replace_first(
    node: &mut Value,
    matches: &dyn Fn(&Value) -> bool,
    with: &dyn Fn(&Value) -> Option<Value>,
) -> Option<(Vec<String>, Value)> {
    if matches(node) {
        let new = with(node)?;
        *node = new.clone();
        return Some((Vec::new(), new));
    }
    let mut frontier: Vec<(Vec<String>, &mut Value)> = vec![(Vec::new(), node)];
    for _ in 0..2 {
        let mut next = Vec::new();
        for (path, value) in frontier {
            for (name, child) in children(value) {
                let mut here = path.clone();
                here.push(name);
                if matches(child) {
                    let new = with(child)?;
                    *child = new.clone();
                    return Some((here, new));
                }
                next.push((here, child));
            }
        }
        frontier = next;
    }
    None
}

/// The keys whose values are text in every object of the 3.0 model that
/// has them.
const STRING_FIELDS: &[&str] = &[
    "summary",
    "description",
    "operationId",
    "title",
    "version",
    "name",
    "termsOfService",
    "url",
    "email",
    "format",
    "pattern",
    "scheme",
    "bearerFormat",
    "openIdConnectUrl",
    "authorizationUrl",
    "tokenUrl",
    "refreshUrl",
    "operationRef",
    "contentType",
    "propertyName",
];

/// Replaces the first child of `node` (or child's child, breadth first)
/// whose key and value `matches` with the value's JSON text; the keys that
/// lead to it and the text.
fn replace_keyed(
    node: &mut Value,
    matches: &dyn Fn(&str, &Value) -> bool,
) -> Option<(Vec<String>, String)> {
    let mut frontier: Vec<(Vec<String>, &mut Value)> = vec![(Vec::new(), node)];
    for _ in 0..3 {
        let mut next = Vec::new();
        for (path, value) in frontier {
            for (name, child) in children(value) {
                let mut here = path.clone();
                here.push(name.clone());
                if matches(&name, child) {
                    let text = serde_json::to_string(&*child).ok()?;
                    *child = Value::String(text.clone());
                    return Some((here, text));
                }
                next.push((here, child));
            }
        }
        frontier = next;
    }
    None
}

/// A mapping's entries or a list's items, each with its key.
fn children(value: &mut Value) -> Vec<(String, &mut Value)> {
    match value {
        Value::Mapping(map) => map
            .iter_mut()
            .map(|(k, v)| {
                (
                    k.as_str().map_or_else(|| format!("{k:?}"), str::to_string),
                    v,
                )
            })
            .collect(),
        Value::Sequence(items) => items
            .iter_mut()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => Vec::new(),
    }
}

/// Replaces the first null in `node`, breadth first, standing under `key`
/// when one is given; the keys that lead to it and what replaced it.
fn replace_null(node: &mut Value, key: Option<&str>, with: &Value) -> Option<(Vec<String>, Value)> {
    let mut frontier: Vec<(Vec<String>, &mut Value)> = vec![(Vec::new(), node)];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for (path, value) in frontier {
            for (name, child) in children(value) {
                let mut here = path.clone();
                here.push(name.clone());
                if child.is_null() && key.is_none_or(|k| k == name) {
                    *child = with.clone();
                    return Some((here, with.clone()));
                }
                next.push((here, child));
            }
        }
        frontier = next;
    }
    None
}
