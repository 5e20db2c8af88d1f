//! `operations.rs`: per operation, a request struct and a response enum; per
//! tag, a route trait; and the `ErrorResponse` every response converts from.

use super::{check_expr, check_fn, doc, doc_paragraphs, ident, rust_type, Gates};
use crate::ir::{Api, Media, Operation, Param, Response, Shape, Stability, Status, Ty};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

const MODELS: fn() -> TokenStream = || quote!(models::);

/// The module's doc comment.
pub const DOC: &str = "Requests, responses and route traits: one method per operation.";

/// What the module imports: the runtime always (`ErrorResponse` names its
/// status type), the models when an operation names one.
pub fn imports(api: &Api) -> Vec<&'static str> {
    let mut imports = Vec::new();
    if api.operation_shapes().any(Shape::names_a_type) {
        imports.push("use super::models;");
    }
    imports.push("use super::runtime;");
    imports
}

/// The shared items: `ErrorResponse` and the route traits.
pub fn shared_items(api: &Api, gates: &Gates) -> TokenStream {
    let error = error_response(api);
    let shared = api
        .shared_responses
        .iter()
        .map(|shared| shared_response(api, gates, shared));
    let traits = api
        .traits
        .iter()
        .zip(api.operations_by_group())
        .map(|(t, ops)| {
            let name = ident(&t.name);
            let docs = doc_paragraphs(&[
                t.doc.clone(),
                Some(format!(
                    "The {}. Implement this trait to serve them; `server::configure` routes \
                 requests to it.",
                    super::group_summary(t, &ops)
                )),
            ]);
            let methods = ops.into_iter().map(method);
            let cfg = gates.server_attr(&t.group);
            quote! {
                #docs
                #cfg
                pub trait #name {
                    #(#methods)*
                }
            }
        });
    quote! {
        #error
        #(#shared)*
        #(#traits)*
    }
}

/// The request and response types of some operations (the file is rendered
/// in chunks).
pub fn operation_items(api: &Api, gates: &Gates, ops: &[crate::ir::Operation]) -> TokenStream {
    ops.iter()
        .map(|op| {
            let cfg = Gates::attr(gates.group(&op.group));
            let request = request(api, op, &cfg);
            let response = match &op.same_responses_as {
                Some(owner) => response_alias(op, owner, &cfg),
                None => response(api, op, &gates.response_attrs(op)),
            };
            quote!(#request #response)
        })
        .collect()
}

fn error_body_type(api: &Api) -> TokenStream {
    match &api.error_type {
        Some(shape) => rust_type(shape, &MODELS()),
        None => quote!(serde_json::Value),
    }
}

fn error_response(api: &Api) -> TokenStream {
    let body = error_body_type(api);
    quote! {
        /// An error any operation may answer with: a status and the body the spec
        /// gives its error responses. A handler returns it as its error (`?`
        /// converts anything that converts into it); the glue sends it as the
        /// variant its operation declares for the status.
        #[derive(Debug, Clone, PartialEq)]
        pub struct ErrorResponse {
            pub status: runtime::StatusCode,
            pub body: #body,
            /// Headers sent with it (`Retry-After`, say): a response that
            /// declares one takes its value from here.
            pub headers: Vec<(String, String)>,
        }

        impl ErrorResponse {
            pub fn new(status: runtime::StatusCode, body: #body) -> Self {
                ErrorResponse { status, body, headers: Vec::new() }
            }

            /// The same error, sent with one more header.
            pub fn with_header(mut self, name: &str, value: impl std::fmt::Display) -> Self {
                self.headers.push((name.to_string(), value.to_string()));
                self
            }

            /// A header's value, read as the type a response declares for it.
            pub fn header<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
                self.headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))
                    .and_then(|(_, value)| value.parse().ok())
            }

            /// The response as it is sent, for errors outside any operation (an
            /// unknown route, say).
            #[cfg(feature = "server")]
            pub fn into_http(self) -> actix_web::HttpResponse {
                runtime::error_json(self.status, &self.body, &self.headers)
            }
        }

        #[cfg(feature = "server")]
        impl runtime::ErrorAnswer for ErrorResponse {
            fn status(&self) -> runtime::StatusCode {
                self.status
            }

            fn into_http(self) -> actix_web::HttpResponse {
                ErrorResponse::into_http(self)
            }
        }
    }
}

/// The doc comment's paragraphs and the deprecation note of an
/// operation's method, on the route trait and the client alike.
pub(crate) struct MethodDocs {
    paragraphs: Vec<Option<String>>,
    deprecated: Option<String>,
}

impl MethodDocs {
    pub fn new(op: &Operation) -> MethodDocs {
        let mut paragraphs = vec![
            op.summary.clone(),
            op.description.clone(),
            Some(format!(
                "`{} {}` (operationId `{}`)",
                op.method, op.path, op.id
            )),
        ];
        if op.stability != Stability::Stable {
            paragraphs.push(Some(format!(
                "**Stability: {}.** The operation may change without a new API version.",
                op.stability.as_str()
            )));
        }
        let deprecated = op.deprecated.then(|| {
            // `since` must be a semver version, so the date goes into the note.
            let mut note = match &op.deprecated_since {
                Some(since) => format!("deprecated since {since}"),
                None => "deprecated".to_string(),
            };
            if let Some(sunset) = &op.sunset {
                note.push_str(&format!(
                    "; sunset on {sunset}, after which it answers 410 Gone"
                ));
            }
            if let Some(successor) = &op.successor {
                note.push_str(&format!("; use `{successor}` instead"));
            }
            note
        });
        MethodDocs {
            paragraphs,
            deprecated,
        }
    }

    /// The doc comment and `#[deprecated]` as tokens.
    pub fn tokens(&self) -> (TokenStream, Option<TokenStream>) {
        let deprecated = self
            .deprecated
            .as_ref()
            .map(|note| quote!(#[deprecated(note = #note)]));
        (doc_paragraphs(&self.paragraphs), deprecated)
    }

    /// The doc comment, then `cfg` (an attribute's line, or nothing),
    /// then `#[deprecated]`, as lines of text at `indent`.
    pub fn text(&self, cfg: &str, indent: &str) -> String {
        let mut out = super::text::doc_text(&self.paragraphs, indent);
        if !cfg.is_empty() {
            out.push_str(indent);
            out.push_str(cfg);
        }
        if let Some(note) = &self.deprecated {
            out.push_str(&format!(
                "{indent}#[deprecated(note = {})]\n",
                super::text::string_literal(note)
            ));
        }
        out
    }
}

fn method(op: &Operation) -> TokenStream {
    let name = ident(&op.fn_name);
    let req = format_ident!("{}Request", op.type_name);
    let resp = format_ident!("{}Response", op.type_name);
    let (docs, deprecated) = MethodDocs::new(op).tokens();
    quote! {
        #docs
        #deprecated
        fn #name(&self, request: #req, context: runtime::RequestContext) -> impl std::future::Future<Output = Result<#resp, ErrorResponse>>;
    }
}

/// The type of a parameter in the request struct.
fn param_type(api: &Api, p: &Param) -> TokenStream {
    let ty = rust_type(&p.shape, &MODELS());
    if p.required || param_default(api, p).is_some() {
        ty
    } else {
        quote!(Option<#ty>)
    }
}

pub(crate) fn param_default(api: &Api, p: &Param) -> Option<TokenStream> {
    super::default_expr(p.default.as_ref()?, &p.shape, api, &MODELS())
}

fn request(api: &Api, op: &Operation, cfg: &TokenStream) -> TokenStream {
    let name = format_ident!("{}Request", op.type_name);
    let fields = op.params.iter().map(|p| {
        let fname = ident(&p.rust);
        let ty = param_type(api, p);
        let location = match p.location {
            crate::ir::ParamLocation::Path => "Path",
            crate::ir::ParamLocation::Query => "Query",
            crate::ir::ParamLocation::Header => "Header",
            crate::ir::ParamLocation::Cookie => "Cookie",
        };
        let mut paragraphs = vec![
            p.doc.clone(),
            Some(format!("{location} parameter `{}`.", p.wire)),
        ];
        if let Some(d) = &p.default {
            paragraphs.push(Some(format!("Defaults to `{d}`.")));
        }
        if p.deprecated {
            paragraphs.push(Some("**Deprecated.**".into()));
        }
        let docs = doc_paragraphs(&paragraphs);
        quote!(#docs pub #fname: #ty,)
    });
    let body = op.body.as_ref().map(|b| {
        let ty = rust_type(&b.shape, &MODELS());
        let ty = if b.required { ty } else { quote!(Option<#ty>) };
        let docs = doc_paragraphs(&[b.doc.clone(), Some("The JSON request body.".into())]);
        quote!(#docs pub body: #ty,)
    });
    let validate = api.request_checked(op).then(|| {
        let checks = request_checks(api, op);
        quote! {
            #cfg
            impl runtime::Validate for #name {
                fn validate(&self) -> Result<(), runtime::Violation> {
                    #(#checks)*
                    Ok(())
                }
            }
        }
    });
    let doc = format!(" The parameters and body of `{}`.", op.fn_name);
    // Nothing required: a default request, with the spec's defaults.
    let defaults: Option<Vec<TokenStream>> = op
        .params
        .iter()
        .map(|p| {
            let field = ident(&p.rust);
            match param_default(api, p) {
                Some(value) => Some(quote!(#field: #value,)),
                None if !p.required => Some(quote!(#field: None,)),
                None => None,
            }
        })
        .chain(
            op.body
                .iter()
                .map(|b| (!b.required).then(|| quote!(body: None,))),
        )
        .collect();
    let derive_default =
        op.params.iter().all(|p| param_default(api, p).is_none()) && defaults.is_some();
    let derives = if derive_default {
        quote!(#[derive(Debug, Clone, Default, PartialEq)])
    } else {
        quote!(#[derive(Debug, Clone, PartialEq)])
    };
    let default = defaults.filter(|_| !derive_default).map(|fields| {
        let doc = " No parameter set but the spec's defaults.";
        quote! {
            #cfg
            impl Default for #name {
                #[doc = #doc]
                fn default() -> Self {
                    #name { #(#fields)* }
                }
            }
        }
    });
    quote! {
        #[doc = #doc]
        #cfg
        #derives
        pub struct #name {
            #(#fields)*
            #body
        }

        #default

        #validate
    }
}

/// The checks of a request's parameters and body, each a statement
/// returning its violation (for a request that [`Api::request_checked`]).
fn request_checks(api: &Api, op: &Operation) -> Vec<TokenStream> {
    let params = op.params.iter().filter_map(|p| {
        let fname = ident(&p.rust);
        let wire = &p.wire;
        let check = if p.required || param_default(api, p).is_some() {
            check_expr(quote!(&self.#fname), &p.shape, api, &quote!(runtime::))?
        } else {
            let inner = check_fn("value", &p.shape, api, &quote!(runtime::))?;
            quote!(runtime::check_some(&self.#fname, #inner))
        };
        Some(quote!(runtime::within(#wire, #check)?;))
    });
    let body = op.body.as_ref().and_then(|b| {
        let check = if b.required {
            check_expr(quote!(&self.body), &b.shape, api, &quote!(runtime::))?
        } else {
            let inner = check_fn("value", &b.shape, api, &quote!(runtime::))?;
            quote!(runtime::check_some(&self.body, #inner))
        };
        Some(quote!(runtime::within("body", #check)?;))
    });
    params.chain(body).collect()
}

/// Whether a response can carry an `ErrorResponse`: an error status, a body of
/// the shared error type (or none), and no header the handler must fill in.
fn takes_error(api: &Api, r: &Response) -> bool {
    let error_status = r.status.is_error();
    let body_fits = match (&r.body, &api.error_type) {
        (None, _) => true,
        (Some(b), Some(e)) => b == e,
        (Some(b), None) => b.ty == Ty::Json,
    };
    error_status && body_fits
}

/// The response enum of an operation whose responses are the same as an
/// earlier one's: an alias of that one's enum.
fn response_alias(op: &Operation, owner: &str, cfg: &TokenStream) -> TokenStream {
    let name = format_ident!("{}Response", op.type_name);
    let owner = format_ident!("{owner}Response");
    let docs = format!(
        " The responses `{}` can give: the same as [`{owner}`]'s.",
        op.fn_name
    );
    quote! {
        #[doc = #docs]
        #cfg
        pub type #name = #owner;
    }
}

/// An operation's response enum, its server side (how it is sent, how an
/// error becomes it) and its client side (how an answer is read as it),
/// each under its attribute ([`Gates::response_attrs`]).
fn response(
    api: &Api,
    op: &Operation,
    [server_cfg, client_cfg, cfg]: &[TokenStream; 3],
) -> TokenStream {
    let name = format_ident!("{}Response", op.type_name);
    let variants = op.responses.iter().map(|r| {
        let variant = ident(&r.variant);
        let status = r.status;
        let stream = if r.media == Media::Events {
            "\n\nA stream of events (`text/event-stream`), read as they come."
        } else {
            ""
        };
        let docs = doc(Some(&format!("`{status}`: {}{stream}", r.doc.trim())));
        let body = r.body.as_ref().map(|b| body_type(r, b, &name));
        if let Some(shared) = &r.shared {
            let shared = ident(shared);
            quote!(#docs #variant(#shared),)
        } else if r.named_fields() {
            let status_field = r.status.carries_status().then(|| {
                let doc = match r.status.range() {
                    Some(range) => format!(
                        " The status: {} to {} (another is refused when sent).",
                        range.start(),
                        range.end()
                    ),
                    None => " The status: any that no other response declares.".to_string(),
                };
                quote!(#[doc = #doc] status: runtime::StatusCode,)
            });
            let fields = body_and_headers(r, &name, quote!());
            quote!(#docs #variant { #status_field #fields },)
        } else if let Some(b) = body {
            quote!(#docs #variant(#b),)
        } else {
            quote!(#docs #variant,)
        }
    });

    let arms = op.responses.iter().map(|r| {
        let variant = ident(&r.variant);
        let status = status_expr(r.status);
        if r.shared.is_some() {
            return quote!(Self::#variant(response) => response.into_http(#status),);
        }
        let build = render_response(api, r, &status).expr();
        let header_names = r.headers.iter().map(|h| ident(&h.rust));
        if r.named_fields() {
            let status_field = r.status.carries_status().then(|| quote!(status,));
            let body_field = r.body.as_ref().map(|_| quote!(body,));
            quote!(Self::#variant { #status_field #body_field #(#header_names),* } => #build)
        } else if r.body.is_some() {
            quote!(Self::#variant(body) => #build)
        } else {
            quote!(Self::#variant => #build)
        }
    });

    let docs = format!(
        " The responses `{}` can give: one variant per status the spec declares.",
        op.fn_name
    );
    let error_arms: Vec<TokenStream> = super::by_precedence(&op.responses)
        .into_iter()
        .filter(|r| takes_error(api, r))
        .filter_map(|r| {
            let pattern = super::status_pattern(r.status)?;
            let construct = construct_from_error(api, r)?;
            Some(quote!(#pattern => #construct,))
        })
        .collect();
    let otherwise = op
        .responses
        .iter()
        .filter(|r| r.status == Status::Default && takes_error(api, r))
        .find_map(|r| construct_from_error(api, r))
        .unwrap_or_else(|| quote!(Err(error)));
    let declared = if error_arms.is_empty() {
        otherwise
    } else {
        quote! {
            match error.status.as_u16() {
                #(#error_arms)*
                _ => #otherwise,
            }
        }
    };
    // A stream of events is read once: neither cloned nor compared.
    let derives = if op.responses.iter().any(|r| r.media == Media::Events) {
        quote!(#[derive(Debug)])
    } else {
        quote!(#[derive(Debug, Clone, PartialEq)])
    };
    let read = super::client::read_impl(api, op, &name, client_cfg);
    quote! {
        #[doc = #docs]
        #cfg
        #derives
        pub enum #name {
            #(#variants)*
        }

        #read

        #server_cfg
        impl runtime::Response for #name {
            type Error = ErrorResponse;

            fn declared(error: ErrorResponse) -> Result<Self, ErrorResponse> {
                #declared
            }

            fn into_http(self) -> Result<actix_web::HttpResponse, runtime::Rejection> {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}

/// The type of a response's body: its shape's, or, for a stream of
/// events, a `runtime::EventStream` of them that `owner` (the response
/// enum) types a reconnect's other answers with.
fn body_type(r: &Response, body: &Shape, owner: &proc_macro2::Ident) -> TokenStream {
    let ty = rust_type(body, &MODELS());
    match r.media {
        Media::Events => quote!(runtime::EventStream<#ty, #owner>),
        _ => ty,
    }
}

/// The fields of a response's body and headers, each preceded by `vis`;
/// `owner` is the type holding them.
fn body_and_headers(r: &Response, owner: &proc_macro2::Ident, vis: TokenStream) -> TokenStream {
    let body = r.body.as_ref().map(|b| {
        let ty = body_type(r, b, owner);
        quote!(#vis body: #ty,)
    });
    let headers = r.headers.iter().map(|h| {
        let hname = ident(&h.rust);
        let ty = header_type(h.required, &h.shape);
        let hdoc = doc_paragraphs(&[h.doc.clone(), Some(format!("Header `{}`.", h.wire))]);
        quote!(#hdoc #vis #hname: #ty,)
    });
    quote!(#body #(#headers)*)
}

/// A response several operations share ([`crate::ir::Response::shared`]):
/// its body and headers, how an error becomes it (the glue's), how it is
/// rendered with the status of the variant holding it, and how a client
/// reads it.
fn shared_response(api: &Api, gates: &Gates, shared: &crate::ir::SharedResponse) -> TokenStream {
    let r = &shared.response;
    let name = ident(&shared.name);
    let users = api
        .operations
        .iter()
        .filter(|op| {
            op.responses
                .iter()
                .any(|u| u.shared.as_ref() == Some(&shared.name))
        })
        .map(|op| op.group.as_str());
    let cfg = Gates::attr(gates.groups(users));
    let docs = doc_paragraphs(&[
        Some(r.doc.clone()),
        Some(
            "The same response for every operation that declares it: each one's response \
             enum holds it in the variant of its status."
                .into(),
        ),
    ]);
    let fields = body_and_headers(r, &name, quote!(pub));
    let names = r
        .body
        .iter()
        .map(|_| format_ident!("body"))
        .chain(r.headers.iter().map(|h| ident(&h.rust)));
    let render = render_response(api, r, &quote!(status)).body();
    let from_error = read_error(api, r, &quote!(Self)).map(|read| {
        let read = read.body();
        quote! {
            /// The response an error makes: its body, and the headers it
            /// carries; the error back when it lacks a required one.
            #[cfg(feature = "server")]
            pub fn from_error(error: ErrorResponse) -> Result<Self, ErrorResponse> {
                #read
            }
        }
    });
    let read = super::client::read_answer(api, r, &quote!(Self), None);
    quote! {
        #docs
        #cfg
        #[derive(Debug, Clone, PartialEq)]
        pub struct #name {
            #fields
        }

        #cfg
        impl #name {
            #from_error

            /// Renders the response, sent with `status`.
            #[cfg(feature = "server")]
            pub fn into_http(
                self,
                status: runtime::StatusCode,
            ) -> Result<actix_web::HttpResponse, runtime::Rejection> {
                let Self { #(#names),* } = self;
                #render
            }

            /// Reads the response from an answer.
            #[cfg(feature = "client")]
            pub fn read(answer: &runtime::Answer) -> Result<Self, runtime::ClientError> {
                Ok(#read)
            }
        }
    }
}

/// Statements ending in a value: the body of a function as it is, or one
/// expression (a block, when there are statements) in a match arm.
struct Block {
    statements: Vec<TokenStream>,
    value: TokenStream,
}

impl Block {
    fn body(&self) -> TokenStream {
        let (statements, value) = (&self.statements, &self.value);
        quote!(#(#statements)* #value)
    }

    fn expr(&self) -> TokenStream {
        if self.statements.is_empty() {
            self.value.clone()
        } else {
            let body = self.body();
            quote!({ #body })
        }
    }
}

/// The status a response is sent with: a code's constant; for a range or
/// `default`, the `status` its variant carries.
fn status_expr(status: Status) -> TokenStream {
    match status {
        Status::Code(s) => match status_name(s) {
            Some(name) => {
                let name = ident(name);
                quote!(runtime::StatusCode::#name)
            }
            None => {
                let s = proc_macro2::Literal::u16_unsuffixed(s);
                quote!(runtime::status(#s))
            }
        },
        Status::Range(class) => {
            let class = proc_macro2::Literal::u16_unsuffixed(class);
            quote!(runtime::status_in_class(status, #class)?)
        }
        Status::Default => quote!(status),
    }
}

/// The statements rendering a response from its parts, bound to locals
/// of their names (`body`, each header's field, `status` for a range).
fn render_response(api: &Api, r: &Response, status: &TokenStream) -> Block {
    let builder_mut = if r.headers.is_empty() && r.body.is_some() {
        quote!()
    } else {
        quote!(mut)
    };
    let mut statements = vec![quote!(let #builder_mut builder = runtime::respond(#status);)];
    statements.extend(r.headers.iter().map(|h| {
        let hname = ident(&h.rust);
        let wire = &h.wire;
        // Scalars as text; arrays, objects and JSON headers spelled as
        // the client reads them.
        let set = |value: TokenStream| {
            if h.json {
                quote!(runtime::set_header_styled(&mut builder, #wire, &#value, runtime::Style::Json);)
            } else if super::scalar_header(api, &h.shape) {
                quote!(runtime::set_header(&mut builder, #wire, #value);)
            } else {
                quote!(runtime::set_header_styled(&mut builder, #wire, &#value, runtime::Style::Simple);)
            }
        };
        if h.required {
            set(quote!(#hname))
        } else {
            let set = set(quote!(value));
            quote! {
                if let Some(value) = #hname {
                    #set
                }
            }
        }
    }));
    let value = match (&r.body, &r.media) {
        (Some(_), Media::Events) => quote!(Ok(runtime::events(builder, body))),
        (Some(_), Media::Raw(media)) => {
            let media = media
                .first()
                .map_or("application/octet-stream", String::as_str);
            quote!(Ok(runtime::bytes(builder, #media, body)))
        }
        (Some(_), _) => match &r.json_type {
            Some(media) => quote!(runtime::json_as(builder, #media, &body)),
            None => quote!(runtime::json(builder, &body)),
        },
        (None, _) => quote!(Ok(builder.finish())),
    };
    Block { statements, value }
}

/// An expression of type `Result<Self, ErrorResponse>` building the variant
/// `r` from an `ErrorResponse` named `error`: its headers come from the
/// error's, and an error without a header the variant requires is given
/// back. `None` when a required header's type cannot be read from text.
fn construct_from_error(api: &Api, r: &Response) -> Option<TokenStream> {
    let variant = ident(&r.variant);
    match &r.shared {
        Some(shared) => {
            // Its type reads the error; `None` when it cannot.
            read_error(api, r, &quote!(Self))?;
            let shared = ident(shared);
            Some(quote!(#shared::from_error(error).map(Self::#variant)))
        }
        None => read_error(api, r, &quote!(Self::#variant)).map(|read| read.expr()),
    }
}

/// The statements building `r`, as a `Result<T, ErrorResponse>`, with the
/// constructor `ctor` (a variant, or a shared response's `Self`) from an
/// `ErrorResponse` named `error` (an error without a header `r` requires
/// is given back); `None` when a required header's type cannot be read
/// from text.
fn read_error(api: &Api, r: &Response, ctor: &TokenStream) -> Option<Block> {
    if !r.named_fields() {
        let value = match r.body {
            Some(_) => quote!(Ok(#ctor(error.body))),
            None => quote!(Ok(#ctor)),
        };
        return Some(Block {
            statements: Vec::new(),
            value,
        });
    }
    let mut statements = Vec::new();
    for h in &r.headers {
        let (field, wire) = (ident(&h.rust), &h.wire);
        let readable = super::scalar_header(api, &h.shape) && !h.json;
        statements.push(match (h.required, readable) {
            (true, true) => {
                quote!(let Some(#field) = error.header(#wire) else { return Err(error); };)
            }
            (true, false) => return None,
            (false, true) => quote!(let #field = error.header(#wire);),
            (false, false) => quote!(let #field = None;),
        });
    }
    let status_field = r
        .status
        .carries_status()
        .then(|| quote!(status: error.status,));
    let body_field = r.body.as_ref().map(|_| quote!(body: error.body,));
    let fields = r.headers.iter().map(|h| ident(&h.rust));
    let value = quote!(Ok(#ctor { #status_field #body_field #(#fields,)* }));
    Some(Block { statements, value })
}

fn header_type(required: bool, shape: &Shape) -> TokenStream {
    let ty = rust_type(shape, &MODELS());
    if required {
        ty
    } else {
        quote!(Option<#ty>)
    }
}

/// The name of `http::StatusCode`'s constant for a registered status
/// (`404` is `NOT_FOUND`); other codes are written as numbers. The
/// `statuses_named` snapshot declares every one of these, so a name that
/// is not a constant fails to compile there.
fn status_name(code: u16) -> Option<&'static str> {
    Some(match code {
        100 => "CONTINUE",
        101 => "SWITCHING_PROTOCOLS",
        102 => "PROCESSING",
        200 => "OK",
        201 => "CREATED",
        202 => "ACCEPTED",
        203 => "NON_AUTHORITATIVE_INFORMATION",
        204 => "NO_CONTENT",
        205 => "RESET_CONTENT",
        206 => "PARTIAL_CONTENT",
        207 => "MULTI_STATUS",
        208 => "ALREADY_REPORTED",
        226 => "IM_USED",
        300 => "MULTIPLE_CHOICES",
        301 => "MOVED_PERMANENTLY",
        302 => "FOUND",
        303 => "SEE_OTHER",
        304 => "NOT_MODIFIED",
        305 => "USE_PROXY",
        307 => "TEMPORARY_REDIRECT",
        308 => "PERMANENT_REDIRECT",
        400 => "BAD_REQUEST",
        401 => "UNAUTHORIZED",
        402 => "PAYMENT_REQUIRED",
        403 => "FORBIDDEN",
        404 => "NOT_FOUND",
        405 => "METHOD_NOT_ALLOWED",
        406 => "NOT_ACCEPTABLE",
        407 => "PROXY_AUTHENTICATION_REQUIRED",
        408 => "REQUEST_TIMEOUT",
        409 => "CONFLICT",
        410 => "GONE",
        411 => "LENGTH_REQUIRED",
        412 => "PRECONDITION_FAILED",
        413 => "PAYLOAD_TOO_LARGE",
        414 => "URI_TOO_LONG",
        415 => "UNSUPPORTED_MEDIA_TYPE",
        416 => "RANGE_NOT_SATISFIABLE",
        417 => "EXPECTATION_FAILED",
        418 => "IM_A_TEAPOT",
        421 => "MISDIRECTED_REQUEST",
        422 => "UNPROCESSABLE_ENTITY",
        423 => "LOCKED",
        424 => "FAILED_DEPENDENCY",
        426 => "UPGRADE_REQUIRED",
        428 => "PRECONDITION_REQUIRED",
        429 => "TOO_MANY_REQUESTS",
        431 => "REQUEST_HEADER_FIELDS_TOO_LARGE",
        451 => "UNAVAILABLE_FOR_LEGAL_REASONS",
        500 => "INTERNAL_SERVER_ERROR",
        501 => "NOT_IMPLEMENTED",
        502 => "BAD_GATEWAY",
        503 => "SERVICE_UNAVAILABLE",
        504 => "GATEWAY_TIMEOUT",
        505 => "HTTP_VERSION_NOT_SUPPORTED",
        506 => "VARIANT_ALSO_NEGOTIATES",
        507 => "INSUFFICIENT_STORAGE",
        508 => "LOOP_DETECTED",
        510 => "NOT_EXTENDED",
        511 => "NETWORK_AUTHENTICATION_REQUIRED",
        _ => return None,
    })
}
