//! The routes outside the spec: `/healthz` for load balancers,
//! `/openapi.yaml` (the spec itself) and `/docs` (the reference page made
//! from it). No key is needed for any of them, and no rate limit counts
//! them. Each answer is made here, the same for both frameworks; their
//! adapters route to them.

use crate::store::Db;
use http::header::{self, HeaderValue};
use petstore_api::runtime::{Outgoing, StatusCode};

/// The paths of the routes outside the spec.
pub const HEALTHZ: &str = "/healthz";
pub const OPENAPI: &str = "/openapi.yaml";
pub const DOCS: &str = "/docs";

/// The longest a health check waits for the database: load balancers
/// time their checks out after a second or two.
const HEALTH_CHECK_BOUND: std::time::Duration = std::time::Duration::from_millis(900);

/// A `200` (or another status) answer with a body of `content_type`.
fn answer(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<bytes::Bytes>,
) -> Outgoing {
    let mut response = Outgoing::new(petstore_api::runtime::OutgoingBody::Full(body.into()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// 200 when the database answers, 503 when it does not, within
/// [`HEALTH_CHECK_BOUND`] either way. While the database is known to be
/// away, the check is answered at once except when it is time for a probe
/// (see the store's circuit breaker): a load balancer that has taken the
/// instance out of rotation brings it back by its checks alone.
pub async fn healthz(db: &Db) -> Outgoing {
    let bound = db.timeout().min(HEALTH_CHECK_BOUND);
    let checked = tokio::time::timeout(bound, db.ping())
        .await
        .unwrap_or_else(|_| {
            Err(crate::error::ApiError::unavailable(format!(
                "no answer within {bound:?}"
            )))
        });
    match checked {
        Ok(()) => answer(StatusCode::OK, "text/plain", "ok\n"),
        Err(e) => {
            if !matches!(e, crate::error::ApiError::Unavailable { cause: None, .. }) {
                tracing::warn!(error = %e, "health check: database unavailable");
            }
            answer(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain",
                "database unavailable\n",
            )
        }
    }
}

/// The spec itself.
pub fn openapi() -> Outgoing {
    answer(StatusCode::OK, "application/yaml", petstore_api::SPEC_YAML)
}

/// What the reference page is served with, worked out once from its
/// content.
#[derive(Debug)]
pub struct DocsHeaders {
    /// A hash of the page.
    etag: String,
    /// The page's content security policy: its own inline style and script
    /// run, by their hashes, and nothing else does; it may talk only to
    /// this server.
    policy: String,
}

impl DocsHeaders {
    /// The headers of the reference page `page`: its hash as the `ETag`, and
    /// a policy naming its one inline style and script by their hashes.
    /// An error when the page has no inline style or script.
    pub fn of(page: &str) -> Result<DocsHeaders, String> {
        use base64::Engine;
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(page.as_bytes());
        let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        let hash_of = |open: &str, close: &str| -> Result<String, String> {
            let start = page
                .find(open)
                .map(|i| i + open.len())
                .ok_or_else(|| format!("the reference page has no {open}"))?;
            let end = page[start..]
                .find(close)
                .ok_or_else(|| format!("the reference page's {open} is not closed"))?;
            let digest = Sha256::digest(&page.as_bytes()[start..start + end]);
            Ok(format!(
                "'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            ))
        };
        Ok(DocsHeaders {
            etag: format!("\"{hex}\""),
            policy: format!(
                "default-src 'none'; style-src {}; script-src {}; connect-src 'self'; \
                 img-src 'self' data:; base-uri 'none'; form-action 'none'",
                hash_of("<style>", "</style>")?,
                hash_of("<script>", "</script>")?,
            ),
        })
    }
}

/// The API reference page, generated from the spec: no key needed. Its
/// `ETag` comes from its content, so a browser revalidates (`no-cache`)
/// and gets 304 until the page changes. It loads nothing from elsewhere,
/// and its policy lets it talk only to this server. `if_none_match` is
/// the request's `If-None-Match`.
pub fn docs(headers: &DocsHeaders, if_none_match: Option<&str>) -> Outgoing {
    let DocsHeaders { etag, policy } = headers;
    let fresh = if_none_match.is_some_and(|tags| {
        tags.split(',')
            .any(|t| t.trim() == *etag || t.trim() == "*")
    });
    let mut response = if fresh {
        let mut response = Outgoing::new(petstore_api::runtime::OutgoingBody::Empty);
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        response
    } else {
        answer(
            StatusCode::OK,
            "text/html; charset=utf-8",
            petstore_api::DOCS_HTML,
        )
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (header::ETAG, etag.as_str()),
        (header::CACHE_CONTROL, "no-cache"),
        (header::CONTENT_SECURITY_POLICY, policy.as_str()),
    ] {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_page_names_its_style_and_script_or_is_refused() {
        let page = "<html><style>a{}</style><script>x()</script></html>";
        let headers = DocsHeaders::of(page).unwrap();
        assert!(headers.etag.starts_with('"') && headers.etag.len() == 26);
        assert!(headers.policy.contains("style-src 'sha256-"));
        assert!(headers.policy.contains("script-src 'sha256-"));
        assert!(DocsHeaders::of("<html><style>a{}</style></html>").is_err());
        assert!(DocsHeaders::of(petstore_api::DOCS_HTML).is_ok());
    }
}
