//! `client.rs`: a typed client. One async method per operation takes the
//! operation's request struct and returns its response enum (in a
//! `runtime::Reply`, with the headers); parameters are written in the styles
//! the spec declares, bodies in their media types, credentials applied from
//! the spec's security schemes.
//!
//! Answers are typed through each response enum's `runtime::ReadAnswer`
//! (`runtime::Answer::typed`); retries and the `Idempotency-Key` come from
//! `runtime::Core`. A paging operation also gets `<op>_items` and `<op>_pages`
//! streams over `runtime::items` and `runtime::pages` (one walk for every
//! scheme, the next page fetched when the stream needs it). An operation that
//! streams (`Media::Events`, `Media::Items`) leaves its answer unread
//! (`Core::open`); its variant holds a `runtime::EventStream` or
//! `runtime::ItemStream`, and `<op>_events` (resumed by `Last-Event-ID` for a
//! GET) or `<op>_stream` opens one lazily. A security scheme with a device flow
//! gets `sign_in_<scheme>`.

use super::gates::Gates;
use super::method_docs::MethodDocs;
use super::reading::{match_status, Reading};
use super::text::{self, Expr, Pieces};
use super::{ident, rust_type};
use crate::ir::{
    Api, Media, Operation, Param, ParamLocation, Response, Shape, Style, Ty, TypeKind,
};
use crate::names::{sanitize, Case, Namer};
use text::string_literal as lit;

pub const DOC: &str = "A typed client: one async method per operation.";

/// What the module imports: `operations` only for the methods, which
/// group features may leave out.
pub fn imports(api: &Api, gates: &Gates) -> Vec<String> {
    if api.operations.is_empty() {
        vec!["use super::{metadata, runtime};".to_string()]
    } else if gates.on() {
        vec![
            "use super::{metadata, runtime};".to_string(),
            gates.group_import(
                "use super::operations;",
                api.operations.iter().map(|op| op.group.as_str()),
            ),
        ]
    } else {
        vec!["use super::{metadata, operations, runtime};".to_string()]
    }
}

/// Builder methods of the client, which operations and credential setters
/// must not be named.
const BUILDERS: &[&str] = &[
    "new",
    "with_http_client",
    "with_default_headers",
    "with_retries",
    "strict",
];

/// The methods of some operations, as items of `impl Client` (the file
/// is written in chunks): the lines between the block's braces. A method
/// of the common shape is written as formatted text; one that pages or
/// streams events, with the functions beside it, as text that prettyplease
/// lays out.
pub fn methods(api: &Api, gates: &Gates, ops: &[Operation]) -> String {
    let mut pieces = Pieces::in_block();
    for op in ops {
        let cfg = Gates::attr(gates.group(&op.group));
        match plain_method(api, op, &cfg) {
            Some(text) => pieces.text(&text),
            None => pieces.printed(&method(api, op, &cfg)),
        }
    }
    pieces.finish()
}

/// The `Client` type and its constructor and settings: the operations'
/// methods ([`methods`]) follow in the same `impl` block.
///
/// `whole` is false for the `webhooks` module's client: a sender, whose
/// base URL is a subscriber's.
pub fn head(api: &Api, whole: bool) -> String {
    let mut names = Namer::reserving(BUILDERS);
    for op in &api.operations {
        names.reserve(&op.fn_name);
    }
    let (title, new_doc) = if whole {
        (format!(" A client of {}.", api.title), CLIENT_NEW)
    } else {
        (
            format!(" A sender of {}: one method per webhook.", api.title),
            SENDER_NEW,
        )
    };
    // A mutual TLS certificate is the HTTP client's (`with_http_client`):
    // there is no credential to set here. The setters take their names
    // first, the sender's builders after them.
    let setters: String = api
        .security_schemes
        .iter()
        .filter(|s| s.kind != crate::ir::SchemeKind::MutualTls)
        .map(|scheme| credential_setter(&mut names, scheme))
        .collect();
    let mut builders = sender_builders(api, whole, &mut names);
    if !setters.is_empty() {
        builders.push('\n');
        builders.push_str(&super::render::render_in_block(&setters));
    }
    text::fill(
        HEAD,
        &[
            ("title", &text::doc_comment(&[title], "///", "")),
            ("new_doc", new_doc),
            ("builders", &builders),
        ],
    )
}

const HEAD: &str = include_str!("templates/client_head.rs.in");
/// The constructor's doc lines in a client, and in a webhooks sender.
const CLIENT_NEW: &str = "    /// A client of the API served at `base_url` (the spec's server URL,
    /// with its base path).
";
const SENDER_NEW: &str = "    /// A sender to the subscriber at `base_url` (the URL it subscribed
    /// with): each webhook goes to its path under it.
";

/// A sender's builders (the `webhooks` module's client): how much of an
/// answer it reads, and, when a webhook is signed, how it signs. Each
/// follows a blank line.
fn sender_builders(api: &Api, whole: bool, names: &mut Namer) -> String {
    let mut out = String::new();
    // A sender's receivers are not trusted: their answers' bodies are
    // read only so far.
    if !whole {
        let method = names.unique("with_answer_limit".to_string());
        out.push_str(&text::fill(ANSWER_LIMIT, &[("method", &method)]));
    }
    if api.operations.iter().any(|op| op.signed) {
        let method = names.unique("signed".to_string());
        out.push_str(&text::fill(SIGNED, &[("method", &method)]));
    }
    out
}

const ANSWER_LIMIT: &str = include_str!("templates/client_answer_limit.rs.in");
const SIGNED: &str = include_str!("templates/client_signed.rs.in");

/// The builder method that sets a credential of `scheme`, named
/// `with_<scheme>` among `names`.
fn credential_setter(names: &mut Namer, scheme: &crate::ir::SecurityScheme) -> String {
    let method = ident(&names.unique(format!("with_{}", sanitize(&scheme.name, Case::Snake))));
    let name = &scheme.name;
    let (kind, params, credential) = match &scheme.kind {
        crate::ir::SchemeKind::Http(s) if s == "basic" => (
            "HTTP basic authentication".to_string(),
            "user: impl Into<String>, password: impl Into<String>",
            "runtime::Credential::Basic { user: user.into(), password: password.into() }",
        ),
        crate::ir::SchemeKind::Http(s) => (
            format!("HTTP `{s}` authentication"),
            "token: impl Into<String>",
            "runtime::Credential::Token(token.into())",
        ),
        crate::ir::SchemeKind::ApiKey { location, name } => {
            let location = match location {
                ParamLocation::Header => "header",
                ParamLocation::Query => "query parameter",
                _ => "cookie",
            };
            (
                format!("an API key in the {location} `{name}`"),
                "key: impl Into<String>",
                "runtime::Credential::Key(key.into())",
            )
        }
        crate::ir::SchemeKind::OAuth2 => (
            "an OAuth 2 access token".to_string(),
            "token: impl Into<String>",
            "runtime::Credential::Token(token.into())",
        ),
        crate::ir::SchemeKind::OpenIdConnect => (
            "an OpenID Connect token".to_string(),
            "token: impl Into<String>",
            "runtime::Credential::Token(token.into())",
        ),
        crate::ir::SchemeKind::MutualTls => unreachable!("filtered out above"),
    };
    let doc = text::doc_attrs(&[
        Some(format!(
            "Credentials for the security scheme `{name}`: {kind}."
        )),
        scheme.doc.clone(),
    ]);
    let tokens = scheme
        .tokens
        .as_ref()
        .map(|endpoints| token_sessions(names, scheme, endpoints))
        .unwrap_or_default();
    let device = scheme
        .device
        .as_ref()
        .map(|flow| device_sign_in(names, scheme, flow))
        .unwrap_or_default();
    let name = lit(name);
    format!(
        "{doc}pub fn {method}(mut self, {params}) -> Self {{
    self.core.set_credential({name}, {credential});
    self
}}
{tokens}{device}"
    )
}

/// The methods that install a session getting and renewing an OAuth 2
/// scheme's tokens: `with_<scheme>_client_credentials` where the scheme
/// has a client credentials flow, and `with_<scheme>_session` for any
/// session.
fn token_sessions(
    names: &mut Namer,
    scheme: &crate::ir::SecurityScheme,
    endpoints: &crate::ir::TokenEndpoints,
) -> String {
    let snake = sanitize(&scheme.name, Case::Snake);
    let name = &scheme.name;
    let url = |url: &Option<String>| match url {
        Some(url) => format!("Some({})", lit(url)),
        None => "None".to_string(),
    };
    let install = format!(
        "let endpoints = runtime::OAuthEndpoints {{
        client_credentials: {},
        refresh: {},
        metadata: {},
    }};
    self.core.set_session({}, endpoints, session);",
        url(&endpoints.client_credentials),
        url(&endpoints.refresh),
        url(&endpoints.metadata),
        lit(name),
    );
    // The session method's name is taken first: the client credentials
    // method calls it.
    let session_method = names.unique(format!("with_{snake}_session"));
    let mut out = String::new();
    if let Some(token_url) = &endpoints.client_credentials {
        let method = ident(&names.unique(format!("with_{snake}_client_credentials")));
        let doc = lit(&format!(
            " Gets `{name}`'s tokens by client credentials (OAuth 2, RFC 6749 section 4.4) \
             at `{token_url}`, with the scopes each call's operation requires: at the first \
             call that needs one, one request however many calls wait, renewed \
             `runtime::DEFAULT_RENEW_BEFORE` before it expires and once when the API refuses \
             it (401 `invalid_token`). The client authenticates with `client_secret_basic`, or \
             as the authorization server's metadata says. A refusal is \
             `runtime::ClientError::Authorization`; `with_{snake}_session` chooses otherwise."
        ));
        out.push_str(&format!(
            "#[doc = {doc}]
pub fn {method}(
    self,
    client_id: impl Into<String>,
    client_secret: impl Into<String>,
) -> Self {{
    let session = runtime::OAuthSession::client_credentials(client_id, client_secret);
    self.{session}(session)
}}
",
            session = ident(&session_method),
        ));
    }
    let method = ident(&session_method);
    let doc = lit(&format!(
        " Gets and renews `{name}`'s OAuth 2 tokens with `session`: by client credentials, \
         or with a refresh token (`runtime::OAuthSession::refresh`, from an authorization code \
         or a device sign-in), at the token URL the spec writes for the grant (a relative one \
         against the base URL) or the authorization server's metadata gives."
    ));
    out.push_str(&format!(
        "#[doc = {doc}]
pub fn {method}(mut self, session: runtime::OAuthSession) -> Self {{
    {install}
    self
}}
"
    ));
    out
}

/// The method that signs in through an OAuth 2 scheme's device
/// authorization flow, named `sign_in_<scheme>` among `names`.
fn device_sign_in(
    names: &mut Namer,
    scheme: &crate::ir::SecurityScheme,
    flow: &crate::ir::DeviceFlow,
) -> String {
    let method = ident(&names.unique(format!("sign_in_{}", sanitize(&scheme.name, Case::Snake))));
    let name = &scheme.name;
    let scopes = if flow.scopes.is_empty() {
        String::new()
    } else {
        format!(" Scopes it offers: `{}`.", flow.scopes.join("`, `"))
    };
    let (asks, waits, binding, flow) = match &flow.endpoints {
        crate::ir::DeviceEndpoints::Written {
            authorization_url,
            token_url,
        } => (
            format!("asks `{authorization_url}`"),
            format!("waits at `{token_url}`"),
            format!(
                "const FLOW: runtime::DeviceFlow = runtime::DeviceFlow::new({}, {});",
                lit(authorization_url),
                lit(token_url)
            ),
            "FLOW",
        ),
        crate::ir::DeviceEndpoints::Metadata(metadata) => (
            format!(
                "reads the authorization server's metadata at `{metadata}` (RFC 8414), asks its \
                 `device_authorization_endpoint`"
            ),
            "waits at its `token_endpoint`".to_string(),
            format!(
                "let flow = runtime::DeviceFlow::discover(&self.core, {}).await?;",
                lit(metadata)
            ),
            "flow",
        ),
    };
    let doc = lit(&format!(
        " Signs in through `{name}`'s OAuth 2 device authorization flow (RFC 8628): {asks} for \
         a code (for `client_id`, with `scopes`), calls `show` with it (the user enters its \
         `user_code` at its `verification_uri`, on any device), {waits} until the user \
         approves, and keeps the tokens as `{name}`'s credential: with a refresh token, renewed \
         before they expire and when the API refuses them. A URL the spec writes relative is \
         relative to the base URL.{scopes} The tokens, for the program to keep \
         (`runtime::OAuthSession::refresh` starts again from them). A refusal, or a code that \
         expires first, is `runtime::ClientError::Authorization`."
    ));
    let name = lit(name);
    format!(
        "#[doc = {doc}]
pub async fn {method}(
    &mut self,
    client_id: &str,
    scopes: &[&str],
    show: impl FnOnce(&runtime::DeviceCode),
) -> Result<runtime::TokenSet, runtime::ClientError> {{
    {binding}
    {flow}.sign_in(&mut self.core, {name}, client_id, scopes, show).await
}}
"
    )
}

/// The method of an operation that neither pages nor streams, as text
/// inside `impl Client`; `None` for one that does.
fn plain_method(api: &Api, op: &Operation, cfg: &str) -> Option<String> {
    if op.paging.is_some() || op.responses.iter().any(|r| r.media.streams()) {
        return None;
    }
    let mut out = MethodDocs::new(op).text(&text::cfg_line(cfg), "    ");
    let request = request_binding(api, op);
    out.push_str(&format!(
        "    pub async fn {}(\n        &self,\n        {request}: operations::{}Request,\n",
        ident(&op.fn_name),
        op.type_name
    ));
    Expr::generic(
        "Result",
        vec![
            Expr::text(format!(
                "runtime::Reply<operations::{}Response>",
                op.type_name
            )),
            Expr::text("runtime::ClientError"),
        ],
    )
    .write(&mut out, 4, ") -> ", " {");
    build_call(api, op, &mut out);
    out.push_str(
        "        let answer = self.core.send(call).await?;\n        answer.typed()\n    }\n",
    );
    Some(out)
}

/// The name a method binds its request to: `_request` for one with
/// nothing in it (no parameter, no body, no check), which is not read.
fn request_binding(api: &Api, op: &Operation) -> &'static str {
    if !api.request_checked(op) && op.params.is_empty() && op.body.is_none() {
        "_request"
    } else {
        "request"
    }
}

/// The statements building an operation's call from `request`, as text
/// at the indentation of a method's body.
fn build_call(api: &Api, op: &Operation, out: &mut String) {
    let pad = "        ";
    if api.request_checked(op) {
        out.push_str(&format!(
            "{pad}runtime::Validate::validate(&request).map_err(runtime::ClientError::Invalid)?;\n"
        ));
    }
    let mutable = if op.params.is_empty() && op.body.is_none() {
        ""
    } else {
        "mut "
    };
    Expr::call(
        "runtime::Call::new",
        vec![Expr::text(format!("metadata::{}", ident(&op.const_name)))],
        "",
    )
    .write(out, 8, &format!("let {mutable}call = "), ";");
    let idempotency = idempotency_param(op);
    if let Some(p) = idempotency {
        let field = ident(&p.rust);
        let value = if p.required {
            Expr::text(format!("Some(request.{field}.clone())"))
        } else {
            Expr::text("request")
                .then(format!(".{field}"))
                .then(".clone()")
                .then(".or_else(|| self.core.retries().then(runtime::new_idempotency_key))")
        };
        value.write(out, 8, "let idempotency_key = ", ";");
        out.push_str(&format!(
            "{pad}if idempotency_key.is_some() {{\n{pad}    call.resendable();\n{pad}}}\n"
        ));
    }
    for p in &op.params {
        let wire = text::string_literal(&p.wire);
        let explode = super::explode(p.explode);
        let value = if idempotency.is_some_and(|k| std::ptr::eq(k, p)) {
            "&idempotency_key".to_string()
        } else {
            format!("&request.{}", ident(&p.rust))
        };
        let style = format!("runtime::Style::{:?}", p.style);
        let (method, args): (&str, Vec<&str>) = match p.location {
            ParamLocation::Path => ("call.path", vec![&wire, &value, &style, explode]),
            ParamLocation::Query if p.style == Style::QueryString => {
                ("call.query_string", vec![&value])
            }
            ParamLocation::Query => ("call.query", vec![&wire, &value, &style, explode]),
            ParamLocation::Header if p.style == Style::Json => {
                ("call.header_json", vec![&wire, &value])
            }
            ParamLocation::Cookie if p.style == Style::Json => {
                ("call.cookie_json", vec![&wire, &value])
            }
            ParamLocation::Header => ("call.header", vec![&wire, &value, explode]),
            ParamLocation::Cookie => ("call.cookie", vec![&wire, &value, explode]),
        };
        Expr::call(method, args.into_iter().map(Expr::text).collect(), "").write(out, 8, "", ";");
    }
    if let Some(b) = &op.body {
        match &b.media {
            // A request never streams events (lowering makes none).
            Media::Json | Media::Events | Media::Items(_) => {
                out.push_str(&format!("{pad}call.json_body(&request.body)?;\n"));
            }
            Media::Form => out.push_str(&format!("{pad}call.form_body(&request.body)?;\n")),
            Media::Multipart => {
                let files: Vec<String> = file_fields(api, &b.shape)
                    .iter()
                    .map(|f| text::string_literal(f))
                    .collect();
                Expr::call(
                    "call.multipart_body",
                    vec![
                        Expr::text("&request.body"),
                        Expr::text(format!("&[{}]", files.join(", "))),
                    ],
                    "?",
                )
                .write(out, 8, "", ";");
            }
            Media::Raw(media) => {
                let media = text::string_literal(
                    media
                        .first()
                        .map_or("application/octet-stream", String::as_str),
                );
                if b.required {
                    out.push_str(&format!(
                        "{pad}call.bytes_body({media}, request.body.clone());\n"
                    ));
                } else {
                    out.push_str(&format!(
                        "{pad}if let Some(body) = &request.body {{\n{pad}    \
                         call.bytes_body({media}, body.clone());\n{pad}}}\n"
                    ));
                }
            }
        }
    }
}

/// A POST with an `Idempotency-Key` header is safe to resend: the client
/// generates the key once when retries are on and the request has none.
fn idempotency_param(op: &Operation) -> Option<&Param> {
    op.params.iter().find(|p| {
        p.location == ParamLocation::Header && p.wire.eq_ignore_ascii_case("idempotency-key")
    })
}

/// An operation's method that pages or streams, with the functions beside
/// it, as text for prettyplease to lay out.
fn method(api: &Api, op: &Operation, cfg: &str) -> String {
    let name = ident(&op.fn_name);
    let req = format!("{}Request", op.type_name);
    let resp = format!("{}Response", op.type_name);
    let docs = MethodDocs::new(op);
    let deprecated = docs.deprecated_attr();
    let docs = docs.doc_attrs();
    let request = ident(request_binding(api, op));
    // The call from the request, and the typed response from the answer:
    // functions of their own that the page walks and the event stream reuse.
    let mut build_call_text = String::new();
    build_call(api, op, &mut build_call_text);
    let streams = op.responses.iter().find(|r| r.media.streams());
    let (call_fn, read_fn) = (
        format!("{}_call", op.fn_name),
        format!("{}_read", op.fn_name),
    );
    // The response enum reads the answer (`runtime::ReadAnswer`), but for
    // a stream of events, whose reconnects the operation's own read
    // function types.
    let read = if streams.is_some() {
        let value = match_status(
            api,
            op,
            &Reading {
                owner: &format!("operations::{resp}"),
                shared: "operations::",
                answer: "&answer",
                undeclared: "return Err(answer.undeclared())",
                read_fn: Some(&read_fn),
            },
        )
        .written();
        format!("let value = {value};\nOk(answer.reply(value))")
    } else {
        "answer.typed()".to_string()
    };
    let split = Split {
        op,
        req: &req,
        resp: &resp,
        call_fn: &call_fn,
        read_fn: &read_fn,
        cfg,
        deprecated: &deprecated,
    };
    let call_doc = lit(&format!(" The call [`Self::{}`] sends.", op.fn_name));
    let read_doc = lit(&format!(
        " [`Self::{}`]'s typed response, read from its answer.",
        op.fn_name
    ));
    // A stream of events is left unread until its variant reads it.
    let send = if streams.is_some() { "open" } else { "send" };
    let paging = op
        .paging
        .as_ref()
        .map(|paging| paging_methods(&split, paging))
        .unwrap_or_default();
    let events = streams
        .map(|r| events_method(&split, r))
        .unwrap_or_default();
    format!(
        "{docs}{cfg}{deprecated}
pub async fn {name}(
    &self,
    request: operations::{req},
) -> Result<runtime::Reply<operations::{resp}>, runtime::ClientError> {{
    let call = self.{call_fn}(request)?;
    Self::{read_fn}(self.core.{send}(call).await?)
}}
{paging}{events}
#[doc = {call_doc}]
{cfg}
fn {call_fn}(&self, {request}: operations::{req}) -> Result<runtime::Call, runtime::ClientError> {{
    {build_call_text}
    Ok(call)
}}
#[doc = {read_doc}]
{cfg}
fn {read_fn}(
    answer: runtime::Answer,
) -> Result<runtime::Reply<operations::{resp}>, runtime::ClientError> {{
    {read}
}}
"
    )
}

/// What the methods beside an operation's own (`_events`, `_stream`,
/// `_items`, `_pages`) build on: its request and response types, the functions that
/// build its call and read its answer, and its attributes (as text).
struct Split<'a> {
    op: &'a Operation,
    req: &'a str,
    resp: &'a str,
    call_fn: &'a str,
    read_fn: &'a str,
    cfg: &'a str,
    deprecated: &'a str,
}

/// A streaming operation's `<op>_events` (`text/event-stream`) or
/// `<op>_stream` (another sequential media type): the stream itself,
/// opened when first polled.
fn events_method(split: &Split<'_>, r: &Response) -> String {
    let Split {
        op,
        req,
        resp,
        call_fn,
        read_fn,
        cfg,
        deprecated,
    } = split;
    let data = r.body.as_ref().map_or_else(
        || "serde_json::Value".to_string(),
        |b| rust_type(b, "super::models::"),
    );
    let answered = " An answer that is not a stream (an error status) ends the stream with \
                    `runtime::StreamError::Answered`, the typed response.";
    // (method suffix, stream type, the media argument, the doc)
    let (suffix, stream, media, doc) = if let Media::Items(media) = &r.media {
        let doc = format!(
            " The items of [`Self::{}`] as they arrive (`{} {}`, `{media}`), each read \
             as soon as its bytes have; nothing is sent until the stream is first \
             polled. The stream ends when the body does; a dropped connection ends it \
             with the error.{answered}",
            op.fn_name, op.method, op.path
        );
        ("stream", "ItemStream", format!(", {}", lit(media)), doc)
    } else {
        let resumes = if op.method.eq_ignore_ascii_case("GET") {
            " When the connection drops, the stream reconnects after the server's `retry` \
             (and the client's backoff) with `Last-Event-ID`, so that no event is missed \
             or repeated where the server resumes by id; `.resume(false)` turns this off."
        } else {
            " The stream ends when the connection does: a dropped call is not resent, \
             which would do its work again."
        };
        let doc = format!(
            " The events of [`Self::{}`] as they arrive (`{} {}`, `text/event-stream`), \
             each with its `id`, `event` and `retry`; nothing is sent until the stream is \
             first polled.{resumes}{answered}",
            op.fn_name, op.method, op.path
        );
        ("events", "EventStream", String::new(), doc)
    };
    let doc = lit(&doc);
    format!(
        "#[doc = {doc}]
{cfg}{deprecated}
pub fn {}_{suffix}(
    &self,
    request: operations::{req},
) -> runtime::{stream}<{data}, operations::{resp}> {{
    runtime::{stream}::connect(self.core.clone(), self.{call_fn}(request), Self::{read_fn}{media})
}}
",
        op.fn_name
    )
}

/// A paging operation's `<op>_items` and `<op>_pages`, with the constant
/// describing its paging.
fn paging_methods(split: &Split<'_>, paging: &crate::ir::Paging) -> String {
    let Split {
        op,
        req,
        resp,
        call_fn,
        read_fn,
        cfg,
        deprecated,
    } = split;
    let fn_name = &op.fn_name;
    let paging_const = format!("{}_PAGING", op.const_name);
    let item = rust_type(&paging.item, "super::models::");
    let paging_value = paging_literal(paging);
    let how = lit(&format!(" Pages by {}.", paging.describe()));
    let items_doc = lit(&format!(
        " Every item of [`Self::{}`], page after page: the next page is fetched when \
         the stream is asked for an item past the last one fetched, through the \
         client's retries (which honour `Retry-After`). The stream ends after the \
         last page; an answer that is not a page ends it with \
         `ClientError::NotAPage`, a cursor the server already gave with \
         `ClientError::Paging`.",
        op.fn_name
    ));
    let pages_doc = lit(&format!(
        " Every page of [`Self::{}`] as its typed response (with the headers it came \
         with, the rate limits among them), fetched as the stream is asked for \
         them. A response that is not a page (a 429 the retries did not outlast, \
         say) is the last item.",
        op.fn_name
    ));
    format!(
        "{cfg}
const {paging_const}: runtime::Paging = {paging_value};
#[doc = {items_doc}]
#[doc = \"\"]
#[doc = {how}]
{cfg}{deprecated}
pub fn {fn_name}_items(
    &self,
    request: operations::{req},
) -> impl runtime::Stream<Item = Result<{item}, runtime::ClientError>> + '_ {{
    runtime::items(&self.core, self.{call_fn}(request), &Self::{paging_const})
}}
#[doc = {pages_doc}]
#[doc = \"\"]
#[doc = {how}]
{cfg}{deprecated}
pub fn {fn_name}_pages(
    &self,
    request: operations::{req},
) -> impl runtime::Stream<Item = Result<runtime::Reply<operations::{resp}>, runtime::ClientError>> + '_ {{
    runtime::pages(&self.core, self.{call_fn}(request), &Self::{paging_const}, Self::{read_fn})
}}
"
    )
}

/// An operation's `runtime::Paging`, as a constant expression.
fn paging_literal(paging: &crate::ir::Paging) -> String {
    use crate::ir::PageNext;
    let next = match &paging.next {
        PageNext::Link => "runtime::Next::Link".to_string(),
        PageNext::Cursor { param, from } => format!(
            "runtime::Next::Cursor {{ param: {}, from: {} }}",
            lit(param),
            lit(from)
        ),
        PageNext::LastItem { param, field } => format!(
            "runtime::Next::LastItem {{ param: {}, field: {} }}",
            lit(param),
            lit(field)
        ),
        PageNext::Page { param, start } => {
            format!(
                "runtime::Next::Page {{ param: {}, start: {start} }}",
                lit(param)
            )
        }
        PageNext::Offset { param } => format!("runtime::Next::Offset {{ param: {} }}", lit(param)),
    };
    let optional = |value: &Option<String>| match value {
        Some(v) => format!("Some({})", lit(v)),
        None => "None".to_string(),
    };
    format!(
        "runtime::Paging {{ next: {next}, items: {}, has_more: {}, limit: {} }}",
        lit(&paging.items),
        optional(&paging.has_more),
        optional(&paging.limit)
    )
}

/// The names of a multipart body's file parts: properties of `format:
/// binary`.
fn file_fields(api: &Api, shape: &Shape) -> Vec<String> {
    let Ty::Named(name) = &shape.ty else {
        return Vec::new();
    };
    match crate::lower::resolve(&api.types, name).map(|t| &t.kind) {
        Some(TypeKind::Struct(s)) => s
            .fields
            .iter()
            .filter(|f| f.shape.ty == Ty::Base64)
            .map(|f| f.wire.clone())
            .collect(),
        _ => Vec::new(),
    }
}
