//! Webhooks (`/v1/webhooks`): endpoints belong to their key, the secret is
//! shown once, bad URLs and plans' limits are refused, and deliveries reach
//! a receiver generated from the same spec (`petstore_api::webhooks`),
//! which verifies their signatures: retried with the same id on failure,
//! the endpoint disabled after the schedule, a dead receiver holding up no
//! other.

use crate::helpers::HUNG;
use crate::helpers::{eventually, spawn_app_with_webhooks, TestApp};
use crate::receiver::{next, receiver};
use petstore_api::models::StoreEvent;
use petstore_api::runtime::WebhookSecret;
use petstore_server::keys::Plan;
use petstore_server::webhooks::WebhookSettings;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;

/// A server that delivers to loopback receivers, retrying after 50 ms
/// twice.
async fn app() -> TestApp {
    spawn_app_with_webhooks(WebhookSettings {
        schedule: "50ms,50ms".parse().unwrap(),
        allow_private: true,
    })
    .await
}

/// Subscribes `url` to `events` with the app's key; the created endpoint.
async fn subscribe(app: &TestApp, url: &str, events: &[&str]) -> Value {
    let r = app
        .post("/v1/webhooks", json!({ "url": url, "events": events }))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{r:?}");
    r.body
}

/// The attempts to deliver to endpoint `id`, once `n` are recorded.
async fn attempts(app: &TestApp, id: i64, n: usize) -> Value {
    let path = format!("/v1/webhooks/{id}/deliveries");
    eventually(&format!("{n} attempt(s) recorded"), HUNG, || async {
        app.get(&path)
            .await
            .body
            .as_array()
            .is_some_and(|a| a.len() >= n)
    })
    .await;
    app.get(&path).await.body
}

/// Places an order for a new pet: one `order.placed` event.
async fn order(app: &TestApp) -> i64 {
    let pet = app.pet_with_stock(5).await;
    let r = app
        .post("/v1/store/orders", json!({ "petId": pet, "quantity": 1 }))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{r:?}");
    r.body["id"].as_i64().unwrap()
}

fn order_of(event: &StoreEvent) -> (i64, i64) {
    match event {
        StoreEvent::OrderEvent(e) => (e.id, e.order_id),
        other => panic!("an order event, not {other:?}"),
    }
}

#[actix_web::test]
async fn an_endpoint_shows_its_secret_once_and_belongs_to_its_key() {
    let app = app().await;
    let created = subscribe(&app, "https://example.com/hooks", &["order.placed"]).await;
    let secret = created["secret"].as_str().unwrap();
    let key = WebhookSecret::parse(secret).expect("a Standard Webhooks secret");
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert_eq!(key.expose(), secret);
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["enabled"], true);

    let got = app.get(&format!("/v1/webhooks/{id}")).await;
    assert_eq!(got.status, StatusCode::OK, "{got:?}");
    assert_eq!(got.body["url"], "https://example.com/hooks");
    assert_eq!(got.body.get("secret"), None, "shown only at creation");
    let listed = app.get("/v1/webhooks").await;
    assert_eq!(listed.body.as_array().unwrap().len(), 1);
    assert_eq!(listed.body[0].get("secret"), None);

    // Another key sees none of it.
    let other = app.key(Plan::Pro, None).await;
    let theirs = app.get_as(Some(&other), "/v1/webhooks").await;
    assert_eq!(theirs.body, json!([]));
    let theirs = app
        .get_as(Some(&other), &format!("/v1/webhooks/{id}"))
        .await;
    theirs.assert_error(404, "not_found");

    let deleted = app
        .call(Method::DELETE, &format!("/v1/webhooks/{id}"), None)
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{deleted:?}");
    app.get(&format!("/v1/webhooks/{id}"))
        .await
        .assert_error(404, "not_found");
}

#[actix_web::test]
async fn bad_urls_unknown_events_and_a_plans_limit_are_refused_with_422() {
    // The address rule on, as in production.
    let app = spawn_app_with_webhooks(WebhookSettings::default()).await;
    let refused = [
        (
            json!({ "url": "ftp://example.com/x", "events": ["order.placed"] }),
            "http or https",
        ),
        (
            json!({ "url": "http://127.0.0.1:8080/x", "events": ["order.placed"] }),
            "127.0.0.1",
        ),
        (
            json!({ "url": "http://[::1]/x", "events": ["order.placed"] }),
            "::1",
        ),
        (
            json!({ "url": "http://10.0.0.7/x", "events": ["order.placed"] }),
            "10.0.0.7",
        ),
        // `localhost` is loopback by name (RFC 6761).
        (
            json!({ "url": "http://localhost:9/x", "events": ["order.placed"] }),
            "loopback name",
        ),
        (
            json!({ "url": "https://user:secret@example.com/x", "events": ["order.placed"] }),
            "credentials",
        ),
        (
            json!({ "url": "https://example.com/x", "events": ["order.shipped"] }),
            "order.shipped",
        ),
        (
            json!({ "url": "https://example.com/x", "events": [] }),
            "events",
        ),
    ];
    for (body, says) in refused {
        let r = app.post("/v1/webhooks", body.clone()).await;
        r.assert_error(422, "validation_failed");
        let message = r.body["message"].as_str().unwrap();
        assert!(message.contains(says), "{body}: {message}");
    }
    // A public address passes (written as one: this test needs no DNS).
    let r = app
        .post(
            "/v1/webhooks",
            json!({ "url": "http://93.184.216.34/x", "events": ["order.placed"] }),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{r:?}");
    // So does a name that does not resolve now (`.invalid` never does):
    // where it leads is checked at each delivery, not here.
    let r = app
        .post(
            "/v1/webhooks",
            json!({ "url": "https://shop.no-such-host.invalid/hooks/store", "events": ["order.placed"] }),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{r:?}");
    // A free key holds two endpoints.
    let app = self::app().await;
    let free = app.key(Plan::Free, None).await;
    for n in 0..3 {
        let r = crate::helpers::call(
            &app.client,
            &app.base,
            &free,
            Method::POST,
            "/v1/webhooks",
            Some(json!({ "url": format!("https://example.com/{n}"), "events": ["order.placed"] })),
        )
        .await;
        if n < 2 {
            assert_eq!(r.status, StatusCode::CREATED, "{r:?}");
        } else {
            r.assert_error(422, "validation_failed");
            let message = r.body["message"].as_str().unwrap();
            assert!(
                message.contains("the most its plan allows (2)"),
                "{message}"
            );
        }
    }
}

#[actix_web::test]
async fn events_are_delivered_signed_and_verified_by_the_generated_receiver() {
    let app = app().await;
    let (url, receiver, mut deliveries) = receiver(204).await;
    let created = subscribe(&app, &url, &["order.placed"]).await;
    let secret = WebhookSecret::parse(created["secret"].as_str().unwrap()).unwrap();
    receiver.secrets.set(vec![secret]).unwrap();
    let placed = order(&app).await;
    let got = next(&mut deliveries).await;
    let (event_id, order_id) = order_of(&got.event);
    assert_eq!(order_id, placed);
    assert_eq!(got.webhook_id, event_id.to_string(), "the event's id");
    // The same event as the feed has it.
    let feed = app.db.events_after(event_id - 1, 1).await.unwrap();
    assert_eq!(feed, std::slice::from_ref(&got.event));

    let id = created["id"].as_i64().unwrap();
    let attempts = attempts(&app, id, 1).await;
    assert_eq!(attempts[0]["eventId"], event_id);
    assert_eq!(attempts[0]["attempt"], 1);
    assert_eq!(attempts[0]["result"], "succeeded");
    assert_eq!(attempts[0]["status"], 204);
    // And counted (just after it is recorded).
    let metrics = app.metrics.as_ref().expect("metrics on");
    eventually("the attempt is counted", HUNG, || async {
        let text = app
            .client
            .get(metrics)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.contains("petstore_webhook_attempts_total{result=\"succeeded\"} 1")
    })
    .await;
}

/// A new endpoint gets the events committed after its creation, not one
/// committed before it. The row planted here is committed and still
/// pending on PostgreSQL (the sequencer gives it its final id at the next
/// write), as a write the client has just seen answered can be.
#[actix_web::test]
async fn a_new_endpoint_gets_no_event_committed_before_it() {
    let app = app().await;
    let elsewhere = 999_999;
    app.commit_event_outside(elsewhere).await;
    let (url, receiver, mut deliveries) = receiver(204).await;
    let created = subscribe(&app, &url, &["inventory.changed", "order.placed"]).await;
    let secret = WebhookSecret::parse(created["secret"].as_str().unwrap()).unwrap();
    receiver.secrets.set(vec![secret]).unwrap();
    let placed = order(&app).await;
    loop {
        let got = next(&mut deliveries).await;
        match &got.event {
            StoreEvent::InventoryEvent(e) => assert_ne!(
                e.pet_id, elsewhere,
                "the event committed before the endpoint was delivered"
            ),
            StoreEvent::OrderEvent(e) => {
                assert_eq!(e.order_id, placed);
                break;
            }
        }
    }
}

#[actix_web::test]
async fn a_failing_receiver_gets_retries_with_the_same_id_then_the_endpoint_is_disabled() {
    let app = app().await;
    let (url, receiver, mut deliveries) = receiver(500).await;
    let created = subscribe(&app, &url, &["order.placed"]).await;
    let secret = WebhookSecret::parse(created["secret"].as_str().unwrap()).unwrap();
    receiver.secrets.set(vec![secret]).unwrap();
    order(&app).await;
    // The first attempt and the schedule's two retries, one id.
    let first = next(&mut deliveries).await;
    for _ in 0..2 {
        let again = next(&mut deliveries).await;
        assert_eq!(again.webhook_id, first.webhook_id);
        assert_eq!(again.event, first.event);
    }
    let id = created["id"].as_i64().unwrap();
    let endpoint = format!("/v1/webhooks/{id}");
    eventually("the endpoint is disabled", HUNG, || async {
        app.get(&endpoint).await.body["enabled"] == false
    })
    .await;
    let reason = app.get(&endpoint).await.body["disabledReason"].clone();
    assert!(
        reason
            .as_str()
            .is_some_and(|r| r.contains("3 attempts") && r.contains("HTTP 500")),
        "{reason}"
    );
    let attempts = app.get(&format!("{endpoint}/deliveries")).await.body;
    let seen: Vec<(i64, &str, i64)> = attempts
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["attempt"].as_i64().unwrap(),
                a["result"].as_str().unwrap(),
                a["status"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [(1, "failed", 500), (2, "failed", 500), (3, "failed", 500)]
    );
    // A disabled endpoint is sent nothing more.
    receiver.status.store(204, Ordering::Relaxed);
    order(&app).await;
    let (url2, receiver2, mut healthy) = self::receiver(204).await;
    let created2 = subscribe(&app, &url2, &["order.placed"]).await;
    receiver2
        .secrets
        .set(vec![WebhookSecret::parse(
            created2["secret"].as_str().unwrap(),
        )
        .unwrap()])
        .unwrap();
    order(&app).await;
    next(&mut healthy).await;
    assert!(
        deliveries.try_recv().is_err(),
        "nothing more to a disabled endpoint"
    );
}

#[actix_web::test]
async fn a_receiver_that_never_answers_holds_up_no_other_endpoint() {
    let app = app().await;
    // Takes connections and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_url = format!("http://{}/", silent.local_addr().unwrap());
    actix_web::rt::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let stuck = subscribe(&app, &silent_url, &["order.placed"]).await;
    let (url, receiver, mut deliveries) = receiver(204).await;
    let created = subscribe(&app, &url, &["order.placed"]).await;
    receiver
        .secrets
        .set(vec![WebhookSecret::parse(
            created["secret"].as_str().unwrap(),
        )
        .unwrap()])
        .unwrap();
    for _ in 0..3 {
        order(&app).await;
    }
    for _ in 0..3 {
        next(&mut deliveries).await;
    }
    // Every event reached the healthy receiver while the silent one's
    // first attempt is still waiting out its 10 seconds.
    let stuck = stuck["id"].as_i64().unwrap();
    let attempts = app.get(&format!("/v1/webhooks/{stuck}/deliveries")).await;
    assert_eq!(
        attempts.body,
        json!([]),
        "no attempt of the silent one has ended"
    );
}

#[actix_web::test]
async fn a_delivery_without_a_valid_signature_is_refused_by_the_receiver() {
    // The receiver knows another secret: it answers 401 before its
    // handler runs, and the store counts a failure.
    let app = app().await;
    let (url, receiver, mut deliveries) = receiver(204).await;
    receiver
        .secrets
        .set(vec![WebhookSecret::parse(
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        )
        .unwrap()])
        .unwrap();
    let created = subscribe(&app, &url, &["order.placed"]).await;
    order(&app).await;
    let id = created["id"].as_i64().unwrap();
    let attempts = attempts(&app, id, 1).await;
    assert_eq!(attempts[0]["result"], "failed");
    assert_eq!(attempts[0]["status"], 401);
    assert!(deliveries.try_recv().is_err(), "the handler never ran");
}

#[actix_web::test]
async fn a_url_that_leads_inside_when_delivered_to_is_refused_then() {
    let app = spawn_app_with_webhooks(WebhookSettings {
        schedule: "50ms".parse().unwrap(),
        allow_private: false,
    })
    .await;
    let (url, _receiver, mut deliveries) = receiver(204).await;
    let created = subscribe(&app, "http://93.184.216.34/hooks/store", &["order.placed"]).await;
    let id = created["id"].as_i64().unwrap();
    // As if its name were rebound after the check: it now resolves to the
    // loopback receiver.
    let inside = url.replace("127.0.0.1", "localhost");
    app.outside(&format!(
        "UPDATE webhook_endpoints SET url = '{inside}' WHERE id = {id}"
    ))
    .await;
    order(&app).await;
    let attempts = attempts(&app, id, 2).await;
    for attempt in attempts.as_array().unwrap() {
        assert_eq!(attempt["result"], "refused", "{attempt}");
        assert!(
            attempt["error"]
                .as_str()
                .is_some_and(|e| e.contains("localhost")),
            "{attempt}"
        );
    }
    assert!(
        deliveries.try_recv().is_err(),
        "nothing reached the receiver"
    );
}

/// A delivery queued for its retry survives `kill -9`: the restarted
/// server makes it, with the same id.
#[actix_web::test]
async fn a_pending_delivery_survives_kill_9() {
    use crate::helpers::{database_url, read, Server};
    let dir = tempfile::tempdir().unwrap();
    let url = database_url(dir.path()).await;
    let args = [
        "--webhooks-allow-private",
        "--webhook-retry-schedule",
        "1s,1s,1s",
    ];
    let (mut server, key) = Server::start_with(&url, &args);
    let key = key.expect("a fresh database prints a bootstrap key");
    let client = reqwest::Client::new();
    let send = |method: Method, base: &str, path: &str, body: Option<Value>| {
        let mut request = client
            .request(method, format!("{base}{path}"))
            .bearer_auth(&key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        async move { read(request.send().await.unwrap()).await }
    };
    // The receiver fails the first attempt: a retry is queued.
    let (receiver_url, receiver, mut deliveries) = receiver(503).await;
    let created = send(
        Method::POST,
        &server.base,
        "/v1/webhooks",
        Some(json!({ "url": receiver_url, "events": ["order.placed"] })),
    )
    .await;
    assert_eq!(created.status, 201, "{created:?}");
    let secret = WebhookSecret::parse(created.body["secret"].as_str().unwrap()).unwrap();
    receiver.secrets.set(vec![secret]).unwrap();
    let id = created.body["id"].as_i64().unwrap();
    let category = send(
        Method::POST,
        &server.base,
        "/v1/categories",
        Some(json!({ "name": "Dogs" })),
    )
    .await;
    let pet = send(
        Method::POST,
        &server.base,
        "/v1/pets",
        Some(json!({ "name": "Rex", "categoryId": category.body["id"] })),
    )
    .await;
    let placed = send(
        Method::POST,
        &server.base,
        "/v1/store/orders",
        Some(json!({ "petId": pet.body["id"], "quantity": 1 })),
    )
    .await;
    assert_eq!(placed.status, 201, "{placed:?}");
    let first = next(&mut deliveries).await;
    let path = format!("/v1/webhooks/{id}/deliveries");
    let base = server.base.clone();
    eventually("the failed attempt is recorded", HUNG, || {
        let attempt = send(Method::GET, &base, &path, None);
        async move { attempt.await.body.as_array().is_some_and(|a| a.len() == 1) }
    })
    .await;
    server.kill_9();

    receiver.status.store(204, Ordering::Relaxed);
    let (mut server, _) = Server::start_with(&url, &args);
    let retried = next(&mut deliveries).await;
    assert_eq!(
        retried.webhook_id, first.webhook_id,
        "the same id after the restart"
    );
    assert_eq!(retried.event, first.event);
    let base = server.base.clone();
    eventually("the success is recorded", HUNG, || {
        let attempt = send(Method::GET, &base, &path, None);
        async move { attempt.await.body.as_array().is_some_and(|a| a.len() == 2) }
    })
    .await;
    let attempts = send(Method::GET, &server.base, &path, None).await.body;
    assert_eq!(attempts[1]["result"], "succeeded", "{attempts}");
    assert_eq!(attempts[1]["attempt"], 2, "{attempts}");
    server.kill_9();
}

#[actix_web::test]
async fn a_redirect_is_not_followed() {
    let app = app().await;
    let (target, _receiver, mut deliveries) = receiver(204).await;
    // Answers every request with a redirect to the receiver.
    let redirecting = actix_web::HttpServer::new(move || {
        let target = target.clone();
        actix_web::App::new().default_service(actix_web::web::to(move || {
            let target = target.clone();
            async move {
                actix_web::HttpResponse::TemporaryRedirect()
                    .insert_header(("location", target))
                    .finish()
            }
        }))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let url = format!("http://{}/", redirecting.addrs()[0]);
    actix_web::rt::spawn(redirecting.run());
    let created = subscribe(&app, &url, &["order.placed"]).await;
    order(&app).await;
    let id = created["id"].as_i64().unwrap();
    let attempts = attempts(&app, id, 1).await;
    assert_eq!(attempts[0]["result"], "failed", "{attempts}");
    assert_eq!(attempts[0]["status"], 307, "{attempts}");
    assert!(
        deliveries.try_recv().is_err(),
        "the redirect's target got nothing"
    );
}

#[actix_web::test]
async fn attempts_older_than_thirty_days_are_pruned() {
    let app = app().await;
    let created = subscribe(&app, "http://93.184.216.34/x", &["order.completed"]).await;
    let id = created["id"].as_i64().unwrap();
    let now = chrono::Utc::now();
    let old = (now - chrono::Duration::days(31)).timestamp_millis();
    let recent = (now - chrono::Duration::days(29)).timestamp_millis();
    app.outside(&format!(
        "INSERT INTO webhook_attempts (endpoint_id, event_id, attempt, result, status, \
         attempted_at) VALUES ({id}, 1, 1, 'failed', 500, {old}), \
         ({id}, 2, 1, 'succeeded', 204, {recent})"
    ))
    .await;
    // The dispatcher prunes every ten minutes too: only what is left is
    // asserted.
    app.db.prune_webhook_attempts(now).await.unwrap();
    let left = app.get(&format!("/v1/webhooks/{id}/deliveries")).await.body;
    let events: Vec<&Value> = left
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["eventId"])
        .collect();
    assert_eq!(events, [&json!(2)], "{left}");
}
