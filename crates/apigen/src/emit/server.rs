//! `server.rs`: the actix-web glue. Registers a route per operation, turns each
//! request into its typed request struct (refusing what does not fit the spec
//! with a `Rejection`), calls the route trait and renders the typed response.

use super::{ident, operations::param_default};
use crate::ir::{Api, Operation, ParamLocation, Ty};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The module's doc comment and the imports its items may use.
pub const HEADER: (&str, &[(&str, &str)]) = (
    "actix-web glue: routes, request extraction and validation, responses.",
    &[
        ("operations", "use super::operations;"),
        ("models", "use super::models;"),
        ("runtime", "use super::runtime;"),
        ("Rejection", "use super::runtime::Rejection;"),
        ("RejectionKind", "use super::runtime::RejectionKind;"),
        ("Validate", "use super::runtime::Validate;"),
        (
            "HeaderValue",
            "use actix_web::http::header::{HeaderValue, ALLOW};",
        ),
        (
            "HttpRequest",
            "use actix_web::{web, HttpRequest, HttpResponse};",
        ),
    ],
);

/// The glob import handlers rely on, when there are operations.
pub fn glob(api: &Api) -> Option<&'static str> {
    (!api.operations.is_empty()).then_some("use super::operations::*;")
}

pub fn items(api: &Api) -> TokenStream {
    let trait_names: Vec<_> = api.traits.iter().map(|t| ident(&t.name)).collect();
    let handlers = api.operations.iter().map(|op| handler(api, op));

    // Resources: one per path, static paths before templated ones so that a
    // literal segment wins over a parameter.
    let mut paths: Vec<&str> = Vec::new();
    for op in &api.operations {
        if !paths.contains(&op.path.as_str()) {
            paths.push(&op.path);
        }
    }
    paths.sort_by_key(|p| p.matches('{').count());
    let resources = paths.iter().map(|path| {
        let ops: Vec<&Operation> = api.operations.iter().filter(|o| o.path == *path).collect();
        let allow = ops.iter().map(|o| o.method.as_str()).collect::<Vec<_>>().join(", ");
        let routes = ops.iter().map(|o| {
            let method = format_ident!("{}", o.method.to_ascii_lowercase());
            let handler = ident(&o.fn_name);
            quote!(.route(web::#method().to(#handler::<S>)))
        });
        quote! {
            cfg.service(
                web::resource(#path)
                    #(#routes)*
                    .default_service(web::to(|service: web::Data<S>, request: HttpRequest| async move {
                        method_not_allowed(service.get_ref(), &request, #allow)
                    })),
            );
        }
    });
    let bounds = quote!(#(operations::#trait_names +)* Rejections + 'static);
    let body = quote! {
        /// How a request refused before it reaches a handler (a malformed
        /// parameter, invalid JSON, an unknown route) is answered.
        pub trait Rejections {
            /// The error to send for a rejection; its status should be the
            /// rejection's.
            fn reject(&self, rejection: Rejection) -> operations::ErrorResponse;
        }

        /// Registers a route for every operation, with `service` serving them.
        /// Paths are relative to the spec's server URL: mount this inside a
        /// `web::scope` to serve under a base path.
        pub fn configure<S>(cfg: &mut web::ServiceConfig, service: web::Data<S>)
        where
            S: #bounds,
        {
            cfg.app_data(service);
            #(#resources)*
        }

        /// The answer for a request that no route matches: use it as the
        /// application's `default_service`.
        pub async fn not_found<S: Rejections + 'static>(service: web::Data<S>, request: HttpRequest) -> HttpResponse {
            let message = format!("no route for {} {}", request.method(), request.path());
            service.reject(Rejection::new(RejectionKind::NotFound, message)).into_http()
        }

        fn method_not_allowed<S: Rejections>(service: &S, request: &HttpRequest, allow: &'static str) -> HttpResponse {
            let message = format!("{} is not allowed on {}; allowed: {allow}", request.method(), request.path());
            let mut response = service.reject(Rejection::new(RejectionKind::MethodNotAllowed, message)).into_http();
            response.headers_mut().insert(ALLOW, HeaderValue::from_static(allow));
            response
        }

        #(#handlers)*
    };
    body
}

/// What a parameter's value is, for the styled readers.
fn kind(p: &crate::ir::Param) -> TokenStream {
    match &p.shape.ty {
        Ty::Array(_) => quote!(runtime::ValueKind::Array),
        Ty::Named(_) | Ty::Map(_) if !is_scalar(p) => quote!(runtime::ValueKind::Object),
        _ => quote!(runtime::ValueKind::Scalar),
    }
}

/// Scalars and enums parse with `FromStr`; arrays and objects need a style.
fn is_scalar(p: &crate::ir::Param) -> bool {
    match &p.shape.ty {
        Ty::Array(_) | Ty::Map(_) => false,
        // Enums are named too: they are read like scalars (objects are the
        // only named types a parameter may otherwise hold).
        Ty::Named(_) => p.scalar_named,
        _ => true,
    }
}

/// The expression reading a parameter, by location and style.
fn param_value(p: &crate::ir::Param) -> TokenStream {
    use crate::ir::ParamStyle;
    let wire = &p.wire;
    let explode = p.explode;
    let kind = kind(p);
    let style = match p.style {
        ParamStyle::Simple => quote!(runtime::Style::Simple),
        ParamStyle::Label => quote!(runtime::Style::Label),
        ParamStyle::Matrix => quote!(runtime::Style::Matrix),
        ParamStyle::Form | ParamStyle::DeepObject => quote!(runtime::Style::Form),
        ParamStyle::SpaceDelimited => quote!(runtime::Style::SpaceDelimited),
        ParamStyle::PipeDelimited => quote!(runtime::Style::PipeDelimited),
    };
    let array = matches!(p.shape.ty, Ty::Array(_));
    match p.location {
        ParamLocation::Path if is_scalar(p) && p.style == ParamStyle::Simple => {
            quote!(runtime::path(request, #wire)?)
        }
        ParamLocation::Path => {
            quote!(runtime::path_styled(request, #wire, #kind, #style, #explode)?)
        }
        ParamLocation::Query => match p.style {
            ParamStyle::DeepObject => quote!(query.deep(#wire)?),
            ParamStyle::Form if p.union => quote!(query.any(#wire)?),
            ParamStyle::Form if array => quote!(query.many(#wire, #explode)?),
            ParamStyle::Form if is_scalar(p) => quote!(query.one(#wire)?),
            ParamStyle::Form if explode => quote!(query.exploded_object()?),
            _ => quote!(query.styled(#wire, #kind, #style)?),
        },
        ParamLocation::Header if is_scalar(p) => quote!(runtime::header(request, #wire)?),
        ParamLocation::Header => quote!(runtime::header_styled(request, #wire, #kind, #explode)?),
        ParamLocation::Cookie if is_scalar(p) => quote!(runtime::cookie(request, #wire)?),
        ParamLocation::Cookie => quote!(runtime::cookie_styled(request, #wire, #kind)?),
    }
}

fn handler(api: &Api, op: &Operation) -> TokenStream {
    let name = ident(&op.fn_name);
    let extract = format_ident!("extract_{}", op.fn_name);
    let trait_name = ident(&op.trait_name);
    let req = format_ident!("{}Request", op.type_name);
    let resp = format_ident!("{}Response", op.type_name);
    let has_body = op.body.is_some();
    let needs_query = op.params.iter().any(|p| p.location == ParamLocation::Query);

    let fields = op.params.iter().map(|p| {
        let field = ident(&p.rust);
        let wire = &p.wire;
        let value = param_value(p);
        let what = match p.location {
            ParamLocation::Path => return quote!(#field: #value,),
            ParamLocation::Query => format!("query parameter `{wire}`"),
            ParamLocation::Header => format!("header `{wire}`"),
            ParamLocation::Cookie => format!("cookie `{wire}`"),
        };
        if let Some(default) = param_default(api, p) {
            if default.to_string().contains("to_string") {
                quote!(#field: #value.unwrap_or_else(|| #default),)
            } else {
                quote!(#field: #value.unwrap_or(#default),)
            }
        } else if p.required {
            quote!(#field: runtime::required(#value, #what)?,)
        } else {
            quote!(#field: #value,)
        }
    });
    let body_field = op.body.as_ref().map(|b| {
        let read = match &b.media {
            crate::ir::Media::Json => quote!(runtime::json_body(request, payload).await?),
            crate::ir::Media::Form => quote!(runtime::form_body(request, payload).await?),
            crate::ir::Media::Multipart => quote!(runtime::multipart_body(request, payload).await?),
            crate::ir::Media::Raw(media) => {
                quote!(runtime::raw_body(request, payload, &[#(#media),*]).await?.map(|b| b.to_vec()))
            }
        };
        if b.required {
            quote!(body: #read.ok_or_else(runtime::missing_body)?,)
        } else {
            quote!(body: #read,)
        }
    });
    let query =
        needs_query.then(|| quote!(let query = runtime::Query::parse(request.query_string());));
    let payload_param = has_body.then(|| quote!(payload: web::Payload));
    let payload_arg = has_body.then(|| quote!(payload));
    let allow_deprecated = op.deprecated.then(|| {
        quote!(#[allow(deprecated, reason = "the glue serves a deprecated operation until it is removed from the spec")])
    });
    let extract_async = if has_body { quote!(async) } else { quote!() };
    // An operation with nothing to extract does not look at the request.
    let (request_param, request_arg) = if op.params.is_empty() && !has_body {
        (quote!(), quote!())
    } else {
        (quote!(request: &HttpRequest,), quote!(&request,))
    };
    let extract_await = if has_body { quote!(.await) } else { quote!() };
    let doc = format!(" `{} {}`", op.method, op.path);
    quote! {
        #[doc = #doc]
        #allow_deprecated
        async fn #name<S: operations::#trait_name + Rejections + 'static>(
            service: web::Data<S>,
            request: HttpRequest,
            #payload_param
        ) -> HttpResponse {
            let response = match #extract(#request_arg #payload_arg)#extract_await {
                Ok(parsed) => service
                    .#name(parsed, runtime::RequestContext::new(request))
                    .await
                    .unwrap_or_else(#resp::from),
                Err(rejection) => #resp::from(service.reject(rejection)),
            };
            response.into_http()
        }

        #extract_async fn #extract(#request_param #payload_param) -> Result<#req, Rejection> {
            #query
            let parsed = #req {
                #(#fields)*
                #body_field
            };
            Validate::validate(&parsed)?;
            Ok(parsed)
        }
    }
}
