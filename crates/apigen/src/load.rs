//! Reading a document: YAML (or JSON) text -> `openapiv3::OpenAPI`, with errors
//! located by line and column or by JSON pointer.
//!
//! OpenAPI 3.0.x is read as it is; 3.1.x is first rewritten into the 3.0
//! shape by [`crate::normalize`] (one loader decides the version; the rest
//! of the pipeline is the same), its webhooks taken out, and every pointer
//! it reports mapped back into the document as written.

use crate::diag::{Diagnostic, Location, Pointer};
use crate::normalize::Normalized;
use openapiv3::{OpenAPI, PathItem};

/// A document read into the 3.0 model, with what reading a 3.1 document
/// took out of it.
#[derive(Debug)]
pub struct Loaded {
    pub doc: OpenAPI,
    /// The version the document declares (`3.0.3`, `3.1.0`).
    pub version: String,
    /// 3.1 `webhooks`: each name and path item.
    pub webhooks: Vec<(String, PathItem)>,
    /// What reading the document moved (inlined path items, 3.1's
    /// `$defs`) and noted (3.1 keywords, repairs of what is strictly
    /// invalid).
    pub normalized: Normalized,
    /// Security schemes of 3.1's `type: mutualTLS`, which the transport
    /// enforces: their names.
    pub mutual_tls: Vec<String>,
}

/// Parses a document. Syntax errors carry a line and column; errors in the
/// document's structure carry the JSON pointer of the offending value.
pub fn parse(text: &str) -> Result<Loaded, Vec<Diagnostic>> {
    from_value(syntax(text)?)
}

/// YAML or JSON text -> a YAML value. Text that starts with `{` is JSON and
/// is read by a JSON parser: JSON allows inside strings characters that
/// YAML forbids (C1 controls, U+2028), which real documents carry. Mapping
/// keys that are not strings (`200:`, `examples: {0: ...}`) are read as
/// their string form, as every JSON-minded tool reads them.
pub fn syntax(text: &str) -> Result<serde_yaml::Value, Vec<Diagnostic>> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut value = if body.trim_start().starts_with('{') {
        json(body)?
    } else {
        yaml(text)?
    };
    if has_encoded_refs(text) {
        decode_refs(&mut value, None);
    }
    Ok(value)
}

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

/// Whether some `$ref` in the text holds a `%` (cheaper than walking the
/// parsed document to find out).
fn has_encoded_refs(text: &str) -> bool {
    text.match_indices("$ref").any(|(i, _)| {
        let value = &text[i + 4..];
        let end = value.find(['\n', ',', '}']).unwrap_or(value.len());
        value[..end].contains('%')
    })
}

/// A `$ref` is a URI: its fragment, the JSON pointer, is percent-decoded
/// before it is resolved (RFC 6901, section 6), so that
/// `#/paths/~1pets~1%7BpetId%7D` names `/pets/{petId}`. Every reference in
/// the document is decoded once here, so everything after reads plain
/// pointers; references inside `x-` extensions and examples are data and
/// are left alone. A `%` that does not start an escape stays as it is.
fn decode_refs(value: &mut serde_yaml::Value, container: Option<&str>) {
    use serde_yaml::Value;
    match value {
        Value::Sequence(items) => items.iter_mut().for_each(|v| decode_refs(v, container)),
        Value::Mapping(map) => {
            for (key, child) in map.iter_mut() {
                let key = key.as_str().unwrap_or_default();
                if key == "$ref" {
                    if let Value::String(reference) = child {
                        if let Some(decoded) = decode_fragment(reference) {
                            *reference = decoded;
                        }
                    }
                } else if !(is_extension(container, key) || key == "example" || key == "examples") {
                    decode_refs(child, Some(key));
                }
            }
        }
        _ => {}
    }
}

/// `reference` with its fragment percent-decoded, when it holds an escape
/// and decodes to UTF-8.
fn decode_fragment(reference: &str) -> Option<String> {
    let (before, fragment) = reference.split_once('#')?;
    if !fragment.contains('%') {
        return None;
    }
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(format!("{before}#{}", String::from_utf8(out).ok()?))
}

fn yaml(text: &str) -> Result<serde_yaml::Value, Vec<Diagnostic>> {
    serde_yaml::from_str::<Tolerant>(text)
        .map(|t| t.0)
        .map_err(|e| {
            let location = match e.location() {
                Some(l) => Location::LineColumn {
                    line: l.line(),
                    column: l.column(),
                },
                None => Location::Document,
            };
            vec![Diagnostic {
                location,
                message: format!("invalid YAML: {}", strip_location(&e.to_string())),
            }]
        })
}

fn json(text: &str) -> Result<serde_yaml::Value, Vec<Diagnostic>> {
    use serde::Deserialize as _;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Tolerant::deserialize(&mut deserializer).and_then(|Tolerant(value)| {
        deserializer.end()?;
        Ok(value)
    });
    value.map_err(|e| {
        vec![Diagnostic {
            location: Location::LineColumn {
                line: e.line(),
                column: e.column(),
            },
            message: format!("invalid JSON: {}", strip_location(&e.to_string())),
        }]
    })
}

/// A whole document, as a value, -> `OpenAPI`.
pub fn from_value(mut value: serde_yaml::Value) -> Result<Loaded, Vec<Diagnostic>> {
    let version = value
        .get("openapi")
        .and_then(serde_yaml::Value::as_str)
        .unwrap_or_default()
        .to_string();
    if !(version.starts_with("3.0.") || version.starts_with("3.1.")) {
        return Err(vec![Diagnostic {
            location: Location::Pointer(Pointer::root().join("openapi").to_string()),
            message: if version.is_empty() {
                "not an OpenAPI document: `openapi` field is missing".to_string()
            } else {
                format!("unsupported OpenAPI version `{version}`: 3.0.x and 3.1.x are supported")
            },
        }]);
    }
    let mut normalized = Normalized::default();
    crate::repair::inline_path_items(&mut value, &mut normalized);
    if version.starts_with("3.1.") {
        crate::normalize::normalize(&mut value, &mut normalized);
    }
    crate::repair::relocate_unmodelled(&mut value, &mut normalized);
    crate::repair::retarget_kinds(&mut value, &mut normalized);
    let mutual_tls = crate::repair::take_mutual_tls(&mut value);
    let label = if version.starts_with("3.1.") {
        "3.1"
    } else {
        "3.0"
    };
    let doc = crate::repair::deserialize::<OpenAPI>(&mut value, &mut normalized.assumed, |value| {
        match serde_path_to_error::deserialize::<_, OpenAPI>(value) {
            Ok(_) => (Pointer::root(), "the document reads".into()),
            Err(e) => locate(value, &Pointer::root(), &e),
        }
    })
    .map_err(|(pointer, message)| {
        vec![normalized.locate(Diagnostic::at(
            &pointer,
            format!("not a valid OpenAPI {label} document: {message}"),
        ))]
    })?;
    // Each webhook is a path item of its own, read with the same repairs
    // as the document's (3.1 lets its operations declare no `responses`),
    // each noted where the webhook stands.
    let mut webhooks = Vec::new();
    let mut errors = Vec::new();
    for (name, item) in normalized.webhooks.clone() {
        let here = Pointer::root().join("webhooks").join(&name);
        let mut item = item;
        let mut assumed = Vec::new();
        let read = crate::repair::deserialize::<PathItem>(&mut item, &mut assumed, |value| {
            match serde_path_to_error::deserialize::<_, PathItem>(value) {
                Ok(_) => (Pointer::root(), "the webhook reads".into()),
                Err(e) => locate_part(value, &e, Part::PathItem),
            }
        });
        let rebased = |pointer: &Pointer| {
            pointer
                .segments()
                .fold(here.clone(), |p, segment| p.join(&segment))
        };
        normalized.assumed.extend(assumed.into_iter().map(|d| {
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
            Ok(item) => webhooks.push((name, item)),
            Err((pointer, message)) => errors.push(Diagnostic::at(
                &rebased(&pointer),
                format!("not a valid webhook: {}", strip_location(&message)),
            )),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Loaded {
        doc,
        version,
        webhooks,
        normalized,
        mutual_tls,
    })
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

/// A YAML value read a little more tolerantly than `serde_yaml::Value` reads
/// itself: integers beyond 64 bits (`minimum: -9223372036854776000`, seen in
/// real documents) become floats instead of failing the whole document.
struct Tolerant(serde_yaml::Value);

impl<'de> serde::Deserialize<'de> for Tolerant {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TolerantVisitor).map(Tolerant)
    }
}

struct TolerantVisitor;

impl<'de> serde::de::Visitor<'de> for TolerantVisitor {
    type Value = serde_yaml::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i128<E>(self, v: i128) -> Result<Self::Value, E> {
        Ok(i64::try_from(v).map_or_else(|_| (v as f64).into(), Into::into))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Self::Value, E> {
        Ok(u64::try_from(v).map_or_else(|_| (v as f64).into(), Into::into))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_yaml::Value::Null)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_yaml::Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(TolerantVisitor)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Tolerant(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(serde_yaml::Value::Sequence(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde_yaml::Value;
        let mut out = serde_yaml::Mapping::new();
        while let Some((Tolerant(k), Tolerant(v))) = map.next_entry()? {
            // A key is a name: `200:` is the status "200", `true:` is
            // "true". Keys that are collections stay as they are (and fail
            // where a name is needed).
            let k = match k {
                Value::Number(n) => Value::String(n.to_string()),
                Value::Bool(b) => Value::String(b.to_string()),
                Value::Null => Value::String("null".into()),
                other => other,
            };
            out.insert(k, v);
        }
        Ok(serde_yaml::Value::Mapping(out))
    }
}

/// serde_yaml appends " at line L column C" to its messages; the location is
/// reported separately, so drop it from the text.
fn strip_location(message: &str) -> &str {
    message.find(" at line ").map_or(message, |i| &message[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_syntax_errors_report_line_and_column() {
        let errors = parse("openapi: 3.0.3\ninfo:\n  title: [unclosed\n").unwrap_err();
        assert!(matches!(
            errors[0].location,
            Location::LineColumn { line: 4, .. } | Location::LineColumn { line: 3, .. }
        ));
        assert!(errors[0].message.starts_with("invalid YAML"));
    }

    #[test]
    fn integers_beyond_64_bits_become_floats() {
        let v =
            syntax("minimum: -9223372036854776000\nmaximum: 18446744073709551616\nx: 3\n").unwrap();
        assert_eq!(v["minimum"].as_f64(), Some(-9223372036854776000.0));
        assert_eq!(v["maximum"].as_f64(), Some(18446744073709551616.0));
        assert_eq!(v["x"].as_i64(), Some(3));
    }

    #[test]
    fn keys_that_are_not_strings_are_read_as_names() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\n          content:\n            application/json:\n              examples:\n                0: {value: x}\n                true: {value: y}\n";
        let loaded = parse(text).unwrap();
        let op = loaded.doc.paths.paths["/a"]
            .as_item()
            .unwrap()
            .get
            .as_ref()
            .unwrap();
        let response = op.responses.responses[&openapiv3::StatusCode::Code(200)]
            .as_item()
            .unwrap();
        let examples = &response.content["application/json"].examples;
        assert_eq!(examples.keys().collect::<Vec<_>>(), ["0", "true"]);
    }

    #[test]
    fn json_is_read_as_json_with_what_yaml_forbids_and_positions_of_its_own() {
        // C1 control, NEL and LINE SEPARATOR inside strings: JSON allows
        // them, YAML does not.
        let text = "{\"openapi\": \"3.0.3\",\n \"info\": {\"title\": \"t\u{85}\u{2028}\u{9c}\", \"version\": \"1\"},\n \"paths\": {}}";
        let loaded = parse(text).unwrap();
        assert_eq!(loaded.doc.info.title, "t\u{85}\u{2028}\u{9c}");
        let broken = "{\"openapi\": \"3.0.3\",\n  \"info\": {\"title\": \"t\"\n  \"paths\": {}}";
        let errors = syntax(broken).unwrap_err();
        assert_eq!(
            errors[0].location,
            Location::LineColumn { line: 3, column: 3 }
        );
        assert!(errors[0].message.starts_with("invalid JSON"), "{errors:?}");
    }

    #[test]
    fn references_are_percent_decoded_before_they_are_resolved() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /pets/{petId}:\n    parameters: [{name: petId, in: path, required: true, schema: {type: string}}]\n    get:\n      parameters:\n        - $ref: '#/paths/~1pets~1%7BpetId%7D/parameters/0'\n      responses: {'200': {description: ok}}\n      x-note: {$ref: '#/a%20b'}\n      x-other: '%7B'\n";
        let value = syntax(text).unwrap();
        let op = &value["paths"]["/pets/{petId}"]["get"];
        assert_eq!(
            op["parameters"][0]["$ref"].as_str(),
            Some("#/paths/~1pets~1{petId}/parameters/0")
        );
        assert_eq!(
            op["x-note"]["$ref"].as_str(),
            Some("#/a%20b"),
            "extensions are data"
        );
        assert_eq!(
            decode_fragment("other.yaml#/components/schemas/A%20B").as_deref(),
            Some("other.yaml#/components/schemas/A B")
        );
        assert_eq!(decode_fragment("#/a/100%").as_deref(), Some("#/a/100%"));
        assert_eq!(decode_fragment("#/a/b"), None);
    }

    #[test]
    fn other_versions_are_refused() {
        for version in ["2.0", "3.2.0", "4"] {
            let errors = parse(&format!("openapi: '{version}'\n")).unwrap_err();
            assert_eq!(errors[0].location, Location::Pointer("#/openapi".into()));
            assert!(errors[0].message.contains(version), "{:?}", errors[0]);
        }
        let swagger = parse("swagger: '2.0'\n").unwrap_err();
        assert!(swagger[0].message.contains("`openapi` field is missing"));
    }

    #[test]
    fn versions_3_0_and_3_1_are_read() {
        for version in ["3.0.0", "3.0.3", "3.1.0", "3.1.1"] {
            let loaded = parse(&format!(
                "openapi: {version}\ninfo: {{title: t, version: '1'}}\npaths: {{}}\n"
            ))
            .unwrap();
            assert_eq!(loaded.version, version);
        }
    }

    #[test]
    fn structural_errors_carry_a_pointer() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: {'200': {description: ok, content: [1]}}\n";
        let errors = parse(text).unwrap_err();
        assert_eq!(
            errors[0].location,
            Location::Pointer("#/paths/~1a/get/responses/200".into())
        );
        assert!(
            errors[0].message.contains("expected a map"),
            "{}",
            errors[0].message
        );
    }

    /// Strictly invalid documents that every mainstream tool reads are read
    /// too, each assumption a note at its place.
    #[test]
    fn what_tools_read_past_is_read_with_a_note() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: 1.0}\npaths:\n  /a:\n    get:\n      parameters: [{name: q, in: query}]\n    post:\n      responses: {'200': {content: {}}}\n  /b:\n    get:\n      responses: ~\n";
        let loaded = parse(text).unwrap();
        assert_eq!(loaded.doc.info.version, "1.0");
        let notes: Vec<(String, String)> = loaded
            .normalized
            .assumed
            .iter()
            .map(|d| (d.location.to_string(), d.message.clone()))
            .collect();
        let said = |pointer: &str, words: &str| {
            assert!(
                notes
                    .iter()
                    .any(|(at, m)| at == pointer && m.contains(words)),
                "no note at {pointer} saying `{words}`: {notes:?}"
            );
        };
        said(
            "#/info/version",
            "`version` is not a string: read as \"1.0\"",
        );
        said("#/paths/~1a/get", "`responses` is missing");
        said("#/paths/~1a/get/parameters/0", "read as a string");
        said("#/paths/~1a/post/responses/200", "`description` is missing");
        said("#/paths/~1b/get/responses", "`responses` is null");
        let a = loaded.doc.paths.paths["/a"].as_item().unwrap();
        let q = a.get.as_ref().unwrap().parameters[0].as_item().unwrap();
        assert!(matches!(
            q.parameter_data_ref().format,
            openapiv3::ParameterSchemaOrContent::Schema(_)
        ));
    }
}
