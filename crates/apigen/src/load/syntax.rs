//! The first stage: YAML or JSON text -> a YAML value, syntax errors
//! located by line and column.

use super::tree::{is_extension, strip_location};
use crate::diag::{Diagnostic, Location};

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
pub(super) fn decode_fragment(reference: &str) -> Option<String> {
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
