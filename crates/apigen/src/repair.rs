//! What documents say that the 3.0 model cannot hold as written, made into
//! what it can, each step noted at its pointer. Two kinds:
//!
//! - constructs the model lacks: a path item or a callback given by `$ref`
//!   (inlined from where the reference points, anywhere in the document),
//!   and 3.1's `mutualTLS` security scheme (set aside: the transport
//!   enforces it, so the generated code has nothing to do but name it);
//! - documents that are strictly invalid but that every mainstream tool
//!   reads: an operation without `responses`, a response without
//!   `description`, a parameter without `schema`, `info.version: 1.0`,
//!   `responses: ~`. The model is read first as it is; only when that fails
//!   is the failure looked at, repaired if it is one of these, and read
//!   again. A document that needs nothing pays nothing.

use crate::diag::{Diagnostic, Pointer};
use crate::normalize::Normalized;
use serde_yaml::{Mapping, Value};

/// References followed at most to reach one path item.
const MAX_HOPS: usize = 32;
/// Repairs made at most before a document is given up.
const MAX_REPAIRS: usize = 1000;

/// The value at a JSON pointer in the raw document.
fn at<'v>(root: &'v Value, pointer: &Pointer) -> Option<&'v Value> {
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

fn at_mut<'v>(root: &'v mut Value, pointer: &Pointer) -> Option<&'v mut Value> {
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
fn target(root: &Value, value: &Value) -> Option<(Pointer, Value)> {
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

/// A mapping given by `$ref`, replaced by what the reference names; the
/// keys written beside the reference (`summary`, `description`) kept over
/// the target's. `false` when it is not a reference, or names nothing.
fn inline(root: &Value, here: &Pointer, out: &mut Normalized, value: &mut Value) -> bool {
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
    out.moved.insert(here.to_string(), there.to_string());
    true
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Path items and callbacks given by `$ref`, inlined: under `paths`, in
/// `components.pathItems` and `components.callbacks`, and in every
/// operation's `callbacks` (each callback, and each path item in one).
pub fn inline_path_items(doc: &mut Value, out: &mut Normalized) {
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
                for method in METHODS {
                    // An operation given by `$ref`: not OpenAPI, and common.
                    let operation = here.join(method);
                    if let Some(value) = at_mut(doc, &operation) {
                        inline(&root, &operation, out, value);
                    }
                    let callbacks = here.join(method).join("callbacks");
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
        Some(Value::Mapping(items)) => items.values().any(|item| {
            METHODS
                .iter()
                .any(|m| item.get(m).is_some_and(|o| o.get("$ref").is_some()))
        }),
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
                paths.values().any(|item| {
                    METHODS
                        .iter()
                        .any(|m| item.get(m).and_then(|o| o.get("callbacks")).is_some())
                })
            })
}

/// Schemas that references reach inside something the model does not read
/// (`#/components/schemas/A/definitions/b`, `.../properties/x/$defs/y`,
/// a document's own `#/definitions/c`): each is copied into
/// `components.schemas`, named from where it stood, and the references
/// pointed there, so that the schema is read as written. A reference into
/// what the model reads is left as it is.
pub fn relocate_unmodelled(doc: &mut Value, out: &mut Normalized) {
    let mut targets = std::collections::BTreeSet::new();
    collect_unmodelled(doc, None, &mut targets);
    if targets.is_empty() {
        return;
    }
    // The shortest first: a target inside one already moved moves with it.
    let mut targets: Vec<String> = targets.into_iter().collect();
    targets.sort_by_key(String::len);
    let mut renamed: std::collections::BTreeMap<String, String> = Default::default();
    let mut moved: Vec<(String, Value)> = Vec::new();
    for target in targets {
        if renamed
            .keys()
            .any(|old| target.starts_with(old.as_str()) && target[old.len()..].starts_with('/'))
        {
            continue;
        }
        let Some(pointer) = Pointer::from_ref(&target) else {
            continue;
        };
        let Some(schema) = at(doc, &pointer).cloned() else {
            continue;
        };
        let base = crate::names::sanitize(
            &pointer
                .segments()
                .filter(|s| !matches!(s.as_str(), "components" | "schemas"))
                .collect::<Vec<_>>()
                .join(" "),
            crate::names::Case::Pascal,
        );
        let taken = |name: &str| {
            moved.iter().any(|(n, _)| n == name)
                || at(
                    doc,
                    &Pointer::root()
                        .join("components")
                        .join("schemas")
                        .join(name),
                )
                .is_some()
        };
        let mut name = base.clone();
        let mut n = 2;
        while taken(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        let new = Pointer::root()
            .join("components")
            .join("schemas")
            .join(&name);
        out.moved.insert(new.to_string(), pointer.to_string());
        renamed.insert(target, new.to_string());
        moved.push((name, schema));
    }
    let Some(root) = doc.as_mapping_mut() else {
        return;
    };
    let components = root
        .entry("components".into())
        .or_insert_with(|| Value::Mapping(Mapping::new()));
    let Some(schemas) = components.as_mapping_mut().map(|c| {
        c.entry("schemas".into())
            .or_insert_with(|| Value::Mapping(Mapping::new()))
    }) else {
        return;
    };
    if let Value::Mapping(schemas) = schemas {
        for (name, schema) in moved {
            schemas.insert(name.into(), schema);
        }
    }
    crate::normalize::rewrite_refs(doc, &renamed);
}

/// Every local `$ref` in `value` whose pointer passes through what the
/// model does not read.
fn collect_unmodelled(
    value: &Value,
    container: Option<&str>,
    found: &mut std::collections::BTreeSet<String>,
) {
    match value {
        Value::Mapping(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    (Some("$ref"), Value::String(reference)) => {
                        if reference.starts_with('#') && passes_unmodelled(reference) {
                            found.insert(reference.clone());
                        }
                    }
                    (Some(k), _)
                        if crate::load::is_extension(container, k)
                            || k == "example"
                            || k == "examples" => {}
                    (k, _) => collect_unmodelled(child, k, found),
                }
            }
        }
        Value::Sequence(items) => items
            .iter()
            .for_each(|v| collect_unmodelled(v, container, found)),
        _ => {}
    }
}

/// Whether a local reference's pointer goes through a key the model does
/// not read on its way to a schema.
fn passes_unmodelled(reference: &str) -> bool {
    #[derive(Clone, Copy)]
    enum State {
        Root,
        Components,
        SchemaName,
        Schema,
        PropertyName,
        Index,
        /// Inside something else the model reads (a path, a parameter):
        /// only a `schema` key leads into a schema.
        Other,
    }
    let Some(pointer) = Pointer::from_ref(reference) else {
        return false;
    };
    let mut state = State::Root;
    for segment in pointer.segments() {
        state = match (state, segment.as_str()) {
            (State::Root, "components") => State::Components,
            (State::Root, "paths") => State::Other,
            (State::Root, _) => return true,
            (State::Components, "schemas") => State::SchemaName,
            (
                State::Components,
                "parameters" | "responses" | "requestBodies" | "headers" | "securitySchemes"
                | "examples" | "links" | "callbacks",
            ) => State::Other,
            (State::Components, _) => return true,
            (State::SchemaName | State::PropertyName | State::Index, _) => State::Schema,
            (State::Schema, "properties") => State::PropertyName,
            (State::Schema, "items" | "additionalProperties" | "not") => State::Schema,
            (State::Schema, "allOf" | "anyOf" | "oneOf") => State::Index,
            (State::Schema, _) => return true,
            (State::Other, "schema") => State::Schema,
            (State::Other, _) => State::Other,
        };
    }
    false
}

/// A response given by a `$ref` to a request body or a schema, or a request
/// body given by one to a response or a schema: read as what the place
/// needs, made from what the reference names (its `content`, or the schema
/// as JSON), with a note. Other tools read such documents; the model
/// cannot.
pub fn retarget_kinds(doc: &mut Value, out: &mut Normalized) {
    // Only references to another kind's section are candidates: found
    // without building a pointer for every response of the document.
    let misplaced = |value: &Value, place: Place| {
        let wanted = match place {
            Place::Response => "#/components/responses/",
            Place::RequestBody => "#/components/requestBodies/",
        };
        value
            .get("$ref")
            .and_then(Value::as_str)
            .is_some_and(|r| r.starts_with("#/components/") && !r.starts_with(wanted))
    };
    let mut places: Vec<(Pointer, Place)> = Vec::new();
    if let Some(Value::Mapping(paths)) = doc.get("paths") {
        for (path, item) in paths {
            let Some(path) = path.as_str() else { continue };
            for method in METHODS {
                let Some(operation) = item.get(method) else {
                    continue;
                };
                let at = || Pointer::root().join("paths").join(path).join(method);
                if operation
                    .get("requestBody")
                    .is_some_and(|b| misplaced(b, Place::RequestBody))
                {
                    places.push((at().join("requestBody"), Place::RequestBody));
                }
                if let Some(Value::Mapping(responses)) = operation.get("responses") {
                    for (status, response) in responses {
                        if let (Some(status), true) =
                            (status.as_str(), misplaced(response, Place::Response))
                        {
                            places.push((at().join("responses").join(status), Place::Response));
                        }
                    }
                }
            }
        }
    }
    let components = Pointer::root().join("components");
    for (section, place) in [
        ("responses", Place::Response),
        ("requestBodies", Place::RequestBody),
    ] {
        if let Some(Value::Mapping(entries)) = at(doc, &components.join(section)) {
            places.extend(
                entries
                    .iter()
                    .filter(|(_, v)| misplaced(v, place))
                    .filter_map(|(name, _)| name.as_str())
                    .map(|name| (components.join(section).join(name), place)),
            );
        }
    }
    for (here, place) in places {
        let Some(reference) = at(doc, &here)
            .and_then(|v| v.get("$ref"))
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            continue;
        };
        let Some(kind) = reference
            .strip_prefix("#/components/")
            .and_then(|rest| rest.split('/').next())
        else {
            continue;
        };
        let target = Pointer::from_ref(&reference).and_then(|p| at(doc, &p).cloned());
        let json_schema = || {
            let mut media = Mapping::new();
            media.insert("schema".into(), Value::Mapping(ref_to(&reference)));
            let mut content = Mapping::new();
            content.insert("application/json".into(), Value::Mapping(media));
            Value::Mapping(content)
        };
        let (replacement, said) = match (place, kind, &target) {
            (Place::Response, "requestBodies", Some(body)) => {
                let mut response = Mapping::new();
                response.insert(
                    "description".into(),
                    body.get("description")
                        .cloned()
                        .unwrap_or_else(|| "".into()),
                );
                if let Some(content) = body.get("content") {
                    response.insert("content".into(), content.clone());
                }
                (
                    response,
                    "a request body named as a response: read as a response with its content",
                )
            }
            (Place::Response, "schemas", Some(_)) => {
                let mut response = Mapping::new();
                response.insert("description".into(), "".into());
                response.insert("content".into(), json_schema());
                (
                    response,
                    "a schema named as a response: read as a response with that JSON body",
                )
            }
            (Place::RequestBody, "responses", Some(response)) => {
                let mut body = Mapping::new();
                for key in ["description", "content"] {
                    if let Some(v) = response.get(key) {
                        body.insert(key.into(), v.clone());
                    }
                }
                (
                    body,
                    "a response named as a request body: read as a body with its content",
                )
            }
            (Place::RequestBody, "schemas", Some(_)) => {
                let mut body = Mapping::new();
                body.insert("content".into(), json_schema());
                (
                    body,
                    "a schema named as a request body: read as a JSON body of that schema",
                )
            }
            _ => continue,
        };
        if let Some(value) = at_mut(doc, &here) {
            *value = Value::Mapping(replacement);
            out.assumed
                .push(Diagnostic::at(&here, format!("`{reference}`: {said}")));
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Place {
    Response,
    RequestBody,
}

fn ref_to(reference: &str) -> Mapping {
    let mut map = Mapping::new();
    map.insert("$ref".into(), reference.into());
    map
}

/// 3.1's `mutualTLS` security schemes, which the model cannot read, taken
/// out of `components.securitySchemes`: their names.
pub fn take_mutual_tls(doc: &mut Value) -> Vec<String> {
    let Some(Value::Mapping(schemes)) = doc
        .get_mut("components")
        .and_then(|c| c.get_mut("securitySchemes"))
    else {
        return Vec::new();
    };
    let names: Vec<String> = schemes
        .iter()
        .filter(|(_, s)| s.get("type").and_then(Value::as_str) == Some("mutualTLS"))
        .filter_map(|(name, _)| name.as_str().map(str::to_string))
        .collect();
    for name in &names {
        schemes.remove(name.as_str());
    }
    names
}

/// Reads the model, repairing what every mainstream tool reads past (see
/// the module's doc), each repair a note. The failure that cannot be
/// repaired is returned, located by `locate`.
pub fn deserialize<T: serde::de::DeserializeOwned>(
    doc: &mut Value,
    assumed: &mut Vec<Diagnostic>,
    locate: impl Fn(&Value) -> (Pointer, String),
) -> Result<T, (Pointer, String)> {
    for _ in 0..MAX_REPAIRS {
        if let Ok(model) = T::deserialize(&*doc) {
            return Ok(model);
        }
        let (pointer, message) = locate(doc);
        match repair(doc, &pointer, &message) {
            Some((at, note)) => assumed.push(Diagnostic::at(&at, note)),
            None => return Err((pointer, message)),
        }
    }
    Err(locate(doc))
}

/// One repair at or below `pointer` for the failure `message`: where, and
/// what was assumed; `None` when the failure is not one to repair.
fn repair(doc: &mut Value, pointer: &Pointer, message: &str) -> Option<(Pointer, String)> {
    let node = at_mut(doc, pointer)?;
    if let Some(field) = missing_field(message) {
        let map = node.as_mapping_mut()?;
        let (value, said): (Value, &str) = match field {
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
