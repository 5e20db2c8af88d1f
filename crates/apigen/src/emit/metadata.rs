//! `metadata.rs`: what the spec says about each operation, as data, for
//! middleware (stability, deprecation, sunset, security) and clients.

use super::ident;
use crate::ir::{Api, ParamLocation, SchemeKind, SecurityRequirement, Stability};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

pub const DOC: &str = "What the spec says about each operation, as data.";

pub fn items(api: &Api) -> TokenStream {
    let title = &api.title;
    let version = &api.version;
    let base_path = &api.base_path;
    let entries = api.operations.iter().map(|op| {
        let (id, method, path, tag) = (&op.id, &op.method, &op.path, &op.tag);
        let stability = stability(op.stability);
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
        let security = requirements(&op.security);
        quote! {
            runtime::Operation {
                id: #id,
                method: #method,
                path: #path,
                tag: #tag,
                stability: #stability,
                deprecated: #deprecated,
                deprecated_since: #since,
                sunset: #sunset,
                successor: #successor,
                security: #security,
            }
        }
    });
    let consts = api.operations.iter().enumerate().map(|(i, op)| {
        let name = ident(&op.const_name);
        let index = Literal::usize_unsuffixed(i);
        let doc = format!(" `{} {}`", op.method, op.path);
        quote! {
            #[doc = #doc]
            pub const #name: &runtime::Operation = &OPERATIONS[#index];
        }
    });
    let count = Literal::usize_unsuffixed(api.operations.len());
    let common = api.common_headers.iter().map(|h| &h.wire);
    let schemes = api.security_schemes.iter().map(|s| {
        let name = &s.name;
        let kind = match &s.kind {
            SchemeKind::Http(scheme) => quote!(runtime::SchemeKind::Http { scheme: #scheme }),
            SchemeKind::ApiKey { location, name } => {
                let location = match location {
                    ParamLocation::Header => quote!(Header),
                    ParamLocation::Query => quote!(Query),
                    ParamLocation::Cookie | ParamLocation::Path => quote!(Cookie),
                };
                quote!(runtime::SchemeKind::ApiKey {
                    location: runtime::ApiKeyLocation::#location,
                    name: #name,
                })
            }
            SchemeKind::OAuth2 => quote!(runtime::SchemeKind::OAuth2),
            SchemeKind::OpenIdConnect => quote!(runtime::SchemeKind::OpenIdConnect),
            SchemeKind::MutualTls => quote!(runtime::SchemeKind::MutualTls),
        };
        quote!(runtime::SecurityScheme { name: #name, kind: #kind })
    });
    let default_security = requirements(&api.default_security);
    let webhooks = (!api.webhooks.is_empty()).then(|| {
        let entries = api.webhooks.iter().map(|w| {
            let (name, method, id, deprecated) = (&w.name, &w.method, &w.id, w.deprecated);
            let summary = match &w.summary {
                Some(s) => quote!(Some(#s)),
                None => quote!(None),
            };
            let payload = match w.payload.as_ref().map(|p| &p.ty) {
                Some(crate::ir::Ty::Named(model)) => quote!(Some(#model)),
                _ => quote!(None),
            };
            quote! {
                runtime::Webhook {
                    name: #name,
                    method: #method,
                    id: #id,
                    summary: #summary,
                    deprecated: #deprecated,
                    payload: #payload,
                }
            }
        });
        quote! {
            /// The webhooks the API sends to its subscribers (OpenAPI 3.1
            /// `webhooks`): no route serves them; each payload is a model.
            pub const WEBHOOKS: &[runtime::Webhook] = &[#(#entries),*];
        }
    });
    quote! {
        #webhooks

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

        /// The spec's security schemes (`components.securitySchemes`).
        pub const SECURITY_SCHEMES: &[runtime::SecurityScheme] = &[#(#schemes),*];

        /// The document's own `security`: what requests that no operation
        /// serves (an unknown path, say) are held to.
        pub const DEFAULT_SECURITY: &[runtime::SecurityRequirement] = #default_security;

        /// Every operation, in the order of the spec. The constants below point
        /// into it, so an operation has one address.
        pub static OPERATIONS: [runtime::Operation; #count] = [#(#entries),*];

        #(#consts)*

        /// The operation with this operationId.
        pub fn by_id(id: &str) -> Option<&'static runtime::Operation> {
            OPERATIONS.iter().find(|op| op.id == id)
        }
    }
}

/// The runtime's name for a stability: the variant the runtime defines.
fn stability(s: Stability) -> TokenStream {
    let variant = ident(&format!("{s:?}"));
    quote!(runtime::Stability::#variant)
}

fn requirements(security: &[SecurityRequirement]) -> TokenStream {
    let each = security.iter().map(|requirement| {
        let schemes = requirement
            .iter()
            .map(|(scheme, scopes)| quote!((#scheme, &[#(#scopes),*])));
        quote!(runtime::SecurityRequirement { schemes: &[#(#schemes),*] })
    });
    quote!(&[#(#each),*])
}
