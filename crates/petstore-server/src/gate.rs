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

use crate::error::ApiError;
use crate::keys::{self, KeyInfo, Plan};
use crate::limiter::{Decision, Limiter, Subject, Verdict};
use crate::limits::ClientLimits;
use crate::metrics::Metrics;
use crate::proxies::TrustedProxies;
use crate::service::PetStore;
use actix_web::body::BoxBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue, X_FORWARDED_FOR};
use actix_web::{web, HttpMessage, HttpResponse};
use petstore_api::metadata::{DEFAULT_SECURITY, SECURITY_SCHEMES};
use petstore_api::models;
use petstore_api::operations::ErrorResponse;
use petstore_api::runtime::StatusCode;
use petstore_api::runtime::{self, Operation, SchemeKind, SecurityRequirement};
use std::net::{IpAddr, Ipv4Addr};

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

fn error(status: StatusCode, code: &str, message: &str) -> HttpResponse {
    runtime::actix::respond(
        ErrorResponse::new(status, models::Error::new(status, code, message)).into_http(),
    )
}

/// The key in `Authorization: Bearer <key>`, if one is given.
fn bearer(request: &ServiceRequest) -> Option<String> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, key) = value.split_once(' ')?;
    let key = key.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !key.is_empty()).then(|| key.to_string())
}

/// Admits the request or answers it: 401 without a valid key where the
/// operation needs one, 429 over a limit or while banned. An admitted
/// request goes on to `inner`, with the caller's [`KeyInfo`] attached when a
/// valid key was given. Every answer carries the rate-limit headers.
pub async fn gate(
    request: ServiceRequest,
    inner: impl AsyncFnOnce(ServiceRequest) -> Result<ServiceResponse<BoxBody>, actix_web::Error>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let (Some(state), Some(limiter), Some(cache), Some(proxies)) = (
        request.app_data::<web::Data<PetStore>>().cloned(),
        request.app_data::<web::Data<Limiter>>().cloned(),
        request.app_data::<web::Data<keys::KeyCache>>().cloned(),
        request.app_data::<web::Data<TrustedProxies>>().cloned(),
    ) else {
        return Err(actix_web::error::ErrorInternalServerError(
            "application state missing",
        ));
    };
    let requirements = Operation::of(request.request()).map_or(DEFAULT_SECURITY, |op| op.security);
    let open = SecurityRequirement::admits_anonymous(requirements);
    let now = (state.clock)().timestamp();
    let anonymous = || {
        let peer = request
            .peer_addr()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip());
        let forwarded: Vec<&str> = request
            .headers()
            .get_all(X_FORWARDED_FOR)
            .filter_map(|value| value.to_str().ok())
            .collect();
        let free = Plan::Free
            .default_limits()
            .expect("the free plan has limits");
        (Subject::Address(proxies.client(peer, &forwarded)), free)
    };
    let key = match bearer(&request) {
        Some(presented) => match cache.authenticate(&state.db, &presented).await {
            Ok(key) => key,
            Err(e) => return Ok(failed(request, "key lookup failed", e)),
        },
        None => None,
    };
    // A request without a valid key (none, or a guess) is counted against
    // the client's address at the free plan's rates, so that guessing keys
    // costs what anonymous requests cost.
    let (subject, limits) = match &key {
        Some(k) => (Subject::Key(k.id), k.limits),
        None => anonymous(),
    };
    let decision = match limiter.check(subject, limits, now).await {
        Ok(decision) => decision,
        // Without a decision the request is refused, never let through
        // unlimited: 503 while the database is away, 500 otherwise.
        Err(e) => return Ok(failed(request, "rate limit check failed", e)),
    };
    let max_header_bytes = request.app_data::<web::Data<ClientLimits>>().map_or_else(
        || ClientLimits::default().max_header_bytes,
        |l| l.max_header_bytes,
    );
    let header_bytes = crate::limits::header_bytes(&request);
    let refused = match decision.verdict {
        Verdict::Banned { .. } => Some("api_key_banned"),
        Verdict::Limited { .. } => Some("rate_limited"),
        Verdict::Allowed => None,
    };
    if let (Some(reason), Some(metrics)) = (refused, request.app_data::<web::Data<Metrics>>()) {
        metrics.refused(reason);
    }
    let mut response = match (decision.verdict, key) {
        (Verdict::Banned { retry_after }, _) => {
            let mut r = error(
                StatusCode::TOO_MANY_REQUESTS,
                "api_key_banned",
                &format!(
                    "too many requests while rate limited: banned for {retry_after} more seconds"
                ),
            );
            set(&mut r, header::RETRY_AFTER, retry_after);
            request.into_response(r)
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
            set(&mut r, header::RETRY_AFTER, retry_after);
            request.into_response(r)
        }
        (Verdict::Allowed, _) if header_bytes > max_header_bytes => {
            let r = error(
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "request_header_fields_too_large",
                &format!(
                    "the request's headers take {header_bytes} bytes, more than the \
                     {max_header_bytes} this server accepts"
                ),
            );
            request.into_response(r)
        }
        (Verdict::Allowed, None) if !open => {
            let message = if request.headers().contains_key(header::AUTHORIZATION) {
                "the API key is unknown or revoked"
            } else {
                "send an API key as `Authorization: Bearer <key>`"
            };
            let mut r = error(StatusCode::UNAUTHORIZED, "unauthorized", message);
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            request.into_response(r)
        }
        (Verdict::Allowed, key) => {
            if let Some(key) = key {
                // For the handler (`RequestContext::extension`), and for
                // the request log, which reads actix-web's own.
                runtime::actix::attach(&request, key.clone());
                request.extensions_mut().insert::<KeyInfo>(key);
            }
            inner(request).await?
        }
    };
    rate_limit_headers(response.response_mut(), &decision);
    Ok(response)
}

/// The answer to a failure of the gate's own storage: 503 `unavailable`
/// while the database is away, 500 otherwise, logged with what failed.
fn failed(request: ServiceRequest, what: &str, e: ApiError) -> ServiceResponse<BoxBody> {
    request.into_response(runtime::actix::respond(
        ErrorResponse::from(e.context(what)).into_http(),
    ))
}

/// Sets a header to a number (numbers are always valid header text).
fn set(response: &mut HttpResponse, name: HeaderName, value: impl Into<HeaderValue>) {
    response.headers_mut().insert(name, value.into());
}

fn rate_limit_headers(response: &mut HttpResponse, decision: &Decision) {
    set(
        response,
        HeaderName::from_static("x-ratelimit-limit"),
        decision.limit,
    );
    set(
        response,
        HeaderName::from_static("x-ratelimit-remaining"),
        decision.remaining,
    );
    set(
        response,
        HeaderName::from_static("x-ratelimit-reset"),
        decision.reset,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pet_store_spec_needs_only_what_the_gate_checks() {
        assert_eq!(unsupported_schemes(), Vec::<String>::new());
    }
}
