//! How a list operation pages: its `x-pagination`, checked against the
//! operation's parameters and its success response's schema, or, without
//! one, the two shapes that say it unambiguously (a list body with a
//! `Link` header; a `data` list with `has_more` and a `starting_after`
//! parameter). Nothing else is guessed.
//!
//! ```yaml
//! x-pagination:
//!   next: link                                  # the Link header's rel="next"
//!   # or {cursor: PARAM, from: /POINTER}        # a cursor in the body
//!   # or {cursor: PARAM, fromLastItem: /POINTER} # the last item's field
//!   # or {page: PARAM, start: 1}                # page numbers
//!   # or {offset: PARAM}                        # item offsets
//!   items: /data          # where the items are (default: the body is the list)
//!   hasMore: /has_more    # a boolean saying more pages follow (optional)
//!   limit: limit          # the page-size parameter (optional)
//! ```

use super::operations::Route;
use super::Lowerer;
use crate::diag::Pointer;
use crate::ir::{PageNext, Paging, Param, ParamLocation, Response, Shape, Status, Ty, TypeKind};
use serde_json::Value;

impl Lowerer<'_> {
    /// The operation's paging, declared or inferred; `None` (after an
    /// error, for a declaration that does not fit) when it does not page.
    pub(super) fn paging(
        &mut self,
        route: &Route<'_>,
        params: &[Param],
        responses: &[Response],
    ) -> Option<Paging> {
        let at = route.at.join("x-pagination");
        let success = responses
            .iter()
            .find(|r| matches!(r.status, Status::Code(200..=299)) && r.body.is_some());
        match route.op.extensions.get("x-pagination") {
            Some(declared) => {
                let Some(success) = success else {
                    self.error(
                        &at,
                        "a paging operation needs a success response with a body",
                    );
                    return None;
                };
                self.declared_paging(declared, &at, params, success)
            }
            None => {
                let paging = self.inferred_paging(route, params, success?)?;
                self.note(
                    &route.at,
                    format!(
                        "operation `{}` pages by {} (inferred: it has no `x-pagination`)",
                        route.id,
                        paging.describe()
                    ),
                );
                Some(paging)
            }
        }
    }

    fn declared_paging(
        &mut self,
        declared: &Value,
        at: &Pointer,
        params: &[Param],
        success: &Response,
    ) -> Option<Paging> {
        let body = success.body.as_ref()?;
        let text = |key: &str| declared.get(key).and_then(Value::as_str);
        let Some(object) = declared.as_object() else {
            self.error(at, "`x-pagination` must be an object");
            return None;
        };
        if let Some(unknown) = object
            .keys()
            .find(|k| !["next", "items", "hasMore", "limit"].contains(&k.as_str()))
        {
            self.error(
                &at.join(unknown),
                format!("`x-pagination` has no `{unknown}`: it takes `next`, `items`, `hasMore` and `limit`"),
            );
            return None;
        }
        let items = text("items").unwrap_or_default().to_string();
        let Some(item) = self.items_at(body, &items) else {
            self.error(
                &at.join("items"),
                format!(
                    "`{}` is not a list in the success response's body",
                    if items.is_empty() { "the body" } else { &items }
                ),
            );
            return None;
        };
        let next_at = at.join("next");
        let next = match declared.get("next") {
            Some(Value::String(link)) if link == "link" => PageNext::Link,
            Some(Value::Object(next)) => {
                let text = |key: &str| next.get(key).and_then(Value::as_str).map(str::to_string);
                match (text("cursor"), text("page"), text("offset")) {
                    (Some(param), None, None) => match (text("from"), text("fromLastItem")) {
                        (Some(from), None) => PageNext::Cursor { param, from },
                        (None, Some(field)) => PageNext::LastItem { param, field },
                        _ => {
                            self.error(&next_at, "a cursor comes `from` a pointer of the body, or `fromLastItem`, a pointer of the last item");
                            return None;
                        }
                    },
                    (None, Some(param), None) => PageNext::Page {
                        param,
                        start: next.get("start").and_then(Value::as_u64).unwrap_or(1),
                    },
                    (None, None, Some(param)) => PageNext::Offset { param },
                    _ => {
                        self.error(&next_at, "`next` names one of `cursor`, `page` or `offset`");
                        return None;
                    }
                }
            }
            _ => {
                self.error(
                    &next_at,
                    "`next` is `link`, or an object naming a `cursor`, `page` or `offset` parameter",
                );
                return None;
            }
        };
        // Every name and pointer must stand for something.
        match &next {
            PageNext::Link => {}
            PageNext::Cursor { param, from } => {
                self.require_query(params, param, &next_at)?;
                if self.shape_at(body, from).is_none() {
                    self.error(
                        &next_at.join("from"),
                        format!("the body has nothing at `{from}`"),
                    );
                    return None;
                }
            }
            PageNext::LastItem { param, field } => {
                self.require_query(params, param, &next_at)?;
                if self.shape_at(&item, field).is_none() {
                    self.error(
                        &next_at.join("fromLastItem"),
                        format!("an item has nothing at `{field}`"),
                    );
                    return None;
                }
            }
            PageNext::Page { param, .. } | PageNext::Offset { param } => {
                self.require_query(params, param, &next_at)?;
            }
        }
        let has_more = text("hasMore").map(str::to_string);
        if let Some(flag) = &has_more {
            if self.shape_at(body, flag).is_none_or(|s| s.ty != Ty::Bool) {
                self.error(
                    &at.join("hasMore"),
                    format!("the body has no boolean at `{flag}`"),
                );
                return None;
            }
        }
        let limit = text("limit").map(str::to_string);
        if let Some(limit) = &limit {
            self.require_query(params, limit, &at.join("limit"))?;
        }
        Some(Paging {
            next,
            items,
            item,
            has_more,
            limit,
            inferred: false,
        })
    }

    /// `Some` when the operation has the query parameter `name`; else
    /// `None`, after an error at `at`.
    fn require_query(&mut self, params: &[Param], name: &str, at: &Pointer) -> Option<()> {
        if has_query(params, name) {
            Some(())
        } else {
            self.error(at, format!("the operation has no query parameter `{name}`"));
            None
        }
    }

    /// The two unambiguous shapes: a list body whose response declares a
    /// `Link` header; a `data` list beside a boolean `has_more`, with a
    /// `starting_after` parameter and items that have an `id`.
    fn inferred_paging(
        &mut self,
        route: &Route<'_>,
        params: &[Param],
        success: &Response,
    ) -> Option<Paging> {
        if route.method != "GET" {
            return None;
        }
        let body = success.body.as_ref()?;
        let limit = has_query(params, "limit").then(|| "limit".to_string());
        let link = success
            .headers
            .iter()
            .any(|h| h.wire.eq_ignore_ascii_case("link"));
        if link {
            if let Some(item) = self.items_at(body, "") {
                return Some(Paging {
                    next: PageNext::Link,
                    items: String::new(),
                    item,
                    has_more: None,
                    limit,
                    inferred: true,
                });
            }
        }
        let has_more = self
            .shape_at(body, "/has_more")
            .is_some_and(|s| s.ty == Ty::Bool);
        if has_more && has_query(params, "starting_after") {
            let item = self.items_at(body, "/data")?;
            self.shape_at(&item, "/id")?;
            return Some(Paging {
                next: PageNext::LastItem {
                    param: "starting_after".into(),
                    field: "/id".into(),
                },
                items: "/data".into(),
                item,
                has_more: Some("/has_more".into()),
                limit,
                inferred: true,
            });
        }
        None
    }

    /// The item shape of the list at `pointer` of a body.
    fn items_at(&self, body: &Shape, pointer: &str) -> Option<Shape> {
        match &self.shape_at(body, pointer)?.ty {
            Ty::Array(item) => Some((**item).clone()),
            _ => None,
        }
    }

    /// The shape at a JSON pointer into a value of `shape`, through the
    /// properties of structs (and the aliases that name them).
    fn shape_at(&self, shape: &Shape, pointer: &str) -> Option<Shape> {
        let mut current = self.concrete(shape)?;
        for segment in Pointer::from_ref(&format!("#{pointer}"))?.segments() {
            let Ty::Named(name) = &current.ty else {
                return None;
            };
            let TypeKind::Struct(s) = &self.types.get(name)?.kind else {
                return None;
            };
            let field = s.fields.iter().find(|f| f.wire == segment)?;
            current = self.concrete(&field.shape)?;
        }
        Some(current)
    }

    /// The shape an alias chain names: the alias's shape, or the type at
    /// the end of the chain.
    fn concrete(&self, shape: &Shape) -> Option<Shape> {
        let Ty::Named(name) = &shape.ty else {
            return Some(shape.clone());
        };
        let def = super::resolve(&self.types, name)?;
        Some(match &def.kind {
            TypeKind::Alias(inner) => inner.clone(),
            _ => Shape {
                ty: Ty::Named(def.name.clone()),
                ..shape.clone()
            },
        })
    }
}

/// Whether the operation has the query parameter `name`.
fn has_query(params: &[Param], name: &str) -> bool {
    params
        .iter()
        .any(|p| p.wire == name && p.location == ParamLocation::Query)
}
