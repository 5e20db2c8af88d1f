//! The checks a value must pass, from its schema's bounds: the words
//! of the `#[check(...)]` attributes a `Validate` derive reads.

use super::text;
use crate::ir::{Api, Number, Shape, Ty, TypeKind};

/// One check of a value, from its schema's bounds, as a field's
/// `#[check(...)]` attribute lists it ([`attribute`]) for the `Validate`
/// derive (`apigen-macros`), which expands it to the runtime's check.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Check {
    /// A string's length: `runtime::check_length`.
    Length(Option<usize>, Option<usize>),
    /// A list's length: `runtime::check_items`.
    Items(Option<usize>, Option<usize>),
    /// A number's range: each end's literal and whether it is excluded.
    Range(Option<(String, bool)>, Option<(String, bool)>),
    /// A string's pattern.
    Pattern(String),
    /// Values it may not be: string literals (`true`) or numbers.
    NotIn(Vec<String>, bool),
    /// The whole numbers it may be.
    OneOf(Vec<String>),
    /// No two items of a list equal.
    Unique,
    /// A string format: `email`, `uri` or `duration`.
    Format(&'static str),
    /// The value's own `Validate`.
    Valid,
    /// The checks of every item of a list.
    Each(Vec<Check>),
    /// The checks of every value of a map.
    Values(Vec<Check>),
}

/// The checks a value of `shape` must pass, in the order they run; empty
/// when nothing can be broken.
pub(crate) fn checks(shape: &Shape, api: &Api) -> Vec<Check> {
    let c = &shape.checks;
    let mut checks: Vec<Check> = Vec::new();
    match &shape.ty {
        Ty::String => string_checks(c, &mut checks),
        Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 => number_checks(shape, &mut checks),
        Ty::Array(items) => {
            if c.min_items.is_some() || c.max_items.is_some() {
                checks.push(Check::Items(c.min_items, c.max_items));
            }
            if c.unique_items {
                checks.push(Check::Unique);
            }
            let each = self::checks(items, api);
            if !each.is_empty() {
                checks.push(Check::Each(each));
            }
        }
        Ty::Map(values) => {
            let each = self::checks(values, api);
            if !each.is_empty() {
                checks.push(Check::Values(each));
            }
        }
        Ty::Named(name) => match api.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Enum(_)) => {}
            // An alias has no impl of its own: check what it names.
            Some(TypeKind::Alias(_)) => {
                return resolve_alias(name, api)
                    .map(|inner| self::checks(inner, api))
                    .unwrap_or_default();
            }
            _ if api.checked.contains(name) => checks.push(Check::Valid),
            _ => {}
        },
        Ty::Bool | Ty::DateTime | Ty::Date | Ty::Uuid | Ty::Base64 | Ty::Json | Ty::Bytes => {}
    }
    checks
}

/// The checks as a `#[check(...)]` attribute lists them (`length(max =
/// 500), pattern = "^[a-z]+$"`), as `apigen-macros` reads them.
pub(crate) fn attribute(checks: &[Check]) -> String {
    let bounds = |pairs: &[(&str, Option<String>)]| {
        pairs
            .iter()
            .filter_map(|(key, value)| value.as_ref().map(|v| format!("{key} = {v}")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let words: Vec<String> = checks
        .iter()
        .map(|check| match check {
            Check::Length(min, max) | Check::Items(min, max) => {
                let key = if matches!(check, Check::Length(..)) {
                    "length"
                } else {
                    "items"
                };
                let text = bounds(&[
                    ("min", min.map(|n| n.to_string())),
                    ("max", max.map(|n| n.to_string())),
                ]);
                format!("{key}({text})")
            }
            Check::Range(min, max) => {
                let end = |end: &Option<(String, bool)>, excluded: bool| {
                    end.as_ref()
                        .filter(|(_, e)| *e == excluded)
                        .map(|(n, _)| n.clone())
                };
                let text = bounds(&[
                    ("min", end(min, false)),
                    ("above", end(min, true)),
                    ("max", end(max, false)),
                    ("below", end(max, true)),
                ]);
                format!("range({text})")
            }
            Check::Pattern(pattern) => format!("pattern = {}", text::string_literal(pattern)),
            Check::NotIn(values, _) => format!("not_in({})", values.join(", ")),
            Check::OneOf(values) => format!("one_of({})", values.join(", ")),
            Check::Unique => "unique".into(),
            Check::Format(format) => (*format).into(),
            Check::Valid => "valid".into(),
            Check::Each(inner) => format!("each({})", attribute(inner)),
            Check::Values(inner) => format!("values({})", attribute(inner)),
        })
        .collect();
    words.join(", ")
}

/// The checks of a string: its length, pattern, excluded values and
/// format.
fn string_checks(c: &crate::ir::Checks, checks: &mut Vec<Check>) {
    if c.min_length.is_some() || c.max_length.is_some() {
        checks.push(Check::Length(c.min_length, c.max_length));
    }
    if let Some(pattern) = &c.pattern {
        checks.push(Check::Pattern(pattern.clone()));
    }
    if let Some(excluded) = excluded(&c.not_in, |v| v.as_str().map(text::string_literal)) {
        checks.push(Check::NotIn(excluded, true));
    }
    match c.format {
        Some(crate::ir::TextFormat::Email) => checks.push(Check::Format("email")),
        Some(crate::ir::TextFormat::Uri) => checks.push(Check::Format("uri")),
        Some(crate::ir::TextFormat::Duration) => checks.push(Check::Format("duration")),
        None => {}
    }
}

/// The checks of a number: its range, excluded values and, for whole
/// numbers, the values it may take.
fn number_checks(shape: &Shape, checks: &mut Vec<Check>) {
    let c = &shape.checks;
    let min = bound(c.minimum, c.exclusive_minimum, &shape.ty, Side::Min);
    let max = bound(c.maximum, c.exclusive_maximum, &shape.ty, Side::Max);
    if min.is_some() || max.is_some() {
        checks.push(Check::Range(min, max));
    }
    let integer = matches!(shape.ty, Ty::I32 | Ty::I64);
    let number = |v: &serde_json::Value| {
        let n = v.as_i64().filter(|_| integer)?;
        Some(match shape.ty {
            Ty::I32 => i32::try_from(n).ok()?.to_string(),
            _ => n.to_string(),
        })
    };
    if let Some(excluded) = excluded(&c.not_in, number) {
        checks.push(Check::NotIn(excluded, false));
    }
    let allowed: Vec<String> = c
        .one_of
        .iter()
        .filter_map(|n| number(&serde_json::Value::from(*n)))
        .collect();
    if !allowed.is_empty() {
        checks.push(Check::OneOf(allowed));
    }
}

/// The excluded values as literals, when every one of them has the
/// value's type (`None` when there are none, or one does not).
fn excluded(
    values: &[serde_json::Value],
    literal: impl Fn(&serde_json::Value) -> Option<String>,
) -> Option<Vec<String>> {
    let literals: Option<Vec<String>> = values.iter().map(literal).collect();
    literals.filter(|l| !l.is_empty())
}

/// What a chain of aliases finally names; `None` for a cycle of aliases.
fn resolve_alias<'a>(name: &str, api: &'a Api) -> Option<&'a Shape> {
    let mut current = name;
    for _ in 0..64 {
        match &api.types.get(current)?.kind {
            TypeKind::Alias(shape) => match &shape.ty {
                Ty::Named(next)
                    if matches!(
                        api.types.get(next).map(|t| &t.kind),
                        Some(TypeKind::Alias(_))
                    ) =>
                {
                    current = next;
                }
                _ => return Some(shape),
            },
            _ => return None,
        }
    }
    None
}

/// Which end of a range a bound closes.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Min,
    Max,
}

/// An end of a range for `check_range`, as a literal of the type and
/// whether it is excluded, or `None` when the bound cannot be broken by any
/// value of the type (an int32 field with a maximum beyond `i32::MAX`,
/// say).
fn bound(n: Option<Number>, exclusive: bool, ty: &Ty, side: Side) -> Option<(String, bool)> {
    let integer = matches!(ty, Ty::I32 | Ty::I64);
    let (text, exclusive) = match (n?, ty) {
        // A bound at the type's own limit cannot be broken: no check.
        (Number::Int(i), Ty::I32) if i >= i64::from(i32::MAX) || i <= i64::from(i32::MIN) => {
            return None
        }
        (Number::Int(i), Ty::I64) if i == i64::MAX || i == i64::MIN => return None,
        (Number::Int(i), Ty::I32) => (i32::try_from(i).ok()?.to_string(), exclusive),
        (Number::Int(i), Ty::I64) => (i.to_string(), exclusive),
        // A fractional bound on an integer: the nearest integer inside it,
        // included whether the bound was or not (`> 1.5` is `>= 2`).
        (Number::Float(f), _) if integer && f.fract() != 0.0 => {
            let inside = if side == Side::Min {
                f.ceil()
            } else {
                f.floor()
            } as i64;
            let inside = match ty {
                Ty::I32 => i32::try_from(inside).ok()?.to_string(),
                _ => inside.to_string(),
            };
            (inside, false)
        }
        (Number::Float(f), Ty::I32) => (i32::try_from(f as i64).ok()?.to_string(), exclusive),
        (Number::Float(f), Ty::I64) => ((f as i64).to_string(), exclusive),
        (Number::Int(i), _) => (format!("{:?}", i as f64), exclusive),
        (Number::Float(f), _) => (format!("{f:?}"), exclusive),
    };
    Some((text, exclusive))
}
