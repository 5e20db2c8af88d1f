//! Media types as generated code and the generator compare them: by their
//! essence, case and parameters aside. The generator compiles this very
//! file, so that both read a media type alike.

/// A media type's essence: lower case, its parameters left out
/// (`text/plain` of `Text/Plain; charset=utf-8`).
pub fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type is JSON: `application/json`, or a `+json` suffix
/// (`application/problem+json`).
pub fn is_json(media_type: &str) -> bool {
    let essence = essence(media_type);
    essence == "application/json" || essence.ends_with("+json")
}

/// The parameter `name` of a media type (`boundary` of `multipart/mixed;
/// boundary="b-1"`), unquoted; `None` when it is absent or empty.
pub fn parameter<'m>(media_type: &'m str, name: &str) -> Option<&'m str> {
    media_type.split(';').skip(1).find_map(|parameter| {
        let (key, value) = parameter.split_once('=')?;
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        (key.trim().eq_ignore_ascii_case(name) && !value.is_empty()).then_some(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn essences_leave_out_case_and_parameters() {
        assert_eq!(essence(" Text/Plain ; charset=utf-8"), "text/plain");
        assert!(is_json("application/problem+json; charset=utf-8"));
        assert!(is_json("Application/JSON"));
        assert!(!is_json("application/jsonl"));
        let parts = "multipart/mixed; charset=x; Boundary=\"b-1\"";
        assert_eq!(parameter(parts, "boundary"), Some("b-1"));
        assert_eq!(parameter("multipart/mixed; boundary=", "boundary"), None);
    }
}
