//! Deprecation, sunset and stability on the wire, read from the generated
//! operation metadata: no date or path of the spec is repeated here.
//!
//! Responses of a deprecated operation carry `Deprecation` (RFC 9745), `Sunset`
//! (RFC 8594) and `Link: <successor>; rel="successor-version"`; from the sunset
//! date (00:00 UTC) on, the operation answers 410 `sunset` without running.
//! Operations with `x-stability` send `X-API-Stability`.

use crate::service::PetStore;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web;
use chrono::{DateTime, NaiveDate, Utc};
use petstore_api::metadata::{self, Operation, BASE_PATH};
use petstore_api::models;
use petstore_api::operations::ErrorResponse;

/// The operations' routes, matched before the router runs so that a sunset
/// operation is refused before its handler does anything.
#[derive(Debug)]
pub struct Lifecycle {
    routes: Vec<Route>,
}

#[derive(Debug)]
struct Route {
    method: Method,
    path: Template,
    operation: &'static Operation,
    /// Headers every response of the operation carries.
    headers: Vec<(HeaderName, HeaderValue)>,
    sunset: Option<DateTime<Utc>>,
}

/// A path template of the spec (`/v1/pets/{petId}`), matched segment by
/// segment: a `{name}` segment matches any one non-empty segment. (This runs on
/// every request, before the router; comparing segments costs a fraction of
/// a regular expression.)
#[derive(Debug)]
struct Template(Vec<Option<String>>);

impl Template {
    fn new(template: &str) -> Self {
        Template(
            template
                .split('/')
                .map(|s| (!(s.starts_with('{') && s.ends_with('}'))).then(|| s.to_string()))
                .collect(),
        )
    }

    fn is_match(&self, path: &str) -> bool {
        // Most paths have another number of segments than a given template,
        // which counting slashes tells more cheaply than splitting.
        path.bytes().filter(|&b| b == b'/').count() + 1 == self.0.len()
            && self
                .0
                .iter()
                .zip(path.split('/'))
                .all(|(template, segment)| match template {
                    Some(literal) => literal == segment,
                    None => !segment.is_empty(),
                })
    }
}

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

impl Lifecycle {
    pub fn from_metadata() -> Self {
        let routes = metadata::OPERATIONS
            .iter()
            .filter(|op| op.deprecated || op.stability.is_some())
            .filter_map(|op| {
                let mut headers = Vec::new();
                let mut add = |name: &'static str, value: String| {
                    if let Ok(value) = HeaderValue::from_str(&value) {
                        headers.push((HeaderName::from_static(name), value));
                    }
                };
                if let Some(stability) = op.stability {
                    add("x-api-stability", stability.as_str().to_string());
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
                Some(Route {
                    method: Method::from_bytes(op.method.as_bytes()).ok()?,
                    path: Template::new(&format!("{BASE_PATH}{}", op.path)),
                    operation: op,
                    headers,
                    sunset,
                })
            })
            .collect();
        Lifecycle { routes }
    }

    fn route(&self, method: &Method, path: &str) -> Option<&Route> {
        self.routes
            .iter()
            .find(|r| r.method == method && r.path.is_match(path))
    }
}

pub async fn lifecycle(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let (Some(table), Some(state)) = (
        request.app_data::<web::Data<Lifecycle>>().cloned(),
        request.app_data::<web::Data<PetStore>>().cloned(),
    ) else {
        return Err(actix_web::error::ErrorInternalServerError(
            "application state missing",
        ));
    };
    let Some(route) = table.route(request.method(), request.path()) else {
        return next
            .call(request)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    let mut response = match route.sunset {
        Some(sunset) if (state.clock)() >= sunset => {
            let status = StatusCode::GONE;
            let message = format!(
                "operation {} was sunset on {}",
                route.operation.id,
                route.operation.sunset.unwrap_or_default()
            );
            let body = models::Error::new(status, "sunset", message);
            request.into_response(ErrorResponse::new(status, body).into_http())
        }
        _ => next.call(request).await?.map_into_boxed_body(),
    };
    for (name, value) in &route.headers {
        response.headers_mut().append(name.clone(), value.clone());
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_whole_segments() {
        let t = Template::new("/v1/pets/{petId}");
        assert!(t.is_match("/v1/pets/7"));
        assert!(!t.is_match("/v1/pets"));
        assert!(!t.is_match("/v1/pets/"));
        assert!(!t.is_match("/v1/pets/7/orders"));
        assert!(!t.is_match("/v1/petsx/7"));
        let t = Template::new("/v1/store/orders/{orderId}/complete");
        assert!(t.is_match("/v1/store/orders/3/complete"));
        assert!(!t.is_match("/v1/store/orders/3"));
    }

    #[test]
    fn headers_come_from_the_metadata() {
        let table = Lifecycle::from_metadata();
        let get_pet = table
            .route(&Method::GET, "/v1/pets/7")
            .expect("getPet is deprecated");
        assert_eq!(get_pet.operation.id, "getPet");
        let headers: Vec<(String, String)> = get_pet
            .headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_string()))
            .collect();
        assert_eq!(
            headers,
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
        assert!(table.route(&Method::PUT, "/v1/pets/7").is_none());
        let beta = table.route(&Method::GET, "/v1/categories/3").unwrap();
        assert_eq!(beta.headers[0].1, "beta");
        let experimental = table.route(&Method::PATCH, "/v1/inventory/3").unwrap();
        assert_eq!(experimental.headers[0].1, "experimental");
    }
}
