//! The server on actix-web: the generated glue (`server::configure_with`)
//! under the store's middleware, each piece of which is the framework-
//! neutral one ([`crate::gate`], [`crate::lifecycle`],
//! [`crate::request_log`], [`crate::limits`], [`crate::outside`]) with
//! actix-web's request and response types converted at its edges.

use crate::app::Shared;
use crate::gate::{self, Knock};
use crate::limits::Deadline;
use crate::request_log::{Logged, Served};
use crate::service::PetStore;
use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{Server, ServerHandle, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::header::{
    HeaderName, HeaderValue, AUTHORIZATION, IF_NONE_MATCH, X_FORWARDED_FOR,
};
use actix_web::middleware::{from_fn, Next};
use actix_web::web::{self, Bytes};
use actix_web::{App, HttpRequest, HttpResponse, HttpServer};
use futures_util::Stream;
use petstore_api::metadata::BASE_PATH;
use petstore_api::runtime::{self, Operation};
use petstore_api::server;
use std::cell::RefCell;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use tracing::Instrument as _;

/// The server, started: its workers serve until [`Running::run`] stops
/// them.
pub struct Running {
    server: Server,
    metrics: Option<ServerHandle>,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running").finish_non_exhaustive()
    }
}

/// Starts `workers` workers serving [`app`] on `listener`, and the
/// metrics on theirs. The workers stop when [`Running::run`] says, not on
/// signals of their own.
pub fn start(
    shared: &Shared,
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    workers: usize,
    shutdown: &crate::shutdown::Shutdown,
) -> std::io::Result<Running> {
    let limits = shared.client_limits;
    let factory = shared.clone();
    let server = HttpServer::new(move || {
        // Called once in each worker thread.
        factory.state.db.start_worker();
        app(&factory)
    })
    // In whole seconds, rounded up: what actix-web takes.
    .shutdown_timeout(shutdown.grace().as_secs_f64().ceil() as u64)
    .client_request_timeout(limits.header_timeout)
    .keep_alive(limits.keep_alive)
    .disable_signals()
    .workers(workers)
    .listen(listener)?
    .run();
    let metrics = match (metrics_listener, &shared.metrics) {
        (Some(listener), Some(_)) => {
            let metrics = metrics_server(listener, shared)?;
            let handle = metrics.handle();
            actix_web::rt::spawn(metrics);
            Some(handle)
        }
        _ => None,
    };
    Ok(Running { server, metrics })
}

impl Running {
    /// Serves until `stopped` gives the deadline, then stops accepting and
    /// lets the requests in flight finish, up to the deadline.
    pub async fn run(
        self,
        stopped: impl Future<Output = tokio::time::Instant>,
    ) -> std::io::Result<()> {
        let handle = self.server.handle();
        let mut server = std::pin::pin!(self.server);
        let deadline = tokio::select! {
            served = &mut server => return served,
            deadline = stopped => deadline,
        };
        // Sent at once; the workers finish what they serve (up to the
        // grace period, actix-web's shutdown timeout) and stop.
        drop(handle.stop(true));
        if let Some(metrics) = &self.metrics {
            drop(metrics.stop(false));
        }
        match tokio::time::timeout_at(deadline, server).await {
            Ok(served) => served,
            Err(_) => {
                tracing::warn!("requests still in flight at the end of the grace period");
                Ok(())
            }
        }
    }
}

/// The application every worker serves. The request log sees every
/// request. The guard (key, limits, then deprecation and stability) wraps
/// each operation's route, where the glue has attached the operation, and
/// the 404 and 405 answers; `/healthz`, `/openapi.yaml` and `/docs`
/// ([`crate::outside`]) are outside the spec and outside the guard.
pub fn app(
    shared: &Shared,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let state = web::Data::from(shared.state.clone());
    App::new()
        .wrap(from_fn(body_deadline))
        .wrap(from_fn(log_request))
        .app_data(web::Data::new(shared.clone()))
        .app_data(state.clone())
        .route(crate::outside::HEALTHZ, web::get().to(healthz))
        .route(crate::outside::OPENAPI, web::get().to(openapi))
        .route(crate::outside::DOCS, web::get().to(docs))
        .service(
            web::scope(BASE_PATH)
                .configure(|cfg| server::configure_with(cfg, state, || from_fn(guard))),
        )
        .default_service(web::to(server::not_found::<PetStore>).wrap(from_fn(guard)))
}

/// The store's state, as every route finds it.
fn shared_of(request: &ServiceRequest) -> Result<web::Data<Shared>, actix_web::Error> {
    request
        .app_data::<web::Data<Shared>>()
        .cloned()
        .ok_or_else(|| actix_web::error::ErrorInternalServerError("application state missing"))
}

/// The gate and the lifecycle around an operation's route
/// ([`gate::admit`]), and the request log's facts in the answer.
pub async fn guard(
    request: ServiceRequest,
    next: Next<BoxBody>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let shared = shared_of(&request)?;
    let operation = Operation::of(request.request());
    let admitted = {
        let headers = request.headers();
        let knock = Knock {
            operation,
            peer: request
                .peer_addr()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip()),
            authorization: headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("")),
            forwarded: headers
                .get_all(X_FORWARDED_FOR)
                .filter_map(|value| value.to_str().ok())
                .collect(),
            header_bytes: crate::limits::header_bytes(
                headers
                    .iter()
                    .map(|(name, value)| (name.as_str().len(), value.len())),
            ),
        };
        gate::admit(&shared, &knock).await
    };
    let (mut response, key_id) = match admitted {
        Err(refusal) => (
            request.into_response(runtime::actix::respond(refusal)),
            None,
        ),
        Ok(admitted) => {
            if let Some(key) = &admitted.key {
                // For the handler (`RequestContext::extension`).
                runtime::actix::attach(&request, key.clone());
            }
            let mut response = next.call(request).await?;
            let headers = response.headers_mut();
            for (name, value, add) in admitted.headers() {
                let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(name.as_str().as_bytes()),
                    HeaderValue::from_bytes(value.as_bytes()),
                ) else {
                    continue;
                };
                if add {
                    headers.append(name, value);
                } else {
                    headers.insert(name, value);
                }
            }
            (response, admitted.key.map(|k| k.id))
        }
    };
    response
        .response_mut()
        .extensions_mut()
        .insert(Served { operation, key_id });
    Ok(response)
}

/// The request log around everything ([`Logged`]).
async fn log_request(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let metrics = request
        .app_data::<web::Data<Shared>>()
        .and_then(|shared| shared.metrics.clone());
    let logged = Logged::start(metrics.as_ref(), request.method().as_str(), request.path());
    let span = logged.span().clone();
    match next.call(request).instrument(span).await {
        Ok(response) => {
            let served = response.response().extensions().get::<Served>().copied();
            logged.finish(served, response.status().as_u16());
            Ok(response)
        }
        Err(e) => {
            logged.finish(None, e.as_response_error().status_code().as_u16());
            Err(e)
        }
    }
}

/// Gives every request body its deadline ([`Deadline`]): the body stream
/// fails with a timeout once `body_timeout` has passed since the head
/// arrived.
///
/// It also makes a refusal that left the body unread (the response says
/// `Connection: close`: too large, too slow) end the connection. actix-web
/// would otherwise read a chunked body it was told to close on to its end,
/// to reuse the connection: an endless body, endlessly. Holding the body
/// stream until the response is sent makes it close instead.
async fn body_deadline(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let limit = shared_of(&request)?.client_limits.body_timeout;
    let payload = actix_web::HttpMessage::take_payload(&mut request);
    let held = Held(Rc::new(RefCell::new(Some(payload))));
    let stream: BoxedPayload = Box::pin(Deadline::new(held.clone(), limit, PayloadError::Io));
    request.set_payload(actix_web::dev::Payload::from(stream));
    let response = next.call(request).await?;
    if response.response().head().keep_alive() {
        return Ok(response.map_into_left_body());
    }
    let payload = held.0.take();
    Ok(response.map_body(|_, body| {
        EitherBody::right(Holding {
            body: body.boxed(),
            _payload: payload,
        })
    }))
}

type BoxedPayload = Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>;

/// The request's body stream, shared with [`body_deadline`], which may
/// keep it past the request.
#[derive(Clone)]
struct Held(Rc<RefCell<Option<actix_web::dev::Payload>>>);

impl Stream for Held {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.0.borrow_mut().as_mut() {
            Some(inner) => Pin::new(inner).poll_next(cx),
            None => Poll::Ready(None),
        }
    }
}

/// A response body that keeps the request's body stream alive until it
/// has been sent.
struct Holding {
    body: BoxBody,
    _payload: Option<actix_web::dev::Payload>,
}

impl MessageBody for Holding {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> actix_web::body::BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}

async fn healthz(shared: web::Data<Shared>) -> HttpResponse {
    runtime::actix::respond(crate::outside::healthz(&shared.state.db).await)
}

async fn openapi() -> HttpResponse {
    runtime::actix::respond(crate::outside::openapi())
}

async fn docs(request: HttpRequest, shared: web::Data<Shared>) -> HttpResponse {
    let if_none_match = request
        .headers()
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    runtime::actix::respond(crate::outside::docs(&shared.docs, if_none_match))
}

/// The metrics listener: `GET /metrics` alone, on one worker of its own.
fn metrics_server(listener: TcpListener, shared: &Shared) -> std::io::Result<Server> {
    let shared = web::Data::new(shared.clone());
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(shared.clone())
            .route("/metrics", web::get().to(scrape))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?
    .run())
}

async fn scrape(shared: web::Data<Shared>) -> HttpResponse {
    runtime::actix::respond(crate::metrics::scrape(&shared))
}
