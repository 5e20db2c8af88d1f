//! Every operation walked through its answers, each held to the spec by
//! the contract ([`crate::contract`]).

use crate::contract::contract;
use crate::helpers::{spawn_app, Reply};
use petstore_api::metadata::OPERATIONS;
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::BTreeSet;

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

/// Every operation walked through its answers, success and refusal, each
/// held to the spec by `call`; and every operation reached.
#[actix_web::test]
async fn every_operation_keeps_its_schemas() {
    let app = spawn_app().await;
    let contract = contract();
    let mut reached = BTreeSet::new();
    let mut send = async |method: Method, path: &str, body: Option<Value>| {
        let reply = app.call(method.clone(), path, body).await;
        reached.insert(contract.check(&method, path, &reply).expect("an operation"));
        reply
    };
    let category = send(
        Method::POST,
        "/v1/categories",
        Some(json!({ "name": "Dogs" })),
    )
    .await;
    let category = category.body["id"].as_i64().unwrap();
    send(Method::GET, "/v1/categories", None).await;
    send(Method::GET, &format!("/v1/categories/{category}"), None).await;
    send(Method::GET, "/v1/categories/999999", None).await;
    let pet = send(
        Method::POST,
        "/v1/pets",
        Some(json!({ "name": "Rex", "categoryId": category })),
    )
    .await;
    let pet = pet.body["id"].as_i64().expect("a pet");
    send(Method::POST, "/v1/pets", Some(json!({ "name": "" }))).await;
    send(Method::GET, "/v1/pets?limit=1", None).await;
    send(
        Method::GET,
        &format!("/v1/pets?id={pet}&status=available"),
        None,
    )
    .await;
    send(Method::GET, &format!("/v1/pets/{pet}"), None).await;
    send(Method::GET, "/v1/pets/abc", None).await;
    send(
        Method::PUT,
        &format!("/v1/pets/{pet}"),
        Some(json!({ "name": "Max", "categoryId": category, "status": "available" })),
    )
    .await;
    send(
        Method::PATCH,
        &format!("/v1/inventory/{pet}"),
        Some(json!({ "quantity": 1_000_000 })),
    )
    .await;
    send(Method::GET, "/v1/inventory", None).await;
    send(Method::GET, &format!("/v1/inventory/{pet}"), None).await;
    let order = send(
        Method::POST,
        "/v1/store/orders",
        Some(json!({ "petId": pet, "quantity": 5 })),
    )
    .await;
    let order = order.body["id"].as_i64().unwrap();
    send(
        Method::POST,
        "/v1/store/orders",
        Some(json!({ "petId": 999_999, "quantity": 1 })),
    )
    .await;
    send(Method::GET, "/v1/store/orders", None).await;
    send(Method::GET, &format!("/v1/store/orders/{order}"), None).await;
    // The stock at its maximum with an order open: the cancellation that
    // would overfill it is refused.
    send(
        Method::PATCH,
        &format!("/v1/inventory/{pet}"),
        Some(json!({ "quantity": 1_000_000 })),
    )
    .await;
    send(Method::DELETE, &format!("/v1/store/orders/{order}"), None).await;
    send(Method::GET, "/v1/inventory?limit=100", None).await;
    // A stream refused: a type that does not exist.
    send(Method::GET, "/v1/store/events?type=order.shipped", None).await;
    send(Method::DELETE, &format!("/v1/pets/{pet}"), None).await;
    send(
        Method::POST,
        &format!("/v1/store/orders/{order}/complete"),
        None,
    )
    .await;
    send(Method::DELETE, &format!("/v1/store/orders/{order}"), None).await;
    send(Method::DELETE, &format!("/v1/categories/{category}"), None).await;
    let spare = send(
        Method::POST,
        "/v1/categories",
        Some(json!({ "name": "Cats" })),
    )
    .await;
    send(
        Method::DELETE,
        &format!("/v1/categories/{}", spare.body["id"]),
        None,
    )
    .await;
    // The event stream: its head and its first events (every change so far,
    // replayed from the start), each held to the spec.
    let stream = stream_reply(&app, "/v1/store/events", 3).await;
    reached.insert(
        contract
            .check(&Method::GET, "/v1/store/events", &stream)
            .expect("an operation"),
    );
    let missing: Vec<&str> = OPERATIONS
        .iter()
        .map(|op| op.id)
        .filter(|id| !reached.contains(*id))
        .collect();
    assert!(missing.is_empty(), "operations never reached: {missing:?}");
    assert_eq!(contract.operations().len(), OPERATIONS.len());
}
