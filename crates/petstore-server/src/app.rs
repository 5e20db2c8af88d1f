//! Startup: the actix-web application, its middleware and its listener.

use crate::feed::Feed;
use crate::gate::gate;
use crate::keys::KeyCache;
use crate::lifecycle::lifecycle;
use crate::limiter::{BanPolicy, Limiter};
use crate::limits::ClientLimits;
use crate::metrics::Metrics;
use crate::outside::DocsHeaders;
use crate::proxies::TrustedProxies;
use crate::service::{Clock, PetStore};
use crate::store::Db;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::{from_fn, Next};
use actix_web::{web, App, HttpServer};
use petstore_api::metadata::BASE_PATH;
use petstore_api::server;
use std::net::TcpListener;

/// What the server needs to start.
#[derive(Clone)]
pub struct Settings {
    /// Where the API listens.
    pub listen: Listen,
    pub db: Db,
    pub clock: Clock,
    /// Worker threads; `None` for one per core.
    pub workers: Option<usize>,
    /// When a subject that keeps sending while rate limited is banned.
    pub ban: BanPolicy,
    /// How long an authenticated key is trusted before it is checked again
    /// (and so how long a revoked key may still work).
    pub key_cache_ttl: std::time::Duration,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: TrustedProxies,
    /// Where to serve Prometheus metrics (`GET /metrics`); `None` keeps
    /// them off.
    pub metrics_listen: Option<Listen>,
    /// What a client may take: deadlines and header size.
    pub client_limits: ClientLimits,
    /// How webhooks are delivered.
    pub webhooks: crate::webhooks::WebhookSettings,
}

/// Where a server listens: an address to bind (`HOST:PORT`; port 0 picks a
/// free port), or a listener already bound (the command line binds before
/// it opens the database, so that a wrong address fails first).
#[derive(Debug, Clone)]
pub enum Listen {
    Address(String),
    Bound(std::sync::Arc<TcpListener>),
}

impl Listen {
    /// A free port on the loopback interface.
    pub fn any_local_port() -> Listen {
        Listen::Address("127.0.0.1:0".into())
    }

    fn listener(&self) -> std::io::Result<TcpListener> {
        match self {
            Listen::Address(address) => bind(address),
            Listen::Bound(listener) => listener.try_clone(),
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("listen", &self.listen)
            .field("workers", &self.workers)
            .field("metrics_listen", &self.metrics_listen)
            .finish_non_exhaustive()
    }
}

/// What every worker of one server shares: the store, the limiter, the key
/// cache and the trusted proxies. Made once, before the workers start.
#[derive(Clone)]
pub struct Shared {
    pub state: web::Data<PetStore>,
    pub limiter: web::Data<Limiter>,
    pub key_cache: web::Data<KeyCache>,
    pub proxies: web::Data<TrustedProxies>,
    pub client_limits: web::Data<ClientLimits>,
    /// Present when metrics are on.
    pub metrics: Option<web::Data<Metrics>>,
    /// The reference page's headers, worked out at start-up.
    pub docs: web::Data<DocsHeaders>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl Shared {
    /// The shared state for `settings`; an error when the generated
    /// reference page cannot be served (see [`DocsHeaders::of`]).
    pub fn new(settings: &Settings) -> std::io::Result<Self> {
        let docs = DocsHeaders::of(petstore_api::DOCS_HTML).map_err(std::io::Error::other)?;
        let feed = Feed::start(settings.db.clone());
        let metrics = settings
            .metrics_listen
            .as_ref()
            .map(|_| web::Data::new(Metrics::default()));
        crate::webhooks::start(
            settings.db.clone(),
            &feed,
            settings.webhooks.clone(),
            metrics.clone(),
        );
        Ok(Shared {
            state: web::Data::new(PetStore {
                db: settings.db.clone(),
                clock: settings.clock.clone(),
                feed,
                stream_keep_alive: settings.client_limits.stream_keep_alive,
                webhooks_allow_private: settings.webhooks.allow_private,
            }),
            limiter: web::Data::new(Limiter::for_db(&settings.db, settings.ban)),
            key_cache: web::Data::new(KeyCache::new(settings.key_cache_ttl, 100_000)),
            proxies: web::Data::new(settings.trusted_proxies.clone()),
            client_limits: web::Data::new(settings.client_limits),
            metrics,
            docs: web::Data::new(docs),
        })
    }

    /// Makes the shared state reachable from every route, the guard's
    /// included.
    pub fn register(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.state.clone())
            .app_data(self.limiter.clone())
            .app_data(self.key_cache.clone())
            .app_data(self.proxies.clone())
            .app_data(self.client_limits.clone());
        if let Some(metrics) = &self.metrics {
            cfg.app_data(metrics.clone());
        }
    }
}

/// Binds `address` (`HOST:PORT`), or says what is wrong with it, naming it.
pub fn bind(address: &str) -> std::io::Result<TcpListener> {
    use std::net::ToSocketAddrs;
    let resolved: Vec<std::net::SocketAddr> = address
        .to_socket_addrs()
        .map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("`{address}` is not an address to listen on (HOST:PORT, e.g. 127.0.0.1:8080): {e}"),
            )
        })?
        .collect();
    TcpListener::bind(&resolved[..])
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {address}: {e}")))
}

/// Worker threads when none are asked for: one per core, as actix-web
/// chooses, but half the cores (at least one) when PostgreSQL runs on this
/// host. Its processes then need cores of their own: with a worker per core
/// they are preempted, a backend holding a subject's rate-limit row among
/// them, and every request of that subject waits. Measured on 2 cores with
/// the database on loopback (BENCHMARKS.md): one worker served single reads
/// at 36,000 req/s where two served 26,000-28,000, and SQLite served the same
/// with one worker as with two.
fn default_workers(db: &Db) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    if db.is_postgres_on_this_host() {
        (cores / 2).max(1)
    } else {
        cores
    }
}

/// A bound, not yet running server.
pub struct Application {
    address: std::net::SocketAddr,
    feed: Feed,
    server: Server,
    metrics_address: Option<std::net::SocketAddr>,
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl Application {
    /// Binds the listener and builds the server. SIGINT and SIGTERM stop it
    /// gracefully: requests in flight are finished first.
    pub fn build(settings: Settings) -> std::io::Result<Application> {
        let unsupported = crate::gate::unsupported_schemes();
        if !unsupported.is_empty() {
            return Err(std::io::Error::other(unsupported.join("; ")));
        }
        let listener = settings.listen.listener()?;
        let address = listener.local_addr()?;
        let metrics_listener = settings
            .metrics_listen
            .as_ref()
            .map(Listen::listener)
            .transpose()?;
        // Created once, outside the per-worker factory: every worker shares the
        // same limits (and on PostgreSQL every instance does).
        let shared = Shared::new(&settings)?;
        let metrics = shared.metrics.clone();
        let feed = shared.state.feed.clone();
        // On SIGINT or SIGTERM the event streams end at once, cleanly, so
        // that the graceful stop need not wait them out.
        actix_web::rt::spawn(close_on_signal(shared.state.feed.clone()));
        let mut http = HttpServer::new(move || {
            // Called once in each worker thread.
            shared.state.db.start_worker();
            app(&shared)
        })
        .shutdown_timeout(30)
        .client_request_timeout(settings.client_limits.header_timeout)
        .keep_alive(settings.client_limits.keep_alive)
        .listen(listener)?;
        http = http.workers(
            settings
                .workers
                .unwrap_or_else(|| default_workers(&settings.db)),
        );
        let metrics_address = match (metrics_listener, metrics) {
            (Some(listener), Some(metrics)) => {
                let address = listener.local_addr()?;
                actix_web::rt::spawn(metrics_server(listener, metrics, &settings.db)?);
                Some(address)
            }
            _ => None,
        };
        Ok(Application {
            address,
            feed,
            server: http.run(),
            metrics_address,
        })
    }

    /// The instance's event feed.
    pub fn feed(&self) -> Feed {
        self.feed.clone()
    }

    /// Where metrics are served, when they are on.
    pub fn metrics_address(&self) -> Option<std::net::SocketAddr> {
        self.metrics_address
    }

    pub fn address(&self) -> std::net::SocketAddr {
        self.address
    }

    pub fn port(&self) -> u16 {
        self.address.port()
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }

    /// The server future, for tests that spawn it.
    pub fn into_server(self) -> Server {
        self.server
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
    let state = shared.state.clone();
    App::new()
        .wrap(from_fn(crate::limits::body_deadline))
        .wrap(from_fn(crate::request_log::log_request))
        .configure(|cfg| shared.register(cfg))
        .configure(|cfg| crate::outside::configure(cfg, shared.docs.clone()))
        .service(
            web::scope(BASE_PATH)
                .configure(|cfg| server::configure_with(cfg, state, || from_fn(guard))),
        )
        .default_service(web::to(server::not_found::<PetStore>).wrap(from_fn(guard)))
}

/// Ends the feed's streams when the process is told to stop.
async fn close_on_signal(feed: Feed) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut terminate), Ok(mut interrupt)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return;
    };
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
    tracing::info!(streams = feed.subscribers(), "stopping: event streams end");
    feed.close();
}

/// The metrics listener: `GET /metrics` alone, on one worker of its own,
/// stopped with the process.
fn metrics_server(
    listener: TcpListener,
    metrics: web::Data<Metrics>,
    db: &Db,
) -> std::io::Result<Server> {
    let db = web::Data::new(db.clone());
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(metrics.clone())
            .app_data(db.clone())
            .route("/metrics", web::get().to(crate::metrics::scrape))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?
    .run())
}

/// The middleware around every operation: the gate (who calls, may they,
/// within their limits), then the lifecycle (sunset, deprecation and
/// stability headers). Both read the operation the glue attached.
pub async fn guard(
    request: ServiceRequest,
    next: Next<BoxBody>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    gate(request, async |request| {
        lifecycle(request, async |request| next.call(request).await).await
    })
    .await
}
