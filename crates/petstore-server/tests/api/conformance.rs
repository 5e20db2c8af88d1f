//! Every response the spec declares, produced and held to the spec by the
//! contract ([`crate::contract`]): each (operation, status) pair, its body
//! and its headers. The walk lists what it produced against what the spec
//! declares; a declared pair it does not produce must be named in
//! [`ELSEWHERE`] with the test that produces it or the reason none can, so
//! that a status added to the spec without a test fails here.

use crate::contract::contract;
use crate::helpers::{eventually, spawn, Options, Reply, TestApp, HUNG, POLL, STORE_TABLES};
use petstore_api::metadata::OPERATIONS;
use petstore_server::keys::{Limits, Plan};
use petstore_server::limits::ClientLimits;
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::Duration;

/// A stream's answer: its status and headers, and as its body the data of
/// its first `count` events (from the first event kept, `Last-Event-ID: 0`).
async fn stream_reply(app: &crate::helpers::TestApp, path: &str, count: usize) -> Reply {
    let mut response = app
        .client
        .get(format!("{}{path}", app.base))
        .bearer_auth(&app.key)
        .header("Last-Event-ID", "0")
        .send()
        .await
        .unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let mut pending = String::new();
    let mut events = Vec::new();
    while events.len() < count {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), response.chunk())
            .await
            .expect("an event within 10 s")
            .unwrap()
            .expect("the stream goes on");
        events.extend(crate::helpers::event_data(&mut pending, &chunk));
    }
    events.truncate(count);
    Reply {
        status,
        headers,
        body: Value::Array(events),
    }
}

/// A webhook endpoint's URL: a public address, written as one.
const HOOK_URL: &str = "http://93.184.216.34/hooks";

/// Declared pairs the walk does not produce, each with where it is
/// produced or why it cannot be: the operationId (`*` for every
/// operation), the response key, the database it holds for, the reason.
const ELSEWHERE: &[(&str, &str, On, &str)] = &[
    ("listPets", "503", On::Sqlite, SQLITE_READS),
    ("getPet", "503", On::Sqlite, SQLITE_READS),
    ("listCategories", "503", On::Sqlite, SQLITE_READS),
    ("getCategory", "503", On::Sqlite, SQLITE_READS),
    ("listOrders", "503", On::Sqlite, SQLITE_READS),
    ("getOrder", "503", On::Sqlite, SQLITE_READS),
    ("listInventory", "503", On::Sqlite, SQLITE_READS),
    ("getInventoryItem", "503", On::Sqlite, SQLITE_READS),
    ("watchStore", "503", On::Sqlite, SQLITE_READS),
    ("listWebhooks", "503", On::Sqlite, SQLITE_READS),
    ("getWebhook", "503", On::Sqlite, SQLITE_READS),
    ("listWebhookDeliveries", "503", On::Sqlite, SQLITE_READS),
];

/// Why reads are never answered 503 on SQLite.
const SQLITE_READS: &str = "on SQLite a read waits for nothing (WAL readers take no lock a \
     writer holds), so nothing from outside can make it unavailable; the walk on PostgreSQL \
     produces it, and system::outage under load";

/// Which database an [`ELSEWHERE`] entry holds for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    Sqlite,
}

impl On {
    fn now(self) -> bool {
        match self {
            On::Sqlite => !crate::helpers::on_postgres(),
        }
    }
}

/// A request of the walk: method, path (from the server's root, query
/// included), body.
struct Ask {
    method: Method,
    path: String,
    body: Body,
    /// The key to send (the app's, another, or none).
    key: Key,
    headers: Vec<(&'static str, String)>,
}

enum Body {
    None,
    Json(Value),
    /// Bytes as they are, with this content type.
    Raw(&'static str, Vec<u8>),
}

#[derive(Clone)]
enum Key {
    App,
    None,
    Other(String),
}

impl Ask {
    fn new(method: Method, path: impl Into<String>) -> Ask {
        Ask {
            method,
            path: path.into(),
            body: Body::None,
            key: Key::App,
            headers: Vec::new(),
        }
    }

    fn json(mut self, body: Value) -> Ask {
        self.body = Body::Json(body);
        self
    }

    fn raw(mut self, content_type: &'static str, bytes: impl Into<Vec<u8>>) -> Ask {
        self.body = Body::Raw(content_type, bytes.into());
        self
    }

    fn key(mut self, key: Key) -> Ask {
        self.key = key;
        self
    }

    fn header(mut self, name: &'static str, value: impl Into<String>) -> Ask {
        self.headers.push((name, value.into()));
        self
    }
}

/// The walk's record: what the server answered, held to the spec.
struct Walk<'a> {
    app: &'a TestApp,
    produced: BTreeSet<(String, String)>,
}

impl Walk<'_> {
    /// Sends `ask` and holds its answer to the spec; the answer.
    async fn send(&mut self, ask: Ask) -> Reply {
        let mut request = self
            .app
            .client
            .request(ask.method.clone(), format!("{}{}", self.app.base, ask.path));
        request = match &ask.key {
            Key::App => request.bearer_auth(&self.app.key),
            Key::Other(key) => request.bearer_auth(key),
            Key::None => request,
        };
        for (name, value) in &ask.headers {
            request = request.header(*name, value);
        }
        request = match ask.body {
            Body::None => request,
            Body::Json(body) => request.json(&body),
            Body::Raw(content_type, bytes) => {
                request.header("content-type", content_type).body(bytes)
            }
        };
        let response = request.send().await.expect("the server answers");
        let reply = if response
            .headers()
            .get("content-type")
            .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"))
        {
            // A stream goes on: its head, and none of its events.
            Reply {
                status: response.status(),
                headers: response.headers().clone(),
                body: Value::Array(Vec::new()),
            }
        } else {
            crate::helpers::read(response).await
        };
        self.record(&ask.method, &ask.path, &reply);
        reply
    }

    /// Sends each request at once, and records their answers.
    async fn send_all(&mut self, asks: Vec<Ask>) -> Vec<Reply> {
        let app = self.app;
        let sent = asks.into_iter().map(|ask| async move {
            let mut walk = Walk {
                app,
                produced: BTreeSet::new(),
            };
            let (method, path) = (ask.method.clone(), ask.path.clone());
            let reply = walk.send(ask).await;
            (walk.produced, method, path, reply)
        });
        let mut replies = Vec::new();
        for (produced, _, _, reply) in futures_util::future::join_all(sent).await {
            self.produced.extend(produced);
            replies.push(reply);
        }
        replies
    }

    fn record(&mut self, method: &Method, path: &str, reply: &Reply) {
        let pair = contract()
            .pair(method, path, reply)
            .unwrap_or_else(|| panic!("{method} {path} reaches no operation"));
        self.produced.insert(pair);
    }

    /// `ask`'s head, then a part of its body, never the rest: the answer
    /// the server gives when the body deadline passes.
    async fn stall(&mut self, ask: Ask) -> Reply {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let address = self.app.base.trim_start_matches("http://").to_string();
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        let head = format!(
            "{} {} HTTP/1.1\r\nHost: pets\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\":",
            ask.method, ask.path, self.app.key
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let mut buffer = [0u8; 4096];
        // The answer is complete at its JSON body's end (the connection
        // may stay open); ten times the body deadline says it never came.
        let deadline = tokio::time::Instant::now() + BODY_TIMEOUT * 10;
        while !answer.ends_with(b"}") {
            match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
                Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buffer[..n]),
                other => panic!(
                    "{} {}: no answer to a stalled body: {other:?}",
                    ask.method, ask.path
                ),
            }
        }
        let reply = raw_reply(&answer);
        self.record(&ask.method, &ask.path, &reply);
        reply
    }
}

/// A raw HTTP/1.1 answer as a [`Reply`].
fn raw_reply(answer: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(answer);
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let mut headers = reqwest::header::HeaderMap::new();
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            headers.append(
                reqwest::header::HeaderName::from_bytes(name.trim().as_bytes()).unwrap(),
                reqwest::header::HeaderValue::from_str(value.trim()).unwrap(),
            );
        }
    }
    // A chunked body: its one chunk's data.
    let body = match body.split_once("\r\n") {
        Some((size, rest))
            if headers.get("transfer-encoding").is_some()
                && usize::from_str_radix(size.trim(), 16).is_ok() =>
        {
            rest.split("\r\n").next().unwrap_or_default().to_string()
        }
        _ => body.to_string(),
    };
    Reply {
        status: reqwest::StatusCode::from_u16(status).unwrap(),
        headers,
        body: serde_json::from_str(&body).unwrap_or(Value::Null),
    }
}

/// The walk's body deadline, short so that stalled bodies are answered
/// soon.
const BODY_TIMEOUT: Duration = Duration::from_secs(2);

on_both! {
    /// Every operation walked through every response the spec declares for
    /// it: successes, refusals before the handler (401, 400, 408, 413, 415,
    /// 422, 429, 431), the store's own (404, 409, 410, 422), and failures of
    /// the database (500 with its tables gone, 503 with it held from
    /// outside). Each answer is held to the spec; the pairs produced, with
    /// [`ELSEWHERE`], must be every pair declared.
    async fn every_declared_response_is_produced_and_keeps_its_schemas(framework) {
        let app = spawn(Options {
            framework,
            client_limits: ClientLimits {
                body_timeout: BODY_TIMEOUT,
                ..Default::default()
            },
            ..Options::default()
        })
        .await;
        let mut walk = Walk {
            app: &app,
            produced: BTreeSet::new(),
        };
        let (get, post, put, patch, delete) = (
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        );

        // The store's answers: successes and the refusals of its rules.
        let dogs = walk
            .send(Ask::new(post.clone(), "/v1/categories").json(json!({ "name": "Dogs" })))
            .await;
        let dogs = dogs.body["id"].as_i64().expect("a category");
        let rex = walk
            .send(Ask::new(post.clone(), "/v1/pets").json(json!({ "name": "Rex", "categoryId": dogs })))
            .await;
        let pet = rex.body["id"].as_i64().expect("a pet");
        walk.send(
            Ask::new(patch.clone(), format!("/v1/inventory/{pet}")).json(json!({ "quantity": 10 })),
        )
        .await;
        let order = walk
            .send(
                Ask::new(post.clone(), "/v1/store/orders").json(json!({ "petId": pet, "quantity": 1 })),
            )
            .await;
        let order = order.body["id"].as_i64().expect("an order");
        // A webhook endpoint (an address written as one: the walk needs no
        // DNS), for its reads.
        let hook = walk
            .send(Ask::new(post.clone(), "/v1/webhooks").json(json!({
                "url": HOOK_URL,
                "events": ["order.completed"]
            })))
            .await;
        let hook = hook.body["id"].as_i64().expect("a webhook endpoint");
        let successes = vec![
            Ask::new(get.clone(), "/v1/webhooks"),
            Ask::new(get.clone(), format!("/v1/webhooks/{hook}")),
            Ask::new(get.clone(), format!("/v1/webhooks/{hook}/deliveries")),
            Ask::new(get.clone(), "/v1/categories"),
            Ask::new(get.clone(), format!("/v1/categories/{dogs}")),
            Ask::new(get.clone(), "/v1/pets?limit=1"),
            Ask::new(get.clone(), format!("/v1/pets?id={pet}&status=available")),
            Ask::new(get.clone(), format!("/v1/pets/{pet}")),
            Ask::new(put.clone(), format!("/v1/pets/{pet}"))
                .json(json!({ "name": "Max", "categoryId": dogs, "status": "available" })),
            Ask::new(get.clone(), "/v1/inventory"),
            Ask::new(get.clone(), format!("/v1/inventory/{pet}")),
            Ask::new(get.clone(), "/v1/store/orders"),
            Ask::new(get.clone(), format!("/v1/store/orders/{order}")),
        ];
        walk.send_all(successes).await;
        // Conflicts: a pet with an open order, a category with pets, an order
        // for a pet out of stock, a completed order cancelled.
        walk.send(Ask::new(delete.clone(), format!("/v1/pets/{pet}")))
            .await;
        walk.send(Ask::new(delete.clone(), format!("/v1/categories/{dogs}")))
            .await;
        walk.send(
            Ask::new(post.clone(), "/v1/store/orders").json(json!({ "petId": pet, "quantity": 1000 })),
        )
        .await;
        walk.send(Ask::new(
            post.clone(),
            format!("/v1/store/orders/{order}/complete"),
        ))
        .await;
        walk.send(Ask::new(
            delete.clone(),
            format!("/v1/store/orders/{order}"),
        ))
        .await;
        // The 2xx of what remains: an order cancelled, a pet and a category
        // deleted.
        let second = walk
            .send(
                Ask::new(post.clone(), "/v1/store/orders").json(json!({ "petId": pet, "quantity": 1 })),
            )
            .await;
        walk.send(Ask::new(
            delete.clone(),
            format!("/v1/store/orders/{}", second.body["id"]),
        ))
        .await;
        let cats = walk
            .send(Ask::new(post.clone(), "/v1/categories").json(json!({ "name": "Cats" })))
            .await;
        let cats = cats.body["id"].as_i64().unwrap();
        let tom = walk
            .send(Ask::new(post.clone(), "/v1/pets").json(json!({ "name": "Tom", "categoryId": cats })))
            .await;
        walk.send(Ask::new(
            delete.clone(),
            format!("/v1/pets/{}", tom.body["id"]),
        ))
        .await;
        walk.send(Ask::new(delete.clone(), format!("/v1/categories/{cats}")))
            .await;
        walk.send(Ask::new(delete.clone(), format!("/v1/webhooks/{hook}")))
            .await;
        // The event stream: its head and first events, every change so far
        // replayed from the start.
        let stream = stream_reply(&app, "/v1/store/events", 3).await;
        walk.record(&get, "/v1/store/events", &stream);

        let hook2 = walk
            .send(Ask::new(post.clone(), "/v1/webhooks").json(json!({
                "url": HOOK_URL,
                "events": ["order.completed"]
            })))
            .await;
        let hook2 = hook2.body["id"].as_i64().expect("a webhook endpoint");
        // Every operation, as a template with a pet, order, category and
        // webhook endpoint that exist, a valid body where it takes one, and a
        // path parameter to break.
        let operations: Vec<(Method, String, Option<Value>)> = vec![
            (get.clone(), "/v1/pets".into(), None),
            (
                post.clone(),
                "/v1/pets".into(),
                Some(json!({ "name": "Rex", "categoryId": dogs })),
            ),
            (get.clone(), format!("/v1/pets/{pet}"), None),
            (
                put.clone(),
                format!("/v1/pets/{pet}"),
                Some(json!({ "name": "Rex", "categoryId": dogs })),
            ),
            (delete.clone(), format!("/v1/pets/{pet}"), None),
            (get.clone(), "/v1/categories".into(), None),
            (
                post.clone(),
                "/v1/categories".into(),
                Some(json!({ "name": "Birds" })),
            ),
            (get.clone(), format!("/v1/categories/{dogs}"), None),
            (delete.clone(), format!("/v1/categories/{dogs}"), None),
            (get.clone(), "/v1/store/orders".into(), None),
            (
                post.clone(),
                "/v1/store/orders".into(),
                Some(json!({ "petId": pet, "quantity": 1 })),
            ),
            (get.clone(), format!("/v1/store/orders/{order}"), None),
            (delete.clone(), format!("/v1/store/orders/{order}"), None),
            (
                post.clone(),
                format!("/v1/store/orders/{order}/complete"),
                None,
            ),
            (get.clone(), "/v1/inventory".into(), None),
            (get.clone(), format!("/v1/inventory/{pet}"), None),
            (
                patch.clone(),
                format!("/v1/inventory/{pet}"),
                Some(json!({ "quantity": 5 })),
            ),
            (get.clone(), "/v1/store/events".into(), None),
            (get.clone(), "/v1/webhooks".into(), None),
            (
                post.clone(),
                "/v1/webhooks".into(),
                Some(json!({ "url": HOOK_URL, "events": ["order.completed"] })),
            ),
            (get.clone(), format!("/v1/webhooks/{hook2}"), None),
            (delete.clone(), format!("/v1/webhooks/{hook2}"), None),
            (
                get.clone(),
                format!("/v1/webhooks/{hook2}/deliveries"),
                None,
            ),
        ];
        assert_eq!(
            operations.len(),
            OPERATIONS.len(),
            "every operation is walked"
        );
        let ask = |(method, path, body): &(Method, String, Option<Value>)| {
            let ask = Ask::new(method.clone(), path.clone());
            match body {
                Some(body) => ask.json(body.clone()),
                None => ask,
            }
        };
        // A path with its last numeric segment replaced.
        let with_id = |path: &str, id: &str| -> Option<String> {
            let segments: Vec<&str> = path.split('/').collect();
            let at = segments.iter().rposition(|s| s.parse::<i64>().is_ok())?;
            let mut segments: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
            segments[at] = id.to_string();
            Some(segments.join("/"))
        };

        // Refusals before the handler, for every operation.
        let big = "b".repeat(20_000);
        let limited = app
            .key(
                Plan::Enterprise,
                Some(Limits {
                    per_minute: 1,
                    per_day: 1,
                }),
            )
            .await;
        walk.send(Ask::new(get.clone(), "/v1/categories").key(Key::Other(limited.clone())))
            .await;
        let mut refusals = Vec::new();
        for op in &operations {
            refusals.push(ask(op).key(Key::None));
            refusals.push(ask(op).header("x-big", big.clone()));
            refusals.push(ask(op).key(Key::Other(limited.clone())));
            let (method, path, body) = op;
            // Unreadable: a path id that is no number, else a query parameter
            // that is none, or a body that is no JSON.
            match with_id(path, "abc") {
                Some(bad) => refusals.push(Ask::new(method.clone(), bad)),
                None if body.is_some() => {
                    refusals.push(Ask::new(method.clone(), path.clone()).raw("application/json", "{"))
                }
                None if path.ends_with("/events") => {
                    refusals.push(Ask::new(method.clone(), format!("{path}?petId=abc")))
                }
                None => refusals.push(Ask::new(method.clone(), format!("{path}?limit=abc"))),
            }
            // Out of bounds: an id of 0, a limit of 0, an unknown event type.
            match with_id(path, "0") {
                Some(zero) => refusals.push(Ask::new(method.clone(), zero)),
                None if path.ends_with("/events") => {
                    refusals.push(Ask::new(method.clone(), format!("{path}?petId=0")))
                }
                None if body.is_none() => {
                    refusals.push(Ask::new(method.clone(), format!("{path}?limit=0")))
                }
                None => {}
            }
            // Not there: an id that names nothing (with a valid body).
            if let Some(missing) = with_id(path, "999999") {
                refusals.push(ask(&(method.clone(), missing, body.clone())));
            }
            // Bodies: too large, of another media type, and (below) stalled.
            if body.is_some() {
                let large = json!({ "name": "x".repeat(70 * 1024) });
                refusals.push(ask(op).json(large));
                refusals.push(ask(op).raw("text/plain", "name=Rex"));
            }
        }
        walk.send_all(refusals).await;
        // Bodies out of bounds.
        walk.send_all(vec![
            Ask::new(post.clone(), "/v1/pets").json(json!({ "name": "" })),
            Ask::new(put.clone(), format!("/v1/pets/{pet}")).json(json!({ "name": "" })),
            Ask::new(post.clone(), "/v1/categories").json(json!({ "name": "" })),
            Ask::new(post.clone(), "/v1/store/orders").json(json!({ "petId": 999_999, "quantity": 1 })),
            Ask::new(patch.clone(), format!("/v1/inventory/{pet}")).json(json!({ "quantity": -1 })),
            Ask::new(post.clone(), "/v1/webhooks")
                .json(json!({ "url": "http://127.0.0.1/x", "events": ["order.placed"] })),
        ])
        .await;
        // Bodies that never finish arriving.
        let stalled: Vec<Ask> = operations
            .iter()
            .filter(|(_, _, body)| body.is_some())
            .map(ask)
            .collect();
        let app_ref = &app;
        let stalls = stalled.into_iter().map(|ask| async move {
            let mut walk = Walk {
                app: app_ref,
                produced: BTreeSet::new(),
            };
            walk.stall(ask).await;
            walk.produced
        });
        for produced in futures_util::future::join_all(stalls).await {
            walk.produced.extend(produced);
        }
        // Gone: an event id older than the events kept, and the deprecated
        // operation after its sunset.
        app.db
            .prune_events(chrono::Utc::now() + chrono::Duration::hours(25))
            .await
            .unwrap();
        walk.send(Ask::new(get.clone(), "/v1/store/events").header("last-event-id", "1"))
            .await;
        let now = *app.now.lock().unwrap();
        app.set_time("2030-12-06T00:00:00Z");
        walk.send(Ask::new(get.clone(), format!("/v1/pets/{pet}")))
            .await;
        *app.now.lock().unwrap() = now;

        let elsewhere: Vec<&(&str, &str, On, &str)> =
            ELSEWHERE.iter().filter(|(_, _, on, _)| on.now()).collect();
        let named = |op: &str, key: &str| {
            elsewhere
                .iter()
                .find(|(o, k, _, _)| (*o == op || *o == "*") && *k == key)
        };

        // The database unavailable: held from outside, every operation waits
        // out the database timeout (or, on PostgreSQL, meets the open
        // breaker) and is answered 503.
        // (The stream resumes from its start, which reads the events table.)
        let resuming = |op: &(Method, String, Option<Value>)| {
            let asked = ask(op);
            if op.1.ends_with("/events") {
                asked.header("last-event-id", "0")
            } else {
                asked
            }
        };
        let held = app.hold_database().await;
        walk.send_all(operations.iter().map(resuming).collect())
            .await;
        // On PostgreSQL the breaker opens after the first timeouts, and a
        // probe it lets through may be a write cut off with its outcome
        // unknown (500, declared too): each operation is asked again until it
        // meets the open breaker.
        for op in &operations {
            let id = operation_id(op);
            let pair = (id.clone(), "503".to_string());
            let mut tries = 0;
            while !walk.produced.contains(&pair) && named(&id, "503").is_none() {
                tries += 1;
                assert!(
                    tries <= 20,
                    "{id} never answered 503 with the database held"
                );
                walk.send(resuming(op)).await;
            }
        }
        drop(held);
        // The hold opened the breaker (on PostgreSQL); it closes once a probe
        // gets through. Until then a request meets it and is answered 503, so
        // the tables go only once a read is answered again.
        let probe = format!("{}/v1/pets", app.base);
        eventually("the database answering after the hold", HUNG, || {
            let request = app.client.get(&probe).bearer_auth(&app.key);
            async move {
                request
                    .send()
                    .await
                    .is_ok_and(|r| r.status() == reqwest::StatusCode::OK)
            }
        })
        .await;
        // The database broken: its tables gone, every operation fails and is
        // answered 500, saying nothing of why.
        let away = |from: &str, to: &str| {
            STORE_TABLES
                .iter()
                .map(|t| format!("ALTER TABLE {t}{from} RENAME TO {t}{to};"))
                .collect::<String>()
        };
        app.outside(&away("", "_away")).await;
        walk.send_all(operations.iter().map(resuming).collect())
            .await;
        // On SQLite a worker's read connection may keep its snapshot, which
        // still sees the tables, until the worker's timer ends it, and a busy
        // machine delays the timer: an operation not yet answered 500 is asked
        // again until it is (the event), or it hung.
        let declared = contract().declared();
        for op in &operations {
            let id = operation_id(op);
            let pair = (id.clone(), "500".to_string());
            if !declared.contains(&pair) || named(&id, "500").is_some() {
                continue;
            }
            let deadline = std::time::Instant::now() + HUNG;
            while !walk.produced.contains(&pair) {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{id} never answered 500 with the tables gone (it hung)"
                );
                walk.send(resuming(op)).await;
                tokio::time::sleep(POLL).await;
            }
        }
        app.outside(&away("_away", "")).await;

        // What the walk produced, with what is produced elsewhere, is what the
        // spec declares (`declared`, above).
        let missing: Vec<&(String, String)> = declared
            .iter()
            .filter(|(op, key)| !walk.produced.contains(&(op.clone(), key.clone())))
            .filter(|(op, key)| named(op, key).is_none())
            .collect();
        println!(
            "{} of {} declared (operation, status) pairs produced",
            walk.produced.len(),
            declared.len()
        );
        assert!(
            missing.is_empty(),
            "declared responses no test produces (produce them, or name them in ELSEWHERE): {missing:?}"
        );
        let stale: Vec<&&(&str, &str, On, &str)> = elsewhere
            .iter()
            .filter(|(op, key, _, _)| {
                declared
                    .iter()
                    .filter(|(o, k)| (o == op || *op == "*") && k == key)
                    .all(|pair| walk.produced.contains(pair))
            })
            .collect();
        assert!(
            stale.is_empty(),
            "ELSEWHERE names pairs the walk produces: {stale:?}"
        );
    }
}

/// The operationId of the operation `op` (method, path, body) reaches.
fn operation_id(op: &(Method, String, Option<Value>)) -> String {
    contract()
        .route(&op.0, &op.1)
        .map(|r| r.id.clone())
        .expect("an operation")
}
