//! The actix-web adapter: serves the framework-neutral glue on actix-web.
//!
//! actix-web speaks `http` 0.2 and holds its requests in `!Send` values;
//! the glue reads a [`RequestContext`] (`http` 1, `Send`) and renders an
//! [`Outgoing`]. This module converts at the two edges of every request:
//! [`context`] before the glue, [`respond`] after it.

use super::body::BodyError;
use super::context::RequestContext;
use super::rejection::Rejection;
use super::response::{closes_connection, Outgoing, OutgoingBody};
use super::ErrorAnswer;
use actix_web::error::PayloadError;
use actix_web::web::{self, Bytes};
use actix_web::{HttpMessage as _, HttpRequest, HttpResponse, Route};
use futures_util::StreamExt as _;
use std::future::Future;
use std::sync::Arc;

/// What middleware attached to a request for its handler, as the
/// [`RequestContext`] will hold it: actix-web's own extensions are not
/// `Send`.
#[derive(Default)]
struct Attached(http::Extensions);

/// Attaches `value` to the request for its handler, which reads it with
/// [`RequestContext::extension`]: what middleware calls where it would
/// insert into actix-web's extensions.
pub fn attach<T: Clone + Send + Sync + 'static>(request: &impl actix_web::HttpMessage, value: T) {
    let mut extensions = request.extensions_mut();
    if !extensions.contains::<Attached>() {
        extensions.insert(Attached::default());
    }
    if let Some(attached) = extensions.get_mut::<Attached>() {
        attached.0.insert(value);
    }
}

/// The neutral context of an actix-web request: its method, URI, headers,
/// matched path parameters and attached values.
pub fn context(request: &HttpRequest) -> RequestContext {
    let (mut parts, ()) = http::Request::new(()).into_parts();
    parts.method =
        http::Method::from_bytes(request.method().as_str().as_bytes()).unwrap_or_default();
    parts.uri = request.uri().to_string().parse().unwrap_or_default();
    parts.headers.reserve(request.headers().len());
    for (name, value) in request.headers() {
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(name.as_str().as_bytes()),
            http::HeaderValue::from_bytes(value.as_bytes()),
        ) {
            parts.headers.append(name, value);
        }
    }
    if let Some(attached) = request.extensions().get::<Attached>() {
        parts.extensions = attached.0.clone();
    }
    let path = request
        .match_info()
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    RequestContext::new(parts, path)
}

/// An actix-web body stream as the glue reads bodies.
pub fn payload(payload: web::Payload) -> ActixPayload {
    fn chunk(chunk: Result<Bytes, PayloadError>) -> Result<Bytes, BodyError> {
        chunk.map_err(|e| match &e {
            PayloadError::Io(io) => BodyError::of(io),
            other => BodyError {
                timed_out: false,
                message: other.to_string(),
            },
        })
    }
    payload.map(chunk as fn(_) -> _)
}

/// Sends a neutral response on actix-web: its status, headers and body (a
/// stream flushed chunk by chunk); `Connection: close` closes the
/// connection once it is sent.
pub fn respond(outgoing: Outgoing) -> HttpResponse {
    let close = closes_connection(&outgoing);
    let (parts, body) = outgoing.into_parts();
    let status = actix_web::http::StatusCode::from_u16(parts.status.as_u16())
        .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR);
    let mut builder = HttpResponse::build(status);
    for (name, value) in &parts.headers {
        if name == http::header::CONNECTION {
            continue;
        }
        builder.append_header((name.as_str(), value.as_bytes()));
    }
    let mut response = match body {
        OutgoingBody::Empty => builder.finish(),
        OutgoingBody::Full(bytes) => builder.body(bytes),
        OutgoingBody::Stream(stream) => {
            builder.streaming(stream.map(Ok::<Bytes, std::convert::Infallible>))
        }
    };
    if close {
        response
            .head_mut()
            .set_connection_type(actix_web::http::ConnectionType::Close);
    }
    response
}

/// `route` serving `handler`, one operation's glue: it reads the request
/// from its context and body, and renders its answer.
pub fn to<S, F, Fut>(route: Route, handler: F) -> Route
where
    S: 'static,
    F: Fn(Arc<S>, RequestContext, ActixPayload) -> Fut + Clone + 'static,
    Fut: Future<Output = Outgoing> + 'static,
{
    route.to(
        move |service: web::Data<S>, request: HttpRequest, body: web::Payload| {
            let handler = handler.clone();
            async move {
                let outgoing =
                    handler(service.into_inner(), context(&request), payload(body)).await;
                respond(outgoing)
            }
        },
    )
}

/// The body stream an operation's glue reads on actix-web.
pub type ActixPayload = futures_util::stream::Map<
    web::Payload,
    fn(Result<Bytes, PayloadError>) -> Result<Bytes, BodyError>,
>;

/// The answer for a request that no route matches.
pub fn not_found<E: ErrorAnswer>(
    request: &HttpRequest,
    reject: impl Fn(Rejection) -> E,
) -> HttpResponse {
    respond(super::not_found(
        request.method().as_str(),
        request.path(),
        reject,
    ))
}

/// The answer for a method that the path's resource does not serve, with
/// `Allow` naming the methods it does (`GET, POST`).
pub fn method_not_allowed<E: ErrorAnswer>(
    request: &HttpRequest,
    allow: &str,
    reject: impl Fn(Rejection) -> E,
) -> HttpResponse {
    respond(super::method_not_allowed(
        request.method().as_str(),
        request.path(),
        allow,
        reject,
    ))
}

/// A route for a method that has no constructor of its own (`QUERY`,
/// `OPTIONS`, `LINK`): a generated crate names only methods its generator
/// checked are HTTP tokens.
pub fn route_for(method: &'static str) -> Route {
    match actix_web::http::Method::from_bytes(method.as_bytes()) {
        Ok(method) => web::method(method),
        Err(_) => panic!("`{method}` is not an HTTP method name"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::MessageBody as _;
    use actix_web::test::TestRequest;

    #[test]
    fn the_context_carries_what_the_request_and_its_middleware_hold() {
        let request = TestRequest::get()
            .uri("/pets/42?limit=2")
            .param("petId", "42")
            .insert_header(("X-Count", "5"))
            .to_http_request();
        attach(&request, 7_u32);
        let context = context(&request);
        assert_eq!(context.method(), http::Method::GET);
        assert_eq!(context.path(), "/pets/42");
        assert_eq!(context.query_string(), "limit=2");
        assert_eq!(context.headers().get("x-count").unwrap(), "5");
        assert_eq!(context.path_parameter("petId"), Some("42"));
        assert_eq!(context.extension::<u32>(), Some(7));
    }

    #[test]
    fn a_response_keeps_its_status_headers_body_and_closing() {
        let mut builder = super::super::respond(http::StatusCode::CREATED);
        super::super::set_header(&mut builder, "Location", "/pets/1");
        let mut outgoing = super::super::json(builder, &[1, 2]).unwrap();
        super::super::close_connection(&mut outgoing);
        let response = respond(outgoing);
        assert_eq!(response.status().as_u16(), 201);
        assert_eq!(response.headers().get("location").unwrap(), "/pets/1");
        assert!(!response.headers().contains_key("connection"));
        assert!(!response.head().keep_alive());
        let body = response.into_body().try_into_bytes().unwrap();
        assert_eq!(&body[..], b"[1,2]");
    }
}
