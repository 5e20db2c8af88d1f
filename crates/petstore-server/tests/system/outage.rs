//! PostgreSQL away under load: stopped for 5 s, or frozen (SIGSTOP, as a
//! network partition looks) for 10 s, while writers and readers go through
//! two instances on a cluster of the test's own.
//!
//! What must hold, and is checked from the answers' record and the
//! servers' metrics, never against a bound on the wall clock (the machine
//! may be busy with anything):
//! - every answer is a success, a 503 `unavailable` with `Retry-After`, or
//!   (a write whose commit went unconfirmed) a 500 `internal`; none hangs;
//! - once an instance's circuit breaker is open, its refusals come at once
//!   (compared with the successes before the outage, in the same run), and
//!   the breakers count refusals of their own;
//! - after the database's return each instance's breaker closes, and once
//!   an instance has succeeded, every request sent to it afterwards
//!   succeeds;
//! - `/healthz` answers 503 once the breaker is open, and 200 after the
//!   return;
//! - every acknowledged order is there, no order answered 503 was placed,
//!   and retrying an unconfirmed order with its `Idempotency-Key` gets the
//!   first answer if it committed and places it once if it did not.

use crate::helpers::{create_key, eventually, read, Reply, Server, HUNG};
use crate::postgres::Cluster;
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The servers' `--database-timeout` (the default).
const TIMEOUT: Duration = Duration::from_secs(2);
/// The longest the server lets a health check wait (`app.rs`).
const HEALTH_CHECK_BOUND: Duration = Duration::from_millis(900);
const WRITERS: usize = 4;
const READERS: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Health,
}

/// One answer, as the client saw it.
#[derive(Debug, Clone)]
struct Answer {
    kind: Kind,
    instance: usize,
    sent: Instant,
    took: Duration,
    status: u16,
    code: Option<String>,
    retry_after: Option<String>,
    /// For orders: the `Idempotency-Key` sent, and the order's id if placed.
    order: Option<(String, Option<i64>)>,
}

impl Answer {
    fn ok(&self) -> bool {
        matches!(self.status, 200 | 201)
    }

    fn done(&self) -> Instant {
        self.sent + self.took
    }
}

struct Load {
    client: reqwest::Client,
    bases: Vec<String>,
    key: String,
    pet: i64,
    answers: Mutex<Vec<Answer>>,
    stop: AtomicBool,
}

impl Load {
    async fn send(
        &self,
        kind: Kind,
        instance: usize,
        method: Method,
        path: &str,
        body: Option<Value>,
        idempotency_key: Option<&str>,
    ) -> Answer {
        let mut request = self
            .client
            .request(method.clone(), format!("{}{path}", self.bases[instance]))
            .bearer_auth(&self.key)
            // Far beyond any bound the server keeps: a request this slow
            // fails the latency check rather than hanging the test.
            .timeout(Duration::from_secs(30));
        if let Some(key) = idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let sent = Instant::now();
        let reply = read(request.send().await.expect("the instance answers")).await;
        let took = sent.elapsed();
        // Every answer, 503s and unconfirmed writes' 500s included, is one
        // the spec declares, with its headers and body.
        crate::contract::contract().check(&method, path, &reply);
        Answer {
            kind,
            instance,
            sent,
            took,
            status: reply.status.as_u16(),
            code: reply.body["code"].as_str().map(str::to_string),
            retry_after: reply.header("retry-after").map(str::to_string),
            order: idempotency_key.map(|k| (k.to_string(), reply.body["id"].as_i64())),
        }
    }

    /// A request to the first instance, outside the record.
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.bases[0]))
            .bearer_auth(&self.key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        read(request.send().await.expect("the instance answers")).await
    }

    fn record(&self, answer: Answer) {
        self.answers.lock().unwrap().push(answer);
    }

    async fn writer(self: Arc<Self>, writer: usize) {
        let mut n = 0;
        while !self.stop.load(Ordering::Relaxed) {
            let key = format!("writer-{writer}-{n}");
            let body = json!({ "petId": self.pet, "quantity": 1 });
            let answer = self
                .send(
                    Kind::Write,
                    (writer + n) % 2,
                    Method::POST,
                    "/v1/store/orders",
                    Some(body),
                    Some(&key),
                )
                .await;
            self.record(answer);
            n += 1;
        }
    }

    async fn reader(self: Arc<Self>, reader: usize) {
        let mut n = 0;
        while !self.stop.load(Ordering::Relaxed) {
            let path = if n % 2 == 0 {
                format!("/v1/pets/{}", self.pet)
            } else {
                format!("/v1/inventory/{}", self.pet)
            };
            let answer = self
                .send(Kind::Read, (reader + n) % 2, Method::GET, &path, None, None)
                .await;
            self.record(answer);
            n += 1;
        }
    }

    /// A load balancer's health checks: one instance, every 100 ms.
    async fn health(self: Arc<Self>, instance: usize) {
        while !self.stop.load(Ordering::Relaxed) {
            let answer = self
                .send(Kind::Health, instance, Method::GET, "/healthz", None, None)
                .await;
            self.record(answer);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Outage {
    /// `pg_ctl stop -m fast`, then `pg_ctl start`.
    Stopped(Duration),
    /// SIGSTOP to every server process, then SIGCONT.
    Frozen(Duration),
}

/// Runs `f` on the cluster off the test's runtime thread, so that the
/// load's clocks keep running while `pg_ctl` waits.
async fn on_cluster(cluster: &Arc<Cluster>, f: fn(&Cluster)) {
    let cluster = cluster.clone();
    tokio::task::spawn_blocking(move || f(&cluster))
        .await
        .expect("the cluster command ran");
}

/// A cluster of the test's own, a fresh database on it (its URL) and an
/// operator's key with limits no test reaches.
async fn fresh() -> (Arc<Cluster>, String, String) {
    let cluster = Arc::new(Cluster::start().expect("a private PostgreSQL cluster"));
    let url = cluster.fresh_database().await;
    let key = create_key(&url, "enterprise", Some((100_000_000, 100_000_000)));
    (cluster, url, key)
}

/// Requests to one server with the operator's key.
struct Caller {
    client: reqwest::Client,
    base: String,
    key: String,
}

impl Caller {
    fn new(server: &Server, key: &str) -> Caller {
        Caller {
            client: reqwest::Client::new(),
            base: server.base.clone(),
            key: key.to_string(),
        }
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        crate::helpers::call(&self.client, &self.base, &self.key, method, path, body).await
    }

    /// `POST /v1/categories` with this name.
    async fn category(&self, name: &str) -> Reply {
        let body = json!({ "name": name });
        self.call(Method::POST, "/v1/categories", Some(body)).await
    }

    /// `GET /v1/categories/{id}` of a category `category` created.
    async fn read_category(&self, category: &Reply) -> Reply {
        let path = format!("/v1/categories/{}", category.body["id"]);
        self.call(Method::GET, &path, None).await
    }

    /// A new available pet, in a new category, with `stock` in stock.
    async fn stocked_pet(&self, stock: i64) -> i64 {
        let category = self.category("Dogs").await;
        assert_eq!(category.status, 201, "{category:?}");
        let body = json!({ "name": "Rex", "categoryId": category.body["id"] });
        let pet = self.call(Method::POST, "/v1/pets", Some(body)).await;
        assert_eq!(pet.status, 201, "{pet:?}");
        let id = pet.body["id"].as_i64().expect("a pet id");
        let body = json!({ "quantity": stock });
        let stocked = self
            .call(Method::PATCH, &format!("/v1/inventory/{id}"), Some(body))
            .await;
        assert_eq!(stocked.status, 200, "{stocked:?}");
        id
    }
}

async fn outage(outage: Outage) {
    let (cluster, url, key) = fresh().await;
    let servers: Vec<Server> = (0..2)
        .map(|_| Server::start_with(&url, &["--metrics-listen", "127.0.0.1:0"]).0)
        .collect();
    let mut load = Load {
        client: reqwest::Client::new(),
        bases: servers.iter().map(|s| s.base.clone()).collect(),
        key,
        pet: 0,
        answers: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
    };
    const STOCK: i64 = 1_000_000;
    load.pet = Caller::new(&servers[0], &load.key).stocked_pet(STOCK).await;

    let load = Arc::new(load);
    let mut tasks = Vec::new();
    for i in 0..WRITERS {
        tasks.push(actix_web::rt::spawn(load.clone().writer(i)));
    }
    for i in 0..READERS {
        tasks.push(actix_web::rt::spawn(load.clone().reader(i)));
    }
    for i in 0..2 {
        tasks.push(actix_web::rt::spawn(load.clone().health(i)));
    }
    // The load is under way: each instance has answered reads and writes
    // (and their times are the control the outage's are compared with).
    eventually("the load under way", HUNG, || async {
        let answers = load.answers.lock().unwrap();
        (0..2).all(|i| {
            let ok = |kind| {
                answers
                    .iter()
                    .filter(|a| a.instance == i && a.kind == kind && a.ok())
                    .count()
            };
            ok(Kind::Read) >= 50 && ok(Kind::Write) >= 50
        })
    })
    .await;
    // The outage lasts from `down`, once the database is wholly away
    // (stopped: `pg_ctl -w` returns when it is; frozen: every one of its
    // processes seen stopped), to `ending`, just before it is brought back;
    // `up` is when it is back. What must hold during the outage is judged
    // on answers completed by `ending`, recovery from `up`.
    let going = Instant::now();
    let down = match outage {
        Outage::Stopped(_) => {
            on_cluster(&cluster, Cluster::stop).await;
            Instant::now()
        }
        Outage::Frozen(_) => {
            on_cluster(&cluster, Cluster::freeze).await;
            let running = cluster.running();
            assert!(
                running.is_empty(),
                "server processes still running after the freeze: {running:?}"
            );
            Instant::now()
        }
    };
    let (Outage::Stopped(length) | Outage::Frozen(length)) = outage;
    // The outage lasts its length, and until each instance's breaker has
    // been seen open (the event the assertions below are about) for two
    // seconds, so that its `Retry-After` has grown: on a loaded machine an
    // instance may take a while to see the failures that open it.
    let mut opened: Vec<Option<Instant>> = vec![None; servers.len()];
    let until = down + length;
    let at_most = down + length + HUNG;
    loop {
        let open = metric(&load.client, &servers, "petstore_database_breaker_open").await;
        let now = Instant::now();
        for (seen, now_open) in opened.iter_mut().zip(open) {
            if now_open == 1.0 && seen.is_none() {
                *seen = Some(now);
            }
        }
        let grown = opened
            .iter()
            .all(|o| o.is_some_and(|at| now >= at + Duration::from_secs(2)));
        if now >= until && grown {
            break;
        }
        assert!(
            now < at_most,
            "the breakers were not seen open for 2 s in {HUNG:?} (it hung): {opened:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let opened: Vec<Instant> = opened.into_iter().map(Option::unwrap).collect();
    let refused_during = metric(
        &load.client,
        &servers,
        "petstore_database_breaker_refusals_total",
    )
    .await;
    let ending = Instant::now();
    match outage {
        Outage::Stopped(_) => on_cluster(&cluster, Cluster::restart).await,
        Outage::Frozen(_) => on_cluster(&cluster, Cluster::thaw).await,
    }
    let up = Instant::now();
    // Recovered: each instance's breaker closed again, and each has
    // answered a request sent after the return with a success, and a
    // health check with 200.
    eventually("the breakers closed after the return", HUNG, || async {
        let open = metric(&load.client, &servers, "petstore_database_breaker_open").await;
        open.iter().all(|&o| o == 0.0)
    })
    .await;
    let recovered = |instance: usize, kind_health: bool| {
        let answers = load.answers.lock().unwrap();
        answers
            .iter()
            .filter(|a| a.instance == instance && (a.kind == Kind::Health) == kind_health)
            .filter(|a| a.sent >= up && a.ok())
            .map(Answer::done)
            .min()
    };
    eventually(
        "a success on each instance after the return",
        HUNG,
        || async { (0..2).all(|i| recovered(i, false).is_some() && recovered(i, true).is_some()) },
    )
    .await;
    let recovered: Vec<Instant> = (0..2).map(|i| recovered(i, false).unwrap()).collect();
    // Then some more load after it, to hold to the rule below.
    let answered = || load.answers.lock().unwrap().len();
    let so_far = answered();
    eventually("answers after the recovery", HUNG, || async {
        answered() >= so_far + 50
    })
    .await;
    load.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await.unwrap();
    }
    let answers = load.answers.lock().unwrap().clone();
    report(outage, &answers, down, ending, up);

    // Every answer is one the spec declares for the outage, and none hung.
    for a in &answers {
        match (a.kind, a.status) {
            (_, 200 | 201) => {}
            (Kind::Health, 503) => {}
            (_, 503) => {
                assert_eq!(a.code.as_deref(), Some("unavailable"), "{a:?}");
                let retry: u32 = a
                    .retry_after
                    .as_deref()
                    .and_then(|r| r.parse().ok())
                    .unwrap_or(0);
                assert!(retry >= 1, "a 503 says when to retry: {a:?}");
            }
            (Kind::Write, 500) => assert_eq!(a.code.as_deref(), Some("internal"), "{a:?}"),
            _ => panic!("an answer the outage does not explain: {a:?}"),
        }
        // Ten times the longest the server lets a request wait (its
        // database timeout, its health check's bound): this says only
        // that nothing hung. That answers come at once once the breaker
        // knows is asserted below from the servers' own count.
        let ceiling = match a.kind {
            Kind::Health => HEALTH_CHECK_BOUND * 10,
            Kind::Read | Kind::Write => TIMEOUT * 10,
        };
        assert!(
            a.took <= ceiling,
            "waited {:?}, more than {ceiling:?}: {a:?}",
            a.took
        );
    }

    // `Retry-After` grows with the outage (the breaker's unit tests pin
    // the rule on a clock of their own): on each instance it never falls
    // while the database is away (by more than the second that answers
    // crossing each other may span), it never exceeds the seconds since
    // the outage began (rounded up) nor 30, and it grew.
    for instance in 0..2 {
        let mut refusals: Vec<(Instant, u64)> = answers
            .iter()
            .filter(|a| a.instance == instance && a.kind != Kind::Health && a.status == 503)
            .map(|a| {
                let retry: u64 = a.retry_after.as_deref().unwrap().parse().unwrap();
                let ceiling = (a.done().saturating_duration_since(going).as_secs() + 1).min(30);
                assert!(
                    (1..=ceiling).contains(&retry),
                    "Retry-After {retry} s, expected 1..={ceiling} s: {a:?}"
                );
                (a.done(), retry)
            })
            .filter(|(done, _)| *done <= ending)
            .collect();
        refusals.sort();
        let mut highest = 0;
        for (_, retry) in &refusals {
            assert!(
                retry + 1 >= highest,
                "instance {instance}: Retry-After fell from {highest} s to {retry} s"
            );
            highest = highest.max(*retry);
        }
        println!(
            "  instance {instance}: Retry-After grew to {highest} s in an outage of {:?}",
            ending - down
        );
        assert!(
            highest >= 2,
            "instance {instance}: Retry-After grew to {highest} s only"
        );
    }

    // Fail fast: once an instance's breaker is open, its refusals come at
    // once, without waiting on the database (but for the probes, one at a
    // time, every 250 ms). Compared with a control measured in this test:
    // the successes before the outage, each of which waited on the
    // database. Nine in ten refusals took no more than ten times what nine
    // in ten successes did (refusals that each waited out the database
    // timeout would take hundreds of times as long).
    let p90 = |mut took: Vec<Duration>| {
        took.sort();
        took[(took.len() - 1) * 9 / 10]
    };
    let before: Vec<Duration> = answers
        .iter()
        .filter(|a| a.kind != Kind::Health && a.ok() && a.done() <= down)
        .map(|a| a.took)
        .collect();
    let late: Vec<Duration> = answers
        .iter()
        .filter(|a| a.kind != Kind::Health && a.status == 503)
        .filter(|a| a.sent >= opened[a.instance] && a.done() <= ending)
        .map(|a| a.took)
        .collect();
    assert!(
        before.len() >= 200 && late.len() >= 100,
        "the load went on before ({}) and during ({}) the outage",
        before.len(),
        late.len()
    );
    let (control, refused) = (p90(before), p90(late.clone()));
    println!(
        "  p90 of {} refusals with the breaker open: {refused:?}; of the successes before: {control:?}",
        late.len()
    );
    assert!(
        refused <= control * 10,
        "refusals with the breaker open took {refused:?} (p90), successes before {control:?}"
    );
    // And the breakers did the refusing: each counted refusals of its own.
    for (instance, by_breaker) in refused_during.iter().enumerate() {
        assert!(
            *by_breaker > 0.0,
            "instance {instance}'s breaker refused nothing"
        );
    }

    // Recovery: once an instance has succeeded after the return, every
    // request sent to it afterwards succeeds.
    for (instance, recovered) in recovered.into_iter().enumerate() {
        println!(
            "  instance {instance}: first success {:?} after the database's return",
            recovered - up
        );
        for a in answers
            .iter()
            .filter(|a| a.instance == instance && a.sent >= recovered)
        {
            assert!(a.ok(), "a request after recovery failed: {a:?}");
        }
    }
    // Health checks sent after an instance's breaker was seen open, and
    // answered before the return, say the database is away.
    for a in answers
        .iter()
        .filter(|a| a.kind == Kind::Health && a.sent >= opened[a.instance] && a.done() <= ending)
    {
        assert_eq!(a.status, 503, "/healthz during the outage: {a:?}");
    }
    check_orders(&load, &answers, STOCK).await;
}

/// Each instance's sample of `name`, scraped now.
async fn metric(client: &reqwest::Client, servers: &[Server], name: &str) -> Vec<f64> {
    let mut values = Vec::new();
    for server in servers {
        let url = server.metrics.as_ref().expect("metrics are on");
        let text = client
            .get(url)
            .send()
            .await
            .expect("the metrics listener answers")
            .text()
            .await
            .unwrap();
        let value = text
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no {name} in:\n{text}"));
        values.push(value.trim().parse().unwrap());
    }
    values
}

/// Every acknowledged order is there and no order answered 503 was placed;
/// unconfirmed ones, retried with their key, are placed exactly once.
async fn check_orders(load: &Load, answers: &[Answer], stock: i64) {
    let placed = orders_in_store(load).await;
    let acknowledged: HashSet<i64> = answers
        .iter()
        .filter(|a| a.status == 201)
        .filter_map(|a| a.order.as_ref()?.1)
        .collect();
    assert!(
        acknowledged.is_subset(&placed),
        "acknowledged orders missing: {:?}",
        acknowledged.difference(&placed).collect::<Vec<_>>()
    );
    // An unconfirmed order's retry replays it if it was placed, or places
    // it now.
    let mut committed_unconfirmed = HashSet::new();
    for a in answers
        .iter()
        .filter(|a| a.kind == Kind::Write && a.status == 500)
    {
        let (key, _) = a.order.as_ref().unwrap();
        let retried = retry(load, key).await;
        if placed.contains(&retried) {
            committed_unconfirmed.insert(retried);
        }
        assert_eq!(retry(load, key).await, retried, "a retry replays");
    }
    let explained: HashSet<i64> = acknowledged
        .union(&committed_unconfirmed)
        .copied()
        .collect();
    assert_eq!(
        placed, explained,
        "every order in the store was acknowledged or unconfirmed"
    );
    // A 503 did nothing: its retry places a new order.
    for a in answers
        .iter()
        .filter(|a| a.kind == Kind::Write && a.status == 503)
        .take(20)
    {
        let (key, _) = a.order.as_ref().unwrap();
        let retried = retry(load, key).await;
        assert!(
            !placed.contains(&retried),
            "an order answered 503 had been placed: {a:?}"
        );
    }
    // The stock went down by exactly the orders placed.
    let all = orders_in_store(load).await;
    let inventory = load
        .call(Method::GET, &format!("/v1/inventory/{}", load.pet), None)
        .await;
    assert_eq!(
        inventory.body["quantity"].as_i64(),
        Some(stock - all.len() as i64),
        "{inventory:?}"
    );
}

/// Places (or replays) the order sent with `key`; its id.
async fn retry(load: &Load, key: &str) -> i64 {
    let body = json!({ "petId": load.pet, "quantity": 1 });
    let answer = load
        .send(
            Kind::Write,
            1,
            Method::POST,
            "/v1/store/orders",
            Some(body),
            Some(key),
        )
        .await;
    assert_eq!(answer.status, 201, "{answer:?}");
    answer.order.unwrap().1.unwrap()
}

/// The ids of every order of the test's pet.
async fn orders_in_store(load: &Load) -> HashSet<i64> {
    let mut ids = HashSet::new();
    let mut after = 0;
    loop {
        let page = load
            .call(
                Method::GET,
                &format!(
                    "/v1/store/orders?petId={}&limit=100&after={after}",
                    load.pet
                ),
                None,
            )
            .await;
        assert_eq!(page.status, 200, "{page:?}");
        let items = page.body.as_array().unwrap();
        for order in items {
            ids.insert(order["id"].as_i64().unwrap());
        }
        match items.last() {
            Some(last) if items.len() == 100 => after = last["id"].as_i64().unwrap(),
            _ => return ids,
        }
    }
}

/// Prints what the load saw, phase by phase, for the test log.
fn report(outage: Outage, answers: &[Answer], down: Instant, ending: Instant, up: Instant) {
    let phases = [
        ("before", None, Some(down)),
        ("during", Some(down), Some(ending)),
        ("ending", Some(ending), Some(up)),
        ("after", Some(up), None),
    ];
    println!("{outage:?}");
    for (name, from, to) in phases {
        let mut took: Vec<Duration> = answers
            .iter()
            .filter(|a| a.kind != Kind::Health)
            .filter(|a| from.is_none_or(|f| a.sent >= f) && to.is_none_or(|t| a.sent < t))
            .map(|a| a.took)
            .collect();
        took.sort();
        let count = |status| {
            answers
                .iter()
                .filter(|a| a.kind != Kind::Health && a.status == status)
                .filter(|a| from.is_none_or(|f| a.sent >= f) && to.is_none_or(|t| a.sent < t))
                .count()
        };
        let at = |q: f64| {
            took.get(((took.len() as f64 - 1.0) * q) as usize)
                .copied()
                .unwrap_or_default()
        };
        println!(
            "  {name:>6}: {} answers (200/201: {}, 503: {}, 500: {}); latency p50 {:?} p90 {:?} p99 {:?} max {:?}",
            took.len(),
            count(200) + count(201),
            count(503),
            count(500),
            at(0.5),
            at(0.9),
            at(0.99),
            took.last().copied().unwrap_or_default()
        );
    }
}

#[actix_web::test]
async fn postgres_stopped_for_five_seconds() {
    outage(Outage::Stopped(Duration::from_secs(5))).await;
}

#[actix_web::test]
async fn postgres_frozen_for_ten_seconds() {
    outage(Outage::Frozen(Duration::from_secs(10))).await;
}

/// An event stream stays open while PostgreSQL is stopped, and delivers
/// the changes made once it is back, on the same connection.
#[actix_web::test]
async fn event_streams_outlast_the_database() {
    let (cluster, url, key) = fresh().await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    // At `debug`, the feed says when it cannot read the database.
    let (server, _) = Server::start_logging_at(&url, &[], &log, "warn,petstore_server::feed=debug");
    let caller = Caller::new(&server, &key);
    let pet = caller.stocked_pet(100).await;

    let mut stream = caller
        .client
        .get(format!("{}/v1/store/events?type=order.placed", server.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let received = Arc::new(Mutex::new(Vec::<i64>::new()));
    let reader = {
        let received = received.clone();
        actix_web::rt::spawn(async move {
            let mut pending = String::new();
            while let Ok(Some(chunk)) = stream.chunk().await {
                for event in crate::helpers::event_data(&mut pending, &chunk) {
                    received
                        .lock()
                        .unwrap()
                        .push(event["orderId"].as_i64().unwrap());
                }
            }
            // The stream ended: the test's assertions say whether it should have.
        })
    };
    let order = || async {
        let r = caller
            .call(
                Method::POST,
                "/v1/store/orders",
                Some(json!({ "petId": pet, "quantity": 1 })),
            )
            .await;
        (r.status == 201).then(|| r.body["id"].as_i64().unwrap())
    };
    let arrived = |id: i64| {
        let received = received.clone();
        async move { received.lock().unwrap().contains(&id) }
    };
    let before = order().await.expect("an order before the outage");
    eventually("the first order's event", HUNG, || arrived(before)).await;

    on_cluster(&cluster, Cluster::stop).await;
    // The feed has tried to read the stopped database and failed, and an
    // order has been refused: the outage is seen from inside.
    let feed_failed = "the event feed cannot read the database now";
    eventually("the feed's failed read", HUNG, || async {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains(feed_failed))
    })
    .await;
    assert!(
        order().await.is_none(),
        "an order while the database is away"
    );
    assert!(
        !reader.is_finished(),
        "the stream stays open while the database is away"
    );
    on_cluster(&cluster, Cluster::restart).await;
    // Orders go through again once the instance sees the database back.
    let placed = Arc::new(Mutex::new(None));
    eventually("an order after the return", HUNG, || {
        let placed = placed.clone();
        let order = order();
        async move {
            let id = order.await;
            *placed.lock().unwrap() = id;
            id.is_some()
        }
    })
    .await;
    let after = placed.lock().unwrap().expect("placed");
    eventually("the second order's event", HUNG, || arrived(after)).await;
    assert!(!reader.is_finished(), "on the same connection");
    assert_eq!(*received.lock().unwrap(), [before, after]);
    reader.abort();
}

/// Connections the database dropped while they sat idle in the pool (a
/// restart, a proxy's idle cut) cost no request: one idle for a while is
/// tested before it is used. (One just used is not: that round trip per
/// request cost a third of the throughput.)
#[actix_web::test]
async fn connections_dropped_while_idle_cost_no_request() {
    let (cluster, url, key) = fresh().await;
    let (server, _) = Server::start(&url);
    let caller = Caller::new(&server, &key);
    let dogs = caller.category("Dogs").await;
    assert_eq!(dogs.status, 201, "{dogs:?}");
    let database = url.rsplit('/').next().expect("a database name");
    cluster
        .execute(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'"
        ))
        .await;
    // The pool's connections must have sat idle past the threshold after
    // which one is tested before use: the time itself is the condition
    // here, and a sleep is never shorter than asked.
    tokio::time::sleep(petstore_server::store::IDLE_BEFORE_TEST + Duration::from_millis(100)).await;
    for n in 0..5 {
        let read = caller.read_category(&dogs).await;
        assert_eq!(
            read.status, 200,
            "read {n} after the connections were dropped: {read:?}"
        );
    }
    let cats = caller.category("Cats").await;
    assert_eq!(cats.status, 201, "{cats:?}");
}

/// A transaction cut off while its `BEGIN` was unanswered leaves nothing
/// open. The server's connections (one for requests, one for the event
/// feed's `LISTEN`) go through a proxy that holds
/// PostgreSQL's answer to the next `BEGIN` past the server's database
/// timeout: the write is answered 503, and then no session may stay idle
/// in a transaction (sqlx alone would put the connection back in the pool
/// inside the `BEGIN` it was cut off in, and every later statement on it,
/// autocommitted ones too, would run in that transaction, its row locks
/// held and nothing committed: what made the frozen-database test fail at
/// random).
#[actix_web::test]
async fn a_transaction_cut_off_in_its_begin_leaves_nothing_open() {
    let (cluster, url, key) = fresh().await;
    let proxy = BeginHolder::start(format!("127.0.0.1:{}", cluster.port()));
    let database = url.rsplit('/').next().expect("a database name");
    let proxied = format!(
        "postgres://postgres@{}/{database}?sslmode=disable",
        proxy.address
    );
    let (server, _) = Server::start_with(
        &proxied,
        &["--database-connections", "2", "--database-timeout", "1s"],
    );
    let caller = Caller::new(&server, &key);
    let dogs = caller.category("Dogs").await;
    assert_eq!(dogs.status, 201, "{dogs:?}");

    proxy.hold_next_begin(Duration::from_secs(2));
    let cut = caller.category("Cats").await;
    assert_eq!(cut.status, 503, "the write outlived the timeout: {cut:?}");
    assert_eq!(proxy.held(), 1, "the proxy held a BEGIN");
    // The held answer arrives; then requests that only autocommit (the
    // limiter's round, a read) and a write.
    eventually("the held answer's release", HUNG, || async {
        proxy.released() == 1
    })
    .await;
    let read = caller.read_category(&dogs).await;
    assert_eq!(read.status, 200, "{read:?}");

    use sqlx::Connection as _;
    let mut direct = sqlx::PgConnection::connect(&url)
        .await
        .expect("a direct connection");
    let open: Vec<(i32, String)> = sqlx::query_as(
        "SELECT pid, coalesce(query, '') FROM pg_stat_activity \
         WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
    )
    .fetch_all(&mut direct)
    .await
    .expect("pg_stat_activity");
    assert!(open.is_empty(), "sessions left in a transaction: {open:?}");
    let birds = caller.category("Birds").await;
    assert_eq!(birds.status, 201, "{birds:?}");
    let names: Vec<(String,)> = sqlx::query_as("SELECT name FROM categories ORDER BY id")
        .fetch_all(&mut direct)
        .await
        .expect("categories");
    let names: Vec<&str> = names.iter().map(|(n,)| n.as_str()).collect();
    assert_eq!(names, ["Dogs", "Birds"], "the cut-off write did not happen");
}

/// A TCP proxy to PostgreSQL (without TLS) that, when told to, holds the
/// answer to the next `BEGIN` it forwards for a while.
struct BeginHolder {
    address: String,
    state: Arc<Mutex<HoldState>>,
}

#[derive(Default)]
struct HoldState {
    hold: Option<Duration>,
    held: usize,
    /// Held answers forwarded at last.
    released: usize,
}

impl BeginHolder {
    /// Starts the proxy on a thread of its own (the server's start blocks
    /// the test's runtime while it connects through the proxy).
    fn start(upstream: String) -> BeginHolder {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let state = Arc::new(Mutex::new(HoldState::default()));
        let shared = state.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the proxy");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                while let Ok((client, _)) = listener.accept().await {
                    let Ok(server) = tokio::net::TcpStream::connect(&upstream).await else {
                        continue;
                    };
                    let (from_client, to_client) = client.into_split();
                    let (from_server, to_server) = server.into_split();
                    let until = Arc::new(Mutex::new(None::<Instant>));
                    tokio::spawn(pump(
                        from_client,
                        to_server,
                        {
                            let (state, until) = (shared.clone(), until.clone());
                            move |chunk: &[u8]| {
                                if chunk.windows(6).any(|w| w == b"BEGIN\0") {
                                    let mut state = state.lock().unwrap();
                                    if let Some(hold) = state.hold.take() {
                                        state.held += 1;
                                        *until.lock().unwrap() = Some(Instant::now() + hold);
                                    }
                                }
                                None
                            }
                        },
                        || {},
                    ));
                    let state = shared.clone();
                    tokio::spawn(pump(
                        from_server,
                        to_client,
                        move |_: &[u8]| until.lock().unwrap().take(),
                        move || state.lock().unwrap().released += 1,
                    ));
                }
            });
        });
        BeginHolder { address, state }
    }

    fn hold_next_begin(&self, hold: Duration) {
        self.state.lock().unwrap().hold = Some(hold);
    }

    fn held(&self) -> usize {
        self.state.lock().unwrap().held
    }

    fn released(&self) -> usize {
        self.state.lock().unwrap().released
    }
}

/// Copies one direction of a connection, asking `look` about each chunk
/// before forwarding it: an instant to wait for first. `released` is told
/// when a chunk so held has been forwarded.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut look: impl FnMut(&[u8]) -> Option<Instant> + Send,
    mut released: impl FnMut() + Send,
) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut buffer = vec![0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        let held = look(&buffer[..n]);
        if let Some(until) = held {
            tokio::time::sleep_until(until.into()).await;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            break;
        }
        if held.is_some() {
            released();
        }
    }
}
