//! Orders: placing one takes its quantity from the pet's stock in the same
//! transaction, so concurrent orders never oversell; completing is one-way;
//! cancelling returns the stock.

use super::catalog::set_status;
use super::conn::{args, Columns, Conn, FromRow};
use super::events::{record, Change};
use super::idempotency::Idempotency;
use super::{corrupt, listed, parse_status, Backend, Db, Filtered, Listed, Page, Result};
use crate::error::ApiError;
use crate::rounds::Rounds;
use chrono::{DateTime, Utc};
use petstore_api::models::{NewOrder, Order, PetStatus, StoreEventType};
use std::sync::Arc;

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
    /// On PostgreSQL an order without an idempotency key is placed in the
    /// next round (see [`OrderRounds`]), with the others that arrived
    /// meanwhile; with a key it is one call of `place_order` (migration
    /// 0007) in the transaction that remembers the answer.
    pub async fn place_order(&self, new: &NewOrder, idem: Option<&Idempotency>) -> Result<Order> {
        let placing = Placing {
            pet_id: new.pet_id,
            wanted: i64::from(new.quantity),
            ship_date: new.ship_date.map(|d| d.to_rfc3339()),
            now: Utc::now(),
        };
        let new = new.clone();
        let placed = move |id: i64| Order {
            id: Some(id),
            pet_id: Some(new.pet_id),
            quantity: Some(new.quantity),
            ship_date: new.ship_date,
            complete: Some(false),
        };
        match (idem, self.order_rounds()) {
            (None, Some(rounds)) => self.order_in_round(rounds, placing).await.map(placed),
            (None, None) => {
                self.write_statement(async move |c| placing.place(c).await.map(placed))
                    .await
            }
            (Some(_), _) => {
                self.write_idempotent(idem, async move |c| placing.place(c).await.map(placed))
                    .await
            }
        }
    }

    /// `placing`, placed in the next round of orders; its id, or its own
    /// refusal.
    async fn order_in_round(&self, rounds: &OrderRounds, placing: Placing) -> Result<i64> {
        let db = self.clone();
        rounds
            .ask((), placing, async move |_, orders: Vec<Placing>| {
                db.place_round(orders).await
            })
            .await?
    }

    /// One round of orders: `place_orders` (migration 0009) places each in
    /// arrival order, in one autocommitted statement, and answers each as
    /// `place_order` does.
    async fn place_round(&self, orders: Vec<Placing>) -> Result<Vec<Result<i64>>> {
        let pet_ids: Vec<i64> = orders.iter().map(|o| o.pet_id).collect();
        let wanted: Vec<i64> = orders.iter().map(|o| o.wanted).collect();
        let ship_dates: Vec<Option<String>> = orders.iter().map(|o| o.ship_date.clone()).collect();
        let occurred: Vec<i64> = orders.iter().map(|o| o.now.timestamp_millis()).collect();
        let rows: Vec<Answered> = self
            .write_statement(async move |c| {
                Ok(sqlx::query_as(
                    "SELECT status, stock, order_id FROM place_orders($1, $2, $3, $4)",
                )
                .bind(pet_ids)
                .bind(wanted)
                .bind(ship_dates)
                .bind(occurred)
                .fetch_all(c.postgres("placing orders in rounds")?)
                .await?)
            })
            .await?;
        if rows.len() != orders.len() {
            return Err(ApiError::Internal(
                format!(
                    "place_orders answered {} of {} orders",
                    rows.len(),
                    orders.len()
                )
                .into(),
            ));
        }
        Ok(orders
            .iter()
            .zip(rows)
            .map(|(order, answer)| order.answered(answer))
            .collect())
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

/// Orders without an idempotency key, placed on PostgreSQL in rounds
/// (`crate::rounds`): while one round's statement is in flight, the orders
/// that arrive wait, and the next round places them all with one statement
/// and one commit (`place_orders`, migration 0009), in arrival order. A lone
/// order goes alone, at once. Each is answered with its new id or its own
/// refusal; a failure of the round answers all of its orders.
pub(crate) type OrderRounds = Arc<Rounds<(), Placing, Result<i64>>>;

/// An order to place.
#[derive(Debug)]
pub(crate) struct Placing {
    pet_id: i64,
    wanted: i64,
    ship_date: Option<String>,
    now: DateTime<Utc>,
}

/// What `place_order` (migration 0007) answers: the pet's status and stock
/// as it saw them (`None` when there is no such pet), and the new order's
/// id (`None` when it refused).
type Answered = (Option<String>, Option<i64>, Option<i64>);

impl Placing {
    /// Places the order in the transaction `c` is in, or autocommitted: by
    /// statements on SQLite, by one call of `place_order` on PostgreSQL. The
    /// new order's id.
    async fn place(&self, c: &mut Conn<'_>) -> Result<i64> {
        match c.backend() {
            Backend::Sqlite => self.place_by_statements(c).await,
            Backend::Postgres => {
                let row = c
                    .query_one(
                        "SELECT status, stock, order_id FROM place_order($1, $2, $3, $4)",
                        args![
                            self.pet_id,
                            self.wanted,
                            self.ship_date.clone(),
                            self.now.timestamp_millis()
                        ],
                    )
                    .await?;
                self.answered((
                    row.opt_text(0)?.map(str::to_string),
                    row.opt_int(1)?,
                    row.opt_int(2)?,
                ))
            }
        }
    }

    /// The order's id, or its refusal worded by [`may_order`]'s rule, which
    /// `place_order` applies in SQL: it answers what it saw, and the rule
    /// must agree with its refusal.
    fn answered(&self, (status, stock, order_id): Answered) -> Result<i64> {
        if let Some(id) = order_id {
            return Ok(id);
        }
        let pet_id = self.pet_id;
        may_order(pet_id, status.as_deref().zip(stock), self.wanted)?;
        Err(ApiError::Internal(
            format!("place_order refused an order for pet {pet_id} that the rule allows").into(),
        ))
    }

    /// The order placed statement by statement, in the transaction `c` is
    /// in (SQLite: its writer runs them without a round trip); the new
    /// order's id. PostgreSQL's `place_order` does the same in one call.
    async fn place_by_statements(&self, c: &mut Conn<'_>) -> Result<i64> {
        let (pet_id, wanted) = (self.pet_id, self.wanted);
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
            set_status(c, pet_id, &PetStatus::Sold).await?;
        }
        let id = c
            .insert(
                "INSERT INTO orders (pet_id, quantity, ship_date, complete) VALUES ($1, $2, $3, 0)",
                args![pet_id, wanted, self.ship_date.clone()],
            )
            .await?;
        let placed = Change::Order {
            kind: StoreEventType::OrderPlaced,
            order_id: id,
            pet_id,
            quantity: wanted,
        };
        record(c, &[placed, Change::Stock { pet_id }], self.now).await?;
        Ok(id)
    }
}
