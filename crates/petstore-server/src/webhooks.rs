//! Webhook deliveries: the store's events pushed to the URLs its callers
//! subscribed (`/v1/webhooks`), as Standard Webhooks say, through the
//! generated sender (`petstore_api::webhooks::client`).
//!
//! One dispatcher per instance, on a thread of its own, does three things
//! in turn, whenever the event feed hands out new events or a delivery
//! falls due (and once a [`POLL`] in any case, for what other instances
//! queued or left behind; idle, it reads when the next delivery is due and
//! writes nothing):
//! 1. queues the new events of every endpoint that wants them
//!    ([`Db::queue_deliveries`]: outbox rows and cursors in one
//!    transaction);
//! 2. claims the deliveries due ([`Db::claim_deliveries`]), each leased for
//!    longer than an attempt may take, so that one instance makes each
//!    attempt;
//! 3. makes each attempt as a task of its own, at most [`IN_FLIGHT`] at
//!    once, so that a slow or dead receiver holds up no other: a `POST` of
//!    the event's JSON, signed with the endpoint's secret, `webhook-id` the
//!    event's id. A 2xx within [`ATTEMPT_TIMEOUT`] is a success; anything
//!    else is retried on the schedule ([`Schedule`]), and after its last
//!    step the endpoint is disabled ([`Db::record_attempt`]).
//!
//! When the server stops, the dispatcher claims nothing more; the attempts
//! in flight finish within the grace period, or are cut off at its end and
//! handed back to the outbox, due at once ([`drain`]).
//!
//! No way in from outside: a URL must be `http` or `https`, and its host
//! must not lead to a loopback, private, link-local, unique-local or
//! otherwise special address ([`forbidden`]). An endpoint is refused at
//! creation only for what can never be right ([`check_url`]: an address
//! written in the URL, credentials, another scheme); a name is resolved
//! when each attempt connects (the sender's resolver, [`Guarded`]), so
//! that a name rebound to such an address is refused then, and one that
//! does not resolve at creation is taken. Redirects are not followed, and
//! at most [`ANSWER_LIMIT`] bytes of an answer are read.
//! `--webhooks-allow-private` lifts the address rule, for tests and for
//! receivers on the same network.

use crate::feed::Feed;
use crate::shutdown::Shutdown;
use crate::store::webhooks::{Attempt, Claimed, Then};
use crate::store::Db;
use chrono::{DateTime, Utc};
use petstore_api::models::{StoreEvent, WebhookDeliveryResult};
use petstore_api::runtime::{ClientError, WebhookSecret};
use petstore_api::webhooks::client::Client;
use petstore_api::webhooks::operations::{
    DeliverStoreEventWebhookRequest, DeliverStoreEventWebhookResponse,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// How long a receiver has to answer an attempt.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a receiver's answer read.
pub const ANSWER_LIMIT: usize = 4096;

/// Attempts in flight at once, per instance.
const IN_FLIGHT: usize = 64;

/// Deliveries claimed per round.
const CLAIM: u32 = 64;

/// Events queued per round.
const QUEUE_BATCH: u32 = 256;

/// How long a claimed delivery is held for its attempt: past it (the
/// instance died mid-attempt), another round may take it again.
const LEASE: Duration = Duration::from_secs(60);

/// How often attempts older than the store keeps are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(600);

/// The longest the dispatcher sleeps without being woken.
const POLL: Duration = Duration::from_secs(1);

/// When failed deliveries are tried again: the waits after the first
/// attempt, the second, and so on; after the last, the endpoint is
/// disabled. Each wait is stretched by up to a tenth at random, so that a
/// receiver that was down is not met by every retry at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule(pub Vec<Duration>);

impl Default for Schedule {
    /// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: Standard Webhooks'
    /// example schedule.
    fn default() -> Self {
        let m = 60;
        let h = 60 * m;
        Schedule(
            [5, 5 * m, 30 * m, 2 * h, 5 * h, 10 * h, 10 * h]
                .into_iter()
                .map(Duration::from_secs)
                .collect(),
        )
    }
}

impl std::str::FromStr for Schedule {
    type Err = String;

    /// `1s,1s,2s`: comma-separated waits, each a number and a unit (`ms`,
    /// `s`, `m`, `h`). Empty means no retry.
    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(Schedule(Vec::new()));
        }
        text.split(',')
            .map(|step| {
                let step = step.trim();
                let split = step
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(step.len());
                let (number, unit) = step.split_at(split);
                let n: u64 = number
                    .parse()
                    .map_err(|_| format!("`{step}` is not a wait such as `5s` or `30m`"))?;
                let unit = match unit {
                    "ms" => 1,
                    "s" => 1_000,
                    "m" => 60_000,
                    "h" => 3_600_000,
                    _ => return Err(format!("`{step}`: the unit is one of ms, s, m, h")),
                };
                Ok(Duration::from_millis(n.saturating_mul(unit)))
            })
            .collect::<Result<Vec<_>, String>>()
            .map(Schedule)
    }
}

impl Schedule {
    /// What follows a failed attempt, `attempts` of them made (this one
    /// included), at `now`.
    fn then(&self, attempts: u32, now: DateTime<Utc>) -> Then {
        match self.0.get(attempts.saturating_sub(1) as usize) {
            None => Then::GiveUp,
            Some(wait) => {
                let jitter = wait.mul_f64(random_fraction() / 10.0);
                let wait =
                    chrono::Duration::from_std(*wait + jitter).unwrap_or(chrono::Duration::MAX);
                Then::RetryAt(now.checked_add_signed(wait).unwrap_or(now))
            }
        }
    }
}

/// A number in 0..1 from the OS's random source (no generator to seed).
fn random_fraction() -> f64 {
    let mut bytes = [0u8; 4];
    let _ = getrandom::fill(&mut bytes);
    f64::from(u32::from_le_bytes(bytes)) / f64::from(u32::MAX)
}

/// How this instance delivers.
#[derive(Debug, Clone, Default)]
pub struct WebhookSettings {
    pub schedule: Schedule,
    /// Receivers on loopback or private addresses are allowed.
    pub allow_private: bool,
}

/// Whether a webhook may not reach `ip`: loopback, private, link-local,
/// unique-local, unspecified, multicast, broadcast, shared (CGNAT),
/// documentation and benchmarking ranges, and IPv6 forms that carry such an
/// IPv4 address.
pub fn forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return forbidden_v4(v4);
            }
            let s = v6.segments();
            // NAT64 (64:ff9b::/96) carries an IPv4 address in its tail.
            if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
                let [a, b] = s[6].to_be_bytes();
                let [c, d] = s[7].to_be_bytes();
                return forbidden_v4(Ipv4Addr::new(a, b, c, d));
            }
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                // Unique local fc00::/7, link-local fe80::/10.
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                // Documentation 2001:db8::/32.
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || v6 == Ipv6Addr::from_bits(1)
        }
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        // 0.0.0.0/8, shared address space 100.64.0.0/10, IETF protocol
        // assignments 192.0.0.0/24, benchmarking 198.18.0.0/15, reserved
        // 240.0.0.0/4.
        || a == 0
        || (a == 100 && (b & 0xc0) == 64)
        || (a == 192 && b == 0 && ip.octets()[2] == 0)
        || (a == 198 && (b & 0xfe) == 18)
        || a >= 240
}

/// Why a URL can never be an endpoint's, for a 422: not `http(s)`, no
/// host, credentials in it, or (unless `allow_private`) a host written as
/// an address webhooks may not reach, or named `localhost`, which is one
/// (RFC 6761). A name is not resolved here: whether it leads somewhere
/// allowed is a fact of the moment of each delivery, checked then by the
/// sender's resolver ([`Guarded`]); a name that does not resolve now (DNS
/// down for a moment, a record published later) is taken.
pub fn check_url(url: &str, allow_private: bool) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("`url` is not a URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "`url` must be http or https, not `{}`",
            parsed.scheme()
        ));
    }
    let Some(host) = parsed.host_str() else {
        return Err("`url` has no host".into());
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("`url` must not carry credentials".into());
    }
    if allow_private {
        return Ok(());
    }
    let Some(address) = written_address(&parsed) else {
        let name = host.trim_end_matches('.').to_ascii_lowercase();
        if name == "localhost" || name.ends_with(".localhost") {
            return Err(format!(
                "`url`'s host `{name}` is a loopback name, which webhooks may not reach"
            ));
        }
        return Ok(());
    };
    if forbidden(address) {
        return Err(format!(
            "`url`'s host {address} is a loopback, private or otherwise internal address, \
             which webhooks may not reach"
        ));
    }
    Ok(())
}

/// The address a URL's host is written as, if it is one (no resolver
/// sees it, so the address rule is checked on it directly).
fn written_address(url: &reqwest::Url) -> Option<IpAddr> {
    url.host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

/// The sender's resolver: a name's addresses, without those webhooks may
/// not reach (an error when none is left). Checked as each attempt
/// connects, so that a name rebound after the endpoint was created is
/// refused.
#[derive(Debug, Clone, Copy)]
struct Guarded;

impl reqwest::dns::Resolve for Guarded {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| !forbidden(a.ip()))
                .collect();
            if addresses.is_empty() {
                return Err(format!(
                    "{host} resolves to no address webhooks may reach (loopback, private and \
                     internal addresses are refused)"
                )
                .into());
            }
            let addresses: reqwest::dns::Addrs = Box::new(addresses.into_iter());
            Ok(addresses)
        })
    }
}

/// The HTTP client every attempt shares: no redirects, no proxies from the
/// environment, the attempt's timeout, and (unless private addresses are
/// allowed) the guarded resolver.
fn http_client(allow_private: bool) -> reqwest::Result<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(ATTEMPT_TIMEOUT)
        .user_agent(concat!("petstore-webhooks/", env!("CARGO_PKG_VERSION")));
    if allow_private {
        builder.build()
    } else {
        builder.dns_resolver(Arc::new(Guarded)).build()
    }
}

/// The dispatcher of one instance, running on a thread of its own until
/// the server stops.
#[derive(Debug)]
pub struct Dispatcher {
    done: Option<tokio::sync::oneshot::Receiver<()>>,
    shutdown: Shutdown,
}

impl Dispatcher {
    /// Waits until the dispatcher has stopped: the attempts in flight at
    /// the stop finished, or handed back to the outbox at its deadline.
    pub async fn stopped(self) {
        let Some(done) = self.done else {
            return;
        };
        let deadline = self
            .shutdown
            .deadline()
            .unwrap_or_else(|| tokio::time::Instant::now() + self.shutdown.grace());
        // The hand-back is written after the deadline: a moment more.
        if tokio::time::timeout_at(deadline + Duration::from_secs(2), done)
            .await
            .is_err()
        {
            tracing::warn!("the webhook dispatcher did not stop in time");
        }
    }
}

/// Starts this instance's dispatcher on a thread of its own; it runs until
/// `shutdown` stops it.
pub fn start(
    db: Db,
    feed: &Feed,
    settings: WebhookSettings,
    metrics: Option<Arc<crate::metrics::Metrics>>,
    shutdown: Shutdown,
) -> Dispatcher {
    let db = db.for_background();
    let newest = feed.newest();
    let (finished, done) = tokio::sync::oneshot::channel();
    let stop = shutdown.clone();
    let started = std::thread::Builder::new()
        .name("webhooks".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    tracing::error!(error = %e, "webhooks cannot start: nothing is delivered");
                    return;
                }
            };
            tokio::task::LocalSet::new().block_on(&runtime, async move {
                db.start_worker();
                match http_client(settings.allow_private) {
                    Ok(http) => dispatch(db, newest, settings, http, metrics, stop).await,
                    Err(e) => {
                        tracing::error!(error = %e, "webhooks cannot start: nothing is delivered")
                    }
                }
            });
            let _ = finished.send(());
        });
    let done = match started {
        Ok(_) => Some(done),
        Err(e) => {
            tracing::error!(error = %e, "the webhooks thread cannot start: nothing is delivered");
            None
        }
    };
    Dispatcher { done, shutdown }
}

/// The attempts in flight: each delivery claimed for one, by id, with the
/// task making it.
type InFlight = Rc<RefCell<HashMap<i64, (Claimed, tokio::task::AbortHandle)>>>;

/// The dispatcher's loop (see the module's docs), until the stop; then
/// [`drain`].
async fn dispatch(
    db: Db,
    mut newest: tokio::sync::watch::Receiver<i64>,
    settings: WebhookSettings,
    http: reqwest::Client,
    metrics: Option<Arc<crate::metrics::Metrics>>,
    shutdown: Shutdown,
) {
    let settings = Arc::new(settings);
    let slots = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    // Woken when an attempt ends, for the retry it may have scheduled.
    let ended = Rc::new(tokio::sync::Notify::new());
    let in_flight: InFlight = Rc::default();
    let mut last_prune: Option<std::time::Instant> = None;
    // The newest event id the outbox was filled through (`None` at start:
    // what was committed while no instance ran is queued first).
    let mut queued_through: Option<i64> = None;
    let stopping = shutdown.stopping();
    let mut stopping = std::pin::pin!(stopping);
    let deadline = loop {
        let now = Utc::now();
        if last_prune.is_none_or(|at| at.elapsed() >= PRUNE_EVERY) {
            last_prune = Some(std::time::Instant::now());
            match db.prune_webhook_attempts(now).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(pruned = n, "old webhook attempts pruned"),
                Err(e) => tracing::debug!(error = %e, "old webhook attempts cannot be pruned now"),
            }
        }
        // Events newer than those queued: queued now. A write, made only
        // then: an idle dispatcher only reads.
        let newest_id = *newest.borrow_and_update();
        let mut more = false;
        if queued_through.is_none_or(|through| through < newest_id) {
            match db.queue_deliveries(now, QUEUE_BATCH).await {
                Ok(queued) if queued.more => more = true,
                Ok(_) => queued_through = Some(newest_id),
                Err(e) => tracing::debug!(error = %e, "webhook deliveries cannot be queued now"),
            }
        }
        // Deliveries due: claimed (a write) only when one is, and never
        // once stopping.
        let due = match db.next_delivery_due().await {
            Ok(due) => due,
            Err(e) => {
                tracing::debug!(error = %e, "webhook deliveries cannot be read now");
                None
            }
        };
        let free = u32::try_from(slots.available_permits()).unwrap_or(CLAIM);
        let lease = now + chrono::Duration::from_std(LEASE).unwrap_or_default();
        let claimed =
            if due.is_some_and(|due| due <= now) && free > 0 && shutdown.deadline().is_none() {
                match db.claim_deliveries(now, lease, free.min(CLAIM)).await {
                    Ok(claimed) => claimed,
                    Err(e) => {
                        tracing::debug!(error = %e, "webhook deliveries cannot be claimed now");
                        Vec::new()
                    }
                }
            } else {
                Vec::new()
            };
        let full = claimed.len() == CLAIM as usize;
        let claimed_any = !claimed.is_empty();
        for delivery in claimed {
            let Ok(slot) = slots.clone().acquire_owned().await else {
                return;
            };
            let (db, http, settings, ended, metrics, in_flight_now) = (
                db.clone(),
                http.clone(),
                settings.clone(),
                ended.clone(),
                metrics.clone(),
                in_flight.clone(),
            );
            let id = delivery.delivery_id;
            let held = delivery.clone();
            let task = tokio::task::spawn_local(async move {
                let started = std::time::Instant::now();
                let result = attempt(&db, &http, &settings, delivery).await;
                if let Some(metrics) = &metrics {
                    metrics.attempted(label(&result), started.elapsed());
                }
                in_flight_now.borrow_mut().remove(&id);
                drop(slot);
                ended.notify_one();
            });
            in_flight
                .borrow_mut()
                .insert(id, (held, task.abort_handle()));
        }
        if let Some(deadline) = shutdown.deadline() {
            break deadline;
        }
        if full || more {
            continue;
        }
        // Until new events, an attempt's end, the next due delivery, the
        // poll or the stop, whichever is first.
        // What was claimed is held: the next due is another.
        let due = if claimed_any {
            db.next_delivery_due().await.ok().flatten()
        } else {
            due
        };
        let now = Utc::now();
        let wait = match due {
            Some(due) if due > now => (due - now).to_std().unwrap_or_default().min(POLL),
            // None, or due with every slot taken: an attempt's end wakes it.
            _ => POLL,
        };
        tokio::select! {
            changed = newest.changed() => if changed.is_err() {
                // The feed is gone: so is the server.
                break shutdown.deadline().unwrap_or_else(tokio::time::Instant::now);
            },
            () = ended.notified() => {}
            () = tokio::time::sleep(wait) => {}
            deadline = &mut stopping => break deadline,
        }
    };
    drain(&db, &in_flight, &ended, deadline).await;
}

/// The stop: the attempts in flight are waited for until `deadline`;
/// those still running then are cut off and handed back to the outbox,
/// due now, so that another instance (or the next start) makes them at
/// once. A receiver may then see such an event twice, as after any attempt
/// cut off (and it drops the repeat by its `webhook-id`); an attempt that
/// finished is never made again.
async fn drain(
    db: &Db,
    in_flight: &InFlight,
    ended: &tokio::sync::Notify,
    deadline: tokio::time::Instant,
) {
    let waiting = in_flight.borrow().len();
    if waiting > 0 {
        tracing::info!(
            attempts = waiting,
            "stopping: webhook attempts in flight finish"
        );
    }
    let finished = async {
        while !in_flight.borrow().is_empty() {
            ended.notified().await;
        }
    };
    if tokio::time::timeout_at(deadline, finished).await.is_ok() {
        return;
    }
    let cut: Vec<Claimed> = in_flight
        .borrow_mut()
        .drain()
        .map(|(_, (claimed, task))| {
            task.abort();
            claimed
        })
        .collect();
    tracing::warn!(
        attempts = cut.len(),
        "webhook attempts still in flight at the end of the grace period: handed back"
    );
    if let Err(e) = db.release_deliveries(cut, Utc::now()).await {
        tracing::warn!(error = %e, "webhook attempts could not be handed back: they wait out their lease");
    }
}

/// One attempt of `delivery`, and its outcome recorded; how it ended.
async fn attempt(
    db: &Db,
    http: &reqwest::Client,
    settings: &WebhookSettings,
    delivery: Claimed,
) -> WebhookDeliveryResult {
    let outcome = send(http, settings, &delivery).await;
    let attempts = delivery.attempts + 1;
    let now = Utc::now();
    let then = settings.schedule.then(attempts, now);
    match &outcome.result {
        WebhookDeliveryResult::Succeeded => tracing::debug!(
            endpoint = delivery.endpoint_id,
            event = delivery.event_id,
            attempt = attempts,
            "webhook delivered"
        ),
        _ => tracing::info!(
            endpoint = delivery.endpoint_id,
            event = delivery.event_id,
            attempt = attempts,
            result = outcome.result.as_str(),
            status = outcome.status,
            error = outcome.error.as_deref().unwrap_or(""),
            gives_up = then == Then::GiveUp,
            "webhook delivery failed"
        ),
    }
    if let Err(e) = db.record_attempt(&delivery, &outcome, then, now).await {
        // Its lease ends and the attempt is made again: a receiver may see
        // it twice, as after any attempt whose outcome was not recorded.
        tracing::warn!(error = %e, delivery = delivery.delivery_id, "a webhook attempt could not be recorded");
    }
    outcome.result
}

/// Sends one attempt through the generated sender.
async fn send(http: &reqwest::Client, settings: &WebhookSettings, delivery: &Claimed) -> Attempt {
    let failed = |result, error: String| Attempt {
        result,
        status: None,
        error: Some(error),
    };
    let event: StoreEvent = match serde_json::from_str(&delivery.payload) {
        Ok(event) => event,
        Err(e) => return failed(WebhookDeliveryResult::Failed, format!("queued event: {e}")),
    };
    let secret = match WebhookSecret::parse(&delivery.secret) {
        Ok(secret) => secret,
        Err(e) => {
            return failed(
                WebhookDeliveryResult::Failed,
                format!("endpoint secret: {e}"),
            )
        }
    };
    // An address written in the URL is not resolved: checked here.
    if !settings.allow_private {
        if let Ok(url) = reqwest::Url::parse(&delivery.url) {
            if let Some(ip) = written_address(&url).filter(|ip| forbidden(*ip)) {
                return failed(
                    WebhookDeliveryResult::Refused,
                    format!("{ip} is an address webhooks may not reach"),
                );
            }
        }
    }
    let sender = match Client::new(&delivery.url) {
        Ok(client) => client
            .with_http_client(http.clone())
            .with_answer_limit(ANSWER_LIMIT)
            .signed(secret, delivery.event_id.to_string()),
        Err(e) => return failed(WebhookDeliveryResult::Failed, e.to_string()),
    };
    let request = DeliverStoreEventWebhookRequest { body: event };
    match sender.deliver_store_event(request).await {
        Ok(reply) => match reply.into_inner() {
            DeliverStoreEventWebhookResponse::Success { status } => Attempt {
                result: WebhookDeliveryResult::Succeeded,
                status: Some(status.as_u16()),
                error: None,
            },
            DeliverStoreEventWebhookResponse::Default { status } => Attempt {
                result: WebhookDeliveryResult::Failed,
                status: Some(status.as_u16()),
                error: None,
            },
        },
        Err(ClientError::Transport(e)) if e.is_timeout() => failed(
            WebhookDeliveryResult::TimedOut,
            format!("no answer within {ATTEMPT_TIMEOUT:?}"),
        ),
        Err(ClientError::Transport(e)) => {
            let error = chain(&e);
            // The guarded resolver's refusal.
            let result = if error.contains("webhooks may reach") {
                WebhookDeliveryResult::Refused
            } else {
                WebhookDeliveryResult::Unreachable
            };
            failed(result, error)
        }
        Err(e) => failed(WebhookDeliveryResult::Failed, e.to_string()),
    }
}

/// A result as a metric's label (the values the spec lists).
fn label(result: &WebhookDeliveryResult) -> &'static str {
    match result {
        WebhookDeliveryResult::Succeeded => "succeeded",
        WebhookDeliveryResult::Failed => "failed",
        WebhookDeliveryResult::TimedOut => "timed_out",
        WebhookDeliveryResult::Unreachable => "unreachable",
        WebhookDeliveryResult::Refused => "refused",
        // The store makes none other.
        WebhookDeliveryResult::Unknown(_) => "failed",
    }
}

/// An error and its causes, on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_read_as_written() {
        assert_eq!(
            "1s, 500ms,2m,1h".parse::<Schedule>(),
            Ok(Schedule(vec![
                Duration::from_secs(1),
                Duration::from_millis(500),
                Duration::from_secs(120),
                Duration::from_secs(3600)
            ]))
        );
        assert_eq!("".parse::<Schedule>(), Ok(Schedule(Vec::new())));
        assert!("5".parse::<Schedule>().is_err());
        assert!("5d".parse::<Schedule>().is_err());
        assert_eq!(Schedule::default().0.len(), 7);
    }

    #[test]
    fn the_schedule_gives_up_after_its_last_step() {
        let schedule: Schedule = "1s,2s".parse().unwrap();
        let now = Utc::now();
        let Then::RetryAt(first) = schedule.then(1, now) else {
            panic!("a retry")
        };
        let waited = (first - now).num_milliseconds();
        assert!((1000..=1100).contains(&waited), "{waited} ms");
        assert!(matches!(schedule.then(2, now), Then::RetryAt(_)));
        assert_eq!(schedule.then(3, now), Then::GiveUp);
    }

    #[test]
    fn internal_addresses_are_forbidden_and_public_ones_are_not() {
        for internal in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
        ] {
            assert!(forbidden(internal.parse().unwrap()), "{internal}");
        }
        for public in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"] {
            assert!(!forbidden(public.parse().unwrap()), "{public}");
        }
    }

    #[actix_web::test]
    async fn the_senders_resolver_refuses_a_name_that_leads_inside() {
        use reqwest::dns::Resolve as _;
        use std::str::FromStr as _;
        let name = reqwest::dns::Name::from_str("localhost").unwrap();
        let refused = match Guarded.resolve(name).await {
            Ok(addresses) => panic!("{:?}", addresses.collect::<Vec<_>>()),
            Err(e) => e.to_string(),
        };
        assert!(refused.contains("webhooks may reach"), "{refused}");
    }

    #[test]
    fn urls_are_checked_for_what_can_never_be_right() {
        let refused = |url: &str| check_url(url, false).expect_err(url);
        assert!(refused("ftp://example.com/x").contains("http or https"));
        assert!(refused("not a url").contains("not a URL"));
        assert!(refused("http://127.0.0.1:9/x").contains("127.0.0.1"));
        assert!(refused("http://[::1]/x").contains("::1"));
        assert!(refused("http://10.1.2.3/x").contains("10.1.2.3"));
        assert!(refused("http://localhost:8080/x").contains("loopback name"));
        assert!(refused("http://api.LOCALHOST./x").contains("loopback name"));
        assert!(refused("http://u:p@example.com/").contains("credentials"));
        assert_eq!(check_url("http://127.0.0.1:9/x", true), Ok(()));
        // A name is not resolved: one that cannot be now is taken, and
        // checked at each delivery.
        assert_eq!(
            check_url("https://shop.example.com/hooks/store", false),
            Ok(())
        );
        assert_eq!(check_url("https://no-such-host.invalid/x", false), Ok(()));
        assert_eq!(check_url("https://93.184.216.34/x", false), Ok(()));
    }
}
