//! Storage: the store's records and rules, on SQLite or PostgreSQL.
//!
//! One set of queries serves both databases through sqlx's `Any` driver: the
//! SQL uses `$n` placeholders and the subset of SQL both speak (`RETURNING`,
//! `ON CONFLICT`). Every write runs in one transaction, so the rules (stock
//! never below zero, a pet's status following its stock) hold under any
//! concurrency:
//!
//! - on SQLite, writes go through a single writer connection and reads through
//!   a pool of read-only connections; the database runs in WAL mode with
//!   `synchronous = FULL`, so a transaction is on disk before the request that
//!   made it is answered;
//! - on PostgreSQL, which several server instances may share, a transaction
//!   locks the rows its decision reads (`SELECT ... FOR UPDATE`) and retries of
//!   one idempotency key queue on an advisory lock.

use crate::error::ApiError;
use chrono::{DateTime, Utc};
use petstore_api::models::{
    Category, InventoryItem, NewCategory, NewOrder, NewPet, Order, Pet, PetStatus,
};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions, AnyRow};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{Any, AnyPool, ConnectOptions, Connection, Executor, Row};
use std::str::FromStr;

/// Which database a [`Db`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The database: on SQLite one writer connection and several readers; on
/// PostgreSQL one pool for both.
#[derive(Debug, Clone)]
pub struct Db {
    read: AnyPool,
    write: AnyPool,
    backend: Backend,
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

/// How long an idempotency key is remembered.
const IDEMPOTENCY_SECONDS: i64 = 24 * 3600;

/// Connections per PostgreSQL pool (per server process).
const PG_CONNECTIONS: u32 = 16;
/// Read-only SQLite connections.
const SQLITE_READERS: u32 = 8;

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
    pub async fn connect(url: &str) -> std::result::Result<Db, sqlx::Error> {
        sqlx::any::install_default_drivers();
        let backend = Backend::of_url(url).ok_or_else(|| {
            sqlx::Error::Configuration(
                format!(
                    "unsupported database URL `{}`: expected sqlite://PATH or postgres://...",
                    redact(url)
                )
                .into(),
            )
        })?;
        match backend {
            Backend::Sqlite => Db::connect_sqlite(url).await,
            Backend::Postgres => {
                let pool = AnyPoolOptions::new()
                    .max_connections(PG_CONNECTIONS)
                    .connect(url)
                    .await?;
                sqlx::migrate!("./migrations/postgres").run(&pool).await?;
                Ok(Db {
                    read: pool.clone(),
                    write: pool,
                    backend,
                })
            }
        }
    }

    async fn connect_sqlite(url: &str) -> std::result::Result<Db, sqlx::Error> {
        // Create the file and switch it to WAL (a property of the file) with
        // the native driver; the pools then open it through `Any`, which takes
        // its options from the URL alone.
        let native = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal);
        native.connect().await?.close().await?;
        let with_mode = |mode: &str| {
            let separator = if url.contains('?') { '&' } else { '?' };
            AnyConnectOptions::from_str(&format!("{url}{separator}mode={mode}"))
        };
        let write = AnyPoolOptions::new()
            .max_connections(1)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    conn.execute("PRAGMA synchronous = FULL").await?;
                    Ok(())
                })
            })
            .connect_with(with_mode("rw")?)
            .await?;
        sqlx::migrate!("./migrations/sqlite").run(&write).await?;
        let read = AnyPoolOptions::new()
            .max_connections(SQLITE_READERS)
            .connect_with(with_mode("ro")?)
            .await?;
        Ok(Db {
            read,
            write,
            backend: Backend::Sqlite,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Checks that the database answers (for `/healthz`).
    pub async fn ping(&self) -> std::result::Result<(), sqlx::Error> {
        sqlx::query("SELECT 1")
            .execute(&self.read)
            .await
            .map(|_| ())
    }

    pub(crate) fn reader(&self) -> &AnyPool {
        &self.read
    }

    /// The pool writes go through (on PostgreSQL the only one).
    pub fn writer(&self) -> &AnyPool {
        &self.write
    }

    // ---- categories ----------------------------------------------------------

    pub async fn create_category(
        &self,
        new: &NewCategory,
        idem: Option<&Idempotency>,
    ) -> Result<Category> {
        let mut tx = self.begin(idem).await?;
        if let Some(previous) = replay(&mut tx, idem).await? {
            return Ok(previous);
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO categories (name, description) VALUES ($1, $2) RETURNING id",
        )
        .bind(&new.name)
        .bind(&new.description)
        .fetch_one(&mut *tx)
        .await?;
        let category = Category {
            id,
            name: new.name.clone(),
            description: new.description.clone(),
        };
        remember(&mut tx, idem, &category).await?;
        tx.commit().await?;
        Ok(category)
    }

    pub async fn category(&self, id: i64) -> Result<Category> {
        sqlx::query("SELECT id, name, description FROM categories WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.read)
            .await?
            .map(|r| category_from(&r))
            .ok_or_else(|| ApiError::not_found(format_args!("category {id}")))
    }

    pub async fn list_categories(&self, page: Page) -> Result<Listed<Category>> {
        let rows = sqlx::query(
            "SELECT id, name, description FROM categories WHERE id > $1 ORDER BY id LIMIT $2",
        )
        .bind(page.after)
        .bind(i64::from(page.limit) + 1)
        .fetch_all(&self.read)
        .await?;
        Ok(listed(rows.iter().map(category_from).collect(), page))
    }

    pub async fn delete_category(&self, id: i64) -> Result<()> {
        let mut tx = self.begin(None).await?;
        if !lock_category(&mut tx, self.backend, id).await? {
            return Err(ApiError::not_found(format_args!("category {id}")));
        }
        let pets: i64 = sqlx::query_scalar("SELECT count(*) FROM pets WHERE category_id = $1")
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        if pets > 0 {
            return Err(ApiError::conflict(
                "category_in_use",
                format!("category {id} still has {pets} pet(s)"),
            ));
        }
        sqlx::query("DELETE FROM categories WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    // ---- pets ----------------------------------------------------------------

    /// Creates a pet and its inventory entry, with a stock of 1.
    pub async fn create_pet(&self, new: &NewPet, idem: Option<&Idempotency>) -> Result<Pet> {
        let status = new.status.unwrap_or(PetStatus::Available);
        let mut tx = self.begin(idem).await?;
        if let Some(previous) = replay(&mut tx, idem).await? {
            return Ok(previous);
        }
        require_category(&mut tx, self.backend, new.category_id).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(&new.name)
        .bind(new.category_id)
        .bind(status.as_str())
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO inventory (pet_id, quantity) VALUES ($1, 1)")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let pet = Pet {
            id,
            name: new.name.clone(),
            category_id: new.category_id,
            status: Some(status),
        };
        remember(&mut tx, idem, &pet).await?;
        tx.commit().await?;
        Ok(pet)
    }

    pub async fn pet(&self, id: i64) -> Result<Pet> {
        sqlx::query("SELECT id, name, category_id, status FROM pets WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.read)
            .await?
            .map(|r| pet_from(&r))
            .transpose()?
            .ok_or_else(|| ApiError::not_found(format_args!("pet {id}")))
    }

    pub async fn list_pets(&self, filter: &PetFilter, page: Page) -> Result<Listed<Pet>> {
        let mut q = Filtered::new(
            "SELECT id, name, category_id, status FROM pets WHERE id > ",
            page,
        );
        if let Some(status) = filter.status {
            q.and("status = ", Arg::Text(status.as_str()));
        }
        if let Some(category) = filter.category_id {
            q.and("category_id = ", Arg::Int(category));
        }
        if let Some(ids) = &filter.ids {
            q.and_in("id", ids);
        }
        let rows = q.fetch("id", &self.read).await?;
        let pets = rows.iter().map(pet_from).collect::<Result<Vec<_>>>()?;
        Ok(listed(pets, page))
    }

    /// Replaces a pet's fields; a status given here applies to its inventory
    /// entry too, since the entry's status is the pet's.
    pub async fn replace_pet(&self, id: i64, new: &NewPet) -> Result<Pet> {
        let mut tx = self.begin(None).await?;
        let sql = format!(
            "SELECT status FROM pets WHERE id = $1{}",
            self.backend.for_update()
        );
        let current: Option<String> = sqlx::query_scalar(&sql)
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(current) = current else {
            return Err(ApiError::not_found(format_args!("pet {id}")));
        };
        require_category(&mut tx, self.backend, new.category_id).await?;
        let status = match new.status {
            Some(s) => s,
            None => parse_status(&current)?,
        };
        sqlx::query("UPDATE pets SET name = $1, category_id = $2, status = $3 WHERE id = $4")
            .bind(&new.name)
            .bind(new.category_id)
            .bind(status.as_str())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Pet {
            id,
            name: new.name.clone(),
            category_id: new.category_id,
            status: Some(status),
        })
    }

    /// Deletes a pet and its inventory entry, unless it has incomplete orders.
    pub async fn delete_pet(&self, id: i64) -> Result<()> {
        let mut tx = self.begin(None).await?;
        let sql = format!(
            "SELECT id FROM pets WHERE id = $1{}",
            self.backend.for_update()
        );
        let exists: Option<i64> = sqlx::query_scalar(&sql)
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(ApiError::not_found(format_args!("pet {id}")));
        }
        let open: i64 =
            sqlx::query_scalar("SELECT count(*) FROM orders WHERE pet_id = $1 AND complete = 0")
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
        if open > 0 {
            return Err(ApiError::conflict(
                "pet_has_open_orders",
                format!("pet {id} has {open} incomplete order(s)"),
            ));
        }
        sqlx::query("DELETE FROM pets WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    // ---- orders --------------------------------------------------------------

    /// Places an order, taking its quantity from the pet's stock in the same
    /// transaction. Stock reaching zero makes an available pet sold.
    pub async fn place_order(&self, new: &NewOrder, idem: Option<&Idempotency>) -> Result<Order> {
        let mut tx = self.begin(idem).await?;
        if let Some(previous) = replay(&mut tx, idem).await? {
            return Ok(previous);
        }
        let sql = format!(
            "SELECT p.status, i.quantity FROM pets p JOIN inventory i ON i.pet_id = p.id WHERE p.id = $1{}",
            self.backend.for_update()
        );
        let pet = sqlx::query(&sql)
            .bind(new.pet_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(pet) = pet else {
            return Err(ApiError::unprocessable(
                "unknown_pet",
                format!("pet {} does not exist", new.pet_id),
            ));
        };
        let status = parse_status(pet.get::<&str, _>(0))?;
        let stock: i64 = pet.get(1);
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
        sqlx::query("UPDATE inventory SET quantity = quantity - $1 WHERE pet_id = $2")
            .bind(wanted)
            .bind(new.pet_id)
            .execute(&mut *tx)
            .await?;
        if stock == wanted {
            set_status(&mut tx, new.pet_id, PetStatus::Sold).await?;
        }
        let ship_date = new.ship_date.map(|d| d.to_rfc3339());
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO orders (pet_id, quantity, ship_date, complete) VALUES ($1, $2, $3, 0) RETURNING id",
        )
        .bind(new.pet_id)
        .bind(wanted)
        .bind(&ship_date)
        .fetch_one(&mut *tx)
        .await?;
        let order = Order {
            id: Some(id),
            pet_id: Some(new.pet_id),
            quantity: Some(new.quantity),
            ship_date: new.ship_date,
            complete: Some(false),
        };
        remember(&mut tx, idem, &order).await?;
        tx.commit().await?;
        Ok(order)
    }

    pub async fn order(&self, id: i64) -> Result<Order> {
        sqlx::query("SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.read)
            .await?
            .map(|r| order_from(&r))
            .transpose()?
            .ok_or_else(|| ApiError::not_found(format_args!("order {id}")))
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
            q.and("pet_id = ", Arg::Int(pet));
        }
        if let Some(complete) = complete {
            q.and("complete = ", Arg::Int(i64::from(complete)));
        }
        let rows = q.fetch("id", &self.read).await?;
        let orders = rows.iter().map(order_from).collect::<Result<Vec<_>>>()?;
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
        let mut tx = self.begin(idem).await?;
        if let Some(previous) = replay(&mut tx, idem).await? {
            return Ok(previous);
        }
        sqlx::query(
            "UPDATE orders SET complete = 1, ship_date = COALESCE(ship_date, $1) WHERE id = $2 AND complete = 0",
        )
        .bind(now.to_rfc3339())
        .bind(id)
        .execute(&mut *tx)
        .await?;
        let row = sqlx::query(
            "SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Err(ApiError::not_found(format_args!("order {id}")));
        };
        let order = order_from(&row)?;
        remember(&mut tx, idem, &order).await?;
        tx.commit().await?;
        Ok(order)
    }

    /// Cancels an incomplete order and returns its quantity to the stock; stock
    /// rising above zero makes a sold pet available again.
    pub async fn cancel_order(&self, id: i64) -> Result<()> {
        let mut tx = self.begin(None).await?;
        // Deleting first makes the cancellation itself the check: of two
        // concurrent cancellations only one deletes the row and restocks.
        let cancelled = sqlx::query(
            "DELETE FROM orders WHERE id = $1 AND complete = 0 RETURNING pet_id, quantity",
        )
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(cancelled) = cancelled else {
            let complete: Option<i64> =
                sqlx::query_scalar("SELECT complete FROM orders WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?;
            return Err(match complete {
                Some(_) => ApiError::conflict(
                    "order_completed",
                    format!("order {id} is complete and cannot be cancelled"),
                ),
                None => ApiError::not_found(format_args!("order {id}")),
            });
        };
        let (pet_id, quantity): (i64, i64) = (cancelled.get(0), cancelled.get(1));
        let stock: Option<i64> = sqlx::query_scalar(
            "UPDATE inventory SET quantity = quantity + $1 WHERE pet_id = $2 RETURNING quantity",
        )
        .bind(quantity)
        .bind(pet_id)
        .fetch_optional(&mut *tx)
        .await?;
        if stock.is_some_and(|s| s > 0) {
            sqlx::query("UPDATE pets SET status = 'available' WHERE id = $1 AND status = 'sold'")
                .bind(pet_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    // ---- inventory -----------------------------------------------------------

    pub async fn inventory_item(&self, pet_id: i64) -> Result<InventoryItem> {
        sqlx::query(
            "SELECT i.pet_id, i.quantity, p.status FROM inventory i JOIN pets p ON p.id = i.pet_id WHERE i.pet_id = $1",
        )
        .bind(pet_id)
        .fetch_optional(&self.read)
        .await?
        .map(|r| inventory_from(&r))
        .transpose()?
        .ok_or_else(|| ApiError::not_found(format_args!("inventory entry of pet {pet_id}")))
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
            q.and("p.status = ", Arg::Text(status.as_str()));
        }
        let rows = q.fetch("i.pet_id", &self.read).await?;
        let items = rows
            .iter()
            .map(inventory_from)
            .collect::<Result<Vec<_>>>()?;
        Ok(listed(items, page))
    }

    /// Sets a pet's stock. Zero makes an available pet sold; above zero makes a
    /// sold pet available. A pending pet stays pending.
    pub async fn update_inventory(&self, pet_id: i64, quantity: i32) -> Result<InventoryItem> {
        let mut tx = self.begin(None).await?;
        let sql = format!(
            "SELECT status FROM pets WHERE id = $1{}",
            self.backend.for_update()
        );
        let status: Option<String> = sqlx::query_scalar(&sql)
            .bind(pet_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(status) = status else {
            return Err(ApiError::not_found(format_args!(
                "inventory entry of pet {pet_id}"
            )));
        };
        let mut status = parse_status(&status)?;
        sqlx::query("UPDATE inventory SET quantity = $1 WHERE pet_id = $2")
            .bind(quantity)
            .bind(pet_id)
            .execute(&mut *tx)
            .await?;
        let next = match (status, quantity) {
            (PetStatus::Available, 0) => PetStatus::Sold,
            (PetStatus::Sold, q) if q > 0 => PetStatus::Available,
            (s, _) => s,
        };
        if next != status {
            set_status(&mut tx, pet_id, next).await?;
            status = next;
        }
        tx.commit().await?;
        Ok(InventoryItem {
            pet_id,
            quantity,
            status,
        })
    }

    /// Starts a write transaction. On PostgreSQL a request carrying an
    /// idempotency key first takes a transaction-scoped advisory lock on it, so
    /// that concurrent retries (on any instance) run one after the other and
    /// all but the first replay its answer. SQLite's single writer already
    /// runs them one after the other.
    async fn begin(&self, idem: Option<&Idempotency>) -> Result<Tx<'static>> {
        let mut tx = self.write.begin().await?;
        if let (Backend::Postgres, Some(idem)) = (self.backend, idem) {
            sqlx::query("SELECT 1 FROM (SELECT pg_advisory_xact_lock($1)) AS locked")
                .bind(idem.lock_id())
                .execute(&mut *tx)
                .await?;
        }
        Ok(tx)
    }
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

type Tx<'a> = sqlx::Transaction<'a, Any>;

/// A bound value of a [`Filtered`] query.
#[derive(Debug, Clone, Copy)]
enum Arg {
    Int(i64),
    Text(&'static str),
}

/// A paged listing with optional filters: `prefix` ends with the comparison
/// of the id column to the page's `after`; filters are `AND`ed after it, each
/// with the next `$n` placeholder.
struct Filtered {
    sql: String,
    args: Vec<Arg>,
    limit: u32,
}

impl Filtered {
    fn new(prefix: &str, page: Page) -> Self {
        let mut q = Filtered {
            sql: prefix.to_string(),
            args: Vec::new(),
            limit: page.limit,
        };
        q.placeholder(Arg::Int(page.after));
        q
    }

    fn placeholder(&mut self, arg: Arg) {
        self.args.push(arg);
        self.sql.push_str(&format!("${}", self.args.len()));
    }

    fn and(&mut self, condition: &str, arg: Arg) {
        self.sql.push_str(" AND ");
        self.sql.push_str(condition);
        self.placeholder(arg);
    }

    fn and_in(&mut self, column: &str, values: &[i64]) {
        if values.is_empty() {
            self.sql.push_str(" AND 1 = 0");
            return;
        }
        self.sql.push_str(&format!(" AND {column} IN ("));
        for (i, value) in values.iter().enumerate() {
            if i > 0 {
                self.sql.push_str(", ");
            }
            self.placeholder(Arg::Int(*value));
        }
        self.sql.push(')');
    }

    /// Orders by `id_column` and fetches one row more than the page holds,
    /// to tell whether more follow.
    async fn fetch(mut self, id_column: &str, pool: &AnyPool) -> Result<Vec<AnyRow>> {
        self.sql.push_str(&format!(" ORDER BY {id_column} LIMIT "));
        self.placeholder(Arg::Int(i64::from(self.limit) + 1));
        let mut query = sqlx::query(&self.sql);
        for arg in self.args {
            query = match arg {
                Arg::Int(i) => query.bind(i),
                Arg::Text(s) => query.bind(s),
            };
        }
        Ok(query.fetch_all(pool).await?)
    }
}

/// The response remembered for this idempotency key, if any: the same request
/// within 24 hours gets it again; another request under the same key is refused.
async fn replay<T: serde::de::DeserializeOwned>(
    tx: &mut Tx<'_>,
    idem: Option<&Idempotency>,
) -> Result<Option<T>> {
    let Some(idem) = idem else { return Ok(None) };
    let row = sqlx::query("SELECT request_hash, response FROM idempotency WHERE key_id = $1 AND idem_key = $2 AND created_at > $3")
        .bind(idem.key_id)
        .bind(&idem.key)
        .bind(idem.now - IDEMPOTENCY_SECONDS)
        .fetch_optional(&mut **tx)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let (hash, response): (String, String) = (row.get(0), row.get(1));
    if hash != idem.request_hash {
        return Err(ApiError::unprocessable(
            "idempotency_key_reused",
            "this Idempotency-Key was used for a different request in the last 24 hours",
        ));
    }
    serde_json::from_str(&response).map(Some).map_err(corrupt)
}

/// Records the response to an idempotent request, in the transaction that did
/// the work, and forgets keys older than 24 hours.
async fn remember<T: serde::Serialize>(
    tx: &mut Tx<'_>,
    idem: Option<&Idempotency>,
    response: &T,
) -> Result<()> {
    let Some(idem) = idem else { return Ok(()) };
    let response = serde_json::to_string(response).map_err(corrupt)?;
    sqlx::query("DELETE FROM idempotency WHERE created_at <= $1")
        .bind(idem.now - IDEMPOTENCY_SECONDS)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO idempotency (key_id, idem_key, request_hash, response, created_at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (key_id, idem_key) DO UPDATE SET request_hash = excluded.request_hash, \
         response = excluded.response, created_at = excluded.created_at",
    )
    .bind(idem.key_id)
    .bind(&idem.key)
    .bind(&idem.request_hash)
    .bind(response)
    .bind(idem.now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Whether the category exists; on PostgreSQL its row stays locked until the
/// transaction ends, so that it cannot be deleted (or a pet added to it)
/// meanwhile.
async fn lock_category(tx: &mut Tx<'_>, backend: Backend, id: i64) -> Result<bool> {
    let sql = format!(
        "SELECT id FROM categories WHERE id = $1{}",
        backend.for_update()
    );
    let exists: Option<i64> = sqlx::query_scalar(&sql)
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    Ok(exists.is_some())
}

/// 422 unless the category exists (locked as by [`lock_category`]).
async fn require_category(tx: &mut Tx<'_>, backend: Backend, id: i64) -> Result<()> {
    if lock_category(tx, backend, id).await? {
        return Ok(());
    }
    Err(ApiError::unprocessable(
        "unknown_category",
        format!("category {id} does not exist"),
    ))
}

async fn set_status(tx: &mut Tx<'_>, pet_id: i64, status: PetStatus) -> Result<()> {
    sqlx::query("UPDATE pets SET status = $1 WHERE id = $2")
        .bind(status.as_str())
        .bind(pet_id)
        .execute(&mut **tx)
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

fn category_from(r: &AnyRow) -> Category {
    Category {
        id: r.get(0),
        name: r.get(1),
        description: r.get(2),
    }
}

fn pet_from(r: &AnyRow) -> Result<Pet> {
    Ok(Pet {
        id: r.get(0),
        name: r.get(1),
        category_id: r.get(2),
        status: Some(parse_status(r.get(3))?),
    })
}

fn order_from(r: &AnyRow) -> Result<Order> {
    let ship_date: Option<String> = r.get(3);
    let ship_date = ship_date
        .map(|d| DateTime::parse_from_rfc3339(&d).map(|d| d.with_timezone(&Utc)))
        .transpose()
        .map_err(corrupt)?;
    let quantity: i64 = r.get(2);
    let complete: i64 = r.get(4);
    Ok(Order {
        id: Some(r.get(0)),
        pet_id: Some(r.get(1)),
        quantity: Some(i32::try_from(quantity).map_err(corrupt)?),
        ship_date,
        complete: Some(complete != 0),
    })
}

fn inventory_from(r: &AnyRow) -> Result<InventoryItem> {
    let quantity: i64 = r.get(1);
    Ok(InventoryItem {
        pet_id: r.get(0),
        quantity: i32::try_from(quantity).map_err(corrupt)?,
        status: parse_status(r.get(2))?,
    })
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
