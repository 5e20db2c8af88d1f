//! What webhooks cost, each figure beside a baseline measured in the same
//! run (BENCHMARKS.md, "Webhooks"):
//!
//! 1. the delay from an order's request to its webhook's arrival at
//!    a local receiver, median and p99 over `ORDERS` orders placed one at a
//!    time, beside the delay to the same orders' events on the event
//!    stream (`GET /v1/store/events`), which reads the same rows;
//! 2. deliveries per second to that receiver from a backlog of queued
//!    deliveries, beside the orders per second the store takes from 32
//!    callers at once;
//! 3. what a pending delivery costs the database: its bytes (the SQLite
//!    file's growth per outbox row, the receiver down), beside an event's.
//!
//! ```text
//! cargo run --release -p petstore-server --example bench_webhooks [ORDERS]
//! ```
//!
//! On SQLite in a temporary directory; one server instance, in process.

use chrono::Utc;
use petstore_api::models::StoreEvent;
use petstore_api::runtime::{self, WebhookSecret};
use petstore_api::webhooks::operations::{
    DeliverStoreEventWebhookRequest, DeliverStoreEventWebhookResponse, ErrorResponse, Receiver,
};
use petstore_server::app::{Application, Listen, Settings};
use petstore_server::keys::{self, Limits, Plan};
use petstore_server::service::system_clock;
use petstore_server::store::Db;
use petstore_server::webhooks::WebhookSettings;
use serde_json::{json, Value};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Where the ids of the backlog's made-up events start.
const FAKE_IDS: i64 = 1_000_000_000;

/// Tells the bench of each delivery: the order and when it arrived.
#[derive(Debug)]
struct Bench {
    secrets: OnceLock<Vec<WebhookSecret>>,
    arrived: mpsc::UnboundedSender<(i64, Instant)>,
}

impl Receiver for Bench {
    async fn deliver_store_event(
        &self,
        request: DeliverStoreEventWebhookRequest,
        _context: runtime::RequestContext,
    ) -> std::result::Result<DeliverStoreEventWebhookResponse, ErrorResponse> {
        if let StoreEvent::OrderEvent(e) = &request.body {
            let _ = self.arrived.send((e.order_id, Instant::now()));
        }
        Ok(DeliverStoreEventWebhookResponse::Success {
            status: runtime::StatusCode::NO_CONTENT,
        })
    }
}

impl petstore_api::webhooks::server::Rejections for Bench {
    fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
        ErrorResponse::new(rejection.status(), json!({ "message": rejection.message }))
    }
}

impl runtime::Signatures for Bench {
    fn webhook_secrets(&self) -> &[WebhookSecret] {
        self.secrets.get().map_or(&[], Vec::as_slice)
    }
}

struct Store {
    base: String,
    key: String,
    http: reqwest::Client,
    dir: tempfile::TempDir,
}

impl Store {
    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("the store answers");
        assert!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
        response.json().await.unwrap_or(Value::Null)
    }

    async fn order(&self, pet: i64) -> i64 {
        let placed = self
            .send(
                reqwest::Method::POST,
                "/v1/store/orders",
                Some(json!({ "petId": pet, "quantity": 1 })),
            )
            .await;
        placed["id"].as_i64().expect("an order")
    }

    /// Puts `n` deliveries to `endpoint` in the outbox, due now, each the
    /// store's last order event with an order (and event) id of its own,
    /// from [`FAKE_IDS`], which no real one reaches; when they were queued.
    fn backlog(&self, endpoint: i64, n: usize) -> Result<Instant> {
        let mut conn = rusqlite::Connection::open(self.dir.path().join("petstore.db"))?;
        conn.busy_timeout(Duration::from_secs(10))?;
        let row: (i64, String, i64, i64, i64, i64) = conn.query_row(
            "SELECT id, kind, order_id, pet_id, quantity, stock FROM events \
             WHERE kind = 'order.placed' ORDER BY id DESC LIMIT 1",
            [],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            },
        )?;
        let template = json!({
            "id": row.0, "type": row.1, "orderId": row.2, "petId": row.3,
            "quantity": row.4, "stock": row.5, "occurredAt": Utc::now()
        });
        let due = Utc::now().timestamp_millis();
        let tx = conn.transaction()?;
        for i in 0..n {
            let fake = FAKE_IDS + i as i64;
            let mut event = template.clone();
            event["orderId"] = json!(fake);
            tx.execute(
                "INSERT INTO webhook_deliveries (endpoint_id, event_id, payload, attempts, due_at) \
                 VALUES (?1, ?2, ?3, 0, ?4)",
                rusqlite::params![endpoint, fake, event.to_string(), due],
            )?;
        }
        tx.commit()?;
        Ok(Instant::now())
    }

    /// Waits until `n` attempts to deliver to `endpoint` are recorded.
    fn attempted(&self, endpoint: i64, n: usize) -> Result<()> {
        let conn = rusqlite::Connection::open(self.dir.path().join("petstore.db"))?;
        let started = Instant::now();
        loop {
            let made: i64 = conn.query_row(
                "SELECT count(*) FROM webhook_attempts WHERE endpoint_id = ?1",
                [endpoint],
                |r| r.get(0),
            )?;
            if made as usize >= n {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(600) {
                return Err(format!("{made} of {n} attempts after 10 minutes").into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The database's size once its log is folded in: pages in use times
    /// the page size (free pages not counted).
    fn bytes(&self) -> Result<f64> {
        let conn = rusqlite::Connection::open(self.dir.path().join("petstore.db"))?;
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        let pragma = |name: &str| -> Result<f64> {
            Ok(conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))? as f64)
        };
        Ok((pragma("page_count")? - pragma("freelist_count")?) * pragma("page_size")?)
    }
}

async fn store() -> Result<Store> {
    let dir = tempfile::tempdir()?;
    let url = format!("sqlite://{}", dir.path().join("petstore.db").display());
    let db = Db::connect(&url).await?;
    let unlimited = Limits {
        per_minute: 100_000_000,
        per_day: 100_000_000,
    };
    let (_, key) = keys::create(&db, Plan::Enterprise, Some(unlimited), None, Utc::now()).await?;
    let app = Application::build(Settings {
        workers: Some(1),
        key_cache_ttl: Duration::from_secs(60),
        webhooks: WebhookSettings {
            // Step 3 keeps failed deliveries pending.
            schedule: "1h".parse()?,
            allow_private: true,
        },
        ..Settings::new(Listen::any_local_port(), db, system_clock())
    })?;
    let base = format!("http://{}", app.address());
    actix_web::rt::spawn(app.run_until_stopped());
    Ok(Store {
        base,
        key: key.expose().to_string(),
        http: reqwest::Client::new(),
        dir,
    })
}

/// A receiver on a port of its own: its URL, the receiver, and what
/// arrives.
/// Orders as they arrive, and when.
type Arrivals = mpsc::UnboundedReceiver<(i64, Instant)>;

fn receiver() -> Result<(String, Arc<Bench>, Arrivals)> {
    let (arrived, arrivals) = mpsc::unbounded_channel();
    let bench = Arc::new(Bench {
        secrets: OnceLock::new(),
        arrived,
    });
    let data = actix_web::web::Data::from(bench.clone());
    let server = actix_web::HttpServer::new(move || {
        let data = data.clone();
        actix_web::App::new()
            .configure(move |cfg| petstore_api::webhooks::server::configure(cfg, data))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))?;
    let url = format!("http://{}/", server.addrs()[0]);
    actix_web::rt::spawn(server.run());
    Ok((url, bench, arrivals))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

#[actix_web::main]
async fn main() -> Result<()> {
    let orders: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(1000);
    let store = store().await?;
    let (url, bench, mut arrivals) = receiver()?;
    let created = store
        .send(
            reqwest::Method::POST,
            "/v1/webhooks",
            Some(json!({ "url": url, "events": ["order.placed"] })),
        )
        .await;
    let secret = WebhookSecret::parse(created["secret"].as_str().expect("a secret"))?;
    let _ = bench.secrets.set(vec![secret]);
    let category = store
        .send(
            reqwest::Method::POST,
            "/v1/categories",
            Some(json!({ "name": "Bench" })),
        )
        .await;
    let pet = store
        .send(
            reqwest::Method::POST,
            "/v1/pets",
            Some(json!({ "name": "Rex", "categoryId": category["id"] })),
        )
        .await["id"]
        .as_i64()
        .expect("a pet");
    store
        .send(
            reqwest::Method::PATCH,
            &format!("/v1/inventory/{pet}"),
            Some(json!({ "quantity": 1_000_000 })),
        )
        .await;

    // 1. Delay, one order at a time, against the event stream's.
    let stream = store
        .http
        .get(format!("{}/v1/store/events?type=order.placed", store.base))
        .bearer_auth(&store.key)
        .send()
        .await?;
    let (streamed_tx, mut streamed) = mpsc::unbounded_channel::<(i64, Instant)>();
    actix_web::rt::spawn(async move {
        let mut stream = stream;
        let mut pending = String::new();
        while let Ok(Some(chunk)) = stream.chunk().await {
            let now = Instant::now();
            pending.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = pending.find("\n\n") {
                let event: String = pending.drain(..end + 2).collect();
                for line in event.lines() {
                    if let Some(data) = line.strip_prefix("data:") {
                        if let Ok(v) = serde_json::from_str::<Value>(data.trim()) {
                            if let Some(order) = v["orderId"].as_i64() {
                                let _ = streamed_tx.send((order, now));
                            }
                        }
                    }
                }
            }
        }
    });
    let mut hook_delays = Vec::with_capacity(orders);
    let mut stream_delays = Vec::with_capacity(orders);
    for _ in 0..orders {
        let sent = Instant::now();
        let order = store.order(pet).await;
        let (got, arrived) = arrivals.recv().await.expect("a delivery");
        assert_eq!(got, order, "deliveries in order");
        let (seen, streamed_at) = streamed.recv().await.expect("a streamed event");
        assert_eq!(seen, order);
        hook_delays.push(arrived.saturating_duration_since(sent));
        stream_delays.push(streamed_at.saturating_duration_since(sent));
    }
    hook_delays.sort();
    stream_delays.sort();
    let (hook_p50, hook_p99) = (
        percentile(&hook_delays, 0.5),
        percentile(&hook_delays, 0.99),
    );
    let (stream_p50, stream_p99) = (
        percentile(&stream_delays, 0.5),
        percentile(&stream_delays, 0.99),
    );
    println!("{orders} orders, one at a time: from the order's request to its event's arrival");
    println!(
        "  webhook:      median {}, p99 {}",
        ms(hook_p50),
        ms(hook_p99)
    );
    println!(
        "  event stream: median {}, p99 {}",
        ms(stream_p50),
        ms(stream_p99)
    );
    println!(
        "  ratio webhook / stream: median {:.2}, p99 {:.2}",
        hook_p50.as_secs_f64() / stream_p50.as_secs_f64().max(1e-9),
        hook_p99.as_secs_f64() / stream_p99.as_secs_f64().max(1e-9)
    );

    // 2. Throughput. The store's, 32 callers placing orders at once; then
    // the dispatcher's, from a backlog of deliveries already queued (rows
    // put in the outbox directly, each a copy of a real event with an id
    // of its own), to the same receiver.
    let callers = 32;
    let per_caller = orders / callers;
    let total = per_caller * callers;
    let started = Instant::now();
    futures_util::future::join_all((0..callers).map(|_| async {
        for _ in 0..per_caller {
            store.order(pet).await;
        }
    }))
    .await;
    let orders_per_s = total as f64 / started.elapsed().as_secs_f64();
    let mut delivered = 0;
    while delivered < total {
        arrivals.recv().await.expect("a delivery");
        delivered += 1;
    }
    let backlog = orders.max(1000) * 5;
    let endpoint = created["id"].as_i64().expect("an endpoint");
    let queued = store.backlog(endpoint, backlog)?;
    let mut seen = std::collections::HashSet::new();
    while seen.len() < backlog {
        let (order, _) = arrivals.recv().await.expect("a delivery");
        seen.insert(order);
    }
    let drained_in = queued.elapsed();
    let deliveries_per_s = backlog as f64 / drained_in.as_secs_f64();
    println!("orders by {callers} callers at once ({total}): {orders_per_s:.0}/s taken");
    println!(
        "a backlog of {backlog} deliveries: {deliveries_per_s:.0}/s delivered ({} in all)",
        ms(drained_in)
    );
    println!(
        "  ratio delivered / taken: {:.2}",
        deliveries_per_s / orders_per_s
    );
    // Drain what the stream still holds.
    while streamed.try_recv().is_ok() {}

    // 3. A pending delivery's bytes: the receiver gone (an endpoint to a
    // closed port, failing with a retry queued), beside an event's.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    store
        .send(
            reqwest::Method::DELETE,
            &format!("/v1/webhooks/{}", created["id"]),
            None,
        )
        .await;
    let n = orders.min(1000);
    let before_events = store.bytes()?;
    for _ in 0..n {
        store.order(pet).await;
    }
    let event_bytes = (store.bytes()? - before_events) / n as f64;
    let down = store
        .send(
            reqwest::Method::POST,
            "/v1/webhooks",
            Some(json!({ "url": format!("http://{closed}/"), "events": ["order.placed"] })),
        )
        .await;
    let before = store.bytes()?;
    for _ in 0..n {
        store.order(pet).await;
    }
    // Each order's delivery queued and its first attempt failed and
    // recorded, its retry pending.
    store.attempted(down["id"].as_i64().expect("an endpoint"), n)?;
    let with_outbox = (store.bytes()? - before) / n as f64;
    println!("{n} orders: the database's growth per order (pages in use)");
    println!("  without an endpoint:               {event_bytes:.0} bytes");
    println!("  with one whose deliveries pend:   {with_outbox:.0} bytes");
    println!(
        "  a pending delivery and its attempt: {:.0} bytes, {:.2} of an order's own",
        with_outbox - event_bytes,
        (with_outbox - event_bytes) / event_bytes.max(1.0)
    );
    Ok(())
}
