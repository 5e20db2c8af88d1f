//! Value types that generated models use where a plain Rust type would lose
//! something the wire says: [`Nullable`] tells an absent property from a
//! `null` one, and [`Base64`] carries bytes as the base64 text JSON needs.

use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The name [`Base64`] asks to be read by, so that a multipart body's
/// reader can give a part's bytes as they are.
pub(crate) const BYTES: &str = "$apigen::Base64";

/// An optional property that may also be `null` (`nullable: true`, not
/// required): absent, `null`, or a value. A PATCH-style body needs the
/// three apart, since "leave it" and "clear it" are different requests.
///
/// In a struct it goes with `#[serde(default, skip_serializing_if =
/// "Nullable::is_absent")]`, so that an absent property stays absent when
/// written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Nullable<T> {
    /// The property is not there.
    #[default]
    Absent,
    /// The property is `null`.
    Null,
    /// The property has a value.
    Value(T),
}

impl<T> Nullable<T> {
    /// Whether the property is not there (for `skip_serializing_if`).
    pub fn is_absent(&self) -> bool {
        matches!(self, Nullable::Absent)
    }

    /// Whether the property is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Nullable::Null)
    }

    /// The value, if there is one.
    pub fn value(&self) -> Option<&T> {
        match self {
            Nullable::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The value, if there is one, taken.
    pub fn into_value(self) -> Option<T> {
        match self {
            Nullable::Value(v) => Some(v),
            _ => None,
        }
    }
}

/// `Some` is a value, `None` is `null`.
impl<T> From<Option<T>> for Nullable<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Nullable::Null, Nullable::Value)
    }
}

impl<T: Serialize> Serialize for Nullable<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // `Some` in JSON is the value itself; a format that is not
            // self-describing needs the marker to read it back.
            Nullable::Value(v) => serializer.serialize_some(v),
            // An absent property is skipped by its field's attribute; met
            // elsewhere (inside an array, say) it can only be written as null.
            Nullable::Null | Nullable::Absent => serializer.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Nullable<T> {
    /// `null` is [`Nullable::Null`]; absence comes from `#[serde(default)]`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(deserializer).map(Nullable::from)
    }
}

/// Bytes that travel as base64 text (`format: byte`, and `format: binary`
/// inside JSON): written as standard base64, read from it (standard or
/// URL-safe, padded or not), or from raw bytes where the format carries
/// them (a multipart file part).
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Base64(pub Vec<u8>);

impl Base64 {
    /// Decodes base64 text.
    pub fn decode(text: &str) -> Result<Base64, String> {
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        let text = text.trim();
        [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
            .iter()
            .find_map(|engine| engine.decode(text).ok())
            .map(Base64)
            .ok_or_else(|| "not base64 text".to_string())
    }
}

impl fmt::Debug for Base64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Base64({} bytes)", self.0.len())
    }
}

/// The base64 text.
impl fmt::Display for Base64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl std::str::FromStr for Base64 {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Base64::decode(s)
    }
}

impl std::ops::Deref for Base64 {
    type Target = Vec<u8>;

    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl From<Vec<u8>> for Base64 {
    fn from(bytes: Vec<u8>) -> Self {
        Base64(bytes)
    }
}

impl From<Base64> for Vec<u8> {
    fn from(bytes: Base64) -> Self {
        bytes.0
    }
}

impl Serialize for Base64 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Base64 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Base64;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("base64 text")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Base64, E> {
                Base64::decode(text).map_err(E::custom)
            }

            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Base64, E> {
                Ok(Base64(bytes.to_vec()))
            }

            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Base64, D::Error> {
                deserializer.deserialize_any(self)
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Base64, A::Error> {
                let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(b) = seq.next_element::<u8>()? {
                    bytes.push(b);
                }
                Ok(Base64(bytes))
            }
        }

        // By name, so that a multipart body's reader can give a part's
        // bytes as they are (`FormValue`).
        deserializer.deserialize_newtype_struct(BYTES, Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Patch {
        #[serde(default, skip_serializing_if = "Nullable::is_absent")]
        name: Nullable<String>,
    }

    #[test]
    fn absent_null_and_a_value_round_trip_apart() {
        for (text, patch) in [
            (json!({}), Nullable::Absent),
            (json!({"name": null}), Nullable::Null),
            (json!({"name": "Rex"}), Nullable::Value("Rex".to_string())),
        ] {
            let read: Patch = serde_json::from_value(text.clone()).unwrap();
            assert_eq!(read.name, patch);
            assert_eq!(serde_json::to_value(&read).unwrap(), text);
        }
    }

    #[test]
    fn bytes_travel_as_base64() {
        let bytes = Base64(vec![0, 1, 2, 250, 255]);
        let text = serde_json::to_value(&bytes).unwrap();
        assert_eq!(text, json!("AAEC+v8="));
        assert_eq!(serde_json::from_value::<Base64>(text).unwrap(), bytes);
        // URL-safe and unpadded text reads too; an array of numbers (a
        // multipart file part) is raw bytes.
        assert_eq!("AAEC-v8".parse::<Base64>().unwrap(), bytes);
        assert_eq!(
            serde_json::from_value::<Base64>(json!([0, 1, 2, 250, 255])).unwrap(),
            bytes
        );
        assert!(serde_json::from_value::<Base64>(json!("not base64!")).is_err());
    }
}
