//! Webhooks and callbacks: the requests the API sends rather than serves.
//!
//! Each is lowered as an operation that its receiver serves (parameters,
//! body, responses and lifecycle by the same passes as any operation's), at
//! a path of its own:
//! - a 3.1 webhook at `/{name}`, its key under `webhooks`;
//! - a 3.0 callback at the literal part of its URL expression after the
//!   runtime expression (`{$request.body#/url}/events` at `/events`,
//!   `{$request.body#/url}` at `/`): the subscriber's URL is the base.
//!
//! Two that would share a method and a path are told apart by name
//! (`/{name}`), said in a note. `x-webhook-signature: standard-webhooks`,
//! on the document or on the webhook's operation (which wins), says that
//! deliveries are signed as Standard Webhooks say; `none` says they are
//! not.

use super::operations::{OperationNames, Route};
use super::Lowerer;
use crate::diag::Pointer;
use crate::ir::{Api, HookSource, Operation, RouteTrait, Webhook};
use crate::names::{sanitize, Case};
use openapiv3::PathItem;
use std::collections::HashSet;

/// The group of every webhook's operation: the receiver's one route trait.
const RECEIVER_GROUP: &str = "webhooks";

/// The extension that says how deliveries are signed.
const SIGNATURE: &str = "x-webhook-signature";

/// A callback an operation declares, waiting to be lowered once every
/// operation is.
pub(super) struct DeclaredCallback<'a> {
    /// The operationId of the operation declaring it.
    pub operation: String,
    pub name: String,
    pub expression: String,
    pub item: &'a PathItem,
    pub at: Pointer,
}

/// One webhook or callback operation on its way to being lowered.
struct Hook<'a> {
    name: String,
    source: HookSource,
    id: String,
    method: String,
    path: String,
    item: &'a PathItem,
    item_at: Pointer,
    op: &'a openapiv3::Operation,
    at: Pointer,
}

impl<'a> Lowerer<'a> {
    /// Keeps an operation's callbacks for [`Lowerer::hooks`].
    pub(super) fn declare_callbacks(
        &mut self,
        id: &str,
        op: &'a openapiv3::Operation,
        at: &Pointer,
    ) {
        for (name, callback) in &op.callbacks {
            for (expression, item) in callback {
                self.callbacks.push(DeclaredCallback {
                    operation: id.to_string(),
                    name: name.clone(),
                    expression: expression.clone(),
                    item,
                    at: at.join("callbacks").join(name).join(expression),
                });
            }
        }
    }

    /// The document's webhooks, then the callbacks its operations
    /// declared, each as the operation its receiver serves.
    pub(super) fn hooks(&mut self, webhooks: &'a [(String, PathItem)]) -> Vec<Webhook> {
        let document_signed = self.signature(&self.doc.extensions, &Pointer::root(), false);
        let callbacks = std::mem::take(&mut self.callbacks);
        let mut pending = Vec::new();
        for (name, item) in webhooks {
            let item_at = Pointer::root().join("webhooks").join(name);
            for (method, op) in item.iter() {
                pending.push(Hook {
                    name: name.clone(),
                    source: HookSource::Webhook,
                    id: op.operation_id.clone().unwrap_or_else(|| name.clone()),
                    method: method.to_ascii_uppercase(),
                    path: format!("/{}", segment(name)),
                    item,
                    item_at: item_at.clone(),
                    op,
                    at: item_at.join(method),
                });
            }
        }
        for declared in callbacks {
            let path = match received_at(&declared.expression) {
                Some(path) => path,
                None => {
                    let path = format!("/{}", segment(&declared.name));
                    self.note(
                        &declared.at,
                        format!(
                            "the URL expression `{}` has no literal path to receive the \
                             callback at: it is received at `{path}`",
                            declared.expression
                        ),
                    );
                    path
                }
            };
            for (method, op) in declared.item.iter() {
                let id = op
                    .operation_id
                    .clone()
                    .unwrap_or_else(|| declared.name.clone());
                pending.push(Hook {
                    name: declared.name.clone(),
                    source: HookSource::Callback {
                        operation: declared.operation.clone(),
                        expression: declared.expression.clone(),
                    },
                    id,
                    method: method.to_ascii_uppercase(),
                    path: path.clone(),
                    item: declared.item,
                    item_at: declared.at.clone(),
                    op,
                    at: declared.at.join(method),
                });
            }
        }
        let mut names = OperationNames::default();
        let mut ids = HashSet::new();
        let mut routes = HashSet::new();
        let mut out = Vec::new();
        for mut hook in pending {
            let mut id = hook.id.clone();
            let mut n = 2;
            while !ids.insert(id.clone()) {
                id = format!("{}{n}", hook.id);
                n += 1;
            }
            hook.id = id;
            if !routes.insert((hook.method.clone(), hook.path.clone())) {
                let own = format!("/{}", segment(&hook.id));
                self.note(
                    &hook.at,
                    format!(
                        "`{} {}` is received by an earlier webhook: this one is received at `{own}`",
                        hook.method, hook.path
                    ),
                );
                routes.insert((hook.method.clone(), own.clone()));
                hook.path = own;
            }
            let signed = self.signature(&hook.op.extensions, &hook.at, document_signed);
            if let Some(webhook) = self.hook(hook, signed, &mut names) {
                out.push(webhook);
            }
        }
        // Callbacks a webhook declares are sent by its receiver, which no
        // generated code is: said, not dropped.
        for nested in std::mem::take(&mut self.callbacks) {
            self.note(
                &nested.at,
                format!(
                    "callback `{}` of the webhook `{}` is not generated: the receiver, not \
                     the API, would send it",
                    nested.name, nested.operation
                ),
            );
        }
        out
    }

    fn hook(
        &mut self,
        hook: Hook<'a>,
        signed: bool,
        names: &mut OperationNames,
    ) -> Option<Webhook> {
        let route = Route {
            id: hook.id,
            method: hook.method,
            path: hook.path,
            item_at: hook.item_at,
            path_params: &hook.item.parameters,
            op: hook.op,
            at: hook.at,
            type_suffix: "Webhook",
        };
        let mut operation = self.operation(&route, names)?;
        // The API's own security is not the receiver's: only what the
        // webhook declares applies.
        if hook.op.security.is_none() {
            operation.security = Vec::new();
        }
        operation.group = RECEIVER_GROUP.to_string();
        operation.signed = signed;
        Some(Webhook {
            name: hook.name,
            source: hook.source,
            operation,
        })
    }

    /// `x-webhook-signature` in `extensions`, or `inherited` without it.
    fn signature(
        &mut self,
        extensions: &indexmap::IndexMap<String, serde_json::Value>,
        at: &Pointer,
        inherited: bool,
    ) -> bool {
        match extensions.get(SIGNATURE) {
            None => inherited,
            Some(serde_json::Value::String(s)) if s == "standard-webhooks" => true,
            Some(serde_json::Value::String(s)) if s == "none" => false,
            Some(other) => {
                self.error(
                    &at.join(SIGNATURE),
                    format!(
                        "`{SIGNATURE}` is {other}: it takes `standard-webhooks` (deliveries \
                         are signed) or `none`"
                    ),
                );
                inherited
            }
        }
    }
}

/// The API its webhooks make, for the `webhooks` module: its operations
/// are the webhooks, served by a receiver and called by a sender, grouped
/// in one route trait, `Receiver`; it shares the API's types. `None` for
/// an API without webhooks.
pub fn receiver(api: &Api) -> Option<Api> {
    if api.webhooks.is_empty() {
        return None;
    }
    let operations: Vec<Operation> = api.webhooks.iter().map(|w| w.operation.clone()).collect();
    let error_type = super::passes::shared_error_type(&operations);
    // Only the schemes a webhook asks for: the API's own are not its
    // receivers'.
    let security_schemes = api
        .security_schemes
        .iter()
        .filter(|s| {
            operations
                .iter()
                .flat_map(|op| op.security.iter().flatten())
                .any(|(name, _)| *name == s.name)
        })
        .cloned()
        .collect();
    Some(Api {
        title: format!("{} webhooks", api.title),
        version: api.version.clone(),
        description: None,
        base_path: String::new(),
        servers: Vec::new(),
        tags: Vec::new(),
        types: api.types.clone(),
        operations,
        traits: vec![RouteTrait {
            name: "Receiver".to_string(),
            group: RECEIVER_GROUP.to_string(),
            feature: RECEIVER_GROUP.to_string(),
            doc: None,
            summary: Some(format!(
                "webhooks {} sends (its `webhooks`, and its operations' `callbacks`)",
                api.title
            )),
        }],
        common_headers: Vec::new(),
        error_type,
        security_schemes,
        default_security: Vec::new(),
        webhooks: Vec::new(),
        plans: Vec::new(),
        checked: api.checked.clone(),
        shared_responses: Vec::new(),
    })
}

/// A name as one path segment: as written when it is made of unreserved
/// characters, else in kebab case.
fn segment(name: &str) -> String {
    let unreserved = |c: char| c.is_ascii_alphanumeric() || "-._~".contains(c);
    if !name.is_empty() && name.chars().all(unreserved) {
        name.to_string()
    } else {
        sanitize(name, Case::Snake).replace('_', "-")
    }
}

/// Where a callback is received, relative to the subscriber's URL: the
/// literal path after the URL expression's leading runtime expression, or
/// an absolute URL's path. `None` when the path itself holds an expression.
fn received_at(expression: &str) -> Option<String> {
    let rest = if let Some(inner) = expression.strip_prefix('{') {
        &inner[inner.find('}')? + 1..]
    } else {
        let (_, after_scheme) = expression.split_once("://")?;
        after_scheme.find('/').map_or("", |i| &after_scheme[i..])
    };
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    if path.contains(['{', '}']) {
        return None;
    }
    if path.is_empty() {
        return Some("/".to_string());
    }
    path.starts_with('/').then(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callbacks_are_received_at_the_literal_path_of_their_url() {
        assert_eq!(received_at("{$request.body#/url}").as_deref(), Some("/"));
        assert_eq!(
            received_at("{$request.body#/callbackUrl}/events").as_deref(),
            Some("/events")
        );
        assert_eq!(
            received_at("{$request.query.cb}?id={$request.body#/id}").as_deref(),
            Some("/")
        );
        assert_eq!(
            received_at("https://hooks.example.com/in/orders").as_deref(),
            Some("/in/orders")
        );
        assert_eq!(received_at("http://example.com").as_deref(), Some("/"));
        // A path built from the request cannot be served at one place.
        assert_eq!(
            received_at("{$request.body#/url}/{$request.body#/id}"),
            None
        );
        assert_eq!(received_at("{$request.body#/url}events"), None);
        assert_eq!(received_at("$request.body#/url"), None);
    }

    #[test]
    fn names_are_one_path_segment() {
        assert_eq!(segment("newPet"), "newPet");
        assert_eq!(segment("pet.created"), "pet.created");
        assert_eq!(segment("new pet/{id}"), "new-pet-id");
    }
}
