//! The routes outside the spec: `/healthz` for load balancers,
//! `/openapi.yaml` (the spec itself) and `/docs` (the reference page made
//! from it). No key is needed for any of them, and no rate limit counts
//! them.

use crate::service::PetStore;
use actix_web::{web, HttpRequest, HttpResponse};

/// Registers the three routes. The reference page's headers are worked
/// out here, once, at start-up: a page without its inline style and script
/// is refused then, not at a request.
pub fn configure(cfg: &mut web::ServiceConfig, docs: web::Data<DocsHeaders>) {
    cfg.app_data(docs)
        .route("/healthz", web::get().to(healthz))
        .route("/openapi.yaml", web::get().to(openapi))
        .route("/docs", web::get().to(self::docs));
}

/// The longest a health check waits for the database: load balancers
/// time their checks out after a second or two.
const HEALTH_CHECK_BOUND: std::time::Duration = std::time::Duration::from_millis(900);

/// 200 when the database answers, 503 when it does not, within
/// [`HEALTH_CHECK_BOUND`] either way. While the database is known to be
/// away, the check is answered at once except when it is time for a probe
/// (see the store's circuit breaker): a load balancer that has taken the
/// instance out of rotation brings it back by its checks alone.
async fn healthz(state: web::Data<PetStore>) -> HttpResponse {
    let bound = state.db.timeout().min(HEALTH_CHECK_BOUND);
    let checked = tokio::time::timeout(bound, state.db.ping())
        .await
        .unwrap_or_else(|_| {
            Err(crate::error::ApiError::unavailable(format!(
                "no answer within {bound:?}"
            )))
        });
    match checked {
        Ok(()) => HttpResponse::Ok().content_type("text/plain").body("ok\n"),
        Err(e) => {
            if !matches!(e, crate::error::ApiError::Unavailable { cause: None, .. }) {
                tracing::warn!(error = %e, "health check: database unavailable");
            }
            HttpResponse::ServiceUnavailable()
                .content_type("text/plain")
                .body("database unavailable\n")
        }
    }
}

async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/yaml")
        .body(petstore_api::SPEC_YAML)
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
/// and its policy lets it talk only to this server.
async fn docs(request: HttpRequest, headers: web::Data<DocsHeaders>) -> HttpResponse {
    use actix_web::http::header;
    let DocsHeaders { etag, policy } = headers.get_ref();
    let fresh = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|t| t.trim() == *etag || t.trim() == "*")
        });
    let mut response = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::ETAG, etag.as_str()))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_SECURITY_POLICY, policy.as_str()));
    if fresh {
        response.finish()
    } else {
        response
            .content_type("text/html; charset=utf-8")
            .body(petstore_api::DOCS_HTML)
    }
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
