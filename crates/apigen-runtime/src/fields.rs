//! Helpers that generated model fields name in their serde attributes.

/// is `None` (through `#[serde(default)]`), but an explicit `null` is refused
/// like any other value of the wrong type.
/// `deserialize_with` for optional properties that are not `nullable`: absent
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
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
