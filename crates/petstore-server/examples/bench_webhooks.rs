//! What webhooks cost, each figure beside a baseline measured in the same
//! run (BENCHMARKS.md, "Webhooks"):
//!
//! 1. the delay from an order's acknowledgement to its webhook's arrival at
//!    a local receiver, median and p99 over `ORDERS` orders placed one at a
//!    time, beside the delay to the same orders' events on the event
//!    stream (`GET /v1/store/events`), which reads the same rows;
//! 2. deliveries per second to that receiver, `ORDERS` orders placed by 32
//!    callers at once, beside the orders per second the store took;
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
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

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
        listen: Listen::any_local_port(),
        db,
        clock: system_clock(),
        workers: Some(1),
        ban: Default::default(),
        key_cache_ttl: Duration::from_secs(60),
        trusted_proxies: Default::default(),
        metrics_listen: None,
        client_limits: Default::default(),
        webhooks: WebhookSettings {
            // Step 3 keeps failed deliveries pending.
            schedule: "1h".parse()?,
            allow_private: true,
        },
    })?;
    let base = format!("http://{}", app.address());
    actix_web::rt::spawn(app.into_server());
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
        let order = store.order(pet).await;
        let acknowledged = Instant::now();
        let (got, arrived) = arrivals.recv().await.expect("a delivery");
        assert_eq!(got, order, "deliveries in order");
        let (seen, streamed_at) = streamed.recv().await.expect("a streamed event");
        assert_eq!(seen, order);
        hook_delays.push(arrived.saturating_duration_since(acknowledged));
        stream_delays.push(streamed_at.saturating_duration_since(acknowledged));
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
    println!("{orders} orders, one at a time: from the order's answer to its event's arrival");
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

    // 2. Throughput: 32 callers at once.
    let started = Instant::now();
    let callers = 32;
    let per_caller = orders / callers;
    let total = per_caller * callers;
    let placing = futures_util::future::join_all((0..callers).map(|_| async {
        for _ in 0..per_caller {
            store.order(pet).await;
        }
    }));
    let mut delivered: HashMap<i64, Instant> = HashMap::new();
    let collecting = async {
        while delivered.len() < total {
            let (order, at) = arrivals.recv().await.expect("a delivery");
            delivered.insert(order, at);
        }
    };
    futures_util::future::join(placing, collecting).await;
    let placed_in = started.elapsed();
    let last = delivered.values().max().copied().unwrap_or(started);
    let delivered_in = last.saturating_duration_since(started);
    let orders_per_s = total as f64 / placed_in.as_secs_f64();
    let deliveries_per_s = total as f64 / delivered_in.as_secs_f64();
    println!("{total} orders by {callers} callers at once");
    println!("  orders taken:        {orders_per_s:.0}/s");
    println!(
        "  webhooks delivered:  {deliveries_per_s:.0}/s (the last {} after the first order)",
        ms(delivered_in)
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
