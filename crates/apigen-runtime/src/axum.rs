//! The axum adapter: serves the framework-neutral glue on axum.
//!
//! A generated crate's `axum::router` builds an `axum::Router` from these
//! pieces: a [`resource`] per path, holding each operation served there
//! ([`serve`]), and the answer for paths no route matches ([`not_found`]).
//! A resource picks the operation by method itself, so that any method
//! (`QUERY`, `LINK`) is served, and a method the path does not serve is a
//! 405 naming those it does. Each operation's route attaches its `&'static
//! Operation` to the request's extensions before the caller's middleware
//! ([`Layer`]) runs, so that middleware knows which operation it serves.

use super::body::BodyError;
use super::context::RequestContext;
use super::operation::Operation;
use super::rejection::Rejection;
use super::response::{Outgoing, OutgoingBody};
use super::ErrorAnswer;
use ::axum::body::Body;
use ::axum::extract::Request;
use ::axum::response::{IntoResponse, Response};
use ::axum::routing::{any, MethodRouter, Route};
use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::StreamExt as _;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use tower_service::Service;

/// The layer that adds nothing: what `router` passes to `router_with`.
pub use tower_layer::Identity;

/// The body stream an operation's glue reads on axum.
#[doc(hidden)]
pub type AxumPayload = futures_util::stream::Map<
    ::axum::body::BodyDataStream,
    fn(Result<Bytes, ::axum::Error>) -> Result<Bytes, BodyError>,
>;

/// An axum body as the glue reads bodies.
#[doc(hidden)]
pub fn payload(body: Body) -> AxumPayload {
    fn chunk(chunk: Result<Bytes, ::axum::Error>) -> Result<Bytes, BodyError> {
        chunk.map_err(|e| BodyError::of(&e))
    }
    body.into_data_stream().map(chunk as fn(_) -> _)
}

/// Sends a neutral response on axum: its status, headers and body (a
/// stream sent chunk by chunk). `Connection: close`, when set, is sent as
/// it is, and the server closes the connection after the response.
pub fn respond(outgoing: Outgoing) -> Response {
    let (parts, body) = outgoing.into_parts();
    let body = match body {
        OutgoingBody::Empty => Body::empty(),
        OutgoingBody::Full(bytes) => Body::from(bytes),
        OutgoingBody::Stream(stream) => Body::from_stream(stream.map(Ok::<Bytes, Infallible>)),
    };
    Response::from_parts(parts, body)
}

/// The context of a request routed to `operation`: its parts, with the
/// path's values read by the operation's own template (the route may be
/// registered under another template of the same shape, and a parameter
/// may be part of a segment, `{name}.json`), percent-decoded.
fn context(request: Request, operation: &'static Operation) -> (RequestContext, Body) {
    let (mut parts, body) = request.into_parts();
    let path = path_parameters(operation.path, parts.uri.path());
    if let Some(original) = parts.extensions.get::<::axum::extract::OriginalUri>() {
        parts.uri = original.0.clone();
    }
    (RequestContext::new(parts, path), body)
}

/// The values of `template`'s parameters in `path`, matched segment by
/// segment from the end (a router nested under a prefix sees the whole
/// path or the rest of it; the template's segments are the last ones).
fn path_parameters(template: &str, path: &str) -> Vec<(String, String)> {
    let template: Vec<&str> = template.trim_end_matches('/').split('/').collect();
    let path: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let Some(skip) = path.len().checked_sub(template.len()) else {
        return Vec::new();
    };
    let mut values = Vec::new();
    for (pattern, segment) in template.iter().zip(&path[skip..]) {
        let Some((prefix, rest)) = pattern.split_once('{') else {
            continue;
        };
        let Some((name, suffix)) = rest.split_once('}') else {
            continue;
        };
        let value = segment
            .strip_prefix(prefix)
            .and_then(|v| v.strip_suffix(suffix))
            .unwrap_or(segment);
        let decoded = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
        values.push((name.to_string(), decoded.into_owned()));
    }
    values
}

/// Middleware around every operation's route, and around the answers for
/// unknown paths (404) and methods (405): any tower layer axum accepts on
/// a route (`axum::middleware::from_fn(...)`, tower-http's layers,
/// `tower::layer::util::Identity`).
pub trait Layer: Clone + Send + Sync + 'static {
    /// `route` with this layer around it.
    fn around(&self, route: MethodRouter) -> MethodRouter;
}

impl<L> Layer for L
where
    L: tower_layer::Layer<Route> + Clone + Send + Sync + 'static,
    L::Service: Service<Request> + Clone + Send + Sync + 'static,
    <L::Service as Service<Request>>::Response: IntoResponse + 'static,
    <L::Service as Service<Request>>::Error: Into<Infallible> + 'static,
    <L::Service as Service<Request>>::Future: Send + 'static,
{
    fn around(&self, route: MethodRouter) -> MethodRouter {
        route.layer(self.clone())
    }
}

type Handler<S> =
    Arc<dyn Fn(Arc<S>, RequestContext, AxumPayload) -> BoxFuture<'static, Outgoing> + Send + Sync>;

/// One operation of a [`resource`]: its metadata and its handler (the
/// generated glue's function), and the guard that tells it apart from
/// another operation of the same method on a path of the same shape.
#[doc(hidden)]
pub struct Serve<S> {
    operation: &'static Operation,
    handler: Handler<S>,
    guard: Option<fn(&str) -> bool>,
}

/// `operation`, served by `handler`.
#[doc(hidden)]
pub fn serve<S, F, Fut>(operation: &'static Operation, handler: F) -> Serve<S>
where
    F: Fn(Arc<S>, RequestContext, AxumPayload) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Outgoing> + Send + 'static,
{
    Serve {
        operation,
        handler: Arc::new(move |service, context, payload| {
            Box::pin(handler(service, context, payload))
        }),
        guard: None,
    }
}

impl<S> std::fmt::Debug for Serve<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve")
            .field("operation", &self.operation.id)
            .field("guarded", &self.guard.is_some())
            .finish()
    }
}

impl<S> Serve<S> {
    /// Serves only requests whose path `guard` takes (its typed path
    /// parameters read, see [`super::path_segment_is`]).
    pub fn guard(mut self, guard: fn(&str) -> bool) -> Self {
        self.guard = Some(guard);
        self
    }
}

/// The route of one path: each of `operations` for its method, under
/// `layer`, and otherwise the 405 (`reject` makes its error) naming the
/// methods it serves.
#[doc(hidden)]
pub fn resource<S, E>(
    service: &Arc<S>,
    layer: &impl Layer,
    operations: impl IntoIterator<Item = Serve<S>>,
    reject: fn(&S, Rejection) -> E,
) -> MethodRouter
where
    S: Send + Sync + 'static,
    E: ErrorAnswer + 'static,
{
    let operations: Vec<Serve<S>> = operations.into_iter().collect();
    let methods: Vec<(bool, &str)> = operations
        .iter()
        .map(|serve| (true, serve.operation.method))
        .collect();
    let allow = super::allowed(&methods);
    let routes: Vec<(Serve<S>, MethodRouter)> = operations
        .into_iter()
        .map(|serve| {
            let route = operation_route(service, &serve, layer);
            (serve, route)
        })
        .collect();
    let refusal = {
        let service = service.clone();
        layer.around(any(move |request: Request| {
            let service = service.clone();
            let allow = allow.clone();
            async move {
                respond(super::method_not_allowed(
                    request.method().as_str(),
                    &sent_path(&request),
                    &allow,
                    |rejection| reject(&service, rejection),
                ))
            }
        }))
    };
    // Held once, shared: axum clones a handler's state for each request.
    // Each route is given its (empty) state now, which turns its handlers
    // into services once rather than on every request (as axum's own
    // `Router::with_state` does for the routes it holds).
    let resource = Arc::new(Resource {
        routes: routes
            .into_iter()
            .map(|(serve, route): (Serve<S>, MethodRouter)| (serve, route.with_state(())))
            .collect(),
        refusal: refusal.with_state(()),
        missing: not_found(service, layer, reject).with_state(()),
    });
    any(move |request: Request| {
        // A path outside the base path matches no route, even one it would
        // match without it; else the operation of the request's method
        // whose guard takes the path, or the 405. Only the route chosen is
        // cloned to be called.
        let mut route = if request.extensions().get::<Outside>().is_some() {
            resource.missing.clone()
        } else {
            let method = request.method().as_str();
            let path = request.uri().path();
            resource
                .routes
                .iter()
                .find(|(serve, _)| {
                    serve.operation.method == method && serve.guard.is_none_or(|guard| guard(path))
                })
                .map_or_else(|| resource.refusal.clone(), |(_, route)| route.clone())
        };
        async move {
            match route.call(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            }
        }
    })
}

/// What a [`resource`] routes among.
struct Resource<S> {
    routes: Vec<(Serve<S>, MethodRouter)>,
    refusal: MethodRouter,
    missing: MethodRouter,
}

/// One operation's route: its handler under `layer`, with the operation
/// attached to the request before the layer runs.
fn operation_route<S: Send + Sync + 'static>(
    service: &Arc<S>,
    serve: &Serve<S>,
    layer: &impl Layer,
) -> MethodRouter {
    let service = service.clone();
    let handler = serve.handler.clone();
    let operation = serve.operation;
    layer
        .around(any(move |request: Request| {
            let service = service.clone();
            let handler = handler.clone();
            async move {
                let (context, body) = context(request, operation);
                respond(handler(service, context, payload(body)).await)
            }
        }))
        .layer(::axum::Extension(operation))
}

/// The answer for a request that no route matches, under `layer`.
#[doc(hidden)]
pub fn not_found<S, E>(
    service: &Arc<S>,
    layer: &impl Layer,
    reject: fn(&S, Rejection) -> E,
) -> MethodRouter
where
    S: Send + Sync + 'static,
    E: ErrorAnswer + 'static,
{
    let service = service.clone();
    layer.around(any(move |request: Request| {
        let service = service.clone();
        async move {
            respond(super::not_found(
                request.method().as_str(),
                &sent_path(&request),
                |rejection| reject(&service, rejection),
            ))
        }
    }))
}

/// `router` served under `base_path` (a spec's `metadata::BASE_PATH`), as
/// actix-web's `web::scope` serves it: a request under the base path is
/// routed by the rest of its path (`/base` and `/base/` both by `/`); any
/// other reaches the router's own 404. The handlers and the refusals see
/// the whole path, as the request sent it (`OriginalUri`).
pub fn mounted(base_path: &str, router: ::axum::Router) -> ::axum::Router {
    let base = base_path.trim_end_matches('/').to_string();
    if base.is_empty() {
        return router;
    }
    ::axum::Router::new().fallback(move |mut request: Request| {
        let mut router = router.clone();
        let base = base.clone();
        async move {
            let original = request.uri().clone();
            let rest = original
                .path()
                .strip_prefix(base.as_str())
                .filter(|rest| rest.is_empty() || rest.starts_with('/'));
            match rest {
                None => {
                    request.extensions_mut().insert(Outside);
                }
                Some(rest) => {
                    let rest = if rest.is_empty() { "/" } else { rest };
                    let path_and_query = match original.query() {
                        Some(query) => format!("{rest}?{query}"),
                        None => rest.to_string(),
                    };
                    if let Ok(uri) = path_and_query.parse() {
                        *request.uri_mut() = uri;
                    }
                }
            }
            request
                .extensions_mut()
                .insert(::axum::extract::OriginalUri(original));
            let ready = std::future::poll_fn(|cx| {
                <::axum::Router as Service<Request>>::poll_ready(&mut router, cx)
            });
            let answer = match ready.await {
                Ok(()) => router.call(request).await,
                Err(never) => match never {},
            };
            match answer {
                Ok(response) => response,
                Err(never) => match never {},
            }
        }
    })
}

/// Marks a request [`mounted`] saw outside its base path: no route
/// serves it.
#[derive(Debug, Clone, Copy)]
struct Outside;

/// The path the request was sent to: before [`mounted`] took the base
/// path off, when it did.
fn sent_path(request: &Request) -> String {
    match request.extensions().get::<::axum::extract::OriginalUri>() {
        Some(original) => original.0.path().to_string(),
        None => request.uri().path().to_string(),
    }
}

/// The operation a request was routed to, attached before any middleware
/// around the route runs; `None` for requests no operation serves.
pub fn operation_of<B>(request: &http::Request<B>) -> Option<&'static Operation> {
    request.extensions().get::<&'static Operation>().copied()
}

/// What a layer learns of one answered request: the operation it was
/// routed to (`None` for a 404 or 405), its method and path as sent, the
/// status, and the time to the answer's head (a stream goes on after it).
#[derive(Debug, Clone)]
pub struct Answered {
    /// The operation that served it.
    pub operation: Option<&'static Operation>,
    /// The request's method.
    pub method: http::Method,
    /// The request's path, as sent.
    pub path: String,
    /// The answer's status.
    pub status: http::StatusCode,
    /// From the request to the answer's head.
    pub elapsed: std::time::Duration,
}

/// A tower layer that tells `on_answer` of every request it wraps once
/// it is answered, with the operation it was routed to: what a metrics
/// layer records (a counter per operation and status, a latency
/// histogram per operation), in whichever metrics library the service
/// uses. Pass it to a generated `axum::router_with` (or stack it with
/// others in a `tower::ServiceBuilder`).
#[derive(Clone)]
pub struct Observe<F> {
    on_answer: F,
}

impl<F> Observe<F>
where
    F: Fn(&Answered) + Clone + Send + Sync + 'static,
{
    /// A layer calling `on_answer` for every answered request.
    pub fn new(on_answer: F) -> Self {
        Observe { on_answer }
    }
}

impl<F> std::fmt::Debug for Observe<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Observe")
    }
}

/// The request log: an `info` event per answered request (`tracing`),
/// with its operation's id, method, path, status and milliseconds.
pub fn request_log() -> Observe<fn(&Answered)> {
    fn log(answered: &Answered) {
        tracing::info!(
            operation = answered.operation.map_or("-", |o| o.id),
            method = %answered.method,
            path = %answered.path,
            status = answered.status.as_u16(),
            millis = answered.elapsed.as_secs_f64() * 1000.0,
            "answered"
        );
    }
    Observe::new(log as fn(&Answered))
}

impl<S, F: Clone> tower_layer::Layer<S> for Observe<F> {
    type Service = Observed<S, F>;

    fn layer(&self, inner: S) -> Self::Service {
        Observed {
            inner,
            on_answer: self.on_answer.clone(),
        }
    }
}

/// A service wrapped by [`Observe`].
#[derive(Clone)]
pub struct Observed<S, F> {
    inner: S,
    on_answer: F,
}

impl<S, F> std::fmt::Debug for Observed<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Observed")
    }
}

impl<S, F> Service<Request> for Observed<S, F>
where
    S: Service<Request, Response = Response> + Send + 'static,
    S::Future: Send + 'static,
    F: Fn(&Answered) + Clone + Send + Sync + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let operation = operation_of(&request);
        let method = request.method().clone();
        let path = sent_path(&request);
        let started = std::time::Instant::now();
        let answer = self.inner.call(request);
        let on_answer = self.on_answer.clone();
        Box::pin(async move {
            let response = answer.await?;
            on_answer(&Answered {
                operation,
                method,
                path,
                status: response.status(),
                elapsed: started.elapsed(),
            });
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_values_are_read_by_the_operations_own_template() {
        let read = |template, path| path_parameters(template, path);
        assert_eq!(
            read("/pets/{petId}", "/pets/42"),
            [("petId".to_string(), "42".to_string())]
        );
        // Nested under a prefix, and a parameter within a segment.
        assert_eq!(
            read("/files/{name}.json", "/v1/files/a%20b.json"),
            [("name".to_string(), "a b".to_string())]
        );
        assert_eq!(read("/pets/{petId}", "/"), []);
    }

    /// The body of `router`'s answer to `GET path`.
    async fn get(router: &::axum::Router, path: &str) -> String {
        let request = Request::get(path).body(Body::empty()).unwrap();
        let mut router = router.clone();
        let response = router.call(request).await.unwrap();
        let body = ::axum::body::to_bytes(response.into_body(), 1024)
            .await
            .unwrap();
        String::from_utf8(body.to_vec()).unwrap()
    }

    /// An error answered as its message, with its status.
    #[derive(Clone)]
    struct Refusal(Rejection);

    impl ErrorAnswer for Refusal {
        fn status(&self) -> http::StatusCode {
            self.0.status()
        }
        fn into_http(self) -> Outgoing {
            super::super::error_json(self.0.status(), &self.0.message, &[])
        }
    }

    static LIST: Operation = Operation {
        id: "listPets",
        method: "GET",
        path: "/pets/{kind}",
        tag: "Pets",
        stability: super::super::Stability::Stable,
        deprecated: false,
        deprecated_since: None,
        sunset: None,
        successor: None,
        security: &[],
    };

    /// A router serving `listPets`, which answers with the operation the
    /// request carries and its `kind`.
    fn pets() -> ::axum::Router {
        let service = Arc::new(());
        let list = serve(&LIST, |_: Arc<()>, context: RequestContext, _| async move {
            let said = format!(
                "{} {}",
                context.operation().map_or("none", |o| o.id),
                context.path_parameter("kind").unwrap_or_default()
            );
            super::super::json(super::super::respond(http::StatusCode::OK), &said).unwrap()
        });
        let reject = |_: &(), rejection| Refusal(rejection);
        ::axum::Router::new()
            .route(
                "/pets/{kind}",
                resource(&service, &Identity::new(), [list], reject),
            )
            .fallback_service(not_found(&service, &Identity::new(), reject))
    }

    #[tokio::test]
    async fn operations_are_served_by_method_and_the_rest_refused() {
        let app = pets();
        assert_eq!(get(&app, "/pets/cats").await, r#""listPets cats""#);
        let request = Request::post("/pets/cats").body(Body::empty()).unwrap();
        let response = app.clone().call(request).await.unwrap();
        assert_eq!(response.status(), 405);
        assert_eq!(response.headers()["allow"], "GET");
        assert_eq!(get(&app, "/dogs").await, r#""no route for GET /dogs""#);
    }

    #[tokio::test]
    async fn a_mounted_router_serves_under_its_base_path_as_a_scope_does() {
        let app = mounted("/api/", pets());
        assert_eq!(
            get(&app, "/api/pets/cats?limit=2").await,
            r#""listPets cats""#
        );
        // Outside the base path: the router's 404, naming the path sent,
        // even where the rest would match a route.
        assert_eq!(
            get(&app, "/pets/cats").await,
            r#""no route for GET /pets/cats""#
        );
        assert_eq!(
            get(&app, "/apis/pets/cats").await,
            r#""no route for GET /apis/pets/cats""#
        );
        assert_eq!(
            get(&app, "/api/dogs").await,
            r#""no route for GET /api/dogs""#
        );
    }
}
