//! The gate every API request passes first: who is calling (a bearer key, or
//! the client address when there is no valid key), whether the operation
//! lets them in, whether their rate limits allow the request, whether its
//! headers are within the size the server accepts, and the `X-RateLimit-*`
//! headers on whatever the answer is.
//!
//! What an operation requires comes from the spec: the `security` of the
//! operation the generated glue attached to the request
//! ([`Operation::of`]), or the document's own for requests no operation
//! serves (an unknown path). An operation with `security: []` is public:
//! anyone may call it, and callers without a valid key are limited per
//! client address, as every anonymous request is.

use crate::app::Shared;
use crate::error::ApiError;
use crate::keys::{KeyInfo, Plan};
use crate::lifecycle::Entry;
use crate::limiter::{Decision, Subject, Verdict};
use http::header::{self, HeaderName, HeaderValue};
use petstore_api::metadata::{DEFAULT_SECURITY, SECURITY_SCHEMES};
use petstore_api::models;
use petstore_api::operations::ErrorResponse;
use petstore_api::runtime::{Operation, Outgoing, SchemeKind, SecurityRequirement, StatusCode};
use std::net::IpAddr;

/// The security schemes the gate can check: HTTP bearer keys. Any other
/// scheme an operation requires is refused at start-up, by
/// [`unsupported_schemes`], rather than silently not enforced.
fn supported(kind: &SchemeKind) -> bool {
    matches!(kind, SchemeKind::Http { scheme } if scheme.eq_ignore_ascii_case("bearer"))
}

/// Every scheme the spec requires somewhere that the gate cannot check,
/// with where it is required.
pub fn unsupported_schemes() -> Vec<String> {
    let required = petstore_api::metadata::OPERATIONS
        .iter()
        .map(|op| (op.id, op.security))
        .chain([("the document's default security", DEFAULT_SECURITY)]);
    let mut problems = Vec::new();
    for (who, requirements) in required {
        for (name, _) in requirements.iter().flat_map(|r| r.schemes) {
            match SECURITY_SCHEMES.iter().find(|s| s.name == *name) {
                Some(scheme) if supported(&scheme.kind) => {}
                Some(scheme) => problems.push(format!(
                    "{who} requires security scheme `{name}` ({:?}), which the server cannot check",
                    scheme.kind
                )),
                None => problems.push(format!("{who} requires unknown security scheme `{name}`")),
            }
        }
    }
    problems
}

/// An error answer with the spec's `Error` body.
pub fn error(status: StatusCode, code: &str, message: &str) -> Outgoing {
    ErrorResponse::new(status, models::Error::new(status, code, message)).into_http()
}

/// What the gate reads of a request, as either framework hands it over.
#[derive(Debug)]
pub struct Knock<'a> {
    /// The operation the router attached (`None`: no route matched).
    pub operation: Option<&'static Operation>,
    /// The connection's peer.
    pub peer: IpAddr,
    /// `Authorization`, when sent (`Some("")` when it is not text).
    pub authorization: Option<&'a str>,
    /// Every `X-Forwarded-For` value, in order.
    pub forwarded: Vec<&'a str>,
    /// The size of the request's headers ([`crate::limits::header_bytes`]).
    pub header_bytes: usize,
}

/// A request the gate let through: who called, the limits' decision and
/// the operation's lifecycle, whose headers go on whatever its route
/// answers ([`Admitted::headers`]).
#[derive(Debug)]
pub struct Admitted {
    /// The caller's key, when a valid one was given: for the handler
    /// (`RequestContext::extension`) and the request log.
    pub key: Option<KeyInfo>,
    limits: RateLimitHeaders,
    lifecycle: Option<&'static Entry>,
}

/// `X-RateLimit-Limit`, `-Remaining` and `-Reset` of a decision.
type RateLimitHeaders = [(HeaderName, HeaderValue); 3];

fn rate_limit_headers(decision: &Decision) -> RateLimitHeaders {
    [
        (
            HeaderName::from_static("x-ratelimit-limit"),
            decision.limit.into(),
        ),
        (
            HeaderName::from_static("x-ratelimit-remaining"),
            decision.remaining.into(),
        ),
        (
            HeaderName::from_static("x-ratelimit-reset"),
            decision.reset.into(),
        ),
    ]
}

impl Admitted {
    /// The headers the answer gets: the lifecycle's (added beside any the
    /// route set) and the rate limits' (set), with whether each is added.
    pub fn headers(&self) -> impl Iterator<Item = (&HeaderName, &HeaderValue, bool)> {
        let lifecycle = self
            .lifecycle
            .into_iter()
            .flat_map(|entry| entry.headers())
            .map(|(name, value)| (name, value, true));
        let limits = self.limits.iter().map(|(name, value)| (name, value, false));
        lifecycle.chain(limits)
    }
}

/// The key in `Authorization: Bearer <key>`, if one is given.
fn bearer(authorization: Option<&str>) -> Option<&str> {
    let (scheme, key) = authorization?.split_once(' ')?;
    let key = key.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !key.is_empty()).then_some(key)
}

/// Admits the request or answers it: 401 without a valid key where the
/// operation needs one, 429 over a limit or while banned, 431 for headers
/// over the limit, 410 for an operation past its sunset. Every answer the
/// gate gives carries the rate-limit headers (and a sunset's, the
/// lifecycle's); one it lets through gets them from [`Admitted::headers`].
pub async fn admit(shared: &Shared, knock: &Knock<'_>) -> Result<Admitted, Outgoing> {
    let state = &shared.state;
    let requirements = knock.operation.map_or(DEFAULT_SECURITY, |op| op.security);
    let open = SecurityRequirement::admits_anonymous(requirements);
    let now = (state.clock)();
    let key = match bearer(knock.authorization) {
        Some(presented) => match shared.key_cache.authenticate(&state.db, presented).await {
            Ok(key) => key,
            Err(e) => return Err(failed("key lookup failed", e)),
        },
        None => None,
    };
    // A request without a valid key (none, or a guess) is counted against
    // the client's address at the free plan's rates, so that guessing keys
    // costs what anonymous requests cost.
    let (subject, limits) = match &key {
        Some(k) => (Subject::Key(k.id), k.limits),
        None => {
            let free = Plan::Free
                .default_limits()
                .expect("the free plan has limits");
            let client = shared.proxies.client(knock.peer, &knock.forwarded);
            (Subject::Address(client), free)
        }
    };
    let decision = match shared.limiter.check(subject, limits, now.timestamp()).await {
        Ok(decision) => decision,
        // Without a decision the request is refused, never let through
        // unlimited: 503 while the database is away, 500 otherwise.
        Err(e) => return Err(failed("rate limit check failed", e)),
    };
    let refused = match decision.verdict {
        Verdict::Banned { .. } => Some("api_key_banned"),
        Verdict::Limited { .. } => Some("rate_limited"),
        Verdict::Allowed => None,
    };
    if let (Some(reason), Some(metrics)) = (refused, &shared.metrics) {
        metrics.refused(reason);
    }
    let max_header_bytes = shared.client_limits.max_header_bytes;
    let lifecycle = knock.operation.and_then(crate::lifecycle::entry_of);
    let mut refusal = match (decision.verdict, &key) {
        (Verdict::Banned { retry_after }, _) => {
            let mut r = error(
                StatusCode::TOO_MANY_REQUESTS,
                "api_key_banned",
                &format!(
                    "too many requests while rate limited: banned for {retry_after} more seconds"
                ),
            );
            r.headers_mut()
                .insert(header::RETRY_AFTER, retry_after.into());
            r
        }
        (Verdict::Limited { retry_after }, _) => {
            let mut r = error(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                &format!(
                    "rate limit of {} requests exceeded; retry in {retry_after} seconds",
                    decision.limit
                ),
            );
            r.headers_mut()
                .insert(header::RETRY_AFTER, retry_after.into());
            r
        }
        (Verdict::Allowed, _) if knock.header_bytes > max_header_bytes => error(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "request_header_fields_too_large",
            &format!(
                "the request's headers take {} bytes, more than the {max_header_bytes} this \
                 server accepts",
                knock.header_bytes
            ),
        ),
        (Verdict::Allowed, None) if !open => {
            let message = if knock.authorization.is_some() {
                "the API key is unknown or revoked"
            } else {
                "send an API key as `Authorization: Bearer <key>`"
            };
            let mut r = error(StatusCode::UNAUTHORIZED, "unauthorized", message);
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            r
        }
        (Verdict::Allowed, _) => match lifecycle.and_then(|entry| entry.refusal(now)) {
            Some(gone) => gone,
            None => {
                return Ok(Admitted {
                    key,
                    limits: rate_limit_headers(&decision),
                    lifecycle,
                })
            }
        },
    };
    for (name, value) in rate_limit_headers(&decision) {
        refusal.headers_mut().insert(name, value);
    }
    Err(refusal)
}

/// The answer to a failure of the gate's own storage: 503 `unavailable`
/// while the database is away, 500 otherwise, logged with what failed.
fn failed(what: &str, e: ApiError) -> Outgoing {
    ErrorResponse::from(e.context(what)).into_http()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pet_store_spec_needs_only_what_the_gate_checks() {
        assert_eq!(unsupported_schemes(), Vec::<String>::new());
    }
}
