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
//! are applied by sqlx's migrator when the database is opened.

pub(crate) mod conn;
mod sqlite;

pub use sqlite::{release_snapshots, SNAPSHOT_AGE};

use crate::error::ApiError;
use chrono::{DateTime, Utc};
use conn::{args, Columns, Conn, FromRow, Value};
use futures_util::FutureExt;
use petstore_api::models::{
    Category, InventoryItem, NewCategory, NewOrder, NewPet, Order, Pet, PetStatus,
};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use std::fmt::Write as _;
use std::str::FromStr;
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

/// Filters of `listPets`.
#[derive(Debug, Default, Clone)]
pub struct PetFilter {
    pub status: Option<PetStatus>,
    pub category_id: Option<i64>,
    pub ids: Option<Vec<i64>>,
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

/// One order, in the column order its [`FromRow`] implementation reads.
const ORDER_BY_ID: &str =
    "SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE id = $1";

/// How long an idempotency key is remembered.
const IDEMPOTENCY_SECONDS: i64 = 24 * 3600;

/// Connections per PostgreSQL pool (per server process) unless told otherwise.
pub const DEFAULT_PG_CONNECTIONS: u32 = 16;

/// A POST sent with an `Idempotency-Key`: who sent it, the key, and a hash of
/// what was asked (operation and body), so that a retry can be told from a
/// reuse of the key for something else.
#[derive(Debug, Clone)]
pub struct Idempotency {
    pub key_id: i64,
    pub key: String,
    pub request_hash: String,
    /// Unix seconds.
    pub now: i64,
}

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

    /// A write that an `Idempotency-Key` may repeat: a retry of the same
    /// request within 24 hours gets the first answer back without the work
    /// being done again; the answer is recorded in the transaction that did
    /// the work. Without a key it is a plain [`Db::write`].
    async fn write_idempotent<T>(
        &self,
        idem: Option<&Idempotency>,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T>
    where
        T: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
    {
        let idem = idem.cloned();
        self.write(async move |c| {
            if let Some(previous) = replay(c, idem.as_ref()).await? {
                return Ok(previous);
            }
            let answer = op(c).await?;
            remember(c, idem.as_ref(), &answer).await?;
            Ok(answer)
        })
        .await
    }

    /// Checks that the database answers (for `/healthz`).
    pub async fn ping(&self) -> Result<()> {
        self.read(async |c| c.query_one("SELECT 1", &[]).await.map(|_| ()))
            .await
    }

    // ---- categories ----------------------------------------------------------

    pub async fn create_category(
        &self,
        new: &NewCategory,
        idem: Option<&Idempotency>,
    ) -> Result<Category> {
        let new = new.clone();
        self.write_idempotent(idem, async move |c| {
            let id = c
                .insert(
                    "INSERT INTO categories (name, description) VALUES ($1, $2)",
                    args![&new.name, &new.description],
                )
                .await?;
            let category = Category {
                id,
                name: new.name,
                description: new.description,
            };
            Ok(category)
        })
        .await
    }

    pub async fn category(&self, id: i64) -> Result<Category> {
        self.read(async |c| {
            c.query_opt(
                "SELECT id, name, description FROM categories WHERE id = $1",
                args![id],
            )
            .await?
            .map(|r| Category::from_row(&r))
            .transpose()?
            .ok_or_else(|| ApiError::not_found(format_args!("category {id}")))
        })
        .await
    }

    pub async fn list_categories(&self, page: Page) -> Result<Listed<Category>> {
        let q = Filtered::new(
            "SELECT id, name, description FROM categories WHERE id > ",
            page,
        );
        let items = self.read(async |c| q.fetch("id", c).await).await?;
        Ok(listed(items, page))
    }

    pub async fn delete_category(&self, id: i64) -> Result<()> {
        self.write(async move |c| {
            if !lock_category(c, id).await? {
                return Err(ApiError::not_found(format_args!("category {id}")));
            }
            let pets = c
                .query_one(
                    "SELECT count(*) FROM pets WHERE category_id = $1",
                    args![id],
                )
                .await?
                .int(0)?;
            if pets > 0 {
                return Err(ApiError::conflict(
                    "category_in_use",
                    format!("category {id} still has {pets} pet(s)"),
                ));
            }
            c.execute("DELETE FROM categories WHERE id = $1", args![id])
                .await?;
            Ok(())
        })
        .await
    }

    // ---- pets ----------------------------------------------------------------

    /// Creates a pet and its inventory entry, with a stock of 1.
    pub async fn create_pet(&self, new: &NewPet, idem: Option<&Idempotency>) -> Result<Pet> {
        let new = new.clone();
        self.write_idempotent(idem, async move |c| {
            let status = new.status.unwrap_or(PetStatus::Available);
            require_category(c, new.category_id).await?;
            let id = c
                .insert(
                    "INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3)",
                    args![&new.name, new.category_id, status.as_str()],
                )
                .await?;
            c.execute(
                "INSERT INTO inventory (pet_id, quantity) VALUES ($1, 1)",
                args![id],
            )
            .await?;
            let pet = Pet {
                id,
                name: new.name,
                category_id: new.category_id,
                status: Some(status),
            };
            Ok(pet)
        })
        .await
    }

    pub async fn pet(&self, id: i64) -> Result<Pet> {
        self.read(async |c| {
            c.query_opt(
                "SELECT id, name, category_id, status FROM pets WHERE id = $1",
                args![id],
            )
            .await?
            .map(|r| Pet::from_row(&r))
            .transpose()?
            .ok_or_else(|| ApiError::not_found(format_args!("pet {id}")))
        })
        .await
    }

    pub async fn list_pets(&self, filter: &PetFilter, page: Page) -> Result<Listed<Pet>> {
        let mut q = Filtered::new(
            "SELECT id, name, category_id, status FROM pets WHERE id > ",
            page,
        );
        if let Some(status) = filter.status {
            q.and("status = ", status.as_str());
        }
        if let Some(category) = filter.category_id {
            q.and("category_id = ", category);
        }
        if let Some(ids) = &filter.ids {
            q.and_in("id", ids);
        }
        let pets = self.read(async |c| q.fetch("id", c).await).await?;
        Ok(listed(pets, page))
    }

    /// Replaces a pet's fields; a status given here applies to its inventory
    /// entry too, since the entry's status is the pet's.
    pub async fn replace_pet(&self, id: i64, new: &NewPet) -> Result<Pet> {
        let new = new.clone();
        self.write(async move |c| {
            let Some(current) = lock_pet(c, id).await? else {
                return Err(ApiError::not_found(format_args!("pet {id}")));
            };
            require_category(c, new.category_id).await?;
            let status = new.status.unwrap_or(current);
            c.execute(
                "UPDATE pets SET name = $1, category_id = $2, status = $3 WHERE id = $4",
                args![&new.name, new.category_id, status.as_str(), id],
            )
            .await?;
            Ok(Pet {
                id,
                name: new.name,
                category_id: new.category_id,
                status: Some(status),
            })
        })
        .await
    }

    /// Deletes a pet and its inventory entry, unless it has incomplete orders.
    pub async fn delete_pet(&self, id: i64) -> Result<()> {
        self.write(async move |c| {
            if lock_pet(c, id).await?.is_none() {
                return Err(ApiError::not_found(format_args!("pet {id}")));
            }
            let open = c
                .query_one(
                    "SELECT count(*) FROM orders WHERE pet_id = $1 AND complete = 0",
                    args![id],
                )
                .await?
                .int(0)?;
            if open > 0 {
                return Err(ApiError::conflict(
                    "pet_has_open_orders",
                    format!("pet {id} has {open} incomplete order(s)"),
                ));
            }
            c.execute("DELETE FROM pets WHERE id = $1", args![id])
                .await?;
            Ok(())
        })
        .await
    }

    // ---- orders --------------------------------------------------------------

    /// Places an order, taking its quantity from the pet's stock in the same
    /// transaction. Stock reaching zero makes an available pet sold.
    pub async fn place_order(&self, new: &NewOrder, idem: Option<&Idempotency>) -> Result<Order> {
        let new = new.clone();
        self.write_idempotent(idem, async move |c| {
            let sql = format!(
                "SELECT p.status, i.quantity FROM pets p JOIN inventory i ON i.pet_id = p.id WHERE p.id = $1{}",
                c.backend().for_update()
            );
            let Some(pet) = c.query_opt(&sql, args![new.pet_id]).await? else {
                return Err(ApiError::unprocessable(
                    "unknown_pet",
                    format!("pet {} does not exist", new.pet_id),
                ));
            };
            let status = parse_status(pet.text(0)?)?;
            let stock = pet.int(1)?;
            if status != PetStatus::Available {
                return Err(ApiError::conflict(
                    "pet_not_available",
                    format!("pet {} is {status}, not available", new.pet_id),
                ));
            }
            let wanted = i64::from(new.quantity);
            if stock < wanted {
                return Err(ApiError::conflict(
                    "out_of_stock",
                    format!("pet {} has {stock} in stock, {wanted} ordered", new.pet_id),
                ));
            }
            c.execute(
                "UPDATE inventory SET quantity = quantity - $1 WHERE pet_id = $2",
                args![wanted, new.pet_id],
            )
            .await?;
            if stock == wanted {
                set_status(c, new.pet_id, PetStatus::Sold).await?;
            }
            let ship_date = new.ship_date.map(|d| d.to_rfc3339());
            let id = c
                .insert(
                    "INSERT INTO orders (pet_id, quantity, ship_date, complete) VALUES ($1, $2, $3, 0)",
                    args![new.pet_id, wanted, ship_date],
                )
                .await?;
            let order = Order {
                id: Some(id),
                pet_id: Some(new.pet_id),
                quantity: Some(new.quantity),
                ship_date: new.ship_date,
                complete: Some(false),
            };
            Ok(order)
        })
        .await
    }

    pub async fn order(&self, id: i64) -> Result<Order> {
        self.read(async |c| {
            c.query_opt(ORDER_BY_ID, args![id])
                .await?
                .map(|r| Order::from_row(&r))
                .transpose()?
                .ok_or_else(|| ApiError::not_found(format_args!("order {id}")))
        })
        .await
    }

    pub async fn list_orders(
        &self,
        pet_id: Option<i64>,
        complete: Option<bool>,
        page: Page,
    ) -> Result<Listed<Order>> {
        let mut q = Filtered::new(
            "SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE id > ",
            page,
        );
        if let Some(pet) = pet_id {
            q.and("pet_id = ", pet);
        }
        if let Some(complete) = complete {
            q.and("complete = ", complete);
        }
        let orders = self.read(async |c| q.fetch("id", c).await).await?;
        Ok(listed(orders, page))
    }

    /// Marks an order complete (one-way), setting its ship date to `now` when
    /// unset. Completing a complete order changes nothing.
    pub async fn complete_order(
        &self,
        id: i64,
        now: DateTime<Utc>,
        idem: Option<&Idempotency>,
    ) -> Result<Order> {
        self.write_idempotent(idem, async move |c| {
            c.execute(
                "UPDATE orders SET complete = 1, ship_date = COALESCE(ship_date, $1) WHERE id = $2 AND complete = 0",
                args![now.to_rfc3339(), id],
            )
            .await?;
            let Some(row) = c
                .query_opt(
                    ORDER_BY_ID,
                    args![id],
                )
                .await?
            else {
                return Err(ApiError::not_found(format_args!("order {id}")));
            };
            Order::from_row(&row)
        })
        .await
    }

    /// Cancels an incomplete order and returns its quantity to the stock; stock
    /// rising above zero makes a sold pet available again.
    pub async fn cancel_order(&self, id: i64) -> Result<()> {
        self.write(async move |c| {
            // Deleting first makes the cancellation itself the check: of two
            // concurrent cancellations only one deletes the row and restocks.
            let cancelled = c
                .query_opt(
                    "DELETE FROM orders WHERE id = $1 AND complete = 0 RETURNING pet_id, quantity",
                    args![id],
                )
                .await?;
            let Some(cancelled) = cancelled else {
                let exists = c
                    .query_opt("SELECT complete FROM orders WHERE id = $1", args![id])
                    .await?;
                return Err(match exists {
                    Some(_) => ApiError::conflict(
                        "order_completed",
                        format!("order {id} is complete and cannot be cancelled"),
                    ),
                    None => ApiError::not_found(format_args!("order {id}")),
                });
            };
            let (pet_id, quantity) = (cancelled.int(0)?, cancelled.int(1)?);
            let stock = c
                .query_opt(
                    "UPDATE inventory SET quantity = quantity + $1 WHERE pet_id = $2 RETURNING quantity",
                    args![quantity, pet_id],
                )
                .await?
                .map(|r| r.int(0))
                .transpose()?;
            if stock.is_some_and(|s| s > 0) {
                c.execute(
                    "UPDATE pets SET status = 'available' WHERE id = $1 AND status = 'sold'",
                    args![pet_id],
                )
                .await?;
            }
            Ok(())
        })
        .await
    }

    // ---- inventory -----------------------------------------------------------

    pub async fn inventory_item(&self, pet_id: i64) -> Result<InventoryItem> {
        self.read(async |c| {
            c.query_opt(
                "SELECT i.pet_id, i.quantity, p.status FROM inventory i JOIN pets p ON p.id = i.pet_id WHERE i.pet_id = $1",
                args![pet_id],
            )
            .await?
            .map(|r| InventoryItem::from_row(&r))
            .transpose()?
            .ok_or_else(|| ApiError::not_found(format_args!("inventory entry of pet {pet_id}")))
        })
        .await
    }

    pub async fn list_inventory(
        &self,
        status: Option<PetStatus>,
        page: Page,
    ) -> Result<Listed<InventoryItem>> {
        let mut q = Filtered::new(
            "SELECT i.pet_id, i.quantity, p.status FROM inventory i JOIN pets p ON p.id = i.pet_id WHERE i.pet_id > ",
            page,
        );
        if let Some(status) = status {
            q.and("p.status = ", status.as_str());
        }
        let items = self.read(async |c| q.fetch("i.pet_id", c).await).await?;
        Ok(listed(items, page))
    }

    /// Sets a pet's stock. Zero makes an available pet sold; above zero makes a
    /// sold pet available. A pending pet stays pending.
    pub async fn update_inventory(&self, pet_id: i64, quantity: i32) -> Result<InventoryItem> {
        self.write(async move |c| {
            let Some(status) = lock_pet(c, pet_id).await? else {
                return Err(ApiError::not_found(format_args!(
                    "inventory entry of pet {pet_id}"
                )));
            };
            c.execute(
                "UPDATE inventory SET quantity = $1 WHERE pet_id = $2",
                args![quantity, pet_id],
            )
            .await?;
            let next = match (status, quantity) {
                (PetStatus::Available, 0) => PetStatus::Sold,
                (PetStatus::Sold, q) if q > 0 => PetStatus::Available,
                (s, _) => s,
            };
            if next != status {
                set_status(c, pet_id, next).await?;
            }
            Ok(InventoryItem {
                pet_id,
                quantity,
                status: next,
            })
        })
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

impl Idempotency {
    /// A 64-bit name for this (API key, idempotency key) pair.
    fn lock_id(&self) -> i64 {
        use sha2::{Digest, Sha256};
        let digest = Sha256::new()
            .chain_update(self.key_id.to_be_bytes())
            .chain_update(self.key.as_bytes())
            .finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        i64::from_be_bytes(first)
    }
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

/// The response remembered for this idempotency key, if any: the same request
/// within 24 hours gets it again; another request under the same key is refused.
///
/// On PostgreSQL it first takes a transaction-scoped advisory lock on the key,
/// so that concurrent retries (on any instance) run one after the other and
/// all but the first replay its answer. SQLite's single writer already runs
/// them one after the other.
async fn replay<T: serde::de::DeserializeOwned>(
    c: &mut Conn<'_>,
    idem: Option<&Idempotency>,
) -> Result<Option<T>> {
    let Some(idem) = idem else { return Ok(None) };
    if c.backend() == Backend::Postgres {
        c.query(
            "SELECT 1 FROM (SELECT pg_advisory_xact_lock($1)) AS locked",
            args![idem.lock_id()],
        )
        .await?;
    }
    let row = c
        .query_opt(
            "SELECT request_hash, response FROM idempotency WHERE key_id = $1 AND idem_key = $2 AND created_at > $3",
            args![idem.key_id, &idem.key, idem.now - IDEMPOTENCY_SECONDS],
        )
        .await?;
    let Some(row) = row else { return Ok(None) };
    if row.text(0)? != idem.request_hash {
        return Err(ApiError::unprocessable(
            "idempotency_key_reused",
            "this Idempotency-Key was used for a different request in the last 24 hours",
        ));
    }
    serde_json::from_str(row.text(1)?)
        .map(Some)
        .map_err(corrupt)
}

/// Records the response to an idempotent request, in the transaction that did
/// the work, and forgets keys older than 24 hours.
async fn remember<T: serde::Serialize>(
    c: &mut Conn<'_>,
    idem: Option<&Idempotency>,
    response: &T,
) -> Result<()> {
    let Some(idem) = idem else { return Ok(()) };
    let response = serde_json::to_string(response).map_err(corrupt)?;
    c.execute(
        "DELETE FROM idempotency WHERE created_at <= $1",
        args![idem.now - IDEMPOTENCY_SECONDS],
    )
    .await?;
    c.execute(
        "INSERT INTO idempotency (key_id, idem_key, request_hash, response, created_at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (key_id, idem_key) DO UPDATE SET request_hash = excluded.request_hash, \
         response = excluded.response, created_at = excluded.created_at",
        args![idem.key_id, &idem.key, &idem.request_hash, response, idem.now],
    )
    .await?;
    Ok(())
}

/// Whether the category exists; on PostgreSQL its row stays locked until the
/// transaction ends, so that it cannot be deleted (or a pet added to it)
/// meanwhile.
async fn lock_category(c: &mut Conn<'_>, id: i64) -> Result<bool> {
    let sql = format!(
        "SELECT id FROM categories WHERE id = $1{}",
        c.backend().for_update()
    );
    Ok(c.query_opt(&sql, args![id]).await?.is_some())
}

/// 422 unless the category exists (locked as by [`lock_category`]).
async fn require_category(c: &mut Conn<'_>, id: i64) -> Result<()> {
    if lock_category(c, id).await? {
        return Ok(());
    }
    Err(ApiError::unprocessable(
        "unknown_category",
        format!("category {id} does not exist"),
    ))
}

/// The pet's status, if it exists; on PostgreSQL its row stays locked until
/// the transaction ends.
async fn lock_pet(c: &mut Conn<'_>, id: i64) -> Result<Option<PetStatus>> {
    let sql = format!(
        "SELECT status FROM pets WHERE id = $1{}",
        c.backend().for_update()
    );
    c.query_opt(&sql, args![id])
        .await?
        .map(|r| parse_status(r.text(0)?))
        .transpose()
}

async fn set_status(c: &mut Conn<'_>, pet_id: i64, status: PetStatus) -> Result<()> {
    c.execute(
        "UPDATE pets SET status = $1 WHERE id = $2",
        args![status.as_str(), pet_id],
    )
    .await?;
    Ok(())
}

fn listed<T>(mut items: Vec<T>, page: Page) -> Listed<T> {
    let more = items.len() > page.limit as usize;
    items.truncate(page.limit as usize);
    Listed { items, more }
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

fn corrupt(what: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("corrupt row: {what}").into())
}

fn parse_status(s: &str) -> Result<PetStatus> {
    s.parse().map_err(corrupt)
}

impl FromRow for Category {
    fn from_row(r: &impl Columns) -> Result<Self> {
        Ok(Category {
            id: r.int(0)?,
            name: r.text(1)?.to_string(),
            description: r.opt_text(2)?.map(str::to_string),
        })
    }
}

impl FromRow for Pet {
    fn from_row(r: &impl Columns) -> Result<Self> {
        Ok(Pet {
            id: r.int(0)?,
            name: r.text(1)?.to_string(),
            category_id: r.int(2)?,
            status: Some(parse_status(r.text(3)?)?),
        })
    }
}

impl FromRow for Order {
    fn from_row(r: &impl Columns) -> Result<Self> {
        let ship_date = r
            .opt_text(3)?
            .map(|d| DateTime::parse_from_rfc3339(d).map(|d| d.with_timezone(&Utc)))
            .transpose()
            .map_err(corrupt)?;
        Ok(Order {
            id: Some(r.int(0)?),
            pet_id: Some(r.int(1)?),
            quantity: Some(i32::try_from(r.int(2)?).map_err(corrupt)?),
            ship_date,
            complete: Some(r.int(4)? != 0),
        })
    }
}

impl FromRow for InventoryItem {
    fn from_row(r: &impl Columns) -> Result<Self> {
        Ok(InventoryItem {
            pet_id: r.int(0)?,
            quantity: i32::try_from(r.int(1)?).map_err(corrupt)?,
            status: parse_status(r.text(2)?)?,
        })
    }
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
