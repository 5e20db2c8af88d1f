//! A record's `runtime::Record` impl and its serde impls through it: one
//! slot per named property, filled as the map is read and finished into
//! the struct, and the properties written back in order.

use crate::model::{Reading, Record};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::Index;

/// `runtime::Record` and `Deserialize` over `runtime::read_record`.
pub(crate) fn deserialize(name: &Ident, r: &Record) -> TokenStream {
    let name_text = name.to_string();
    let count = r.named.len();
    let wires = r.named.iter().map(|n| &n.wire);
    let mut slot_types: Vec<TokenStream> = r
        .named
        .iter()
        .map(|n| {
            let plain = &n.plain;
            if n.reading.nullable_slot() {
                quote!(Option<Option<#plain>>)
            } else {
                quote!(Option<#plain>)
            }
        })
        .collect();
    let mut empty: Vec<TokenStream> = r.named.iter().map(|_| quote!(None)).collect();
    let others = others(r, &mut slot_types, &mut empty);
    // No slots: the unit type, which a body written `{}` returns.
    let slots = if empty.is_empty() {
        quote!({})
    } else {
        quote!({ (#(#empty,)*) })
    };
    let slots_param = unread("slots", count > 0);
    let index_param = unread("index", count > 1);
    let name_param = unread("name", count > 0);
    let fill = fill_body(r);
    let (finish_param, finish) = finish(name, r);
    quote! {
        #[automatically_derived]
        impl runtime::Record for #name {
            const NAME: &'static str = #name_text;
            const FIELDS: &'static [&'static str] = &[#(#wires),*];
            #others
            type Slots = (#(#slot_types,)*);

            fn slots() -> Self::Slots #slots

            fn fill<'de, A: serde::de::MapAccess<'de>>(
                #slots_param: &mut Self::Slots,
                #index_param: usize,
                #name_param: &'static str,
                map: &mut A,
            ) -> Result<(), A::Error> {
                #fill
            }

            fn finish<E: serde::de::Error>(#finish_param: Self::Slots) -> Result<Self, E> {
                #finish
            }
        }

        #[automatically_derived]
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                runtime::read_record(deserializer)
            }
        }
    }
}

/// A parameter a body does not read is named with a leading underscore,
/// so the impl needs no lint allowance.
fn unread(name: &str, read: bool) -> Ident {
    if read {
        format_ident!("{name}")
    } else {
        format_ident!("_{name}")
    }
}

/// What a record does with the properties it does not name: `OTHERS` and
/// `other`, and the slot it keeps them in (added to `slot_types`, with its
/// empty value to `empty`). The other properties are kept as JSON when a
/// flattened part reads them, else straight in the additional properties'
/// type; without either they are refused or ignored.
fn others(
    r: &Record,
    slot_types: &mut Vec<TokenStream>,
    empty: &mut Vec<TokenStream>,
) -> TokenStream {
    let rest = Index::from(r.named.len());
    let mut keep = |slot: TokenStream, keep: Ident| {
        slot_types.push(slot);
        empty.push(quote!(Default::default()));
        quote! {
            const OTHERS: runtime::Others = runtime::Others::Keep;

            fn other<'de, A: serde::de::MapAccess<'de>>(
                slots: &mut Self::Slots,
                key: String,
                map: &mut A,
            ) -> Result<(), A::Error> {
                runtime::#keep(&mut slots.#rest, key, map)
            }
        }
    };
    if !r.flattened.is_empty() {
        keep(
            quote!(serde_json::Map<String, serde_json::Value>),
            format_ident!("keep_json"),
        )
    } else if let Some((_, ty)) = &r.additional {
        keep(quote!(#ty), format_ident!("keep"))
    } else if r.deny_unknown {
        quote!(
            const OTHERS: runtime::Others = runtime::Others::Deny;
        )
    } else {
        TokenStream::new()
    }
}

/// The body of `fill`: the named property at `index` into its slot.
fn fill_body(r: &Record) -> TokenStream {
    let filler = |i: usize| {
        if r.named[i].null_text {
            format_ident!("fill_nullable")
        } else {
            format_ident!("fill")
        }
    };
    match r.named.len() {
        0 => quote!(map.next_value::<serde::de::IgnoredAny>().map(drop)),
        1 => {
            let f = filler(0);
            quote!(runtime::#f(&mut slots.0, name, map))
        }
        count => {
            let arms = (0..count).map(|i| {
                let f = filler(i);
                let slot = Index::from(i);
                let pattern = if i + 1 == count {
                    quote!(_)
                } else {
                    quote!(#slot)
                };
                quote!(#pattern => runtime::#f(&mut slots.#slot, name, map),)
            });
            quote! {
                match index {
                    #(#arms)*
                }
            }
        }
    }
}

/// `finish`'s parameter and body: the struct from its slots, each field as
/// its reading says, the flattened parts and additional properties from the
/// other properties.
fn finish(name: &Ident, r: &Record) -> (Ident, TokenStream) {
    let rest = Index::from(r.named.len());
    let mut finished: Vec<TokenStream> = r
        .named
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let slot = Index::from(i);
            let bound = format_ident!("f{i}");
            let wire = &n.wire;
            let value = match &n.reading {
                // Bound by the `let ... else` of `present`, which checks
                // them all at once (one early return a record, not one a
                // property).
                Reading::Required | Reading::RequiredNullable => quote!(#bound),
                Reading::RequiredList => quote!(runtime::required_list(slots.#slot, #wire)?),
                Reading::Optional => quote!(slots.#slot),
                Reading::OptionalNullable => quote!(slots.#slot.flatten()),
                Reading::ThreeState => quote!(runtime::nullable(slots.#slot)),
                Reading::Defaulted(default) => quote!(slots.#slot.unwrap_or_else(#default)),
            };
            let field = &n.ident;
            quote!(#field: #value,)
        })
        .collect();
    // Every flattened part, and the additional properties beside them, read
    // from the same other properties; the parts, with the shared properties
    // among them.
    let shared: Vec<usize> = (0..r.named.len()).filter(|i| r.named[*i].shared).collect();
    let mut sharing = TokenStream::new();
    let mut consumers: Vec<(&Ident, bool)> = r
        .flattened
        .iter()
        .map(|f| (f, !shared.is_empty()))
        .collect();
    if !shared.is_empty() {
        let source = if r.additional.is_some() {
            quote!(slots.#rest.clone())
        } else {
            quote!(slots.#rest)
        };
        sharing.extend(quote!(let mut shared = #source;));
        for i in &shared {
            let slot = Index::from(*i);
            let wire = &r.named[*i].wire;
            sharing.extend(quote!(runtime::share(&mut shared, #wire, &slots.#slot)?;));
        }
    }
    if let (false, Some((additional, _))) = (r.flattened.is_empty(), &r.additional) {
        consumers.push((additional, false));
    }
    for (i, (field, from_shared)) in consumers.iter().enumerate() {
        let read_later = consumers[i + 1..]
            .iter()
            .any(|(_, later)| later == from_shared);
        let source = if *from_shared {
            quote!(shared)
        } else {
            quote!(slots.#rest)
        };
        let source = if read_later {
            quote!(#source.clone())
        } else {
            source
        };
        finished.push(quote!(#field: runtime::flattened(#source)?,));
    }
    if let (true, Some((additional, _))) = (r.flattened.is_empty(), &r.additional) {
        finished.push(quote!(#additional: slots.#rest,));
    }
    let param = unread("slots", !finished.is_empty());
    let present = present(r);
    let body = quote! {
        #sharing
        #present
        Ok(#name { #(#finished)* })
    };
    (param, body)
}

/// The required properties bound from their slots by one `let ... else`,
/// which checks them all at once (one early return a record, not one a
/// property).
fn present(r: &Record) -> TokenStream {
    let required: Vec<(Index, Ident, &str)> = r
        .named
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n.reading, Reading::Required | Reading::RequiredNullable))
        .map(|(i, n)| (Index::from(i), format_ident!("f{i}"), n.wire.as_str()))
        .collect();
    match required.as_slice() {
        [] => TokenStream::new(),
        [(slot, bound, wire)] => quote! {
            let Some(#bound) = slots.#slot else {
                return Err(serde::de::Error::missing_field(#wire));
            };
        },
        _ => {
            let slots = required.iter().map(|(slot, _, _)| slot);
            let moved = slots.clone();
            let bound = required.iter().map(|(_, bound, _)| bound);
            let wires = required.iter().map(|(_, _, wire)| wire);
            quote! {
                let missing = [#(slots.#slots.is_none()),*];
                let (#(Some(#bound)),*) = (#(slots.#moved),*) else {
                    return Err(runtime::missing(&missing, &[#(#wires),*]));
                };
            }
        }
    }
}

/// `Serialize` through `runtime::Writer`: a line per named property,
/// flattened part and the additional properties. An object with
/// properties beyond its named ones is a map; one without, a struct of its
/// named properties.
pub(crate) fn serialize(name: &Ident, r: &Record) -> TokenStream {
    let mut writes: Vec<TokenStream> = r
        .named
        .iter()
        .map(|n| {
            let method = match n.reading {
                Reading::Optional => format_ident!("optional"),
                Reading::ThreeState => format_ident!("nullable"),
                _ => format_ident!("field"),
            };
            let (field, wire) = (&n.ident, &n.wire);
            quote!(out.#method(#wire, &self.#field);)
        })
        .collect();
    // A shared property is the object's to write.
    let written: Vec<&str> = r
        .named
        .iter()
        .filter(|n| n.shared)
        .map(|n| n.wire.as_str())
        .collect();
    for f in &r.flattened {
        writes.push(if written.is_empty() {
            quote!(out.flatten(&self.#f);)
        } else {
            quote!(out.flatten_except(&self.#f, &[#(#written),*]);)
        });
    }
    if let Some((additional, _)) = &r.additional {
        writes.push(quote!(out.rest(&self.#additional);));
    }
    let binding = if writes.is_empty() {
        quote!(out)
    } else {
        quote!(mut out)
    };
    let start = if r.flattened.is_empty() && r.additional.is_none() {
        let name_text = name.to_string();
        let count = proc_macro2::Literal::usize_unsuffixed(r.named.len());
        quote!(runtime::Writer::start(serializer, #name_text, #count))
    } else {
        quote!(runtime::Writer::start_open(serializer, self))
    };
    quote! {
        #[automatically_derived]
        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let #binding = #start;
                #(#writes)*
                out.end()
            }
        }
    }
}
