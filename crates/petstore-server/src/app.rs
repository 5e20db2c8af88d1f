//! Startup: the actix-web application, its middleware and its listener.

use crate::gate::gate;
use crate::keys::{KeyCache, KeyInfo};
use crate::lifecycle::{lifecycle, Lifecycle};
use crate::limiter::{BanPolicy, Limiter};
use crate::proxies::TrustedProxies;
use crate::service::{Clock, PetStore};
use crate::store::{self, Backend, Db};
use actix_web::body::MessageBody;
use actix_web::dev::{Server, ServiceRequest, ServiceResponse};
use actix_web::middleware::{from_fn, Next};
use actix_web::{web, App, HttpMessage, HttpResponse, HttpServer};
use petstore_api::metadata::BASE_PATH;
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
        let listener = TcpListener::bind(&settings.listen)?;
        let address = listener.local_addr()?;
        let state = web::Data::new(PetStore {
            db: settings.db.clone(),
            clock: settings.clock.clone(),
        });
        // Created once, outside the per-worker factory: every worker shares the
        // same limits (and on PostgreSQL every instance does).
        let limiter = web::Data::new(Limiter::for_db(&settings.db, settings.ban));
        let lifecycle_table = web::Data::new(Lifecycle::from_metadata());
        let key_cache = web::Data::new(KeyCache::new(settings.key_cache_ttl, 100_000));
        let proxies = web::Data::new(settings.trusted_proxies.clone());
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
            // Middleware runs outermost first: log, then the gate (key and
            // limits), then deprecation and stability.
            App::new()
                .wrap(from_fn(lifecycle))
                .wrap(from_fn(gate))
                .wrap(from_fn(log_request))
                .app_data(state.clone())
                .app_data(limiter.clone())
                .app_data(lifecycle_table.clone())
                .app_data(key_cache.clone())
                .app_data(proxies.clone())
                .route("/healthz", web::get().to(healthz))
                .route("/openapi.yaml", web::get().to(openapi))
                .service(
                    web::scope(BASE_PATH).configure(|cfg| server::configure(cfg, state.clone())),
                )
                .default_service(web::to(server::not_found::<PetStore>))
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

/// One log line per request: method, path, status, latency and key id (never
/// the key).
async fn log_request(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.path().to_string();
    let response = next.call(request).await?;
    let key_id = response
        .request()
        .extensions()
        .get::<KeyInfo>()
        .map(|k| k.id);
    tracing::info!(
        target: "petstore::http",
        %method,
        %path,
        status = response.status().as_u16(),
        latency_us = started.elapsed().as_micros() as u64,
        key_id,
        "request"
    );
    Ok(response)
}
