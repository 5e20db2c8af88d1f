//! Storage: the store's records and rules, on SQLite or PostgreSQL.
//!
//! Every query and every rule is written once, over [`Conn`], and runs on
//! either database: the SQL uses `$n` placeholders and the subset both speak
//! (`RETURNING`, `ON CONFLICT`); flags are 0/1 integers on both. Two rules
//! are written a second time, as PostgreSQL functions, so that they cost one
//! round trip there: the limiter's round and placing an order (migrations
//! 0005 and 0007; the tests run on both databases). Every write is
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
//! Migrations (`migrations/sqlite`, `migrations/postgres`: a version both
//! have makes the same tables; PostgreSQL's alone add what only several
//! instances need)
//! are applied by sqlx's migrator when the database is opened ([`setup`]).
//!
//! No request waits on the database longer than the database timeout
//! ([`DbOptions::timeout`]): on PostgreSQL it bounds the wait for a
//! connection, every statement (`statement_timeout`) and each database call
//! as a whole; on SQLite it bounds the wait for a lock (`busy_timeout`) and
//! for the writer. A database that cannot answer in time is a 503
//! ([`ApiError::Unavailable`]), after which nothing was done; a commit that
//! was sent and never confirmed is [`ApiError::Indeterminate`]. On
//! PostgreSQL a circuit breaker ([`health`]) answers 503 at once while the
//! database is away.
//!
//! The rules live by what they govern: [`catalog`] (categories and pets),
//! [`orders`], [`inventory`], [`idempotency`] (retried POSTs), [`events`]
//! (each change, for the event stream) and [`webhooks`] (the endpoints and
//! the outbox of deliveries).

mod catalog;
pub(crate) mod conn;
pub mod events;
mod health;
mod idempotency;
mod inventory;
mod orders;
mod pet_reads;
mod setup;
mod sqlite;
pub mod webhooks;

pub use catalog::PetFilter;
pub use idempotency::Idempotency;
pub use setup::{
    redact, DbOptions, DEFAULT_DATABASE_TIMEOUT, DEFAULT_PG_CONNECTIONS, IDLE_BEFORE_TEST,
};

use crate::error::ApiError;
use conn::{Conn, FromRow, Value};
use futures_util::FutureExt;
use petstore_api::models::PetStatus;
use sqlx::postgres::PgPool;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

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
    /// Woken when new events may be readable (see [`Db::commits`]).
    commits: Arc<tokio::sync::Notify>,
    /// Woken after this process's commits on PostgreSQL, for their pending
    /// events to be sequenced (see [`Db::to_sequence`]).
    to_sequence: Arc<tokio::sync::Notify>,
    /// Pool connections the event feed holds for `LISTEN` (0 or 1).
    listening: Arc<std::sync::atomic::AtomicU32>,
    /// A handle of work no request waits for (the event feed's): its
    /// failures do not count toward the circuit breaker, which is there
    /// for requests (see [`Db::for_background`]).
    background: bool,
}

#[derive(Debug)]
enum Inner {
    Sqlite(sqlite::SqliteStore),
    Postgres(Postgres),
}

/// PostgreSQL: the pool, and what bounds each call to it.
#[derive(Debug)]
struct Postgres {
    pool: PgPool,
    breaker: health::Breaker,
    /// The most one call (a read, or a transaction and its commit) may take.
    timeout: Duration,
    /// Single pets read in rounds.
    pet_reads: pet_reads::PetReads,
    /// Orders without an idempotency key placed in rounds.
    order_rounds: orders::OrderRounds,
    /// Whether the server is on this host (a socket or a loopback address).
    on_this_host: bool,
}

/// A pool connection held for `LISTEN`, counted until dropped.
#[derive(Debug)]
pub(crate) struct ListenerHeld(Arc<std::sync::atomic::AtomicU32>);

impl Drop for ListenerHeld {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How busy the database's connections are, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolState {
    /// Writes waiting for SQLite's writer thread.
    Sqlite { queued_writes: usize },
    /// PostgreSQL connections open in this instance's pool, how many of
    /// them are idle, and how many the event feed holds for `LISTEN`.
    Postgres {
        open: u32,
        idle: u32,
        listening: u32,
    },
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

    /// What a transaction appends to a `SELECT` of rows it claims when no
    /// other holds them (`FOR UPDATE{of} SKIP LOCKED`), so that several
    /// instances each take different rows. SQLite needs nothing, as for
    /// [`Backend::for_update`].
    fn skip_locked(self, of: &str) -> String {
        match self {
            Backend::Sqlite => String::new(),
            Backend::Postgres => format!(" FOR UPDATE{of} SKIP LOCKED"),
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
    /// Starts what each server worker thread needs beside its requests:
    /// on SQLite, a timer that ends the thread's read snapshots once they
    /// are older than [`sqlite::SNAPSHOT_AGE`], so an idle worker does not
    /// hold the write-ahead log back. Call it once in each worker, inside
    /// its runtime.
    pub fn start_worker(&self) {
        if self.backend() == Backend::Sqlite {
            tokio::task::spawn_local(async {
                loop {
                    tokio::time::sleep(sqlite::SNAPSHOT_AGE).await;
                    sqlite::release_snapshots();
                }
            });
        }
    }

    pub fn backend(&self) -> Backend {
        match &*self.inner {
            Inner::Sqlite(_) => Backend::Sqlite,
            Inner::Postgres(_) => Backend::Postgres,
        }
    }

    /// Whether this is a PostgreSQL server on this host (reached by a Unix
    /// socket or a loopback address): its processes then share our cores.
    pub fn is_postgres_on_this_host(&self) -> bool {
        match &*self.inner {
            Inner::Sqlite(_) => false,
            Inner::Postgres(pg) => pg.on_this_host,
        }
    }

    /// How busy the connections are now.
    pub fn pool_state(&self) -> PoolState {
        match &*self.inner {
            Inner::Sqlite(store) => PoolState::Sqlite {
                queued_writes: store.queued_writes(),
            },
            Inner::Postgres(pg) => PoolState::Postgres {
                open: pg.pool.size(),
                idle: u32::try_from(pg.pool.num_idle()).unwrap_or(u32::MAX),
                listening: self.listening.load(Ordering::Relaxed),
            },
        }
    }

    /// Whether this instance believes the database away (PostgreSQL's
    /// circuit breaker is open; never on SQLite, which has none).
    pub fn breaker_open(&self) -> bool {
        match &*self.inner {
            Inner::Sqlite(_) => false,
            Inner::Postgres(pg) => pg.breaker.is_open(),
        }
    }

    /// The same database for work no request waits for (the event feed):
    /// the circuit breaker still refuses it while open, and its successes
    /// close the breaker, but its failures do not count toward opening it.
    /// A background reader meets a connection the database dropped (a
    /// restart, a proxy's idle cut) first, on its own schedule; counted,
    /// two such failures would open the breaker and refuse requests that
    /// would have succeeded on fresh connections. Requests open it
    /// themselves when the database is away.
    pub fn for_background(&self) -> Db {
        Db {
            background: true,
            ..self.clone()
        }
    }

    /// Requests the circuit breaker refused without touching the database
    /// (always 0 on SQLite, which has none).
    pub fn breaker_refusals(&self) -> u64 {
        match &*self.inner {
            Inner::Sqlite(_) => 0,
            Inner::Postgres(pg) => pg.breaker.refused(),
        }
    }

    /// The PostgreSQL pool, when the database is PostgreSQL.
    pub fn postgres(&self) -> Option<&PgPool> {
        match &*self.inner {
            Inner::Postgres(pg) => Some(&pg.pool),
            Inner::Sqlite(_) => None,
        }
    }

    /// The rounds of single-pet reads, on PostgreSQL.
    fn pet_reads(&self) -> Option<&pet_reads::PetReads> {
        match &*self.inner {
            Inner::Postgres(pg) => Some(&pg.pet_reads),
            Inner::Sqlite(_) => None,
        }
    }

    /// The rounds of orders without an idempotency key, on PostgreSQL.
    fn order_rounds(&self) -> Option<&orders::OrderRounds> {
        match &*self.inner {
            Inner::Postgres(pg) => Some(&pg.order_rounds),
            Inner::Sqlite(_) => None,
        }
    }

    /// Runs `op` on a read connection: on SQLite inline, on this thread's own
    /// connection; on PostgreSQL on one from the pool, within the timeout.
    pub(crate) async fn read<T>(
        &self,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T>,
    ) -> Result<T> {
        match &*self.inner {
            Inner::Sqlite(store) => store.read(|conn| inline(op(&mut Conn::Sqlite(conn)))),
            Inner::Postgres(pg) => {
                let ticket = pg.breaker.admit()?;
                let result = within(pg.timeout, async {
                    let mut conn = pg.pool.acquire().await?;
                    op(&mut Conn::Postgres(&mut conn)).await
                })
                .await;
                ticket.record(result, self.background)
            }
        }
    }

    /// Runs `op` in a transaction, committed when it returns `Ok`: on SQLite
    /// in the writer thread's next group, on PostgreSQL on a pooled connection.
    ///
    /// On PostgreSQL the whole call (connection, statements, commit) must
    /// finish within the timeout. Past it before the commit was sent, the
    /// transaction is rolled back and the answer is 503; a commit sent and
    /// not confirmed (the connection lost, or no answer in time) may have
    /// happened: [`ApiError::Indeterminate`], never a 503.
    pub(crate) async fn write<T: Send + 'static>(
        &self,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let result = self.commit(Commit::Transaction, op).await;
        self.committed(&result);
        result
    }

    /// Runs `op` as a transaction of its own: on SQLite in the writer's
    /// next group; on PostgreSQL as `how` says, through the breaker.
    async fn commit<T: Send + 'static>(
        &self,
        how: Commit,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        match &*self.inner {
            Inner::Sqlite(store) => {
                store
                    .write(move |conn| inline(op(&mut Conn::Sqlite(conn))))
                    .await
            }
            Inner::Postgres(pg) => {
                let ticket = pg.breaker.admit()?;
                let result = match how {
                    Commit::Transaction => pg.transaction(op).await,
                    Commit::Autocommit => pg.autocommit(op).await,
                };
                ticket.record(result, self.background)
            }
        }
    }

    /// Tells the event feed of a write that committed. On SQLite its events
    /// are final: this instance's feed reads them now. On PostgreSQL they
    /// are pending until sequenced: the feed sequences them
    /// (`Db::to_sequence`), then reads them, and the sequencer's `NOTIFY`
    /// wakes the other instances' feeds.
    fn committed<T>(&self, result: &Result<T>) {
        if result.is_ok() {
            match self.backend() {
                Backend::Sqlite => self.commits.notify_one(),
                Backend::Postgres => self.to_sequence.notify_one(),
            }
        }
    }

    /// Counts a pool connection the event feed holds for `LISTEN` while the
    /// returned guard lives (the metrics report it apart from requests').
    pub(crate) fn listening(&self) -> ListenerHeld {
        self.listening.fetch_add(1, Ordering::Relaxed);
        ListenerHeld(self.listening.clone())
    }

    /// Woken when new events may be readable: after each write this process
    /// commits on SQLite; on PostgreSQL after the event feed sequenced
    /// pending events, and (by its listener) after any other instance did.
    /// A permit is kept when nobody waits, so no commit goes unnoticed.
    pub fn commits(&self) -> &tokio::sync::Notify {
        &self.commits
    }

    /// Woken after each write this process commits on PostgreSQL; the event
    /// feed then gives the pending events of all the commits since the last
    /// their final ids, in one call of `sequence_events` (migration 0008),
    /// outside any write's transaction (a permit is kept when nobody waits).
    pub fn to_sequence(&self) -> &tokio::sync::Notify {
        &self.to_sequence
    }

    /// Runs `op`, one statement that writes, as its own transaction: on
    /// PostgreSQL autocommitted, one round trip (no `BEGIN`/`COMMIT`); on
    /// SQLite in the writer's next group. Its commit is not announced to the
    /// event feeds: for writes of rows the feed does not read (the limiter's).
    /// As for [`Db::write`], a statement sent and not answered (the
    /// connection lost, or no answer in time) may have committed:
    /// [`ApiError::Indeterminate`].
    pub(crate) async fn statement<T: Send + 'static>(
        &self,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.commit(Commit::Autocommit, op).await
    }

    /// [`Db::statement`] for a write the event feeds must hear of.
    pub(crate) async fn write_statement<T: Send + 'static>(
        &self,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let result = self.statement(op).await;
        self.committed(&result);
        result
    }

    /// Checks that the database answers (for `/healthz`). While the breaker
    /// is open this is answered at once, except when it is time for a
    /// probe: health checks are probes too.
    pub async fn ping(&self) -> Result<()> {
        self.read(async |c| c.query_one("SELECT 1", &[]).await.map(|_| ()))
            .await
    }

    /// The database timeout.
    pub fn timeout(&self) -> Duration {
        match &*self.inner {
            Inner::Sqlite(store) => store.timeout(),
            Inner::Postgres(pg) => pg.timeout,
        }
    }
}

impl Postgres {
    /// Runs `op`, one statement, autocommitted on a pooled connection within
    /// the timeout. Once the statement may have been sent, a lost connection
    /// or the timeout leaves it indeterminate, as a commit is in
    /// [`Postgres::transaction`]; an error the server answered means it did
    /// not happen.
    async fn autocommit<T>(&self, op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T>) -> Result<T> {
        let sending = AtomicBool::new(false);
        let call = async {
            let mut conn = Settling::new(self.pool.acquire().await?);
            sending.store(true, Ordering::Relaxed);
            let result = match op(&mut Conn::Postgres(&mut conn.conn)).await {
                Err(e) if e.database_away() => Err(ApiError::Indeterminate(e.to_string().into())),
                result => result,
            };
            conn.settled();
            result
        };
        self.bounded(call, &sending, "a statement").await
    }

    async fn transaction<T>(&self, op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T>) -> Result<T> {
        let committing = AtomicBool::new(false);
        let call = async {
            let mut conn = Settling::new(self.pool.acquire().await?);
            // Left by `?` or an error of `op`, the transaction is rolled back
            // (its commit was never sent). Dropped unfinished (the timeout,
            // or the client gone), the connection is closed instead (see
            // `Settling`).
            let result = {
                let mut tx = conn.begin().await?;
                match op(&mut Conn::Postgres(&mut tx)).await {
                    Ok(value) => {
                        committing.store(true, Ordering::Relaxed);
                        match tx.commit().await {
                            Ok(()) => Ok(value),
                            // The server answered the commit with an error
                            // of its own: it did not happen.
                            Err(e @ sqlx::Error::Database(_)) => Err(e.into()),
                            Err(e) => Err(ApiError::Indeterminate(Box::new(e))),
                        }
                    }
                    Err(e) => Err(e),
                }
            };
            conn.settled();
            result
        };
        self.bounded(call, &committing, "the commit").await
    }

    /// `call` within the timeout. Past it, once `sent` is set (`what` may
    /// have reached the database and been done), the outcome is unknown:
    /// [`ApiError::Indeterminate`]; before, nothing was done: a 503.
    async fn bounded<T>(
        &self,
        call: impl std::future::Future<Output = Result<T>>,
        sent: &AtomicBool,
        what: &str,
    ) -> Result<T> {
        match tokio::time::timeout(self.timeout, call).await {
            Ok(result) => result,
            Err(_) if sent.load(Ordering::Relaxed) => Err(ApiError::Indeterminate(
                format!("no answer to {what} within {:?}", self.timeout).into(),
            )),
            Err(_) => Err(timed_out(self.timeout)),
        }
    }
}

/// How a write is committed on PostgreSQL.
#[derive(Debug, Clone, Copy)]
enum Commit {
    /// `BEGIN`, the statements, `COMMIT`.
    Transaction,
    /// One statement, committed as it runs: one round trip.
    Autocommit,
}

/// A pooled connection in a transaction's hands, closed on drop unless the
/// transaction settled (committed, or rolled back by an error it returned).
///
/// A transaction cut off anywhere else leaves the connection in a state
/// nothing tracks: sqlx 0.8 queues no `ROLLBACK` for a `BEGIN` it was cut
/// off waiting for, so the `BEGIN` completes when the pool next flushes the
/// connection, and every later statement on it, autocommitted ones
/// included, would run in that transaction, holding their row locks, never
/// committed. Closing the connection makes PostgreSQL roll back whatever it
/// began. Cut-offs are rare (a timeout, a client gone mid-request), and a
/// new connection costs less than the doubt.
struct Settling {
    conn: sqlx::pool::PoolConnection<sqlx::Postgres>,
    settled: bool,
}

impl Settling {
    fn new(conn: sqlx::pool::PoolConnection<sqlx::Postgres>) -> Self {
        Settling {
            conn,
            settled: false,
        }
    }

    fn settled(&mut self) {
        self.settled = true;
    }

    async fn begin(&mut self) -> sqlx::Result<sqlx::Transaction<'_, sqlx::Postgres>> {
        sqlx::Connection::begin(&mut *self.conn).await
    }
}

impl Drop for Settling {
    fn drop(&mut self) {
        if !self.settled {
            self.conn.close_on_drop();
        }
    }
}

/// Runs a database call within `timeout`; past it, the call is dropped
/// and the answer is a 503.
async fn within<T>(
    timeout: Duration,
    call: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    tokio::time::timeout(timeout, call)
        .await
        .unwrap_or_else(|_| Err(timed_out(timeout)))
}

fn timed_out(timeout: Duration) -> ApiError {
    ApiError::unavailable(format!("the database did not answer within {timeout:?}"))
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

/// A status the store wrote: one the spec lists (read strictly; a value it
/// does not list is a corrupt row, not one kept as unknown).
fn parse_status(s: &str) -> Result<PetStatus> {
    parse_known(s)
}

/// A string enum the store wrote, read strictly (see [`parse_status`]).
fn parse_known<T: std::str::FromStr>(s: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    petstore_api::runtime::strictly(|| s.parse()).map_err(corrupt)
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
