//! `metadata.rs`: a const table describing every operation, for middleware
//! that acts on stability, deprecation and sunset without repeating the spec.

use super::ident;
use crate::ir::Api;
use quote::quote;

pub const DOC: &str = "What the spec says about each operation, as data.";

pub fn items(api: &Api) -> proc_macro2::TokenStream {
    let title = &api.title;
    let version = &api.version;
    let base_path = &api.base_path;
    let consts = api.operations.iter().map(|op| {
        let name = ident(&crate::names::sanitize(
            &op.id,
            crate::names::Case::ScreamingSnake,
        ));
        let (id, method, path, tag) = (&op.id, &op.method, &op.path, &op.tag);
        let stability = match op.stability.as_deref() {
            Some(s) => {
                let variant = ident(&crate::names::sanitize(s, crate::names::Case::Pascal));
                quote!(Some(Stability::#variant))
            }
            None => quote!(None),
        };
        let opt = |v: &Option<String>| match v {
            Some(s) => quote!(Some(#s)),
            None => quote!(None),
        };
        let (since, sunset, successor) = (
            opt(&op.deprecated_since),
            opt(&op.sunset),
            opt(&op.successor),
        );
        let deprecated = op.deprecated;
        let doc = format!(" `{method} {path}`");
        quote! {
            #[doc = #doc]
            pub const #name: Operation = Operation {
                id: #id,
                method: #method,
                path: #path,
                tag: #tag,
                stability: #stability,
                deprecated: #deprecated,
                deprecated_since: #since,
                sunset: #sunset,
                successor: #successor,
            };
        }
    });
    let names = api.operations.iter().map(|op| {
        ident(&crate::names::sanitize(
            &op.id,
            crate::names::Case::ScreamingSnake,
        ))
    });
    let common = &api.common_headers;
    quote! {
        /// The spec's `info.title`.
        pub const TITLE: &str = #title;
        /// The spec's `info.version`.
        pub const VERSION: &str = #version;
        /// The path of the spec's first server URL: the operations' paths are
        /// relative to it.
        pub const BASE_PATH: &str = #base_path;

        /// Response headers that every response of every operation declares. They
        /// are not fields of the response enums: middleware sets them.
        pub const COMMON_RESPONSE_HEADERS: &[&str] = &[#(#common),*];

        /// An operation's `x-stability`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Stability {
            Experimental,
            Alpha,
            Beta,
        }

        impl Stability {
            /// The value as the spec writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    Stability::Experimental => "experimental",
                    Stability::Alpha => "alpha",
                    Stability::Beta => "beta",
                }
            }
        }

        /// One operation of the spec.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct Operation {
            /// The operationId.
            pub id: &'static str,
            /// The HTTP method, upper-case.
            pub method: &'static str,
            /// The path template, relative to the server URL (`/pets/{petId}`).
            pub path: &'static str,
            /// The tag that names its route trait.
            pub tag: &'static str,
            pub stability: Option<Stability>,
            pub deprecated: bool,
            /// `x-deprecated-since`: when it was deprecated (YYYY-MM-DD).
            pub deprecated_since: Option<&'static str>,
            /// `x-deprecated-sunset` or `x-sunset`: when it stops working (YYYY-MM-DD).
            pub sunset: Option<&'static str>,
            /// `x-successor`: the operationId that replaces it.
            pub successor: Option<&'static str>,
        }

        #(#consts)*

        /// Every operation, in the order of the spec.
        pub const OPERATIONS: &[Operation] = &[#(#names),*];

        /// The operation with this operationId.
        pub fn by_id(id: &str) -> Option<&'static Operation> {
            OPERATIONS.iter().find(|op| op.id == id)
        }

        /// The operation a matched route belongs to: its method and path template.
        pub fn by_route(method: &str, path: &str) -> Option<&'static Operation> {
            OPERATIONS.iter().find(|op| op.method.eq_ignore_ascii_case(method) && op.path == path)
        }
    }
}
