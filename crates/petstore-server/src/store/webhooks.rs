//! Webhooks: the endpoints each key subscribed, the outbox of deliveries
//! still to make, and every attempt made (migration 0012).
//!
//! An event becomes deliveries in two steps, neither of which can lose it:
//! its row is written in its change's transaction ([`super::events`]), and
//! [`Db::queue_deliveries`] moves the events past each endpoint's `cursor`
//! into the outbox, with their JSON, and moves the cursor, in one
//! transaction. Ids are final only once sequenced on PostgreSQL, so the
//! outbox is filled from the sequenced rows rather than in the change's
//! transaction: the event's id is the delivery's `webhook-id` on every try.
//!
//! A delivery is claimed ([`Db::claim_deliveries`]) by pushing its `due_at`
//! past the attempt's timeout, so that no other instance (`FOR UPDATE SKIP
//! LOCKED` on PostgreSQL) or later round takes it while the attempt runs;
//! an instance killed mid-attempt leaves it to be retried when that lease
//! ends. [`Db::record_attempt`] then deletes it (success, or the last
//! failure, which disables the endpoint) or schedules the next try.

use super::conn::{args, Columns, FromRow, Value};
use super::{corrupt, listed, parse_known, Db, Filtered, Listed, Page, Result};
use crate::error::ApiError;
use chrono::{DateTime, Utc};
use petstore_api::models::{
    CreatedWebhookEndpoint, StoreEvent, StoreEventType, WebhookDelivery, WebhookDeliveryResult,
    WebhookEndpoint,
};

/// How long the attempts listed under an endpoint's deliveries are kept.
pub const ATTEMPT_RETENTION: chrono::Duration = chrono::Duration::days(30);

/// A new endpoint, as the store records it.
#[derive(Debug, Clone)]
pub struct NewEndpoint {
    pub key_id: i64,
    pub url: String,
    pub events: Vec<StoreEventType>,
    pub description: Option<String>,
    /// `whsec_...`.
    pub secret: String,
    /// The most endpoints the key may hold.
    pub max_endpoints: usize,
}

/// A delivery claimed for one attempt.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery_id: i64,
    pub endpoint_id: i64,
    pub event_id: i64,
    /// The event's JSON, as queued.
    pub payload: String,
    /// Attempts made before this one.
    pub attempts: u32,
    pub url: String,
    pub secret: String,
    /// Until when it is held for this attempt (Unix milliseconds).
    pub lease_until: i64,
}

/// How one attempt ended, as recorded.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub result: WebhookDeliveryResult,
    /// The receiver's status, when it answered.
    pub status: Option<u16>,
    /// What went wrong.
    pub error: Option<String>,
}

impl Attempt {
    pub fn succeeded(&self) -> bool {
        self.result == WebhookDeliveryResult::Succeeded
    }
}

/// What one call of [`Db::queue_deliveries`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Queued {
    /// Deliveries put in the outbox.
    pub deliveries: u64,
    /// It stopped at its batch's end: more events may wait.
    pub more: bool,
}

/// What to do after a failed attempt: try again at this time, or give up
/// (the schedule is spent) and disable the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    RetryAt(DateTime<Utc>),
    GiveUp,
}

const ENDPOINT_COLUMNS: &str = "id, url, events, description, enabled, disabled_reason, created_at";

impl FromRow for WebhookEndpoint {
    fn from_row(r: &impl Columns) -> Result<Self> {
        let id = r.int(0)?;
        let events = r
            .text(2)?
            .split(',')
            .filter(|t| !t.is_empty())
            .map(parse_known)
            .collect::<Result<Vec<StoreEventType>>>()?;
        Ok(WebhookEndpoint {
            id,
            url: r.text(1)?.to_string(),
            events,
            description: r.opt_text(3)?.map(str::to_string),
            enabled: r.int(4)? != 0,
            disabled_reason: r.opt_text(5)?.map(str::to_string),
            created_at: DateTime::<Utc>::from_timestamp_millis(r.int(6)?)
                .ok_or_else(|| corrupt(format_args!("webhook {id}'s creation time")))?,
        })
    }
}

impl FromRow for WebhookDelivery {
    fn from_row(r: &impl Columns) -> Result<Self> {
        let id = r.int(0)?;
        Ok(WebhookDelivery {
            id,
            event_id: r.int(1)?,
            attempt: i32::try_from(r.int(2)?).map_err(corrupt)?,
            result: parse_known(r.text(3)?)?,
            status: r
                .opt_int(4)?
                .map(i32::try_from)
                .transpose()
                .map_err(corrupt)?,
            error: r.opt_text(5)?.map(str::to_string),
            attempted_at: DateTime::<Utc>::from_timestamp_millis(r.int(6)?)
                .ok_or_else(|| corrupt(format_args!("attempt {id}'s time")))?,
        })
    }
}

/// The event types as stored: comma-separated.
fn types_text(types: &[StoreEventType]) -> String {
    types
        .iter()
        .map(StoreEventType::as_str)
        .collect::<Vec<_>>()
        .join(",")
}

impl Db {
    /// Creates an endpoint of `new.key_id`, which delivers the events
    /// committed after now; it is answered with its secret (a retry with
    /// the same idempotency key gets the same one). 422 when the key
    /// already holds its most.
    pub async fn create_webhook(
        &self,
        new: NewEndpoint,
        now: DateTime<Utc>,
        idem: Option<&super::Idempotency>,
    ) -> Result<CreatedWebhookEndpoint> {
        self.write_idempotent(idem, async move |c| {
            // Several creations by one key at once must not pass the limit
            // together: the key's endpoints are locked while counted (on
            // SQLite the writer is alone).
            let held = c
                .query(
                    &format!(
                        "SELECT id FROM webhook_endpoints WHERE key_id = $1{}",
                        c.backend().for_update()
                    ),
                    args![new.key_id],
                )
                .await?
                .len();
            if held >= new.max_endpoints {
                return Err(ApiError::Unprocessable {
                    code: "validation_failed",
                    message: format!(
                        "this key holds {held} webhook endpoint(s), the most its plan allows \
                         ({}): delete one first",
                        new.max_endpoints
                    ),
                });
            }
            // The events from now on: the newest id written so far (pending
            // ones on PostgreSQL get higher ids once sequenced: the service
            // sequences what is committed first, `Feed::sequence_committed`).
            let cursor = c
                .query_one("SELECT COALESCE(max(id), 0) FROM events", &[])
                .await?
                .int(0)?
                .max(0);
            let created_at = now.timestamp_millis();
            let id = c
                .insert(
                    "INSERT INTO webhook_endpoints (key_id, url, events, description, secret, \
                     enabled, cursor, created_at) VALUES ($1, $2, $3, $4, $5, 1, $6, $7)",
                    args![
                        new.key_id,
                        &new.url,
                        types_text(&new.events),
                        &new.description,
                        &new.secret,
                        cursor,
                        created_at
                    ],
                )
                .await?;
            Ok(CreatedWebhookEndpoint {
                id,
                url: new.url,
                events: new.events,
                description: new.description,
                enabled: true,
                disabled_reason: None,
                created_at: DateTime::<Utc>::from_timestamp_millis(created_at).unwrap_or(now),
                secret: new.secret,
            })
        })
        .await
    }

    /// One of `key_id`'s endpoints; 404 for another key's or none.
    pub async fn webhook(&self, key_id: i64, id: i64) -> Result<WebhookEndpoint> {
        let sql = format!(
            "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND key_id = $2"
        );
        self.read(async |c| {
            c.query_opt(&sql, args![id, key_id])
                .await?
                .map(|r| WebhookEndpoint::from_row(&r))
                .transpose()?
                .ok_or_else(|| ApiError::not_found(format_args!("webhook endpoint {id}")))
        })
        .await
    }

    /// A page of `key_id`'s endpoints.
    pub async fn list_webhooks(&self, key_id: i64, page: Page) -> Result<Listed<WebhookEndpoint>> {
        let mut q = Filtered::new(
            &format!("SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id > "),
            page,
        );
        q.and("key_id = ", key_id);
        let items = self.read(async |c| q.fetch("id", c).await).await?;
        Ok(listed(items, page))
    }

    /// Deletes one of `key_id`'s endpoints and its pending deliveries; its
    /// attempts go with it. 404 for another key's or none.
    pub async fn delete_webhook(&self, key_id: i64, id: i64) -> Result<()> {
        self.write(async move |c| {
            let deleted = c
                .execute(
                    "DELETE FROM webhook_endpoints WHERE id = $1 AND key_id = $2",
                    args![id, key_id],
                )
                .await?;
            if deleted == 0 {
                return Err(ApiError::not_found(format_args!("webhook endpoint {id}")));
            }
            for table in ["webhook_deliveries", "webhook_attempts"] {
                c.execute(
                    &format!("DELETE FROM {table} WHERE endpoint_id = $1"),
                    args![id],
                )
                .await?;
            }
            Ok(())
        })
        .await
    }

    /// A page of the attempts to deliver to one of `key_id`'s endpoints,
    /// oldest first. 404 for another key's endpoint or none.
    pub async fn list_webhook_deliveries(
        &self,
        key_id: i64,
        endpoint_id: i64,
        page: Page,
    ) -> Result<Listed<WebhookDelivery>> {
        self.webhook(key_id, endpoint_id).await?;
        let mut q = Filtered::new(
            "SELECT id, event_id, attempt, result, status, error, attempted_at \
             FROM webhook_attempts WHERE id > ",
            page,
        );
        q.and("endpoint_id = ", endpoint_id);
        let items = self.read(async |c| q.fetch("id", c).await).await?;
        Ok(listed(items, page))
    }

    /// Moves the events past each enabled endpoint's cursor into the
    /// outbox (those of its types), at most `batch` events per call, due
    /// at `now`. On PostgreSQL the endpoints another instance is queuing
    /// for are skipped (it moves their cursors).
    pub async fn queue_deliveries(&self, now: DateTime<Utc>, batch: u32) -> Result<Queued> {
        self.write(async move |c| {
            let skip_locked = c.backend().skip_locked("");
            let newest = c
                .query_one("SELECT COALESCE(max(id), 0) FROM events", &[])
                .await?
                .int(0)?;
            let endpoints = c
                .query(
                    &format!(
                        "SELECT id, events, cursor FROM webhook_endpoints \
                         WHERE enabled = 1 AND cursor < $1 ORDER BY id{skip_locked}"
                    ),
                    args![newest],
                )
                .await?;
            let Some(from) = endpoints
                .iter()
                .map(|r| r.int(2))
                .collect::<Result<Vec<i64>>>()?
                .into_iter()
                .min()
            else {
                return Ok(Queued::default());
            };
            let events: Vec<StoreEvent> = c
                .query_as(
                    "SELECT id, kind, order_id, pet_id, quantity, stock, status, occurred_at \
                     FROM events WHERE id > $1 ORDER BY id LIMIT $2",
                    args![from, i64::from(batch)],
                )
                .await?;
            let Some(last) = events.last().map(|e| super::events::event_meta(e).0) else {
                return Ok(Queued::default());
            };
            let due = now.timestamp_millis();
            let mut queued = 0;
            for endpoint in &endpoints {
                let (id, cursor) = (endpoint.int(0)?, endpoint.int(2)?);
                let types = endpoint.text(1)?;
                let wanted = |kind: &StoreEventType| types.split(',').any(|t| t == kind.as_str());
                for event in &events {
                    let (event_id, kind, _) = super::events::event_meta(event);
                    if event_id <= cursor || !wanted(&kind) {
                        continue;
                    }
                    let payload = serde_json::to_string(event).map_err(|e| {
                        ApiError::Internal(format!("event {event_id} as JSON: {e}").into())
                    })?;
                    queued += c
                        .execute(
                            "INSERT INTO webhook_deliveries (endpoint_id, event_id, payload, \
                             attempts, due_at) VALUES ($1, $2, $3, 0, $4) \
                             ON CONFLICT (endpoint_id, event_id) DO NOTHING",
                            args![id, event_id, payload, due],
                        )
                        .await?;
                }
                if cursor < last {
                    c.execute(
                        "UPDATE webhook_endpoints SET cursor = $1 WHERE id = $2",
                        args![last, id],
                    )
                    .await?;
                }
            }
            Ok(Queued {
                deliveries: queued,
                more: events.len() == batch as usize,
            })
        })
        .await
    }

    /// Claims up to `limit` deliveries due by `now` for an attempt each:
    /// their `due_at` moves to `lease_until`, so that nobody else attempts
    /// them meanwhile.
    pub async fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<Claimed>> {
        self.write(async move |c| {
            let skip_locked = c.backend().skip_locked(" OF d");
            let rows = c
                .query(
                    &format!(
                        "SELECT d.id, d.endpoint_id, d.event_id, d.payload, d.attempts, e.url, \
                         e.secret FROM webhook_deliveries d \
                         JOIN webhook_endpoints e ON e.id = d.endpoint_id \
                         WHERE d.due_at <= $1 AND e.enabled = 1 \
                         ORDER BY d.due_at, d.id LIMIT $2{skip_locked}"
                    ),
                    args![now.timestamp_millis(), i64::from(limit)],
                )
                .await?;
            let mut claimed = Vec::with_capacity(rows.len());
            for r in &rows {
                let delivery_id = r.int(0)?;
                c.execute(
                    "UPDATE webhook_deliveries SET due_at = $1 WHERE id = $2",
                    args![lease_until.timestamp_millis(), delivery_id],
                )
                .await?;
                claimed.push(Claimed {
                    delivery_id,
                    endpoint_id: r.int(1)?,
                    event_id: r.int(2)?,
                    payload: r.text(3)?.to_string(),
                    attempts: u32::try_from(r.int(4)?).map_err(corrupt)?,
                    url: r.text(5)?.to_string(),
                    secret: r.text(6)?.to_string(),
                    lease_until: lease_until.timestamp_millis(),
                });
            }
            Ok(claimed)
        })
        .await
    }

    /// Hands claimed deliveries back to the outbox, due at `now`, for
    /// attempts that were not made to the end (this instance is
    /// stopping): another instance, or this one's next start, takes them
    /// at once rather than after their lease. A delivery whose attempt was
    /// recorded meanwhile is left as that made it.
    pub async fn release_deliveries(
        &self,
        claimed: Vec<Claimed>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.write(async move |c| {
            for delivery in &claimed {
                c.execute(
                    "UPDATE webhook_deliveries SET due_at = $1 WHERE id = $2 AND due_at = $3",
                    args![
                        now.timestamp_millis(),
                        delivery.delivery_id,
                        delivery.lease_until
                    ],
                )
                .await?;
            }
            Ok(())
        })
        .await
    }

    /// Records how an attempt of `delivery` ended, at `now`: on success
    /// the delivery is done; on failure it is tried again as `then` says,
    /// or, when the schedule is spent, dropped with the endpoint disabled
    /// (and every delivery still queued for it).
    pub async fn record_attempt(
        &self,
        delivery: &Claimed,
        attempt: &Attempt,
        then: Then,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let (delivery, attempt) = (delivery.clone(), attempt.clone());
        self.write(async move |c| {
            // The endpoint may have been deleted meanwhile: then nothing
            // is recorded.
            let alive = c
                .query_opt(
                    "SELECT 1 FROM webhook_deliveries WHERE id = $1",
                    args![delivery.delivery_id],
                )
                .await?
                .is_some();
            if !alive {
                return Ok(());
            }
            let number = i64::from(delivery.attempts) + 1;
            c.execute(
                "INSERT INTO webhook_attempts (endpoint_id, event_id, attempt, result, status, \
                 error, attempted_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[
                    Value::from(delivery.endpoint_id),
                    Value::from(delivery.event_id),
                    Value::from(number),
                    Value::from(attempt.result.as_str()),
                    Value::from(attempt.status.map(i64::from)),
                    Value::from(attempt.error.clone()),
                    Value::from(now.timestamp_millis()),
                ],
            )
            .await?;
            match (attempt.succeeded(), then) {
                (true, _) => {
                    c.execute(
                        "DELETE FROM webhook_deliveries WHERE id = $1",
                        args![delivery.delivery_id],
                    )
                    .await?;
                }
                (false, Then::RetryAt(at)) => {
                    c.execute(
                        "UPDATE webhook_deliveries SET attempts = $1, due_at = $2 WHERE id = $3",
                        args![number, at.timestamp_millis(), delivery.delivery_id],
                    )
                    .await?;
                }
                (false, Then::GiveUp) => {
                    let reason = format!(
                        "event {} could not be delivered in {number} attempts; the last: {}",
                        delivery.event_id,
                        describe(&attempt)
                    );
                    c.execute(
                        "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = $1 \
                         WHERE id = $2",
                        args![reason, delivery.endpoint_id],
                    )
                    .await?;
                    c.execute(
                        "DELETE FROM webhook_deliveries WHERE endpoint_id = $1",
                        args![delivery.endpoint_id],
                    )
                    .await?;
                }
            }
            Ok(())
        })
        .await
    }

    /// Deletes the attempts recorded before `now` less [`ATTEMPT_RETENTION`];
    /// the number deleted.
    pub async fn prune_webhook_attempts(&self, now: DateTime<Utc>) -> Result<u64> {
        let cutoff = (now - ATTEMPT_RETENTION).timestamp_millis();
        self.write(async move |c| {
            c.execute(
                "DELETE FROM webhook_attempts WHERE attempted_at < $1",
                args![cutoff],
            )
            .await
        })
        .await
    }

    /// When the next queued delivery is due, if any is.
    pub async fn next_delivery_due(&self) -> Result<Option<DateTime<Utc>>> {
        self.read(async |c| {
            let row = c
                .query_one("SELECT min(due_at) FROM webhook_deliveries", &[])
                .await?;
            Ok(row
                .opt_int(0)?
                .and_then(DateTime::<Utc>::from_timestamp_millis))
        })
        .await
    }
}

/// An attempt's outcome in words, for a disabled endpoint's reason.
fn describe(attempt: &Attempt) -> String {
    match (&attempt.status, &attempt.error) {
        (Some(status), _) => format!("{} (HTTP {status})", attempt.result.as_str()),
        (None, Some(error)) => format!("{}: {error}", attempt.result.as_str()),
        (None, None) => attempt.result.as_str().to_string(),
    }
}
