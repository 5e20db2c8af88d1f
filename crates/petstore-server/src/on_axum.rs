//! The server on axum: the generated router (`axum::router_with`) under the
//! store's middleware, each piece of which is the framework-neutral one
//! ([`crate::gate`], [`crate::lifecycle`], [`crate::request_log`],
//! [`crate::limits`], [`crate::outside`]), served by hyper as actix-web
//! serves: a worker thread per core, each a single-threaded runtime whose
//! tasks the store's per-thread parts (SQLite read connections, request
//! rounds) run on, and each connection held to the same deadlines
//! ([`Deadlines`]).

use crate::app::Shared;
use crate::gate::{self, Knock};
use crate::limits::{ClientLimits, Deadline, HEAD_BUFFER};
use crate::request_log::{Logged, Served};
use crate::shutdown::Shutdown;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::{from_fn_with_state, Next};
use axum::response::Response;
use axum::Router;
use http::header::{AUTHORIZATION, IF_NONE_MATCH};
use http::Method;
use petstore_api::metadata::BASE_PATH;
use petstore_api::runtime;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;
use tower_service::Service as _;
use tracing::Instrument as _;

/// The connection's peer, attached to each request for the gate.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub SocketAddr);

/// The server, started: its workers serve until [`Running::run`] stops
/// them.
#[derive(Debug)]
pub struct Running {
    workers: Vec<std::thread::JoinHandle<()>>,
    stop: tokio::sync::watch::Sender<bool>,
}

/// Starts `workers` threads serving [`router`] on `listener`, and the
/// metrics on theirs.
pub fn start(
    shared: &Shared,
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    workers: usize,
    shutdown: &Shutdown,
) -> std::io::Result<Running> {
    listener.set_nonblocking(true)?;
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut threads = Vec::new();
    let app = router(shared);
    for n in 0..workers.max(1) {
        let worker = Worker {
            listener: listener.try_clone()?,
            router: app.clone(),
            shared: shared.clone(),
            stopping: stopping.clone(),
            shutdown: shutdown.clone(),
        };
        let thread = std::thread::Builder::new()
            .name(format!("axum-worker-{n}"))
            .spawn(move || worker.run())?;
        threads.push(thread);
    }
    if let (Some(listener), Some(_)) = (metrics_listener, &shared.metrics) {
        listener.set_nonblocking(true)?;
        let worker = Worker {
            listener,
            router: metrics_router(shared),
            shared: shared.clone(),
            stopping: stopping.clone(),
            shutdown: shutdown.clone(),
        };
        threads.push(
            std::thread::Builder::new()
                .name("axum-metrics".into())
                .spawn(move || worker.run())?,
        );
    }
    Ok(Running {
        workers: threads,
        stop,
    })
}

impl Running {
    /// Serves until `stopped` gives the deadline, then stops accepting and
    /// lets the requests in flight finish, up to the deadline.
    pub async fn run(self, stopped: impl Future<Output = Instant>) -> std::io::Result<()> {
        let deadline = stopped.await;
        let _ = self.stop.send(true);
        // Each worker returns once its connections are closed, or at the
        // deadline, whichever is first.
        let workers = self.workers;
        let joined = tokio::task::spawn_blocking(move || {
            workers
                .into_iter()
                .map(std::thread::JoinHandle::join)
                .filter(Result::is_err)
                .count()
        });
        match tokio::time::timeout_at(deadline + Duration::from_secs(1), joined).await {
            Ok(Ok(0)) => Ok(()),
            Ok(Ok(panicked)) => Err(std::io::Error::other(format!(
                "{panicked} worker threads panicked"
            ))),
            Ok(Err(e)) => Err(std::io::Error::other(e)),
            Err(_) => {
                tracing::warn!("workers still busy after the grace period");
                Ok(())
            }
        }
    }
}

/// One worker thread: a single-threaded runtime accepting on its copy of
/// the listener and serving each connection as a task of its own.
struct Worker {
    listener: TcpListener,
    router: Router,
    shared: Shared,
    stopping: tokio::sync::watch::Receiver<bool>,
    shutdown: Shutdown,
}

impl Worker {
    fn run(self) {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                tracing::error!(error = %e, "a worker cannot start");
                return;
            }
        };
        let local = tokio::task::LocalSet::new();
        local.block_on(&runtime, self.serve());
    }

    async fn serve(self) {
        self.shared.state.db.start_worker();
        let listener = match tokio::net::TcpListener::from_std(self.listener) {
            Ok(listener) => listener,
            Err(e) => {
                tracing::error!(error = %e, "a worker cannot accept");
                return;
            }
        };
        // The connections open, which the stop waits for.
        let (open, mut count) = tokio::sync::watch::channel(0_usize);
        let open = std::rc::Rc::new(open);
        let limits = self.shared.client_limits;
        let mut stopping = self.stopping.clone();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let connection = connection(
                            stream,
                            peer,
                            self.router.clone(),
                            limits,
                            self.stopping.clone(),
                        );
                        let open = open.clone();
                        open.send_modify(|n| *n += 1);
                        tokio::task::spawn_local(async move {
                            connection.await;
                            open.send_modify(|n| *n -= 1);
                        });
                    }
                    // Out of file descriptors, say: the connection waiting
                    // is not taken now; its turn comes.
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                },
                _ = stopping.wait_for(|stop| *stop) => break,
            }
        }
        // No more connections: the listener closes with this worker's copy.
        drop(listener);
        let deadline = self
            .shutdown
            .deadline()
            .unwrap_or_else(|| Instant::now() + self.shutdown.grace());
        let drained = count.wait_for(|n| *n == 0);
        if tokio::time::timeout_at(deadline, drained).await.is_err() {
            tracing::warn!(
                connections = *open.borrow(),
                "connections still open at the end of the grace period"
            );
        }
    }
}

/// Serves one connection with hyper until the client closes it, a
/// deadline does, or the stop, once its answer in flight is sent.
async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    router: Router,
    limits: ClientLimits,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let phase = Arc::new(Phase::new());
    let io = hyper_util::rt::TokioIo::new(Deadlines::new(stream, phase.clone(), limits));
    let service =
        hyper::service::service_fn(move |request: http::Request<hyper::body::Incoming>| {
            phase.busy();
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(Peer(peer));
            let mut router = router.clone();
            let phase = phase.clone();
            async move {
                let response = match router.call(request).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                // The next head's deadline starts once this answer is sent.
                Ok::<_, std::convert::Infallible>(
                    response.map(|body| Body::new(Answered { body, phase })),
                )
            }
        });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .max_buf_size(HEAD_BUFFER)
        .header_read_timeout(None)
        .keep_alive(true);
    let connection = builder.serve_connection(io, service);
    let mut connection = std::pin::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => served,
        _ = stopping.wait_for(|stop| *stop) => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = served {
        tracing::debug!(error = %e, %peer, "connection ended");
    }
}

/// Where a connection stands, for its deadlines: reading a request's head
/// (since when, and whether any of it has come), or busy with a request;
/// and the connection's reader to wake when that changes.
#[derive(Debug)]
struct Phase(Mutex<(Stage, Option<std::task::Waker>)>);

#[derive(Debug, Clone, Copy)]
enum Stage {
    /// Waiting for a head: the first (from the connection's start), or a
    /// later one (idle since the last answer, until a byte of it comes).
    Head {
        since: Instant,
        first: bool,
        started: bool,
    },
    Busy,
}

impl Phase {
    fn new() -> Self {
        let stage = Stage::Head {
            since: Instant::now(),
            first: true,
            started: false,
        };
        Phase(Mutex::new((stage, None)))
    }

    fn busy(&self) {
        crate::lock(&self.0).0 = Stage::Busy;
    }

    /// The answer is sent: the connection waits for the next head, and its
    /// reader, which may be waiting with no deadline, is woken to set it.
    fn idle(&self) {
        let waker = {
            let mut phase = crate::lock(&self.0);
            phase.0 = Stage::Head {
                since: Instant::now(),
                first: false,
                started: false,
            };
            phase.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Bytes came while waiting for a head: the head has started (a later
    /// head's deadline runs from its first byte).
    fn bytes(&self) {
        let mut phase = crate::lock(&self.0);
        if let Stage::Head {
            since,
            first,
            started: false,
        } = phase.0
        {
            phase.0 = Stage::Head {
                since: if first { since } else { Instant::now() },
                first,
                started: true,
            };
        }
    }

    /// When the connection's wait ends, and whether a 408 is due then (a
    /// head that has started, or the first) or it just closes (idle); the
    /// reader's waker is kept, for a change of stage.
    fn deadline(&self, limits: &ClientLimits, waker: &std::task::Waker) -> Option<(Instant, bool)> {
        let mut phase = crate::lock(&self.0);
        phase.1 = Some(waker.clone());
        match phase.0 {
            Stage::Busy => None,
            Stage::Head {
                since,
                first,
                started,
            } if first || started => Some((since + limits.header_timeout, true)),
            Stage::Head { since, .. } => Some((since + limits.keep_alive, false)),
        }
    }
}

/// A response body that moves its connection to the next head's deadline
/// when it ends (or is dropped: the client went away).
struct Answered {
    body: Body,
    phase: Arc<Phase>,
}

impl Drop for Answered {
    fn drop(&mut self) {
        self.phase.idle();
    }
}

impl http_body::Body for Answered {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A connection held to the head and idle deadlines, as actix-web holds
/// its connections: a request head not complete within `header_timeout`
/// (from the connection's start for the first, from its first byte for a
/// later one) is answered 408 and the connection closed; a connection idle
/// for `keep_alive` after an answer is closed. Hyper's reads see the end
/// of the stream then.
struct Deadlines {
    stream: tokio::net::TcpStream,
    phase: Arc<Phase>,
    limits: ClientLimits,
    timer: Pin<Box<tokio::time::Sleep>>,
    /// The deadline the timer is set for.
    set_for: Option<Instant>,
    expired: bool,
}

impl Deadlines {
    fn new(stream: tokio::net::TcpStream, phase: Arc<Phase>, limits: ClientLimits) -> Self {
        Deadlines {
            stream,
            phase,
            limits,
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            set_for: None,
            expired: false,
        }
    }
}

/// What a connection whose head came too slowly is told, as actix-web
/// tells it.
const TIMED_OUT: &[u8] =
    b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

impl AsyncRead for Deadlines {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.expired {
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        if let Poll::Ready(read) = Pin::new(&mut this.stream).poll_read(cx, buf) {
            if buf.filled().len() > before {
                this.phase.bytes();
            }
            return Poll::Ready(read);
        }
        let Some((deadline, answer)) = this.phase.deadline(&this.limits, cx.waker()) else {
            return Poll::Pending;
        };
        // The timer is moved only to an earlier deadline: one set for an
        // earlier head that has since come goes off early, and is set again
        // then (below), rather than moved on every request.
        if this.set_for.is_none_or(|set| deadline < set) {
            this.timer.as_mut().reset(deadline);
            this.set_for = Some(deadline);
        }
        loop {
            if this.timer.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            if Instant::now() >= deadline {
                break;
            }
            this.timer.as_mut().reset(deadline);
            this.set_for = Some(deadline);
        }
        this.expired = true;
        if answer {
            // Best effort: the socket's buffer is empty while a head is
            // awaited, and a client that reads nothing loses nothing.
            let _ = this.stream.try_write(TIMED_OUT);
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Deadlines {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// A route outside the spec: its answer to `GET`, from the shared state
/// and the request.
type Outside = fn(Shared, Request) -> Pin<Box<dyn Future<Output = runtime::Outgoing> + Send>>;

/// The application every worker serves: the request log and the body
/// deadline around everything; the outside routes (`GET` alone: any other
/// method there is the API's 404, as on actix-web); the API under its base
/// path, each operation's route, and the 404 and 405 answers, under the
/// guard.
pub fn router(shared: &Shared) -> Router {
    let guard = from_fn_with_state(shared.clone(), guard);
    let api = runtime::axum::mounted(
        BASE_PATH,
        petstore_api::axum::router_with(shared.state.clone(), guard),
    );
    let outside = |answer: Outside| {
        let shared = shared.clone();
        let api = api.clone();
        axum::routing::any(move |request: Request| {
            let shared = shared.clone();
            let mut api = api.clone();
            async move {
                if request.method() == Method::GET {
                    runtime::axum::respond(answer(shared, request).await)
                } else {
                    match api.call(request).await {
                        Ok(response) => response,
                        Err(never) => match never {},
                    }
                }
            }
        })
    };
    Router::new()
        .route(
            crate::outside::HEALTHZ,
            outside(|shared, _| {
                Box::pin(async move { crate::outside::healthz(&shared.state.db).await })
            }),
        )
        .route(
            crate::outside::OPENAPI,
            outside(|_, _| Box::pin(async { crate::outside::openapi() })),
        )
        .route(
            crate::outside::DOCS,
            outside(|shared, request| {
                let if_none_match = request
                    .headers()
                    .get(IF_NONE_MATCH)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                Box::pin(
                    async move { crate::outside::docs(&shared.docs, if_none_match.as_deref()) },
                )
            }),
        )
        .merge(api)
        .layer(from_fn_with_state(shared.clone(), log_and_deadline))
        // Every handler turned into a service once, not on each request.
        .with_state(())
}

/// The metrics listener's application: `GET /metrics` alone.
fn metrics_router(shared: &Shared) -> Router {
    let shared = shared.clone();
    Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let shared = shared.clone();
            async move { runtime::axum::respond(crate::metrics::scrape(&shared)) }
        }),
    )
}

/// The request log ([`Logged`]) and the body deadline ([`Deadline`])
/// around everything.
async fn log_and_deadline(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let logged = Logged::start(
        shared.metrics.as_ref(),
        request.method().as_str(),
        request.uri().path(),
    );
    let limit = shared.client_limits.body_timeout;
    let request = request.map(|body| {
        Body::from_stream(Deadline::new(body.into_data_stream(), limit, |e| {
            axum::Error::new(e)
        }))
    });
    let span = logged.span().clone();
    let response = next.run(request).instrument(span).await;
    let served = response.extensions().get::<Served>().copied();
    logged.finish(served, response.status().as_u16());
    response
}

/// The gate and the lifecycle around an operation's route
/// ([`gate::admit`]), and the request log's facts in the answer.
async fn guard(State(shared): State<Shared>, mut request: Request, next: Next) -> Response {
    let operation = runtime::axum::operation_of(&request);
    let admitted = {
        let headers = request.headers();
        let knock = Knock {
            operation,
            peer: request
                .extensions()
                .get::<Peer>()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |p| p.0.ip()),
            authorization: headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("")),
            forwarded: headers
                .get_all("x-forwarded-for")
                .iter()
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
        Err(refusal) => (runtime::axum::respond(refusal), None),
        Ok(admitted) => {
            if let Some(key) = &admitted.key {
                // For the handler (`RequestContext::extension`).
                request.extensions_mut().insert(key.clone());
            }
            let mut response = next.run(request).await;
            let headers = response.headers_mut();
            for (name, value, add) in admitted.headers() {
                if add {
                    headers.append(name.clone(), value.clone());
                } else {
                    headers.insert(name.clone(), value.clone());
                }
            }
            (response, admitted.key.map(|k| k.id))
        }
    };
    response
        .extensions_mut()
        .insert(Served { operation, key_id });
    response
}
