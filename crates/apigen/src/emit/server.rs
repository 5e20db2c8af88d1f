//! `server.rs`: the actix-web glue. Registers a route per operation, turns each
//! request into its typed request struct (refusing what does not fit the spec
//! with a `Rejection`), calls the route trait and renders the typed response.
//!
//! `configure_with(cfg, service, layer)` registers each operation's route
//! through `runtime::serve`, which attaches the operation's `&'static
//! runtime::Operation` to the request and then runs the caller's middleware
//! (`layer()`), so middleware knows the operation the router chose. Handlers
//! extract, validate, call the trait and hand the answer to `runtime::answer`
//! (refusals to `runtime::refuse`; both generic over `runtime::Response`,
//! written once in the runtime): an error goes out as the variant its operation
//! declares for the status; an undeclared status, or a body that cannot be
//! serialized, becomes the service's internal error. 404 and 405 answers pass
//! through the layer too. One resource serves each path shape (templates that
//! differ only in parameter names are one route to the router): `serve` names
//! the matched values after the operation's own template, and of several
//! operations on one shape and method each but the last is guarded by its typed
//! path parameters (`runtime::segment_is`). A group whose feature is off is
//! stood in for by `runtime::FeatureOff`, so `configure` keeps one signature.

use super::gates::Gates;
use super::text::{self, Expr};
use super::{ident, operations::param_default};
use crate::ir::{Api, Operation, ParamLocation, Style, Ty};
use quote::quote;
use std::collections::HashMap;

/// The module's doc comment.
pub const DOC: &str = "actix-web glue: routes, request extraction and validation, responses.";

/// What the module imports: `metadata` when there are routes, `models`
/// when a parameter's default is a model's value (an enum variant); both
/// only for routes, which group features may leave out.
pub fn imports(api: &Api, gates: &Gates) -> Vec<String> {
    let every_group = api.operations.iter().map(|op| op.group.as_str());
    let naming_models: Vec<&str> = api
        .operations
        .iter()
        .filter(|op| {
            op.params.iter().any(|p| {
                p.shape.names_a_type() && super::operations::param_default(api, p).is_some()
            })
        })
        .map(|op| op.group.as_str())
        .collect();
    let mut imports = if gates.on() {
        let mut imports = vec!["use super::{operations, runtime};".to_string()];
        if !api.operations.is_empty() {
            imports.push(gates.group_import("use super::metadata;", every_group));
        }
        if !naming_models.is_empty() {
            imports.push(gates.group_import("use super::models;", naming_models));
        }
        imports
    } else {
        match (api.operations.is_empty(), naming_models.is_empty()) {
            (true, _) => vec!["use super::{operations, runtime};".to_string()],
            (false, true) => vec!["use super::{metadata, operations, runtime};".to_string()],
            (false, false) => {
                vec!["use super::{metadata, models, operations, runtime};".to_string()]
            }
        }
    };
    imports.push("use actix_web::{web, HttpRequest, HttpResponse};".into());
    imports
}

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

/// The module's fixed items: `Rejections`, `configure` and
/// `configure_with` (bounded by the route traits this build serves, with
/// the resources), and `not_found`.
const HEAD: &str = include_str!("templates/server_head.rs.in");

/// Everything but the handlers: the `Rejections` trait, the routing
/// (`configure`) and the answer for unknown paths, as text.
pub fn head(api: &Api, gates: &Gates) -> String {
    // With group features, a route trait whose feature is off stands for
    // `runtime::FeatureOff`, which every type has: `configure` asks for the
    // traits this build serves, named through a module of their own so
    // that no trait's name meets an item or a type parameter here.
    let mut out = String::new();
    let mut bounds: Vec<String> = Vec::new();
    let mut served = String::new();
    for t in &api.traits {
        let name = ident(&t.name);
        if gates.on() {
            let on = gates
                .group(&t.group)
                .map(|p| text::compact(&p))
                .unwrap_or_default();
            served.push_str(&format!(
                "    #[cfg({on})]\n    pub use super::super::operations::{name};\n    \
                 #[cfg(not({on}))]\n    pub use super::super::runtime::FeatureOff as {name};\n"
            ));
            bounds.push(format!("served::{name}"));
        } else {
            bounds.push(format!("operations::{name}"));
        }
    }
    if !served.is_empty() {
        out.push_str(
            "/// The route traits this build serves: each group's, or\n\
             /// `runtime::FeatureOff` (which every type has) for a group whose\n\
             /// feature is off.\nmod served {\n",
        );
        out.push_str(&served);
        out.push_str("}\n\n");
    }
    bounds.push("Rejections".into());
    bounds.push("'static".into());
    // One bound per line when they do not fit on one, as rustfmt writes
    // them (a route trait per group: hundreds for a large document).
    let bounds = if 7 + bounds.iter().map(|b| b.len() + 3).sum::<usize>() <= text::WIDTH {
        bounds.join(" + ")
    } else {
        bounds.join("\n        + ")
    };
    out.push_str(&text::fill(
        HEAD,
        &[("bounds", &bounds), ("resources", &resources(api, gates))],
    ));
    out
}

/// `configure_with`'s resources: one per path shape (templates that differ
/// only in their parameters' names are one route to the router), static
/// paths before templated ones so that a literal segment wins over a
/// parameter.
fn resources(api: &Api, gates: &Gates) -> String {
    let mut shapes: Vec<(String, Vec<&Operation>)> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for op in &api.operations {
        let shape = crate::ir::path_shape(&op.path);
        match seen.get(&shape) {
            Some(&i) => shapes[i].1.push(op),
            None => {
                seen.insert(shape.clone(), shapes.len());
                shapes.push((shape, vec![op]));
            }
        }
    }
    shapes.sort_by_key(|(shape, _)| shape.matches('{').count());
    let mut resources = String::new();
    for (_, ops) in &shapes {
        let path = text::string_literal(&ops[0].path);
        let ops = dispatch_order(ops);
        if gates.on() {
            gated_resource(gates, &path, &ops, &mut resources);
            continue;
        }
        resources.push_str(&format!(
            "    cfg.service(\n        web::resource({path})\n"
        ));
        for o in &ops {
            route(o, &ops).write(&mut resources, 12, ".route(", ")");
        }
        let allow = text::string_literal(&methods(&ops).join(", "));
        resources.push_str("            .default_service(\n");
        method_not_allowed(&allow, 16, &mut resources);
        resources.push_str("            ),\n    );\n");
    }
    resources
}

/// An operation's route on its resource: its method (guarded, when it
/// shares its shape and method with others, by its typed path
/// parameters), its handler and its metadata, under the layer.
fn route(o: &Operation, ops: &[&Operation]) -> Expr {
    // actix-web has a route constructor for each method of HTTP's own but
    // OPTIONS; any other (`QUERY`, `LINK`) is named.
    let method = match o.method.as_str() {
        "OPTIONS" => "web::method(actix_web::http::Method::OPTIONS)".to_string(),
        "GET" | "PUT" | "POST" | "DELETE" | "HEAD" | "PATCH" | "TRACE" => {
            format!("web::{}()", o.method.to_ascii_lowercase())
        }
        other => format!("runtime::route_for({})", text::string_literal(other)),
    };
    // Of several operations on one shape and method, each but the last
    // takes only a path its typed parameters read.
    let shares = ops.iter().any(|p| p.method == o.method && p.id != o.id);
    let last = ops
        .iter()
        .rev()
        .find(|p| p.method == o.method)
        .map(|p| &p.id);
    let method = match (shares && last != Some(&o.id))
        .then(|| path_guard(o))
        .flatten()
    {
        Some(guard) => format!("{method}.guard(actix_web::guard::fn_guard({guard}))"),
        None => method,
    };
    Expr::call(
        "runtime::serve",
        vec![
            Expr::text(format!("{method}.to({}::<S>)", ident(&o.fn_name))),
            Expr::text(format!("metadata::{}", ident(&o.const_name))),
            Expr::text("layer()"),
        ],
        "",
    )
}

/// A resource's default service at `indent`: the 405 naming the methods
/// it allows (`allow`, an expression).
fn method_not_allowed(allow: &str, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    out.push_str(&format!(
        "{pad}web::to(|service: web::Data<S>, request: HttpRequest| async move {{\n"
    ));
    Expr::call(
        "runtime::method_not_allowed",
        vec![
            Expr::text("&request"),
            Expr::text(allow),
            Expr::text("|rejection| service.reject(rejection)"),
        ],
        "",
    )
    .write(out, indent + 4, "", "");
    out.push_str(&format!("{pad}}})\n{pad}.wrap(layer()),\n"));
}

/// The operations of one path shape in the order their routes are tried:
/// of those sharing a method, the ones whose path parameters are typed
/// (a number, a uuid...) first, so that free text takes what they refuse.
fn dispatch_order<'o>(ops: &[&'o Operation]) -> Vec<&'o Operation> {
    let typed = |o: &Operation| o.params.iter().filter(|p| p.types_its_segment()).count();
    let mut ordered = ops.to_vec();
    ordered.sort_by_key(|o| std::cmp::Reverse(typed(o)));
    ordered
}

/// The guard that takes a request whose path parameters read as `op`'s
/// types, for an operation that shares its route; `None` when none is
/// typed.
fn path_guard(op: &Operation) -> Option<String> {
    let segments: Vec<&str> = op.path.trim_end_matches('/').split('/').collect();
    let checks: Vec<String> = op
        .params
        .iter()
        .filter(|p| p.types_its_segment())
        .filter_map(|p| {
            let whole = format!("{{{}}}", p.wire);
            let at = segments.iter().position(|s| *s == whole)?;
            let ty = text::compact(&super::rust_type(&p.shape, &quote!(models::)));
            Some(format!(
                "runtime::segment_is::<{ty}>(context, {})",
                segments.len() - 1 - at
            ))
        })
        .collect();
    (!checks.is_empty()).then(|| format!("|context| {}", checks.join(" && ")))
}

/// The methods of a resource's operations, each once, in order.
fn methods<'o>(ops: &[&'o Operation]) -> Vec<&'o str> {
    let mut methods: Vec<&str> = Vec::new();
    for o in ops {
        if !methods.contains(&o.method.as_str()) {
            methods.push(&o.method);
        }
    }
    methods
}

/// A resource whose routes are compiled in by their groups' features: each
/// route under its own, the resource under any of them, and the 405's
/// `Allow` naming the methods this build serves.
fn gated_resource(gates: &Gates, path: &str, ops: &[&Operation], out: &mut String) {
    let mut features: Vec<String> = Vec::new();
    let mut groups: Vec<&str> = Vec::new();
    for o in ops {
        if !groups.contains(&o.group.as_str()) {
            groups.push(&o.group);
            features.extend(gates.group(&o.group).map(|p| text::compact(&p)));
        }
    }
    let any = if features.len() == 1 {
        features[0].clone()
    } else {
        format!("any({})", features.join(", "))
    };
    let on = |o: &Operation| {
        gates
            .group(&o.group)
            .map(|p| text::compact(&p))
            .unwrap_or_default()
    };
    out.push_str(&format!("    #[cfg({any})]\n"));
    Expr::call("web::resource", vec![Expr::text(path)], "").write(out, 4, "let resource = ", ";");
    for o in ops {
        out.push_str(&format!("    #[cfg({})]\n", on(o)));
        route(o, ops).write(out, 4, "let resource = resource.route(", ");");
    }
    let allow = if groups.len() == 1 {
        text::string_literal(&methods(ops).join(", "))
    } else {
        let methods: Vec<String> = ops
            .iter()
            .map(|o| format!("(cfg!({}), {})", on(o), text::string_literal(&o.method)))
            .collect();
        format!("&runtime::allowed(&[{}])", methods.join(", "))
    };
    out.push_str(&format!(
        "    #[cfg({any})]\n    cfg.service(\n        resource.default_service(\n"
    ));
    method_not_allowed(&allow, 12, out);
    out.push_str("        ),\n    );\n");
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
    let default = param_default(api, p).map(|d| text::compact(&d));
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
    let generics = format!("S: operations::{trait_name} + Rejections + 'static");
    let head = format!("async fn {name}<{generics}>(");
    if head.len() <= text::WIDTH {
        out.push_str(&head);
        out.push('\n');
    } else {
        out.push_str(&format!("async fn {name}<\n    {generics},\n>(\n"));
    }
    out.push_str("    service: web::Data<S>,\n    request: HttpRequest,\n");
    if has_body {
        out.push_str("    payload: web::Payload,\n");
    }
    out.push_str(") -> HttpResponse {\n");

    // An operation with nothing to extract does not look at the request.
    let mut params = Vec::new();
    if !op.params.is_empty() || has_body {
        params.push(("request: &HttpRequest", "&request"));
    }
    if has_body {
        params.push(("payload: web::Payload", "payload"));
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
    let args: Vec<&str> = params.iter().map(|(_, arg)| *arg).collect();
    let await_ = if has_body { ".await" } else { "" };
    out.push_str(&format!(
        "    match extract({}){await_} {{\n",
        args.join(", ")
    ));
    out.push_str("        Ok(parsed) => {\n");
    out.push_str("            let context = runtime::RequestContext::new(request);\n");
    Expr::call(
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
    )
    .write(out, 12, "", "");
    out.push_str("        }\n");
    let refuse = Expr::call(
        format!("runtime::refuse::<{resp}>"),
        vec![Expr::text("rejection"), Expr::text("reject")],
        "",
    );
    refuse.write_arm(out, 8, "Err(rejection)");
    out.push_str("    }\n}\n");
}
