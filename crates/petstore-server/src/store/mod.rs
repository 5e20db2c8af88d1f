//! Storage: the store's records and rules, on SQLite or PostgreSQL.
//!
//! Every query and every rule is written once, over [`Conn`], and runs on
//! either database: the SQL uses `$n` placeholders and the subset both speak
//! (`RETURNING`, `ON CONFLICT`); flags are 0/1 integers on both. Every write is
//! one transaction, so the rules (stock never below zero, a pet's status
//! following its stock) hold under any concurrency:
//!
//! - on SQLite (one process), reads run inline on the calling thread's own
//!   read connection and writes on one writer thread that commits them in
//!   groups, with `synchronous = FULL`: an answered write is on disk
//!   ([`sqlite`]);
//! - on PostgreSQL, which several server instances may share, a transaction
//!   locks the rows its decision reads (`SELECT ... FOR UPDATE`) and retries of
//!   one idempotency key queue on an advisory lock.
//!
//! Migrations (`migrations/sqlite`, `migrations/postgres`: the same versions)
//! are applied by sqlx's migrator when the database is opened ([`setup`]).
//!
//! The rules live by what they govern: [`catalog`] (categories and pets),
//! [`orders`], [`inventory`], and [`idempotency`] (retried POSTs).

mod catalog;
pub(crate) mod conn;
mod idempotency;
mod inventory;
mod orders;
mod setup;
mod sqlite;

pub use catalog::PetFilter;
pub use idempotency::Idempotency;
pub use setup::{redact, DEFAULT_PG_CONNECTIONS};
pub use sqlite::{release_snapshots, SNAPSHOT_AGE};

use crate::error::ApiError;
use conn::{Conn, FromRow, Value};
use futures_util::FutureExt;
use petstore_api::models::PetStatus;
use sqlx::postgres::PgPool;
use std::fmt::Write as _;
use std::sync::Arc;

/// Which database a [`Db`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The database.
#[derive(Debug, Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

#[derive(Debug)]
enum Inner {
    Sqlite(sqlite::SqliteStore),
    Postgres(PgPool),
}

/// How busy the database's connections are, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolState {
    /// Writes waiting for SQLite's writer thread.
    Sqlite { queued_writes: usize },
    /// PostgreSQL connections open in this instance's pool, and how many of
    /// them are idle.
    Postgres { open: u32, idle: u32 },
}

/// A page request: items with ids above `after`, at most `limit` of them.
#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub after: i64,
    pub limit: u32,
}

/// One page of items, and whether more may follow.
#[derive(Debug, Clone)]
pub struct Listed<T> {
    pub items: Vec<T>,
    pub more: bool,
}

type Result<T> = std::result::Result<T, ApiError>;

impl Backend {
    /// The backend a database URL names, if it is one of ours.
    pub fn of_url(url: &str) -> Option<Backend> {
        let scheme = url.split_once(':')?.0;
        match scheme {
            "sqlite" => Some(Backend::Sqlite),
            "postgres" | "postgresql" => Some(Backend::Postgres),
            _ => None,
        }
    }

    /// What a transaction appends to a `SELECT` whose rows it is about to
    /// decide on. SQLite needs nothing: its writer holds the database's only
    /// write lock for the whole transaction.
    fn for_update(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE",
        }
    }
}

impl Db {
    pub fn backend(&self) -> Backend {
        match &*self.inner {
            Inner::Sqlite(_) => Backend::Sqlite,
            Inner::Postgres(_) => Backend::Postgres,
        }
    }

    /// How busy the connections are now.
    pub fn pool_state(&self) -> PoolState {
        match &*self.inner {
            Inner::Sqlite(store) => PoolState::Sqlite {
                queued_writes: store.queued_writes(),
            },
            Inner::Postgres(pool) => PoolState::Postgres {
                open: pool.size(),
                idle: u32::try_from(pool.num_idle()).unwrap_or(u32::MAX),
            },
        }
    }

    /// The PostgreSQL pool, when the database is PostgreSQL.
    pub fn postgres(&self) -> Option<&PgPool> {
        match &*self.inner {
            Inner::Postgres(pool) => Some(pool),
            Inner::Sqlite(_) => None,
        }
    }

    /// Runs `op` on a read connection: on SQLite inline, on this thread's own
    /// connection; on PostgreSQL on one from the pool.
    pub(crate) async fn read<T>(
        &self,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T>,
    ) -> Result<T> {
        match &*self.inner {
            Inner::Sqlite(store) => store.read(|conn| inline(op(&mut Conn::Sqlite(conn)))),
            Inner::Postgres(pool) => {
                let mut conn = pool.acquire().await?;
                op(&mut Conn::Postgres(&mut conn)).await
            }
        }
    }

    /// Runs `op` in a transaction, committed when it returns `Ok`: on SQLite
    /// in the writer thread's next group, on PostgreSQL on a pooled connection.
    pub(crate) async fn write<T: Send + 'static>(
        &self,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        match &*self.inner {
            Inner::Sqlite(store) => {
                store
                    .write(move |conn| inline(op(&mut Conn::Sqlite(conn))))
                    .await
            }
            Inner::Postgres(pool) => {
                let mut tx = pool.begin().await?;
                let result = op(&mut Conn::Postgres(&mut tx)).await;
                if result.is_ok() {
                    tx.commit().await?;
                }
                result
            }
        }
    }

    /// Checks that the database answers (for `/healthz`).
    pub async fn ping(&self) -> Result<()> {
        self.read(async |c| c.query_one("SELECT 1", &[]).await.map(|_| ()))
            .await
    }
}

/// Runs a future that cannot wait: every SQLite statement completes in the
/// thread that runs it, so the store's futures are ready when first polled.
fn inline<T>(future: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    future.now_or_never().unwrap_or_else(|| {
        Err(ApiError::Internal(
            "a SQLite operation waited for something".into(),
        ))
    })
}

/// A paged listing with optional filters: `prefix` ends with the comparison
/// of the id column to the page's `after`; filters are `AND`ed after it, each
/// with the next `$n` placeholder.
struct Filtered {
    sql: String,
    args: Vec<Value>,
    limit: u32,
}

impl Filtered {
    fn new(prefix: &str, page: Page) -> Self {
        let mut q = Filtered {
            sql: prefix.to_string(),
            args: Vec::new(),
            limit: page.limit,
        };
        q.placeholder(page.after);
        q
    }

    fn placeholder(&mut self, arg: impl Into<Value>) {
        self.args.push(arg.into());
        // Writing to a `String` cannot fail.
        let _ = write!(self.sql, "${}", self.args.len());
    }

    fn and(&mut self, condition: &str, arg: impl Into<Value>) {
        self.sql.push_str(" AND ");
        self.sql.push_str(condition);
        self.placeholder(arg);
    }

    fn and_in(&mut self, column: &str, values: &[i64]) {
        if values.is_empty() {
            self.sql.push_str(" AND 1 = 0");
            return;
        }
        self.sql.push_str(" AND ");
        self.sql.push_str(column);
        self.sql.push_str(" IN (");
        for (i, value) in values.iter().enumerate() {
            if i > 0 {
                self.sql.push_str(", ");
            }
            self.placeholder(*value);
        }
        self.sql.push(')');
    }

    /// Orders by `id_column` and fetches one row more than the page holds,
    /// to tell whether more follow.
    async fn fetch<T: FromRow>(mut self, id_column: &str, c: &mut Conn<'_>) -> Result<Vec<T>> {
        self.sql.push_str(" ORDER BY ");
        self.sql.push_str(id_column);
        self.sql.push_str(" LIMIT ");
        self.placeholder(i64::from(self.limit) + 1);
        c.query_as(&self.sql, &self.args).await
    }
}

fn listed<T>(mut items: Vec<T>, page: Page) -> Listed<T> {
    let more = items.len() > page.limit as usize;
    items.truncate(page.limit as usize);
    Listed { items, more }
}

fn corrupt(what: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("corrupt row: {what}").into())
}

fn parse_status(s: &str) -> Result<PetStatus> {
    s.parse().map_err(corrupt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_are_told_by_scheme() {
        assert_eq!(
            Backend::of_url("sqlite://petstore.db"),
            Some(Backend::Sqlite)
        );
        assert_eq!(
            Backend::of_url("postgres://u@h/db"),
            Some(Backend::Postgres)
        );
        assert_eq!(
            Backend::of_url("postgresql://u@h/db"),
            Some(Backend::Postgres)
        );
        assert_eq!(Backend::of_url("mysql://u@h/db"), None);
        assert_eq!(Backend::of_url("petstore.db"), None);
    }
}
