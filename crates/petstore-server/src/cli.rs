//! The command line: `serve` (the default) and `keys create|list|revoke`.

use crate::app::{Application, Framework, Listen, Settings};
use crate::keys::{self, Limits, Plan};
use crate::limiter::BanPolicy;
use crate::limits::ClientLimits;
use crate::proxies::TrustedProxies;
use crate::service::system_clock;
use crate::store::{redact, Db, DbOptions, DEFAULT_PG_CONNECTIONS};
use clap::{Args, Parser, Subcommand};
use std::sync::Arc;
use std::time::Duration;

/// The pet store server.
#[derive(Debug, Parser)]
#[command(name = "petstore-server", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub serve: ServeArgs,
    /// Database URL: `sqlite://PATH` (relative) or `sqlite:///ABS/PATH`, the
    /// file created if missing; or `postgres://USER:PASSWORD@HOST:PORT/DB` for
    /// PostgreSQL, which several instances can share.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://petstore.db",
        global = true
    )]
    pub database_url: String,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the API (the default).
    Serve {
        #[command(flatten)]
        serve: ServeArgs,
    },
    /// Manage API keys.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "PETSTORE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// The web framework to serve on: the same store, limits and answers
    /// on either.
    #[arg(long, env = "PETSTORE_FRAMEWORK", value_enum, default_value_t = Framework::Actix)]
    pub framework: Framework,
    /// How long a stop (SIGTERM, SIGINT) gives the requests, event streams
    /// and webhook attempts in flight to finish; what has not by then is
    /// cut off (a webhook attempt handed back to the outbox).
    #[arg(long, env = "PETSTORE_SHUTDOWN_GRACE", default_value = "30s", value_parser = parse_timeout)]
    pub shutdown_grace: Duration,
    /// Worker threads (default: one per core; half the cores, at least
    /// one, when PostgreSQL runs on this host).
    #[arg(long, env = "PETSTORE_WORKERS")]
    pub workers: Option<usize>,
    /// Connections this instance opens to PostgreSQL at most (not used with
    /// SQLite). Size the database's `max_connections` for every instance.
    #[arg(
        long,
        env = "PETSTORE_DATABASE_CONNECTIONS",
        default_value_t = DEFAULT_PG_CONNECTIONS,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub database_connections: u32,
    /// The most a request waits on the database (for a connection, a
    /// statement, a lock): `2s`, `500ms`, or seconds. Past it the request is
    /// answered 503 `unavailable` and nothing was done.
    #[arg(
        long,
        env = "PETSTORE_DATABASE_TIMEOUT",
        default_value = "2s",
        value_parser = parse_timeout
    )]
    pub database_timeout: Duration,
    /// Requests tolerated while rate limited before a ban.
    #[arg(long, env = "PETSTORE_BAN_AFTER", default_value_t = 10)]
    pub ban_after: u32,
    /// How long a ban lasts, in minutes.
    #[arg(long, env = "PETSTORE_BAN_MINUTES", default_value_t = 15)]
    pub ban_minutes: u32,
    /// Load balancers whose `X-Forwarded-For` names the client (addresses
    /// and CIDR ranges, comma-separated; default: none).
    #[arg(
        long,
        env = "PETSTORE_TRUSTED_PROXIES",
        value_parser = TrustedProxies::parse,
        default_value = "",
        hide_default_value = true
    )]
    pub trusted_proxies: TrustedProxies,
    /// Serve Prometheus metrics (`GET /metrics`, no key) on this address;
    /// off unless given. Bind it where only the scraper reaches it.
    #[arg(long, env = "PETSTORE_METRICS_LISTEN")]
    pub metrics_listen: Option<String>,
    /// How long a client may take to send a request's head; past it the
    /// connection is answered 408 and closed.
    #[arg(long, env = "PETSTORE_HEADER_TIMEOUT", default_value = "5s", value_parser = parse_timeout)]
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive after its head; past
    /// it the request is answered 408 `request_timeout`.
    #[arg(long, env = "PETSTORE_BODY_TIMEOUT", default_value = "10s", value_parser = parse_timeout)]
    pub body_timeout: Duration,
    /// How long an idle keep-alive connection stays open.
    #[arg(long, env = "PETSTORE_KEEP_ALIVE", default_value = "5s", value_parser = parse_timeout)]
    pub keep_alive: Duration,
    /// How long an event stream stays silent before a keep-alive comment
    /// goes out (a client gone is noticed at the next one).
    #[arg(long, env = "PETSTORE_STREAM_KEEP_ALIVE", default_value = "15s", value_parser = parse_timeout)]
    pub stream_keep_alive: Duration,
    /// The most bytes a request's headers may take; more is answered 431.
    #[arg(
        long,
        env = "PETSTORE_MAX_HEADER_BYTES",
        default_value_t = 16 * 1024,
        value_parser = clap::value_parser!(u32).range(1024..=65536)
    )]
    pub max_header_bytes: u32,
    /// When failed webhook deliveries are retried: comma-separated waits
    /// (`5s,5m,30m`); after the last, the endpoint is disabled.
    #[arg(
        long,
        env = "PETSTORE_WEBHOOK_RETRY_SCHEDULE",
        default_value = "5s,5m,30m,2h,5h,10h,10h"
    )]
    pub webhook_retry_schedule: crate::webhooks::Schedule,
    /// Let webhook URLs name loopback and private addresses (for tests, and
    /// for receivers on the same network).
    #[arg(long, env = "PETSTORE_WEBHOOKS_ALLOW_PRIVATE", default_value_t = false)]
    pub webhooks_allow_private: bool,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create a key and print it, alone, on one line. It is shown only once.
    Create {
        /// free, pro, business or enterprise.
        #[arg(long)]
        plan: Plan,
        /// Requests per minute (required for enterprise; overrides the plan's).
        #[arg(long, requires = "per_day")]
        per_minute: Option<u32>,
        /// Requests per day (required for enterprise; overrides the plan's).
        #[arg(long, requires = "per_minute")]
        per_day: Option<u32>,
        /// A note to recognise the key by.
        #[arg(long)]
        name: Option<String>,
    },
    /// List keys (never the keys themselves).
    List,
    /// Revoke a key by id.
    Revoke { id: i64 },
}

pub async fn run(cli: Cli) -> Result<(), String> {
    let database = cli.database_url;
    match cli.command {
        None => serve(cli.serve, &database).await,
        Some(Command::Serve { serve: s }) => serve(s, &database).await,
        Some(Command::Keys { command }) => keys_command(command, &database).await,
    }
}

/// A stored RFC 3339 time to the second, in UTC (`2026-11-23T07:00:00Z`), so
/// that the column lines up; as stored when it does not parse.
fn seconds_utc(stored: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(stored)
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        })
        .unwrap_or_else(|_| stored.to_string())
}

/// Why `keys revoke ID` did nothing, and what the ids are.
async fn unknown_key(db: &Db, id: i64) -> String {
    let active: Vec<String> = match keys::list(db).await {
        Ok(keys) => keys
            .iter()
            .filter(|k| k.revoked_at.is_none())
            .map(|k| k.id.to_string())
            .collect(),
        Err(_) => Vec::new(),
    };
    match active.as_slice() {
        [] => format!(
            "no active key with id {id}: there are no active keys \
             (`petstore-server keys create --plan free` makes one)"
        ),
        ids => format!(
            "no active key with id {id}; active keys: {} (`petstore-server keys list` shows them)",
            ids.join(", ")
        ),
    }
}

/// A timeout: `2s`, `500ms`, `1.5s`, or a number of seconds; more than
/// zero, at most an hour.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.strip_suffix("ms") {
        Some(number) => (number, 0.001),
        None => (text.strip_suffix('s').unwrap_or(text), 1.0),
    };
    let seconds = number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|n| n * unit)
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
        .ok_or_else(|| {
            format!("`{text}` is not a timeout: write `2s`, `500ms` or a number of seconds, up to an hour")
        })?;
    Ok(Duration::from_secs_f64(seconds))
}

async fn open(database_url: &str, options: DbOptions) -> Result<Db, String> {
    Db::connect_with(database_url, options)
        .await
        .map_err(|e| format!("cannot open database {}: {e}", redact(database_url)))
}

async fn serve(args: ServeArgs, database_url: &str) -> Result<(), String> {
    crate::limits::raise_open_files_limit();
    // Every option is checked, and the addresses bound, before anything
    // touches the database: a wrong address must not leave a new database
    // and a printed bootstrap key behind.
    let listener = crate::app::bind(&args.listen).map_err(|e| e.to_string())?;
    let metrics_listener = match &args.metrics_listen {
        Some(address) => Some(crate::app::bind(address).map_err(|e| e.to_string())?),
        None => None,
    };
    let options = DbOptions {
        pg_connections: args.database_connections,
        timeout: args.database_timeout,
    };
    let db = open(database_url, options).await?;
    let clock = system_clock();
    if let Some((id, secret)) = keys::bootstrap(&db, clock()).await? {
        println!("Created API key {id} (free plan). It is shown only this once:");
        println!();
        println!("    {}", secret.expose());
        println!();
    }
    let app = Application::build(Settings {
        listen: Listen::Bound(Arc::new(listener)),
        db,
        clock,
        framework: args.framework,
        workers: args.workers,
        ban: BanPolicy {
            after: args.ban_after,
            seconds: i64::from(args.ban_minutes) * 60,
        },
        key_cache_ttl: std::time::Duration::from_secs(2),
        trusted_proxies: args.trusted_proxies,
        metrics_listen: metrics_listener.map(|l| Listen::Bound(Arc::new(l))),
        client_limits: ClientLimits {
            header_timeout: args.header_timeout,
            keep_alive: args.keep_alive,
            stream_keep_alive: args.stream_keep_alive,
            body_timeout: args.body_timeout,
            max_header_bytes: args.max_header_bytes as usize,
        },
        webhooks: crate::webhooks::WebhookSettings {
            schedule: args.webhook_retry_schedule,
            allow_private: args.webhooks_allow_private,
        },
        shutdown_grace: args.shutdown_grace,
    })
    .map_err(|e| e.to_string())?;
    app.shutdown().on_signals();
    let metrics = app
        .metrics_address()
        .map(|address| format!("; metrics at http://{address}/metrics"))
        .unwrap_or_default();
    println!(
        "Pet store listening on http://{}{} (reference at /docs, spec at /openapi.yaml, health at /healthz{metrics})",
        app.address(),
        petstore_api::metadata::BASE_PATH
    );
    tracing::info!(
        address = %app.address(),
        framework = args.framework.as_str(),
        database = %redact(database_url),
        "listening"
    );
    app.run_until_stopped().await.map_err(|e| e.to_string())
}

async fn keys_command(command: KeysCommand, database_url: &str) -> Result<(), String> {
    let db = open(database_url, DbOptions::default()).await?;
    let now = chrono::Utc::now();
    match command {
        KeysCommand::Create {
            plan,
            per_minute,
            per_day,
            name,
        } => {
            let limits = per_minute.zip(per_day).map(|(per_minute, per_day)| Limits {
                per_minute,
                per_day,
            });
            let (_, secret) = keys::create(&db, plan, limits, name.as_deref(), now).await?;
            println!("{}", secret.expose());
        }
        KeysCommand::List => {
            println!(
                "{:>4}  {:<14} {:<10} {:>9} {:>9}  {:<20} {:<8} NAME",
                "ID", "PREFIX", "PLAN", "PER_MIN", "PER_DAY", "CREATED (UTC)", "STATE"
            );
            for k in keys::list(&db).await.map_err(|e| e.to_string())? {
                println!(
                    "{:>4}  {:<14} {:<10} {:>9} {:>9}  {:<20} {:<8} {}",
                    k.id,
                    k.prefix,
                    k.plan,
                    k.limits.per_minute,
                    k.limits.per_day,
                    seconds_utc(&k.created_at),
                    if k.revoked_at.is_some() {
                        "revoked"
                    } else {
                        "active"
                    },
                    k.name.unwrap_or_default()
                );
            }
        }
        KeysCommand::Revoke { id } => {
            if keys::revoke(&db, id, now)
                .await
                .map_err(|e| e.to_string())?
            {
                println!("revoked key {id}");
            } else {
                return Err(unknown_key(&db, id).await);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_as_an_operator_writes_them() {
        assert_eq!(parse_timeout("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_timeout("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_timeout("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_timeout("3"), Ok(Duration::from_secs(3)));
        for wrong in ["", "0", "-1s", "2m", "fast", "1e9", "NaN"] {
            let e = parse_timeout(wrong).unwrap_err();
            assert!(e.contains("is not a timeout"), "{wrong}: {e}");
        }
    }
}
