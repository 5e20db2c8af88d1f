//! The mock server (`mock.rs`, behind the `mock` feature): the document's
//! schemas and responses as data for `runtime::mock`, and a `MockService`
//! that implements every route trait by answering from them.

use super::{doc_paragraphs, ident};
use crate::ir::{
    Api, Checks, Media, Number, Operation, Response, Shape, Status, TextFormat, Ty, TypeKind,
};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

pub const DOC: &str = "A mock server: every operation answered from the spec's examples, or \
     with values made from its schemas (`MockService`).";

pub fn imports(api: &Api) -> Vec<&'static str> {
    // Models are named only by the error body's type.
    let modules = if api.error_type.as_ref().is_some_and(Shape::names_a_type) {
        "use super::{metadata, models, operations, runtime, server};"
    } else {
        "use super::{metadata, operations, runtime, server};"
    };
    vec![modules, "use actix_web::{web, HttpResponse};"]
}

/// The module's items.
pub fn items(api: &Api) -> TokenStream {
    let index: HashMap<&str, usize> = api
        .types
        .keys()
        .enumerate()
        .map(|(i, name)| (name.as_str(), i))
        .collect();
    let schemas = Schemas { index: &index };
    let types = api.types.values().map(|t| {
        let schema = schemas.type_schema(&t.kind);
        let example = json_text(t.example.as_ref());
        quote!(runtime::mock::Type { schema: #schema, example: #example },)
    });
    let type_count = Literal::usize_unsuffixed(api.types.len());
    let responses = api.operations.iter().map(|op| {
        let name = format_ident!("{}", op.const_name);
        let count = Literal::usize_unsuffixed(op.responses.len());
        let each = op.responses.iter().map(|r| schemas.response(r));
        let docs = format!(" The responses of `{}`.", op.id);
        quote! {
            #[doc = #docs]
            static #name: [runtime::mock::Response; #count] = [#(#each)*];
        }
    });
    let common_count = Literal::usize_unsuffixed(api.common_headers.len());
    let common = api.common_headers.iter().map(|h| {
        let wire = &h.wire;
        let required = h.required;
        let schema = schemas.shape(&h.shape);
        quote!((#wire, #required, #schema),)
    });
    let error_schema = match &api.error_type {
        Some(shape) => schemas.shape(shape),
        None => quote!(runtime::mock::Schema::Any),
    };
    let impls = api.traits.iter().map(|t| {
        let name = ident(&t.name);
        let methods = api
            .operations
            .iter()
            .filter(|op| op.group == t.group)
            .map(method);
        quote! {
            impl operations::#name for MockService {
                #(#methods)*
            }
        }
    });
    let service_docs = doc_paragraphs(&[
        Some(
            "Answers every operation as the spec describes it: the first success the \
             operation declares (or the status `Prefer: code=N` names), with the \
             response's example (`Prefer: example=NAME` picks a named one), else a value \
             made from its schema within every bound it sets (always so with \
             `Prefer: dynamic=true`); the same seed gives the same values. Requests are \
             read and refused by the same glue as a real server's, and a secured \
             operation needs a credential of one of its schemes (any non-empty one)."
                .into(),
        ),
        Some(
            "Mount it with `App::new().service(web::scope(metadata::BASE_PATH).configure(|cfg| \
             mock.configure(cfg)))`, a clone of the mock in each worker's `App`."
                .into(),
        ),
    ]);
    // Operations build their answers with `answer`; a document without
    // any has no use for it.
    let answer = (!api.operations.is_empty()).then(|| {
        quote! {
            /// The answer `build` makes from the response the request
            /// asks for; a refusal when it asks for one the operation
            /// does not declare.
            fn answer<R>(
                &self,
                context: &runtime::RequestContext,
                id: &str,
                responses: &'static [runtime::mock::Response],
                build: impl FnOnce(&runtime::mock::Mock) -> Result<R, runtime::Rejection>,
            ) -> Result<R, operations::ErrorResponse> {
                let refuse = |rejection: runtime::Rejection| {
                    server::Rejections::reject(self, rejection)
                };
                let mock = runtime::mock::Mock::start(self.seed, id, &TYPES, responses, context.http())
                    .map_err(refuse)?;
                build(&mock).map_err(refuse)
            }
        }
    });
    let error_field_type = match &api.error_type {
        Some(shape) => super::rust_type(shape, &quote!(models::)),
        None => quote!(serde_json::Value),
    };
    quote! {
        /// Every named type's schema, in the order of `models`.
        static TYPES: [runtime::mock::Type; #type_count] = [#(#types)*];

        /// The schema of the body every error carries.
        static ERROR: runtime::mock::Schema = #error_schema;

        /// The response headers middleware sets on every response.
        static COMMON_HEADERS: [(&str, bool, runtime::mock::Schema); #common_count] = [#(#common)*];

        #(#responses)*

        #service_docs
        #[derive(Debug, Clone)]
        pub struct MockService {
            seed: u64,
            /// The body of every refusal, made once.
            error: #error_field_type,
        }

        impl MockService {
            /// A mock whose made values follow from `seed`; an error when
            /// the error schema admits no value it can make.
            pub fn new(seed: u64) -> Result<Self, runtime::Rejection> {
                let status = runtime::StatusCode::INTERNAL_SERVER_ERROR;
                let error = runtime::mock::error_body(&TYPES, &ERROR, status, "internal", "")?;
                Ok(MockService { seed, error })
            }

            /// Mounts every operation, answered by this mock, in `cfg`.
            pub fn configure(self, cfg: &mut web::ServiceConfig) {
                server::configure_with(cfg, web::Data::new(self), || {
                    actix_web::middleware::from_fn(credentials)
                });
            }

            /// An error of `status`, its body of the document's error
            /// schema, saying `code` and `message` where the schema has a
            /// place for them.
            fn error(&self, status: runtime::StatusCode, code: &str, message: &str) -> operations::ErrorResponse {
                let body = runtime::mock::error_body(&TYPES, &ERROR, status, code, message)
                    .unwrap_or_else(|_| self.error.clone());
                operations::ErrorResponse::new(status, body)
            }

            #answer
        }

        impl server::Rejections for MockService {
            fn reject(&self, rejection: runtime::Rejection) -> operations::ErrorResponse {
                self.error(rejection.status(), rejection.kind.code(), &rejection.message)
            }
        }

        /// Refuses a request to a secured operation without a credential
        /// (401), and sets the headers every response carries.
        async fn credentials(
            request: actix_web::dev::ServiceRequest,
            next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
        ) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
            let seed = request.app_data::<web::Data<MockService>>().map_or(0, |m| m.seed);
            let missing = runtime::mock::missing_credentials(request.request(), metadata::SECURITY_SCHEMES);
            let mut response = match (missing, request.app_data::<web::Data<MockService>>()) {
                (Some(message), Some(mock)) => {
                    let error = mock.error(runtime::StatusCode::UNAUTHORIZED, "unauthorized", &message);
                    let http: HttpResponse = error.into_http();
                    request.into_response(http).map_into_right_body()
                }
                _ => next.call(request).await?.map_into_left_body(),
            };
            runtime::mock::set_headers(response.headers_mut(), seed, &TYPES, &COMMON_HEADERS);
            Ok(response)
        }

        #(#impls)*
    }
}

/// A route trait method answering from the mock.
fn method(op: &Operation) -> TokenStream {
    let name = ident(&op.fn_name);
    let req = format_ident!("{}Request", op.type_name);
    let resp = format_ident!("{}Response", op.type_name);
    let table = format_ident!("{}", op.const_name);
    let id = &op.id;
    let value = match op.responses.as_slice() {
        [only] => {
            let value = construct(&resp, only);
            let uses =
                only.body.is_some() || !only.headers.is_empty() || only.status.carries_status();
            let mock = if uses { quote!(mock) } else { quote!(_) };
            quote!(|#mock| Ok(#value))
        }
        responses => {
            let arms = responses.iter().enumerate().map(|(i, r)| {
                let value = construct(&resp, r);
                if i + 1 == responses.len() {
                    quote!(_ => #value,)
                } else {
                    let i = Literal::usize_unsuffixed(i);
                    quote!(#i => #value,)
                }
            });
            quote!(|mock| Ok(match mock.chosen() { #(#arms)* }))
        }
    };
    quote! {
        async fn #name(
            &self,
            _request: operations::#req,
            context: runtime::RequestContext,
        ) -> Result<operations::#resp, operations::ErrorResponse> {
            self.answer(&context, #id, &#table, #value)
        }
    }
}

/// The variant of `resp` for response `r`, its values made by `mock`.
fn construct(resp: &proc_macro2::Ident, r: &Response) -> TokenStream {
    let variant = ident(&r.variant);
    let body = r.body.as_ref().map(|_| match r.media {
        Media::Events => quote!(mock.events()?),
        Media::Raw(_) => quote!(mock.raw()?),
        _ => quote!(mock.body()?),
    });
    let headers: Vec<TokenStream> = r
        .headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let name = ident(&h.rust);
            let i = Literal::usize_unsuffixed(i);
            quote!(#name: mock.header(#i)?,)
        })
        .collect();
    let body_field = body.as_ref().map(|b| quote!(body: #b,));
    if let Some(shared) = &r.shared {
        let shared = ident(shared);
        return quote!(operations::#resp::#variant(operations::#shared { #body_field #(#headers)* }));
    }
    if r.status.carries_status() || !r.headers.is_empty() {
        let status = r
            .status
            .carries_status()
            .then(|| quote!(status: mock.status(),));
        quote!(operations::#resp::#variant { #status #body_field #(#headers)* })
    } else if let Some(body) = body {
        quote!(operations::#resp::#variant(#body))
    } else {
        quote!(operations::#resp::#variant)
    }
}

/// Schemas as `runtime::mock::Schema` expressions.
struct Schemas<'a> {
    index: &'a HashMap<&'a str, usize>,
}

impl Schemas<'_> {
    fn type_schema(&self, kind: &TypeKind) -> TokenStream {
        match kind {
            TypeKind::Struct(s) => {
                let fields = s.fields.iter().map(|f| {
                    let name = &f.wire;
                    let required = f.required;
                    let write_only = f.write_only;
                    let flatten = f.flatten;
                    let schema = self.shape(&f.shape);
                    let example = json_text(f.example.as_ref().or(f.default.as_ref()));
                    quote!(runtime::mock::Field {
                        name: #name,
                        required: #required,
                        write_only: #write_only,
                        flatten: #flatten,
                        schema: #schema,
                        example: #example,
                    },)
                });
                quote!(runtime::mock::Schema::Object(&runtime::mock::Object { fields: &[#(#fields)*] }))
            }
            TypeKind::Enum(variants) => {
                let wire = variants.iter().map(|v| &v.wire);
                quote!(runtime::mock::Schema::Enum(&[#(#wire),*]))
            }
            TypeKind::Union(u) => {
                let tag = match &u.tag {
                    Some(tag) => quote!(Some(#tag)),
                    None => quote!(None),
                };
                let variants = u.variants.iter().map(|v| {
                    let tags = &v.tag_values;
                    let schema = self.shape(&v.shape);
                    quote!(runtime::mock::Variant { tags: &[#(#tags),*], schema: #schema },)
                });
                quote!(runtime::mock::Schema::Union(&runtime::mock::Union {
                    tag: #tag,
                    variants: &[#(#variants)*],
                }))
            }
            TypeKind::Alias(shape) | TypeKind::Newtype { shape, .. } => self.shape(shape),
        }
    }

    fn shape(&self, shape: &Shape) -> TokenStream {
        let bounds = bounds(&shape.checks);
        let schema = match &shape.ty {
            Ty::Bool => quote!(runtime::mock::Schema::Bool),
            Ty::I32 | Ty::I64 => quote!(runtime::mock::Schema::Integer(#bounds)),
            Ty::F32 | Ty::F64 => quote!(runtime::mock::Schema::Number(#bounds)),
            Ty::String => quote!(runtime::mock::Schema::String(#bounds)),
            Ty::DateTime => quote!(runtime::mock::Schema::DateTime),
            Ty::Date => quote!(runtime::mock::Schema::Date),
            Ty::Uuid => quote!(runtime::mock::Schema::Uuid),
            Ty::Base64 => quote!(runtime::mock::Schema::Base64),
            Ty::Json | Ty::Bytes => quote!(runtime::mock::Schema::Any),
            Ty::Array(items) => {
                let items = self.shape(items);
                quote!(runtime::mock::Schema::Array(&#items, #bounds))
            }
            Ty::Map(values) => {
                let values = self.shape(values);
                quote!(runtime::mock::Schema::Map(&#values))
            }
            Ty::Named(name) => match self.index.get(name.as_str()) {
                Some(i) => {
                    let i = Literal::usize_unsuffixed(*i);
                    quote!(runtime::mock::Schema::Named(#i))
                }
                None => quote!(runtime::mock::Schema::Any),
            },
        };
        if shape.nullable {
            quote!(runtime::mock::Schema::Nullable(&#schema))
        } else {
            schema
        }
    }

    fn response(&self, r: &Response) -> TokenStream {
        let status = match r.status {
            Status::Code(code) => {
                let code = Literal::u16_unsuffixed(code);
                quote!(runtime::mock::Status::Code(#code))
            }
            Status::Range(class) => {
                let class = Literal::u16_unsuffixed(class);
                quote!(runtime::mock::Status::Range(#class))
            }
            Status::Default => quote!(runtime::mock::Status::Default),
        };
        let body = match (&r.body, &r.media) {
            (None, _) => quote!(None),
            (Some(_), Media::Raw(_)) => quote!(Some(runtime::mock::Schema::Any)),
            (Some(shape), _) => {
                let schema = self.shape(shape);
                quote!(Some(#schema))
            }
        };
        let examples = r.examples.iter().filter_map(|(name, value)| {
            let text = serde_json::to_string(value).ok()?;
            Some(quote!((#name, #text),))
        });
        let headers = r.headers.iter().map(|h| {
            let wire = &h.wire;
            let required = h.required;
            let schema = self.shape(&h.shape);
            quote!((#wire, #required, #schema),)
        });
        quote! {
            runtime::mock::Response {
                status: #status,
                body: #body,
                examples: &[#(#examples)*],
                headers: &[#(#headers)*],
            },
        }
    }
}

/// A `runtime::mock::Bounds` of the checks.
fn bounds(checks: &Checks) -> TokenStream {
    if checks.is_empty() {
        return quote!(runtime::mock::Bounds::NONE);
    }
    let mut fields = Vec::new();
    let mut usize_field = |name: &str, value: Option<usize>| {
        if let Some(v) = value {
            let name = format_ident!("{name}");
            let v = Literal::usize_unsuffixed(v);
            fields.push(quote!(#name: Some(#v),));
        }
    };
    usize_field("min_length", checks.min_length);
    usize_field("max_length", checks.max_length);
    usize_field("min_items", checks.min_items);
    usize_field("max_items", checks.max_items);
    if let Some(pattern) = &checks.pattern {
        fields.push(quote!(pattern: Some(#pattern),));
    }
    for (name, value, exclusive, flag) in [
        (
            "minimum",
            checks.minimum,
            checks.exclusive_minimum,
            "exclusive_minimum",
        ),
        (
            "maximum",
            checks.maximum,
            checks.exclusive_maximum,
            "exclusive_maximum",
        ),
    ] {
        if let Some(n) = value {
            let name = format_ident!("{name}");
            let n = match n {
                Number::Int(i) => i as f64,
                Number::Float(f) => f,
            };
            if !n.is_finite() {
                continue;
            }
            let n: TokenStream = format!("{n:?}").parse().unwrap_or_else(|_| quote!(0.0));
            fields.push(quote!(#name: Some(#n),));
            if exclusive {
                let flag = format_ident!("{flag}");
                fields.push(quote!(#flag: true,));
            }
        }
    }
    if let Some(format) = checks.format {
        let format = match format {
            TextFormat::Email => "email",
            TextFormat::Uri => "uri",
        };
        fields.push(quote!(format: Some(#format),));
    }
    quote!(runtime::mock::Bounds { #(#fields)* ..runtime::mock::Bounds::NONE })
}

/// A JSON value as `Some("text")`, or `None`.
fn json_text(value: Option<&serde_json::Value>) -> TokenStream {
    match value.and_then(|v| serde_json::to_string(v).ok()) {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    }
}
