//! A union's impls: written as its variant's value, read by the tag's
//! value or by trying each variant (`runtime::Decide`).

use crate::model::{Union, UnionVariant};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// `Serialize`: the variant's value (serde's `untagged`, written out: the
/// derive's expansion is several times the size). A format that is not
/// self-describing could not tell the variants apart on reading: there,
/// the JSON text.
pub(crate) fn serialize(name: &Ident, u: &Union) -> TokenStream {
    let variants = u.variants.iter().map(|v| &v.ident);
    quote! {
        #[automatically_derived]
        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                if !serializer.is_human_readable() {
                    return runtime::json_text(self, serializer);
                }
                match self {
                    #(Self::#variants(value) => serde::Serialize::serialize(value, serializer),)*
                }
            }
        }
    }
}

/// `runtime::Decide` and `Deserialize` through it.
pub(crate) fn deserialize(name: &Ident, u: &Union) -> TokenStream {
    let type_name = name.to_string();
    let body = match &u.tag {
        Some(tag) => by_tag(u, tag, &type_name),
        None => structural(u, &type_name),
    };
    quote! {
        #[automatically_derived]
        impl runtime::Decide for #name {
            fn decide(value: serde_json::Value, source: runtime::Source) -> Result<Self, String> {
                #body
            }
        }

        #[automatically_derived]
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                runtime::decide_json(deserializer)
            }
        }
    }
}

/// The variant holding `v`, a value read as its type.
fn wrap(variant: &UnionVariant) -> TokenStream {
    let ident = &variant.ident;
    if variant.boxed {
        quote!(Self::#ident(Box::new(v)))
    } else {
        quote!(Self::#ident(v))
    }
}

/// `decide`'s body without a tag: every variant tried, by its structure.
/// In text (a query, a header) every value is a string, and one value is
/// also an array of one: array variants come after the others, free-text
/// ones last.
fn structural(u: &Union, type_name: &str) -> TokenStream {
    let names: Vec<String> = u.variants.iter().map(|v| v.ident.to_string()).collect();
    let mut ordered: Vec<&UnionVariant> = u.variants.iter().collect();
    ordered.sort_by_key(|v| v.tier);
    let attempt = |v: &UnionVariant, then: TokenStream| {
        let read = quote! {
            if let Ok(v) = runtime::read_variant(&value, source) {
                #then
            }
        };
        match &v.fits {
            None => read,
            Some(fits) if fits.required.is_empty() && fits.only.is_none() => {
                quote!(if value.is_object() { #read })
            }
            Some(fits) => {
                let required = &fits.required;
                let only = match &fits.only {
                    Some(only) => quote!(Some(&[#(#only),*])),
                    None => quote!(None),
                };
                quote!(if runtime::fits_object(&value, &[#(#required),*], #only) { #read })
            }
        }
    };
    if u.one_of {
        // `oneOf`: every variant is tried, and exactly one must accept.
        // In text, later tiers only when earlier ones took nothing.
        let mut blocks = TokenStream::new();
        for level in 0..3 {
            let tries: TokenStream = ordered
                .iter()
                .filter(|v| v.tier == level)
                .map(|v| {
                    let (name, value) = (v.ident.to_string(), wrap(v));
                    attempt(v, quote!(accepted.push((#name, #value));))
                })
                .collect();
            if tries.is_empty() {
                continue;
            }
            if level == 0 {
                blocks.extend(tries);
            } else {
                blocks.extend(quote! {
                    if source == runtime::Source::Json || accepted.is_empty() {
                        #tries
                    }
                });
            }
        }
        quote! {
            let mut accepted = Vec::new();
            #blocks
            runtime::decide(#type_name, &[#(#names),*], accepted)
        }
    } else {
        // `anyOf`: the first variant, in tier order, that accepts.
        let tries: TokenStream = ordered
            .iter()
            .map(|v| {
                let value = wrap(v);
                attempt(v, quote!(return Ok(#value);))
            })
            .collect();
        quote! {
            #tries
            Err(runtime::none_of(#type_name, &[#(#names),*]))
        }
    }
}

/// `decide`'s body with the tag `tag`: the variants the tag's value names,
/// and, where a variant may omit the tag, by structure when it is absent.
fn by_tag(u: &Union, tag: &str, type_name: &str) -> TokenStream {
    // Each tag value, with the variants it names in order (a value two
    // variants allow tries them in turn); values naming the same variants
    // share an arm.
    let mut named: Vec<(&str, Vec<&UnionVariant>)> = Vec::new();
    for v in &u.variants {
        for value in v.tags.iter().chain(&v.implicit) {
            match named.iter_mut().find(|(t, _)| t == value) {
                Some((_, variants)) => variants.push(v),
                None => named.push((value, vec![v])),
            }
        }
    }
    let mut arms: Vec<(Vec<&str>, Vec<&UnionVariant>)> = Vec::new();
    for (value, variants) in named {
        let same = |(_, vs): &&mut (Vec<&str>, Vec<&UnionVariant>)| {
            vs.len() == variants.len() && vs.iter().zip(&variants).all(|(a, b)| a.ident == b.ident)
        };
        match arms.iter_mut().find(same) {
            Some((values, _)) => values.push(value),
            None => arms.push((vec![value], variants)),
        }
    }
    let read = |v: &UnionVariant| {
        let ident = &v.ident;
        if v.boxed {
            quote!(runtime::read_variant(&value, source).map(|v| Self::#ident(Box::new(v))))
        } else {
            quote!(runtime::read_variant(&value, source).map(Self::#ident))
        }
    };
    // The values the document names (an implicit name is taken, not
    // offered).
    let values = arms
        .iter()
        .flat_map(|(values, _)| values.iter().copied())
        .filter(|value| u.variants.iter().any(|v| v.tags.iter().any(|t| t == value)))
        .collect::<Vec<_>>()
        .join("`, `");
    // The variant marked `fallback` reads a value whose tag is absent or
    // names no variant (a value naming it alone among them too); without
    // one, such a value is refused.
    let fallback = u.variants.iter().find(|v| v.fallback);
    let only_fallback = |variants: &[&UnionVariant]| {
        fallback.is_some_and(|f| variants.len() == 1 && variants[0].ident == f.ident)
    };
    let arms: Vec<TokenStream> = arms
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
        })
        .collect();
    if let Some(fallback) = fallback {
        let read = read(fallback);
        return quote! {
            match runtime::tag_of(&value, #tag).ok() {
                #(#arms)*
                _ => #read,
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
    if u.optional_tag {
        let structural = structural(u, type_name);
        quote! {
            if value.get(#tag).is_none() {
                #structural
            } else {
                #by_tag
            }
        }
    } else {
        by_tag
    }
}
