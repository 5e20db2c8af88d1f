//! Helpers that generated model fields name in their serde attributes.

/// `deserialize_with` for optional properties that are not `nullable`: absent
/// is `None` (through `#[serde(default)]`), but an explicit `null` is refused
/// like any other value of the wrong type.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// `deserialize_with` for required properties that are `nullable`: `null` is
/// `None`, and (without `#[serde(default)]`) an absent property is refused,
/// where serde would otherwise take it as `None`.
pub fn required_nullable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(deserializer)
}

#[cfg(test)]
mod tests {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Patch {
        #[serde(default, deserialize_with = "super::present")]
        name: Option<String>,
    }

    #[test]
    fn absent_is_none_and_null_is_refused() {
        let absent: Patch = serde_json::from_str("{}").unwrap();
        assert_eq!(absent, Patch { name: None });
        let given: Patch = serde_json::from_str(r#"{"name": "x"}"#).unwrap();
        assert_eq!(given.name.as_deref(), Some("x"));
        assert!(serde_json::from_str::<Patch>(r#"{"name": null}"#).is_err());
    }
}

#[cfg(test)]
mod required_nullable_tests {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Note {
        #[serde(deserialize_with = "super::required_nullable")]
        text: Option<String>,
    }

    #[test]
    fn null_is_none_and_absent_is_refused() {
        let null: Note = serde_json::from_str(r#"{"text": null}"#).unwrap();
        assert_eq!(null, Note { text: None });
        let given: Note = serde_json::from_str(r#"{"text": "x"}"#).unwrap();
        assert_eq!(given.text.as_deref(), Some("x"));
        let absent = serde_json::from_str::<Note>("{}").unwrap_err();
        assert!(
            absent.to_string().contains("missing field `text`"),
            "{absent}"
        );
    }
}
