//! The stage before the model is read: what documents say that the 3.0
//! model cannot hold as written, made into what it can, each step noted at
//! its pointer: references into what the model does not read (the schema
//! copied where it does), a reference to another kind of component (read
//! as the kind the place needs), and 3.1's `mutualTLS` security scheme (set
//! aside: the transport enforces it, so the generated code has nothing to
//! do but name it).

use super::provenance::Provenance;
use super::tree::{at, at_mut, is_extension, operations, rewrite_refs};
use crate::diag::{Diagnostic, Pointer};
use serde_yaml::{Mapping, Value};

/// The document repaired, and the names of its `mutualTLS` schemes.
pub(super) fn repair(mut doc: Value, out: &mut Provenance) -> (Value, Vec<String>) {
    relocate_unmodelled(&mut doc, out);
    retarget_kinds(&mut doc, out);
    let mutual_tls = take_mutual_tls(&mut doc);
    (doc, mutual_tls)
}

/// Schemas that references reach inside something the model does not read
/// (`#/components/schemas/A/definitions/b`, `.../properties/x/$defs/y`,
/// a document's own `#/definitions/c`): each is copied into
/// `components.schemas`, named from where it stood, and the references
/// pointed there, so that the schema is read as written. A reference into
/// what the model reads is left as it is.
fn relocate_unmodelled(doc: &mut Value, out: &mut Provenance) {
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
    rewrite_refs(doc, &renamed);
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
                        if is_extension(container, k) || k == "example" || k == "examples" => {}
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
fn retarget_kinds(doc: &mut Value, out: &mut Provenance) {
    let places = misplaced(doc);
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
        let Some((replacement, said)) = retargeted(place, kind, target.as_ref(), &reference) else {
            continue;
        };
        if let Some(value) = at_mut(doc, &here) {
            *value = Value::Mapping(replacement);
            out.assumed
                .push(Diagnostic::at(&here, format!("`{reference}`: {said}")));
        }
    }
}

/// The places (a request body, a response, under an operation or among
/// the components) whose `$ref` names a component of another kind. Only
/// such references are candidates: found without building a pointer for
/// every response of the document.
fn misplaced(doc: &Value) -> Vec<(Pointer, Place)> {
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
            let Value::Mapping(item) = item else { continue };
            for place in operations(item) {
                let Some(operation) = place.get(item) else {
                    continue;
                };
                let at = || place.at(&Pointer::root().join("paths").join(path));
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
    places
}

/// What a reference to `kind`'s component `target` at a `place` of
/// another kind is read as, and the note that says so.
fn retargeted(
    place: Place,
    kind: &str,
    target: Option<&Value>,
    reference: &str,
) -> Option<(Mapping, &'static str)> {
    let json_schema = || {
        let mut media = Mapping::new();
        media.insert("schema".into(), Value::Mapping(ref_to(reference)));
        let mut content = Mapping::new();
        content.insert("application/json".into(), Value::Mapping(media));
        Value::Mapping(content)
    };
    let retargeted = match (place, kind, target) {
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
        _ => return None,
    };
    Some(retargeted)
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
fn take_mutual_tls(doc: &mut Value) -> Vec<String> {
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
