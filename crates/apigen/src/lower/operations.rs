//! Operations: each path's methods, named and assembled from the passes
//! of their own rooms (`parameters`, `responses`, `lifecycle`,
//! `security`).

use super::Lowerer;
use crate::diag::Pointer;
use crate::ir::*;
use crate::load::OtherOperation;
use crate::names::{sanitize, Case, Namer, GLUE_FUNCTIONS};
use openapiv3::{Parameter, ReferenceOr};
use std::collections::{BTreeMap, HashMap};

impl<'a> Lowerer<'a> {
    /// Every operation, in document order: by path, the methods' own
    /// fields, then the methods the model has no field for (`others`).
    pub(super) fn operations(&mut self, others: &'a [OtherOperation]) -> Vec<Operation> {
        let mut ops = Vec::new();
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let mut successors: Vec<(Pointer, String)> = Vec::new();
        let mut names = OperationNames::default();
        for (path, item) in self.doc.paths.iter() {
            let pat = Pointer::root().join("paths").join(path);
            let item = match item {
                ReferenceOr::Item(item) => item,
                // References that name a path item were inlined when the
                // document was read: this one names nothing.
                ReferenceOr::Reference { reference } => {
                    self.error(&pat, format!("unresolved reference `{reference}`"));
                    continue;
                }
            };
            let own = item
                .iter()
                .map(|(method, op)| (method.to_ascii_uppercase(), pat.join(method), op));
            let others = others
                .iter()
                .filter(|o| o.path == *path)
                .map(|o| (o.method.clone(), o.at.clone(), &o.op));
            for (method, oat, op) in own.chain(others) {
                let mut id = op
                    .operation_id
                    .clone()
                    .unwrap_or_else(|| derived_operation_id(&method, path));
                if let Some(first) = seen.get(&id) {
                    // Strictly invalid, and common: the second is served
                    // under a name of its own.
                    let mut n = 2;
                    while seen.contains_key(&format!("{id}{n}")) {
                        n += 1;
                    }
                    let renamed = format!("{id}{n}");
                    self.assume(
                        &oat.join("operationId"),
                        format!("duplicate operationId `{id}`: first used at {first}"),
                        &format!("this operation is generated as `{renamed}`"),
                    );
                    id = renamed;
                }
                seen.insert(id.clone(), oat.to_string());
                if let Some(successor) = op.extensions.get("x-successor").and_then(|v| v.as_str()) {
                    successors.push((oat.join("x-successor"), successor.to_string()));
                }
                let route = Route {
                    id,
                    method,
                    path: path.clone(),
                    item_at: pat.clone(),
                    path_params: &item.parameters,
                    op,
                    at: oat,
                    type_suffix: "",
                };
                if let Some(op) = self.operation(&route, &mut names) {
                    ops.push(op);
                }
            }
        }
        self.note_shared_routes(&ops);
        for (at, successor) in successors {
            if !seen.contains_key(&successor) {
                let mark = self.errors.len();
                self.error(
                    &at,
                    format!("`x-successor` names `{successor}`, which is not an operationId"),
                );
                // The operation that names it keeps the problem too.
                let problem = self.errors[mark..].to_vec();
                let here = at.to_string();
                if let Some(op) = ops
                    .iter_mut()
                    .find(|op| here.starts_with(&format!("{}/", op.pointer)))
                {
                    op.lifecycle_problems
                        .extend(problem.into_iter().map(|diagnostic| LifecycleProblem {
                            annotation: Annotation::Successor,
                            diagnostic,
                        }));
                }
                self.skip_since(mark, "a lifecycle annotation");
            }
        }
        ops
    }

    /// Operations whose templates differ only in parameter names share a
    /// route (OpenAPI forbids such templates; documents have them): the
    /// glue tells them apart by their typed path parameters. Where two of
    /// one method have none to tell them by, the first takes every request,
    /// and a note says so.
    fn note_shared_routes(&mut self, ops: &[Operation]) {
        // The first untyped operation of each method and path shape.
        let mut first: HashMap<(&str, String), &Operation> = HashMap::new();
        for later in ops {
            if later.params.iter().any(|p| p.types_its_segment()) {
                continue;
            }
            let key = (later.method.as_str(), crate::ir::path_shape(&later.path));
            let first = *first.entry(key).or_insert(later);
            if first.path != later.path {
                let at = Pointer::from_ref(&later.pointer).unwrap_or_else(Pointer::root);
                self.note(
                    &at,
                    format!(
                        "`{} {}` has the route of `{} {}`, and no typed path parameter tells \
                         them apart: requests go to `{}`",
                        later.method, later.path, first.method, first.path, first.id
                    ),
                );
            }
        }
    }

    /// One operation, from its route: names, security, lifecycle,
    /// parameters, body and responses, each lowered by its own pass. In a
    /// lenient run an operation that cannot be expressed is left out.
    pub(super) fn operation(
        &mut self,
        route: &Route<'a>,
        names: &mut OperationNames,
    ) -> Option<Operation> {
        let (id, op, at) = (route.id.as_str(), route.op, &route.at);
        let errors_before = self.errors.len();
        let type_name = names
            .types
            .unique(sanitize(id, Case::Pascal) + route.type_suffix);
        let fn_name = names.fns.unique(sanitize(id, Case::Snake));
        let const_name = names.consts.unique(sanitize(id, Case::ScreamingSnake));
        let security = match &op.security {
            Some(own) => self.requirements(own, &at.join("security")),
            None => self.default_security.clone(),
        };
        let lifecycle = self.lifecycle(id, op, at);
        let mut field_names = Namer::new();
        field_names.reserve("body");
        let params = self.parameters(route, &type_name, &mut field_names);
        let body = match &op.request_body {
            None => None,
            Some(body) => self.request_body(body, &at.join("requestBody"), &type_name),
        };
        let responses = self.responses(route, &type_name);
        let paging = self.paging(route, &params, &responses);
        if self.skip_since(errors_before, &format!("operation `{id}`")) {
            return None;
        }
        self.declare_callbacks(id, op, at);
        Some(Operation {
            id: id.to_string(),
            fn_name,
            type_name,
            method: route.method.clone(),
            path: route.path.to_string(),
            pointer: at.to_string(),
            const_name,
            tag: op.tags.first().cloned().unwrap_or_default(),
            tags: op.tags.clone(),
            // Decided once every operation is known (`passes::groups`).
            group: String::new(),
            summary: op.summary.clone(),
            description: op.description.clone(),
            deprecated: op.deprecated,
            deprecated_since: lifecycle.deprecated_since,
            sunset: lifecycle.sunset,
            successor: lifecycle.successor,
            stability: lifecycle.stability,
            security,
            params,
            body,
            responses,
            paging,
            hide_try_it: op
                .extensions
                .get("x-hideTryItPanel")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
            same_responses_as: None,
            lifecycle_problems: lifecycle.problems,
            signed: false,
        })
    }
}

/// Where an operation stands: its id (unique by now), method and path, the
/// parameters its path item declares for every method, the operation
/// itself and its pointer.
pub(super) struct Route<'a> {
    pub id: String,
    /// As a request names it: `GET`, `QUERY`, `LINK`.
    pub method: String,
    pub path: String,
    /// Where its path item stands (`/paths/~1pets`, `/webhooks/newPet`).
    pub item_at: Pointer,
    pub path_params: &'a [ReferenceOr<Parameter>],
    pub op: &'a openapiv3::Operation,
    pub at: Pointer,
    /// What its request and response types' prefix ends with: `Webhook`
    /// for a webhook's, so that its inline payload's model is not taken
    /// for an operation's.
    pub type_suffix: &'static str,
}

/// The names handed out to operations, each unique in its own namespace.
pub(super) struct OperationNames {
    /// Request and response type prefixes.
    types: Namer,
    /// Trait methods and handlers.
    fns: Namer,
    /// Metadata constants: `getPet` and `get_pet` must not both be `GET_PET`.
    consts: Namer,
}

impl Default for OperationNames {
    fn default() -> Self {
        OperationNames {
            types: Namer::reserving(&["ErrorResponse"]),
            fns: Namer::reserving(GLUE_FUNCTIONS),
            consts: Namer::new(),
        }
    }
}

/// `get /pets/{petId}/photos` -> `getPetsPetIdPhotos`: stable names for
/// documents without operationIds.
pub(super) fn derived_operation_id(method: &str, path: &str) -> String {
    let mut id = method.to_ascii_lowercase();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let segment = segment.trim_start_matches('{').trim_end_matches('}');
        id.push_str(&sanitize(segment, Case::Pascal));
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_are_stable_and_readable() {
        assert_eq!(
            derived_operation_id("get", "/pets/{petId}/photos"),
            "getPetsPetIdPhotos"
        );
        assert_eq!(derived_operation_id("post", "/"), "post");
    }
}
