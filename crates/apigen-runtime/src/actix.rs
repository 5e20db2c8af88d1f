//! The actix-web adapter: serves the framework-neutral glue on actix-web.
//!
//! actix-web speaks `http` 0.2 and holds its requests in `!Send` values;
//! the glue reads a [`RequestContext`] (`http` 1, `Send`) and renders an
//! [`Outgoing`]. This module converts at the two edges of every request:
//! [`context`] before the glue, [`respond`] after it.

use super::body::BodyError;
use super::context::RequestContext;
use super::operation::Operation;
use super::rejection::Rejection;
use super::response::{closes_connection, Outgoing, OutgoingBody};
use super::ErrorAnswer;
use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::error::PayloadError;
use actix_web::web::{self, Bytes};
use actix_web::{Error, HttpMessage as _, HttpRequest, HttpResponse, Route};
use futures_util::future::LocalBoxFuture;
use futures_util::StreamExt as _;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll};

/// What middleware attached to a request for its handler, as the
/// [`RequestContext`] will hold it: actix-web's own extensions are not
/// `Send`.
#[derive(Default)]
struct ForHandler(http::Extensions);

/// Attaches `value` to the request for its handler, which reads it with
/// [`RequestContext::extension`]: what middleware calls where it would
/// insert into actix-web's extensions.
pub fn attach<T: Clone + Send + Sync + 'static>(request: &impl actix_web::HttpMessage, value: T) {
    let mut extensions = request.extensions_mut();
    if !extensions.contains::<ForHandler>() {
        extensions.insert(ForHandler::default());
    }
    if let Some(attached) = extensions.get_mut::<ForHandler>() {
        attached.0.insert(value);
    }
}

/// The neutral context of an actix-web request: its method, URI, headers,
/// matched path parameters and attached values.
pub fn context(request: &HttpRequest) -> RequestContext {
    let (mut parts, ()) = http::Request::new(()).into_parts();
    parts.method =
        http::Method::from_bytes(request.method().as_str().as_bytes()).unwrap_or_default();
    let path_and_query = request.uri().path_and_query().map_or("/", |p| p.as_str());
    parts.uri = http::Uri::try_from(path_and_query).unwrap_or_default();
    parts.headers = http::HeaderMap::with_capacity(request.headers().len());
    for (name, value) in request.headers() {
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(name.as_str().as_bytes()),
            http::HeaderValue::from_bytes(value.as_bytes()),
        ) {
            parts.headers.append(name, value);
        }
    }
    if let Some(attached) = request.extensions().get::<ForHandler>() {
        parts.extensions = attached.0.clone();
    }
    let path = request
        .match_info()
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    RequestContext::new(parts, path).with_operation(Operation::of(request))
}

/// An actix-web body stream as the glue reads bodies.
#[doc(hidden)]
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
#[doc(hidden)]
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
#[doc(hidden)]
pub type ActixPayload = futures_util::stream::Map<
    web::Payload,
    fn(Result<Bytes, PayloadError>) -> Result<Bytes, BodyError>,
>;

/// The answer for a request that no route matches.
#[doc(hidden)]
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
#[doc(hidden)]
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
#[doc(hidden)]
pub fn route_for(method: &'static str) -> Route {
    match actix_web::http::Method::from_bytes(method.as_bytes()) {
        Ok(method) => web::method(method),
        Err(_) => panic!("`{method}` is not an HTTP method name"),
    }
}

// The layer that attaches each route's operation before the caller's
// middleware runs.

/// The service a route's middleware wraps.
pub type RouteService = actix_service::boxed::BoxService<ServiceRequest, ServiceResponse, Error>;

/// Middleware that can wrap a route: any actix-web `Transform` of the
/// route's service (`from_fn(...)`, `Logger`, `Identity`, ...).
pub trait Layer<B>:
    Transform<
        RouteService,
        ServiceRequest,
        Response = ServiceResponse<B>,
        Error = Error,
        InitError = (),
    > + 'static
{
}

impl<T, B> Layer<B> for T where
    T: Transform<
            RouteService,
            ServiceRequest,
            Response = ServiceResponse<B>,
            Error = Error,
            InitError = (),
        > + 'static
{
}

/// A route serving `operation`, with `layer` around its handler. The
/// operation is attached to the request first, so the layer can read it
/// with [`Operation::of`].
#[doc(hidden)]
pub fn serve<L, B>(route: Route, operation: &'static Operation, layer: L) -> Route
where
    L: Layer<B>,
    B: MessageBody + 'static,
{
    route.wrap(Attach {
        operation,
        inner: layer,
    })
}

/// Attaches an operation, then runs the layer inside it.
struct Attach<L> {
    operation: &'static Operation,
    inner: L,
}

impl<L> Transform<RouteService, ServiceRequest> for Attach<L>
where
    L: Transform<RouteService, ServiceRequest, Error = Error, InitError = ()> + 'static,
{
    type Response = L::Response;
    type Error = Error;
    type Transform = Attached<L::Transform>;
    type InitError = ();
    type Future = LocalBoxFuture<'static, Result<Self::Transform, ()>>;

    fn new_transform(&self, service: RouteService) -> Self::Future {
        let operation = self.operation;
        let inner = self.inner.new_transform(service);
        Box::pin(async move {
            Ok(Attached {
                operation,
                inner: inner.await?,
            })
        })
    }
}

struct Attached<S> {
    operation: &'static Operation,
    inner: S,
}

impl<S> Service<ServiceRequest> for Attached<S>
where
    S: Service<ServiceRequest, Error = Error>,
{
    type Response = S::Response;
    type Error = Error;
    type Future = S::Future;

    fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&self, mut request: ServiceRequest) -> Self::Future {
        // In actix-web's own extensions, which every request has: the
        // handler's context reads it from there (`context`).
        request.extensions_mut().insert(self.operation);
        name_path_parameters(&mut request, self.operation.path);
        self.inner.call(request)
    }
}

/// Names the path's values as this operation's template names them,
/// where its route was registered under another template of the same
/// shape (`/journals/{JournalID}` serving `/journals/{JournalNumber}`
/// too): the template's parameters are the last values matched.
fn name_path_parameters(request: &mut ServiceRequest, template: &'static str) {
    let names = || {
        template
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
    };
    // The usual case, on every request: the route's own template.
    if names().all(|n| request.match_info().get(n).is_some()) {
        return;
    }
    let values: Vec<String> = request
        .match_info()
        .iter()
        .map(|(_, value)| value.to_string())
        .collect();
    let Some(skip) = values.len().checked_sub(names().count()) else {
        return;
    };
    for (name, value) in names().zip(values.into_iter().skip(skip)) {
        if request.match_info().get(name).is_none() {
            request.match_info_mut().add_static(name, value);
        }
    }
}

/// Whether the request's path segment `from_end` places before its end
/// (0 is the last) reads as a `T`: the guard that sends a request to
/// the operation whose path parameter it fits, of several whose
/// templates have the same shape.
#[doc(hidden)]
pub fn segment_is<T: std::str::FromStr>(
    context: &actix_web::guard::GuardContext<'_>,
    from_end: usize,
) -> bool {
    super::path_segment_is::<T>(context.head().uri.path(), from_end)
}

#[cfg(test)]
mod tests {
    use super::super::Stability;
    use super::*;
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

    #[actix_web::test]
    async fn the_layer_sees_the_operation_of_its_route() {
        use actix_web::middleware::{from_fn, Next};
        use actix_web::{test, web, App, HttpResponse};
        static LIST: Operation = Operation {
            id: "listPets",
            method: "GET",
            path: "/pets",
            tag: "Pets",
            stability: Stability::Beta,
            deprecated: false,
            deprecated_since: None,
            sunset: None,
            successor: None,
            security: &[],
        };
        async fn stamp(
            request: actix_web::dev::ServiceRequest,
            next: Next<actix_web::body::BoxBody>,
        ) -> Result<actix_web::dev::ServiceResponse, actix_web::Error> {
            let id = Operation::of(request.request()).map_or("none", |op| op.id);
            let mut response = next.call(request).await?;
            response.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static("x-operation"),
                actix_web::http::header::HeaderValue::from_static(id),
            );
            Ok(response)
        }
        let app = test::init_service(App::new().service(web::resource("/pets").route(serve(
            web::get().to(|| async { HttpResponse::Ok().finish() }),
            &LIST,
            from_fn(stamp),
        ))))
        .await;
        let response =
            test::call_service(&app, test::TestRequest::get().uri("/pets").to_request()).await;
        assert_eq!(response.headers().get("x-operation").unwrap(), "listPets");
        assert_eq!(Operation::of(response.request()), Some(&LIST));
    }
}
