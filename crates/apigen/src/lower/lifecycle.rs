//! Lifecycle annotations: stability (`x-stability`, `x-stability-level`),
//! deprecation, sunset and successor.

use super::Lowerer;
use crate::diag::Pointer;
use crate::ir::*;

/// The stability extensions the generator reads, each with the values it
/// knows: GitBook's `x-stability` and oasdiff's `x-stability-level`.
pub const STABILITY_EXTENSIONS: &[(&str, &[(&str, Stability)])] = &[
    (
        "x-stability",
        &[
            ("experimental", Stability::Experimental),
            ("alpha", Stability::Alpha),
            ("beta", Stability::Beta),
            ("stable", Stability::Stable),
        ],
    ),
    (
        "x-stability-level",
        &[
            ("draft", Stability::Draft),
            ("alpha", Stability::Alpha),
            ("beta", Stability::Beta),
            ("stable", Stability::Stable),
        ],
    ),
];

/// What an operation says of its lifecycle.
#[derive(Debug, Clone, Default)]
pub(super) struct Lifecycle {
    /// The annotations that could not be read (a lenient run dropped them).
    pub(super) problems: Vec<LifecycleProblem>,
    pub stability: Stability,
    pub sunset: Option<String>,
    pub deprecated_since: Option<String>,
    pub successor: Option<String>,
}

impl Lowerer<'_> {
    /// An operation's lifecycle annotations. One that cannot be read fails
    /// a strict run; a lenient one drops the annotation, not the operation.
    pub(super) fn lifecycle(
        &mut self,
        id: &str,
        op: &openapiv3::Operation,
        at: &Pointer,
    ) -> Lifecycle {
        let annotations = self.errors.len();
        // Where each annotation's errors end, in the order they are read.
        let mut ends = Vec::new();
        let ext = |key: &'static str| op.extensions.get(key).map(|v| (key, v));
        let stability = self.stability(id, &op.extensions, at);
        ends.push((Annotation::Stability, self.errors.len()));
        let sunset =
            self.date_extension(ext("x-deprecated-sunset").or_else(|| ext("x-sunset")), at);
        ends.push((Annotation::Sunset, self.errors.len()));
        let deprecated_since = self.date_extension(ext("x-deprecated-since"), at);
        ends.push((Annotation::DeprecatedSince, self.errors.len()));
        let successor = match ext("x-successor") {
            Some((_, serde_json::Value::String(s))) => Some(s.clone()),
            Some((key, _)) => {
                self.error(&at.join(key), "`x-successor` must be an operationId");
                None
            }
            None => None,
        };
        ends.push((Annotation::Successor, self.errors.len()));
        if (sunset.is_some() || successor.is_some()) && !op.deprecated {
            self.error(
                at,
                format!("operation `{id}` has a sunset or successor but is not `deprecated: true`"),
            );
        }
        ends.push((Annotation::Deprecated, self.errors.len()));
        let problems = if self.lenient {
            let mut start = annotations;
            let mut problems = Vec::new();
            for (annotation, end) in ends {
                problems.extend(self.errors[start..end].iter().map(|d| LifecycleProblem {
                    annotation,
                    diagnostic: d.clone(),
                }));
                start = end;
            }
            self.skip_since(annotations, &format!("a lifecycle annotation of `{id}`"));
            problems
        } else {
            Vec::new()
        };
        Lifecycle {
            stability,
            sunset,
            deprecated_since,
            successor,
            problems,
        }
    }

    /// The operation's stability, from whichever stability extension it
    /// carries; both must agree, and an unknown value is an error.
    pub(super) fn stability(
        &mut self,
        id: &str,
        extensions: &indexmap::IndexMap<String, serde_json::Value>,
        at: &Pointer,
    ) -> Stability {
        let mut found: Option<(&str, Stability)> = None;
        for (key, known) in STABILITY_EXTENSIONS {
            let Some(value) = extensions.get(*key) else {
                continue;
            };
            let level = value
                .as_str()
                .and_then(|v| known.iter().find(|(name, _)| *name == v))
                .map(|(_, level)| *level);
            let Some(level) = level else {
                let names: Vec<&str> = known.iter().map(|(n, _)| *n).collect();
                self.error(
                    &at.join(key),
                    format!(
                        "operation `{id}` has unknown `{key}` value {value}: expected one of {}",
                        names.join(", ")
                    ),
                );
                continue;
            };
            match found {
                Some((first, other)) if other != level => self.error(
                    &at.join(key),
                    format!(
                        "operation `{id}` is `{}` by `{first}` but `{}` by `{key}`",
                        other.as_str(),
                        level.as_str()
                    ),
                ),
                _ => found = Some((key, level)),
            }
        }
        found.map_or(Stability::Stable, |(_, level)| level)
    }

    /// A date extension (`x-sunset: 2030-12-05`), which must be written
    /// YYYY-MM-DD.
    pub(super) fn date_extension(
        &mut self,
        ext: Option<(&str, &serde_json::Value)>,
        at: &Pointer,
    ) -> Option<String> {
        let (key, value) = ext?;
        match value.as_str() {
            Some(s) if is_date(s) => Some(s.to_string()),
            _ => {
                self.error(
                    &at.join(key),
                    format!("`{key}` must be a date written YYYY-MM-DD, found {value}"),
                );
                None
            }
        }
    }
}

pub(super) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=12).contains(&s[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&s[8..10].parse::<u32>().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_must_be_calendar_like() {
        assert!(is_date("2030-12-05"));
        assert!(!is_date("2030-13-05"));
        assert!(!is_date("05.12.2030"));
    }
}
