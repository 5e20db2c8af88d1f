//! Opening a database: the URL decides SQLite or PostgreSQL, pending
//! migrations are applied, and PostgreSQL connections are pooled.

use super::{sqlite, Backend, Db, Inner, Result};
use crate::error::ApiError;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use std::str::FromStr;
use std::sync::Arc;

/// Connections per PostgreSQL pool (per server process) unless told otherwise.
pub const DEFAULT_PG_CONNECTIONS: u32 = 16;

impl Db {
    /// Opens the database at `url` and applies pending migrations:
    /// `sqlite://petstore.db` or `sqlite:///abs/path.db` (created if missing),
    /// or `postgres://user:password@host:port/database` (which must exist).
    pub async fn connect(url: &str) -> Result<Db> {
        Db::connect_with(url, DEFAULT_PG_CONNECTIONS).await
    }

    /// As [`Db::connect`], with at most `pg_connections` connections open to
    /// PostgreSQL at once (SQLite has one writer and a reader per thread).
    pub async fn connect_with(url: &str, pg_connections: u32) -> Result<Db> {
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
                sqlx::migrate!("./migrations/sqlite")
                    .run(&mut migrating)
                    .await
                    .map_err(sqlx::Error::from)?;
                migrating.close().await?;
                Inner::Sqlite(sqlite::SqliteStore::open(options.get_filename())?)
            }
            Backend::Postgres => {
                // One direct connection first: the pool would only report a
                // timeout, this reports why (refused, unknown database, ...).
                let options = PgConnectOptions::from_str(url)?;
                options.connect().await?.close().await?;
                let pool = PgPoolOptions::new()
                    .max_connections(pg_connections.max(1))
                    .acquire_timeout(std::time::Duration::from_secs(5))
                    .connect_with(options)
                    .await?;
                sqlx::migrate!("./migrations/postgres")
                    .run(&pool)
                    .await
                    .map_err(sqlx::Error::from)?;
                Inner::Postgres(pool)
            }
        };
        Ok(Db {
            inner: Arc::new(inner),
        })
    }
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
}
