//! The spec's promises, checked on every answer the end-to-end tests get:
//! each request sent through [`crate::helpers::call`] (and so through
//! `TestApp::call`, `get`, `post`, `get_as`) has its answer held to the
//! operation it reached, as schemathesis holds it:
//!
//! - the status is one the operation declares (a code, a range, `default`);
//! - every header the response declares `required` is there, and every
//!   declared header present parses as its schema says;
//! - the body's media type is a declared one, and the body validates
//!   against that media type's schema (bounds, enums, formats, required
//!   properties, `additionalProperties`); a response that declares no
//!   content sends none.
//!
//! The schemas are the spec's, read from `petstore_api::SPEC_YAML` (the
//! document the server serves) and validated as JSON Schema draft 4, the
//! dialect OpenAPI 3.0 extends; `nullable: true` is rewritten into a
//! `null` alternative first. Requests that reach no operation (404 and 405
//! answers, `/healthz`) are not an operation's answers and are not held
//! to one. The `api` suite's `conformance` module walks every operation
//! through its answers on purpose.

use crate::helpers::Reply;
use petstore_api::metadata::BASE_PATH;
use reqwest::Method;
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// The spec as JSON Schema, its operations, and validators made so far.
pub struct Contract {
    document: Value,
    routes: Vec<Route>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// One operation: its method, its path template's segments (`None` for a
/// parameter), and the JSON pointer of its operation object.
pub struct Route {
    pub id: String,
    method: String,
    segments: Vec<Option<String>>,
    pointer: String,
}

/// The contract, read once per test process.
pub fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        let spec: Value =
            serde_yaml::from_str(petstore_api::SPEC_YAML).expect("the served spec is YAML");
        Contract::new(spec)
    })
}

/// `~` and `/` escaped for a JSON pointer (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A JSON pointer as a URI fragment: what a fragment may not hold
/// (`{`, `}`, spaces, ...) percent-encoded (RFC 6901 section 6).
fn fragment(pointer: &str) -> String {
    pointer
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => (b as char).to_string(),
            b'-' | b'.' | b'_' | b'~' | b'/' | b':' | b'@' | b'!' | b'$' | b'&' | b'\'' => {
                (b as char).to_string()
            }
            b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' | b'?' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// OpenAPI 3.0's `nullable: true`, said in JSON Schema draft 4: `null`
/// added to the type and the enum, or, beside a reference or composition,
/// an `anyOf` with `{type: null}`.
fn nullable_to_json_schema(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(nullable_to_json_schema),
        Value::Object(object) => {
            object.values_mut().for_each(nullable_to_json_schema);
            if object.remove("nullable") != Some(Value::Bool(true)) {
                return;
            }
            if let Some(Value::Array(values)) = object.get_mut("enum") {
                values.push(Value::Null);
            }
            match object.get("type").cloned() {
                Some(Value::String(t)) => {
                    object.insert("type".into(), json!([t, "null"]));
                }
                _ => {
                    let inner = Value::Object(std::mem::take(object));
                    object.insert("anyOf".into(), json!([inner, { "type": "null" }]));
                }
            }
        }
        _ => {}
    }
}

impl Contract {
    fn new(mut spec: Value) -> Contract {
        nullable_to_json_schema(&mut spec);
        let mut routes = Vec::new();
        for (path, item) in spec["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("a path item") {
                let Some(id) = operation.get("operationId").and_then(Value::as_str) else {
                    continue;
                };
                routes.push(Route {
                    id: id.to_string(),
                    method: method.to_uppercase(),
                    segments: path
                        .split('/')
                        .skip(1)
                        .map(|s| (!s.starts_with('{')).then(|| s.to_string()))
                        .collect(),
                    pointer: format!("/paths/{}/{method}", escape(path)),
                });
            }
        }
        Contract {
            document: spec,
            routes,
            validators: Mutex::new(HashMap::new()),
        }
    }

    /// The operation `method path` reaches, if any: literal segments win
    /// over parameters, as in the router.
    pub fn route(&self, method: &Method, path: &str) -> Option<&Route> {
        let path = path.split('?').next().unwrap_or(path);
        let path = path.strip_prefix(BASE_PATH)?;
        let segments: Vec<&str> = path.split('/').skip(1).collect();
        self.routes
            .iter()
            .filter(|r| r.method == method.as_str() && r.segments.len() == segments.len())
            .filter(|r| {
                r.segments
                    .iter()
                    .zip(&segments)
                    .all(|(template, s)| template.as_deref().is_none_or(|t| t == *s))
            })
            .max_by_key(|r| r.segments.iter().filter(|s| s.is_some()).count())
    }

    /// The value at `pointer`, following a `$ref` that stands there; the
    /// pointer of what was found.
    fn resolve(&self, pointer: &str) -> (String, &Value) {
        let mut pointer = pointer.to_string();
        loop {
            let value = self
                .document
                .pointer(&pointer)
                .unwrap_or_else(|| panic!("the spec has nothing at {pointer}"));
            match value.get("$ref").and_then(Value::as_str) {
                Some(target) => pointer = target.trim_start_matches('#').to_string(),
                None => return (pointer, value),
            }
        }
    }

    /// A validator for the schema at `pointer`, made once: the whole spec
    /// is its document, so every reference in it resolves.
    fn validator(&self, pointer: &str) -> Arc<jsonschema::Validator> {
        let mut made = self
            .validators
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        made.entry(pointer.to_string())
            .or_insert_with(|| {
                let mut root = self.document.clone();
                root.as_object_mut().unwrap().insert(
                    "$ref".into(),
                    Value::String(format!("#{}", fragment(pointer))),
                );
                Arc::new(
                    jsonschema::draft4::options()
                        .should_validate_formats(true)
                        .build(&root)
                        .unwrap_or_else(|e| panic!("the schema at {pointer}: {e}")),
                )
            })
            .clone()
    }

    fn validate(&self, pointer: &str, value: &Value) -> Result<(), String> {
        let validator = self.validator(pointer);
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| format!("{e} (at {})", e.instance_path()))
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("; "))
        }
    }

    /// Holds `reply`, the answer to `method path` (path from the server's
    /// root, query included), to its operation's declared responses.
    /// Returns the operationId it reached, or `None` when it reached none.
    pub fn check(&self, method: &Method, path: &str, reply: &Reply) -> Option<String> {
        self.pair(method, path, reply).map(|(id, _)| id)
    }

    /// As [`Contract::check`]; the operationId and the key of the
    /// declared response the answer was held to (`200`, `4XX`, `default`).
    pub fn pair(&self, method: &Method, path: &str, reply: &Reply) -> Option<(String, String)> {
        let route = self.route(method, path)?;
        match self.check_response(route, reply) {
            Ok(key) => Some((route.id.clone(), key)),
            Err(broken) => panic!(
                "{} {path} ({}) answered what the spec does not allow: {broken}\n{reply:?}",
                method, route.id
            ),
        }
    }

    /// Every (operationId, response key) pair the spec declares.
    pub fn declared(&self) -> BTreeSet<(String, String)> {
        self.routes
            .iter()
            .flat_map(|route| {
                let responses = &self.document.pointer(&route.pointer).unwrap()["responses"];
                let keys: Vec<String> = responses
                    .as_object()
                    .map(|r| r.keys().cloned().collect())
                    .unwrap_or_default();
                keys.into_iter().map(|key| (route.id.clone(), key))
            })
            .collect()
    }

    /// Holds `reply` to `route`'s declared responses; the key of the one
    /// it was held to.
    pub fn check_response(&self, route: &Route, reply: &Reply) -> Result<String, String> {
        let responses = &self.document.pointer(&route.pointer).unwrap()["responses"];
        let status = reply.status.as_u16();
        let range = format!("{}XX", status / 100);
        let key = [status.to_string(), range.clone(), range.to_lowercase()]
            .into_iter()
            .chain(["default".to_string()])
            .find(|k| responses.get(k).is_some())
            .ok_or_else(|| format!("status {status} is not declared"))?;
        let (response, declared) =
            self.resolve(&format!("{}/responses/{}", route.pointer, escape(&key)));

        // Headers.
        let headers = declared.get("headers").and_then(Value::as_object);
        for name in headers.into_iter().flat_map(Map::keys) {
            let (header, spec) = self.resolve(&format!("{response}/headers/{}", escape(name)));
            let Some(value) = reply.header(name) else {
                if spec["required"] == json!(true) {
                    return Err(format!("the required header {name} is missing"));
                }
                continue;
            };
            let schema = format!("{header}/schema");
            let (_, resolved) = self.resolve(&schema);
            let typed = match resolved["type"].as_str() {
                Some("integer" | "number") => value
                    .parse::<serde_json::Number>()
                    .map(Value::Number)
                    .map_err(|_| format!("header {name}: `{value}` is not a number"))?,
                Some("boolean") => value
                    .parse::<bool>()
                    .map(Value::Bool)
                    .map_err(|_| format!("header {name}: `{value}` is not a boolean"))?,
                _ => Value::String(value.to_string()),
            };
            self.validate(&schema, &typed)
                .map_err(|e| format!("header {name}: `{value}`: {e}"))?;
        }

        // Body.
        let content = declared.get("content").and_then(Value::as_object);
        let Some(content) = content.filter(|c| !c.is_empty()) else {
            return match &reply.body {
                Value::Null => Ok(key),
                body => Err(format!("no content is declared, and a body came: {body}")),
            };
        };
        let media_type = reply
            .header("content-type")
            .map(|t| t.split(';').next().unwrap_or(t).trim().to_ascii_lowercase())
            .ok_or("a body is declared, and no content-type came")?;
        if !content.contains_key(&media_type) {
            return Err(format!(
                "content-type {media_type} is not one of {:?}",
                content.keys().collect::<Vec<_>>()
            ));
        }
        if content[&media_type].get("schema").is_none() {
            return Ok(key);
        }
        let schema = format!("{response}/content/{}/schema", escape(&media_type));
        if media_type == "text/event-stream" {
            // The body is the data of the events read, each held to the
            // schema of its data: the whole event's `data` property's
            // content schema (`x-contentSchema`, 3.0's spelling of
            // `contentSchema`) where the schema describes whole events.
            let data = format!("{schema}/properties/data/x-contentSchema");
            let whole = self.document.pointer(&data).is_some();
            let schema = if whole { data } else { schema };
            let events = reply
                .body
                .as_array()
                .ok_or("a stream's events were not read")?;
            for (i, event) in events.iter().enumerate() {
                self.validate(&schema, event)
                    .map_err(|e| format!("event {i}: {e}"))?;
            }
            return Ok(key);
        }
        self.validate(&schema, &reply.body)
            .map_err(|e| format!("body: {e}"))?;
        Ok(key)
    }

    /// Every operationId in the spec.
    pub fn operations(&self) -> BTreeSet<String> {
        self.routes.iter().map(|r| r.id.clone()).collect()
    }
}
