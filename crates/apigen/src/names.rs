//! The one path from a string in a document to a Rust identifier.

use std::collections::BTreeSet;

/// The case an identifier is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// Types, traits and enum variants: `PetStatus`.
    Pascal,
    /// Functions, fields and modules: `category_id`.
    Snake,
    /// Constants: `LIST_PETS`.
    ScreamingSnake,
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Splits a name into lower-case words at punctuation, case changes and
/// letter/digit boundaries: `XRateLimit-Reset` -> `x`, `rate`, `limit`, `reset`.
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if p.is_alphanumeric() => {
                // `petId`, `oauth2Token`, `HTTPServer`: an upper-case letter
                // after a lower-case one or a digit, or the last capital of an
                // acronym, starts a word. Digits stay with what they follow.
                (c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit()))
                    || (c.is_uppercase()
                        && p.is_uppercase()
                        && next.is_some_and(|n| n.is_lowercase()))
            }
            _ => false,
        };
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Turns any string into a valid Rust identifier in the given case. Keywords get a
/// trailing underscore (`type_`), names that start with a digit a leading letter,
/// and names with no letters at all become `value`/`Value`.
pub fn sanitize(name: &str, case: Case) -> String {
    let words: Vec<String> = words(name)
        .into_iter()
        .map(|w| {
            w.chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let mut ident = match case {
        Case::Pascal => words
            .iter()
            .map(|w| {
                let mut c = w.chars();
                match c.next() {
                    Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                    None => String::new(),
                }
            })
            .collect::<String>(),
        Case::Snake => words.join("_"),
        Case::ScreamingSnake => words.join("_").to_ascii_uppercase(),
    };
    if ident.is_empty() {
        ident = match case {
            Case::Pascal => "Value".into(),
            Case::Snake => "value".into(),
            Case::ScreamingSnake => "VALUE".into(),
        };
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident = match case {
            Case::Pascal => format!("N{ident}"),
            Case::Snake => format!("n{ident}"),
            Case::ScreamingSnake => format!("N{ident}"),
        };
    }
    if KEYWORDS.contains(&ident.as_str()) {
        ident.push('_');
    }
    ident
}

/// Type names generated code uses from Rust's prelude without a path: no
/// model or route trait may take them.
pub const PRELUDE_TYPES: &[&str] = &["Box", "Option", "Result", "String", "Vec"];

/// Function names the generated glue defines beside the operations'
/// handlers: no handler may take them.
pub const GLUE_FUNCTIONS: &[&str] = &[
    "configure",
    "configure_with",
    "method_not_allowed",
    "not_found",
    "refuse",
    "respond",
];

/// Hands out identifiers that are unique within one scope: the second `Pet` is
/// `Pet2`, and so on, so two spec names never silently share one Rust name.
#[derive(Debug, Default)]
pub struct Namer {
    taken: BTreeSet<String>,
}

impl Namer {
    pub fn new() -> Self {
        Self::default()
    }

    /// A namer with `names` already taken.
    pub fn reserving(names: &[&str]) -> Self {
        let mut namer = Self::default();
        for name in names {
            namer.reserve(name);
        }
        namer
    }

    /// Marks a name as used without handing it out (names the emitter needs).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_string());
    }

    pub fn unique(&mut self, wanted: String) -> String {
        if self.taken.insert(wanted.clone()) {
            return wanted;
        }
        // `V1` -> `V1_2`; a type named after a keyword, `Self_`, ->
        // `Self2` (an underscore before a digit is not camel case).
        let (base, separator) = if wanted.ends_with(|c: char| c.is_ascii_digit()) {
            (wanted.as_str(), "_")
        } else if wanted.starts_with(|c: char| c.is_ascii_uppercase()) {
            (wanted.trim_end_matches('_'), "")
        } else {
            (wanted.as_str(), "")
        };
        (2..)
            .map(|n| format!("{base}{separator}{n}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .expect("an unbounded range always yields a free name")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(sanitize("categoryId", Case::Snake), "category_id");
        assert_eq!(
            sanitize("X-RateLimit-Reset", Case::Snake),
            "x_rate_limit_reset"
        );
        assert_eq!(sanitize("X-API-Stability", Case::Pascal), "XApiStability");
        assert_eq!(sanitize("pet_status", Case::Pascal), "PetStatus");
        assert_eq!(sanitize("listPets", Case::ScreamingSnake), "LIST_PETS");
        assert_eq!(sanitize("HTTPServer", Case::Snake), "http_server");
        assert_eq!(sanitize("v1.Pet$Ref/x", Case::Pascal), "V1PetRefX");
        assert_eq!(sanitize("oauth2Token", Case::Snake), "oauth2_token");
    }

    #[test]
    fn keywords_digits_and_empty_names_still_make_identifiers() {
        assert_eq!(sanitize("type", Case::Snake), "type_");
        assert_eq!(sanitize("Self", Case::Pascal), "Self_");
        assert_eq!(sanitize("200", Case::Pascal), "N200");
        assert_eq!(sanitize("3d_model", Case::Snake), "n3d_model");
        assert_eq!(sanitize("+", Case::Snake), "value");
        assert_eq!(sanitize("-1", Case::Pascal), "N1");
    }

    #[test]
    fn namer_never_hands_out_a_name_twice() {
        let mut namer = Namer::new();
        namer.reserve("Error");
        assert_eq!(namer.unique("Pet".into()), "Pet");
        assert_eq!(namer.unique("Pet".into()), "Pet2");
        assert_eq!(namer.unique("Pet".into()), "Pet3");
        assert_eq!(namer.unique("Error".into()), "Error2");
        assert_eq!(namer.unique("V1".into()), "V1");
        assert_eq!(namer.unique("V1".into()), "V1_2");
        assert_eq!(namer.unique("Self_".into()), "Self_");
        assert_eq!(namer.unique("Self_".into()), "Self2");
        assert_eq!(namer.unique("type_".into()), "type_");
        assert_eq!(namer.unique("type_".into()), "type_2");
    }
}
