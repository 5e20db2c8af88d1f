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

    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut pointer = Pointer::root();
        for segment in e.path().iter() {
            use serde_path_to_error::Segment;
            match segment {
                Segment::Seq { index } => pointer = pointer.join(index),
                Segment::Map { key } => pointer = pointer.join(key),
                Segment::Enum { .. } | Segment::Unknown => {}
            }
        }
        vec![Diagnostic::at(
            &pointer,
            format!("not a valid OpenAPI 3.0 document: {}", e.inner()),
        )]
    })
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
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: 7\n";
        let errors = parse(text).unwrap_err();
        match &errors[0].location {
            Location::Pointer(p) => assert!(p.starts_with("#/paths/~1a"), "{p}"),
            other => panic!("expected a pointer, got {other:?}"),
        }
    }
}
