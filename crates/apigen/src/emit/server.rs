//! `server.rs`: the actix-web routing. Registers a route per operation, each
//! serving the operation's framework-neutral handler (`glue.rs`) through the
//! runtime's actix adapter (`runtime::on_actix::to`).
//!
//! `configure_with(cfg, service, layer)` registers each operation's route
//! through `runtime::serve`, which attaches the operation's `&'static
//! runtime::Operation` to the request and then runs the caller's middleware
//! (`layer()`), so middleware knows the operation the router chose. 404 and
//! 405 answers pass through the layer too. One resource serves each path
//! shape (templates that differ only in parameter names are one route to the
//! router, [`path_shapes`]): `serve` names the matched values after the
//! operation's own template, and of several operations on one shape and
//! method each but the last is guarded by its typed path parameters
//! (`runtime::segment_is`). A group whose feature is off is stood in for by
//! `runtime::FeatureOff` (`glue::served`), so `configure` keeps one
//! signature.

use super::gates::Gates;
use super::ident;
use super::text::{self, Expr};
use crate::ir::{Api, Operation};
use std::collections::HashMap;

/// The module's doc comment.
pub const DOC: &str = "actix-web glue: each operation's route, serving its handler.";

/// What the module imports: what a router imports, and actix-web's names.
pub fn imports(api: &Api, gates: &Gates) -> Vec<String> {
    let mut imports = router_imports(api, gates);
    imports.push("use actix_web::{web, HttpRequest, HttpResponse};".into());
    imports
}

/// What a router imports: `runtime`; the route traits its bounds name,
/// through `operations` or with group features `glue::served`; and for
/// its routes, which group features may leave out, the handlers (`glue`)
/// and `metadata`, and `models` when a route's guard names a model.
pub fn router_imports(api: &Api, gates: &Gates) -> Vec<String> {
    let mut modules = Vec::new();
    let routes = !api.operations.is_empty();
    if !api.traits.is_empty() || (routes && !gates.on()) {
        modules.push("glue");
    }
    if routes && !gates.on() {
        modules.push("metadata");
    }
    let naming_models: Vec<&str> = api
        .operations
        .iter()
        .filter(|op| path_guard(op, "context").is_some_and(|g| g.contains("models::")))
        .map(|op| op.group.as_str())
        .collect();
    if !naming_models.is_empty() && !gates.on() {
        modules.push("models");
    }
    if !api.traits.is_empty() && !gates.on() {
        modules.push("operations");
    }
    modules.push("runtime");
    let mut imports = vec![match modules.as_slice() {
        [one] => format!("use super::{one};"),
        _ => format!("use super::{{{}}};", modules.join(", ")),
    }];
    if gates.on() && routes {
        let every_group = api.operations.iter().map(|op| op.group.as_str());
        imports.push(gates.group_import("use super::metadata;", every_group));
        if !naming_models.is_empty() {
            imports.push(gates.group_import("use super::models;", naming_models));
        }
    }
    imports
}

/// The module's fixed items: `Rejections` (the glue's, named here too),
/// `configure` and `configure_with` (bounded by the route traits this
/// build serves, with the resources), and `not_found`.
const HEAD: &str = include_str!("templates/server_head.rs.in");

/// The module: the routing (`configure`) and the answer for unknown
/// paths, as text.
pub fn head(api: &Api, gates: &Gates) -> String {
    let mut bounds = super::glue::bounds(api, gates);
    bounds.push("'static".into());
    let mut out = String::new();
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

/// A resource's path pattern: the root (`/`) is served with and without
/// its slash, so that under a scope (`web::scope("/hooks")`, the spec's
/// base path) `/hooks` reaches it as `/hooks/` does: a callback's URL is
/// the subscriber's own, whichever it ends with.
fn resource_path(path: &str) -> String {
    if path == "/" {
        "[\"\", \"/\"]".to_string()
    } else {
        text::string_literal(path)
    }
}

/// `configure_with`'s resources: one per path shape (templates that differ
/// only in their parameters' names are one route to the router), static
/// paths before templated ones so that a literal segment wins over a
/// parameter.
fn resources(api: &Api, gates: &Gates) -> String {
    let shapes = path_shapes(api);
    let mut resources = String::new();
    for ops in &shapes {
        let path = resource_path(&ops[0].path);
        if gates.on() {
            gated_resource(gates, &path, ops, &mut resources);
            continue;
        }
        resources.push_str(&format!(
            "    cfg.service(\n        web::resource({path})\n"
        ));
        for o in ops {
            route(o, ops).write(&mut resources, 12, ".route(", ")");
        }
        let allow = text::string_literal(&methods(ops).join(", "));
        resources.push_str("            .default_service(\n");
        method_not_allowed(&allow, 16, &mut resources);
        resources.push_str("            ),\n    );\n");
    }
    resources
}

/// The operations of each path shape (templates that differ only in
/// their parameters' names are one route to a router), static paths
/// before templated ones so that a literal segment wins over a parameter,
/// each shape's operations in the order their routes are tried.
pub fn path_shapes(api: &Api) -> Vec<Vec<&Operation>> {
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
    shapes
        .into_iter()
        .map(|(_, ops)| dispatch_order(&ops))
        .collect()
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
        other => format!(
            "runtime::on_actix::route_for({})",
            text::string_literal(other)
        ),
    };
    let method = match guard(o, ops, "context") {
        Some(guard) => format!("{method}.guard(actix_web::guard::fn_guard({guard}))"),
        None => method,
    };
    Expr::call(
        "runtime::serve",
        vec![
            Expr::call(
                "runtime::on_actix::to",
                vec![
                    Expr::text(method),
                    Expr::text(format!("glue::{}::<S>", ident(&o.fn_name))),
                ],
                "",
            ),
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
        "runtime::on_actix::method_not_allowed",
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

/// The guard of `o`'s route among `ops` (one path shape's operations), as
/// a closure of `argument`: of several operations on one shape and
/// method, each but the last takes only a path its typed parameters read.
pub fn guard(o: &Operation, ops: &[&Operation], argument: &str) -> Option<String> {
    let shares = ops.iter().any(|p| p.method == o.method && p.id != o.id);
    let last = ops
        .iter()
        .rev()
        .find(|p| p.method == o.method)
        .map(|p| &p.id);
    (shares && last != Some(&o.id))
        .then(|| path_guard(o, argument))
        .flatten()
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
pub fn path_guard(op: &Operation, argument: &str) -> Option<String> {
    let segments: Vec<&str> = op.path.trim_end_matches('/').split('/').collect();
    let checks: Vec<String> = op
        .params
        .iter()
        .filter(|p| p.types_its_segment())
        .filter_map(|p| {
            let whole = format!("{{{}}}", p.wire);
            let at = segments.iter().position(|s| *s == whole)?;
            let ty = super::rust_type(&p.shape, "models::");
            let check = match argument {
                "context" => "runtime::segment_is",
                _ => "runtime::path_segment_is",
            };
            Some(format!(
                "{check}::<{ty}>({argument}, {})",
                segments.len() - 1 - at
            ))
        })
        .collect();
    (!checks.is_empty()).then(|| format!("|{argument}| {}", checks.join(" && ")))
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
            features.extend(gates.group(&o.group));
        }
    }
    let any = super::gates::any(features);
    let on = |o: &Operation| gates.group(&o.group).unwrap_or_default();
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
