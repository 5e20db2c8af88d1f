//! Startup: the actix-web application, its middleware and its listener.

use crate::gate::gate;
use crate::keys::{KeyCache, KeyInfo};
use crate::lifecycle::lifecycle;
use crate::limiter::{BanPolicy, Limiter};
use crate::proxies::TrustedProxies;
use crate::service::{Clock, PetStore};
use crate::store::{self, Backend, Db};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Server, ServiceRequest, ServiceResponse};
use actix_web::middleware::{from_fn, Next};
use actix_web::{web, App, HttpMessage, HttpResponse, HttpServer};
use petstore_api::metadata::BASE_PATH;
use petstore_api::runtime::Operation;
use petstore_api::server;
use std::net::TcpListener;
use std::time::Instant;

/// What the server needs to start.
#[derive(Clone)]
pub struct Settings {
    /// Address to listen on; port 0 picks a free port.
    pub listen: String,
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
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("listen", &self.listen)
            .field("workers", &self.workers)
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
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl Shared {
    pub fn new(settings: &Settings) -> Self {
        Shared {
            state: web::Data::new(PetStore {
                db: settings.db.clone(),
                clock: settings.clock.clone(),
            }),
            limiter: web::Data::new(Limiter::for_db(&settings.db, settings.ban)),
            key_cache: web::Data::new(KeyCache::new(settings.key_cache_ttl, 100_000)),
            proxies: web::Data::new(settings.trusted_proxies.clone()),
        }
    }

    /// Makes the shared state reachable from every route, the guard's
    /// included.
    pub fn register(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.state.clone())
            .app_data(self.limiter.clone())
            .app_data(self.key_cache.clone())
            .app_data(self.proxies.clone());
    }
}

/// A bound, not yet running server.
pub struct Application {
    address: std::net::SocketAddr,
    server: Server,
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
        let listener = TcpListener::bind(&settings.listen)?;
        let address = listener.local_addr()?;
        // Created once, outside the per-worker factory: every worker shares the
        // same limits (and on PostgreSQL every instance does).
        let shared = Shared::new(&settings);
        let on_sqlite = settings.db.backend() == Backend::Sqlite;
        let mut http = HttpServer::new(move || {
            // Called once in each worker thread: the worker's SQLite read
            // snapshots must not outlive their age while it sits idle.
            if on_sqlite {
                actix_web::rt::spawn(async {
                    loop {
                        actix_web::rt::time::sleep(store::SNAPSHOT_AGE).await;
                        store::release_snapshots();
                    }
                });
            }
            // The request log sees every request. The guard (key, limits,
            // then deprecation and stability) wraps each operation's route,
            // where the glue has attached the operation, and the 404 and 405
            // answers; `/healthz` and `/openapi.yaml` are outside the spec
            // and outside the guard.
            App::new()
                .wrap(from_fn(log_request))
                .configure(|cfg| shared.register(cfg))
                .route("/healthz", web::get().to(healthz))
                .route("/openapi.yaml", web::get().to(openapi))
                .service(web::scope(BASE_PATH).configure(|cfg| {
                    server::configure_with(cfg, shared.state.clone(), || from_fn(guard))
                }))
                .default_service(web::to(server::not_found::<PetStore>).wrap(from_fn(guard)))
        })
        .shutdown_timeout(30)
        .listen(listener)?;
        if let Some(workers) = settings.workers {
            http = http.workers(workers);
        }
        Ok(Application {
            address,
            server: http.run(),
        })
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

async fn healthz(state: web::Data<PetStore>) -> HttpResponse {
    match state.db.ping().await {
        Ok(()) => HttpResponse::Ok().content_type("text/plain").body("ok\n"),
        Err(e) => {
            tracing::error!(error = %e, "health check: database unreachable");
            HttpResponse::ServiceUnavailable()
                .content_type("text/plain")
                .body("database unreachable\n")
        }
    }
}

async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/yaml")
        .body(petstore_api::SPEC_YAML)
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

/// One log line per request: method, path, operation, status, latency and
/// key id (never the key); and a span around the request with
/// OpenTelemetry's HTTP field names, for whatever tracing layer a
/// deployment adds (the log format itself shows no spans).
async fn log_request(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    use tracing::field::Empty;
    use tracing::Instrument as _;
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.path().to_string();
    let span = tracing::info_span!(
        target: "petstore::http",
        "request",
        http.request.method = %method,
        url.path = %path,
        http.route = Empty,
        http.response.status_code = Empty,
        operation.id = Empty,
        key.id = Empty,
    );
    let response = next.call(request).instrument(span.clone()).await?;
    let operation = Operation::of(response.request());
    let key_id = response
        .request()
        .extensions()
        .get::<KeyInfo>()
        .map(|k| k.id);
    let status = response.status().as_u16();
    if !span.is_disabled() {
        if let Some(op) = operation {
            span.record("http.route", format_args!("{BASE_PATH}{}", op.path));
            span.record("operation.id", op.id);
        }
        span.record("http.response.status_code", status);
        if let Some(id) = key_id {
            span.record("key.id", id);
        }
    }
    tracing::info!(
        target: "petstore::http",
        %method,
        %path,
        operation = operation.map_or("-", |op| op.id),
        status,
        latency_us = started.elapsed().as_micros() as u64,
        key_id,
        "request"
    );
    Ok(response)
}
