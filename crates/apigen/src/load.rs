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
    /// What the 3.1 pass noted and moved (empty for 3.0).
    pub normalized: Normalized,
}

/// Parses a document. Syntax errors carry a line and column; errors in the
/// document's structure carry the JSON pointer of the offending value.
pub fn parse(text: &str) -> Result<Loaded, Vec<Diagnostic>> {
    from_value(syntax(text)?)
}

/// YAML (or JSON) text -> a YAML value.
pub fn syntax(text: &str) -> Result<serde_yaml::Value, Vec<Diagnostic>> {
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

/// A whole document, as a value, -> `OpenAPI`.
pub fn from_value(mut value: serde_yaml::Value) -> Result<Loaded, Vec<Diagnostic>> {
    let version = value
        .get("openapi")
        .and_then(serde_yaml::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let normalized = if version.starts_with("3.0.") {
        Normalized::default()
    } else if version.starts_with("3.1.") {
        crate::normalize::normalize(&mut value)
    } else {
        return Err(vec![Diagnostic {
            location: Location::Pointer(Pointer::root().join("openapi").to_string()),
            message: if version.is_empty() {
                "not an OpenAPI document: `openapi` field is missing".to_string()
            } else {
                format!("unsupported OpenAPI version `{version}`: 3.0.x and 3.1.x are supported")
            },
        }]);
    };
    let label = if version.starts_with("3.1.") {
        "3.1"
    } else {
        "3.0"
    };

    // The plain parse is faster; the path-tracking one runs only to locate
    // an error.
    let doc = match <OpenAPI as serde::Deserialize>::deserialize(&value) {
        Ok(doc) => doc,
        Err(_) => match serde_path_to_error::deserialize::<_, OpenAPI>(&value) {
            Ok(doc) => doc,
            Err(e) => {
                let (pointer, message) = locate(&value, &Pointer::root(), &e);
                return Err(vec![normalized.locate(Diagnostic::at(
                    &pointer,
                    format!("not a valid OpenAPI {label} document: {message}"),
                ))]);
            }
        },
    };
    let mut webhooks = Vec::new();
    let mut errors = Vec::new();
    for (name, item) in &normalized.webhooks {
        match serde_yaml::from_value::<PathItem>(item.clone()) {
            Ok(item) => webhooks.push((name.clone(), item)),
            Err(e) => errors.push(Diagnostic::at(
                &Pointer::root().join("webhooks").join(name),
                format!("not a valid webhook: {}", strip_location(&e.to_string())),
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

/// The parts of a document that can be deserialized on their own.
#[derive(Clone, Copy)]
enum Part {
    Document,
    Paths,
    PathItem,
    Operation,
    Responses,
    Leaf(fn(serde_yaml::Value) -> Result<(), String>),
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
                    "parameters" => Part::Leaf(check::<Vec<o::ReferenceOr<o::Parameter>>>),
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
                    "parameters" => Part::Leaf(check::<Vec<o::ReferenceOr<o::Parameter>>>),
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
        Part::Leaf(f) => {
            return f(value.clone()).err().map(|m| (at, m));
        }
    };
    children
        .into_iter()
        .find_map(|(at, v, part)| refine(v, at, part))
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
        let mut out = serde_yaml::Mapping::new();
        while let Some((Tolerant(k), Tolerant(v))) = map.next_entry()? {
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
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: {'200': {description: [1]}}\n";
        let errors = parse(text).unwrap_err();
        assert_eq!(
            errors[0].location,
            Location::Pointer("#/paths/~1a/get/responses/200".into())
        );
        assert!(
            errors[0].message.contains("expected a string"),
            "{}",
            errors[0].message
        );

        let text = "openapi: 3.0.3\ninfo: {title: t, version: 1}\npaths: {}\n";
        let errors = parse(text).unwrap_err();
        assert_eq!(errors[0].location, Location::Pointer("#/info".into()));
    }
}
