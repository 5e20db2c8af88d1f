//! The checks a value must pass, from its schema's bounds: the
//! expressions of a `Validate` impl.

use super::text::{self, Expr};
use crate::ir::{Api, Number, Shape, Ty, TypeKind};

/// An expression of type `Result<(), runtime::Violation>` checking the value
/// `value` (an expression of type `&T`) against the shape's bounds, or `None`
/// when there is nothing to check.
pub(crate) fn check_expr(value: &str, shape: &Shape, api: &Api) -> Option<Expr> {
    let c = &shape.checks;
    let mut checks: Vec<Expr> = Vec::new();
    match &shape.ty {
        Ty::String => {
            string_checks(value, c, &mut checks);
        }
        Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 => {
            number_checks(value, shape, &mut checks);
        }
        Ty::Array(items) => {
            if c.min_items.is_some() || c.max_items.is_some() {
                let (min, max) = (opt_usize(c.min_items), opt_usize(c.max_items));
                checks.push(call(
                    "runtime::check_items",
                    vec![format!("Vec::len({value})"), min, max],
                ));
            }
            if c.unique_items {
                checks.push(call("runtime::check_unique", vec![value.into()]));
            }
            if let Some(item) = check_fn("item", items, api) {
                checks.push(Expr::call(
                    "runtime::check_each",
                    vec![Expr::text(value), item],
                    "",
                ));
            }
        }
        Ty::Map(values) => {
            if let Some(item) = check_fn("value", values, api) {
                checks.push(Expr::call(
                    "runtime::check_values",
                    vec![Expr::text(value), item],
                    "",
                ));
            }
        }
        Ty::Named(name) => match api.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Enum(_)) => {}
            // An alias has no impl of its own: check what it names.
            Some(TypeKind::Alias(_)) => {
                return resolve_alias(name, api).and_then(|inner| check_expr(value, inner, api));
            }
            _ if api.checked.contains(name) => {
                checks.push(call("runtime::Validate::validate", vec![value.into()]));
            }
            _ => {}
        },
        Ty::Bool | Ty::DateTime | Ty::Date | Ty::Uuid | Ty::Base64 | Ty::Json | Ty::Bytes => {}
    }
    let mut checks = checks.into_iter();
    let first = checks.next()?;
    Some(checks.fold(first, |acc, next| {
        acc.then_expr(Expr::call(
            ".and_then",
            vec![Expr::Closure("|()|".into(), Box::new(next))],
            "",
        ))
    }))
}

/// A call of `callee` with `args` written as they are.
fn call(callee: &str, args: Vec<String>) -> Expr {
    Expr::call(callee, args.into_iter().map(Expr::Text).collect(), "")
}

/// The checks of a string: its length, pattern, excluded values and
/// format.
fn string_checks(value: &str, c: &crate::ir::Checks, checks: &mut Vec<Expr>) {
    if c.min_length.is_some() || c.max_length.is_some() {
        let (min, max) = (opt_usize(c.min_length), opt_usize(c.max_length));
        checks.push(call("runtime::check_length", vec![value.into(), min, max]));
    }
    if let Some(pattern) = &c.pattern {
        let regex = format!(
            "|| regex::Regex::new({}).expect(\"the generator checked the pattern\")",
            text::string_literal(pattern)
        );
        let lazy = Expr::Stmt(
            "static PATTERN: std::sync::LazyLock<regex::Regex> = ".into(),
            Box::new(call("std::sync::LazyLock::new", vec![regex])),
            ";",
        );
        checks.push(Expr::Block(
            vec![lazy],
            Box::new(call(
                "runtime::check_pattern",
                vec![value.into(), "&PATTERN".into()],
            )),
        ));
    }
    if let Some(excluded) = excluded(&c.not_in, |v| v.as_str().map(text::string_literal)) {
        checks.push(call(
            "runtime::check_not_one_of::<str>",
            vec![value.into(), format!("&[{}]", excluded.join(", "))],
        ));
    }
    match c.format {
        Some(crate::ir::TextFormat::Email) => {
            checks.push(call("runtime::check_email", vec![value.into()]));
        }
        Some(crate::ir::TextFormat::Uri) => {
            checks.push(call("runtime::check_uri", vec![value.into()]));
        }
        Some(crate::ir::TextFormat::Duration) => {
            checks.push(call("runtime::check_duration", vec![value.into()]));
        }
        None => {}
    }
}

/// The checks of a number: its range, excluded values and, for whole
/// numbers, the values it may take.
fn number_checks(value: &str, shape: &Shape, checks: &mut Vec<Expr>) {
    let c = &shape.checks;
    let min = bound(c.minimum, c.exclusive_minimum, &shape.ty, Side::Min);
    let max = bound(c.maximum, c.exclusive_maximum, &shape.ty, Side::Max);
    if min.is_some() || max.is_some() {
        let unbounded = || "runtime::Bound::Unbounded".to_string();
        let (min, max) = (min.unwrap_or_else(unbounded), max.unwrap_or_else(unbounded));
        checks.push(call("runtime::check_range", vec![value.into(), min, max]));
    }
    let integer = matches!(shape.ty, Ty::I32 | Ty::I64);
    let number = |v: &serde_json::Value| {
        let n = v.as_i64().filter(|_| integer)?;
        let n = match shape.ty {
            Ty::I32 => i32::try_from(n).ok()?.to_string(),
            _ => n.to_string(),
        };
        Some(format!("&{n}"))
    };
    if let Some(excluded) = excluded(&c.not_in, number) {
        checks.push(call(
            "runtime::check_not_one_of",
            vec![value.into(), format!("&[{}]", excluded.join(", "))],
        ));
    }
    let allowed: Vec<String> = c
        .one_of
        .iter()
        .filter_map(|n| number(&serde_json::Value::from(*n)))
        .collect();
    if !allowed.is_empty() {
        checks.push(call(
            "runtime::check_one_of",
            vec![value.into(), format!("&[{}]", allowed.join(", "))],
        ));
    }
}

/// A `Validate` impl for `name` under `cfg` running `checks` (statements
/// returning a violation), as text.
pub(crate) fn validate_impl(name: &str, cfg: &str, checks: &[Expr]) -> String {
    let mut out = format!(
        "{}impl runtime::Validate for {name} {{\n    \
         fn validate(&self) -> Result<(), runtime::Violation> {{\n",
        text::cfg_line(cfg)
    );
    for check in checks {
        check.write(&mut out, 8, "", "");
    }
    out.push_str("        Ok(())\n    }\n}\n");
    out
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

/// A function checking one value of the shape, for `check_each`, `check_values`
/// and `check_some`: `Validate::validate` itself when that is all there is to
/// check, else a closure over `var`.
pub(crate) fn check_fn(var: &str, shape: &Shape, api: &Api) -> Option<Expr> {
    let body = check_expr(var, shape, api)?;
    if body.flat().as_deref() == Some(&format!("runtime::Validate::validate({var})")) {
        Some(Expr::text("runtime::Validate::validate"))
    } else {
        Some(Expr::Closure(format!("|{var}|"), Box::new(body)))
    }
}

fn opt_usize(v: Option<usize>) -> String {
    match v {
        Some(v) => format!("Some({v})"),
        None => "None".to_string(),
    }
}

/// Which end of a range a bound closes.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Min,
    Max,
}

/// A `runtime::Bound` for `check_range`, or `None` when the bound cannot be
/// broken by any value of the type (an int32 field with a maximum beyond
/// `i32::MAX`, say).
fn bound(n: Option<Number>, exclusive: bool, ty: &Ty, side: Side) -> Option<String> {
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
    Some(if exclusive {
        format!("runtime::Bound::Excluded({text})")
    } else {
        format!("runtime::Bound::Included({text})")
    })
}
