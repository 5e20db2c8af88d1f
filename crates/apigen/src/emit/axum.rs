//! `axum.rs`: the axum routing. `router_with(service, layer)` builds an
//! `axum::Router` with a route per path shape, each a
//! `runtime::on_axum::resource` holding the operations served there: their
//! metadata and their framework-neutral handlers (`glue.rs`), and, for
//! several of one method on one shape, the guard that reads their typed
//! path parameters (as the actix-web routing's guards do). The resource
//! attaches each operation to its requests before the caller's layer runs,
//! and answers a method it does not serve with 405; a path no route
//! matches is the router's fallback, 404, under the layer too.

use super::gates::Gates;
use super::text;
use super::{ident, server};
use crate::ir::{Api, Operation};

/// The module's doc comment.
pub const DOC: &str = "axum glue: each operation's route, serving its handler.";

/// What the module imports: what the router's bounds and routes use.
pub fn imports(api: &Api, gates: &Gates) -> Vec<String> {
    let mut imports = server::router_imports(api, gates);
    imports.push("use std::sync::Arc;".to_string());
    imports
}

/// The module's items: `Rejections` (the glue's, named here too),
/// `router` and `router_with`, as text for prettyplease to lay out (the
/// bounds and routes grow with the document).
pub fn items(api: &Api, gates: &Gates) -> String {
    let bounds = super::glue::bounds(api, gates).join(" + ");
    // Shapes that differ only within a segment (`{name}.json`,
    // `{name}.xml`) are one route to axum.
    let mut resources: Vec<(String, Vec<&Operation>)> = Vec::new();
    for ops in server::path_shapes(api) {
        let path = axum_path(&ops[0].path);
        match resources.iter_mut().find(|(p, _)| *p == path) {
            Some((_, same)) => same.extend(ops),
            None => resources.push((path, ops)),
        }
    }
    let routes: String = resources
        .iter()
        .map(|(path, ops)| resource(gates, path, ops))
        .collect();
    format!(
        "pub use super::glue::Rejections;

/// An `axum::Router` serving every operation with `service`.
/// Paths are relative to the spec's server URL: nest it
/// (`Router::nest`) to serve under a base path.
pub fn router<S>(service: Arc<S>) -> ::axum::Router
where
    S: {bounds} + Send + Sync + 'static,
{{
    router_with(service, runtime::axum::Identity::new())
}}

/// As [`router`], with `layer` around every operation's route, and
/// around the answers for unknown paths (404) and methods (405).
/// The layer runs once the route is matched: the request's
/// extensions hold the operation it serves
/// (`runtime::axum::operation_of(&request)`; `None` for 404 and
/// 405), so nothing has to match paths again.
pub fn router_with<S>(service: Arc<S>, layer: impl runtime::axum::Layer) -> ::axum::Router
where
    S: {bounds} + Send + Sync + 'static,
{{
    let router = ::axum::Router::new();
    {routes}
    router.fallback_service(runtime::on_axum::not_found(&service, &layer, <S as Rejections>::reject))
}}
"
    )
}

/// The statement adding one path shape's route to `router`: its
/// operations as one array, each under its group's feature when groups are
/// features, and the whole route under any of them.
fn resource(gates: &Gates, path: &str, ops: &[&Operation]) -> String {
    let path = text::string_literal(path);
    let serves: Vec<String> = ops
        .iter()
        .map(|o| {
            let cfg = Gates::attr(gates.group(&o.group));
            format!("{cfg}\n{}", serve(o, ops))
        })
        .collect();
    let serves = serves.join(", ");
    let mut groups: Vec<&str> = Vec::new();
    for o in ops {
        if !groups.contains(&o.group.as_str()) {
            groups.push(&o.group);
        }
    }
    let any = Gates::attr(gates.groups(groups.iter().copied()));
    format!(
        "{any}
        let router = router.route(
            {path},
            runtime::on_axum::resource(&service, &layer, [{serves}], <S as Rejections>::reject),
        );\n"
    )
}

/// One operation of a resource: its metadata and handler, and its guard
/// when it shares its method with another operation of the shape.
fn serve(o: &Operation, ops: &[&Operation]) -> String {
    let serve = format!(
        "runtime::on_axum::serve(metadata::{}, glue::{}::<S>)",
        ident(&o.const_name),
        ident(&o.fn_name)
    );
    match server::guard(o, ops, "path") {
        Some(guard) => format!("{serve}.guard({guard})"),
        None => serve,
    }
}

/// A template as axum's router reads it: the same `{name}` segments, with
/// a parameter that is not a whole segment (`/files/{name}.json`), which
/// axum cannot match, taking the whole segment (the glue reads the value
/// by the operation's own template).
fn axum_path(template: &str) -> String {
    template
        .split('/')
        .map(|segment| {
            let name = segment
                .split_once('{')
                .and_then(|(_, rest)| rest.split_once('}'))
                .map(|(name, _)| name);
            match name {
                Some(name) => format!("{{{name}}}"),
                None => segment.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}
