//! `Idempotency-Key` on POST: a retry replays the first response without doing
//! the work again.

use crate::helpers::{read, spawn_app, Reply, TestApp};
use petstore_server::keys::Plan;
use serde_json::json;

async fn post_with(
    app: &TestApp,
    key: &str,
    path: &str,
    idempotency_key: &str,
    body: &str,
) -> Reply {
    let r = app
        .client
        .post(format!("{}{path}", app.base))
        .bearer_auth(key)
        .header("Idempotency-Key", idempotency_key)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    read(r).await
}

#[actix_web::test]
async fn a_retry_replays_the_first_response_without_doing_the_work_again() {
    let app = spawn_app().await;
    let category = app.category("Dogs").await;
    let body = format!(r#"{{"name": "Rex", "categoryId": {category}}}"#);
    let first = post_with(&app, &app.key, "/v1/pets", "retry-1", &body).await;
    assert_eq!(first.status, 201);
    // Same request, other spacing and key order.
    let body2 = format!(r#"{{"categoryId":{category},"name":"Rex"}}"#);
    let second = post_with(&app, &app.key, "/v1/pets", "retry-1", &body2).await;
    assert_eq!(second.status, 201);
    assert_eq!(second.body, first.body);
    assert_eq!(second.header("location"), first.header("location"));
    assert_eq!(app.get("/v1/pets").await.body.as_array().unwrap().len(), 1);
    // Without a key, or with another one, the work is done again.
    let third = post_with(&app, &app.key, "/v1/pets", "retry-2", &body).await;
    assert_ne!(third.body["id"], first.body["id"]);
}

#[actix_web::test]
async fn the_same_key_for_another_request_is_refused() {
    let app = spawn_app().await;
    let category = app.category("Dogs").await;
    let a = format!(r#"{{"name": "Rex", "categoryId": {category}}}"#);
    let b = format!(r#"{{"name": "Max", "categoryId": {category}}}"#);
    assert_eq!(
        post_with(&app, &app.key, "/v1/pets", "k", &a).await.status,
        201
    );
    post_with(&app, &app.key, "/v1/pets", "k", &b)
        .await
        .assert_error(422, "idempotency_key_reused");
    // Another operation under the same key is another request too.
    post_with(&app, &app.key, "/v1/categories", "k", r#"{"name": "Rex"}"#)
        .await
        .assert_error(422, "idempotency_key_reused");
}

#[actix_web::test]
async fn keys_are_scoped_per_api_key_and_expire_after_a_day() {
    let app = spawn_app().await;
    let other = app.key(Plan::Pro, None).await;
    let body = r#"{"name": "Fish"}"#;
    let mine = post_with(&app, &app.key, "/v1/categories", "shared", body).await;
    let theirs = post_with(&app, &other, "/v1/categories", "shared", body).await;
    assert_eq!((mine.status.as_u16(), theirs.status.as_u16()), (201, 201));
    assert_ne!(mine.body["id"], theirs.body["id"]);

    app.advance(chrono::Duration::hours(23));
    let replay = post_with(&app, &app.key, "/v1/categories", "shared", body).await;
    assert_eq!(replay.body, mine.body);
    app.advance(chrono::Duration::hours(2));
    let fresh = post_with(&app, &app.key, "/v1/categories", "shared", body).await;
    assert_eq!(fresh.status, 201);
    assert_ne!(fresh.body["id"], mine.body["id"]);
}

#[actix_web::test]
async fn concurrent_retries_of_an_order_order_once() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(10).await;
    let body = format!(r#"{{"petId": {pet}, "quantity": 1}}"#);
    let attempts =
        (0..20).map(|_| post_with(&app, &app.key, "/v1/store/orders", "order-once", &body));
    let replies = futures_util::future::join_all(attempts).await;
    for r in &replies {
        assert_eq!(r.status, 201, "{r:?}");
        assert_eq!(r.body, replies[0].body);
    }
    let orders = app.get(&format!("/v1/store/orders?petId={pet}")).await;
    assert_eq!(orders.body.as_array().unwrap().len(), 1);
    assert_eq!(
        app.get(&format!("/v1/inventory/{pet}")).await.body["quantity"],
        9
    );
}

#[actix_web::test]
async fn failed_requests_are_not_remembered() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(1).await;
    let body = format!(r#"{{"petId": {pet}, "quantity": 2}}"#);
    post_with(&app, &app.key, "/v1/store/orders", "later", &body)
        .await
        .assert_error(409, "out_of_stock");
    app.call(
        reqwest::Method::PATCH,
        &format!("/v1/inventory/{pet}"),
        Some(json!({ "quantity": 5 })),
    )
    .await;
    // Nothing was done the first time, so the retry does the work now.
    assert_eq!(
        post_with(&app, &app.key, "/v1/store/orders", "later", &body)
            .await
            .status,
        201
    );
}
