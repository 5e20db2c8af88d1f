//! Values from the spec written as Rust literals: defaults.

use super::ident;
use crate::ir::{Api, Shape, Ty, TypeKind};

/// An expression for a JSON default value in a position of the given shape,
/// when the value is a literal Rust can write directly.
pub(crate) fn default_expr(
    value: &serde_json::Value,
    shape: &Shape,
    api: &Api,
    models: &str,
) -> Option<String> {
    use serde_json::Value;
    Some(match (&shape.ty, value) {
        (Ty::Bool, Value::Bool(b)) => b.to_string(),
        (Ty::I32, Value::Number(n)) => i32::try_from(n.as_i64()?).ok()?.to_string(),
        (Ty::I64, Value::Number(n)) => n.as_i64()?.to_string(),
        (Ty::F32 | Ty::F64, Value::Number(n)) => format!("{:?}", n.as_f64()?),
        (Ty::String, Value::String(s)) => format!("{}.to_string()", super::text::string_literal(s)),
        (Ty::Named(name), Value::String(s)) => {
            let def = crate::lower::resolve(&api.types, name)?;
            match &def.kind {
                TypeKind::Enum(variants) => {
                    let variant = ident(&variants.iter().find(|v| &v.wire == s)?.rust);
                    format!("{models}{}::{variant}", ident(&def.name))
                }
                _ => return None,
            }
        }
        _ => return None,
    })
}
