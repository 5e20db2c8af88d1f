//! Deprecation, sunset and stability on the wire, read from the operation the
//! generated glue attached to the request: no date, path or stability of the
//! spec is repeated here, and no path is matched again.
//!
//! Responses of a deprecated operation carry `Deprecation` (RFC 9745), `Sunset`
//! (RFC 8594) and `Link: <successor>; rel="successor-version"`; from the sunset
//! date (00:00 UTC) on, the operation answers 410 `sunset` without running.
//! Operations that are not stable send `X-API-Stability`.

use chrono::{DateTime, NaiveDate, Utc};
use http::header::{HeaderName, HeaderValue};
use petstore_api::metadata::{self, BASE_PATH};
use petstore_api::runtime::{Operation, Outgoing, Stability, StatusCode};
use std::sync::LazyLock;

/// What the lifecycle adds to one operation's answers.
#[derive(Debug)]
pub struct Entry {
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

/// The lifecycle of an operation that has one to show (deprecated, or
/// not stable).
pub fn entry_of(op: &'static Operation) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| std::ptr::eq(e.operation, op))
}

impl Entry {
    /// The headers every answer of the operation carries, beside the
    /// route's own.
    pub fn headers(&self) -> impl Iterator<Item = (&HeaderName, &HeaderValue)> {
        self.headers.iter().map(|(name, value)| (name, value))
    }

    /// The 410 `sunset` the operation answers from its sunset date on
    /// (with its lifecycle headers), instead of running; `None` before.
    pub fn refusal(&self, now: DateTime<Utc>) -> Option<Outgoing> {
        self.sunset.filter(|sunset| now >= *sunset)?;
        let status = StatusCode::GONE;
        let message = format!(
            "operation {} was sunset on {}",
            self.operation.id,
            self.operation.sunset.unwrap_or_default()
        );
        let mut gone = crate::gate::error(status, "sunset", &message);
        for (name, value) in self.headers() {
            gone.headers_mut().append(name.clone(), value.clone());
        }
        Some(gone)
    }
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
