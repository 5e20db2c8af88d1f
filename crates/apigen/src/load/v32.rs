//! OpenAPI 3.2 read as 3.1, which it extends. What 3.2 adds either has a
//! 3.1 spelling, and is rewritten to it (a response's `summary` and a
//! server's `name` where they have no `description`, an example's
//! `dataValue`, XML's `nodeType: attribute` and an array's
//! `nodeType: element`; a discriminator's `defaultMapping` as the
//! extension [`DEFAULT_MAPPING`]; a tag's `summary` and `parent` as
//! [`TAG_SUMMARY`] and [`TAG_PARENT`]; a security scheme's `deprecated`
//! as [`SCHEME_DEPRECATED`], noted), or is not generated
//! yet: then it is taken out and noted where it was written, so that the
//! rest of the document generates as its 3.1 reading would and nothing is
//! dropped silently.
//!
//! A media type given by reference to `components.mediaTypes` is replaced
//! by what it names, its move recorded, before anything else is read.
//!
//! The `query` method and `additionalOperations` stay where they are
//! written under `paths`: every stage reads them as operations
//! ([`super::tree::operations`]) and the last takes them out beside the
//! model, which has no field for them. Under webhooks and callbacks they
//! are taken out and noted.
//!
//! An event stream's `itemSchema` is its `schema` (the generator decides
//! by its shape that it describes whole events), its `data`'s
//! `contentSchema` the type of each event's data. Another sequential media
//! type's (JSON Lines, JSON text sequences, `multipart/mixed`) is the
//! `items` of an array `schema`, which the generator reads as the type of
//! each item.
//!
//! An `in: querystring` parameter whose content is a form of an object is an
//! `in: query` object in `style: form` with `explode: true`: each property a
//! pair of the query string.
//!
//! An example's `serializedValue` under a media type, where it has no data,
//! is its value (parsed, for JSON). `$self` makes a reference to the
//! document by its own URI local ([`self_references`]).
//!
//! An `in: querystring` parameter with JSON content is an `in: query` one
//! marked [`QUERYSTRING`]: the whole query string is its JSON text.
//!
//! Not generated yet, each noted: other `in: querystring` parameters,
//! `prefixEncoding` and an `itemEncoding` other than JSON parts, any other
//! `serializedValue`, and XML's `nodeType`
//! `text`, `cdata` and `none`. A security scheme's `oauth2MetadataUrl` is
//! carried as [`OAUTH2_METADATA_URL`]: a client discovers its device flow there.

use super::provenance::Provenance;
use super::tree::{operations, target, ADDITIONAL, QUERY};
use crate::diag::Pointer;
use serde_yaml::{Mapping, Value};

/// The document's 3.2 additions rewritten or taken out, each noted.
pub(super) fn to_31(mut doc: Value, out: &mut Provenance) -> Value {
    let root = Pointer::root();
    self_references(&mut doc);
    media_types(&mut doc, out);
    let Value::Mapping(map) = &mut doc else {
        return doc;
    };
    servers(map, &root, out);
    take_noted(
        map,
        "$self",
        &root,
        out,
        "`$self` is read as the document's URI: a reference to the document by it is local; \
         other relative references resolve against where the document was read",
    );
    if let Some(Value::Sequence(tags)) = map.get_mut("tags") {
        for (i, tag) in tags.iter_mut().enumerate() {
            if let Value::Mapping(tag) = tag {
                let at = root.join("tags").join(i);
                carry(tag, "summary", TAG_SUMMARY, &at, out);
                carry(tag, "parent", TAG_PARENT, &at, out);
                carry(tag, "kind", TAG_KIND, &at, out);
            }
        }
    }
    each_entry(map, "paths", &root.join("paths"), out, path_item);
    each_entry(map, "webhooks", &root.join("webhooks"), out, hook_item);
    if let Some(Value::Mapping(components)) = map.get_mut("components") {
        let at = root.join("components");
        each_entry(
            components,
            "pathItems",
            &at.join("pathItems"),
            out,
            path_item,
        );
        each_entry(
            components,
            "responses",
            &at.join("responses"),
            out,
            response,
        );
        each_entry(
            components,
            "requestBodies",
            &at.join("requestBodies"),
            out,
            holder,
        );
        each_entry(components, "headers", &at.join("headers"), out, holder);
        each_entry(components, "examples", &at.join("examples"), out, example);
        each_entry(
            components,
            "securitySchemes",
            &at.join("securitySchemes"),
            out,
            scheme,
        );
        parameters(components, &at, out);
    }
    schema_keywords(&mut doc, &root, out);
    doc
}

/// OpenAPI 3.2's `$self`, the document's own URI: every `$ref` that
/// resolves against it to the document itself
/// (`https://example.com/api/openapi.yaml#/components/schemas/Pet`, or
/// `openapi.yaml#/...` beside it) made local (`#/components/schemas/Pet`).
/// Other references are left as written. Run before files are bundled, and
/// again by the 3.2 stage (a document given as text): each run finds what
/// is left.
pub(crate) fn self_references(doc: &mut Value) {
    let Some(own) = doc.get("$self").and_then(Value::as_str) else {
        return;
    };
    let own = own.split('#').next().unwrap_or_default().to_string();
    fn walk(value: &mut Value, own: &str) {
        match value {
            Value::Mapping(map) => {
                for (key, child) in map.iter_mut() {
                    if key.as_str() == Some("$ref") {
                        if let Value::String(reference) = child {
                            if let Some(local) = local_reference(own, reference) {
                                *reference = local;
                            }
                        }
                    } else {
                        walk(child, own);
                    }
                }
            }
            Value::Sequence(items) => items.iter_mut().for_each(|item| walk(item, own)),
            _ => {}
        }
    }
    walk(doc, &own);
}

/// `reference` as a local one (`#...`), when it resolves against `own`
/// (the document's URI, RFC 3986's way, dot segments aside) to `own`.
fn local_reference(own: &str, reference: &str) -> Option<String> {
    let (target, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    if target.is_empty() {
        return None;
    }
    let (scheme, rest) = own.split_once("://").unwrap_or(("", own));
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let resolved = if target.contains("://") {
        target.to_string()
    } else if let Some(network) = target.strip_prefix("//") {
        format!("{scheme}://{network}")
    } else if target.starts_with('/') {
        format!("{scheme}://{}{target}", &rest[..authority_end])
    } else {
        let dir = own.rfind('/').map_or("", |i| &own[..=i]);
        format!("{dir}{}", target.trim_start_matches("./"))
    };
    (resolved == own).then(|| format!("#{fragment}"))
}

/// Where 3.2 keeps reusable media types, which 3.1 has no section for.
const MEDIA_TYPES: &str = "#/components/mediaTypes/";

/// Every reference to `components.mediaTypes` (a `content` entry given by
/// `$ref`) replaced by the media type it names, each move recorded, and
/// the section taken out: the rest of the line reads them where they are
/// used, as 3.1 would have written them.
fn media_types(doc: &mut Value, out: &mut Provenance) {
    let defined = doc
        .get("components")
        .and_then(|c| c.get("mediaTypes"))
        .is_some();
    if !defined {
        return;
    }
    let root = doc.clone();
    inline_media_types(&root, doc, &Pointer::root(), out);
    if let Some(Value::Mapping(components)) = doc.get_mut("components") {
        components.remove("mediaTypes");
    }
}

fn inline_media_types(root: &Value, value: &mut Value, at: &Pointer, out: &mut Provenance) {
    match value {
        Value::Mapping(map) => {
            for (key, child) in map.iter_mut() {
                let Some(key) = key.as_str() else { continue };
                let here = at.join(key);
                if let (true, Value::Mapping(content)) = (key == "content", &mut *child) {
                    for (media, entry) in content.iter_mut() {
                        let Some(media) = media.as_str() else {
                            continue;
                        };
                        let place = here.join(media);
                        let named = entry
                            .get("$ref")
                            .and_then(Value::as_str)
                            .is_some_and(|r| r.starts_with(MEDIA_TYPES));
                        if named && !inline_target(root, entry, &place, out) {
                            *entry = Value::Mapping(Mapping::new());
                            out.assumed.push(crate::diag::Diagnostic::at(
                                &place,
                                "`$ref` names no media type: read as one with no schema",
                            ));
                        }
                    }
                }
                inline_media_types(root, child, &here, out);
            }
        }
        Value::Sequence(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                inline_media_types(root, item, &at.join(i), out);
            }
        }
        _ => {}
    }
}

/// `value`, a local `$ref`, replaced by what it names (through any chain
/// of them), its move recorded; `false` when it names nothing.
fn inline_target(root: &Value, value: &mut Value, at: &Pointer, out: &mut Provenance) -> bool {
    let Some((there, found)) = target(root, value) else {
        return false;
    };
    *value = found;
    out.record(at, &there);
    true
}

/// Takes `key` out of `map`, noting `why` at its place.
fn take_noted(map: &mut Mapping, key: &str, at: &Pointer, out: &mut Provenance, why: &str) {
    if map.remove(key).is_some() {
        out.note(&at.join(key), why);
    }
}

/// Applies `each` to every entry of the mapping `map[key]`, at `at/name`.
fn each_entry(
    map: &mut Mapping,
    key: &str,
    at: &Pointer,
    out: &mut Provenance,
    each: fn(&mut Mapping, &Pointer, &mut Provenance),
) {
    if let Some(Value::Mapping(entries)) = map.get_mut(key) {
        for (name, entry) in entries.iter_mut() {
            if let (Some(name), Value::Mapping(entry)) = (name.as_str(), entry) {
                each(entry, &at.join(name), out);
            }
        }
    }
}

/// A path item under `paths` (or the components' path items, which are
/// inlined there): its `query` and `additionalOperations` stay, operations
/// like the others; its parameters and operations are read.
fn path_item(item: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    parameters(item, at, out);
    servers(item, at, out);
    for place in operations(item) {
        if let Some(Value::Mapping(operation)) = place.get_mut(item) {
            self::operation(operation, &place.at(at), out);
        }
    }
}

/// A webhook's or a callback's path item: the methods 3.2 adds are not
/// generated there (a webhook's payload is a model of the POST or PUT it
/// describes), so they are taken out and noted; the rest is read as a path
/// item.
fn hook_item(item: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    take_noted(
        item,
        QUERY,
        at,
        out,
        "the QUERY method is generated under `paths` only: this operation is left out",
    );
    if let Some(Value::Mapping(others)) = item.remove(ADDITIONAL) {
        for method in others.keys().filter_map(Value::as_str) {
            out.note(
                &at.join(ADDITIONAL).join(method),
                format!(
                    "the `{method}` method (`additionalOperations`) is generated under `paths` \
                     only: this operation is left out"
                ),
            );
        }
    }
    path_item(item, at, out);
}

/// An operation: its parameters, body, responses and callbacks.
fn operation(op: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    parameters(op, at, out);
    servers(op, at, out);
    if let Some(Value::Mapping(body)) = op.get_mut("requestBody") {
        holder(body, &at.join("requestBody"), out);
    }
    each_entry(op, "responses", &at.join("responses"), out, response);
    if let Some(Value::Mapping(callbacks)) = op.get_mut("callbacks") {
        for (name, callback) in callbacks.iter_mut() {
            if let (Some(name), Value::Mapping(callback)) = (name.as_str(), callback) {
                let at = at.join("callbacks").join(name);
                for (expression, item) in callback.iter_mut() {
                    if let (Some(expression), Value::Mapping(item)) = (expression.as_str(), item) {
                        hook_item(item, &at.join(expression), out);
                    }
                }
            }
        }
    }
}

/// The parameters of `map` (a list, or the components' mapping): an
/// `in: querystring` one is read as [`querystring`] says, or taken out,
/// noted; the others' content and examples read.
fn parameters(map: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    let at = at.join("parameters");
    // Whether the parameter at `here` stays.
    let mut kept = |p: &mut Value, here: Pointer| {
        if p.get("in").and_then(Value::as_str) == Some("querystring") && !querystring(p, &here, out)
        {
            return false;
        }
        if let Value::Mapping(p) = p {
            if p.get("style").and_then(Value::as_str) == Some("cookie") {
                // 3.2's style for cookies as the `Cookie` header carries
                // them: a scalar reads the same as `form`.
                p.insert("style".into(), "form".into());
                out.note(
                    &here.join("style"),
                    "`style: cookie` is read as `form`: the same for a single value; a list or \
                     an object is read as `form` spells it, its values percent-decoded",
                );
            }
            holder(p, &here, out);
        }
        true
    };
    match map.get_mut("parameters") {
        Some(Value::Sequence(list)) => {
            let mut index = 0;
            list.retain_mut(|p| {
                index += 1;
                kept(p, at.join(index - 1))
            });
        }
        Some(Value::Mapping(named)) => {
            named.retain(|name, p| kept(p, at.join(name.as_str().unwrap_or_default())));
        }
        _ => {}
    }
}

/// An `in: querystring` parameter whose content is a form
/// (`application/x-www-form-urlencoded`) of an object: the whole query
/// string is that object's properties, each a pair, which is what 3.1 says
/// of an `in: query` object in `style: form` with `explode: true`; it is
/// rewritten so, its schema's move recorded. JSON content is read as
/// [`json_querystring`] says.
fn querystring(p: &mut Value, at: &Pointer, out: &mut Provenance) -> bool {
    const FORM: &str = "application/x-www-form-urlencoded";
    let Value::Mapping(param) = p else {
        return false;
    };
    let form = param
        .get("content")
        .and_then(Value::as_mapping)
        .filter(|content| content.len() == 1)
        .and_then(|content| content.iter().next())
        .filter(|(media, _)| {
            media
                .as_str()
                .is_some_and(|m| crate::media::essence(m) == FORM)
        })
        .and_then(|(media, entry)| Some((media.as_str()?.to_string(), entry.get("schema")?)));
    let object = |schema: &Value| {
        schema.get("$ref").is_some()
            || schema.get("properties").is_some()
            || schema.get("type").and_then(Value::as_str) == Some("object")
    };
    let Some((media, schema)) = form.filter(|(_, schema)| object(schema)) else {
        return json_querystring(param, at, out);
    };
    let schema = schema.clone();
    let content_at = at.join("content").join(media.as_str());
    if param
        .get("content")
        .and_then(|c| c.get(media.as_str()))
        .and_then(|m| m.get("encoding"))
        .is_some()
    {
        let why = "a query string's `encoding` is not used: each property is a pair, as a form \
                   sends it";
        out.note(&content_at.join("encoding"), why);
    }
    param.remove("content");
    param.insert("in".into(), "query".into());
    param.insert("style".into(), "form".into());
    param.insert("explode".into(), true.into());
    param.insert("schema".into(), schema);
    out.record(&at.join("schema"), &content_at.join("schema"));
    true
}

/// An `in: querystring` parameter whose one content entry is JSON: the
/// whole query string is its JSON text, percent-encoded. It stays a
/// parameter described by `content`, now `in: query`, marked
/// [`QUERYSTRING`]. Any other content is noted and the parameter left out:
/// `false`.
fn json_querystring(param: &mut Mapping, at: &Pointer, out: &mut Provenance) -> bool {
    let json = param
        .get("content")
        .and_then(Value::as_mapping)
        .filter(|content| content.len() == 1)
        .and_then(|content| content.keys().next())
        .and_then(Value::as_str)
        .is_some_and(crate::media::is_json);
    if !json {
        let why = "an `in: querystring` parameter (OpenAPI 3.2) is generated for a form \
                   (`application/x-www-form-urlencoded`) of an object, or for JSON: this one is \
                   left out, and the query string is not read as one value";
        out.note(at, why);
        return false;
    }
    param.insert("in".into(), "query".into());
    param.insert(QUERYSTRING.into(), Value::Bool(true));
    true
}

/// A response: its `summary` is its description where it has none.
fn response(r: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    spelled_as(r, "summary", "description", at, out, "a response's");
    holder(r, at, out);
}

/// `map[from]` moved to `map[to]`, its 3.1 spelling, where that is absent;
/// beside it, taken out and noted as not used (`whose`: of what it is).
fn spelled_as(
    map: &mut Mapping,
    from: &str,
    to: &str,
    at: &Pointer,
    out: &mut Provenance,
    whose: &str,
) {
    if map.contains_key(to) {
        if map.remove(from).is_some() {
            let why = format!("{whose} `{from}` is not used beside its `{to}`");
            out.note(&at.join(from), why);
        }
    } else {
        carry(map, from, to, at, out);
    }
}

/// `map[from]` moved to `map[to]` (the map at `at`), its move recorded;
/// whether there was one to move.
fn carry(map: &mut Mapping, from: &str, to: &str, at: &Pointer, out: &mut Provenance) -> bool {
    let Some(value) = map.remove(from) else {
        return false;
    };
    map.insert(to.into(), value);
    out.record(&at.join(to), &at.join(from));
    true
}

/// What holds content and examples (a body, a response, a parameter, a
/// header): each media type's sequential keywords and each example.
fn holder(map: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    each_entry(map, "examples", &at.join("examples"), out, example);
    each_entry(map, "headers", &at.join("headers"), out, holder);
    each_entry(map, "content", &at.join("content"), out, media_type);
}

/// A media type: an event stream's `itemSchema` is its events' schema;
/// another sequential media type's (JSON Lines, a JSON text sequence,
/// `multipart/mixed`, which is then marked [`SEQUENTIAL`]) is the schema of
/// its items, written as 3.1 would, the `items` of an array `schema`
/// (which the generator reads as the items' type). What stays
/// (`prefixEncoding`, an `itemEncoding` other than JSON parts) is noted and
/// taken out, and the body is then read as its `schema` says, or as any
/// value.
fn media_type(media: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    let kind = at
        .segments()
        .last()
        .and_then(|m| crate::ir::Media::stream_of(&m));
    // An event's data typed by its `contentSchema` by the stage after
    // this one (`super::events`), for every version.
    let events = kind == Some(crate::ir::Media::Events);
    if events && !media.contains_key("schema") {
        carry(media, "itemSchema", "schema", at, out);
    }
    // `multipart/mixed` is a stream of parts only where `itemSchema` says
    // so (an earlier document's `schema` of it describes named parts).
    let essence = crate::media::essence(&at.segments().last().unwrap_or_default());
    let parts = essence == "multipart/mixed" && media.contains_key("itemSchema");
    if parts {
        media.insert(SEQUENTIAL.into(), Value::Bool(true));
        // Each part is written and read as JSON: an encoding that says so
        // says nothing more.
        let json_parts = media
            .get("itemEncoding")
            .and_then(|e| e.get("contentType"))
            .and_then(Value::as_str)
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
        if json_parts {
            media.remove("itemEncoding");
        }
    }
    let items = (kind.is_some() && !events) || parts;
    if let Some(item) = items.then(|| media.remove("itemSchema")).flatten() {
        if media.contains_key("schema") {
            let why = "`schema` beside `itemSchema`: the items are read by `itemSchema`";
            out.note(&at.join("schema"), why);
        }
        let mut array = Mapping::new();
        array.insert("type".into(), "array".into());
        array.insert("items".into(), item);
        media.insert("schema".into(), Value::Mapping(array));
        out.record(&at.join("schema").join("items"), &at.join("itemSchema"));
    }
    for key in ["itemSchema", "itemEncoding", "prefixEncoding"] {
        let why = format!(
            "`{key}` (sequential media, OpenAPI 3.2) is not generated for this media type yet: \
             the body is read as its `schema` says, or as any value"
        );
        take_noted(media, key, at, out, &why);
    }
    each_entry(media, "examples", &at.join("examples"), out, example);
}

/// An example: `dataValue` is its value where it has none.
///
/// Without either, a `serializedValue` under a media type is its value:
/// parsed, for a JSON media type, else the text as it is sent (which the
/// mock sends as it is, and the reference page shows). Elsewhere (a
/// parameter's, a shared one), or beside a value, it is noted and not used.
fn example(e: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    spelled_as(e, "dataValue", "value", at, out, "an example's");
    let media = {
        let segments: Vec<String> = at.segments().collect();
        let content = segments.iter().rposition(|s| s == "content");
        content.and_then(|i| segments.get(i + 1).cloned())
    };
    let serialized = e.get("serializedValue").and_then(Value::as_str);
    if let (false, Some(media), Some(text)) = (e.contains_key("value"), media, serialized) {
        let value = if crate::media::is_json(&media) {
            serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| serde_yaml::to_value(v).ok())
        } else {
            Some(Value::String(text.to_string()))
        };
        if let Some(value) = value {
            e.remove("serializedValue");
            e.insert("value".into(), value);
            out.record(&at.join("value"), &at.join("serializedValue"));
            return;
        }
    }
    take_noted(
        e,
        "serializedValue",
        at,
        out,
        "an example's `serializedValue` is not used here (beside its data, outside a media \
         type, or not the JSON its media type says): the mock and the reference page show its data",
    );
}

/// A security scheme's 3.2 fields.
fn scheme(s: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    if s.get("deprecated").and_then(Value::as_bool) == Some(true) {
        out.note(
            &at.join("deprecated"),
            "the security scheme is deprecated: the reference page marks it; clients and \
             servers still use it where operations require it",
        );
    }
    carry(s, "deprecated", SCHEME_DEPRECATED, at, out);
    carry(s, "oauth2MetadataUrl", OAUTH2_METADATA_URL, at, out);
    if let Some(Value::Mapping(flows)) = s.get_mut("flows") {
        carry(
            flows,
            "deviceAuthorization",
            DEVICE_FLOW,
            &at.join("flows"),
            out,
        );
    }
}

/// The extension a discriminator's `defaultMapping` is carried in, since
/// the model has no field for it.
pub(crate) const DEFAULT_MAPPING: &str = "x-defaultMapping";

/// The extension a security scheme's `deprecated` is carried in.
pub(crate) const SCHEME_DEPRECATED: &str = "x-deprecated";

/// The extensions a tag's `summary` and `parent` are carried in.
pub(crate) const TAG_SUMMARY: &str = "x-summary";
pub(crate) const TAG_PARENT: &str = "x-parent";

/// The extension an OAuth 2 scheme's `deviceAuthorization` flow is
/// carried in.
pub(crate) const DEVICE_FLOW: &str = "x-deviceAuthorization";

/// The extension an OAuth 2 scheme's `oauth2MetadataUrl` is carried in.
pub(crate) const OAUTH2_METADATA_URL: &str = "x-oauth2MetadataUrl";

/// The extension that marks a parameter as the whole query string (3.2's
/// `in: querystring`), its JSON text.
pub(crate) const QUERYSTRING: &str = "x-querystring";

/// The extension that marks a `multipart/mixed` media type as a stream of
/// parts, each an item of its `schema`'s `items` (3.2's `itemSchema`).
pub(crate) const SEQUENTIAL: &str = "x-sequential";

/// The extension a tag's `kind` is carried in.
pub(crate) const TAG_KIND: &str = "x-kind";

/// Every schema's 3.2 keywords, wherever a schema stands: a
/// discriminator's `defaultMapping`, and XML's `nodeType`.
fn schema_keywords(value: &mut Value, at: &Pointer, out: &mut Provenance) {
    match value {
        Value::Mapping(map) => {
            // A map of property names holds schemas, not keywords.
            if at.segments().last().as_deref() != Some("properties") {
                xml_node_type(map, at, out);
            }
            for (key, child) in map.iter_mut() {
                let Some(key) = key.as_str() else { continue };
                let here = at.join(key);
                if let (true, Value::Mapping(d)) = (key == "discriminator", &mut *child) {
                    // The model has no field for it: carried as an
                    // extension of the discriminator, which lowering reads.
                    if d.contains_key("propertyName") {
                        carry(d, "defaultMapping", DEFAULT_MAPPING, &here, out);
                    }
                }
                schema_keywords(child, &here, out);
            }
        }
        Value::Sequence(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                schema_keywords(item, &at.join(i), out);
            }
        }
        _ => {}
    }
}

/// XML's `nodeType` in the schema `schema`, in 3.1's words: `attribute` is
/// `attribute: true`, `element` on an array is `wrapped: true` (and on
/// anything else what 3.1 assumes); `text`, `cdata` and `none` have no
/// 3.1 spelling and are noted.
fn xml_node_type(schema: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    let array =
        schema.get("type").and_then(Value::as_str) == Some("array") || schema.contains_key("items");
    let Some(Value::Mapping(xml)) = schema.get_mut("xml") else {
        return;
    };
    let Some(node) = xml.remove("nodeType") else {
        return;
    };
    let at = at.join("xml").join("nodeType");
    match node.as_str() {
        Some("attribute") => {
            xml.entry("attribute".into()).or_insert(Value::Bool(true));
        }
        Some("element") if array => {
            xml.entry("wrapped".into()).or_insert(Value::Bool(true));
        }
        Some("element") => {}
        other => {
            let node = other.unwrap_or("?");
            out.note(
                &at,
                format!(
                    "XML's `nodeType: {node}` is not generated: the value is read as an element"
                ),
            );
        }
    }
}

/// A server's 3.2 `name`: its description where it has none.
fn servers(map: &mut Mapping, at: &Pointer, out: &mut Provenance) {
    if let Some(Value::Sequence(servers)) = map.get_mut("servers") {
        for (i, server) in servers.iter_mut().enumerate() {
            if let Value::Mapping(server) = server {
                let at = at.join("servers").join(i);
                spelled_as(server, "name", "description", &at, out, "a server's");
            }
        }
    }
}

#[cfg(test)]
mod tests;
