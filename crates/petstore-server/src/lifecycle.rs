//! Deprecation, sunset and stability on the wire, read from the operation the
//! generated glue attached to the request: no date, path or stability of the
//! spec is repeated here, and no path is matched again.
//!
//! Responses of a deprecated operation carry `Deprecation` (RFC 9745), `Sunset`
//! (RFC 8594) and `Link: <successor>; rel="successor-version"`; from the sunset
//! date (00:00 UTC) on, the operation answers 410 `sunset` without running.
//! Operations that are not stable send `X-API-Stability`.

use crate::service::PetStore;
use actix_web::body::BoxBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::web;
use chrono::{DateTime, NaiveDate, Utc};
use petstore_api::metadata::{self, BASE_PATH};
use petstore_api::models;
use petstore_api::operations::ErrorResponse;
use petstore_api::runtime::StatusCode;
use petstore_api::runtime::{self, Operation, Stability};
use std::sync::LazyLock;

/// What the lifecycle adds to one operation's answers.
#[derive(Debug)]
struct Entry {
    operation: &'static Operation,
    /// Headers every response of the operation carries.
    headers: Vec<(HeaderName, HeaderValue)>,
    sunset: Option<DateTime<Utc>>,
}

/// The entries of the operations that have a lifecycle to show, built once
/// from the metadata.
static ENTRIES: LazyLock<Vec<Entry>> = LazyLock::new(|| {
    metadata::OPERATIONS
        .iter()
        .filter(|op| op.deprecated || op.stability != Stability::Stable)
        .map(entry)
        .collect()
});

/// Midnight UTC at the start of a YYYY-MM-DD date.
fn start_of(date: &str) -> Option<DateTime<Utc>> {
    NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .ok()?
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
}

fn http_date(t: DateTime<Utc>) -> String {
    t.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn entry(op: &'static Operation) -> Entry {
    let mut headers = Vec::new();
    let mut add = |name: &'static str, value: String| {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.push((HeaderName::from_static(name), value));
        }
    };
    if op.stability != Stability::Stable {
        add("x-api-stability", op.stability.as_str().to_string());
    }
    let sunset = op.sunset.and_then(start_of);
    if op.deprecated {
        let since = op.deprecated_since.and_then(start_of);
        add(
            "deprecation",
            since.map_or("?1".into(), |t| format!("@{}", t.timestamp())),
        );
        if let Some(sunset) = sunset {
            add("sunset", http_date(sunset));
        }
        if let Some(successor) = op.successor.and_then(metadata::by_id) {
            add(
                "link",
                format!("<{BASE_PATH}{}>; rel=\"successor-version\"", successor.path),
            );
        }
    }
    Entry {
        operation: op,
        headers,
        sunset,
    }
}

fn entry_of(op: &'static Operation) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| std::ptr::eq(e.operation, op))
}

/// Refuses a sunset operation with 410, and adds the lifecycle headers to
/// whatever its route answers. Requests no operation serves pass untouched.
pub async fn lifecycle(
    request: ServiceRequest,
    inner: impl AsyncFnOnce(ServiceRequest) -> Result<ServiceResponse<BoxBody>, actix_web::Error>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(entry) = Operation::of(request.request()).and_then(entry_of) else {
        return inner(request).await;
    };
    let Some(state) = request.app_data::<web::Data<PetStore>>().cloned() else {
        return Err(actix_web::error::ErrorInternalServerError(
            "application state missing",
        ));
    };
    let mut response = match entry.sunset {
        Some(sunset) if (state.clock)() >= sunset => {
            let status = StatusCode::GONE;
            let message = format!(
                "operation {} was sunset on {}",
                entry.operation.id,
                entry.operation.sunset.unwrap_or_default()
            );
            let body = models::Error::new(status, "sunset", message);
            request.into_response(runtime::actix::respond(
                ErrorResponse::new(status, body).into_http(),
            ))
        }
        _ => inner(request).await?,
    };
    for (name, value) in &entry.headers {
        response.headers_mut().append(name.clone(), value.clone());
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(op: &'static Operation) -> Vec<(String, String)> {
        entry_of(op)
            .map(|e| {
                e.headers
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn headers_come_from_the_metadata() {
        assert_eq!(
            headers(metadata::GET_PET),
            [
                ("deprecation".to_string(), "@1793491200".to_string()),
                (
                    "sunset".to_string(),
                    "Thu, 05 Dec 2030 00:00:00 GMT".to_string()
                ),
                (
                    "link".to_string(),
                    "</v1/pets>; rel=\"successor-version\"".to_string()
                ),
            ]
        );
        assert!(entry_of(metadata::REPLACE_PET).is_none());
        assert_eq!(headers(metadata::GET_CATEGORY)[0].1, "beta");
        assert_eq!(headers(metadata::UPDATE_INVENTORY)[0].1, "experimental");
    }
}
