//! The store's events: one row per change, written in the change's own
//! transaction ([`record`]), read back in id order by the feed
//! ([`Db::events_after`]), pruned after a day.
//!
//! Ids follow commit order on both databases: SQLite has one writer; on
//! PostgreSQL a row is inserted with a pending id, negative and never read,
//! and after its commit the event feed's sequencer gives it its final id
//! (`sequence_events`, migration 0008), one batch of committed rows at a
//! time under an advisory lock, so no event can become visible with a lower
//! id than one already visible, and writes commit without waiting on one
//! another. A reader that has seen id `n` has therefore seen, or will never
//! see, every id below it; ids not kept (a rolled-back transaction's on
//! SQLite) are gaps, skipped.

use super::conn::{args, Columns, Conn, FromRow, Value};
use super::{corrupt, parse_status, Db, Result};
use crate::error::ApiError;
use chrono::{DateTime, Utc};
use petstore_api::models::{InventoryEvent, OrderEvent, PetStatus, StoreEvent, StoreEventType};

/// How long events are kept.
pub const EVENT_RETENTION: chrono::Duration = chrono::Duration::hours(24);

/// What changed, for [`record`]: the stock and status come from the rows
/// as the transaction left them.
#[derive(Debug, Clone)]
pub(super) enum Change {
    Order {
        kind: StoreEventType,
        order_id: i64,
        pet_id: i64,
        quantity: i64,
    },
    Stock {
        pet_id: i64,
    },
}

/// Records `changes`, in order, in the transaction `c` is in, each with
/// the pet's stock and status as the transaction has made them. One
/// statement.
pub(super) async fn record(c: &mut Conn<'_>, changes: &[Change], now: DateTime<Utc>) -> Result<()> {
    use std::fmt::Write as _;
    let mut rows = String::new();
    let mut args = Vec::new();
    for (n, change) in changes.iter().enumerate() {
        let (kind, order_id, pet_id, quantity) = match change {
            Change::Order {
                kind,
                order_id,
                pet_id,
                quantity,
            } => (kind.clone(), Some(*order_id), *pet_id, Some(*quantity)),
            Change::Stock { pet_id } => (StoreEventType::InventoryChanged, None, *pet_id, None),
        };
        let at = args.len();
        if n > 0 {
            rows.push_str(" UNION ALL ");
        }
        // Typed, so that PostgreSQL knows a NULL's type; SQL both speak.
        let _ = write!(
            rows,
            "SELECT {n} AS n, CAST(${} AS TEXT) AS kind, CAST(${} AS BIGINT) AS order_id, \
             CAST(${} AS BIGINT) AS pet_id, CAST(${} AS BIGINT) AS quantity",
            at + 1,
            at + 2,
            at + 3,
            at + 4
        );
        args.extend([
            Value::from(kind.as_str()),
            Value::from(order_id),
            Value::from(pet_id),
            Value::from(quantity),
        ]);
    }
    args.push(Value::from(now.timestamp_millis()));
    let sql = format!(
        "INSERT INTO events (kind, order_id, pet_id, quantity, stock, status, occurred_at) \
         SELECT k.kind, k.order_id, p.id, k.quantity, i.quantity, p.status, ${} \
         FROM ({rows}) AS k \
         JOIN pets p ON p.id = k.pet_id JOIN inventory i ON i.pet_id = p.id \
         ORDER BY k.n",
        args.len()
    );
    c.execute(&sql, &args).await?;
    Ok(())
}

/// Where the kept events begin and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Horizon {
    /// The highest id pruned: resuming from below it would miss events.
    pub pruned_through: i64,
    /// The highest id written (0 when none was).
    pub last: i64,
}

const EVENT_COLUMNS: &str = "id, kind, order_id, pet_id, quantity, stock, status, occurred_at";

impl Db {
    /// PostgreSQL: gives every committed pending event its final id
    /// (`sequence_events`, migration 0008), its `NOTIFY` carrying `caller`;
    /// the number given. One transaction of its own, outside any write's.
    /// Nothing to do on SQLite, whose ids are final at commit: 0.
    pub async fn sequence_events(&self, caller: &str) -> Result<i64> {
        if self.backend() != super::Backend::Postgres {
            return Ok(0);
        }
        let caller = caller.to_string();
        self.statement(async move |c| {
            c.query_one("SELECT sequence_events($1)", args![caller])
                .await?
                .int(0)
        })
        .await
    }

    /// Events with ids above `after`, in id order, at most `limit`; never a
    /// pending one (below zero).
    pub async fn events_after(&self, after: i64, limit: u32) -> Result<Vec<StoreEvent>> {
        let sql = format!("SELECT {EVENT_COLUMNS} FROM events WHERE id > $1 ORDER BY id LIMIT $2");
        let after = after.max(0);
        self.read(async |c| c.query_as(&sql, args![after, i64::from(limit)]).await)
            .await
    }

    /// Where the kept events begin and end.
    pub async fn event_horizon(&self) -> Result<Horizon> {
        self.read(async |c| {
            let row = c
                .query_one(
                    "SELECT h.pruned_through, COALESCE((SELECT max(id) FROM events), 0) \
                     FROM event_horizon h",
                    &[],
                )
                .await?;
            let pruned_through = row.int(0)?;
            // Pruning may have taken every row: the last id is then the
            // highest pruned.
            Ok(Horizon {
                pruned_through,
                last: row.int(1)?.max(pruned_through),
            })
        })
        .await
    }

    /// Deletes events older than [`EVENT_RETENTION`] before `now`; the
    /// number deleted.
    pub async fn prune_events(&self, now: DateTime<Utc>) -> Result<u64> {
        let cutoff = (now - EVENT_RETENTION).timestamp_millis();
        self.write(async move |c| {
            let newest_old = c
                .query_one(
                    "SELECT max(id) FROM events WHERE occurred_at < $1 AND id > 0",
                    args![cutoff],
                )
                .await?;
            let Some(through) = newest_old.opt_int(0)? else {
                return Ok(0);
            };
            // Ids follow commit order, and commit order time: every id up
            // to the newest old one is old. Pending rows are left to be
            // sequenced.
            let deleted = c
                .execute(
                    "DELETE FROM events WHERE id > 0 AND id <= $1",
                    args![through],
                )
                .await?;
            c.execute(
                "UPDATE event_horizon SET pruned_through = $1 WHERE pruned_through < $1",
                args![through],
            )
            .await?;
            Ok(deleted)
        })
        .await
    }
}

impl FromRow for StoreEvent {
    fn from_row(r: &impl Columns) -> Result<Self> {
        let id = r.int(0)?;
        let kind: StoreEventType = super::parse_known(r.text(1)?)?;
        let occurred_at = DateTime::<Utc>::from_timestamp_millis(r.int(7)?)
            .ok_or_else(|| corrupt(format_args!("event {id}'s time")))?;
        let pet_id = r.int(3)?;
        let stock = i32::try_from(r.int(5)?).map_err(corrupt)?;
        let status: PetStatus = parse_status(r.text(6)?)?;
        Ok(match kind {
            StoreEventType::InventoryChanged => StoreEvent::InventoryEvent(InventoryEvent {
                id,
                type_: kind,
                pet_id,
                stock,
                status,
                occurred_at,
            }),
            _ => {
                let order_id = r
                    .opt_int(2)?
                    .ok_or_else(|| corrupt(format_args!("event {id} has no order")))?;
                let quantity = r
                    .opt_int(4)?
                    .ok_or_else(|| corrupt(format_args!("event {id} has no quantity")))?;
                StoreEvent::OrderEvent(OrderEvent {
                    id,
                    type_: kind,
                    order_id,
                    pet_id,
                    quantity: i32::try_from(quantity).map_err(corrupt)?,
                    stock,
                    occurred_at,
                })
            }
        })
    }
}

/// An event's id and type, whatever its kind.
pub fn event_meta(event: &StoreEvent) -> (i64, StoreEventType, i64) {
    match event {
        StoreEvent::OrderEvent(e) => (e.id, e.type_.clone(), e.pet_id),
        StoreEvent::InventoryEvent(e) => (e.id, e.type_.clone(), e.pet_id),
    }
}

/// The error for resuming from an event no longer kept.
pub fn expired(after: i64, horizon: Horizon) -> ApiError {
    ApiError::Gone {
        code: "event_id_expired",
        message: format!(
            "event {after} is older than the events kept (24 hours; ids up to {} were pruned): \
             reconnect without Last-Event-ID, or with a newer id",
            horizon.pruned_through
        ),
    }
}
