//! Storage: the store's records and rules on SQLite.
//!
//! Every write runs in one transaction on a single writer connection, so the
//! rules (stock never below zero, a pet's status following its stock) hold under
//! any concurrency; reads use a separate pool of read-only connections. The
//! database runs in WAL mode with `synchronous = FULL`: a transaction is on disk
//! before the request that made it is answered.

use crate::error::ApiError;
use chrono::{DateTime, Utc};
use petstore_api::models::{
    Category, InventoryItem, NewCategory, NewOrder, NewPet, Order, Pet, PetStatus,
};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{QueryBuilder, Row, Sqlite};
use std::str::FromStr;
use std::time::Duration;

/// The database: one writer connection, several readers.
#[derive(Debug, Clone)]
pub struct Db {
    read: SqlitePool,
    write: SqlitePool,
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

impl Db {
    /// Opens (creating if needed) the database at `url` (`sqlite://petstore.db`,
    /// `sqlite:///abs/path.db`) and applies pending migrations.
    pub async fn connect(url: &str) -> std::result::Result<Db, sqlx::Error> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let write = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("./migrations").run(&write).await?;
        let read = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options.read_only(true))
            .await?;
        Ok(Db { read, write })
    }

    /// Checks that the database answers (for `/healthz`).
    pub async fn ping(&self) -> std::result::Result<(), sqlx::Error> {
        sqlx::query("SELECT 1")
            .execute(&self.read)
            .await
            .map(|_| ())
    }

    pub(crate) fn reader(&self) -> &SqlitePool {
        &self.read
    }

    pub(crate) fn writer(&self) -> &SqlitePool {
        &self.write
    }

    // ---- categories ----------------------------------------------------------

    pub async fn create_category(
        &self,
        new: &NewCategory,
        idem: Option<&Idempotency>,
    ) -> Result<Category> {
        let mut tx = self.write.begin().await?;
        if let Some(previous) = replay(&mut tx, idem).await? {
            return Ok(previous);
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO categories (name, description) VALUES (?, ?) RETURNING id",
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
        sqlx::query("SELECT id, name, description FROM categories WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.read)
            .await?
            .map(|r| category_from(&r))
            .ok_or_else(|| ApiError::not_found(format_args!("category {id}")))
    }

    pub async fn list_categories(&self, page: Page) -> Result<Listed<Category>> {
        let rows = sqlx::query(
            "SELECT id, name, description FROM categories WHERE id > ? ORDER BY id LIMIT ?",
        )
        .bind(page.after)
        .bind(i64::from(page.limit) + 1)
        .fetch_all(&self.read)
        .await?;
        Ok(listed(rows.iter().map(category_from).collect(), page))
    }

    pub async fn delete_category(&self, id: i64) -> Result<()> {
        let mut tx = self.write.begin().await?;
        let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM categories WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(ApiError::not_found(format_args!("category {id}")));
        }
        let pets: i64 = sqlx::query_scalar("SELECT count(*) FROM pets WHERE category_id = ?")
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        if pets > 0 {
            return Err(ApiError::conflict(
                "category_in_use",
                format!("category {id} still has {pets} pet(s)"),
            ));
        }
        sqlx::query("DELETE FROM categories WHERE id = ?")
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
        let mut tx = self.write.begin().await?;
        if let Some(previous) = replay(&mut tx, idem).await? {
            return Ok(previous);
        }
        require_category(&mut tx, new.category_id).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id",
        )
        .bind(&new.name)
        .bind(new.category_id)
        .bind(status.as_str())
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO inventory (pet_id, quantity) VALUES (?, 1)")
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
        sqlx::query("SELECT id, name, category_id, status FROM pets WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.read)
            .await?
            .map(|r| pet_from(&r))
            .transpose()?
            .ok_or_else(|| ApiError::not_found(format_args!("pet {id}")))
    }

    pub async fn list_pets(&self, filter: &PetFilter, page: Page) -> Result<Listed<Pet>> {
        let mut q = QueryBuilder::<Sqlite>::new(
            "SELECT id, name, category_id, status FROM pets WHERE id > ",
        );
        q.push_bind(page.after);
        if let Some(status) = filter.status {
            q.push(" AND status = ").push_bind(status.as_str());
        }
        if let Some(category) = filter.category_id {
            q.push(" AND category_id = ").push_bind(category);
        }
        if let Some(ids) = &filter.ids {
            q.push(" AND id IN (");
            let mut list = q.separated(", ");
            for id in ids {
                list.push_bind(*id);
            }
            q.push(")");
        }
        q.push(" ORDER BY id LIMIT ")
            .push_bind(i64::from(page.limit) + 1);
        let rows = q.build().fetch_all(&self.read).await?;
        let pets = rows.iter().map(pet_from).collect::<Result<Vec<_>>>()?;
        Ok(listed(pets, page))
    }

    /// Replaces a pet's fields; a status given here applies to its inventory
    /// entry too, since the entry's status is the pet's.
    pub async fn replace_pet(&self, id: i64, new: &NewPet) -> Result<Pet> {
        let mut tx = self.write.begin().await?;
        let current: Option<String> = sqlx::query_scalar("SELECT status FROM pets WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(current) = current else {
            return Err(ApiError::not_found(format_args!("pet {id}")));
        };
        require_category(&mut tx, new.category_id).await?;
        let status = match new.status {
            Some(s) => s,
            None => parse_status(&current)?,
        };
        sqlx::query("UPDATE pets SET name = ?, category_id = ?, status = ? WHERE id = ?")
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
        let mut tx = self.write.begin().await?;
        require_pet(&mut tx, id).await?;
        let open: i64 =
            sqlx::query_scalar("SELECT count(*) FROM orders WHERE pet_id = ? AND complete = 0")
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
        if open > 0 {
            return Err(ApiError::conflict(
                "pet_has_open_orders",
                format!("pet {id} has {open} incomplete order(s)"),
            ));
        }
        sqlx::query("DELETE FROM pets WHERE id = ?")
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
        let mut tx = self.write.begin().await?;
        if let Some(previous) = replay(&mut tx, idem).await? {
            return Ok(previous);
        }
        let pet = sqlx::query(
            "SELECT p.status, i.quantity FROM pets p JOIN inventory i ON i.pet_id = p.id WHERE p.id = ?",
        )
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
        sqlx::query("UPDATE inventory SET quantity = quantity - ? WHERE pet_id = ?")
            .bind(wanted)
            .bind(new.pet_id)
            .execute(&mut *tx)
            .await?;
        if stock == wanted {
            set_status(&mut tx, new.pet_id, PetStatus::Sold).await?;
        }
        let ship_date = new.ship_date.map(|d| d.to_rfc3339());
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO orders (pet_id, quantity, ship_date, complete) VALUES (?, ?, ?, 0) RETURNING id",
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
        sqlx::query("SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE id = ?")
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
        let mut q = QueryBuilder::<Sqlite>::new(
            "SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE id > ",
        );
        q.push_bind(page.after);
        if let Some(pet) = pet_id {
            q.push(" AND pet_id = ").push_bind(pet);
        }
        if let Some(complete) = complete {
            q.push(" AND complete = ").push_bind(complete);
        }
        q.push(" ORDER BY id LIMIT ")
            .push_bind(i64::from(page.limit) + 1);
        let rows = q.build().fetch_all(&self.read).await?;
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
        let mut tx = self.write.begin().await?;
        if let Some(previous) = replay(&mut tx, idem).await? {
            return Ok(previous);
        }
        sqlx::query(
            "UPDATE orders SET complete = 1, ship_date = COALESCE(ship_date, ?) WHERE id = ? AND complete = 0",
        )
        .bind(now.to_rfc3339())
        .bind(id)
        .execute(&mut *tx)
        .await?;
        let row = sqlx::query(
            "SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE id = ?",
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
        let mut tx = self.write.begin().await?;
        let row = sqlx::query("SELECT pet_id, quantity, complete FROM orders WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else {
            return Err(ApiError::not_found(format_args!("order {id}")));
        };
        let (pet_id, quantity, complete): (i64, i64, bool) = (row.get(0), row.get(1), row.get(2));
        if complete {
            return Err(ApiError::conflict(
                "order_completed",
                format!("order {id} is complete and cannot be cancelled"),
            ));
        }
        sqlx::query("DELETE FROM orders WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let stock: Option<i64> = sqlx::query_scalar(
            "UPDATE inventory SET quantity = quantity + ? WHERE pet_id = ? RETURNING quantity",
        )
        .bind(quantity)
        .bind(pet_id)
        .fetch_optional(&mut *tx)
        .await?;
        if stock.is_some_and(|s| s > 0) {
            sqlx::query("UPDATE pets SET status = 'available' WHERE id = ? AND status = 'sold'")
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
            "SELECT i.pet_id, i.quantity, p.status FROM inventory i JOIN pets p ON p.id = i.pet_id WHERE i.pet_id = ?",
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
        let mut q = QueryBuilder::<Sqlite>::new(
            "SELECT i.pet_id, i.quantity, p.status FROM inventory i JOIN pets p ON p.id = i.pet_id WHERE i.pet_id > ",
        );
        q.push_bind(page.after);
        if let Some(status) = status {
            q.push(" AND p.status = ").push_bind(status.as_str());
        }
        q.push(" ORDER BY i.pet_id LIMIT ")
            .push_bind(i64::from(page.limit) + 1);
        let rows = q.build().fetch_all(&self.read).await?;
        let items = rows
            .iter()
            .map(inventory_from)
            .collect::<Result<Vec<_>>>()?;
        Ok(listed(items, page))
    }

    /// Sets a pet's stock. Zero makes an available pet sold; above zero makes a
    /// sold pet available. A pending pet stays pending.
    pub async fn update_inventory(&self, pet_id: i64, quantity: i32) -> Result<InventoryItem> {
        let mut tx = self.write.begin().await?;
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM pets WHERE id = ?")
            .bind(pet_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(status) = status else {
            return Err(ApiError::not_found(format_args!(
                "inventory entry of pet {pet_id}"
            )));
        };
        let mut status = parse_status(&status)?;
        sqlx::query("UPDATE inventory SET quantity = ? WHERE pet_id = ?")
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
}

type Tx<'a> = sqlx::Transaction<'a, Sqlite>;

/// The response remembered for this idempotency key, if any: the same request
/// within 24 hours gets it again; another request under the same key is refused.
async fn replay<T: serde::de::DeserializeOwned>(
    tx: &mut Tx<'_>,
    idem: Option<&Idempotency>,
) -> Result<Option<T>> {
    let Some(idem) = idem else { return Ok(None) };
    let row = sqlx::query("SELECT request_hash, response FROM idempotency WHERE key_id = ? AND idem_key = ? AND created_at > ?")
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
    sqlx::query("DELETE FROM idempotency WHERE created_at <= ?")
        .bind(idem.now - IDEMPOTENCY_SECONDS)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO idempotency (key_id, idem_key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?) \
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

async fn require_category(tx: &mut Tx<'_>, id: i64) -> Result<()> {
    let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM categories WHERE id = ?")
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    match exists {
        Some(_) => Ok(()),
        None => Err(ApiError::unprocessable(
            "unknown_category",
            format!("category {id} does not exist"),
        )),
    }
}

/// 404 unless the pet exists.
async fn require_pet(tx: &mut Tx<'_>, id: i64) -> Result<()> {
    let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM pets WHERE id = ?")
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    exists
        .map(|_| ())
        .ok_or_else(|| ApiError::not_found(format_args!("pet {id}")))
}

async fn set_status(tx: &mut Tx<'_>, pet_id: i64, status: PetStatus) -> Result<()> {
    sqlx::query("UPDATE pets SET status = ? WHERE id = ?")
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

fn corrupt(what: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("corrupt row: {what}").into())
}

fn parse_status(s: &str) -> Result<PetStatus> {
    s.parse().map_err(corrupt)
}

fn category_from(r: &sqlx::sqlite::SqliteRow) -> Category {
    Category {
        id: r.get(0),
        name: r.get(1),
        description: r.get(2),
    }
}

fn pet_from(r: &sqlx::sqlite::SqliteRow) -> Result<Pet> {
    Ok(Pet {
        id: r.get(0),
        name: r.get(1),
        category_id: r.get(2),
        status: Some(parse_status(r.get(3))?),
    })
}

fn order_from(r: &sqlx::sqlite::SqliteRow) -> Result<Order> {
    let ship_date: Option<String> = r.get(3);
    let ship_date = ship_date
        .map(|d| DateTime::parse_from_rfc3339(&d).map(|d| d.with_timezone(&Utc)))
        .transpose()
        .map_err(corrupt)?;
    let quantity: i64 = r.get(2);
    Ok(Order {
        id: Some(r.get(0)),
        pet_id: Some(r.get(1)),
        quantity: Some(i32::try_from(quantity).map_err(corrupt)?),
        ship_date,
        complete: Some(r.get(4)),
    })
}

fn inventory_from(r: &sqlx::sqlite::SqliteRow) -> Result<InventoryItem> {
    let quantity: i64 = r.get(1);
    Ok(InventoryItem {
        pet_id: r.get(0),
        quantity: i32::try_from(quantity).map_err(corrupt)?,
        status: parse_status(r.get(2))?,
    })
}
