//! The derives of the models that apigen generates.
//!
//! A generated model is its type and one derive line, with attributes only
//! where the wire differs from the Rust:
//!
//! ```ignore
//! /// A pet in the store.
//! #[derive(Debug, Clone, PartialEq, runtime::Serialize, runtime::Deserialize)]
//! #[wire(deny_unknown)]
//! pub struct Pet {
//!     pub id: i64,
//!     pub name: String,
//!     #[wire(rename = "categoryId")]
//!     pub category_id: i64,
//!     pub status: Option<PetStatus>,
//! }
//! ```
//!
//! The derives expand to calls of `apigen-runtime`'s plumbing (its record
//! and enum readers, its `Writer`, its checks), the code generated models
//! held written out before: a generic reader compiled once, and a few
//! lines per type, where serde's own derive writes a visitor per type.
//! They name that plumbing through a `runtime` module in scope where they
//! are used (every generated module imports it), and `serde` and `regex`
//! through the crate's dependencies. They are used through
//! `apigen-runtime` (`runtime::Serialize`), which re-exports them; they are
//! not meant to be written by hand on other types.
//!
//! # `#[wire(...)]`
//!
//! On a struct:
//! - `deny_unknown`: a property the struct does not name is an error
//!   (without it, such a property is ignored).
//!
//! On a struct or an enum, `write_if(...)` and `read_if(...)` hold the
//! `cfg` predicates that compile its `Serialize` and `Deserialize` impls
//! in (a crate whose clients only write requests, say).
//!
//! On a field, how it is read (the field's type says the rest):
//! - a plain field is required; a `Vec` (not `Vec<u8>`, bytes) is required
//!   too, but absent from a form it is the empty list;
//! - an `Option` may be absent, and is not written when `None`;
//!   `nullable`: `null` is `None` as well, and `None` is written `null`;
//!   `required, nullable`: it may be `null` but not absent;
//! - a `runtime::Nullable` tells absent and `null` apart;
//! - `rename = "wireName"`: its name on the wire (else the field's own);
//! - `default = "path"`: absent is what the function `path` returns;
//! - `null_text`: in a form or multipart body the text `null` is null;
//! - `flatten`: a part read from the properties the struct does not name;
//! - `shared`: a named property the flattened parts read too;
//! - `additional`: the map that keeps the properties the struct does not
//!   name.
//!
//! On an enum of strings, each unit variant is a listed value, written as
//! its name in snake case (`InStock` is `in_stock`) unless
//! `rename = "..."` says otherwise; the one variant marked `unknown` keeps
//! any other value, as a `runtime::Unknown`.
//!
//! An enum whose variants each hold one value is a union (`oneOf`,
//! `anyOf`), written as its variant's value. It is read by the value of
//! its `tag = "property"`: each variant lists the values that name it
//! (`tag("a", "b")`, and `implicit_tag(...)` for one the document does
//! not offer), `fallback` marks the one read when the tag names none, and
//! `optional_tag` reads a value without the tag by its structure. Without
//! a tag, every variant is tried: with `one_of` exactly one may read the
//! value, else the first that does is taken. A variant marked `object`
//! (`object(required("id"), only("id", "name"))`) is tried only on an
//! object with those properties; in a query or header, `array` variants
//! are tried after the others and `text` ones last.
//!
//! # `#[check(...)]`
//!
//! A field's checks, run in order by `Validate` and named in a violation
//! by the field's wire name:
//! `length(min = 1, max = 100)`, `items(min = 1, max = 10)`,
//! `range(min = 1, max = 10)` (`above` and `below` exclude the bound),
//! `pattern = "^[a-z]+$"`, `not_in("a", "b")`, `one_of(1, 2)`, `unique`,
//! `email`, `uri`, `duration`, `valid` (the value's own `Validate`), and
//! `each(...)` and `values(...)` for the items of a list and the values of
//! a map. An `Option` or `Nullable` field is checked when it holds a value.
//! `read_only` refuses the field in a request; `required` requires it.

mod case;
mod enums;
mod model;
mod record;
mod union;
mod validate;

use model::Shape;
use proc_macro::TokenStream;

/// `serde::Serialize` through the runtime's `Writer` (a struct), as its
/// text (an enum of strings), or as its variant's value (a union).
#[proc_macro_derive(Serialize, attributes(wire))]
pub fn derive_serialize(input: TokenStream) -> TokenStream {
    expand(input, |model| {
        let items = match &model.shape {
            Shape::Record(r) => record::serialize(&model.ident, r),
            Shape::Enum(_) => enums::serialize(&model.ident),
            Shape::Union(u) => union::serialize(&model.ident, u),
        };
        gated(model.write_if.as_ref(), items)
    })
}

/// `serde::Deserialize` through the runtime's record reader (a struct,
/// with its `runtime::Record` impl), enum reader (an enum of strings), or
/// `runtime::Decide` (a union: by its tag, or by trying each variant).
#[proc_macro_derive(Deserialize, attributes(wire))]
pub fn derive_deserialize(input: TokenStream) -> TokenStream {
    expand(input, |model| {
        let items = match &model.shape {
            Shape::Record(r) => record::deserialize(&model.ident, r),
            Shape::Enum(_) => enums::deserialize(&model.ident),
            Shape::Union(u) => union::deserialize(&model.ident, u),
        };
        gated(model.read_if.as_ref(), items)
    })
}

/// An enum of strings: `ALL` and `as_str`, `runtime::StringEnum`, `Hash`,
/// `PartialOrd` and `Ord` (the spec's order, then unknown values by their
/// text), `Display` and `FromStr`.
#[proc_macro_derive(StringEnum, attributes(wire))]
pub fn derive_string_enum(input: TokenStream) -> TokenStream {
    expand(input, |model| match &model.shape {
        Shape::Enum(e) => enums::string_enum(&model.ident, e),
        Shape::Record(_) | Shape::Union(_) => syn::Error::new(
            model.ident.span(),
            "`StringEnum` is derived for enums of strings",
        )
        .to_compile_error(),
    })
}

/// `runtime::Validate` from the fields' `#[check(...)]` attributes.
#[proc_macro_derive(Validate, attributes(wire, check))]
pub fn derive_validate(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    validate::validate(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `items` compiled in only where `predicate` holds, when there is one.
fn gated(
    predicate: Option<&proc_macro2::TokenStream>,
    items: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    match predicate {
        Some(predicate) => quote::quote! {
            #[cfg(#predicate)]
            const _: () = {
                #items
            };
        },
        None => items,
    }
}

/// The derive `make` of the model of `input`, or the error that says why
/// it cannot be read.
fn expand(
    input: TokenStream,
    make: impl FnOnce(&model::Model) -> proc_macro2::TokenStream,
) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match model::read(&input) {
        Ok(model) => make(&model).into(),
        Err(error) => error.into_compile_error().into(),
    }
}

#[cfg(test)]
mod tests;
