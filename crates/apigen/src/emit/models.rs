//! `models.rs`: one Rust type per named schema, with serde derives, doc comments
//! from the spec and a `Validate` impl enforcing the schema's bounds.

use super::{check_expr, check_fn, default_expr, doc_paragraphs, ident, rust_type};
use crate::ir::{Api, Field, Struct, Ty, TypeDef, TypeKind, Union};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The module's doc comment.
pub const DOC: &str = "Models: one type per schema of the spec.";

/// What the module imports: the runtime, when a type has a `Validate` impl
/// (every type but an alias) or an alias names a runtime type.
pub fn imports(api: &Api) -> Vec<&'static str> {
    let uses_runtime = api.types.values().any(|t| match &t.kind {
        TypeKind::Alias(shape) => super::uses_runtime(shape),
        _ => true,
    });
    if uses_runtime {
        vec!["use super::runtime;"]
    } else {
        Vec::new()
    }
}

/// The items for some of the named types (the file is rendered in chunks).
pub fn items(api: &Api, defs: &[&TypeDef]) -> TokenStream {
    defs.iter().map(|def| type_def(api, def)).collect()
}

fn type_def(api: &Api, def: &TypeDef) -> TokenStream {
    let deprecated = def.deprecated.then(|| "**Deprecated.**".to_string());
    let docs = doc_paragraphs(&[def.doc.clone(), deprecated]);
    match &def.kind {
        TypeKind::Struct(s) => structure(api, def, s, docs),
        TypeKind::Enum(variants) => enumeration(def, variants, docs),
        TypeKind::Union(u) => union(api, def, u, docs),
        TypeKind::Alias(shape) => {
            let name = ident(&def.name);
            let ty = rust_type(shape, &quote!());
            quote! {
                #docs
                pub type #name = #ty;
            }
        }
        TypeKind::Newtype { shape, boxed } => {
            let name = ident(&def.name);
            let ty = rust_type(shape, &quote!());
            let ty = if *boxed { quote!(Box<#ty>) } else { ty };
            let check =
                check_expr(quote!(&self.0), shape, api, &quote!(runtime::)).map(|c| quote!(#c?;));
            quote! {
                #docs
                #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
                #[serde(transparent)]
                pub struct #name(pub #ty);

                impl runtime::Validate for #name {
                    fn validate(&self) -> Result<(), runtime::Violation> {
                        #check
                        Ok(())
                    }
                }
            }
        }
    }
}

fn field_type(f: &Field) -> TokenStream {
    let ty = rust_type(&f.shape, &quote!());
    let ty = if f.boxed { quote!(Box<#ty>) } else { ty };
    if three_state(f) {
        quote!(runtime::Nullable<#ty>)
    } else if is_optional(f) {
        quote!(Option<#ty>)
    } else {
        ty
    }
}

/// A field is an `Option` when it may be absent or null, and when it is
/// read-only (clients never send it, whatever `required` says).
fn is_optional(f: &Field) -> bool {
    !f.required || f.shape.nullable || f.read_only
}

/// A field that may be absent and may be `null`, and where the two mean
/// different things (PATCH-style bodies): `runtime::Nullable`, not `Option`.
fn three_state(f: &Field) -> bool {
    !f.required && f.shape.nullable && !f.read_only && !f.flatten
}

fn structure(api: &Api, def: &TypeDef, s: &Struct, docs: TokenStream) -> TokenStream {
    let name = ident(&def.name);
    let mut defaults = Vec::new();
    let fields = s.fields.iter().map(|f| {
        let fname = ident(&f.rust);
        let notes = [
            f.read_only
                .then(|| "Read-only: sent by the server, refused in requests.".to_string()),
            f.write_only
                .then(|| "Write-only: accepted in requests, never sent back.".to_string()),
            f.deprecated.then(|| "**Deprecated.**".to_string()),
        ];
        let mut paragraphs = vec![f.doc.clone()];
        paragraphs.extend(notes);
        let mut serde = Vec::new();
        if f.flatten {
            let ty = field_type(f);
            let docs = doc_paragraphs(std::slice::from_ref(&f.doc));
            return quote! {
                #docs
                #[serde(flatten)]
                pub #fname: #ty,
            };
        }
        if f.wire != f.rust {
            let wire = &f.wire;
            serde.push(quote!(rename = #wire));
        }
        let ty = if let Some(expr) = spelled_default(api, f) {
            let value = f.default.as_ref().expect("a spelled default has a value");
            let fn_name = format_ident!(
                "default_{}_{}",
                to_snake(&def.name),
                f.rust.trim_end_matches('_')
            );
            let fn_path = fn_name.to_string();
            let plain = rust_type(&f.shape, &quote!());
            defaults.push(quote! {
                fn #fn_name() -> #plain {
                    #expr
                }
            });
            serde.push(quote!(default = #fn_path));
            paragraphs.push(Some(format!("Defaults to `{value}`.")));
            plain
        } else {
            if let Some(value) = &f.default {
                paragraphs.push(Some(format!("Defaults to `{value}` when absent.")));
            }
            if three_state(f) {
                // Absent stays absent when written back; `null` is `null`.
                serde.push(quote!(
                    default,
                    skip_serializing_if = "runtime::Nullable::is_absent"
                ));
            } else if f.required && f.shape.nullable && !f.read_only {
                // `null` is `None`; absent is refused, as `required` says.
                serde.push(quote!(
                    deserialize_with = "super::runtime::required_nullable"
                ));
            } else if is_optional(f) && f.shape.nullable {
                serde.push(quote!(default));
            } else if is_optional(f) {
                // Absent is `None`; `null` for a property that is not
                // `nullable` is refused.
                serde.push(quote!(
                    default,
                    deserialize_with = "super::runtime::present",
                    skip_serializing_if = "Option::is_none"
                ));
            }
            field_type(f)
        };
        let docs = doc_paragraphs(&paragraphs);
        let serde = (!serde.is_empty()).then(|| quote!(#[serde(#(#serde),*)]));
        quote! {
            #docs
            #serde
            pub #fname: #ty,
        }
    });
    let fields: Vec<TokenStream> = fields.collect();
    let additional = s.additional.as_ref().map(|shape| {
        let ty = rust_type(shape, &quote!());
        quote! {
            /// Properties beyond the named ones.
            #[serde(flatten)]
            pub additional_properties: std::collections::BTreeMap<String, #ty>,
        }
    });
    let deny = s
        .deny_unknown
        .then(|| quote!(#[serde(deny_unknown_fields)]));
    let checks = s.fields.iter().filter_map(|f| field_check(api, f));
    let additional_check = s.additional.as_ref().and_then(|shape| {
        let wrapped = crate::ir::Shape::new(Ty::Map(Box::new(shape.clone())));
        check_expr(
            quote!(&self.additional_properties),
            &wrapped,
            api,
            &quote!(runtime::),
        )
        .map(|c| quote!(#c?;))
    });
    let body = quote!(#(#checks)* #additional_check);
    quote! {
        #docs
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #deny
        pub struct #name {
            #(#fields)*
            #additional
        }

        #(#defaults)*

        impl runtime::Validate for #name {
            fn validate(&self) -> Result<(), runtime::Violation> {
                #body
                Ok(())
            }
        }
    }
}

/// The default of an optional field, when Rust can spell it: the field is then
/// the plain type, filled in by serde when absent.
fn spelled_default(api: &Api, f: &Field) -> Option<TokenStream> {
    if f.required || f.shape.nullable || f.read_only || f.boxed {
        return None;
    }
    default_expr(f.default.as_ref()?, &f.shape, api, &quote!())
}

/// The statement that checks one field, with the field's wire name in errors.
fn field_check(api: &Api, f: &Field) -> Option<TokenStream> {
    let name = ident(&f.rust);
    let wire = &f.wire;
    if f.read_only {
        return Some(quote! {
            if self.#name.is_some() {
                return Err(runtime::Violation::new("is read-only").within(#wire));
            }
        });
    }
    let check = if three_state(f) {
        let inner = check_fn("value", &f.shape, api, &quote!(runtime::))?;
        quote!(runtime::check_nullable(&self.#name, #inner))
    } else if is_optional(f) && spelled_default(api, f).is_none() {
        let inner = check_fn("value", &f.shape, api, &quote!(runtime::))?;
        quote!(runtime::check_some(&self.#name, #inner))
    } else {
        check_expr(quote!(&self.#name), &f.shape, api, &quote!(runtime::))?
    };
    Some(quote!(#check.map_err(|v| v.within(#wire))?;))
}

fn enumeration(
    def: &TypeDef,
    variants: &[crate::ir::EnumVariant],
    docs: TokenStream,
) -> TokenStream {
    let name = ident(&def.name);
    let type_name = &def.name;
    let idents: Vec<_> = variants.iter().map(|v| ident(&v.rust)).collect();
    let wires: Vec<_> = variants.iter().map(|v| v.wire.as_str()).collect();
    let count = variants.len();
    let renames = variants.iter().map(|v| {
        let wire = &v.wire;
        let variant = ident(&v.rust);
        let doc = format!(" `{wire}`");
        quote! {
            #[doc = #doc]
            #[serde(rename = #wire)]
            #variant,
        }
    });
    quote! {
        #docs
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub enum #name {
            #(#renames)*
        }

        impl #name {
            /// Every value, in the order the spec lists them.
            pub const ALL: [Self; #count] = [#(Self::#idents),*];

            /// The value as it is written on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    #(Self::#idents => #wires,)*
                }
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for #name {
            type Err = runtime::UnknownVariant;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    #(#wires => Ok(Self::#idents),)*
                    _ => Err(runtime::UnknownVariant {
                        type_name: #type_name,
                        value: s.to_string(),
                    }),
                }
            }
        }

        impl runtime::Validate for #name {
            fn validate(&self) -> Result<(), runtime::Violation> {
                Ok(())
            }
        }
    }
}

fn union(api: &Api, def: &TypeDef, u: &Union, docs: TokenStream) -> TokenStream {
    let name = ident(&def.name);
    let variants = u.variants.iter().map(|v| {
        let variant = ident(&v.rust);
        let ty = rust_type(&v.shape, &quote!());
        let ty = if v.boxed { quote!(Box<#ty>) } else { ty };
        let doc = (!v.tag_values.is_empty()).then(|| {
            let t = format!(" `{}`", v.tag_values.join("`, `"));
            quote!(#[doc = #t])
        });
        quote!(#doc #variant(#ty),)
    });
    let checks = u.variants.iter().map(|v| {
        let variant = ident(&v.rust);
        match check_expr(quote!(value), &v.shape, api, &quote!(runtime::)) {
            Some(check) => quote!(Self::#variant(value) => #check,),
            None => quote!(Self::#variant(_) => Ok(()),),
        }
    });
    let type_name = &def.name;
    let decide_body = match &u.tag {
        Some(tag) => {
            // Each tag value, with the variants it names in order (a value
            // two variants allow tries them in turn); values naming the
            // same variants share an arm.
            let mut named: Vec<(&str, Vec<&crate::ir::UnionVariant>)> = Vec::new();
            for v in &u.variants {
                for value in &v.tag_values {
                    match named.iter_mut().find(|(t, _)| t == value) {
                        Some((_, variants)) => variants.push(v),
                        None => named.push((value, vec![v])),
                    }
                }
            }
            let mut arms: Vec<(Vec<&str>, Vec<&crate::ir::UnionVariant>)> = Vec::new();
            for (value, variants) in named {
                let same = |(_, vs): &&mut (Vec<&str>, Vec<&crate::ir::UnionVariant>)| {
                    vs.len() == variants.len()
                        && vs.iter().zip(&variants).all(|(a, b)| a.rust == b.rust)
                };
                match arms.iter_mut().find(same) {
                    Some((values, _)) => values.push(value),
                    None => arms.push((vec![value], variants)),
                }
            }
            let read = |v: &crate::ir::UnionVariant| {
                let variant = ident(&v.rust);
                if v.boxed {
                    quote!(runtime::read_variant(&value, source).map(|v| Self::#variant(Box::new(v))))
                } else {
                    quote!(runtime::read_variant(&value, source).map(Self::#variant))
                }
            };
            let values = arms
                .iter()
                .flat_map(|(values, _)| values.iter().copied())
                .collect::<Vec<_>>()
                .join("`, `");
            let arms = arms.iter().map(|(values, variants)| {
                let mut tries = variants.iter().map(|v| read(v));
                let first = tries.next().expect("a value names a variant");
                let rest = tries.map(|t| quote!(.or_else(|_| #t)));
                quote!(#(#values)|* => #first #(#rest)*,)
            });
            let unknown = format!("unknown `{tag}` value `{{other}}`: expected `{values}`");
            quote! {
                match runtime::tag_of(&value, #tag)? {
                    #(#arms)*
                    other => Err(format!(#unknown)),
                }
            }
        }
        None => {
            let names: Vec<&str> = u.variants.iter().map(|v| v.rust.as_str()).collect();
            // In text (a query, a header) every value is a string, and one
            // value is also an array of one: array variants come after the
            // others, free-text ones last.
            let tier = |v: &crate::ir::UnionVariant| {
                if free_text(api, &v.shape) {
                    2
                } else if matches!(v.shape.ty, Ty::Array(_)) {
                    1
                } else {
                    0
                }
            };
            let mut ordered: Vec<&crate::ir::UnionVariant> = u.variants.iter().collect();
            ordered.sort_by_key(|v| tier(v));
            let attempt = |v: &crate::ir::UnionVariant, then: TokenStream| {
                let read = quote!(if let Ok(v) = runtime::read_variant(&value, source) { #then });
                match object_fit(api, &v.shape) {
                    Some(fits) => quote!(if #fits { #read }),
                    None => read,
                }
            };
            let wrap = |v: &crate::ir::UnionVariant| {
                let variant = ident(&v.rust);
                if v.boxed {
                    quote!(Self::#variant(Box::new(v)))
                } else {
                    quote!(Self::#variant(v))
                }
            };
            if u.exclusive {
                // `oneOf`: every variant is tried, and exactly one must
                // accept. In text, later tiers only when earlier ones took
                // nothing.
                let mut blocks = Vec::new();
                for level in 0..3 {
                    let tries: Vec<TokenStream> = ordered
                        .iter()
                        .filter(|v| tier(v) == level)
                        .map(|v| {
                            let (name, value) = (&v.rust, wrap(v));
                            attempt(v, quote!(accepted.push((#name, #value));))
                        })
                        .collect();
                    if tries.is_empty() {
                        continue;
                    }
                    blocks.push(if level == 0 {
                        quote!(#(#tries)*)
                    } else {
                        quote! {
                            if source == runtime::Source::Json || accepted.is_empty() {
                                #(#tries)*
                            }
                        }
                    });
                }
                quote! {
                    let mut accepted = Vec::new();
                    #(#blocks)*
                    runtime::decide(#type_name, &[#(#names),*], accepted)
                }
            } else {
                // `anyOf`: the first variant, in tier order, that accepts.
                let tries = ordered.iter().map(|v| {
                    let value = wrap(v);
                    attempt(v, quote!(return Ok(#value);))
                });
                quote! {
                    #(#tries)*
                    Err(runtime::none_of(#type_name, &[#(#names),*]))
                }
            }
        }
    };
    quote! {
        #docs
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        #[serde(untagged)]
        pub enum #name {
            #(#variants)*
        }

        impl runtime::Decide for #name {
            fn decide(value: serde_json::Value, source: runtime::Source) -> Result<Self, String> {
                #decide_body
            }
        }

        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                runtime::decide_json(deserializer)
            }
        }

        impl runtime::Validate for #name {
            fn validate(&self) -> Result<(), runtime::Violation> {
                match self {
                    #(#checks)*
                }
            }
        }
    }
}

/// Whether a shape is any text: every value written as text reads as it.
fn free_text(api: &Api, shape: &crate::ir::Shape) -> bool {
    match &shape.ty {
        Ty::String => true,
        Ty::Named(name) => matches!(
            crate::lower::resolve(&api.types, name).map(|t| &t.kind),
            Some(TypeKind::Alias(crate::ir::Shape { ty: Ty::String, .. }))
        ),
        _ => false,
    }
}

/// The test an object variant's value must pass before it is tried: its
/// required properties present and, when it refuses others, nothing else.
/// `None` for a variant that is not an object.
fn object_fit(api: &Api, shape: &crate::ir::Shape) -> Option<TokenStream> {
    let Ty::Named(name) = &shape.ty else {
        return None;
    };
    let TypeKind::Struct(s) = &crate::lower::resolve(&api.types, name)?.kind else {
        return None;
    };
    // Read-only properties are the server's to send: a request may lack them.
    let required: Vec<&str> = s
        .fields
        .iter()
        .filter(|f| f.required && !f.read_only && !f.flatten)
        .map(|f| f.wire.as_str())
        .collect();
    if required.is_empty() && !s.deny_unknown {
        return Some(quote!(value.is_object()));
    }
    let known = if s.deny_unknown {
        let names = s.fields.iter().map(|f| f.wire.as_str());
        quote!(Some(&[#(#names),*]))
    } else {
        quote!(None)
    };
    Some(quote!(runtime::fits_object(&value, &[#(#required),*], #known)))
}

fn to_snake(name: &str) -> String {
    crate::names::sanitize(name, crate::names::Case::Snake)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Shape;

    #[test]
    fn read_only_fields_are_optional_even_when_required() {
        let f = Field {
            wire: "id".into(),
            pointer: "#/components/schemas/Pet/properties/id".into(),
            rust: "id".into(),
            shape: Shape::new(Ty::I64),
            required: true,
            doc: None,
            default: None,
            example: None,
            read_only: true,
            write_only: false,
            deprecated: false,
            boxed: false,
            flatten: false,
        };
        assert!(is_optional(&f));
        assert_eq!(field_type(&f).to_string(), "Option < i64 >");
    }
}
