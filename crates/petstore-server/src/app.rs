//! Startup: the actix-web application, its middleware and its listener.

use crate::gate::gate;
use crate::keys::{KeyCache, KeyInfo};
use crate::lifecycle::lifecycle;
use crate::limiter::{BanPolicy, Limiter};
use crate::limits::ClientLimits;
use crate::metrics::Metrics;
use crate::proxies::TrustedProxies;
use crate::service::{Clock, PetStore};
use crate::store::{self, Backend, Db};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse};
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
            client_limits: web::Data::new(settings.client_limits),
            metrics: settings
                .metrics_listen
                .as_ref()
                .map(|_| web::Data::new(Metrics::default())),
        }
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

/// A bound, not yet running server.
pub struct Application {
    address: std::net::SocketAddr,
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
        let shared = Shared::new(&settings);
        let metrics = shared.metrics.clone();
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
            app(&shared)
        })
        .shutdown_timeout(30)
        .client_request_timeout(settings.client_limits.header_timeout)
        .keep_alive(settings.client_limits.keep_alive)
        .listen(listener)?;
        if let Some(workers) = settings.workers {
            http = http.workers(workers);
        }
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
            server: http.run(),
            metrics_address,
        })
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
/// the 404 and 405 answers; `/healthz` and `/openapi.yaml` are outside the
/// spec and outside the guard.
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
        .wrap(from_fn(log_request))
        .configure(|cfg| shared.register(cfg))
        .route("/healthz", web::get().to(healthz))
        .route("/openapi.yaml", web::get().to(openapi))
        .route("/docs", web::get().to(docs))
        .service(
            web::scope(BASE_PATH)
                .configure(|cfg| server::configure_with(cfg, state, || from_fn(guard))),
        )
        .default_service(web::to(server::not_found::<PetStore>).wrap(from_fn(guard)))
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

/// The longest a health check waits for the database: load balancers
/// time their checks out after a second or two.
const HEALTH_CHECK_BOUND: std::time::Duration = std::time::Duration::from_millis(900);

/// 200 when the database answers, 503 when it does not, within
/// [`HEALTH_CHECK_BOUND`] either way. While the database is known to be
/// away, the check is answered at once except when it is time for a probe
/// (see the store's circuit breaker): a load balancer that has taken the
/// instance out of rotation brings it back by its checks alone.
async fn healthz(state: web::Data<PetStore>) -> HttpResponse {
    let bound = state.db.timeout().min(HEALTH_CHECK_BOUND);
    let checked = tokio::time::timeout(bound, state.db.ping())
        .await
        .unwrap_or_else(|_| {
            Err(crate::error::ApiError::unavailable(format!(
                "no answer within {bound:?}"
            )))
        });
    match checked {
        Ok(()) => HttpResponse::Ok().content_type("text/plain").body("ok\n"),
        Err(e) => {
            if !matches!(e, crate::error::ApiError::Unavailable { cause: None, .. }) {
                tracing::warn!(error = %e, "health check: database unavailable");
            }
            HttpResponse::ServiceUnavailable()
                .content_type("text/plain")
                .body("database unavailable\n")
        }
    }
}

async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/yaml")
        .body(petstore_api::SPEC_YAML)
}

/// What the reference page is served with, worked out once from its
/// content.
struct DocsHeaders {
    /// A hash of the page.
    etag: String,
    /// The page's content security policy: its own inline style and script
    /// run, by their hashes, and nothing else does; it may talk only to
    /// this server.
    policy: String,
}

fn docs_headers() -> &'static DocsHeaders {
    static HEADERS: std::sync::OnceLock<DocsHeaders> = std::sync::OnceLock::new();
    HEADERS.get_or_init(|| {
        use base64::Engine;
        use sha2::{Digest, Sha256};
        let page = petstore_api::DOCS_HTML;
        let digest = Sha256::digest(page.as_bytes());
        let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        let hash_of = |open: &str, close: &str| {
            let start = page.find(open).map(|i| i + open.len());
            let inner = start.and_then(|s| Some(&page[s..s + page[s..].find(close)?]));
            let inner = inner.expect("the generated page has its inline style and script");
            let digest = Sha256::digest(inner.as_bytes());
            format!(
                "'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
        };
        DocsHeaders {
            etag: format!("\"{hex}\""),
            policy: format!(
                "default-src 'none'; style-src {}; script-src {}; connect-src 'self'; \
                 img-src 'self' data:; base-uri 'none'; form-action 'none'",
                hash_of("<style>", "</style>"),
                hash_of("<script>", "</script>"),
            ),
        }
    })
}

/// The API reference page, generated from the spec: no key needed. Its
/// `ETag` comes from its content, so a browser revalidates (`no-cache`)
/// and gets 304 until the page changes. It loads nothing from elsewhere,
/// and its policy lets it talk only to this server.
async fn docs(request: actix_web::HttpRequest) -> HttpResponse {
    use actix_web::http::header;
    let DocsHeaders { etag, policy } = docs_headers();
    let fresh = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|t| t.trim() == *etag || t.trim() == "*")
        });
    let mut response = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::ETAG, etag.as_str()))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_SECURITY_POLICY, policy.as_str()));
    if fresh {
        response.finish()
    } else {
        response
            .content_type("text/html; charset=utf-8")
            .body(petstore_api::DOCS_HTML)
    }
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
    let metrics = request.app_data::<web::Data<Metrics>>().cloned();
    if let Some(metrics) = &metrics {
        metrics.started();
    }
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
    let response = next.call(request).instrument(span.clone()).await;
    let response = match (response, &metrics) {
        (Ok(response), _) => response,
        (Err(e), Some(metrics)) => {
            metrics.finished(
                None,
                e.as_response_error().status_code().as_u16(),
                started.elapsed(),
            );
            return Err(e);
        }
        (Err(e), None) => return Err(e),
    };
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
    if let Some(metrics) = &metrics {
        metrics.finished(operation.map(|op| op.id), status, started.elapsed());
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};
    use tracing_subscriber::layer::{Context, SubscriberExt as _};

    /// Records every field of every span, as `name=value`.
    struct Capture(Arc<Mutex<Vec<String>>>);

    impl Visit for &Capture {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            crate::lock(&self.0).push(format!("{}={value:?}", field.name()));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            crate::lock(&self.0).push(format!("{}={value}", field.name()));
        }
    }

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
        fn on_new_span(
            &self,
            attrs: &tracing::span::Attributes<'_>,
            _: &tracing::span::Id,
            _: Context<'_, S>,
        ) {
            attrs.record(&mut &*self);
        }

        fn on_record(
            &self,
            _: &tracing::span::Id,
            values: &tracing::span::Record<'_>,
            _: Context<'_, S>,
        ) {
            values.record(&mut &*self);
        }
    }

    #[actix_web::test]
    async fn the_request_span_carries_opentelemetry_fields_and_never_the_key() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Capture(seen.clone()));
        let _default = tracing::subscriber::set_default(subscriber);
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let db = Db::connect(&url).await.unwrap();
        let clock = crate::service::system_clock();
        let (id, key) = crate::keys::create(&db, crate::keys::Plan::Free, None, None, clock())
            .await
            .unwrap();
        let shared = Shared::new(&Settings {
            listen: Listen::any_local_port(),
            db,
            clock,
            workers: None,
            ban: BanPolicy::default(),
            key_cache_ttl: std::time::Duration::ZERO,
            trusted_proxies: TrustedProxies::default(),
            metrics_listen: None,
            client_limits: ClientLimits::default(),
        });
        let service = actix_web::test::init_service(app(&shared)).await;
        let request = actix_web::test::TestRequest::get()
            .uri("/v1/pets/7")
            .insert_header(("Authorization", format!("Bearer {}", key.expose())))
            .to_request();
        let response = actix_web::test::call_service(&service, request).await;
        assert_eq!(response.status(), 404);
        let seen = crate::lock(&seen).clone();
        for field in [
            "http.request.method=GET".to_string(),
            "url.path=/v1/pets/7".to_string(),
            "http.route=/v1/pets/{petId}".to_string(),
            "http.response.status_code=404".to_string(),
            "operation.id=getPet".to_string(),
            format!("key.id={id}"),
        ] {
            assert!(seen.contains(&field), "{field} not in {seen:?}");
        }
        assert!(!seen.iter().any(|f| f.contains(key.expose())), "{seen:?}");
    }
}
