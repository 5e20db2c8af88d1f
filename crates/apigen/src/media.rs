//! Media types as the generator compares them: by their essence, case and
//! parameters aside.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn essences_leave_out_case_and_parameters() {
        assert_eq!(essence(" Text/Plain ; charset=utf-8"), "text/plain");
        assert!(is_json("application/problem+json; charset=utf-8"));
        assert!(is_json("Application/JSON"));
        assert!(!is_json("application/jsonl"));
    }
}
