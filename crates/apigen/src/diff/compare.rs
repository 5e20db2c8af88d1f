//! The comparison of two lowered APIs, operation by operation.
//!
//! Operations are matched by method and path, with path parameters matched
//! by their place in the template (renaming `{id}` to `{petId}` changes
//! nothing on the wire). Values are compared by the direction they travel:
//! what a client sends must still be accepted (a request may not tighten),
//! what it receives must not surprise it (a response may not loosen).

use super::{Finding, Level};
use crate::ir::*;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Dir {
    Request,
    Response,
}

/// Where a comparison stands: the direction, the rule prefix of what is
/// compared (`request-parameter`, `response-property`, ...), and for
/// messages what holds it (`the request body`) and the path within.
#[derive(Debug, Clone)]
struct Ctx {
    dir: Dir,
    prefix: &'static str,
    root: String,
    /// `address.city`, `tags[]`; empty for the root itself.
    path: String,
    what: String,
}

impl Ctx {
    fn new(dir: Dir, prefix: &'static str, root: String) -> Ctx {
        Ctx {
            dir,
            prefix,
            what: root.clone(),
            root,
            path: String::new(),
        }
    }

    fn at(&self, prefix: &'static str, path: String) -> Ctx {
        Ctx {
            dir: self.dir,
            prefix,
            what: format!("property `{path}` of {}", self.root),
            root: self.root.clone(),
            path,
        }
    }

    fn property(&self, name: &str) -> Ctx {
        let prefix = match self.dir {
            Dir::Request => "request-property",
            Dir::Response => "response-property",
        };
        let path = if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        };
        self.at(prefix, path)
    }

    fn items(&self) -> Ctx {
        if self.path.is_empty() {
            Ctx {
                what: format!("the items of {}", self.root),
                ..self.clone()
            }
        } else {
            self.at(self.prefix, format!("{}[]", self.path))
        }
    }
}

/// Every finding about operations: removed, added, and changed ones.
pub(super) fn operations(base: &Api, rev: &Api, today: &str) -> Vec<Finding> {
    let matched = match_operations(base, rev);
    let mut out = Vec::new();
    let mut same = Same::new(base, rev);
    for (b, r) in base.operations.iter().zip(&matched) {
        match r.map(|i| &rev.operations[i]) {
            None => out.push(removed(b, today)),
            Some(r) => {
                let mut c = Compare {
                    base,
                    rev,
                    today,
                    operation: format!("{} {}", r.method, r.path),
                    level: Level::of_breaking(b.stability),
                    out: &mut out,
                    seen: HashSet::new(),
                    same: &mut same,
                };
                c.lifecycle(b, r);
                c.security(b, r);
                c.params(b, r);
                c.body(b, r);
                c.responses(b, r);
            }
        }
    }
    for (i, r) in rev.operations.iter().enumerate() {
        if !matched.contains(&Some(i)) {
            out.push(Finding {
                rule: "api-added".into(),
                level: Level::Info,
                operation: format!("{} {}", r.method, r.path),
                base: None,
                revision: Some(r.pointer.clone()),
                message: format!("new operation `{}`", r.id),
            });
        }
    }
    let mut seen = HashSet::new();
    out.retain(|f| {
        seen.insert((
            f.operation.clone(),
            f.rule.clone(),
            f.base.clone(),
            f.revision.clone(),
        ))
    });
    out
}

/// For each operation of the base, the index of the revision's operation
/// that stands for it: the same method and path, else the same method and
/// path template with other parameter names. Each is matched once, so two
/// operations whose templates differ only in names (a document can have
/// both) keep their own partners.
fn match_operations(base: &Api, rev: &Api) -> Vec<Option<usize>> {
    let mut taken = vec![false; rev.operations.len()];
    let mut matched = vec![None; base.operations.len()];
    let exact = |b: &Operation, r: &Operation| b.method == r.method && b.path == r.path;
    let renamed = |b: &Operation, r: &Operation| {
        b.method == r.method && template(&b.path) == template(&r.path)
    };
    for same in [exact as fn(&Operation, &Operation) -> bool, renamed] {
        for (slot, b) in matched.iter_mut().zip(&base.operations) {
            if slot.is_some() {
                continue;
            }
            let found = rev
                .operations
                .iter()
                .enumerate()
                .position(|(i, r)| !taken[i] && same(b, r));
            if let Some(i) = found {
                taken[i] = true;
                *slot = Some(i);
            }
        }
    }
    matched
}

/// A path with its parameters' names left out: `/pets/{}`.
fn template(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_param = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push('{');
            }
            '}' => {
                in_param = false;
                out.push('}');
            }
            _ if in_param => {}
            c => out.push(c),
        }
    }
    out
}

/// An operation of the base that the revision does not have.
fn removed(b: &Operation, today: &str) -> Finding {
    let (rule, level, message) = match (b.deprecated, &b.sunset) {
        (true, Some(sunset)) if today < sunset.as_str() => (
            "api-removed-before-sunset",
            Level::Error,
            format!(
                "`{}` is removed before its sunset date, {sunset} (today is {today})",
                b.id
            ),
        ),
        (true, Some(sunset)) => (
            "api-removed-after-sunset",
            Level::Info,
            format!("`{}` is removed after its sunset date, {sunset}", b.id),
        ),
        (true, None) => (
            "api-removed-deprecated",
            Level::Info,
            format!("`{}`, deprecated without a sunset date, is removed", b.id),
        ),
        (false, _) => (
            "api-removed-without-deprecation",
            Level::of_breaking(b.stability),
            format!(
                "`{}` ({}) is removed without having been deprecated first",
                b.id,
                b.stability.as_str()
            ),
        ),
    };
    Finding {
        rule: rule.into(),
        level,
        operation: format!("{} {}", b.method, b.path),
        base: Some(b.pointer.clone()),
        revision: None,
        message,
    }
}

struct Compare<'a, 'o> {
    base: &'a Api,
    rev: &'a Api,
    /// The day sunsets are judged on (YYYY-MM-DD).
    today: &'o str,
    operation: String,
    /// The level of a breaking change to this operation.
    level: Level,
    out: &'o mut Vec<Finding>,
    /// Named types compared already in this operation, so that recursive
    /// types end.
    seen: HashSet<(&'a str, &'a str, Dir, &'static str)>,
    /// Which named types mean the same in both documents (shared by every
    /// operation): those are not walked at all.
    same: &'o mut Same<'a>,
}

impl<'a> Compare<'a, '_> {
    fn push(&mut self, rule: String, level: Level, base: &str, rev: &str, message: String) {
        self.out.push(Finding {
            rule,
            level,
            operation: self.operation.clone(),
            base: (!base.is_empty()).then(|| base.to_string()),
            revision: (!rev.is_empty()).then(|| rev.to_string()),
            message,
        });
    }

    /// A change that breaks callers, at the operation's level.
    fn breaking(&mut self, rule: String, base: &str, rev: &str, message: String) {
        self.push(rule, self.level, base, rev, message);
    }

    /// A change that may break callers: a warning at most.
    fn possibly(&mut self, rule: String, base: &str, rev: &str, message: String) {
        self.push(rule, self.level.min(Level::Warning), base, rev, message);
    }

    fn info(&mut self, rule: String, base: &str, rev: &str, message: String) {
        self.push(rule, Level::Info, base, rev, message);
    }

    // ---- lifecycle ------------------------------------------------------------

    fn lifecycle(&mut self, b: &Operation, r: &Operation) {
        let (bp, rp) = (b.pointer.as_str(), r.pointer.as_str());
        if r.stability < b.stability {
            let message = format!(
                "stability lowered from {} to {}",
                b.stability.as_str(),
                r.stability.as_str()
            );
            self.push(
                "api-stability-decreased".into(),
                Level::Error,
                bp,
                rp,
                message,
            );
        } else if r.stability > b.stability {
            let message = format!(
                "stability raised from {} to {}",
                b.stability.as_str(),
                r.stability.as_str()
            );
            self.info("api-stability-increased".into(), bp, rp, message);
        }
        match (b.deprecated, r.deprecated) {
            (false, true) if r.sunset.is_none() && b.stability == Stability::Stable => self.push(
                "api-deprecated-without-sunset".into(),
                Level::Error,
                bp,
                rp,
                "a stable operation is deprecated without a sunset date (`x-deprecated-sunset`)"
                    .into(),
            ),
            (false, true) => self.info(
                "api-deprecated".into(),
                bp,
                rp,
                match &r.sunset {
                    Some(sunset) => format!("deprecated, with sunset on {sunset}"),
                    None => "deprecated".into(),
                },
            ),
            (true, false) => self.info(
                "api-deprecation-withdrawn".into(),
                bp,
                rp,
                "no longer deprecated".into(),
            ),
            _ => {}
        }
        match (&b.sunset, &r.sunset) {
            (Some(before), Some(after)) if after < before => self.push(
                "api-sunset-date-changed-too-small".into(),
                Level::Error,
                bp,
                rp,
                format!("the sunset date moved earlier, from {before} to {after}"),
            ),
            (Some(before), Some(after)) if after > before => self.info(
                "api-sunset-date-extended".into(),
                bp,
                rp,
                format!("the sunset date moved later, from {before} to {after}"),
            ),
            _ => {}
        }
    }

    // ---- security -------------------------------------------------------------

    /// A caller that satisfied one of the base's requirements must satisfy
    /// one of the revision's with the same credentials and scopes.
    fn security(&mut self, b: &Operation, r: &Operation) {
        let anonymous: &[SecurityRequirement] = &[Vec::new()];
        let alternatives = |s: &'_ [SecurityRequirement]| -> Vec<SecurityRequirement> {
            if s.is_empty() {
                anonymous.to_vec()
            } else {
                s.to_vec()
            }
        };
        let (before, after) = (alternatives(&b.security), alternatives(&r.security));
        let holds = |held: &SecurityRequirement, needed: &SecurityRequirement| {
            needed.iter().all(|(scheme, scopes)| {
                held.iter()
                    .any(|(s, granted)| s == scheme && scopes.iter().all(|x| granted.contains(x)))
            })
        };
        let stranded: Vec<String> = before
            .iter()
            .filter(|held| !after.iter().any(|needed| holds(held, needed)))
            .map(describe_requirement)
            .collect();
        let (bp, rp) = (b.pointer.as_str(), r.pointer.as_str());
        if !stranded.is_empty() {
            let message = format!(
                "new security requirement: callers with {} no longer get in",
                stranded.join(" or ")
            );
            let level = self.level.max(Level::Warning);
            self.push("api-security-added".into(), level, bp, rp, message);
        } else if before != after {
            self.info(
                "api-security-relaxed".into(),
                bp,
                rp,
                "the operation accepts callers it did not before".into(),
            );
        }
    }

    // ---- parameters -----------------------------------------------------------

    fn params(&mut self, b: &'a Operation, r: &'a Operation) {
        for rp in &r.params {
            let what = describe_param(rp);
            match find_param(b, r, rp) {
                None if rp.required => self.breaking(
                    "new-required-request-parameter".into(),
                    "",
                    &rp.pointer,
                    format!("new required {what}"),
                ),
                None => self.info(
                    "new-optional-request-parameter".into(),
                    "",
                    &rp.pointer,
                    format!("new optional {what}"),
                ),
                Some(bp) => {
                    if rp.required && !bp.required {
                        self.breaking(
                            "request-parameter-became-required".into(),
                            &bp.pointer,
                            &rp.pointer,
                            format!("{what} became required"),
                        );
                    }
                    if (bp.style, bp.explode) != (rp.style, rp.explode)
                        && !matches!(
                            rp.shape.ty,
                            Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 | Ty::String
                        )
                    {
                        self.breaking(
                            "request-parameter-style-changed".into(),
                            &bp.pointer,
                            &rp.pointer,
                            format!("{what} is serialised another way (style or explode)"),
                        );
                    }
                    let ctx = Ctx::new(Dir::Request, "request-parameter", what.clone());
                    self.shape(&bp.shape, &rp.shape, &ctx, &bp.pointer, &rp.pointer);
                }
            }
        }
        for bp in &b.params {
            if find_param(r, b, bp).is_some() {
                continue;
            }
            let what = describe_param(bp);
            // A parameter promised until its sunset is kept until then.
            match (bp.deprecated, &bp.sunset) {
                (true, Some(sunset)) if self.today < sunset.as_str() => self.push(
                    "request-parameter-removed-before-sunset".into(),
                    Level::Error,
                    &bp.pointer,
                    "",
                    format!(
                        "{what} is removed before its sunset date, {sunset} (today is {})",
                        self.today
                    ),
                ),
                _ => self.info(
                    "request-parameter-removed".into(),
                    &bp.pointer,
                    "",
                    format!("{what} is no longer read"),
                ),
            }
        }
    }

    // ---- request bodies -------------------------------------------------------

    fn body(&mut self, b: &'a Operation, r: &'a Operation) {
        match (&b.body, &r.body) {
            (None, None) => {}
            (None, Some(rb)) if rb.required => self.breaking(
                "request-body-added-required".into(),
                "",
                &rb.pointer,
                "a required request body is new".into(),
            ),
            (None, Some(rb)) => self.info(
                "request-body-added-optional".into(),
                "",
                &rb.pointer,
                "an optional request body is new".into(),
            ),
            (Some(bb), None) => self.info(
                "request-body-removed".into(),
                &bb.pointer,
                "",
                "the request body is no longer read".into(),
            ),
            (Some(bb), Some(rb)) => {
                if rb.required && !bb.required {
                    self.breaking(
                        "request-body-became-required".into(),
                        &bb.pointer,
                        &rb.pointer,
                        "the request body became required".into(),
                    );
                }
                if !accepts(&rb.media, &bb.media) {
                    self.breaking(
                        "request-body-media-type-changed".into(),
                        &bb.pointer,
                        &rb.pointer,
                        format!(
                            "the request body was {}, and is now {}",
                            describe_media(&bb.media),
                            describe_media(&rb.media)
                        ),
                    );
                    return;
                }
                let ctx = Ctx::new(Dir::Request, "request-body", "the request body".into());
                self.shape(&bb.shape, &rb.shape, &ctx, &bb.pointer, &rb.pointer);
            }
        }
    }

    // ---- responses ------------------------------------------------------------

    fn responses(&mut self, b: &'a Operation, r: &'a Operation) {
        for br in &b.responses {
            let status = br.status.to_string();
            let Some(rr) = r.responses.iter().find(|rr| rr.status == br.status) else {
                if br.status.is_success() {
                    self.breaking(
                        "response-success-status-removed".into(),
                        &br.pointer,
                        "",
                        format!("the success response {status} is removed"),
                    );
                } else {
                    self.info(
                        "response-non-success-status-removed".into(),
                        &br.pointer,
                        "",
                        format!("the response {status} is no longer declared"),
                    );
                }
                continue;
            };
            match (&br.body, &rr.body) {
                (Some(_), None) => self.breaking(
                    "response-body-removed".into(),
                    &br.pointer,
                    &rr.pointer,
                    format!("the {status} response no longer has a body"),
                ),
                (None, Some(_)) => self.info(
                    "response-body-added".into(),
                    &br.pointer,
                    &rr.pointer,
                    format!("the {status} response has a body now"),
                ),
                (Some(_), Some(_)) if !accepts(&br.media, &rr.media) => self.breaking(
                    "response-media-type-changed".into(),
                    &br.pointer,
                    &rr.pointer,
                    format!(
                        "the {status} response was {}, and is now {}",
                        describe_media(&br.media),
                        describe_media(&rr.media)
                    ),
                ),
                (Some(bb), Some(rb)) => {
                    let ctx = Ctx::new(
                        Dir::Response,
                        "response-body",
                        format!("the {status} response body"),
                    );
                    self.shape(bb, rb, &ctx, &br.pointer, &rr.pointer);
                }
                (None, None) => {}
            }
            self.headers(br, rr, &status);
        }
        for rr in &r.responses {
            if !b.responses.iter().any(|br| br.status == rr.status) {
                let status = rr.status.to_string();
                self.info(
                    "response-status-added".into(),
                    "",
                    &rr.pointer,
                    format!("the response {status} is new"),
                );
            }
        }
    }

    fn headers(&mut self, br: &'a Response, rr: &'a Response, status: &str) {
        let base_headers = headers_of(self.base, br);
        let rev_headers = headers_of(self.rev, rr);
        for bh in base_headers {
            let found = rev_headers
                .iter()
                .find(|rh| rh.wire.eq_ignore_ascii_case(&bh.wire));
            match found {
                None if bh.required => self.breaking(
                    "response-required-header-removed".into(),
                    &bh.pointer,
                    &rr.pointer,
                    format!("the {status} response no longer sends header `{}`", bh.wire),
                ),
                None => self.info(
                    "response-optional-header-removed".into(),
                    &bh.pointer,
                    &rr.pointer,
                    format!(
                        "the {status} response no longer declares header `{}`",
                        bh.wire
                    ),
                ),
                Some(rh) => {
                    if bh.required && !rh.required {
                        self.breaking(
                            "response-header-became-optional".into(),
                            &bh.pointer,
                            &rh.pointer,
                            format!(
                                "header `{}` of the {status} response became optional",
                                bh.wire
                            ),
                        );
                    }
                    let ctx = Ctx::new(
                        Dir::Response,
                        "response-header",
                        format!("header `{}` of the {status} response", bh.wire),
                    );
                    self.shape(&bh.shape, &rh.shape, &ctx, &bh.pointer, &rh.pointer);
                }
            }
        }
    }

    // ---- values ---------------------------------------------------------------

    fn shape(&mut self, b: &'a Shape, r: &'a Shape, ctx: &Ctx, bp: &str, rp: &str) {
        let (b, r) = (unalias(b, self.base), unalias(r, self.rev));
        let rule = |change: &str| format!("{}-{change}", ctx.prefix);
        match ctx.dir {
            Dir::Request if b.nullable && !r.nullable => self.breaking(
                rule("became-not-nullable"),
                bp,
                rp,
                format!("{} no longer accepts null", ctx.what),
            ),
            Dir::Response if !b.nullable && r.nullable => self.breaking(
                rule("became-nullable"),
                bp,
                rp,
                format!("{} may be null now", ctx.what),
            ),
            _ => {}
        }
        match (b.ty, r.ty) {
            (Ty::Named(bn), Ty::Named(rn)) => self.named(bn, rn, ctx, bp, rp),
            (Ty::Array(bi), Ty::Array(ri)) => {
                self.checks(b.checks, r.checks, ctx, bp, rp);
                self.shape(bi, ri, &ctx.items(), bp, rp);
            }
            (Ty::Map(bv), Ty::Map(rv)) => self.shape(bv, rv, &ctx.items(), bp, rp),
            (bt, rt) => {
                let fits = match ctx.dir {
                    Dir::Request => wider(rt, self.base, bt),
                    Dir::Response => wider(bt, self.rev, rt),
                };
                if fits {
                    self.checks(b.checks, r.checks, ctx, bp, rp);
                } else {
                    self.breaking(
                        rule("type-changed"),
                        bp,
                        rp,
                        format!(
                            "{}: the type changed from {} to {}",
                            ctx.what,
                            describe_ty(bt),
                            describe_ty(rt)
                        ),
                    );
                }
            }
        }
    }

    /// Bounds that a request must keep: none may tighten.
    fn checks(&mut self, b: &Checks, r: &Checks, ctx: &Ctx, bp: &str, rp: &str) {
        if ctx.dir == Dir::Response {
            return;
        }
        let rule = |change: &str| format!("{}-{change}", ctx.prefix);
        let what = &ctx.what;
        let mut tightened = Vec::new();
        if let Some(max) = r.max_length.filter(|m| b.max_length.is_none_or(|b| m < &b)) {
            tightened.push((
                rule("max-length-decreased"),
                format!("{what}: maxLength is now {max}"),
            ));
        }
        if let Some(min) = r.min_length.filter(|m| *m > b.min_length.unwrap_or(0)) {
            tightened.push((
                rule("min-length-increased"),
                format!("{what}: minLength is now {min}"),
            ));
        }
        if let Some(max) = r.max_items.filter(|m| b.max_items.is_none_or(|b| m < &b)) {
            tightened.push((
                rule("max-items-decreased"),
                format!("{what}: maxItems is now {max}"),
            ));
        }
        if let Some(min) = r.min_items.filter(|m| *m > b.min_items.unwrap_or(0)) {
            tightened.push((
                rule("min-items-increased"),
                format!("{what}: minItems is now {min}"),
            ));
        }
        if let Some(min) = r.minimum {
            let raised = match b.minimum {
                None => true,
                Some(before) => {
                    number(min) > number(before)
                        || (number(min) == number(before)
                            && r.exclusive_minimum
                            && !b.exclusive_minimum)
                }
            };
            if raised {
                tightened.push((
                    rule("min-increased"),
                    format!("{what}: the minimum is now {}", describe_number(min)),
                ));
            }
        }
        if let Some(max) = r.maximum {
            let lowered = match b.maximum {
                None => true,
                Some(before) => {
                    number(max) < number(before)
                        || (number(max) == number(before)
                            && r.exclusive_maximum
                            && !b.exclusive_maximum)
                }
            };
            if lowered {
                tightened.push((
                    rule("max-decreased"),
                    format!("{what}: the maximum is now {}", describe_number(max)),
                ));
            }
        }
        for (rule, message) in tightened {
            self.breaking(rule, bp, rp, message);
        }
        match (&b.pattern, &r.pattern) {
            (None, Some(p)) => self.breaking(
                rule("pattern-added"),
                bp,
                rp,
                format!("{what}: must now match `{p}`"),
            ),
            (Some(before), Some(after)) if before != after => self.possibly(
                rule("pattern-changed"),
                bp,
                rp,
                format!("{what}: the pattern changed from `{before}` to `{after}`"),
            ),
            _ => {}
        }
    }

    fn named(&mut self, bn: &'a str, rn: &'a str, ctx: &Ctx, bp: &str, rp: &str) {
        if self.same.named(bn, rn) || !self.seen.insert((bn, rn, ctx.dir, ctx.prefix)) {
            return;
        }
        let (Some(bdef), Some(rdef)) = (
            crate::lower::resolve(&self.base.types, bn),
            crate::lower::resolve(&self.rev.types, rn),
        ) else {
            return;
        };
        match (&bdef.kind, &rdef.kind) {
            (TypeKind::Struct(bs), TypeKind::Struct(rs)) => self.structs(bs, rs, ctx, bp, rp),
            (TypeKind::Enum(bv), TypeKind::Enum(rv)) => self.enums(bv, rv, ctx, bp, rp),
            (TypeKind::Union(bu), TypeKind::Union(ru)) => self.unions(bu, ru, ctx, bp, rp),
            (
                TypeKind::Alias(bs) | TypeKind::Newtype { shape: bs, .. },
                TypeKind::Alias(rs) | TypeKind::Newtype { shape: rs, .. },
            ) => self.shape(bs, rs, ctx, bp, rp),
            (bk, rk) => self.breaking(
                format!("{}-type-changed", ctx.prefix),
                bp,
                rp,
                format!(
                    "{}: the type changed from {} to {}",
                    ctx.what,
                    describe_kind(bk),
                    describe_kind(rk)
                ),
            ),
        }
    }

    fn structs(&mut self, b: &'a Struct, r: &'a Struct, ctx: &Ctx, bp: &str, rp: &str) {
        let field = |s: &'a Struct, wire: &str| -> Option<&'a Field> {
            s.fields.iter().find(|f| f.wire == wire && !f.flatten)
        };
        match ctx.dir {
            Dir::Request => {
                for rf in r.fields.iter().filter(|f| !f.read_only && !f.flatten) {
                    let inner = ctx.property(&rf.wire);
                    match field(b, &rf.wire) {
                        None if rf.required => self.breaking(
                            "new-required-request-property".into(),
                            bp,
                            &rf.pointer,
                            format!("{} is new and required", inner.what),
                        ),
                        None => self.info(
                            "new-optional-request-property".into(),
                            bp,
                            &rf.pointer,
                            format!("{} is new", inner.what),
                        ),
                        Some(bf) => {
                            if rf.required && !bf.required {
                                self.breaking(
                                    "request-property-became-required".into(),
                                    &bf.pointer,
                                    &rf.pointer,
                                    format!("{} became required", inner.what),
                                );
                            }
                            self.shape(&bf.shape, &rf.shape, &inner, &bf.pointer, &rf.pointer);
                        }
                    }
                }
                for bf in b.fields.iter().filter(|f| !f.read_only && !f.flatten) {
                    if field(r, &bf.wire).is_some() {
                        continue;
                    }
                    let message = format!("{} is removed", ctx.property(&bf.wire).what);
                    if r.deny_unknown {
                        let message = format!("{message}, and unknown properties are refused");
                        self.breaking("request-property-removed".into(), &bf.pointer, rp, message);
                    } else {
                        self.info("request-property-removed".into(), &bf.pointer, rp, message);
                    }
                }
                if r.deny_unknown && !b.deny_unknown {
                    self.breaking(
                        "request-additional-properties-refused".into(),
                        bp,
                        rp,
                        format!("{} now refuses properties it does not name", ctx.what),
                    );
                }
            }
            Dir::Response => {
                for bf in b.fields.iter().filter(|f| !f.write_only && !f.flatten) {
                    let inner = ctx.property(&bf.wire);
                    match field(r, &bf.wire) {
                        None if bf.required => self.breaking(
                            "response-required-property-removed".into(),
                            &bf.pointer,
                            rp,
                            format!("{} is removed", inner.what),
                        ),
                        None => self.info(
                            "response-optional-property-removed".into(),
                            &bf.pointer,
                            rp,
                            format!("{} is removed", inner.what),
                        ),
                        Some(rf) => {
                            if bf.required && !rf.required {
                                self.breaking(
                                    "response-property-became-optional".into(),
                                    &bf.pointer,
                                    &rf.pointer,
                                    format!("{} became optional", inner.what),
                                );
                            }
                            self.shape(&bf.shape, &rf.shape, &inner, &bf.pointer, &rf.pointer);
                        }
                    }
                }
                for rf in r.fields.iter().filter(|f| !f.write_only && !f.flatten) {
                    if field(b, &rf.wire).is_none() {
                        self.info(
                            "response-property-added".into(),
                            bp,
                            &rf.pointer,
                            format!("{} is new", ctx.property(&rf.wire).what),
                        );
                    }
                }
            }
        }
        if let (Some(bv), Some(rv)) = (&b.additional, &r.additional) {
            self.shape(bv, rv, &ctx.items(), bp, rp);
        }
    }

    fn enums(&mut self, b: &[EnumVariant], r: &[EnumVariant], ctx: &Ctx, bp: &str, rp: &str) {
        let missing = |from: &[EnumVariant], to: &[EnumVariant]| -> Vec<String> {
            from.iter()
                .filter(|v| !to.iter().any(|w| w.wire == v.wire))
                .map(|v| format!("`{}`", v.wire))
                .collect()
        };
        let (removed, added) = (missing(b, r), missing(r, b));
        let rule = |change: &str| format!("{}-{change}", ctx.prefix);
        match ctx.dir {
            Dir::Request if !removed.is_empty() => self.breaking(
                rule("enum-value-removed"),
                bp,
                rp,
                format!("{} no longer accepts {}", ctx.what, removed.join(", ")),
            ),
            Dir::Response if !added.is_empty() => self.possibly(
                rule("enum-value-added"),
                bp,
                rp,
                format!(
                    "{} may now be {}, which callers may not expect",
                    ctx.what,
                    added.join(", ")
                ),
            ),
            _ => {}
        }
    }

    fn unions(&mut self, b: &'a Union, r: &'a Union, ctx: &Ctx, bp: &str, rp: &str) {
        let name = |v: &UnionVariant| {
            v.tag_values
                .first()
                .cloned()
                .unwrap_or_else(|| v.rust.clone())
        };
        let find = |u: &'a Union, wanted: &str| u.variants.iter().find(|v| name(v) == wanted);
        for bv in &b.variants {
            match find(r, &name(bv)) {
                Some(rv) => self.shape(&bv.shape, &rv.shape, ctx, bp, rp),
                None if ctx.dir == Dir::Request => self.breaking(
                    format!("{}-one-of-removed", ctx.prefix),
                    bp,
                    rp,
                    format!("{} no longer accepts the shape `{}`", ctx.what, name(bv)),
                ),
                None => {}
            }
        }
        if ctx.dir == Dir::Response {
            let added: Vec<String> = r
                .variants
                .iter()
                .filter(|rv| find(b, &name(rv)).is_none())
                .map(|rv| format!("`{}`", name(rv)))
                .collect();
            if !added.is_empty() {
                self.possibly(
                    format!("{}-one-of-added", ctx.prefix),
                    bp,
                    rp,
                    format!("{} may now have the shape {}", ctx.what, added.join(", ")),
                );
            }
        }
    }
}

/// The parameter of `of` that stands for `p` of `other`: the same place in
/// the path template for path parameters, else the same location and name
/// (header names in any case).
fn find_param<'o>(of: &'o Operation, other: &Operation, p: &Param) -> Option<&'o Param> {
    let place = path_params(&other.path).iter().position(|n| *n == p.wire);
    if let (ParamLocation::Path, Some(place)) = (p.location, place) {
        let name = path_params(&of.path).get(place)?.to_string();
        return of
            .params
            .iter()
            .find(|q| q.location == ParamLocation::Path && q.wire == name);
    }
    of.params.iter().find(|q| {
        q.location == p.location
            && match p.location {
                ParamLocation::Header => q.wire.eq_ignore_ascii_case(&p.wire),
                _ => q.wire == p.wire,
            }
    })
}

fn path_params(path: &str) -> Vec<&str> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name))
        .collect()
}

/// A shape with the API's aliases followed to what they name: the type at
/// the end, the first bounds found, nullable if any step is.
#[derive(Debug, Clone, Copy)]
struct View<'a> {
    ty: &'a Ty,
    checks: &'a Checks,
    nullable: bool,
}

fn unalias<'a>(shape: &'a Shape, api: &'a Api) -> View<'a> {
    let mut view = View {
        ty: &shape.ty,
        checks: &shape.checks,
        nullable: shape.nullable,
    };
    for _ in 0..64 {
        let Ty::Named(name) = view.ty else { break };
        match api.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Alias(inner)) => {
                view.nullable |= inner.nullable;
                if view.checks.is_empty() {
                    view.checks = &inner.checks;
                }
                view.ty = &inner.ty;
            }
            _ => break,
        }
    }
    view
}

/// Which named types of the base mean exactly the same as which of the
/// revision, so that the comparison walks only what changed. Recursive
/// types are equal unless a difference is found (a pair being compared is
/// assumed equal when met again); a "same" that rests on an assumption
/// still open further up is kept only once that assumption is settled.
struct Same<'a> {
    base: &'a Api,
    rev: &'a Api,
    memo: HashMap<(&'a str, &'a str), bool>,
    /// Pairs being compared, by their depth on the stack.
    open: HashMap<(&'a str, &'a str), usize>,
    /// Pairs found the same on assumptions still open, in the order found,
    /// with the lowest depth they rest on: final once that pair is found
    /// the same, void if a pair they may rest on is not.
    tentative: Vec<(&'a str, &'a str)>,
    tentative_low: HashMap<(&'a str, &'a str), usize>,
}

impl<'a> Same<'a> {
    fn new(base: &'a Api, rev: &'a Api) -> Self {
        Same {
            base,
            rev,
            memo: HashMap::new(),
            open: HashMap::new(),
            tentative: Vec::new(),
            tentative_low: HashMap::new(),
        }
    }

    fn named(&mut self, bn: &'a str, rn: &'a str) -> bool {
        self.pair(bn, rn).0
    }

    /// Whether the pair means the same, and the lowest stack depth of an
    /// open assumption the answer rests on (`usize::MAX` for none).
    fn pair(&mut self, bn: &'a str, rn: &'a str) -> (bool, usize) {
        if let Some(&same) = self.memo.get(&(bn, rn)) {
            return (same, usize::MAX);
        }
        if let Some(&depth) = self.open.get(&(bn, rn)) {
            return (true, depth);
        }
        if let Some(&low) = self.tentative_low.get(&(bn, rn)) {
            return (true, low);
        }
        let depth = self.open.len();
        let mark = self.tentative.len();
        self.open.insert((bn, rn), depth);
        let mut low = usize::MAX;
        let same = match (
            crate::lower::resolve(&self.base.types, bn),
            crate::lower::resolve(&self.rev.types, rn),
        ) {
            (Some(b), Some(r)) => self.kinds(&b.kind, &r.kind, &mut low),
            _ => false,
        };
        self.open.remove(&(bn, rn));
        if !same {
            // A difference is a difference whatever was assumed; what was
            // found the same on the assumption that this pair is goes void.
            for pair in self.tentative.drain(mark..) {
                self.tentative_low.remove(&pair);
            }
            self.memo.insert((bn, rn), false);
            (false, usize::MAX)
        } else if low >= depth {
            // Every assumption this rests on is settled: this pair, and what
            // was found the same beneath it, is final.
            for pair in self.tentative.drain(mark..) {
                self.tentative_low.remove(&pair);
                self.memo.insert(pair, true);
            }
            self.memo.insert((bn, rn), true);
            (true, usize::MAX)
        } else {
            self.tentative.push((bn, rn));
            self.tentative_low.insert((bn, rn), low);
            (true, low)
        }
    }

    fn kinds(&mut self, b: &'a TypeKind, r: &'a TypeKind, low: &mut usize) -> bool {
        match (b, r) {
            (TypeKind::Struct(b), TypeKind::Struct(r)) => {
                let additional = match (&b.additional, &r.additional) {
                    (None, None) => true,
                    (Some(x), Some(y)) => self.shapes(x, y, low),
                    _ => false,
                };
                additional
                    && b.deny_unknown == r.deny_unknown
                    && b.fields.len() == r.fields.len()
                    && b.fields.iter().all(|f| {
                        r.fields.iter().find(|g| g.wire == f.wire).is_some_and(|g| {
                            (f.required, f.read_only, f.write_only, f.flatten)
                                == (g.required, g.read_only, g.write_only, g.flatten)
                                && self.shapes(&f.shape, &g.shape, low)
                        })
                    })
            }
            (TypeKind::Enum(b), TypeKind::Enum(r)) => {
                b.len() == r.len() && b.iter().all(|v| r.iter().any(|w| w.wire == v.wire))
            }
            (TypeKind::Union(b), TypeKind::Union(r)) => {
                b.tag == r.tag
                    && b.variants.len() == r.variants.len()
                    && b.variants.iter().zip(&r.variants).all(|(v, w)| {
                        v.tag_values == w.tag_values && self.shapes(&v.shape, &w.shape, low)
                    })
            }
            (
                TypeKind::Alias(b) | TypeKind::Newtype { shape: b, .. },
                TypeKind::Alias(r) | TypeKind::Newtype { shape: r, .. },
            ) => self.shapes(b, r, low),
            _ => false,
        }
    }

    fn shapes(&mut self, b: &'a Shape, r: &'a Shape, low: &mut usize) -> bool {
        let (b, r) = (unalias(b, self.base), unalias(r, self.rev));
        if b.nullable != r.nullable || b.checks != r.checks {
            return false;
        }
        match (b.ty, r.ty) {
            (Ty::Named(x), Ty::Named(y)) => {
                let (same, at) = self.pair(x, y);
                *low = (*low).min(at);
                same
            }
            (Ty::Array(x), Ty::Array(y)) | (Ty::Map(x), Ty::Map(y)) => self.shapes(x, y, low),
            (x, y) => x == y,
        }
    }
}

/// Whether every value of `inner` (a type of `inner_api`) is a value of
/// `outer`.
fn wider(outer: &Ty, inner_api: &Api, inner: &Ty) -> bool {
    use Ty::*;
    let free_object = |api: &Api, ty: &Ty| match ty {
        Map(values) => values.ty == Json,
        Named(n) => matches!(
            crate::lower::resolve(&api.types, n).map(|t| &t.kind),
            Some(TypeKind::Struct(_))
        ),
        _ => false,
    };
    match (outer, inner) {
        (Json, _) => true,
        (a, b) if std::mem::discriminant(a) == std::mem::discriminant(b) => true,
        (F64, F32 | I32 | I64) | (F32 | I64, I32) => true,
        (String, DateTime | Date) => true,
        (Map(values), _) if values.ty == Json => free_object(inner_api, inner),
        _ => false,
    }
}

/// Media a receiver of `now` takes everything `before` sent.
fn accepts(now: &Media, before: &Media) -> bool {
    match (now, before) {
        (Media::Raw(now), Media::Raw(before)) => before.iter().all(|b| {
            now.iter().any(|n| {
                n == b
                    || n == "*/*"
                    || n.strip_suffix("/*")
                        .is_some_and(|p| b.starts_with(&format!("{p}/")))
            })
        }),
        (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

fn number(n: Number) -> f64 {
    match n {
        Number::Int(i) => i as f64,
        Number::Float(f) => f,
    }
}

fn describe_number(n: Number) -> String {
    match n {
        Number::Int(i) => i.to_string(),
        Number::Float(f) => f.to_string(),
    }
}

fn describe_param(p: &Param) -> String {
    format!("{} parameter `{}`", p.location.as_str(), p.wire)
}

fn describe_media(m: &Media) -> String {
    match m {
        Media::Json => "JSON".into(),
        Media::Form => "a form".into(),
        Media::Multipart => "multipart".into(),
        Media::Raw(types) => types.join(" or "),
    }
}

fn describe_ty(t: &Ty) -> String {
    match t {
        Ty::Bool => "boolean".into(),
        Ty::I32 => "int32".into(),
        Ty::I64 => "int64".into(),
        Ty::F32 => "float".into(),
        Ty::F64 => "number".into(),
        Ty::String => "string".into(),
        Ty::DateTime => "date-time".into(),
        Ty::Date => "date".into(),
        Ty::Uuid => "uuid".into(),
        Ty::Base64 => "base64 bytes".into(),
        Ty::Json => "any JSON".into(),
        Ty::Bytes => "bytes".into(),
        Ty::Array(_) => "array".into(),
        Ty::Map(_) => "object".into(),
        Ty::Named(_) => "object".into(),
    }
}

fn describe_kind(k: &TypeKind) -> &'static str {
    match k {
        TypeKind::Struct(_) => "object",
        TypeKind::Enum(_) => "string enum",
        TypeKind::Union(_) => "oneOf/anyOf",
        TypeKind::Alias(_) | TypeKind::Newtype { .. } => "another type",
    }
}

fn describe_requirement(r: &SecurityRequirement) -> String {
    if r.is_empty() {
        return "no credentials".into();
    }
    r.iter()
        .map(|(scheme, scopes)| {
            if scopes.is_empty() {
                format!("`{scheme}`")
            } else {
                format!("`{scheme}` ({})", scopes.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Response headers: the response's own and those every response shares.
fn headers_of<'a>(api: &'a Api, r: &'a Response) -> Vec<&'a ResponseHeader> {
    r.headers.iter().chain(api.common_headers.iter()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_drop_parameter_names() {
        assert_eq!(template("/pets/{petId}/photos/{n}"), "/pets/{}/photos/{}");
    }
}
