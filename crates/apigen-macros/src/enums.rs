//! A string enum's impls: its values, `runtime::StringEnum`, the standard
//! traits and serde, through the runtime.

use crate::model::StringEnum;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// `ALL` and `as_str`, `runtime::StringEnum`, `Hash`, `Ord`, `Display`
/// and `FromStr`.
pub(crate) fn string_enum(name: &Ident, e: &StringEnum) -> TokenStream {
    let name_text = name.to_string();
    let count = Literal::usize_unsuffixed(e.variants.len());
    let variants: Vec<&Ident> = e.variants.iter().map(|(v, _)| v).collect();
    let wires: Vec<&str> = e.variants.iter().map(|(_, w)| w.as_str()).collect();
    let unknown = &e.unknown;
    quote! {
        #[automatically_derived]
        impl #name {
            /// Every value the spec lists, in its order.
            pub const ALL: [Self; #count] = [#(Self::#variants),*];

            /// The value as it is written on the wire.
            pub fn as_str(&self) -> &str {
                runtime::StringEnum::wire(self)
            }
        }

        #[automatically_derived]
        impl runtime::StringEnum for #name {
            const NAME: &'static str = #name_text;
            const WIRE: &'static [&'static str] = &[#(#wires),*];

            fn known(index: usize) -> Self {
                Self::ALL[index].clone()
            }

            fn unknown(value: runtime::Unknown) -> Self {
                Self::#unknown(value)
            }

            fn wire(&self) -> &str {
                match self {
                    #(Self::#variants => #wires,)*
                    Self::#unknown(value) => value.as_str(),
                }
            }
        }

        #[automatically_derived]
        impl std::hash::Hash for #name {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                runtime::hash_enum(self, state);
            }
        }

        #[automatically_derived]
        impl PartialOrd for #name {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        #[automatically_derived]
        impl Ord for #name {
            /// The values in the spec's order, then unknown ones by their text.
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                runtime::compare_enums(self, other)
            }
        }

        #[automatically_derived]
        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #[automatically_derived]
        impl std::str::FromStr for #name {
            type Err = runtime::UnknownVariant;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                runtime::parse_enum(s)
            }
        }
    }
}

/// `Serialize` of a string enum: its text.
pub(crate) fn serialize(name: &Ident) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                runtime::write_enum(self, serializer)
            }
        }
    }
}

/// `Deserialize` of a string enum: a listed value, or any other kept.
pub(crate) fn deserialize(name: &Ident) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                runtime::read_enum(deserializer)
            }
        }
    }
}
