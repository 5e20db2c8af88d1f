//! `operations.rs`: per operation, a request struct and a response enum; per
//! tag, a route trait; and the `ErrorResponse` every response converts from.
//!
//! A response enum implements `runtime::Response` (`declared(ErrorResponse)`
//! picks the variant for an error's status, `into_http` renders it) and
//! `runtime::ReadAnswer` (the client's `match` on the status, written once per
//! enum). A response several operations reference with headers of its own (a
//! 429 with `Retry-After`) is one struct they all hold (`TooManyRequests`). An
//! operation whose responses are the same as an earlier one's
//! (`Operation::same_responses_as`) gets an alias of that one's enum, compiled
//! in for every group using it.

use super::gates::Gates;
use super::method_docs::MethodDocs;
use super::text::{self, Expr, Pieces};
use super::validation::{attribute, checks};
use super::{ident, rust_type};
use crate::ir::{Api, Media, Operation, Param, Response, Shape, Status, Ty};

const MODELS: &str = "models::";

/// The module's doc comment.
pub const DOC: &str = "Requests, responses and route traits: one method per operation.";

/// What the module imports: the runtime always (`ErrorResponse` names its
/// status type), the models when an operation names one, under the
/// features of the groups whose operations do (always, when the error
/// type names one).
pub fn imports(api: &Api, gates: &Gates) -> Vec<String> {
    let mut imports = Vec::new();
    let naming: Vec<&str> = api
        .operations
        .iter()
        .filter(|op| op.shapes().any(Shape::names_a_type))
        .map(|op| op.group.as_str())
        .collect();
    if api.error_type.iter().any(Shape::names_a_type) {
        imports.push("use super::models;".to_string());
    } else if !naming.is_empty() {
        imports.push(gates.group_import("use super::models;", naming));
    }
    imports.push("use super::runtime;".to_string());
    imports
}

/// The shared items: `ErrorResponse`, the responses several operations
/// share and the route traits.
pub fn shared_items(api: &Api, gates: &Gates) -> String {
    let mut pieces = Pieces::default();
    pieces.text(&error_response(api));
    for shared in &api.shared_responses {
        pieces.text(&shared_response(api, gates, shared));
    }
    for (t, ops) in api.traits.iter().zip(api.operations_by_group()) {
        let docs = text::doc_text(
            &[
                t.doc.clone(),
                Some(format!(
                    "The {}. Implement this trait to serve them; `server::configure` routes \
                     requests to it.",
                    super::group_summary(t, &ops)
                )),
            ],
            "",
        );
        let cfg = text::cfg_line(&gates.server_attr(&t.group));
        let mut out = format!("{docs}{cfg}pub trait {} {{\n", ident(&t.name));
        for (i, op) in ops.into_iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            method(op, &mut out);
        }
        out.push_str("}\n");
        pieces.text(&out);
    }
    pieces.finish()
}

/// The request and response types of some operations (the file is written
/// in chunks).
pub fn operation_items(api: &Api, gates: &Gates, ops: &[crate::ir::Operation]) -> String {
    let mut pieces = Pieces::default();
    for op in ops {
        let cfg = Gates::attr(gates.group(&op.group));
        request(api, op, &cfg, &mut pieces);
        match &op.same_responses_as {
            Some(owner) => pieces.text(&response_alias(op, owner, &cfg)),
            None => pieces.text(&response(api, op, &gates.response_attrs(op))),
        }
    }
    pieces.finish()
}

fn error_body_type(api: &Api) -> String {
    match &api.error_type {
        Some(shape) => rust_type(shape, MODELS),
        None => "serde_json::Value".to_string(),
    }
}

/// `ErrorResponse`, its constructor and accessors: a template, the body's
/// type filled in.
fn error_response(api: &Api) -> String {
    error_response_of(&error_body_type(api))
}

fn error_response_of(body: &str) -> String {
    // The constructor's signature, on one line where it fits the width
    // the item has always been laid out in.
    let one_line = format!("    pub fn new(status: runtime::StatusCode, body: {body}) -> Self {{");
    let new = if one_line.len() <= text::ITEM_WIDTH {
        one_line
    } else {
        format!(
            "    pub fn new(\n        status: runtime::StatusCode,\n        body: {body},\n    ) -> Self {{"
        )
    };
    text::fill(ERROR_RESPONSE, &[("body", body), ("new", &new)])
}

const ERROR_RESPONSE: &str = include_str!("templates/error_response.rs.in");

/// An operation's method in its route trait.
fn method(op: &Operation, out: &mut String) {
    out.push_str(&MethodDocs::new(op).text("", "    "));
    out.push_str(&format!(
        "    fn {}(\n        &self,\n        request: {}Request,\n        context: runtime::RequestContext,\n",
        ident(&op.fn_name),
        op.type_name
    ));
    // `Send`, so that every framework can run it (axum's handlers are
    // `Send` futures).
    Expr::generic(
        "impl std::future::Future",
        vec![Expr::generic(
            "Output = Result",
            vec![
                Expr::text(format!("{}Response", op.type_name)),
                Expr::text("ErrorResponse"),
            ],
        )],
    )
    .write(out, 4, ") -> ", " + Send;");
}

/// The type of a parameter in the request struct.
fn param_type(api: &Api, p: &Param) -> String {
    let ty = rust_type(&p.shape, MODELS);
    if p.required || param_default(api, p).is_some() {
        ty
    } else {
        format!("Option<{ty}>")
    }
}

pub(crate) fn param_default(api: &Api, p: &Param) -> Option<String> {
    super::literals::default_expr(p.default.as_ref()?, &p.shape, api, MODELS)
}

/// An operation's request struct, its `Default` when nothing is required,
/// deriving `Validate` when something is checked.
fn request(api: &Api, op: &Operation, cfg: &str, pieces: &mut Pieces) {
    let name = format!("{}Request", op.type_name);
    let cfg_line = text::cfg_line(cfg);
    let defaults: Vec<Option<String>> = op.params.iter().map(|p| param_default(api, p)).collect();
    // Nothing required: a default request, with the spec's defaults.
    let default_fields: Option<Vec<(String, Expr)>> = op
        .params
        .iter()
        .zip(&defaults)
        .map(|(p, default)| {
            let field = ident(&p.rust).to_string();
            match default {
                Some(value) => Some((field, Expr::text(value.clone()))),
                None if !p.required => Some((field, Expr::text("None"))),
                None => None,
            }
        })
        .chain(
            op.body
                .iter()
                .map(|b| (!b.required).then(|| ("body".to_string(), Expr::text("None")))),
        )
        .collect();
    let derive_default = defaults.iter().all(Option::is_none) && default_fields.is_some();
    let checked = api.request_checked(op);
    let derives = match (derive_default, checked) {
        (true, true) => "#[derive(Debug, Clone, Default, PartialEq, runtime::Validate)]",
        (true, false) => "#[derive(Debug, Clone, Default, PartialEq)]",
        (false, true) => "#[derive(Debug, Clone, PartialEq, runtime::Validate)]",
        (false, false) => "#[derive(Debug, Clone, PartialEq)]",
    };
    // What `Validate` checks of a parameter or the body, and a parameter's
    // name in its violations where the field's name is not it.
    let checks_of = |wire: Option<&str>, field: &str, shape: &crate::ir::Shape| {
        let checks = checks(shape, api);
        if !checked || checks.is_empty() {
            return String::new();
        }
        let rename = wire
            .filter(|wire| *wire != field.trim_start_matches("r#"))
            .map(|wire| format!("    #[wire(rename = {})]\n", text::string_literal(wire)))
            .unwrap_or_default();
        format!("{rename}    #[check({})]\n", attribute(&checks))
    };
    let mut out = text::doc_line(&format!("The parameters and body of `{}`.", op.fn_name), "");
    out.push_str(&format!("{cfg_line}{derives}\npub struct {name} {{"));
    if op.params.is_empty() && op.body.is_none() {
        out.push_str("}\n");
    } else {
        out.push('\n');
    }
    for p in &op.params {
        let location = match p.location {
            crate::ir::ParamLocation::Path => "Path",
            crate::ir::ParamLocation::Query if p.style == crate::ir::Style::QueryString => {
                "Query string"
            }
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
        out.push_str(&text::doc_text(&paragraphs, "    "));
        let field = ident(&p.rust).to_string();
        out.push_str(&checks_of(Some(&p.wire), &field, &p.shape));
        out.push_str(&format!("    pub {field}: {},\n", param_type(api, p)));
    }
    if let Some(b) = &op.body {
        let ty = rust_type(&b.shape, MODELS);
        let ty = if b.required {
            ty
        } else {
            format!("Option<{ty}>")
        };
        let what = match &b.media {
            crate::ir::Media::Json => "The JSON request body.".to_string(),
            crate::ir::Media::Form => "The request body, sent as a form.".to_string(),
            crate::ir::Media::Multipart => "The request body, sent as multipart parts.".to_string(),
            crate::ir::Media::Raw(types) if types.iter().any(|t| t == "*/*") => {
                "The request body's bytes, of any media type.".to_string()
            }
            crate::ir::Media::Raw(types) => {
                format!("The request body's bytes: `{}`.", types.join("`, `"))
            }
            crate::ir::Media::Events | crate::ir::Media::Items(_) => {
                "The request body.".to_string()
            }
        };
        out.push_str(&text::doc_text(&[b.doc.clone(), Some(what)], "    "));
        out.push_str(&checks_of(None, "body", &b.shape));
        out.push_str(&format!("    pub body: {ty},\n"));
    }
    if !op.params.is_empty() || op.body.is_some() {
        out.push_str("}\n");
    }
    if let Some(fields) = default_fields.filter(|_| !derive_default) {
        out.push_str(&format!(
            "\n{cfg_line}impl Default for {name} {{\n    /// No parameter set but the spec's defaults.\n    fn default() -> Self {{\n"
        ));
        Expr::Struct {
            path: name.clone(),
            fields,
        }
        .write(&mut out, 8, "", "");
        out.push_str("    }\n}\n");
    }
    pieces.text(&out);
}

/// Whether a response can carry an `ErrorResponse`: an error status, a body of
/// the shared error type (or none), and no header the handler must fill in.
fn takes_error(api: &Api, r: &Response) -> bool {
    let error_status = r.status.is_error();
    let body_fits = match (&r.body, &api.error_type) {
        (None, _) => true,
        (Some(b), Some(e)) => b == e,
        // The error's body is JSON: read as the response's type
        // ([`converts_error_body`]).
        (Some(_), None) => true,
    };
    error_status && body_fits
}

/// Whether an error's body (JSON, where error responses carry bodies of
/// different types) is read as `r`'s body type to make `r`: a body the type
/// does not fit gives the error back.
fn converts_error_body(api: &Api, r: &Response) -> bool {
    api.error_type.is_none() && r.body.as_ref().is_some_and(|b| b.ty != Ty::Json)
}

/// The response enum of an operation whose responses are the same as an
/// earlier one's: an alias of that one's enum.
fn response_alias(op: &Operation, owner: &str, cfg: &str) -> String {
    let docs = text::doc_line(
        &format!(
            "The responses `{}` can give: the same as [`{owner}Response`]'s.",
            op.fn_name
        ),
        "",
    );
    docs + &text::cfg_line(cfg)
        + &text::type_alias(
            &format!("{}Response", op.type_name),
            &format!("{owner}Response"),
        )
}

/// An operation's response enum, its server side (how it is sent, how an
/// error becomes it) and its client side (how an answer is read as it),
/// each under its attribute ([`Gates::response_attrs`]).
fn response(api: &Api, op: &Operation, [server_cfg, client_cfg, cfg]: &[String; 3]) -> String {
    let name = format!("{}Response", op.type_name);
    let mut out = response_enum(op, &name, cfg);
    if let Some(read) = super::reading::read_impl(api, op, &name, client_cfg) {
        out.push('\n');
        out.push_str(&read);
    }
    let declared = declared(api, op);
    out.push_str(&format!(
        "\n{}impl runtime::Response for {name} {{\n    type Error = ErrorResponse;\n\n    \
         fn declared(error: ErrorResponse) -> Result<Self, ErrorResponse> {{\n",
        text::cfg_line(server_cfg)
    ));
    declared.write(&mut out, 8, "", "");
    out.push_str(
        "    }\n\n    fn into_http(self) -> Result<runtime::Outgoing, runtime::Rejection> {\n",
    );
    let arms = into_http_arms(api, op);
    if arms.is_empty() {
        out.push_str("        match self {}\n");
    } else {
        Expr::Match {
            scrutinee: "self".into(),
            arms,
        }
        .write(&mut out, 8, "", "");
    }
    out.push_str("    }\n}\n");
    out
}

/// The response enum of `op`, named `name`: a variant per declared status.
fn response_enum(op: &Operation, name: &str, cfg: &str) -> String {
    // A stream of events is read once: neither cloned nor compared.
    let derives = if op.responses.iter().any(|r| r.media.streams()) {
        "#[derive(Debug)]"
    } else {
        "#[derive(Debug, Clone, PartialEq)]"
    };
    let mut out = text::doc_line(
        &format!(
            "The responses `{}` can give: one variant per status the spec declares.",
            op.fn_name
        ),
        "",
    );
    out.push_str(&format!(
        "{}{derives}\npub enum {name} {{",
        text::cfg_line(cfg)
    ));
    out.push_str(if op.responses.is_empty() { "}\n" } else { "\n" });
    for r in &op.responses {
        let variant = ident(&r.variant);
        let stream = match &r.media {
            Media::Events => {
                "\n\nA stream of events (`text/event-stream`), read as they come.".to_string()
            }
            Media::Items(media) => format!("\n\nA stream of items (`{media}`), read as they come."),
            _ => String::new(),
        };
        out.push_str(&text::doc_text(
            &[Some(format!("`{}`: {}{stream}", r.status, r.doc.trim()))],
            "    ",
        ));
        if let Some(shared) = &r.shared {
            out.push_str(&format!("    {variant}({}),\n", ident(shared)));
        } else if r.named_fields() {
            out.push_str(&format!("    {variant} {{\n"));
            if r.status.carries_status() {
                let doc = match r.status.range() {
                    Some(range) => format!(
                        "The status: {} to {} (another is refused when sent).",
                        range.start(),
                        range.end()
                    ),
                    None => "The status: any that no other response declares.".to_string(),
                };
                out.push_str(&text::doc_line(&doc, "        "));
                out.push_str("        status: runtime::StatusCode,\n");
            }
            out.push_str(&body_and_headers(r, name, "", "        "));
            out.push_str("    },\n");
        } else if let Some(b) = &r.body {
            out.push_str(&format!("    {variant}({}),\n", body_type(r, b, name)));
        } else {
            out.push_str(&format!("    {variant},\n"));
        }
    }
    if !op.responses.is_empty() {
        out.push_str("}\n");
    }
    out
}

/// `declared`'s body: the crate's error as the response the operation
/// declares for its status, where one takes it.
fn declared(api: &Api, op: &Operation) -> Expr {
    let error_arms: Vec<(String, Expr)> = super::by_precedence(&op.responses)
        .into_iter()
        .filter(|r| takes_error(api, r))
        .filter_map(|r| {
            Some((
                super::status_pattern(r.status)?,
                construct_from_error(api, r)?,
            ))
        })
        .collect();
    let otherwise = op
        .responses
        .iter()
        .filter(|r| r.status == Status::Default && takes_error(api, r))
        .find_map(|r| construct_from_error(api, r))
        .unwrap_or_else(|| Expr::text("Err(error)"));
    if error_arms.is_empty() {
        otherwise
    } else {
        let mut arms = error_arms;
        arms.push(("_".to_string(), otherwise));
        Expr::Match {
            scrutinee: "error.status.as_u16()".into(),
            arms,
        }
    }
}

/// `into_http`'s arms: each variant rendered with its status.
fn into_http_arms(api: &Api, op: &Operation) -> Vec<(String, Expr)> {
    op.responses
        .iter()
        .map(|r| {
            let variant = ident(&r.variant);
            let status = status_expr(r.status);
            if r.shared.is_some() {
                return (
                    format!("Self::{variant}(response)"),
                    Expr::text(format!("response.into_http({status})")),
                );
            }
            let build = render_response(api, r, &status);
            let pattern = if r.named_fields() {
                let mut names: Vec<String> = Vec::new();
                if r.status.carries_status() {
                    names.push("status".into());
                }
                if r.body.is_some() {
                    names.push("body".into());
                }
                names.extend(r.headers.iter().map(|h| ident(&h.rust).to_string()));
                format!("Self::{variant} {{ {} }}", names.join(", "))
            } else if r.body.is_some() {
                format!("Self::{variant}(body)")
            } else {
                format!("Self::{variant}")
            };
            (pattern, build)
        })
        .collect()
}

/// The type of a response's body: its shape's, or, for a stream of
/// events, a `runtime::EventStream` of them that `owner` (the response
/// enum) types a reconnect's other answers with.
fn body_type(r: &Response, body: &Shape, owner: &str) -> String {
    let ty = rust_type(body, MODELS);
    match r.media {
        Media::Events => format!("runtime::EventStream<{ty}, {owner}>"),
        Media::Items(_) => format!("runtime::ItemStream<{ty}, {owner}>"),
        _ => ty,
    }
}

/// The fields of a response's body and headers, each preceded by `vis`,
/// at `indent`; `owner` is the type holding them.
fn body_and_headers(r: &Response, owner: &str, vis: &str, indent: &str) -> String {
    let mut out = String::new();
    if let Some(b) = &r.body {
        out.push_str(&format!("{indent}{vis}body: {},\n", body_type(r, b, owner)));
    }
    for h in &r.headers {
        out.push_str(&text::doc_text(
            &[h.doc.clone(), Some(format!("Header `{}`.", h.wire))],
            indent,
        ));
        out.push_str(&format!(
            "{indent}{vis}{}: {},\n",
            ident(&h.rust),
            header_type(h.required, &h.shape)
        ));
    }
    out
}

/// A response several operations share ([`crate::ir::Response::shared`]):
/// its body and headers, how an error becomes it (the glue's), how it is
/// rendered with the status of the variant holding it, and how a client
/// reads it.
fn shared_response(api: &Api, gates: &Gates, shared: &crate::ir::SharedResponse) -> String {
    let r = &shared.response;
    let name = ident(&shared.name).to_string();
    let users = api
        .operations
        .iter()
        .filter(|op| {
            op.responses
                .iter()
                .any(|u| u.shared.as_ref() == Some(&shared.name))
        })
        .map(|op| op.group.as_str());
    let cfg = text::cfg_line(&Gates::attr(gates.groups(users)));
    let docs = text::doc_text(
        &[
            Some(r.doc.clone()),
            Some(
                "The same response for every operation that declares it: each one's response \
                 enum holds it in the variant of its status."
                    .into(),
            ),
        ],
        "",
    );
    let mut out = format!("{docs}{cfg}#[derive(Debug, Clone, PartialEq)]\npub struct {name} {{");
    let fields = body_and_headers(r, &name, "pub ", "    ");
    if fields.is_empty() {
        out.push_str("}\n");
    } else {
        out.push('\n');
        out.push_str(&fields);
        out.push_str("}\n");
    }
    out.push_str(&format!("\n{cfg}impl {name} {{\n"));
    if let Some(read) = read_error(api, r, "Self") {
        out.push_str(
            "    /// The response an error makes: its body, and the headers it\n    \
             /// carries; the error back when it lacks a required one.\n    \
             #[cfg(feature = \"serving\")]\n    \
             pub fn from_error(error: ErrorResponse) -> Result<Self, ErrorResponse> {\n",
        );
        read.write_body(&mut out, 8);
        out.push_str("    }\n\n");
    }
    let mut names: Vec<String> = Vec::new();
    if r.body.is_some() {
        names.push("body".into());
    }
    names.extend(r.headers.iter().map(|h| ident(&h.rust).to_string()));
    let names = if names.is_empty() {
        "{}".to_string()
    } else {
        format!("{{ {} }}", names.join(", "))
    };
    out.push_str(&format!(
        "    /// Renders the response, sent with `status`.\n    \
         #[cfg(feature = \"serving\")]\n    \
         pub fn into_http(\n        self,\n        status: runtime::StatusCode,\n    \
         ) -> Result<runtime::Outgoing, runtime::Rejection> {{\n        \
         let Self {names} = self;\n"
    ));
    render_response(api, r, "status").write_body(&mut out, 8);
    out.push_str(
        "    }\n\n    /// Reads the response from an answer.\n    \
         #[cfg(feature = \"client\")]\n    \
         pub fn read(answer: &runtime::Answer) -> Result<Self, runtime::ClientError> {\n",
    );
    Expr::call(
        "Ok",
        vec![super::reading::read_answer(api, r, "Self", None)],
        "",
    )
    .write(&mut out, 8, "", "");
    out.push_str("    }\n}\n");
    out
}

/// The status a response is sent with: a code's constant; for a range or
/// `default`, the `status` its variant carries.
fn status_expr(status: Status) -> String {
    match status {
        Status::Code(s) => match status_name(s) {
            Some(name) => format!("runtime::StatusCode::{name}"),
            None => format!("runtime::status({s})"),
        },
        Status::Range(class) => format!("runtime::status_in_class(status, {class})?"),
        Status::Default => "status".to_string(),
    }
}

/// The statements rendering a response from its parts, bound to locals
/// of their names (`body`, each header's field, `status` for a range),
/// ending in the rendered response.
fn render_response(api: &Api, r: &Response, status: &str) -> Expr {
    // Only headers are set in place; every body is given the builder.
    let builder_mut = if r.headers.is_empty() { "" } else { "mut " };
    let mut statements = vec![Expr::Stmt(
        format!("let {builder_mut}builder = "),
        Box::new(Expr::call("runtime::respond", vec![Expr::text(status)], "")),
        ";",
    )];
    statements.extend(r.headers.iter().map(|h| {
        let field = ident(&h.rust).to_string();
        // Scalars as text; arrays, objects and JSON headers spelled as
        // the client reads them.
        let set = |value: &str| {
            let mut args = vec![
                Expr::text("&mut builder"),
                Expr::text(text::string_literal(&h.wire)),
            ];
            let callee = if h.json {
                args.push(Expr::text(format!("&{value}")));
                args.push(Expr::text("runtime::Style::Json"));
                "runtime::set_header_styled"
            } else if super::scalar_header(api, &h.shape) {
                args.push(Expr::text(value));
                "runtime::set_header"
            } else {
                args.push(Expr::text(format!("&{value}")));
                args.push(Expr::text("runtime::Style::Simple"));
                "runtime::set_header_styled"
            };
            Expr::Stmt(String::new(), Box::new(Expr::call(callee, args, "")), ";")
        };
        if h.required {
            set(&field)
        } else {
            Expr::Scope {
                head: format!("if let Some(value) = {field}"),
                body: vec![set("value")],
                tail: "",
            }
        }
    }));
    let value = match (&r.body, &r.media) {
        (Some(_), Media::Events) => "Ok(runtime::events(builder, body))".to_string(),
        (Some(_), Media::Items(media)) => format!(
            "Ok(runtime::item_stream(builder, {}, body))",
            text::string_literal(media)
        ),
        (Some(_), Media::Raw(media)) => {
            let media = media
                .first()
                .map_or("application/octet-stream", String::as_str);
            format!(
                "Ok(runtime::bytes(builder, {}, body))",
                text::string_literal(media)
            )
        }
        (Some(_), _) => match &r.json_type {
            Some(media) => format!(
                "runtime::json_as(builder, {}, &body)",
                text::string_literal(media)
            ),
            None => "runtime::json(builder, &body)".to_string(),
        },
        (None, _) => "Ok(runtime::empty(builder))".to_string(),
    };
    Expr::Block(statements, Box::new(Expr::Text(value)))
}

/// An expression of type `Result<Self, ErrorResponse>` building the variant
/// `r` from an `ErrorResponse` named `error`: its headers come from the
/// error's, and an error without a header the variant requires is given
/// back. `None` when a required header's type cannot be read from text.
fn construct_from_error(api: &Api, r: &Response) -> Option<Expr> {
    let variant = ident(&r.variant);
    match &r.shared {
        Some(shared) => {
            // Its type reads the error; `None` when it cannot.
            read_error(api, r, "Self")?;
            Some(Expr::text(format!(
                "{}::from_error(error).map(Self::{variant})",
                ident(shared)
            )))
        }
        None => read_error(api, r, &format!("Self::{variant}")),
    }
}

/// The statements building `r`, as a `Result<T, ErrorResponse>`, with the
/// constructor `ctor` (a variant, or a shared response's `Self`) from an
/// `ErrorResponse` named `error` (an error without a header `r` requires
/// is given back); `None` when a required header's type cannot be read
/// from text.
fn read_error(api: &Api, r: &Response, ctor: &str) -> Option<Expr> {
    let convert = converts_error_body(api, r);
    let mut statements = Vec::new();
    if convert {
        statements.push(Expr::Scope {
            head: "let Some(body) = runtime::error_body(&error.body) else".into(),
            body: vec![Expr::text("return Err(error);")],
            tail: ";",
        });
    }
    let body = if convert { "body" } else { "error.body" };
    if !r.named_fields() {
        let value = match r.body {
            Some(_) => format!("Ok({ctor}({body}))"),
            None => format!("Ok({ctor})"),
        };
        return Some(if statements.is_empty() {
            Expr::Text(value)
        } else {
            Expr::Block(statements, Box::new(Expr::Text(value)))
        });
    }
    for h in &r.headers {
        let (field, wire) = (ident(&h.rust), text::string_literal(&h.wire));
        let readable = super::scalar_header(api, &h.shape) && !h.json;
        statements.push(match (h.required, readable) {
            (true, true) => Expr::Scope {
                head: format!("let Some({field}) = error.header({wire}) else"),
                body: vec![Expr::text("return Err(error);")],
                tail: ";",
            },
            (true, false) => return None,
            (false, true) => Expr::text(format!("let {field} = error.header({wire});")),
            (false, false) => Expr::text(format!("let {field} = None;")),
        });
    }
    let mut fields = Vec::new();
    if r.status.carries_status() {
        fields.push(("status".to_string(), Expr::text("error.status")));
    }
    if r.body.is_some() {
        fields.push(("body".to_string(), Expr::text(body)));
    }
    for h in &r.headers {
        let field = ident(&h.rust).to_string();
        fields.push((field.clone(), Expr::Text(field)));
    }
    let value = Expr::call(
        "Ok",
        vec![Expr::Struct {
            path: ctor.to_string(),
            fields,
        }],
        "",
    );
    Some(Expr::Block(statements, Box::new(value)))
}

fn header_type(required: bool, shape: &Shape) -> String {
    let ty = rust_type(shape, MODELS);
    if required {
        ty
    } else {
        format!("Option<{ty}>")
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

#[cfg(test)]
mod tests {
    #[test]
    fn error_response_is_laid_out_as_prettyplease_prints_it() {
        // The constructor's signature fits its line up to a body type of
        // 28 characters, and is broken after.
        for n in [1, 20, 21, 60] {
            let body = format!("models::{}", "E".repeat(n));
            let written = super::error_response_of(&body);
            let printed = super::super::render::render(&written);
            assert_eq!(written, printed, "body type {body}");
            assert_eq!(
                written.contains("pub fn new(\n"),
                n > 20,
                "body type {body}"
            );
        }
    }
}
