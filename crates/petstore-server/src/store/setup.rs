//! Opening a database: the URL decides SQLite or PostgreSQL, pending
//! migrations are applied, and PostgreSQL connections are pooled.

use super::{health, sqlite, Backend, Db, Inner, Postgres, Result};
use crate::error::ApiError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// Each backend's migrations, embedded by `build.rs`.
mod migrations {
    include!(concat!(env!("OUT_DIR"), "/migrations.rs"));
}

/// Embedded migrations (version, description, SQL), handed to sqlx's
/// migrator as it would read them from their directory: the same versions,
/// descriptions and checksums, so a database migrated by either is
/// current for the other.
#[derive(Debug)]
struct Embedded(&'static [(i64, &'static str, &'static str)]);

impl MigrationSource<'static> for Embedded {
    fn resolve(
        self,
    ) -> Pin<
        Box<
            dyn Future<Output = std::result::Result<Vec<Migration>, sqlx::error::BoxDynError>>
                + Send,
        >,
    > {
        let migrations = self
            .0
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    Cow::Borrowed(sql),
                    // sqlx's own reading of a migration that opts out.
                    sql.starts_with("-- no-transaction"),
                )
            })
            .collect();
        Box::pin(std::future::ready(Ok(migrations)))
    }
}

/// Connections per PostgreSQL pool (per server process) unless told otherwise.
pub const DEFAULT_PG_CONNECTIONS: u32 = 16;

/// The database timeout unless told otherwise.
pub const DEFAULT_DATABASE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a pooled PostgreSQL connection may sit idle and still be used
/// without a test.
pub const IDLE_BEFORE_TEST: Duration = Duration::from_secs(1);

/// How a database is opened and used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbOptions {
    /// Connections open to PostgreSQL at most, per instance (SQLite has one
    /// writer and a reader per thread).
    pub pg_connections: u32,
    /// The most a request waits on the database: for a connection, a
    /// statement, a lock, or a call as a whole. Past it, the request is
    /// answered 503 and nothing was done.
    pub timeout: Duration,
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions {
            pg_connections: DEFAULT_PG_CONNECTIONS,
            timeout: DEFAULT_DATABASE_TIMEOUT,
        }
    }
}

impl Db {
    /// Opens the database at `url` and applies pending migrations:
    /// `sqlite://petstore.db` or `sqlite:///abs/path.db` (created if missing),
    /// or `postgres://user:password@host:port/database` (which must exist).
    pub async fn connect(url: &str) -> Result<Db> {
        Db::connect_with(url, DbOptions::default()).await
    }

    /// As [`Db::connect`], with `options`.
    pub async fn connect_with(url: &str, options: DbOptions) -> Result<Db> {
        let timeout = options.timeout;
        let backend = Backend::of_url(url).ok_or_else(|| {
            ApiError::Internal(
                format!(
                    "unsupported database URL `{}`: expected sqlite://PATH or postgres://...",
                    redact(url)
                )
                .into(),
            )
        })?;
        let inner = match backend {
            Backend::Sqlite => {
                // WAL and the other pragmas are set by the writer, which owns
                // the file at run time.
                let options = SqliteConnectOptions::from_str(url)?.create_if_missing(true);
                let mut migrating = options.connect().await?;
                Migrator::new(Embedded(migrations::SQLITE))
                    .await
                    .map_err(sqlx::Error::from)?
                    .run(&mut migrating)
                    .await
                    .map_err(sqlx::Error::from)?;
                migrating.close().await?;
                Inner::Sqlite(sqlite::SqliteStore::open(options.get_filename(), timeout)?)
            }
            Backend::Postgres => {
                // One direct connection first: the pool would only report a
                // timeout, this reports why (refused, unknown database, ...).
                // It applies the migrations, free of the statement timeout:
                // another instance may be applying them, and it waits.
                let connect = PgConnectOptions::from_str(url)?;
                let mut migrating = tokio::time::timeout(timeout, connect.connect())
                    .await
                    .map_err(|_| {
                        ApiError::unavailable(format!(
                            "PostgreSQL did not answer within {timeout:?}"
                        ))
                    })??;
                Migrator::new(Embedded(migrations::POSTGRES))
                    .await
                    .map_err(sqlx::Error::from)?
                    .run(&mut migrating)
                    .await
                    .map_err(sqlx::Error::from)?;
                migrating.close().await?;
                let millis = timeout.as_millis().to_string();
                let on_this_host = on_this_host(&connect);
                let pool = PgPoolOptions::new()
                    .max_connections(options.pg_connections.max(1))
                    .acquire_timeout(timeout)
                    // A connection is tested (a round trip) before a call
                    // only when it has been idle for a while: the database
                    // may have dropped it meanwhile (a restart, a proxy's idle
                    // cut). One just used needs no test, and under load that
                    // round trip per request cost a third of the throughput.
                    // The pool also tests each connection as it comes back.
                    .test_before_acquire(false)
                    .before_acquire(|conn, meta| {
                        Box::pin(async move {
                            if meta.idle_for >= IDLE_BEFORE_TEST {
                                conn.ping().await?;
                            }
                            Ok(true)
                        })
                    })
                    .connect_lazy_with(connect.options([("statement_timeout", millis.as_str())]));
                Inner::Postgres(Postgres {
                    pool,
                    breaker: health::Breaker::default(),
                    timeout,
                    pet_reads: crate::rounds::Rounds::new(),
                    order_rounds: crate::rounds::Rounds::new(),
                    on_this_host,
                })
            }
        };
        Ok(Db {
            inner: Arc::new(inner),
            commits: Arc::default(),
            to_sequence: Arc::default(),
            listening: Arc::default(),
            background: false,
        })
    }
}

/// Whether `options` reach a server on this host: a Unix socket, or a
/// loopback name or address.
fn on_this_host(options: &PgConnectOptions) -> bool {
    // An IPv6 address comes as written in the URL, in brackets.
    let host = options
        .get_host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    options.get_socket().is_some()
        || host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What sqlx reads from a migrations directory, as `migrate!` would
    /// embed it, equals what `build.rs` embeds: a database migrated by an
    /// earlier build (which used `migrate!`) stays current.
    #[tokio::test]
    async fn embedded_migrations_are_the_directories_as_sqlx_reads_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        for (dir, embedded) in [
            ("sqlite", migrations::SQLITE),
            ("postgres", migrations::POSTGRES),
        ] {
            let read = Migrator::new(root.join(dir)).await.unwrap();
            let ours = Migrator::new(Embedded(embedded)).await.unwrap();
            let fields = |m: &Migration| {
                (
                    m.version,
                    m.description.to_string(),
                    m.checksum.to_vec(),
                    m.no_tx,
                    m.migration_type,
                )
            };
            let read: Vec<_> = read.iter().map(fields).collect();
            let ours: Vec<_> = ours.iter().map(fields).collect();
            assert!(read.len() >= 4, "{dir}: {read:?}");
            assert_eq!(ours, read, "{dir}");
        }
    }

    #[test]
    fn passwords_are_not_repeated() {
        assert_eq!(
            redact("postgres://app:s3cret@db:5432/petstore"),
            "postgres://app:***@db:5432/petstore"
        );
        assert_eq!(
            redact("postgres://app@db/petstore"),
            "postgres://app@db/petstore"
        );
        assert_eq!(redact("sqlite://petstore.db"), "sqlite://petstore.db");
    }

    #[test]
    fn a_database_on_a_socket_or_loopback_is_on_this_host() {
        let local = |url: &str| on_this_host(&PgConnectOptions::from_str(url).unwrap());
        for url in [
            "postgres://app@localhost/petstore",
            "postgres://app@127.0.0.1:5432/petstore",
            "postgres://app@[::1]/petstore",
            "postgres://app@localhost/petstore?host=/var/run/postgresql",
        ] {
            assert!(local(url), "{url}");
        }
        for url in [
            "postgres://app@db.example.com/petstore",
            "postgres://app@10.0.0.5:5432/petstore",
        ] {
            assert!(!local(url), "{url}");
        }
    }
}
