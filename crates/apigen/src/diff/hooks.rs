//! Webhooks and callbacks, compared the way their receivers read them.
//!
//! A webhook turns the roles of an operation around: the API sends the
//! request and the subscriber serves it. So its payload (the request body,
//! and the headers the API sends) is read by the receiver as a response is
//! read by a client: it may not loosen (a property removed or made
//! optional, a type changed, a new enum value). And the receiver's answer
//! is read by the API as a request is read by a server: the API must keep
//! taking what receivers answer (a property it now requires breaks them).
//! Levels come from the webhook's stability, deprecation and sunset, as an
//! operation's do; a callback promises no more than the operation that
//! subscribes to it, so the less stable of the two counts.
//!
//! A webhook is matched by its key under `webhooks` and its method; a
//! callback by its name, the operation that declares it (its method and
//! path, so renaming the operationId changes nothing), its URL expression
//! and its method.

use super::compare::{accepts, find_param, Compare};
use super::ctx::{Ctx, Dir};
use super::rules::{Place, Rule};
use super::same::Same;
use super::{Finding, Level};
use crate::ir::*;
use std::collections::HashSet;

/// Every finding about the webhooks and callbacks of `base` and `rev`.
pub(super) fn webhooks(base: &Api, rev: &Api, today: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut same = Same::new(base, rev);
    let rev_keys: Vec<Key> = rev.webhooks.iter().map(|w| Key::of(w, rev)).collect();
    let mut matched = vec![false; rev.webhooks.len()];
    for hook in &base.webhooks {
        let key = Key::of(hook, base);
        let found = rev_keys
            .iter()
            .enumerate()
            .position(|(i, k)| !matched[i] && *k == key);
        let Some(i) = found else {
            let mut finding = super::matching::removed(&hook.operation, today);
            finding.level = finding
                .rule
                .severity()
                .level(Level::of_breaking(key.stability));
            finding.operation = key.label.clone();
            finding.message = finding
                .message
                .replacen("is removed", "is no longer sent", 1);
            out.push(finding);
            continue;
        };
        matched[i] = true;
        let (base_op, rev_op) = (&hook.operation, &rev.webhooks[i].operation);
        let mut compare = Compare {
            base,
            rev,
            today,
            operation: key.label.clone(),
            stability: key.stability,
            sunset: rev_op.sunset.clone().or_else(|| base_op.sunset.clone()),
            level: Level::of_breaking(key.stability),
            out: &mut out,
            seen: HashSet::new(),
            same: &mut same,
        };
        compare.lifecycle(base_op, rev_op);
        compare.payload(base_op, rev_op);
        compare.answers(base_op, rev_op);
    }
    for ((hook, key), _) in rev
        .webhooks
        .iter()
        .zip(rev_keys)
        .zip(matched)
        .filter(|(_, matched)| !matched)
    {
        out.push(Finding {
            rule: Rule::ApiAdded,
            level: Rule::ApiAdded
                .severity()
                .level(Level::of_breaking(key.stability)),
            operation: key.label,
            stability: Some(key.stability),
            sunset: hook.operation.sunset.clone(),
            base: None,
            revision: Some(hook.operation.pointer.clone()),
            message: format!("new {} `{}`", key.kind, hook.name),
        });
    }
    out
}

/// What a webhook is matched by, and how findings name it.
#[derive(Debug)]
struct Key {
    /// `webhook` or `callback`.
    kind: &'static str,
    /// Its name, method, and for a callback the subscribing operation and
    /// the URL expression.
    identity: (String, String, Option<(String, String)>),
    /// `webhook orderPlaced`, `callback storeEvent of POST /webhooks`; the
    /// method follows unless it is POST.
    label: String,
    /// The stability its receivers were promised.
    stability: Stability,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.identity == other.identity
    }
}

impl Key {
    fn of(hook: &Webhook, api: &Api) -> Key {
        let op = &hook.operation;
        let method = if op.method == "POST" {
            String::new()
        } else {
            format!(" ({})", op.method)
        };
        match &hook.source {
            HookSource::Webhook => Key {
                kind: "webhook",
                identity: (hook.name.clone(), op.method.clone(), None),
                label: format!("webhook {}{method}", hook.name),
                stability: op.stability,
            },
            HookSource::Callback {
                operation,
                expression,
            } => {
                let parent = api.operations.iter().find(|o| o.id == *operation);
                let subscriber = parent.map_or_else(
                    || operation.clone(),
                    |parent| format!("{} {}", parent.method, parent.path),
                );
                Key {
                    kind: "callback",
                    identity: (
                        hook.name.clone(),
                        op.method.clone(),
                        Some((subscriber.clone(), expression.clone())),
                    ),
                    label: format!("callback {} of {subscriber}{method}", hook.name),
                    stability: parent.map_or(op.stability, |p| p.stability.min(op.stability)),
                }
            }
        }
    }
}

impl<'a> Compare<'a, '_> {
    /// What the API sends: the payload and the headers, read by receivers
    /// as a client reads a response.
    fn payload(&mut self, base: &'a Operation, rev: &'a Operation) {
        match (&base.body, &rev.body) {
            (None, None) => {}
            (None, Some(rev_body)) => self.report(
                Rule::ResponseBodyAdded,
                "",
                &rev_body.pointer,
                "a payload is sent now".into(),
            ),
            (Some(base_body), None) => self.report(
                Rule::ResponseBodyRemoved,
                &base_body.pointer,
                "",
                "the payload is no longer sent".into(),
            ),
            (Some(base_body), Some(rev_body)) => {
                if !accepts(&base_body.media, &rev_body.media) {
                    self.report(
                        Rule::ResponseMediaTypeChanged,
                        &base_body.pointer,
                        &rev_body.pointer,
                        "the payload's media type changed".into(),
                    );
                } else {
                    let ctx = Ctx::new(Dir::Response, Place::ResponseBody, "the payload".into());
                    self.shape(
                        &base_body.shape,
                        &rev_body.shape,
                        &ctx,
                        &base_body.pointer,
                        &rev_body.pointer,
                    );
                }
            }
        }
        for base_param in &base.params {
            let what = format!("header `{}` of the payload", base_param.wire);
            match find_param(rev, base, base_param) {
                None if base_param.required => self.report(
                    Rule::ResponseRequiredHeaderRemoved,
                    &base_param.pointer,
                    "",
                    format!("{what} is no longer sent"),
                ),
                None => self.report(
                    Rule::ResponseOptionalHeaderRemoved,
                    &base_param.pointer,
                    "",
                    format!("{what} is no longer declared"),
                ),
                Some(rev_param) => {
                    if base_param.required && !rev_param.required {
                        self.report(
                            Rule::ResponseHeaderBecameOptional,
                            &base_param.pointer,
                            &rev_param.pointer,
                            format!("{what} became optional"),
                        );
                    }
                    let ctx = Ctx::new(Dir::Response, Place::ResponseHeader, what);
                    self.shape(
                        &base_param.shape,
                        &rev_param.shape,
                        &ctx,
                        &base_param.pointer,
                        &rev_param.pointer,
                    );
                }
            }
        }
    }

    /// What receivers answer, read by the API as a server reads a request:
    /// each answer's body, status by status.
    fn answers(&mut self, base: &'a Operation, rev: &'a Operation) {
        for base_answer in &base.responses {
            let Some(rev_answer) = rev
                .responses
                .iter()
                .find(|r| r.status == base_answer.status)
            else {
                continue;
            };
            let status = base_answer.status.to_string();
            match (&base_answer.body, &rev_answer.body) {
                (None, Some(_)) => self.report(
                    Rule::RequestBodyAddedRequired,
                    &base_answer.pointer,
                    &rev_answer.pointer,
                    format!("a {status} answer must have a body now"),
                ),
                (Some(base_body), Some(rev_body)) => {
                    let ctx = Ctx::new(
                        Dir::Request,
                        Place::RequestBody,
                        format!("the receiver's {status} answer"),
                    );
                    self.shape(
                        base_body,
                        rev_body,
                        &ctx,
                        &base_answer.pointer,
                        &rev_answer.pointer,
                    );
                }
                _ => {}
            }
        }
    }
}
