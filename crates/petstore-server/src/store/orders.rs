//! Orders: placing one takes its quantity from the pet's stock in the same
//! transaction, so concurrent orders never oversell; completing is one-way;
//! cancelling returns the stock.

use super::catalog::set_status;
use super::conn::{args, Columns, Conn, FromRow};
use super::events::{record, Change};
use super::idempotency::Idempotency;
use super::{corrupt, listed, parse_status, Backend, Db, Filtered, Listed, Page, Result};
use crate::error::ApiError;
use chrono::{DateTime, Utc};
use petstore_api::models::{NewOrder, Order, PetStatus, StoreEventType};

/// The most a pet's stock may hold (`InventoryItem.quantity`'s `maximum`
/// in the spec).
pub const MAX_STOCK: i64 = 1_000_000;

/// One order, in the column order its [`FromRow`] implementation reads.
const ORDER_BY_ID: &str =
    "SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE id = $1";

impl Db {
    /// Places an order, taking its quantity from the pet's stock in the same
    /// transaction. Stock reaching zero makes an available pet sold.
    ///
    /// On PostgreSQL the work is one call of `place_order` (migration 0007),
    /// autocommitted when there is no idempotency key: one round trip.
    pub async fn place_order(&self, new: &NewOrder, idem: Option<&Idempotency>) -> Result<Order> {
        let new = new.clone();
        let place = async move |c: &mut Conn<'_>| {
            let now = Utc::now();
            let ship_date = new.ship_date.map(|d| d.to_rfc3339());
            let wanted = i64::from(new.quantity);
            let id = match c.backend() {
                Backend::Sqlite => {
                    place_by_statements(c, new.pet_id, wanted, ship_date, now).await?
                }
                Backend::Postgres => {
                    place_by_function(c, new.pet_id, wanted, ship_date, now).await?
                }
            };
            Ok(Order {
                id: Some(id),
                pet_id: Some(new.pet_id),
                quantity: Some(new.quantity),
                ship_date: new.ship_date,
                complete: Some(false),
            })
        };
        match idem {
            None => self.write_statement(place).await,
            Some(_) => self.write_idempotent(idem, place).await,
        }
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
            let completed = c.execute(
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
            let order = Order::from_row(&row)?;
            if completed > 0 {
                let change = Change::Order {
                    kind: StoreEventType::OrderCompleted,
                    order_id: id,
                    pet_id: order.pet_id.unwrap_or_default(),
                    quantity: order.quantity.map_or(0, i64::from),
                };
                record(c, &[change], Utc::now()).await?;
            }
            Ok(order)
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
            // Stock never rises above its bound: a cancellation that would
            // take it there is refused, and the order stays (the error
            // rolls the deletion back).
            let stock = c
                .query_opt(
                    "UPDATE inventory SET quantity = quantity + $1 \
                     WHERE pet_id = $2 AND quantity + $1 <= $3 RETURNING quantity",
                    args![quantity, pet_id, MAX_STOCK],
                )
                .await?
                .map(|r| r.int(0))
                .transpose()?;
            if stock.is_none() {
                let entry = c
                    .query_opt(
                        "SELECT quantity FROM inventory WHERE pet_id = $1",
                        args![pet_id],
                    )
                    .await?;
                if let Some(entry) = entry {
                    return Err(ApiError::conflict(
                        "stock_limit_exceeded",
                        format!(
                            "cancelling order {id} would return {quantity} to pet {pet_id}'s \
                             stock of {}, above the limit of {MAX_STOCK}; lower the stock first",
                            entry.int(0)?
                        ),
                    ));
                }
            }
            if stock.is_some_and(|s| s > 0) {
                c.execute(
                    "UPDATE pets SET status = 'available' WHERE id = $1 AND status = 'sold'",
                    args![pet_id],
                )
                .await?;
            }
            let now = Utc::now();
            let cancelled = Change::Order {
                kind: StoreEventType::OrderCancelled,
                order_id: id,
                pet_id,
                quantity,
            };
            record(c, &[cancelled, Change::Stock { pet_id }], now).await?;
            Ok(())
        })
        .await
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

/// Whether a pet with this status and stock (`None`: no such pet) may be
/// ordered in this quantity; the refusal, worded, when not.
fn may_order(pet_id: i64, seen: Option<(&str, i64)>, wanted: i64) -> Result<()> {
    let Some((status, stock)) = seen else {
        return Err(ApiError::unprocessable(
            "unknown_pet",
            format!("pet {pet_id} does not exist"),
        ));
    };
    let status = parse_status(status)?;
    if status != PetStatus::Available {
        return Err(ApiError::conflict(
            "pet_not_available",
            format!("pet {pet_id} is {status}, not available"),
        ));
    }
    if stock < wanted {
        return Err(ApiError::conflict(
            "out_of_stock",
            format!("pet {pet_id} has {stock} in stock, {wanted} ordered"),
        ));
    }
    Ok(())
}

/// An order placed by one call of PostgreSQL's `place_order` (migration
/// 0007), which applies [`may_order`]'s rule in SQL and answers what it saw;
/// the new order's id. A refusal is worded here, by the rule itself.
async fn place_by_function(
    c: &mut Conn<'_>,
    pet_id: i64,
    wanted: i64,
    ship_date: Option<String>,
    now: DateTime<Utc>,
) -> Result<i64> {
    let row = c
        .query_one(
            "SELECT status, stock, order_id FROM place_order($1, $2, $3, $4)",
            args![pet_id, wanted, ship_date, now.timestamp_millis()],
        )
        .await?;
    if let Some(id) = row.opt_int(2)? {
        return Ok(id);
    }
    may_order(pet_id, row.opt_text(0)?.zip(row.opt_int(1)?), wanted)?;
    Err(ApiError::Internal(
        format!("place_order refused an order for pet {pet_id} that the rule allows").into(),
    ))
}

/// An order placed statement by statement, in the transaction `c` is in
/// (SQLite: its writer runs them without a round trip); the new order's id.
/// PostgreSQL's `place_order` does the same in one call.
async fn place_by_statements(
    c: &mut Conn<'_>,
    pet_id: i64,
    wanted: i64,
    ship_date: Option<String>,
    now: DateTime<Utc>,
) -> Result<i64> {
    let sql = format!(
        "SELECT p.status, i.quantity FROM pets p JOIN inventory i ON i.pet_id = p.id WHERE p.id = $1{}",
        c.backend().for_update()
    );
    let pet = c.query_opt(&sql, args![pet_id]).await?;
    let seen = match &pet {
        Some(row) => Some((row.text(0)?, row.int(1)?)),
        None => None,
    };
    may_order(pet_id, seen, wanted)?;
    let stock = seen.map_or(0, |(_, stock)| stock);
    c.execute(
        "UPDATE inventory SET quantity = quantity - $1 WHERE pet_id = $2",
        args![wanted, pet_id],
    )
    .await?;
    if stock == wanted {
        set_status(c, pet_id, PetStatus::Sold).await?;
    }
    let id = c
        .insert(
            "INSERT INTO orders (pet_id, quantity, ship_date, complete) VALUES ($1, $2, $3, 0)",
            args![pet_id, wanted, ship_date],
        )
        .await?;
    let placed = Change::Order {
        kind: StoreEventType::OrderPlaced,
        order_id: id,
        pet_id,
        quantity: wanted,
    };
    record(c, &[placed, Change::Stock { pet_id }], now).await?;
    Ok(id)
}
