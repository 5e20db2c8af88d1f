//! The comparison of two lowered APIs, operation by operation: what
//! `Compare` holds, how it reports, and the rules for parameters, request
//! bodies and responses. Operations are matched in `matching`, lifecycle
//! and security are compared in `lifecycle`, values in `schema`.
//!
//! Values are compared by the direction they travel: what a client sends
//! must still be accepted (a request may not tighten), what it receives
//! must not surprise it (a response may not loosen).

use super::ctx::{Ctx, Dir};
use super::rules::{Place, Rule};
use super::same::Same;
use super::{Finding, Level};
use crate::ir::*;
use std::collections::HashSet;

pub(super) struct Compare<'a, 'o> {
    pub(super) base: &'a Api,
    pub(super) rev: &'a Api,
    /// The day sunsets are judged on (YYYY-MM-DD).
    pub(super) today: &'o str,
    pub(super) operation: String,
    /// The operation's stability in the base (what callers relied on), and
    /// its sunset date (the revision's, else the base's).
    pub(super) stability: Stability,
    pub(super) sunset: Option<String>,
    /// The level of a breaking change to this operation.
    pub(super) level: Level,
    pub(super) out: &'o mut Vec<Finding>,
    /// Named types compared already in this operation, so that recursive
    /// types end.
    pub(super) seen: HashSet<(&'a str, &'a str, Dir, Place)>,
    /// Which named types mean the same in both documents (shared by every
    /// operation): those are not walked at all.
    pub(super) same: &'o mut Same<'a>,
}

impl<'a> Compare<'a, '_> {
    /// A finding of `rule`, at the level its severity has in this
    /// operation.
    pub(super) fn report(&mut self, rule: Rule, base: &str, rev: &str, message: String) {
        let level = rule.severity().level(self.level);
        self.report_at(rule, level, base, rev, message);
    }

    /// A finding of `rule` at a level decided where it was found (a rule
    /// whose severity depends on what surrounds the change).
    pub(super) fn report_at(
        &mut self,
        rule: Rule,
        level: Level,
        base: &str,
        rev: &str,
        message: String,
    ) {
        self.out.push(Finding {
            rule,
            level,
            operation: self.operation.clone(),
            stability: Some(self.stability),
            sunset: self.sunset.clone(),
            base: (!base.is_empty()).then(|| base.to_string()),
            revision: (!rev.is_empty()).then(|| rev.to_string()),
            message,
        });
    }

    // ---- lifecycle ------------------------------------------------------------

    // ---- security -------------------------------------------------------------

    // ---- parameters -----------------------------------------------------------

    pub(super) fn params(&mut self, base: &'a Operation, rev: &'a Operation) {
        for rev_param in &rev.params {
            let what = describe_param(rev_param);
            match find_param(base, rev, rev_param) {
                None if rev_param.required => self.report(
                    Rule::NewRequiredRequestParameter,
                    "",
                    &rev_param.pointer,
                    format!("new required {what}"),
                ),
                None => self.report(
                    Rule::NewOptionalRequestParameter,
                    "",
                    &rev_param.pointer,
                    format!("new optional {what}"),
                ),
                Some(base_param) => {
                    if rev_param.required && !base_param.required {
                        self.report(
                            Rule::RequestParameterBecameRequired,
                            &base_param.pointer,
                            &rev_param.pointer,
                            format!("{what} became required"),
                        );
                    }
                    if (base_param.style, base_param.explode)
                        != (rev_param.style, rev_param.explode)
                        && !matches!(
                            rev_param.shape.ty,
                            Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 | Ty::String
                        )
                    {
                        self.report(
                            Rule::RequestParameterStyleChanged,
                            &base_param.pointer,
                            &rev_param.pointer,
                            format!("{what} is serialised another way (style or explode)"),
                        );
                    }
                    let ctx = Ctx::new(Dir::Request, Place::RequestParameter, what.clone());
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
        for base_param in &base.params {
            if find_param(rev, base, base_param).is_some() {
                continue;
            }
            let what = describe_param(base_param);
            // A parameter promised until its sunset is kept until then.
            match (base_param.deprecated, &base_param.sunset) {
                (true, Some(sunset)) if self.today < sunset.as_str() => self.report(
                    Rule::RequestParameterRemovedBeforeSunset,
                    &base_param.pointer,
                    "",
                    format!(
                        "{what} is removed before its sunset date, {sunset} (today is {})",
                        self.today
                    ),
                ),
                _ => self.report(
                    Rule::RequestParameterRemoved,
                    &base_param.pointer,
                    "",
                    format!("{what} is no longer read"),
                ),
            }
        }
    }

    // ---- paging ---------------------------------------------------------------

    pub(super) fn paging(&mut self, base: &'a Operation, rev: &'a Operation) {
        let at = |op: &Operation| format!("{}/x-pagination", op.pointer);
        let describe = crate::ir::Paging::describe;
        match (&base.paging, &rev.paging) {
            (None, None) => {}
            (None, Some(now)) => self.report(
                Rule::PagingAdded,
                "",
                &at(rev),
                format!("the operation pages by {}", describe(now)),
            ),
            (Some(before), None) => self.report(
                Rule::PagingChanged,
                &at(base),
                "",
                format!(
                    "the operation no longer pages (it paged by {})",
                    describe(before)
                ),
            ),
            (Some(before), Some(now)) => {
                let (was, is) = (describe(before), describe(now));
                if was != is {
                    self.report(
                        Rule::PagingChanged,
                        &at(base),
                        &at(rev),
                        format!("the operation paged by {was}, and now by {is}"),
                    );
                }
            }
        }
    }

    // ---- request bodies -------------------------------------------------------

    pub(super) fn body(&mut self, base: &'a Operation, rev: &'a Operation) {
        match (&base.body, &rev.body) {
            (None, None) => {}
            (None, Some(rev_body)) if rev_body.required => self.report(
                Rule::RequestBodyAddedRequired,
                "",
                &rev_body.pointer,
                "a required request body is new".into(),
            ),
            (None, Some(rev_body)) => self.report(
                Rule::RequestBodyAddedOptional,
                "",
                &rev_body.pointer,
                "an optional request body is new".into(),
            ),
            (Some(base_body), None) => self.report(
                Rule::RequestBodyRemoved,
                &base_body.pointer,
                "",
                "the request body is no longer read".into(),
            ),
            (Some(base_body), Some(rev_body)) => {
                if rev_body.required && !base_body.required {
                    self.report(
                        Rule::RequestBodyBecameRequired,
                        &base_body.pointer,
                        &rev_body.pointer,
                        "the request body became required".into(),
                    );
                }
                if !accepts(&rev_body.media, &base_body.media) {
                    self.report(
                        Rule::RequestBodyMediaTypeChanged,
                        &base_body.pointer,
                        &rev_body.pointer,
                        format!(
                            "the request body was {}, and is now {}",
                            describe_media(&base_body.media),
                            describe_media(&rev_body.media)
                        ),
                    );
                    return;
                }
                let ctx = Ctx::new(Dir::Request, Place::RequestBody, "the request body".into());
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

    // ---- responses ------------------------------------------------------------

    pub(super) fn responses(&mut self, base: &'a Operation, rev: &'a Operation) {
        // A status may have two responses, a stream of events and another
        // media type: each is compared with its counterpart, else with the
        // status's other response.
        let streams = |r: &Response| r.media.streams();
        let counterpart = |of: &Response, among: &'a [Response]| -> Option<&'a Response> {
            among
                .iter()
                .find(|r| r.status == of.status && streams(r) == streams(of))
                .or_else(|| among.iter().find(|r| r.status == of.status))
        };
        for base_response in &base.responses {
            let status = base_response.status.to_string();
            let Some(rev_response) = counterpart(base_response, &rev.responses) else {
                if base_response.status.is_success() {
                    self.report(
                        Rule::ResponseSuccessStatusRemoved,
                        &base_response.pointer,
                        "",
                        format!("the success response {status} is removed"),
                    );
                } else {
                    self.report(
                        Rule::ResponseNonSuccessStatusRemoved,
                        &base_response.pointer,
                        "",
                        format!("the response {status} is no longer declared"),
                    );
                }
                continue;
            };
            match (&base_response.body, &rev_response.body) {
                (Some(_), None) => self.report(
                    Rule::ResponseBodyRemoved,
                    &base_response.pointer,
                    &rev_response.pointer,
                    format!("the {status} response no longer has a body"),
                ),
                (None, Some(_)) => self.report(
                    Rule::ResponseBodyAdded,
                    &base_response.pointer,
                    &rev_response.pointer,
                    format!("the {status} response has a body now"),
                ),
                (Some(_), Some(_)) if !accepts(&base_response.media, &rev_response.media) => self
                    .report(
                        Rule::ResponseMediaTypeChanged,
                        &base_response.pointer,
                        &rev_response.pointer,
                        format!(
                            "the {status} response was {}, and is now {}",
                            describe_media(&base_response.media),
                            describe_media(&rev_response.media)
                        ),
                    ),
                (Some(base_body), Some(rev_body)) => {
                    let ctx = if streams(base_response) {
                        Ctx::new(
                            Dir::Response,
                            Place::ResponseBody,
                            format!("the {status} response's event stream"),
                        )
                        .of_events()
                    } else {
                        Ctx::new(
                            Dir::Response,
                            Place::ResponseBody,
                            format!("the {status} response body"),
                        )
                    };
                    self.shape(
                        base_body,
                        rev_body,
                        &ctx,
                        &base_response.pointer,
                        &rev_response.pointer,
                    );
                }
                (None, None) => {}
            }
            self.headers(base_response, rev_response, &status);
        }
        for rev_response in &rev.responses {
            let status = rev_response.status.to_string();
            match counterpart(rev_response, &base.responses) {
                None => self.report(
                    Rule::ResponseStatusAdded,
                    "",
                    &rev_response.pointer,
                    format!("the response {status} is new"),
                ),
                // A stream offered beside the media the status had.
                Some(_)
                    if streams(rev_response)
                        && !base
                            .responses
                            .iter()
                            .any(|r| r.status == rev_response.status && streams(r))
                        && rev
                            .responses
                            .iter()
                            .any(|r| r.status == rev_response.status && !streams(r)) =>
                {
                    self.report(
                        Rule::ResponseStatusAdded,
                        "",
                        &rev_response.pointer,
                        format!("the {status} response can be an event stream now"),
                    )
                }
                Some(_) => {}
            }
        }
    }

    fn headers(&mut self, base_response: &'a Response, rev_response: &'a Response, status: &str) {
        let base_headers = headers_of(self.base, base_response);
        let rev_headers = headers_of(self.rev, rev_response);
        for base_header in base_headers {
            let found = rev_headers
                .iter()
                .find(|rev_header| rev_header.wire.eq_ignore_ascii_case(&base_header.wire));
            match found {
                None if base_header.required => self.report(
                    Rule::ResponseRequiredHeaderRemoved,
                    &base_header.pointer,
                    &rev_response.pointer,
                    format!(
                        "the {status} response no longer sends header `{}`",
                        base_header.wire
                    ),
                ),
                None => self.report(
                    Rule::ResponseOptionalHeaderRemoved,
                    &base_header.pointer,
                    &rev_response.pointer,
                    format!(
                        "the {status} response no longer declares header `{}`",
                        base_header.wire
                    ),
                ),
                Some(rev_header) => {
                    if base_header.required && !rev_header.required {
                        self.report(
                            Rule::ResponseHeaderBecameOptional,
                            &base_header.pointer,
                            &rev_header.pointer,
                            format!(
                                "header `{}` of the {status} response became optional",
                                base_header.wire
                            ),
                        );
                    }
                    let ctx = Ctx::new(
                        Dir::Response,
                        Place::ResponseHeader,
                        format!("header `{}` of the {status} response", base_header.wire),
                    );
                    self.shape(
                        &base_header.shape,
                        &rev_header.shape,
                        &ctx,
                        &base_header.pointer,
                        &rev_header.pointer,
                    );
                }
            }
        }
    }

    // ---- values ---------------------------------------------------------------
}

/// Media a receiver of `now` takes everything `before` sent.
pub(super) fn accepts(now: &Media, before: &Media) -> bool {
    match (now, before) {
        (Media::Raw(now), Media::Raw(before)) => before.iter().all(|base| {
            now.iter().any(|n| {
                n == base
                    || n == "*/*"
                    || n.strip_suffix("/*")
                        .is_some_and(|p| base.starts_with(&format!("{p}/")))
            })
        }),
        (a, base) => std::mem::discriminant(a) == std::mem::discriminant(base),
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
        Media::Events => "an event stream".into(),
        Media::Items(media) => format!("a stream of items ({media})"),
    }
}

/// Response headers: the response's own and those every response shares.
fn headers_of<'a>(api: &'a Api, rev: &'a Response) -> Vec<&'a ResponseHeader> {
    rev.headers
        .iter()
        .chain(api.common_headers.iter())
        .collect()
}

/// The parameter of `of` that stands for `p` of `other`: the same place in
/// the path template for path parameters, else the same location and name
/// (header names in any case).
pub(super) fn find_param<'o>(of: &'o Operation, other: &Operation, p: &Param) -> Option<&'o Param> {
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
