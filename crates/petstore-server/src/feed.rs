//! The live feed behind `GET /v1/store/events`: every change committed
//! through any instance, to every subscriber of this one, in commit order,
//! once.
//!
//! The events table is the only source ([`crate::store::events`]): one task
//! per instance (the hub) reads the rows after the last id it has seen and
//! hands each to every subscriber whose filter it matches. It reads when
//! woken: on SQLite by the writes of this process; on PostgreSQL, where a
//! write's events are pending until sequenced (migration 0008), after this
//! instance sequenced them (one call of `sequence_events` after any number
//! of this process's commits, outside them, and once a second for those an
//! instance that died left pending) and by `LISTEN petstore_events` (the
//! `NOTIFY` of another instance's sequencing); and in any case once a
//! second, which is also how it carries on after the database was away.
//!
//! A new subscriber starts after every event committed before it asked:
//! on PostgreSQL it first sequences what is committed and still pending
//! ([`Feed::sequence_committed`]), so that no write its client has seen
//! answered comes to it later with a higher id.
//!
//! A subscriber is a bounded queue of shared events. One that falls
//! [`QUEUE`] events behind (its client reads too slowly) is dropped: its
//! stream ends after what it holds, and its client resumes by id. A
//! subscriber that resumes (`Last-Event-ID`) first reads the table from
//! that id up to where the hub is, then joins the hub, skipping what it has
//! already sent: nothing missed, nothing twice, whichever instance the
//! earlier events came through.

use crate::error::ApiError;
use crate::lock;
use crate::store::events::{event_meta, expired};
use crate::store::{Backend, Db};
use futures_util::Stream;
use petstore_api::models::{StoreEvent, StoreEventType};
use petstore_api::runtime;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::mpsc;

/// Events a subscriber may fall behind before it is dropped.
pub const QUEUE: usize = 1024;

/// Events between a subscriber's reader and its response.
const HANDOFF: usize = 8;

/// Rows read per query, by the hub and by a resuming subscriber.
const BATCH: u32 = 256;

/// How often the hub reads without being woken.
const FALLBACK_POLL: Duration = Duration::from_secs(1);

/// While busy, the least time between two calls of `sequence_events` by
/// one instance. Each call is a transaction of its own (the lock, the final
/// ids, a `NOTIFY`, a commit and its flush): under a steady stream of
/// commits, calling it after every one sequenced a few events per call, and
/// its commits competed with the writes'. Paced, one call takes every
/// commit of the interval, and an event reaches subscribers up to this much
/// later.
const SEQUENCE_PACE: Duration = Duration::from_millis(10);

/// Events one call must have sequenced for the next to wait out
/// [`SEQUENCE_PACE`]: fewer, and the instance is not busy; the next commit
/// is sequenced at once. (A new subscriber does not rely on this pace: it
/// sequences what is pending itself, [`Feed::subscribe`].)
const BUSY_SEQUENCING: i64 = 8;

/// How often old events are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(600);

/// The feed of one instance. Cheap to clone.
/// How long a client waits before it reconnects when its stream ends
/// (the server stopping, or the client reading too slowly): the `retry:`
/// the stream's last lines say.
pub const RECONNECT_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

#[derive(Clone)]
pub struct Feed {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed")
            .field("subscribers", &self.subscribers())
            .finish_non_exhaustive()
    }
}

struct Inner {
    db: Db,
    state: Mutex<State>,
    next_id: AtomicU64,
    /// Subscribers dropped for falling behind (a counter, for tests and
    /// metrics).
    dropped: AtomicU64,
    /// The last id handed out, for those woken by new events (webhooks).
    newest: tokio::sync::watch::Sender<i64>,
    /// What this instance's `NOTIFY`s carry, so that its listener skips
    /// them: its hub is woken by the sequencing itself.
    me: String,
}

#[derive(Default)]
struct State {
    /// The last id handed to subscribers; `None` until the hub has read
    /// where the table ends.
    position: Option<i64>,
    subscribers: HashMap<u64, Subscriber>,
    /// Open streams per API key id.
    open: HashMap<i64, usize>,
    closed: bool,
}

struct Subscriber {
    queue: mpsc::Sender<Arc<StoreEvent>>,
    filter: Filter,
}

/// Which events a subscriber wants.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these types; all when `None`.
    pub types: Option<Vec<StoreEventType>>,
    /// Only events about this pet.
    pub pet_id: Option<i64>,
}

impl Filter {
    fn matches(&self, event: &StoreEvent) -> bool {
        let (_, kind, pet) = event_meta(event);
        self.types.as_ref().is_none_or(|t| t.contains(&kind))
            && self.pet_id.is_none_or(|p| p == pet)
    }
}

/// Who opens a stream, for the per-key limit: the key's id and how many
/// streams it may hold.
#[derive(Debug, Clone, Copy)]
pub struct Holder {
    pub key_id: i64,
    pub max_streams: usize,
}

impl Feed {
    /// The feed of `db`, its hub started on the current runtime (and on
    /// PostgreSQL its listener). Call once per instance.
    pub fn start(db: Db) -> Feed {
        // No request waits on the feed's reads: their failures do not open
        // the circuit breaker (requests do, when the database is away).
        let db = db.for_background();
        let feed = Feed {
            inner: Arc::new(Inner {
                db,
                state: Mutex::default(),
                next_id: AtomicU64::new(0),
                dropped: AtomicU64::new(0),
                newest: tokio::sync::watch::Sender::new(0),
                me: format!("{}@{:?}", std::process::id(), std::time::SystemTime::now()),
            }),
        };
        // The hub and the listener run on a thread of their own: neither the
        // runtime that started the server (a test's, blocked or ended) nor a
        // worker's holds them up. They hold the feed weakly and end when the
        // server drops it.
        let weak = Arc::downgrade(&feed.inner);
        let db = feed.inner.db.clone();
        let me = feed.inner.me.clone();
        let started = std::thread::Builder::new()
            .name("event-feed".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        tracing::error!(error = %e, "the event feed cannot start: streams get no events");
                        return;
                    }
                };
                tokio::task::LocalSet::new().block_on(&runtime, async move {
                    db.start_worker();
                    if db.backend() == Backend::Postgres {
                        tokio::join!(
                            hub(weak.clone(), db.clone()),
                            listen(weak.clone(), db.clone(), &me),
                            sequence(weak, db, &me)
                        );
                    } else {
                        hub(weak, db).await;
                    }
                });
            });
        if let Err(e) = started {
            tracing::error!(error = %e, "the event feed's thread cannot start: streams get no events");
        }
        feed
    }

    /// Ends every stream (their clients see the response end) and refuses
    /// new ones: the server is shutting down.
    pub fn close(&self) {
        let mut state = lock(&self.inner.state);
        state.closed = true;
        state.subscribers.clear();
    }

    /// Streams open on this instance.
    pub fn subscribers(&self) -> usize {
        lock(&self.inner.state).subscribers.len()
    }

    /// The last event id handed out, changing as new events are: what the
    /// webhooks dispatcher waits on. It ends (`changed` fails) with the
    /// feed.
    pub fn newest(&self) -> tokio::sync::watch::Receiver<i64> {
        self.inner.newest.subscribe()
    }

    /// Subscribers dropped since start for falling behind.
    pub fn dropped(&self) -> u64 {
        self.inner.dropped.load(Ordering::Relaxed)
    }

    /// A stream of the events after `after` (or after the last one
    /// committed before this call, for none: a client that saw a write's
    /// answer and then subscribes does not get that write's events) that
    /// `filter` lets through, for `holder`. 410
    /// when `after` is older than the events kept; 429 when the holder has
    /// all its streams open; 503 while the hub has not yet read the table,
    /// or the database is away.
    pub async fn subscribe(
        &self,
        after: Option<i64>,
        filter: Filter,
        holder: Option<Holder>,
    ) -> Result<impl Stream<Item = runtime::Event<StoreEvent>> + Send + 'static, ApiError> {
        let cursor = match after {
            Some(after) => {
                let horizon = self.inner.db.event_horizon().await?;
                if after < horizon.pruned_through {
                    return Err(expired(after, horizon));
                }
                after
            }
            // From now: after every event committed before this request,
            // those the hub has not handed out yet among them (it lags
            // commits by a wake-up; a subscriber must not see them). On
            // PostgreSQL such an event may not even have its final id yet
            // (the sequencer runs after the commit): sequenced here first,
            // or it would come later with an id above the one read.
            None => {
                self.sequence_committed().await?;
                self.inner.db.event_horizon().await?.last
            }
        };
        let lease = self.lease(holder)?;
        let unavailable = || ApiError::away(crate::error::RETRY_AFTER_SECONDS);
        let position = self.position().await?;
        // Nothing to read from the table first: joined at once.
        let (queue, replay_to) = if cursor >= position {
            let (queue, position) = self.join(&lease, &filter).ok_or_else(unavailable)?;
            (Some(queue), position)
        } else {
            (None, position)
        };
        let reader = Reader {
            feed: self.clone(),
            lease,
            filter,
            cursor,
            replay_to,
            pending: VecDeque::new(),
            queue,
        };
        // The reader runs on this worker thread (SQLite reads are the
        // thread's own); the response takes its events through a short
        // queue, and dropping the response (the client went away) ends it.
        let (events, taken) = mpsc::channel(HANDOFF);
        tokio::task::spawn_local(reader.run(events));
        Ok(futures_util::stream::unfold(
            taken,
            |mut taken| async move { taken.recv().await.map(|event| (event, taken)) },
        ))
    }

    /// Gives every event committed so far its final id, waking the hub if
    /// there were any: afterwards the table's highest id is at or past
    /// every event committed before the call. On PostgreSQL the sequencer
    /// does so a moment after each commit; whoever starts "from now" (a
    /// new stream, a new webhook endpoint) calls this first, or a write
    /// its client has seen answered could come after it. Nothing to do on
    /// SQLite.
    pub async fn sequence_committed(&self) -> Result<(), ApiError> {
        if self.inner.db.sequence_events(&self.inner.me).await? > 0 {
            self.inner.db.commits().notify_one();
        }
        Ok(())
    }

    /// Where the hub is: the last id handed out, read from the table when
    /// the hub has not read it yet (just after start).
    async fn position(&self) -> Result<i64, ApiError> {
        if let Some(position) = lock(&self.inner.state).position {
            return Ok(position);
        }
        let last = self.inner.db.event_horizon().await?.last;
        Ok(*lock(&self.inner.state).position.get_or_insert(last))
    }

    /// Counts a stream against its holder's limit.
    fn lease(&self, holder: Option<Holder>) -> Result<Lease, ApiError> {
        let mut state = lock(&self.inner.state);
        if state.closed {
            return Err(ApiError::away(crate::error::RETRY_AFTER_SECONDS));
        }
        if let Some(holder) = holder {
            let open = state.open.entry(holder.key_id).or_default();
            if *open >= holder.max_streams {
                return Err(ApiError::TooMany {
                    code: "too_many_streams",
                    message: format!(
                        "this key holds {open} open event streams, its plan's most; \
                         close one first"
                    ),
                    retry_after: 5,
                });
            }
            *open += 1;
        }
        Ok(Lease {
            feed: self.clone(),
            id: self.inner.next_id.fetch_add(1, Ordering::Relaxed),
            key_id: holder.map(|h| h.key_id),
        })
    }

    /// Joins the hub: the queue, and the id the hub has handed out up to.
    fn join(
        &self,
        lease: &Lease,
        filter: &Filter,
    ) -> Option<(mpsc::Receiver<Arc<StoreEvent>>, i64)> {
        let mut state = lock(&self.inner.state);
        if state.closed {
            return None;
        }
        let position = state.position?;
        let (queue, receiver) = mpsc::channel(QUEUE);
        state.subscribers.insert(
            lease.id,
            Subscriber {
                queue,
                filter: filter.clone(),
            },
        );
        Some((receiver, position))
    }

    /// Hands every event after the hub's position to the subscribers.
    async fn catch_up(&self) -> Result<(), ApiError> {
        let mut position = self.position().await?;
        loop {
            let batch = self.inner.db.events_after(position, BATCH).await?;
            let Some(last) = batch.last().map(|e| event_meta(e).0) else {
                return Ok(());
            };
            let full = batch.len() == BATCH as usize;
            self.hand_out(batch, last);
            position = last;
            if !full {
                return Ok(());
            }
        }
    }

    /// Gives each event to the subscribers that want it, dropping those
    /// that cannot take it, and moves the position past them.
    fn hand_out(&self, batch: Vec<StoreEvent>, last: i64) {
        let mut state = lock(&self.inner.state);
        let mut behind = Vec::new();
        for event in batch {
            let event = Arc::new(event);
            for (id, subscriber) in &state.subscribers {
                if subscriber.filter.matches(&event)
                    && subscriber.queue.try_send(event.clone()).is_err()
                {
                    behind.push(*id);
                }
            }
        }
        for id in behind {
            if state.subscribers.remove(&id).is_some() {
                self.inner.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::info!(
                    subscriber = id,
                    "an event stream fell {QUEUE} events behind and was closed; its client resumes by id"
                );
            }
        }
        state.position = Some(last);
        self.inner.newest.send_replace(last);
    }
}

/// The hub: reads what is new whenever woken (a commit of this process,
/// or the listener), or every second; prunes old events now and then.
/// Ends once the feed is closed or dropped.
async fn hub(feed: Weak<Inner>, db: Db) {
    let mut last_prune = std::time::Instant::now();
    loop {
        let Some(inner) = feed.upgrade() else {
            return;
        };
        let feed = Feed { inner };
        if lock(&feed.inner.state).closed {
            return;
        }
        if let Err(e) = feed.catch_up().await {
            tracing::debug!(error = %e, "the event feed cannot read the database now");
        }
        drop(feed);
        if last_prune.elapsed() >= PRUNE_EVERY {
            last_prune = std::time::Instant::now();
            match db.prune_events(chrono::Utc::now()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(pruned = n, "old events pruned"),
                Err(e) => tracing::warn!(error = %e, "old events could not be pruned"),
            }
        }
        let _ = tokio::time::timeout(FALLBACK_POLL, db.commits().notified()).await;
    }
}

/// PostgreSQL: wakes the hub on every other instance's commits, for as long as
/// the feed lives.
async fn listen(feed: Weak<Inner>, db: Db, me: &str) {
    let Some(pool) = db.postgres().cloned() else {
        return;
    };
    let alive = || alive(&feed);
    while alive() {
        if let Err(e) = listen_once(&pool, &db, me, &alive).await {
            tracing::debug!(error = %e, "not listening for events: the feed polls until it can again");
            tokio::time::sleep(FALLBACK_POLL).await;
        }
    }
}

/// PostgreSQL: gives the events of this process's commits their final ids,
/// in one call of `sequence_events` after any number of them (while busy,
/// at most one call per [`SEQUENCE_PACE`]), and once a second in any case (an instance
/// that died after a commit left its events pending), for as long as the
/// feed lives. The call's `NOTIFY` carries `me`
/// and wakes the other instances; this one's hub is woken here.
async fn sequence(feed: Weak<Inner>, db: Db, me: &str) {
    let mut paced_until = None;
    while alive(&feed) {
        let _ = tokio::time::timeout(FALLBACK_POLL, db.to_sequence().notified()).await;
        if let Some(until) = paced_until {
            tokio::time::sleep_until(until).await;
        }
        let started = tokio::time::Instant::now();
        let sequenced = db.sequence_events(me).await;
        paced_until = None;
        match sequenced {
            Ok(0) => {}
            Ok(n) => {
                db.commits().notify_one();
                if n >= BUSY_SEQUENCING {
                    paced_until = Some(started + SEQUENCE_PACE);
                }
            }
            // Tried again within a second.
            Err(e) => tracing::debug!(error = %e, "events not sequenced now"),
        }
    }
}

/// Whether the feed is still there and open.
fn alive(feed: &Weak<Inner>) -> bool {
    feed.upgrade().is_some_and(|f| !lock(&f.state).closed)
}

/// Listens until the connection fails or the feed is gone; wakes the hub
/// on every other instance's `NOTIFY` (this one's carry `me`).
async fn listen_once(
    pool: &sqlx::PgPool,
    db: &Db,
    me: &str,
    alive: &impl Fn() -> bool,
) -> Result<(), sqlx::Error> {
    let mut listening = Listening {
        listener: Some(sqlx::postgres::PgListener::connect_with(pool).await?),
        _held: db.listening(),
    };
    let Some(listener) = listening.listener.as_mut() else {
        return Ok(());
    };
    listener.listen("petstore_events").await?;
    // Anything committed while not listening is read now.
    db.commits().notify_one();
    while alive() {
        if let Ok(notification) = tokio::time::timeout(FALLBACK_POLL, listener.recv()).await {
            if notification?.payload() != me {
                db.commits().notify_one();
            }
        }
    }
    Ok(())
}

/// The feed's listener, and its pool connection counted apart in the
/// metrics while it lives. Its drop never panics: sqlx hands a dropped
/// listener's connection back on a spawned task, which needs a Tokio
/// runtime; when the runtime itself is going away (the process ending, a
/// test's runtime dropped), the connection is let go instead.
struct Listening {
    listener: Option<sqlx::postgres::PgListener>,
    _held: crate::store::ListenerHeld,
}

impl Drop for Listening {
    fn drop(&mut self) {
        if tokio::runtime::Handle::try_current().is_err() {
            std::mem::forget(self.listener.take());
        }
    }
}

/// A stream's place in the feed; freed when the stream is dropped (its
/// client went away, or the response ended).
struct Lease {
    feed: Feed,
    id: u64,
    key_id: Option<i64>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut state = lock(&self.feed.inner.state);
        state.subscribers.remove(&self.id);
        if let Some(key) = self.key_id {
            if let Some(open) = state.open.get_mut(&key) {
                *open -= 1;
                if *open == 0 {
                    state.open.remove(&key);
                }
            }
        }
    }
}

/// One subscriber's side: the table up to the hub's position, then the
/// hub's queue.
struct Reader {
    feed: Feed,
    lease: Lease,
    filter: Filter,
    /// The last id sent (or skipped): nothing at or below it is sent again.
    cursor: i64,
    /// Read the table up to this id before taking from the queue.
    replay_to: i64,
    pending: VecDeque<StoreEvent>,
    queue: Option<mpsc::Receiver<Arc<StoreEvent>>>,
}

impl Reader {
    /// Sends the subscriber's events to its response until either ends.
    async fn run(mut self, response: mpsc::Sender<runtime::Event<StoreEvent>>) {
        loop {
            let event = tokio::select! {
                () = response.closed() => return,
                event = self.next() => event,
            };
            let Some(event) = event else {
                return;
            };
            if response.send(as_sse(event)).await.is_err() {
                return;
            }
        }
    }

    /// The next event for the subscriber; `None` when its stream ends.
    async fn next(&mut self) -> Option<StoreEvent> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(event);
            }
            if self.cursor < self.replay_to {
                // Resuming: the table, a batch at a time as the client reads.
                let batch = match self.feed.inner.db.events_after(self.cursor, BATCH).await {
                    Ok(batch) => batch,
                    Err(e) => {
                        // The database is away: try again, the stream stays open.
                        tracing::debug!(error = %e, "a resuming stream waits for the database");
                        tokio::time::sleep(FALLBACK_POLL).await;
                        continue;
                    }
                };
                if batch.is_empty() {
                    self.cursor = self.replay_to;
                }
                for event in batch {
                    let id = event_meta(&event).0;
                    if id > self.replay_to {
                        break;
                    }
                    self.cursor = id;
                    if self.filter.matches(&event) {
                        self.pending.push_back(event);
                    }
                }
                continue;
            }
            match &mut self.queue {
                None => {
                    // Caught up with the table: join the hub, and read what
                    // it handed out meanwhile from the table.
                    let (queue, position) = self.feed.join(&self.lease, &self.filter)?;
                    self.queue = Some(queue);
                    self.replay_to = position;
                }
                Some(queue) => {
                    let event = queue.recv().await?;
                    let id = event_meta(&event).0;
                    if id > self.cursor {
                        self.cursor = id;
                        return Some(Arc::unwrap_or_clone(event));
                    }
                }
            }
        }
    }
}

/// An event as the stream sends it: its id as the SSE id, its type as the
/// SSE event.
fn as_sse(event: StoreEvent) -> runtime::Event<StoreEvent> {
    let (id, kind, _) = event_meta(&event);
    runtime::Event::new(event)
        .with_id(id.to_string())
        .with_event(kind.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_let_through_what_they_name() {
        let event = StoreEvent::InventoryEvent(petstore_api::models::InventoryEvent {
            id: 1,
            type_: StoreEventType::InventoryChanged,
            pet_id: 7,
            stock: 2,
            status: petstore_api::models::PetStatus::Available,
            occurred_at: chrono::Utc::now(),
        });
        assert!(Filter::default().matches(&event));
        let only_orders = Filter {
            types: Some(vec![StoreEventType::OrderPlaced]),
            pet_id: None,
        };
        assert!(!only_orders.matches(&event));
        let pet = |pet_id| Filter {
            types: None,
            pet_id: Some(pet_id),
        };
        assert!(pet(7).matches(&event));
        assert!(!pet(8).matches(&event));
    }
}
