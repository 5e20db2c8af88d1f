//! Reading a document: YAML (or JSON) text -> `openapiv3::OpenAPI`, with errors
//! located by line and column or by JSON pointer.

use crate::diag::{Diagnostic, Location, Pointer};
use openapiv3::OpenAPI;

/// Parses a document. Syntax errors carry a line and column; errors in the
/// document's structure carry the JSON pointer of the offending value.
pub fn parse(text: &str) -> Result<OpenAPI, Vec<Diagnostic>> {
    let value: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| {
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
    })?;

    let version = value
        .get("openapi")
        .and_then(serde_yaml::Value::as_str)
        .unwrap_or_default();
    if !version.starts_with("3.0.") {
        return Err(vec![Diagnostic {
            location: Location::Pointer(Pointer::root().join("openapi").to_string()),
            message: if version.is_empty() {
                "not an OpenAPI 3.0 document: `openapi` field is missing".to_string()
            } else {
                format!("unsupported OpenAPI version `{version}`: only 3.0.x is supported")
            },
        }]);
    }

    match serde_path_to_error::deserialize::<_, OpenAPI>(value.clone()) {
        Ok(doc) => Ok(doc),
        Err(e) => {
            let (pointer, message) = locate(&value, &Pointer::root(), &e);
            Err(vec![Diagnostic::at(
                &pointer,
                format!("not a valid OpenAPI 3.0 document: {message}"),
            )])
        }
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
    fn other_versions_are_refused() {
        let errors = parse("openapi: 3.1.0\n").unwrap_err();
        assert_eq!(errors[0].location, Location::Pointer("#/openapi".into()));
        assert!(errors[0].message.contains("3.1.0"));
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
