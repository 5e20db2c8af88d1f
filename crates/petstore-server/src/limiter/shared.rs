//! The limiter of instances that share a PostgreSQL database: state in the
//! `rate_limits` table, so counts and bans are exact across instances.
//!
//! Decisions are made in rounds, one statement each. Within an instance, a
//! subject's requests that arrive while its round is in flight wait for the
//! next round, so a busy key costs one round trip per round rather than per
//! request (`crate::rounds`). A round is `rate_limit_round_cached`
//! (migration 0011), autocommitted:
//!
//! - When this instance knows the subject's row as it now stands (its own
//!   last round wrote it), it decides the round itself, by the rule of
//!   `rule.rs`, and the statement writes the state it computed if the row
//!   still has the version it started from.
//! - Otherwise (another instance wrote the row since, it was swept, or this
//!   instance never saw it) the function decides the round in SQL by
//!   `rate_limit_round` (0005, 0010), which locks the row, creating it if
//!   needed, and decides the requests in arrival order.
//!
//! Either way the row comes back, with its new version, for the next
//! round. Every update of the row takes a new version (a trigger), whoever
//! makes it. The row lock serialises the writes of all instances for that
//! subject, and a state is written only over the row it was computed from,
//! so counts and bans are exact across instances; different subjects never
//! wait on each other. Every 4096 decisions an instance deletes rows whose
//! day has passed and that hold no ban.
//!
//! A round commits without waiting for the WAL flush (0010): the rounds of
//! one subject run one after another, so their latency is its throughput.
//! Other instances see a round at once, as before; a crash of the database
//! itself can lose the counts of its last moments.
//!
//! The rule is written twice, in Rust (`rule.rs`, the in-memory limiter's
//! and this one's when it knows the row) and in SQL (the function's);
//! `tests/api/limits.rs` holds them to the same decisions on random
//! sequences decided by two instances in turn, so that both run.

use super::rule::{Entry, Window};
use super::{BanPolicy, Decision, Subject, Verdict, DAY, SWEEP_EVERY};
use crate::error::ApiError;
use crate::keys::Limits;
use crate::lock;
use crate::rounds::Rounds;
use crate::store::conn::args;
use crate::store::Db;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Rate-limit state in the database, shared by every instance on it: each
/// round of decisions is written over the subject's row only if the row is
/// still the one they were decided from (else decided again under its lock),
/// in one statement, so counts and bans are exact across instances.
///
/// Every request of a subject needs that one row, so its transactions run one
/// after the other. Within an instance they are batched: while a subject's
/// transaction is in flight, its new requests queue, and the next transaction
/// decides all of them in arrival order under one lock (measured with one key
/// on a local PostgreSQL: reads from 1 500 to 5 600-7 300 req/s).
#[derive(Debug)]
pub struct SharedLimiter {
    shared: Arc<Shared>,
    /// The rounds of each subject (its name the key).
    rounds: Arc<Rounds<String, (Limits, i64), Decision>>,
}

#[derive(Debug)]
struct Shared {
    db: Db,
    ban: BanPolicy,
    decisions: AtomicU32,
    /// Each subject's row as this instance's last round left it, with its
    /// version.
    known: Mutex<HashMap<String, (Entry, i64)>>,
    /// Rounds decided by this instance, and by the database.
    here: AtomicU64,
    there: AtomicU64,
}

impl SharedLimiter {
    pub fn new(db: Db, ban: BanPolicy) -> Self {
        SharedLimiter {
            shared: Arc::new(Shared {
                db,
                ban,
                decisions: AtomicU32::new(0),
                known: Mutex::default(),
                here: AtomicU64::new(0),
                there: AtomicU64::new(0),
            }),
            rounds: Rounds::new(),
        }
    }

    /// Counts one request of `subject` at `now` against `limits`, and
    /// decides, in the subject's next round. Runs on an actix (or tokio
    /// `LocalSet`) runtime, where the rounds' task is spawned.
    pub async fn check(
        &self,
        subject: Subject,
        limits: Limits,
        now: i64,
    ) -> Result<Decision, ApiError> {
        let shared = &self.shared;
        if shared.decisions.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep(now).await?;
        }
        let round = {
            let shared = shared.clone();
            async move |name: &String, requests| shared.round(name, requests).await
        };
        match self
            .rounds
            .ask(subject.to_string(), (limits, now), round)
            .await
        {
            // Whether a round's count was stored matters to no one: the
            // request was not served.
            Err(ApiError::Indeterminate(e)) => Err(ApiError::unavailable(e.to_string())),
            decided => decided,
        }
    }

    /// How many rounds this instance decided itself, and how many the
    /// database decided (the row was another instance's latest, or unknown).
    pub fn rounds(&self) -> (u64, u64) {
        (
            self.shared.here.load(Ordering::Relaxed),
            self.shared.there.load(Ordering::Relaxed),
        )
    }

    /// Drops the rows of subjects whose windows have passed and that are not
    /// banned, and this instance's copies of them.
    pub async fn sweep(&self, now: i64) -> Result<(), ApiError> {
        lock(&self.shared.known).retain(|_, (entry, _)| !entry.is_idle(now));
        self.shared
            .db
            .write(async move |c| {
                c.execute(
                    "DELETE FROM rate_limits WHERE day_start <= $1 \
                     AND (banned_until IS NULL OR banned_until <= $2)",
                    args![now - DAY, now],
                )
                .await
            })
            .await?;
        Ok(())
    }
}

impl Shared {
    /// One round, one statement: `rate_limit_round_cached` (migration 0011).
    /// When this instance knows the subject's row (its last round here left
    /// it), it decides the round itself by the rule and sends the state it
    /// computed with the version it started from; the function writes it if
    /// the row is still at that version. Otherwise the function decides the
    /// round under the row lock, as before. Either way the row as the round
    /// left it comes back and is kept for the next round.
    async fn round(
        &self,
        name: &str,
        requests: Vec<(Limits, i64)>,
    ) -> Result<Vec<Decision>, ApiError> {
        let ban = self.ban;
        // Taken out while the round runs: a failed round leaves the row
        // unknown, to be decided in the database next time. Deciding here
        // moves the copy on to the state the round leaves, which is sent
        // with the version it started from.
        let mut known = lock(&self.known).remove(name);
        let decided_here: Option<Vec<Decision>> = known.as_mut().map(|(entry, _)| {
            requests
                .iter()
                .map(|&(limits, now)| entry.decide(limits, now, ban))
                .collect()
        });
        let per_minute: Vec<i64> = requests
            .iter()
            .map(|(l, _)| i64::from(l.per_minute))
            .collect();
        let per_day: Vec<i64> = requests.iter().map(|(l, _)| i64::from(l.per_day)).collect();
        let now: Vec<i64> = requests.iter().map(|(_, now)| *now).collect();
        let subject = name.to_string();
        let rows: Vec<RoundRow> = self
            .db
            .statement(async move |c| {
                let (entry, version) = known.unzip();
                let entry = entry.unwrap_or_default();
                Ok(sqlx::query_as(
                    "SELECT verdict, retry_after, limit_, remaining, reset, version_, \
                     minute_start_, minute_count_, day_start_, day_count_, \
                     while_limited_, banned_until_ \
                     FROM rate_limit_round_cached($1, $2, $3, $4, $5, $6, $7, $8, \
                     $9, $10, $11, $12, $13)",
                )
                .bind(&subject)
                .bind(version)
                .bind(entry.minute.start)
                .bind(count_column(entry.minute.count)?)
                .bind(entry.day.start)
                .bind(count_column(entry.day.count)?)
                .bind(count_column(entry.while_limited)?)
                .bind(entry.banned_until)
                .bind(&per_minute)
                .bind(&per_day)
                .bind(&now)
                .bind(i64::from(ban.after))
                .bind(ban.seconds)
                .fetch_all(c.postgres("the shared limiter")?)
                .await?)
            })
            .await?;
        let Some((last, decided_there)) = rows.split_last() else {
            return Err(internal("returned no row"));
        };
        let row = last.row()?;
        let decisions = if decided_there.is_empty() {
            self.here.fetch_add(1, Ordering::Relaxed);
            decided_here.ok_or_else(|| internal("did not decide a round of an unknown row"))?
        } else {
            self.there.fetch_add(1, Ordering::Relaxed);
            decided_there
                .iter()
                .map(RoundRow::decision)
                .collect::<Result<Vec<_>, _>>()?
        };
        if decisions.len() != requests.len() {
            return Err(internal(format!(
                "gave {} decisions for a round of {} requests",
                decisions.len(),
                requests.len()
            )));
        }
        lock(&self.known).insert(name.to_string(), row);
        Ok(decisions)
    }
}

/// A count as its `INTEGER` column holds it.
fn count_column(count: u32) -> Result<i32, ApiError> {
    i32::try_from(count).map_err(|e| ApiError::Internal(Box::new(e)))
}

/// A count as the function returns it.
fn count(n: Option<impl TryInto<u32>>) -> Result<u32, ApiError> {
    n.and_then(|n| n.try_into().ok())
        .ok_or_else(|| internal("returned a missing or negative count"))
}

/// What `rate_limit_round_cached` returned that the limiter cannot use.
fn internal(what: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("rate_limit_round_cached {what}").into())
}

/// A row `rate_limit_round_cached` returns: a decision, or (the last) the
/// subject's row as the round left it.
struct RoundRow {
    verdict: Option<i32>,
    retry_after: Option<i64>,
    limit_: Option<i64>,
    remaining: Option<i64>,
    reset: Option<i64>,
    version_: Option<i64>,
    minute_start_: Option<i64>,
    minute_count_: Option<i32>,
    day_start_: Option<i64>,
    day_count_: Option<i32>,
    while_limited_: Option<i32>,
    banned_until_: Option<i64>,
}

impl sqlx::FromRow<'_, sqlx::postgres::PgRow> for RoundRow {
    fn from_row(row: &sqlx::postgres::PgRow) -> Result<Self, sqlx::Error> {
        use sqlx::Row as _;
        Ok(RoundRow {
            verdict: row.try_get("verdict")?,
            retry_after: row.try_get("retry_after")?,
            limit_: row.try_get("limit_")?,
            remaining: row.try_get("remaining")?,
            reset: row.try_get("reset")?,
            version_: row.try_get("version_")?,
            minute_start_: row.try_get("minute_start_")?,
            minute_count_: row.try_get("minute_count_")?,
            day_start_: row.try_get("day_start_")?,
            day_count_: row.try_get("day_count_")?,
            while_limited_: row.try_get("while_limited_")?,
            banned_until_: row.try_get("banned_until_")?,
        })
    }
}

impl RoundRow {
    /// The decision the row carries.
    fn decision(&self) -> Result<Decision, ApiError> {
        let (Some(verdict), Some(retry_after), Some(reset)) =
            (self.verdict, self.retry_after, self.reset)
        else {
            return Err(internal("returned a partial decision"));
        };
        let verdict = match verdict {
            0 => Verdict::Allowed,
            1 => Verdict::Limited { retry_after },
            2 => Verdict::Banned { retry_after },
            other => return Err(internal(format_args!("answered verdict {other}"))),
        };
        Ok(Decision {
            verdict,
            limit: count(self.limit_)?,
            remaining: count(self.remaining)?,
            reset,
        })
    }

    /// The subject's row and its version.
    fn row(&self) -> Result<(Entry, i64), ApiError> {
        let (Some(version), Some(minute_start), Some(day_start)) =
            (self.version_, self.minute_start_, self.day_start_)
        else {
            return Err(internal("returned no row"));
        };
        Ok((
            Entry {
                minute: Window {
                    start: minute_start,
                    count: count(self.minute_count_)?,
                },
                day: Window {
                    start: day_start,
                    count: count(self.day_count_)?,
                },
                while_limited: count(self.while_limited_)?,
                banned_until: self.banned_until_,
            },
            version,
        ))
    }
}
