//! Doc comments from the spec's descriptions.

/// The lines of a doc comment, each with the space that follows `///`.
/// Fenced code blocks become `text` blocks so that rustdoc does not try to
/// compile examples written in other languages.
pub(crate) fn doc_lines(text: Option<&str>) -> Vec<String> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Vec::new();
    };
    let mut in_fence = false;
    let lines = text.lines().map(|line| {
        let trimmed = line.trim_start();
        let line = if trimmed.starts_with("```") {
            in_fence = !in_fence;
            if in_fence {
                "```text".to_string()
            } else {
                "```".to_string()
            }
        } else {
            line.trim_end().to_string()
        };
        if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        }
    });
    lines.collect()
}

/// Paragraphs as one text, a blank line between them, empty ones skipped.
pub(crate) fn joined_paragraphs(paragraphs: &[Option<String>]) -> String {
    let text: Vec<&str> = paragraphs
        .iter()
        .filter_map(|p| p.as_deref())
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    text.join("\n\n")
}
