//! The server process's end: SIGTERM with streams open, and with a webhook
//! delivery in flight to a slow receiver, on each framework.

use crate::helpers::{create_key, eventually, read, Server, HUNG};
use crate::receiver::{next, receiver};
use petstore_api::runtime::WebhookSecret;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;

on_both! {
    /// SIGTERM ends open streams cleanly (the chunked body's end, no
    /// reset), the last thing they say being when to reconnect, and the
    /// server exits promptly and successfully, not after its grace period.
    async fn sigterm_ends_streams_cleanly_and_the_server_exits(framework) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("petstore.db").display());
        let key = create_key(&url, "pro", None);
        let (mut server, _) = Server::start_with(&url, &["--framework", framework.as_str()]);
        let mut stream = reqwest::Client::new()
            .get(format!("{}/v1/store/events", server.base))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status(), StatusCode::OK);
        let exited = tokio::task::spawn_blocking(move || server.terminate(Duration::from_secs(10)));
        let ended = tokio::time::timeout(Duration::from_secs(10), async {
            let mut said = Vec::new();
            loop {
                match stream.chunk().await {
                    Ok(Some(chunk)) => said.extend_from_slice(&chunk),
                    Ok(None) => return Ok(said),
                    Err(e) => return Err(e),
                }
            }
        })
        .await
        .expect("the stream ends within 10 s");
        let said = String::from_utf8(ended.expect("the stream ends cleanly")).unwrap();
        assert!(said.ends_with("retry: 3000\n\n"), "{said:?}");
        assert_eq!(
            exited.await.unwrap(),
            Some(true),
            "the server exits, successfully, within 10 s"
        );
    }
}

/// A server with a webhook endpoint at a held receiver and one order
/// placed: its delivery is in flight, its attempt waiting on the receiver.
/// The server, the endpoint's id, and what the receiver got.
async fn delivery_in_flight(
    url: &str,
    args: &[&str],
    log: &std::path::Path,
) -> (
    Server,
    i64,
    std::sync::Arc<crate::receiver::Listener>,
    tokio::sync::mpsc::UnboundedReceiver<crate::receiver::Got>,
    crate::receiver::Got,
) {
    let (server, key) = Server::start_logging(url, args, Some(log));
    let key = key.expect("a fresh database prints a bootstrap key");
    let client = reqwest::Client::new();
    let base = server.base.clone();
    let send = |method: Method, path: &str, body: Value| {
        let request = client
            .request(method, format!("{base}{path}"))
            .bearer_auth(&key)
            .json(&body);
        async move { read(request.send().await.unwrap()).await }
    };
    let (receiver_url, receiver, mut deliveries) = receiver(204).await;
    receiver.hold();
    let created = send(
        Method::POST,
        "/v1/webhooks",
        json!({ "url": receiver_url, "events": ["order.placed"] }),
    )
    .await;
    assert_eq!(created.status, 201, "{created:?}");
    let secret = WebhookSecret::parse(created.body["secret"].as_str().unwrap()).unwrap();
    receiver.secrets.set(vec![secret]).unwrap();
    let category = send(Method::POST, "/v1/categories", json!({ "name": "Dogs" })).await;
    let pet = send(
        Method::POST,
        "/v1/pets",
        json!({ "name": "Rex", "categoryId": category.body["id"] }),
    )
    .await;
    let placed = send(
        Method::POST,
        "/v1/store/orders",
        json!({ "petId": pet.body["id"], "quantity": 1 }),
    )
    .await;
    assert_eq!(placed.status, 201, "{placed:?}");
    // The attempt has reached the receiver, which does not answer yet.
    let first = next(&mut deliveries).await;
    let id = created.body["id"].as_i64().unwrap();
    (server, id, receiver, deliveries, first)
}

/// The outbox's rows for endpoint `id`: each delivery's `due_at` (Unix
/// milliseconds) and attempts made, and the attempts recorded.
fn outbox(db: &std::path::Path, id: i64) -> (Vec<(i64, i64)>, Vec<String>) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut deliveries = conn
        .prepare("SELECT due_at, attempts FROM webhook_deliveries WHERE endpoint_id = ?1")
        .unwrap();
    let pending = deliveries
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut attempts = conn
        .prepare("SELECT result FROM webhook_attempts WHERE endpoint_id = ?1")
        .unwrap();
    let made = attempts
        .query_map([id], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (pending, made)
}

on_both! {
    /// SIGTERM while a slow receiver takes its time: the attempt in flight
    /// finishes within the grace period and is recorded, the server exits
    /// successfully, and nothing is left to deliver again.
    async fn sigterm_lets_a_webhook_attempt_in_flight_finish(framework) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("petstore.db");
        let url = format!("sqlite://{}", file.display());
        let args = ["--framework", framework.as_str(), "--webhooks-allow-private"];
        let log = dir.path().join("server.log");
        let (mut server, id, receiver, mut deliveries, _) =
            delivery_in_flight(&url, &args, &log).await;
        let exited = tokio::task::spawn_blocking(move || server.terminate(Duration::from_secs(30)));
        // Stopping, the server waits for the attempt: the receiver answers
        // while it does.
        let waiting = || async {
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .contains("webhook attempts in flight finish")
        };
        eventually("the server waits for the attempt", HUNG, waiting).await;
        receiver.release();
        assert_eq!(exited.await.unwrap(), Some(true), "the server exits, successfully");
        let (pending, made) = outbox(&file, id);
        assert_eq!(pending, [], "nothing left to deliver");
        assert_eq!(made, ["succeeded"]);
        assert!(deliveries.try_recv().is_err(), "delivered once");
    }
}

on_both! {
    /// SIGTERM while a receiver does not answer within the grace period:
    /// the attempt is cut off and handed back to the outbox, due at once
    /// (not after its minute's lease), and the server exits successfully.
    /// The next start delivers it, with the same `webhook-id`.
    async fn sigterm_hands_back_a_webhook_attempt_that_does_not_finish(framework) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("petstore.db");
        let url = format!("sqlite://{}", file.display());
        let args = [
            "--framework",
            framework.as_str(),
            "--webhooks-allow-private",
            "--shutdown-grace",
            "1s",
        ];
        let log = dir.path().join("server.log");
        let (mut server, id, receiver, mut deliveries, first) =
            delivery_in_flight(&url, &args, &log).await;
        let stopped = chrono::Utc::now().timestamp_millis();
        let exited = tokio::task::spawn_blocking(move || server.terminate(Duration::from_secs(30)));
        assert_eq!(exited.await.unwrap(), Some(true), "the server exits, successfully");
        let (pending, made) = outbox(&file, id);
        let [(due, attempts)] = pending[..] else {
            panic!("one delivery pending: {pending:?}");
        };
        assert_eq!(attempts, 0, "the attempt cut off is not counted");
        assert!(made.is_empty(), "{made:?}");
        // Handed back at the grace period's end: due then, not a lease
        // (a minute) after the claim.
        assert!(due < stopped + 30_000, "due {} ms after the stop", due - stopped);

        receiver.release();
        let (_server, _) = Server::start_with(&url, &args);
        let again = next(&mut deliveries).await;
        assert_eq!(again.webhook_id, first.webhook_id);
        assert_eq!(again.event, first.event);
    }
}
