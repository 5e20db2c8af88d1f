//! A union (`oneOf`, `anyOf`): one variant per shape, read by its
//! discriminator or by trying each.

use crate::emit::gates::ImplCfg;
use crate::emit::validation::check_expr;
use crate::emit::{ident, rust_type};
use crate::ir::{Api, Ty, TypeDef, TypeKind, Union};
use proc_macro2::TokenStream;
use quote::quote;

/// A union's enum, its serde impls (by the discriminator's value, or the
/// first variant that reads the value) and, where a request can carry it,
/// its `Validate` impl.
pub(super) fn union(
    api: &Api,
    def: &TypeDef,
    u: &Union,
    docs: TokenStream,
    cfg: &TokenStream,
    serde: &[ImplCfg; 2],
) -> TokenStream {
    let [write, read] = serde.each_ref().map(ImplCfg::attr);
    let name = ident(&def.name);
    let variants = u.variants.iter().map(|v| {
        let variant = ident(&v.rust);
        let ty = rust_type(&v.shape, &quote!());
        let ty = if v.boxed { quote!(Box<#ty>) } else { ty };
        let doc = (!v.tag_values.is_empty()).then(|| {
            let mut t = format!(" `{}`", v.tag_values.join("`, `"));
            if u.fallback.as_ref() == Some(&v.rust) {
                if let Some(tag) = &u.tag {
                    t.push_str(&format!(
                        ", and any `{tag}` no other variant names, or none"
                    ));
                }
            }
            quote!(#[doc = #t])
        });
        quote!(#doc #variant(#ty),)
    });
    let validate = validate_impl(api, def, u, cfg);
    let type_name = &def.name;
    let decide_body = match &u.tag {
        Some(tag) => by_tag(api, u, tag, type_name),
        None => structural(api, u, type_name),
    };
    // A value is written as its variant's value (serde's `untagged`,
    // written out: the derive's expansion is several times the size).
    let writes = u.variants.iter().map(|v| {
        let variant = ident(&v.rust);
        quote!(Self::#variant(value) => serde::Serialize::serialize(value, serializer),)
    });
    quote! {
        #docs
        #[derive(Debug, Clone, PartialEq)]
        pub enum #name {
            #(#variants)*
        }

        #write
        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                // A format that is not self-describing could not tell the
                // variants apart on reading: there, the JSON text.
                if !serializer.is_human_readable() {
                    return runtime::json_text(self, serializer);
                }
                match self {
                    #(#writes)*
                }
            }
        }

        #read
        impl runtime::Decide for #name {
            fn decide(value: serde_json::Value, source: runtime::Source) -> Result<Self, String> {
                #decide_body
            }
        }

        #read
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                runtime::decide_json(deserializer)
            }
        }

        #validate
    }
}

/// A union's `Validate` impl, where a request can carry it: its variant's
/// checks.
fn validate_impl(api: &Api, def: &TypeDef, u: &Union, cfg: &TokenStream) -> Option<TokenStream> {
    let name = ident(&def.name);
    let checks = u.variants.iter().map(|v| {
        let variant = ident(&v.rust);
        match check_expr("value", &v.shape, api).map(|check| check.tokens()) {
            Some(check) => quote!(Self::#variant(value) => #check,),
            None => quote!(Self::#variant(_) => Ok(()),),
        }
    });
    api.checked.contains(&def.name).then(|| {
        quote! {
            #cfg
            impl runtime::Validate for #name {
                fn validate(&self) -> Result<(), runtime::Violation> {
                    match self {
                        #(#checks)*
                    }
                }
            }
        }
    })
}

/// `decide`'s body without a tag: every variant tried, by its structure.
fn structural(api: &Api, u: &Union, type_name: &str) -> TokenStream {
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

/// `decide`'s body with the tag `tag`: the variants the tag's value names,
/// and, where a variant may omit the tag, by structure when it is absent.
fn by_tag(api: &Api, u: &Union, tag: &str, type_name: &str) -> TokenStream {
    // Each tag value, with the variants it names in order (a value
    // two variants allow tries them in turn); values naming the
    // same variants share an arm.
    let mut named: Vec<(&str, Vec<&crate::ir::UnionVariant>)> = Vec::new();
    for v in &u.variants {
        for value in v.tag_values.iter().chain(&v.implicit_tag) {
            match named.iter_mut().find(|(t, _)| t == value) {
                Some((_, variants)) => variants.push(v),
                None => named.push((value, vec![v])),
            }
        }
    }
    let mut arms: Vec<(Vec<&str>, Vec<&crate::ir::UnionVariant>)> = Vec::new();
    for (value, variants) in named {
        let same = |(_, vs): &&mut (Vec<&str>, Vec<&crate::ir::UnionVariant>)| {
            vs.len() == variants.len() && vs.iter().zip(&variants).all(|(a, b)| a.rust == b.rust)
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
    // The values the document names (an implicit name is taken,
    // not offered).
    let values = arms
        .iter()
        .flat_map(|(values, _)| values.iter().copied())
        .filter(|value| {
            u.variants
                .iter()
                .any(|v| v.tag_values.iter().any(|t| t == value))
        })
        .collect::<Vec<_>>()
        .join("`, `");
    // The variant `defaultMapping` names reads a value whose tag is absent
    // or names no variant (a value naming it alone among them too); without
    // one, such a value is refused.
    let fallback = u
        .variants
        .iter()
        .find(|v| u.fallback.as_ref() == Some(&v.rust));
    let only_fallback = |variants: &[&crate::ir::UnionVariant]| {
        fallback.is_some_and(|f| variants.len() == 1 && variants[0].rust == f.rust)
    };
    let arms = arms
        .iter()
        .filter(|(_, variants)| !only_fallback(variants))
        .map(|(values, variants)| {
            let mut tries = variants.iter().map(|v| read(v));
            let first = tries.next().expect("a value names a variant");
            let rest = tries.map(|t| quote!(.or_else(|_| #t)));
            if fallback.is_some() {
                quote!(Some(#(#values)|*) => #first #(#rest)*,)
            } else {
                quote!(#(#values)|* => #first #(#rest)*,)
            }
        });
    if let Some(fallback) = fallback {
        let fallback = read(fallback);
        return quote! {
            match runtime::tag_of(&value, #tag).ok() {
                #(#arms)*
                _ => #fallback,
            }
        };
    }
    let unknown = format!("unknown `{tag}` value `{{other}}`: expected `{values}`");
    let by_tag = quote! {
        match runtime::tag_of(&value, #tag)? {
            #(#arms)*
            other => Err(format!(#unknown)),
        }
    };
    // A variant that may omit the tag (the discriminator is a hint
    // where the schemas leave it optional) is found by its
    // structure when the tag is absent.
    if u.variants.iter().all(|v| requires(api, &v.shape, tag)) {
        by_tag
    } else {
        let structural = structural(api, u, type_name);
        quote! {
            if value.get(#tag).is_none() {
                #structural
            } else {
                #by_tag
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

/// Whether a union variant of this shape always carries the property
/// `tag` (an object whose schema requires it).
fn requires(api: &Api, shape: &crate::ir::Shape, tag: &str) -> bool {
    let Ty::Named(name) = &shape.ty else {
        return false;
    };
    crate::lower::resolve(&api.types, name).is_some_and(|def| match &def.kind {
        TypeKind::Struct(s) => s
            .fields
            .iter()
            .any(|f| f.wire == tag && f.required && !f.flatten),
        _ => false,
    })
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
        // A required property that admits null is present when null: its
        // reading checks it (the pre-check wants a value).
        .filter(|f| f.required && !f.read_only && !f.write_only && !f.flatten)
        .filter(|f| !f.shape.nullable)
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
