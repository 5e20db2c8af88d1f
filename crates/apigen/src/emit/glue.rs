//! `glue.rs`: the framework-neutral glue. One function per operation turns a
//! request (a `runtime::RequestContext` and its body) into the typed request
//! struct, refusing what does not fit the spec with a `Rejection`, calls the
//! route trait, and renders the typed response as a `runtime::Outgoing`.
//! Each framework's routing (`server.rs` for actix-web, `axum.rs` for axum)
//! serves these functions through its runtime adapter; none of them names a
//! framework.
//!
//! Handlers extract, validate, call the trait and hand the answer to
//! `runtime::answer` (refusals to `runtime::refuse`; both generic over
//! `runtime::Response`, written once in the runtime): an error goes out as
//! the variant its operation declares for the status; an undeclared status,
//! or a body that cannot be serialized, becomes the service's internal
//! error.

use super::gates::Gates;
use super::text::{self, Expr};
use super::{ident, operations::param_default};
use crate::ir::{Api, Operation, ParamLocation, Style, Ty};
use proc_macro2::Ident;

/// The module's doc comment.
pub const DOC: &str = "The framework-neutral glue: request extraction and validation, responses.";

/// What the module imports: `models` when a parameter's default is a
/// model's value (an enum variant), which group features may leave out.
pub fn imports(api: &Api, gates: &Gates) -> Vec<String> {
    let naming_models: Vec<&str> = api
        .operations
        .iter()
        .filter(|op| {
            op.params
                .iter()
                .any(|p| p.shape.names_a_type() && param_default(api, p).is_some())
        })
        .map(|op| op.group.as_str())
        .collect();
    let mut imports = vec!["use super::{operations, runtime};".to_string()];
    if !naming_models.is_empty() {
        imports.push(if gates.on() {
            gates.group_import("use super::models;", naming_models)
        } else {
            "use super::models;".to_string()
        });
    }
    if !api.operations.is_empty() {
        // Only the operations' handlers take the service as an `Arc`: with
        // group features, none is compiled when no group is on.
        let groups = api.operations.iter().map(|op| op.group.as_str());
        imports.push(gates.group_import("use std::sync::Arc;", groups));
    }
    imports
}

/// The route traits a router serves, as its service's bounds: each
/// group's (`operations::Pets`), or with group features each through
/// [`served`] (`glue::served::Pets`), and `Rejections`.
pub fn bounds(api: &Api, gates: &Gates) -> Vec<String> {
    let mut bounds: Vec<String> = api
        .traits
        .iter()
        .map(|t| match gates.on() {
            true => format!("glue::served::{}", ident(&t.name)),
            false => format!("operations::{}", ident(&t.name)),
        })
        .collect();
    bounds.push("Rejections".into());
    if api.operations.iter().any(|op| op.signed) {
        bounds.push("runtime::Signatures".into());
    }
    bounds
}

/// With group features, the module naming the route traits this build
/// serves: a route trait whose feature is off stands for
/// `runtime::FeatureOff`, which every type has, so that a router asks for
/// the traits this build serves, named through a module of their own so
/// that no trait's name meets an item or a type parameter there.
pub fn served(api: &Api, gates: &Gates) -> String {
    let mut served = String::new();
    if !gates.on() {
        return served;
    }
    for t in &api.traits {
        let name = ident(&t.name);
        let on = gates.group(&t.group).unwrap_or_default();
        served.push_str(&format!(
            "    #[cfg({on})]\n    pub use super::super::operations::{name};\n    \
             #[cfg(not({on}))]\n    pub use super::super::runtime::FeatureOff as {name};\n"
        ));
    }
    if served.is_empty() {
        return served;
    }
    format!(
        "\n/// The route traits this build serves: each group's, or\n\
         /// `runtime::FeatureOff` (which every type has) for a group whose\n\
         /// feature is off.\npub mod served {{\n{served}}}\n"
    )
}

/// The module's fixed items: the `Rejections` trait.
pub const HEAD: &str = "\
/// How a request refused before it reaches a handler (a malformed
/// parameter, invalid JSON, an unknown route), or an answer the glue
/// cannot send as it is, is answered.
pub trait Rejections {
    /// The error to send for a rejection; its status should be the
    /// rejection's. [`runtime::RejectionKind::Internal`] rejections
    /// carry a message for logs, not for the client.
    fn reject(&self, rejection: runtime::Rejection) -> operations::ErrorResponse;
}
";

/// The handlers of some operations (the file is written in chunks), as
/// text: each has the same shape, so none is parsed and printed.
pub fn handlers(api: &Api, gates: &Gates, ops: &[Operation]) -> String {
    let mut out = String::new();
    for (i, op) in ops.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        handler(api, gates, op, &mut out);
    }
    out
}

/// What a parameter's value is, for the styled readers.
fn kind(p: &crate::ir::Param) -> &'static str {
    match &p.shape.ty {
        Ty::Array(_) => "runtime::ValueKind::Array",
        Ty::Named(_) | Ty::Map(_) if !is_scalar(p) => "runtime::ValueKind::Object",
        _ => "runtime::ValueKind::Scalar",
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
fn param_value(p: &crate::ir::Param) -> Expr {
    let wire = text::string_literal(&p.wire);
    let explode = super::explode(p.explode);
    let kind = kind(p);
    // A `deepObject` query is read as the form it is written in; every
    // other style is the runtime's variant of the same name.
    let style = match p.style {
        Style::DeepObject => "runtime::Style::Form".to_string(),
        other => format!("runtime::Style::{other:?}"),
    };
    let array = matches!(p.shape.ty, Ty::Array(_));
    let call = |callee: &str, args: &[&str]| {
        Expr::call(callee, args.iter().map(|a| Expr::text(*a)).collect(), "?")
    };
    let request = "request";
    if p.style == Style::QueryString {
        return call("runtime::query_string_json", &[request, &wire]);
    }
    if p.style == Style::Json {
        return match p.location {
            ParamLocation::Path => call(
                "runtime::path_styled",
                &[request, &wire, kind, &style, "runtime::Explode::No"],
            ),
            ParamLocation::Query => call("query.styled", &[&wire, kind, &style]),
            ParamLocation::Header => call("runtime::header_json", &[request, &wire]),
            ParamLocation::Cookie => call("runtime::cookie_json", &[request, &wire]),
        };
    }
    match p.location {
        ParamLocation::Path if is_scalar(p) && p.style == Style::Simple => {
            call("runtime::path", &[request, &wire])
        }
        ParamLocation::Path => call(
            "runtime::path_styled",
            &[request, &wire, kind, &style, explode],
        ),
        ParamLocation::Query => match p.style {
            Style::DeepObject if p.union => call("query.deep_union", &[&wire]),
            Style::DeepObject => call("query.deep", &[&wire]),
            Style::Form if p.union => call("query.any", &[&wire]),
            Style::Form if array => call("query.many", &[&wire, explode]),
            Style::Form if is_scalar(p) => call("query.one", &[&wire]),
            Style::Form if p.explode => call("query.exploded_object", &[]),
            _ => call("query.styled", &[&wire, kind, &style]),
        },
        ParamLocation::Header if is_scalar(p) => call("runtime::header", &[request, &wire]),
        ParamLocation::Header => call("runtime::header_styled", &[request, &wire, kind, explode]),
        ParamLocation::Cookie if is_scalar(p) => call("runtime::cookie", &[request, &wire]),
        ParamLocation::Cookie => call("runtime::cookie_styled", &[request, &wire, kind]),
    }
}

/// The field of the request struct reading a parameter: its value, with
/// the spec's default, or refused when required and absent.
fn param_field(api: &Api, p: &crate::ir::Param) -> Expr {
    let wire = &p.wire;
    let value = param_value(p);
    // A query parameter that admits null (and has no default) may be
    // sent as `null`, where that is no text of its type (JSON, a
    // number, an object...).
    let text = matches!(p.shape.ty, Ty::String | Ty::Base64)
        && !matches!(p.style, Style::Json | Style::QueryString);
    let nullable = p.location == ParamLocation::Query
        && p.style != Style::QueryString
        && p.shape.nullable
        && !text;
    let default = param_default(api, p);
    let value = if nullable && default.is_none() {
        Expr::IfElse {
            cond: format!("query.null({})", text::string_literal(wire)),
            then: Box::new(Expr::text("None")),
            otherwise: Box::new(value),
        }
    } else {
        value
    };
    let what = match p.location {
        ParamLocation::Path => return value,
        ParamLocation::Query if p.style == Style::QueryString => {
            format!("the query string (`{wire}`)")
        }
        ParamLocation::Query => format!("query parameter `{wire}`"),
        ParamLocation::Header => format!("header `{wire}`"),
        ParamLocation::Cookie => format!("cookie `{wire}`"),
    };
    if let Some(default) = default {
        if default.contains("to_string") {
            value.then(format!(".unwrap_or_else(|| {default})"))
        } else {
            value.then(format!(".unwrap_or({default})"))
        }
    } else if p.required
        && p.location == ParamLocation::Header
        && wire.eq_ignore_ascii_case("authorization")
    {
        Expr::call("runtime::credentials", vec![value], "?")
    } else if p.required {
        Expr::call(
            "runtime::required",
            vec![value, Expr::text(text::string_literal(&what))],
            "?",
        )
    } else {
        value
    }
}

/// The field of the request struct reading its body.
fn body_field(b: &crate::ir::Body) -> Expr {
    let limit = match b.limit.and_then(|n| usize::try_from(n).ok()) {
        Some(n) => n.to_string(),
        None => "runtime::DEFAULT_BODY_LIMIT".to_string(),
    };
    let args = |more: Option<String>| {
        let mut args = vec![
            Expr::text("request"),
            Expr::text("payload"),
            Expr::text(limit.clone()),
        ];
        args.extend(more.map(Expr::Text));
        args
    };
    let read = match &b.media {
        // A request never streams events (lowering makes none).
        crate::ir::Media::Json if !b.also.is_empty() => {
            let also: Vec<String> = b
                .also
                .iter()
                .map(|a| format!("runtime::Also::{a:?}"))
                .collect();
            let also = format!("&[{}]", also.join(", "));
            Expr::call("runtime::json_body_or", args(Some(also)), "").then(".await?")
        }
        crate::ir::Media::Json | crate::ir::Media::Events | crate::ir::Media::Items(_) => {
            Expr::call("runtime::json_body", args(None), "").then(".await?")
        }
        crate::ir::Media::Form => Expr::call("runtime::form_body", args(None), "").then(".await?"),
        crate::ir::Media::Multipart => {
            Expr::call("runtime::multipart_body", args(None), "").then(".await?")
        }
        crate::ir::Media::Raw(media) => {
            let media: Vec<String> = media.iter().map(|m| text::string_literal(m)).collect();
            let media = format!("&[{}]", media.join(", "));
            Expr::call("runtime::raw_body", args(Some(media)), "")
                .then(".await?")
                .then(".map(|b| b.to_vec())")
        }
    };
    if b.required {
        read.then(".ok_or_else(runtime::missing_body)?")
    } else {
        read
    }
}

/// A signed operation's first step: its body read and its signature
/// verified (`runtime::verified`), or the request refused with a 401.
fn verification(op: &Operation, resp: &str, out: &mut String) {
    let limit = match op.body.as_ref().and_then(|b| b.limit) {
        Some(n) => n.to_string(),
        None => "runtime::DEFAULT_BODY_LIMIT".to_string(),
    };
    let verify = Expr::call(
        "runtime::verified",
        vec![
            Expr::text("&context"),
            Expr::text("payload"),
            Expr::text(limit),
            Expr::text("service.as_ref()"),
        ],
        "",
    )
    .then(".await");
    let binding = if op.body.is_some() {
        "payload"
    } else {
        "_payload"
    };
    verify.write(out, 4, "let verified = ", ";");
    out.push_str(&format!("    let {binding} = match verified {{\n"));
    out.push_str("        Ok(payload) => payload,\n");
    let refuse = Expr::call(
        format!("return runtime::refuse::<{resp}>"),
        vec![Expr::text("rejection"), Expr::text("reject")],
        "",
    );
    refuse.write_arm(out, 8, "Err(rejection)");
    out.push_str("    };\n");
}

/// A handler's signature: its name, the service's bounds (a signed
/// operation's include `runtime::Signatures`), and its parameters.
fn signature(op: &Operation, name: &str, trait_name: Ident, out: &mut String) {
    let has_body = op.body.is_some();
    let generics = if op.signed {
        format!("S: operations::{trait_name} + Rejections + runtime::Signatures")
    } else {
        format!("S: operations::{trait_name} + Rejections")
    };
    let head = format!("pub(super) async fn {name}<{generics}>(");
    if head.len() <= text::WIDTH {
        out.push_str(&head);
        out.push('\n');
    } else {
        out.push_str(&format!(
            "pub(super) async fn {name}<\n    {generics},\n>(\n"
        ));
    }
    out.push_str("    service: Arc<S>,\n    context: runtime::RequestContext,\n");
    let payload = if has_body || op.signed {
        "payload"
    } else {
        "_payload"
    };
    out.push_str(&format!("    {payload}: impl runtime::Payload,\n"));
    out.push_str(") -> runtime::Outgoing {\n");
}

fn handler(api: &Api, gates: &Gates, op: &Operation, out: &mut String) {
    let cfg = text::cfg_line(&Gates::attr(gates.group(&op.group)));
    let name = &ident(&op.fn_name).to_string();
    let trait_name = ident(gates.route_trait(&op.group).map_or("", |t| t.name.as_str()));
    let req = format!("operations::{}Request", op.type_name);
    let resp = format!("operations::{}Response", op.type_name);
    let has_body = op.body.is_some();
    // The pairs of the query string, for the parameters read from them
    // (not the one that is the whole query string).
    let needs_query = op
        .params
        .iter()
        .any(|p| p.location == ParamLocation::Query && p.style != Style::QueryString);

    out.push_str(&text::doc_line(&format!("`{} {}`", op.method, op.path), ""));
    out.push_str(&cfg);
    if op.deprecated {
        out.push_str(
            "#[allow(\n    deprecated,\n    reason = \"the glue serves a deprecated operation until it is removed from the spec\"\n)]\n",
        );
    }
    signature(op, name, trait_name, out);

    // An operation with nothing to extract does not look at the request.
    let mut params = Vec::new();
    if !op.params.is_empty() || has_body {
        params.push(("request: &runtime::RequestContext", "&context"));
    }
    if has_body {
        params.push(("payload: impl runtime::Payload", "payload"));
    }
    let extract = if has_body {
        "async fn extract("
    } else {
        "fn extract("
    };
    let returns = Expr::generic(
        "Result",
        vec![Expr::text(req.clone()), Expr::text("runtime::Rejection")],
    );
    if params.is_empty() {
        returns.write(out, 4, &format!("{extract}) -> "), " {");
    } else {
        out.push_str(&format!("    {extract}\n"));
        for (param, _) in &params {
            out.push_str(&format!("        {param},\n"));
        }
        returns.write(out, 4, ") -> ", " {");
    }
    if needs_query {
        out.push_str("        let query = runtime::Query::parse(request.query_string());\n");
    }
    if op.params.is_empty() && op.body.is_none() {
        out.push_str(&format!("        let parsed = {req} {{}};\n"));
    } else {
        out.push_str(&format!("        let parsed = {req} {{\n"));
        for p in &op.params {
            param_field(api, p).write(out, 12, &format!("{}: ", ident(&p.rust)), ",");
        }
        if let Some(b) = &op.body {
            body_field(b).write(out, 12, "body: ", ",");
        }
        out.push_str("        };\n");
    }
    if api.request_checked(op) {
        out.push_str("        runtime::Validate::validate(&parsed)?;\n");
    }
    out.push_str("        Ok(parsed)\n    }\n");
    out.push_str("    let reject = |rejection| service.reject(rejection);\n");
    if op.signed {
        verification(op, &resp, out);
    }
    let args: Vec<&str> = params.iter().map(|(_, arg)| *arg).collect();
    let await_ = if has_body { ".await" } else { "" };
    out.push_str(&format!(
        "    match extract({}){await_} {{\n",
        args.join(", ")
    ));
    let answer = Expr::call(
        "runtime::answer",
        vec![
            Expr::call(
                format!("service.{name}"),
                vec![Expr::text("parsed"), Expr::text("context")],
                "",
            )
            .then(".await"),
            Expr::text("reject"),
        ],
        "",
    );
    answer.write_arm(out, 8, "Ok(parsed)");
    let refuse = Expr::call(
        format!("runtime::refuse::<{resp}>"),
        vec![Expr::text("rejection"), Expr::text("reject")],
        "",
    );
    refuse.write_arm(out, 8, "Err(rejection)");
    out.push_str("    }\n}\n");
}
