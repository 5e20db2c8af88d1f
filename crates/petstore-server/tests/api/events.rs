//! `GET /v1/store/events` through the generated client: every change as
//! an event, in commit order, filtered; resuming by id without gaps or
//! repeats; 410 for an id no longer kept; the per-key stream limit; a
//! subscriber that never reads is cut off; the feed's close ends streams.

use crate::helpers::{eventually, spawn, spawn_app, spawn_app_on, Options, TestApp, HUNG};
use petstore_api::client::Client;
use petstore_api::models::{StoreEvent, StoreEventType};
use petstore_api::operations::*;
use petstore_api::runtime::{self, Event, StreamError, StreamExt as _};
use petstore_server::keys::Plan;
use petstore_server::limits::ClientLimits;
use reqwest::StatusCode;
use serde_json::json;
use std::time::Duration;

fn client(app: &TestApp, key: &str) -> Client {
    Client::new(&format!("{}/v1", app.base))
        .unwrap()
        .with_bearer_auth(key)
}

fn watch(
    types: Option<Vec<StoreEventType>>,
    pet_id: Option<i64>,
    after: Option<i64>,
) -> WatchStoreRequest {
    WatchStoreRequest {
        type_: types,
        pet_id,
        last_event_id: after,
    }
}

/// A stream that is open when this returns: the server has subscribed it.
async fn subscribe(
    client: &Client,
    request: WatchStoreRequest,
) -> runtime::EventStream<StoreEvent, WatchStoreResponse> {
    match client
        .watch_store(request)
        .await
        .expect("an answer")
        .into_inner()
    {
        WatchStoreResponse::Ok {
            body,
            x_api_stability,
        } => {
            assert_eq!(x_api_stability.as_ref().map(|s| s.as_str()), Some("beta"));
            body
        }
        other => panic!("expected the stream, got {other:?}"),
    }
}

/// The (SSE id, type, pet) of an event, checked against its body.
fn meta(event: &Event<StoreEvent>) -> (i64, StoreEventType, i64) {
    let (id, kind, pet) = match &event.data {
        StoreEvent::OrderEvent(e) => (e.id, e.type_.clone(), e.pet_id),
        StoreEvent::InventoryEvent(e) => (e.id, e.type_.clone(), e.pet_id),
    };
    assert_eq!(event.id, Some(id.to_string()), "the SSE id is the event's");
    assert_eq!(event.event.as_deref(), Some(kind.as_str()));
    (id, kind, pet)
}

/// The next `n` events of `stream`, within ten seconds.
async fn next_events<S>(stream: &mut S, n: usize) -> Vec<Event<StoreEvent>>
where
    S: runtime::Stream<Item = Result<Event<StoreEvent>, StreamError<WatchStoreResponse>>> + Unpin,
{
    let mut events = Vec::new();
    while events.len() < n {
        let next = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .unwrap_or_else(|_| panic!("no event within 10 s after {} of {n}", events.len()));
        events.push(next.expect("the stream goes on").expect("an event"));
    }
    events
}

async fn order(app: &TestApp, pet: i64, quantity: i64) -> i64 {
    let r = app
        .post(
            "/v1/store/orders",
            json!({"petId": pet, "quantity": quantity}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{r:?}");
    r.body["id"].as_i64().unwrap()
}

on_both! {
    async fn every_change_is_an_event_in_commit_order_and_filters_apply(framework) {
        let app = spawn_app_on(framework).await;
        let client = client(&app, &app.key);
        let pet = app.pet_with_stock(5).await;
        let mut all = subscribe(&client, watch(None, None, None)).await;
        let mut placed = subscribe(
            &client,
            watch(
                Some(vec![
                    StoreEventType::OrderPlaced,
                    StoreEventType::OrderCancelled,
                ]),
                Some(pet),
                None,
            ),
        )
        .await;
        let first = order(&app, pet, 2).await;
        let events = next_events(&mut all, 2).await;
        let second = order(&app, pet, 1).await;
        let r = app
            .call(
                reqwest::Method::DELETE,
                &format!("/v1/store/orders/{first}"),
                None,
            )
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{r:?}");
        let r = app
            .post(&format!("/v1/store/orders/{second}/complete"), json!({}))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{r:?}");
        let events: Vec<_> = events
            .into_iter()
            .chain(next_events(&mut all, 5).await)
            .collect();
        let seen: Vec<_> = events.iter().map(meta).collect();
        let kinds: Vec<_> = seen.iter().map(|(_, kind, _)| kind.clone()).collect();
        use StoreEventType::*;
        assert_eq!(
            kinds,
            [
                OrderPlaced,
                InventoryChanged,
                OrderPlaced,
                InventoryChanged,
                OrderCancelled,
                InventoryChanged,
                OrderCompleted
            ]
        );
        assert!(
            seen.windows(2).all(|w| w[0].0 < w[1].0),
            "ids increase: {seen:?}"
        );
        // The stock each event carries is the stock after its change.
        let stocks: Vec<i32> = events
            .iter()
            .map(|e| match &e.data {
                StoreEvent::OrderEvent(o) => o.stock,
                StoreEvent::InventoryEvent(i) => i.stock,
            })
            .collect();
        assert_eq!(stocks, [3, 3, 2, 2, 4, 4, 4]);
        // The filtered stream saw only this pet's placements and cancellation.
        let filtered: Vec<_> = next_events(&mut placed, 3).await.iter().map(meta).collect();
        let kinds: Vec<_> = filtered.iter().map(|(_, kind, _)| kind.clone()).collect();
        assert_eq!(kinds, [OrderPlaced, OrderPlaced, OrderCancelled]);
    }
}

/// A stream opened without an id starts after every event committed
/// before it was asked for, whether or not the feed has handed it out yet.
/// On PostgreSQL a committed event waits for the sequencer to get its final
/// id: the row planted here is committed and pending (the server's own
/// writes are sequenced within milliseconds, this one not until the next
/// write or the second's fallback), so the order's write, after the
/// subscription, sequences both; the stream must begin with the order's.
#[actix_web::test]
async fn a_new_stream_starts_after_every_committed_event() {
    let app = spawn_app().await;
    let client = client(&app, &app.key);
    let pet = app.pet_with_stock(5).await;
    let other = app.pet_with_stock(1).await;
    app.commit_event_outside(other).await;
    let mut all = subscribe(&client, watch(None, None, None)).await;
    order(&app, pet, 1).await;
    let seen: Vec<_> = next_events(&mut all, 2).await.iter().map(meta).collect();
    let kinds: Vec<_> = seen
        .iter()
        .map(|(_, kind, pet)| (kind.clone(), *pet))
        .collect();
    assert_eq!(
        kinds,
        [
            (StoreEventType::OrderPlaced, pet),
            (StoreEventType::InventoryChanged, pet)
        ],
        "an event committed before the stream was opened was sent: {seen:?}"
    );
}

on_both! {
    async fn resuming_by_id_misses_nothing_and_repeats_nothing(framework) {
        let app = spawn_app_on(framework).await;
        let client = client(&app, &app.key);
        let pet = app.pet_with_stock(100).await;
        let mut stream = subscribe(
            &client,
            watch(Some(vec![StoreEventType::OrderPlaced]), None, None),
        )
        .await;
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(order(&app, pet, 1).await);
        }
        let first: Vec<_> = next_events(&mut stream, 3).await.iter().map(meta).collect();
        drop(stream);
        // Changes while nobody listens, then a new stream from the last id.
        for _ in 0..4 {
            ids.push(order(&app, pet, 1).await);
        }
        let last_seen = first.last().unwrap().0;
        let mut resumed = client.watch_store_events(watch(
            Some(vec![StoreEventType::OrderPlaced]),
            None,
            Some(last_seen),
        ));
        let rest: Vec<i64> = next_events(&mut resumed, 4)
            .await
            .iter()
            .map(|e| match &e.data {
                StoreEvent::OrderEvent(o) => o.order_id,
                other => panic!("not an order event: {other:?}"),
            })
            .collect();
        assert_eq!(
            rest,
            ids[3..],
            "the four orders after the last id, once each"
        );
        // And it goes on live.
        let live = order(&app, pet, 1).await;
        let next = next_events(&mut resumed, 1).await;
        match &next[0].data {
            StoreEvent::OrderEvent(o) => assert_eq!(o.order_id, live),
            other => panic!("not an order event: {other:?}"),
        }
    }
}

#[actix_web::test]
async fn an_id_older_than_the_kept_events_is_gone() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(10).await;
    order(&app, pet, 1).await;
    order(&app, pet, 1).await;
    // A day and more later, everything so far is pruned.
    let pruned = app
        .db
        .prune_events(chrono::Utc::now() + chrono::Duration::hours(25))
        .await
        .unwrap();
    assert!(pruned >= 4, "pruned {pruned}");
    let r = app
        .client
        .get(format!("{}/v1/store/events", app.base))
        .bearer_auth(&app.key)
        .header("Last-Event-ID", "1")
        .send()
        .await
        .unwrap();
    let r = crate::helpers::read(r).await;
    r.assert_error(410, "event_id_expired");
    // The typed client reads it as the declared 410.
    let client = client(&app, &app.key);
    let mut stream = client.watch_store_events(watch(None, None, Some(1)));
    match stream.next().await {
        Some(Err(StreamError::Answered(reply))) => {
            assert!(
                matches!(reply.value, WatchStoreResponse::Gone(_)),
                "{reply:?}"
            )
        }
        other => panic!("expected the typed 410, got {other:?}"),
    }
}

/// Opens a stream on a connection of its own and reads its head: the
/// status line. (Off the test's runtime thread, which a blocking read
/// would stall, with whatever the server left running on it.)
async fn open_raw(app: &TestApp, key: &str) -> (std::net::TcpStream, String) {
    let (address, key) = (
        app.base.trim_start_matches("http://").to_string(),
        key.to_string(),
    );
    tokio::task::spawn_blocking(move || open_raw_blocking(&address, &key))
        .await
        .unwrap()
}

fn open_raw_blocking(address: &str, key: &str) -> (std::net::TcpStream, String) {
    use std::io::{BufRead as _, Write as _};
    let socket = std::net::TcpStream::connect(address).unwrap();
    let request = format!(
        "GET /v1/store/events HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\n\r\n"
    );
    (&socket).write_all(request.as_bytes()).unwrap();
    let mut status = String::new();
    std::io::BufReader::new(&socket)
        .read_line(&mut status)
        .unwrap();
    (socket, status.trim_end().to_string())
}

on_both! {
    async fn a_free_key_holds_two_streams_and_a_closed_one_frees_its_place(framework) {
        // The server learns of a closed connection when a write to it fails:
        // the keep-alive comments, short here, draw the peer's reset.
        let app = spawn(Options {
            framework,
            client_limits: ClientLimits {
                stream_keep_alive: Duration::from_millis(50),
                ..Default::default()
            },
            ..Options::default()
        })
        .await;
        let key = app.key(Plan::Free, None).await;
        let (first, status) = open_raw(&app, &key).await;
        assert_eq!(status, "HTTP/1.1 200 OK");
        let (_second, status) = open_raw(&app, &key).await;
        assert_eq!(status, "HTTP/1.1 200 OK");
        let client = client(&app, &key);
        match client
            .watch_store(watch(None, None, None))
            .await
            .unwrap()
            .into_inner()
        {
            WatchStoreResponse::TooManyRequests(refused) => {
                assert_eq!(refused.body.code, "too_many_streams");
                assert!(refused.retry_after > 0);
            }
            other => panic!("expected 429 too_many_streams, got {other:?}"),
        }
        // Another key is not limited by this one's streams.
        let (_other, status) = open_raw(&app, &app.key).await;
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(app.feed.subscribers(), 3);
        drop(first);
        // The closed stream's subscription ends; then its place is free.
        let feed = &app.feed;
        eventually("the closed stream noticed", HUNG, move || async move {
            feed.subscribers() == 2
        })
        .await;
        let reply = client.watch_store(watch(None, None, None)).await.unwrap();
        assert!(
            matches!(reply.value, WatchStoreResponse::Ok { .. }),
            "a closed stream's place was not freed: {reply:?}"
        );
    }
}

on_both! {
    async fn a_subscriber_that_never_reads_is_cut_off_and_memory_stays_bounded(framework) {
        use petstore_server::feed::QUEUE;
        let app = spawn_app_on(framework).await;
        let pet = app.pet_with_stock(1_000_000).await;
        // A subscriber whose events nobody takes: what it may hold is its
        // queue, then it is dropped.
        let silent = app
            .feed
            .subscribe(None, Default::default(), None)
            .await
            .expect("subscribed");
        assert_eq!(app.feed.subscribers(), 1);
        // Two events per order: enough orders to fill its queue and more.
        let enough = QUEUE / 2 + 50;
        let mut orders = 0;
        while orders < enough {
            let batch: Vec<_> = (0..25).map(|_| order(&app, pet, 1)).collect();
            futures_util::future::join_all(batch).await;
            orders += 25;
            // Not before its queue was full: fewer events than it holds have
            // been committed (the hub may hand them out later, never sooner).
            if 2 * orders < QUEUE {
                assert_eq!(
                    app.feed.dropped(),
                    0,
                    "cut off after {orders} orders, before its queue was full"
                );
            }
        }
        // Then it is cut off, and its queue freed.
        let feed = &app.feed;
        eventually("the silent subscriber cut off", HUNG, move || async move {
            feed.dropped() == 1
        })
        .await;
        assert_eq!(app.feed.subscribers(), 0, "its queue was freed");
        drop(silent);
    }
}

on_both! {
    async fn closing_the_feed_ends_streams_cleanly(framework) {
        let app = spawn_app_on(framework).await;
        let client = client(&app, &app.key);
        let mut stream = subscribe(&client, watch(None, None, None))
            .await
            .resume(false);
        let pet = app.pet_with_stock(3).await;
        order(&app, pet, 1).await;
        next_events(&mut stream, 1).await;
        app.feed.close();
        let rest: Vec<_> = tokio::time::timeout(Duration::from_secs(10), stream.collect::<Vec<_>>())
            .await
            .expect("the stream ends");
        assert!(
            rest.iter().all(Result::is_ok),
            "it ends without an error: {rest:?}"
        );
    }
}
