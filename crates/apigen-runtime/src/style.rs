//! How parameter values are spelled on the wire (OpenAPI's `style` and
//! `explode`), both ways: [`styled`] reads a value the server received,
//! [`write`] and [`query_pairs`] spell one a client sends. Each writer is
//! the inverse of a reader, and the tests hold them to it.

use super::form::FormValue;
use super::rejection::{Rejection, RejectionKind};
pub use super::vocabulary::{Explode, Style};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What a styled parameter holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A string, number, boolean or enum value.
    Scalar,
    /// An array of scalars.
    Array,
    /// An object of scalars.
    Object,
}

/// Reads a parameter written in any style but `deepObject`: `a,b,c`,
/// `.a.b`, `;id=1;id=2`, `k1,v1,k2,v2`, `k1=v1,k2=v2`, `a b c`, `a|b|c`, into
/// the target type.
pub fn styled<T: DeserializeOwned>(
    raw: &str,
    name: &str,
    kind: ValueKind,
    style: Style,
    explode: bool,
    what: &str,
) -> Result<T, Rejection> {
    use serde_json::Value;
    if matches!(style, Style::Json | Style::QueryString) {
        return serde_json::from_str(raw).map_err(|e| {
            Rejection::new(
                RejectionKind::BadRequest,
                format!("{what} is not the JSON its schema asks for: {e}"),
            )
        });
    }
    let items: Vec<String> = match style {
        Style::Matrix => {
            let fields = raw.split(';').filter(|f| !f.is_empty());
            match (kind, explode) {
                (ValueKind::Object, true) => fields.map(str::to_string).collect(),
                (ValueKind::Array, true) => fields
                    .filter_map(|f| f.strip_prefix(&format!("{name}=")).map(str::to_string))
                    .collect(),
                _ => fields
                    .filter_map(|f| f.strip_prefix(&format!("{name}=")))
                    .flat_map(|v| v.split(','))
                    .map(str::to_string)
                    .collect(),
            }
        }
        _ => {
            let raw = if style == Style::Label {
                raw.strip_prefix('.').unwrap_or(raw)
            } else {
                raw
            };
            let separator = match (style, explode) {
                (Style::Label, true) => '.',
                (Style::SpaceDelimited, _) => ' ',
                (Style::PipeDelimited, _) => '|',
                _ => ',',
            };
            if kind == ValueKind::Scalar {
                vec![raw.to_string()]
            } else {
                raw.split(separator).map(str::to_string).collect()
            }
        }
    };
    let value = match kind {
        ValueKind::Scalar => Value::String(items.into_iter().next().unwrap_or_default()),
        ValueKind::Array => Value::Array(items.into_iter().map(Value::String).collect()),
        ValueKind::Object if explode => Value::Object(
            items
                .iter()
                .filter_map(|i| i.split_once('='))
                .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                .collect(),
        ),
        ValueKind::Object => Value::Object(
            items
                .chunks(2)
                .filter_map(|pair| match pair {
                    [k, v] => Some((k.clone(), Value::String(v.clone()))),
                    _ => None,
                })
                .collect(),
        ),
    };
    T::deserialize(FormValue::new(value)).map_err(|e| {
        Rejection::new(
            RejectionKind::BadRequest,
            format!("{what} has an invalid value: {e}"),
        )
    })
}

/// A scalar as parameter text; `None` for null (the parameter is left out).
fn text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        // A nested value in a flat style: its JSON.
        other => Some(other.to_string()),
    }
}

/// The items of an array, or the keys and values of an object, as text.
fn parts(value: &Value) -> Vec<(Option<String>, String)> {
    match value {
        Value::Array(items) => items.iter().filter_map(text).map(|t| (None, t)).collect(),
        Value::Object(map) => map
            .iter()
            .filter_map(|(k, v)| Some((Some(k.clone()), text(v)?)))
            .collect(),
        scalar => text(scalar).map(|t| (None, t)).into_iter().collect(),
    }
}

/// A path, header or cookie value in `style` (`simple`, `label`, `matrix`,
/// `form` for cookies): what [`styled`] reads back. `None` for null.
pub fn write(value: &Value, name: &str, style: Style, explode: bool) -> Option<String> {
    if value.is_null() {
        return None;
    }
    let parts = parts(value);
    let object = value.is_object();
    // `k,v,k,v` or `k=v,k=v` for objects; the items for arrays and scalars.
    let items = |pair: &str| -> Vec<String> {
        parts
            .iter()
            .flat_map(|(k, v)| match (k, object && explode) {
                (Some(k), true) => vec![format!("{k}{pair}{v}")],
                (Some(k), false) => vec![k.clone(), v.clone()],
                (None, _) => vec![v.clone()],
            })
            .collect()
    };
    Some(match style {
        Style::Label if explode => format!(".{}", items("=").join(".")),
        Style::Label => format!(".{}", items("=").join(",")),
        Style::Matrix if explode && object => format!(";{}", items("=").join(";")),
        Style::Matrix if explode && value.is_array() => {
            items("=").iter().map(|v| format!(";{name}={v}")).collect()
        }
        Style::Matrix => format!(";{name}={}", items("=").join(",")),
        Style::SpaceDelimited => items("=").join(" "),
        Style::PipeDelimited => items("=").join("|"),
        Style::Simple | Style::Form | Style::DeepObject => items("=").join(","),
        Style::Json | Style::QueryString => value.to_string(),
    })
}

/// The query pairs a value becomes in `style`: a scalar `name=v`; an array
/// repeated (`name=a&name=b`) when exploded, else joined by the style's
/// delimiter; an exploded object its properties as parameters of their own,
/// a `deepObject` `name[key]=v` (nested keys too, array items as
/// `name[]=v`, as forms spell them), any other object `name=k,v,k,v`.
/// Nothing for null.
pub fn query_pairs(
    value: &Value,
    name: &str,
    style: Style,
    explode: bool,
) -> Vec<(String, String)> {
    match (value, style) {
        (Value::Null, _) => Vec::new(),
        (Value::Object(_) | Value::Array(_), Style::DeepObject) => {
            let mut pairs = Vec::new();
            deep(value, name.to_string(), &mut pairs);
            pairs
        }
        (Value::Array(_) | Value::Object(_), Style::Form) if explode => parts(value)
            .into_iter()
            .map(|(k, v)| (k.unwrap_or_else(|| name.to_string()), v))
            .collect(),
        _ => write(value, name, style, explode)
            .map(|v| (name.to_string(), v))
            .into_iter()
            .collect(),
    }
}

/// `name[a][b]=v` for every leaf under `value`; array items as `name[]`.
fn deep(value: &Value, name: String, pairs: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                deep(v, format!("{name}[{k}]"), pairs);
            }
        }
        Value::Array(items) => {
            for item in items {
                deep(item, format!("{name}[]"), pairs);
            }
        }
        leaf => {
            if let Some(t) = text(leaf) {
                pairs.push((name, t));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    /// Writes `value`, reads it back as a `T` with the server's reader.
    fn round_trip<T: DeserializeOwned>(
        value: &Value,
        kind: ValueKind,
        style: Style,
        explode: bool,
    ) -> T {
        let raw = write(value, "id", style, explode).unwrap();
        styled(&raw, "id", kind, style, explode, "it").unwrap_or_else(|e| panic!("{raw:?}: {e}"))
    }

    #[test]
    fn path_and_header_styles_read_back_what_they_write() {
        let array = json!([3, 4, 5]);
        let object = json!({"a": 1, "b": "x y"});
        let expected: BTreeMap<String, String> =
            [("a".into(), "1".into()), ("b".into(), "x y".into())].into();
        for style in [Style::Simple, Style::Label, Style::Matrix] {
            for explode in [false, true] {
                let scalar: String = round_trip(&json!("x y"), ValueKind::Scalar, style, explode);
                assert_eq!(scalar, "x y", "{style:?} {explode}");
                let items: Vec<i32> = round_trip(&array, ValueKind::Array, style, explode);
                assert_eq!(items, [3, 4, 5], "{style:?} {explode}");
                let map: BTreeMap<String, String> =
                    round_trip(&object, ValueKind::Object, style, explode);
                assert_eq!(map, expected, "{style:?} {explode}");
            }
        }
        assert_eq!(write(&array, "id", Style::Label, true).unwrap(), ".3.4.5");
        assert_eq!(
            write(&array, "id", Style::Matrix, true).unwrap(),
            ";id=3;id=4;id=5"
        );
        assert_eq!(
            write(&object, "id", Style::Simple, false).unwrap(),
            "a,1,b,x y"
        );
        assert_eq!(write(&Value::Null, "id", Style::Simple, false), None);
    }

    #[cfg(feature = "serving")]
    #[test]
    fn query_styles_read_back_what_they_write() {
        use super::super::params::Query;
        let query = |pairs: Vec<(String, String)>| {
            let mut s = form_urlencoded::Serializer::new(String::new());
            for (k, v) in &pairs {
                s.append_pair(k, v);
            }
            Query::parse(&s.finish())
        };
        let array = json!([1, 2]);
        assert_eq!(
            query(query_pairs(&array, "id", Style::Form, true))
                .many::<i64>("id", Explode::Yes)
                .unwrap(),
            Some(vec![1, 2])
        );
        assert_eq!(
            query(query_pairs(&array, "id", Style::Form, false))
                .many::<i64>("id", Explode::No)
                .unwrap(),
            Some(vec![1, 2])
        );
        for style in [Style::SpaceDelimited, Style::PipeDelimited] {
            let read: Option<Vec<i64>> = query(query_pairs(&array, "id", style, false))
                .styled("id", ValueKind::Array, style)
                .unwrap();
            assert_eq!(read, Some(vec![1, 2]), "{style:?}");
        }
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Filter {
            status: String,
            tags: Vec<String>,
            range: Range,
        }
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Range {
            min: i32,
        }
        let filter = json!({"status": "open", "tags": ["a", "b"], "range": {"min": 3}});
        let expected = Filter {
            status: "open".into(),
            tags: vec!["a".into(), "b".into()],
            range: Range { min: 3 },
        };
        let pairs = query_pairs(&filter, "filter", Style::DeepObject, true);
        assert!(
            pairs.contains(&("filter[range][min]".to_string(), "3".to_string())),
            "{pairs:?}"
        );
        assert_eq!(
            query(pairs).deep::<Filter>("filter").unwrap(),
            Some(expected)
        );
        let flat = json!({"status": "open", "page": 2});
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Flat {
            status: String,
            page: u32,
        }
        let read: Option<Flat> = query(query_pairs(&flat, "f", Style::Form, true))
            .exploded_object()
            .unwrap();
        assert_eq!(
            read,
            Some(Flat {
                status: "open".into(),
                page: 2
            })
        );
        assert!(query_pairs(&Value::Null, "x", Style::Form, true).is_empty());
    }
}
