//! Startup: what the server is made of, shared by every worker, and the
//! server itself on the framework the operator chose (`on_actix`,
//! `on_axum`): the same store, gate, lifecycle, limits, log and outside
//! routes on either.

use crate::feed::Feed;
use crate::keys::KeyCache;
use crate::limiter::{BanPolicy, Limiter};
use crate::limits::ClientLimits;
use crate::metrics::Metrics;
use crate::outside::DocsHeaders;
use crate::proxies::TrustedProxies;
use crate::service::{Clock, PetStore};
use crate::shutdown::Shutdown;
use crate::store::Db;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

/// The web framework the server runs on. Both serve the same generated
/// glue under the same middleware; the choice is the operator's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Framework {
    /// actix-web: its own workers, one thread each.
    #[default]
    Actix,
    /// axum on hyper: as many workers, one thread each, as actix-web's.
    Axum,
}

impl Framework {
    /// Both, in the order tests run them.
    pub const ALL: [Framework; 2] = [Framework::Actix, Framework::Axum];

    pub fn as_str(self) -> &'static str {
        match self {
            Framework::Actix => "actix",
            Framework::Axum => "axum",
        }
    }
}

/// What the server needs to start.
#[derive(Clone)]
pub struct Settings {
    /// Where the API listens.
    pub listen: Listen,
    pub db: Db,
    pub clock: Clock,
    /// The framework it serves on.
    pub framework: Framework,
    /// Worker threads; `None` for one per core.
    pub workers: Option<usize>,
    /// When a subject that keeps sending while rate limited is banned.
    pub ban: BanPolicy,
    /// How long an authenticated key is trusted before it is checked again
    /// (and so how long a revoked key may still work).
    pub key_cache_ttl: Duration,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: TrustedProxies,
    /// Where to serve Prometheus metrics (`GET /metrics`); `None` keeps
    /// them off.
    pub metrics_listen: Option<Listen>,
    /// What a client may take: deadlines and header size.
    pub client_limits: ClientLimits,
    /// How webhooks are delivered.
    pub webhooks: crate::webhooks::WebhookSettings,
    /// How long a stop gives what is in flight to finish.
    pub shutdown_grace: Duration,
}

impl Settings {
    /// A server on `listen` over `db`, with every other setting as the
    /// command line's defaults have it (one worker per core, actix-web).
    pub fn new(listen: Listen, db: Db, clock: Clock) -> Settings {
        Settings {
            listen,
            db,
            clock,
            framework: Framework::default(),
            workers: None,
            ban: BanPolicy::default(),
            key_cache_ttl: Duration::from_secs(2),
            trusted_proxies: TrustedProxies::default(),
            metrics_listen: None,
            client_limits: ClientLimits::default(),
            webhooks: crate::webhooks::WebhookSettings::default(),
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// Where a server listens: an address to bind (`HOST:PORT`; port 0 picks a
/// free port), or a listener already bound (the command line binds before
/// it opens the database, so that a wrong address fails first).
#[derive(Debug, Clone)]
pub enum Listen {
    Address(String),
    Bound(Arc<TcpListener>),
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
            .field("framework", &self.framework)
            .field("workers", &self.workers)
            .field("metrics_listen", &self.metrics_listen)
            .finish_non_exhaustive()
    }
}

/// What every worker of one server shares: the store, the limiter, the key
/// cache, the trusted proxies, the limits and the metrics. Made once,
/// before the workers start, whatever the framework.
#[derive(Clone)]
pub struct Shared {
    pub state: Arc<PetStore>,
    pub limiter: Arc<Limiter>,
    pub key_cache: Arc<KeyCache>,
    pub proxies: Arc<TrustedProxies>,
    pub client_limits: ClientLimits,
    /// Present when metrics are on.
    pub metrics: Option<Arc<Metrics>>,
    /// The reference page's headers, worked out at start-up.
    pub docs: Arc<DocsHeaders>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl Shared {
    /// The shared state for `settings`, with its event feed started; an
    /// error when the generated reference page cannot be served (see
    /// [`DocsHeaders::of`]).
    pub fn new(settings: &Settings) -> std::io::Result<Self> {
        let docs = DocsHeaders::of(petstore_api::DOCS_HTML).map_err(std::io::Error::other)?;
        let feed = Feed::start(settings.db.clone());
        let metrics = settings
            .metrics_listen
            .as_ref()
            .map(|_| Arc::new(Metrics::default()));
        Ok(Shared {
            state: Arc::new(PetStore {
                db: settings.db.clone(),
                clock: settings.clock.clone(),
                feed,
                stream_keep_alive: settings.client_limits.stream_keep_alive,
                webhooks_allow_private: settings.webhooks.allow_private,
            }),
            limiter: Arc::new(Limiter::for_db(&settings.db, settings.ban)),
            key_cache: Arc::new(KeyCache::new(settings.key_cache_ttl, 100_000)),
            proxies: Arc::new(settings.trusted_proxies.clone()),
            client_limits: settings.client_limits,
            metrics,
            docs: Arc::new(docs),
        })
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

/// A server serving on one framework, as its adapter runs it.
pub(crate) enum Serving {
    Actix(crate::on_actix::Running),
    Axum(crate::on_axum::Running),
}

/// A bound, running server: [`Application::run_until_stopped`] waits for
/// its stop ([`Application::shutdown`], or SIGTERM and SIGINT once the
/// command line has asked for them) and carries it out.
pub struct Application {
    address: std::net::SocketAddr,
    feed: Feed,
    serving: Serving,
    metrics_address: Option<std::net::SocketAddr>,
    shutdown: Shutdown,
    webhooks: crate::webhooks::Dispatcher,
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl Application {
    /// Binds the listeners and starts serving on the framework `settings`
    /// names, with the webhook dispatcher beside it. Runs within an
    /// actix-web system (`#[actix_web::main]`, `#[actix_web::test]`), on
    /// either framework: the feed's and the store's tasks are spawned on
    /// it.
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
        let metrics_address = metrics_listener
            .as_ref()
            .map(TcpListener::local_addr)
            .transpose()?;
        // Created once, outside the workers: every worker shares the same
        // limits (and on PostgreSQL every instance does).
        let shared = Shared::new(&settings)?;
        let shutdown = Shutdown::new(settings.shutdown_grace);
        let webhooks = crate::webhooks::start(
            settings.db.clone(),
            &shared.state.feed,
            settings.webhooks.clone(),
            shared.metrics.clone(),
            shutdown.clone(),
        );
        let workers = settings
            .workers
            .unwrap_or_else(|| default_workers(&settings.db));
        let serving = match settings.framework {
            Framework::Actix => Serving::Actix(crate::on_actix::start(
                &shared,
                listener,
                metrics_listener,
                workers,
                &shutdown,
            )?),
            Framework::Axum => Serving::Axum(crate::on_axum::start(
                &shared,
                listener,
                metrics_listener,
                workers,
                &shutdown,
            )?),
        };
        Ok(Application {
            address,
            feed: shared.state.feed.clone(),
            serving,
            metrics_address,
            shutdown,
            webhooks,
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

    /// The server's stop: [`Shutdown::stop`] starts it, and
    /// [`Shutdown::on_signals`] has SIGTERM and SIGINT start it.
    pub fn shutdown(&self) -> Shutdown {
        self.shutdown.clone()
    }

    /// Serves until the stop, then stops gracefully: no new connections;
    /// the requests in flight finished; event streams ended with a
    /// `retry:` hint; the webhook attempts in flight finished or handed
    /// back to the outbox; all within the grace period.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let Application {
            feed,
            serving,
            shutdown,
            webhooks,
            ..
        } = self;
        let stopped = async {
            let deadline = shutdown.stopping().await;
            tracing::info!(streams = feed.subscribers(), "stopping: event streams end");
            feed.close();
            deadline
        };
        let served = match serving {
            Serving::Actix(running) => running.run(stopped).await,
            Serving::Axum(running) => running.run(stopped).await,
        };
        webhooks.stopped().await;
        tracing::info!("stopped");
        served
    }
}
