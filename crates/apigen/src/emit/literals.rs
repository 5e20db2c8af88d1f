//! Values from the spec written as Rust literals: numbers, and defaults.

use super::ident;
use crate::ir::{Api, Shape, Ty, TypeKind};
use proc_macro2::TokenStream;
use quote::quote;

/// A numeric literal, negative ones included.
pub(super) fn number(text: &str) -> TokenStream {
    text.parse()
        .expect("a formatted number is a valid token stream")
}

/// An expression for a JSON default value in a position of the given shape,
/// when the value is a literal Rust can write directly.
pub(crate) fn default_expr(
    value: &serde_json::Value,
    shape: &Shape,
    api: &Api,
    models: &TokenStream,
) -> Option<TokenStream> {
    use serde_json::Value;
    Some(match (&shape.ty, value) {
        (Ty::Bool, Value::Bool(b)) => quote!(#b),
        (Ty::I32, Value::Number(n)) => number(&i32::try_from(n.as_i64()?).ok()?.to_string()),
        (Ty::I64, Value::Number(n)) => number(&n.as_i64()?.to_string()),
        (Ty::F32 | Ty::F64, Value::Number(n)) => number(&format!("{:?}", n.as_f64()?)),
        (Ty::String, Value::String(s)) => quote!(#s.to_string()),
        (Ty::Named(name), Value::String(s)) => {
            let def = crate::lower::resolve(&api.types, name)?;
            match &def.kind {
                TypeKind::Enum(variants) => {
                    let variant = ident(&variants.iter().find(|v| &v.wire == s)?.rust);
                    let name = ident(&def.name);
                    quote!(#models #name::#variant)
                }
                _ => return None,
            }
        }
        _ => return None,
    })
}
