//! Orders and the stock they take.

use crate::helpers::{spawn_app, TestApp};
use reqwest::Method;
use serde_json::json;

async fn stock(app: &TestApp, pet: i64) -> (i64, String) {
    let item = app.get(&format!("/v1/inventory/{pet}")).await;
    (
        item.body["quantity"].as_i64().unwrap(),
        item.body["status"].as_str().unwrap().to_string(),
    )
}

#[actix_web::test]
async fn placing_orders_takes_stock_and_the_last_unit_sells_the_pet() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(3).await;
    let order = app
        .post("/v1/store/orders", json!({ "petId": pet, "quantity": 2 }))
        .await;
    assert_eq!(order.status, 201);
    let id = order.body["id"].as_i64().unwrap();
    assert_eq!(
        order.header("location"),
        Some(format!("/v1/store/orders/{id}").as_str())
    );
    assert_eq!(
        order.body,
        json!({ "id": id, "petId": pet, "quantity": 2, "complete": false })
    );
    assert_eq!(stock(&app, pet).await, (1, "available".into()));

    app.post("/v1/store/orders", json!({ "petId": pet, "quantity": 2 }))
        .await
        .assert_error(409, "out_of_stock");
    let last = app
        .post("/v1/store/orders", json!({ "petId": pet, "quantity": 1 }))
        .await;
    assert_eq!(last.status, 201);
    assert_eq!(stock(&app, pet).await, (0, "sold".into()));
    assert_eq!(
        app.get(&format!("/v1/pets/{pet}")).await.body["status"],
        "sold"
    );
    app.post("/v1/store/orders", json!({ "petId": pet, "quantity": 1 }))
        .await
        .assert_error(409, "pet_not_available");
}

#[actix_web::test]
async fn orders_need_a_known_available_pet() {
    let app = spawn_app().await;
    app.post("/v1/store/orders", json!({ "petId": 4242, "quantity": 1 }))
        .await
        .assert_error(422, "unknown_pet");
    let category = app.category("Dogs").await;
    let pending = app
        .post(
            "/v1/pets",
            json!({ "name": "Rex", "categoryId": category, "status": "pending" }),
        )
        .await;
    let pet = pending.body["id"].as_i64().unwrap();
    app.post("/v1/store/orders", json!({ "petId": pet, "quantity": 1 }))
        .await
        .assert_error(409, "pet_not_available");
    app.post("/v1/store/orders", json!({ "petId": pet, "quantity": 0 }))
        .await
        .assert_error(422, "validation_failed");
    app.post(
        "/v1/store/orders",
        json!({ "petId": pet, "quantity": 1001 }),
    )
    .await
    .assert_error(422, "validation_failed");
}

#[actix_web::test]
async fn completing_is_one_way_idempotent_and_sets_the_ship_date() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(5).await;
    let order = app
        .post("/v1/store/orders", json!({ "petId": pet, "quantity": 1 }))
        .await;
    let id = order.body["id"].as_i64().unwrap();
    let done = app
        .post(&format!("/v1/store/orders/{id}/complete"), json!(null))
        .await;
    assert_eq!(done.status, 200, "{done:?}");
    assert_eq!(done.body["complete"], true);
    assert_eq!(done.body["shipDate"], "2026-11-22T12:00:00Z");
    *app.now.lock().unwrap() += chrono::Duration::hours(1);
    let again = app
        .post(&format!("/v1/store/orders/{id}/complete"), json!(null))
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body, done.body);
    app.call(Method::DELETE, &format!("/v1/store/orders/{id}"), None)
        .await
        .assert_error(409, "order_completed");
    app.post("/v1/store/orders/777/complete", json!(null))
        .await
        .assert_error(404, "not_found");

    // A ship date given at placement is kept.
    let dated = app
        .post(
            "/v1/store/orders",
            json!({ "petId": pet, "quantity": 1, "shipDate": "2027-01-02T03:04:05Z" }),
        )
        .await;
    let id = dated.body["id"].as_i64().unwrap();
    let done = app
        .post(&format!("/v1/store/orders/{id}/complete"), json!(null))
        .await;
    assert_eq!(done.body["shipDate"], "2027-01-02T03:04:05Z");
}

#[actix_web::test]
async fn cancelling_returns_stock_and_makes_a_sold_pet_available() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(1).await;
    let order = app
        .post("/v1/store/orders", json!({ "petId": pet, "quantity": 1 }))
        .await;
    let id = order.body["id"].as_i64().unwrap();
    assert_eq!(stock(&app, pet).await, (0, "sold".into()));
    app.call(Method::DELETE, &format!("/v1/pets/{pet}"), None)
        .await
        .assert_error(409, "pet_has_open_orders");
    let cancelled = app
        .call(Method::DELETE, &format!("/v1/store/orders/{id}"), None)
        .await;
    assert_eq!(cancelled.status, 204);
    assert_eq!(stock(&app, pet).await, (1, "available".into()));
    app.get(&format!("/v1/store/orders/{id}"))
        .await
        .assert_error(404, "not_found");
    app.call(Method::DELETE, &format!("/v1/store/orders/{id}"), None)
        .await
        .assert_error(404, "not_found");
    assert_eq!(
        app.call(Method::DELETE, &format!("/v1/pets/{pet}"), None)
            .await
            .status,
        204
    );
}

#[actix_web::test]
async fn a_cancellation_that_would_overfill_the_stock_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(10).await;
    let order = app
        .post("/v1/store/orders", json!({ "petId": pet, "quantity": 3 }))
        .await;
    assert_eq!(order.status, 201, "{order:?}");
    let id = order.body["id"].as_i64().unwrap();
    // While the order is open, the stock is set to its maximum.
    let full = app
        .call(
            Method::PATCH,
            &format!("/v1/inventory/{pet}"),
            Some(json!({ "quantity": 1_000_000 })),
        )
        .await;
    assert_eq!(full.status, 200, "{full:?}");
    app.call(Method::DELETE, &format!("/v1/store/orders/{id}"), None)
        .await
        .assert_error(409, "stock_limit_exceeded");
    // Nothing changed: the order is open, the stock at its maximum, and
    // every listing still keeps its schema's bounds.
    let kept = app.get(&format!("/v1/store/orders/{id}")).await;
    assert_eq!(kept.status, 200, "{kept:?}");
    assert_eq!(kept.body["complete"], json!(false));
    assert_eq!(stock(&app, pet).await, (1_000_000, "available".into()));
    let listed = app.get("/v1/inventory?limit=100").await;
    assert!(listed
        .body
        .as_array()
        .unwrap()
        .iter()
        .all(|item| { (0..=1_000_000).contains(&item["quantity"].as_i64().unwrap()) }));
    // Just below the bound the same cancellation goes through, up to it.
    app.call(
        Method::PATCH,
        &format!("/v1/inventory/{pet}"),
        Some(json!({ "quantity": 999_997 })),
    )
    .await;
    let cancelled = app
        .call(Method::DELETE, &format!("/v1/store/orders/{id}"), None)
        .await;
    assert_eq!(cancelled.status, 204, "{cancelled:?}");
    assert_eq!(stock(&app, pet).await, (1_000_000, "available".into()));
}

#[actix_web::test]
async fn orders_are_listed_with_filters() {
    let app = spawn_app().await;
    let a = app.pet_with_stock(10).await;
    let b = app.pet_with_stock(10).await;
    let mut ids = Vec::new();
    for pet in [a, b, a] {
        let r = app
            .post("/v1/store/orders", json!({ "petId": pet, "quantity": 1 }))
            .await;
        ids.push(r.body["id"].as_i64().unwrap());
    }
    app.post(
        &format!("/v1/store/orders/{}/complete", ids[2]),
        json!(null),
    )
    .await;
    let got = app.get(&format!("/v1/store/orders/{}", ids[1])).await;
    assert_eq!(got.body["petId"], b);
    let for_a = app.get(&format!("/v1/store/orders?petId={a}")).await;
    let listed: Vec<i64> = for_a
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_i64().unwrap())
        .collect();
    assert_eq!(listed, [ids[0], ids[2]]);
    let open = app
        .get(&format!("/v1/store/orders?petId={a}&complete=false"))
        .await;
    assert_eq!(open.body.as_array().unwrap().len(), 1);
    let page = app.get("/v1/store/orders?limit=2").await;
    assert_eq!(
        page.header("link"),
        Some(format!("</v1/store/orders?limit=2&after={}>; rel=\"next\"", ids[1]).as_str())
    );
}

/// 200 concurrent orders against a stock of 50: exactly 50 succeed.
#[actix_web::test]
async fn concurrent_orders_never_oversell() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(50).await;
    let requests = (0..200).map(|_| {
        let client = app.client.clone();
        let url = format!("{}/v1/store/orders", app.base);
        let key = app.key.clone();
        async move {
            client
                .post(url)
                .bearer_auth(key)
                .json(&json!({ "petId": pet, "quantity": 1 }))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    });
    let statuses = futures_util::future::join_all(requests).await;
    let created = statuses.iter().filter(|s| **s == 201).count();
    let refused = statuses.iter().filter(|s| **s == 409).count();
    assert_eq!((created, refused), (50, 150), "{statuses:?}");
    assert_eq!(stock(&app, pet).await, (0, "sold".into()));
    let orders = app
        .get(&format!("/v1/store/orders?petId={pet}&limit=100"))
        .await;
    assert_eq!(orders.body.as_array().unwrap().len(), 50);
}

/// Orders sent at once (on PostgreSQL placed in rounds, many in one
/// statement): each is answered for itself, a refusal does not stop the
/// others, and every answer names its own pet and quantity.
#[actix_web::test]
async fn orders_sent_at_once_each_get_their_own_answer() {
    let app = spawn_app().await;
    let stocked = app.pet_with_stock(5).await;
    let category = app.category("Cats").await;
    let pending = app
        .post(
            "/v1/pets",
            json!({ "name": "Tom", "categoryId": category, "status": "pending" }),
        )
        .await
        .body["id"]
        .as_i64()
        .unwrap();
    let missing = stocked.max(pending) + 1000;
    // Two of each kind, interleaved: the stocked pet's five sell as 2 + 2 +
    // 1, then 2 more are refused.
    let asked: Vec<(i64, i64)> = [(stocked, 2), (pending, 1), (missing, 1), (stocked, 2)]
        .into_iter()
        .cycle()
        .take(12)
        .collect();
    let replies = futures_util::future::join_all(asked.iter().map(|&(pet, quantity)| {
        app.post(
            "/v1/store/orders",
            json!({ "petId": pet, "quantity": quantity }),
        )
    }))
    .await;
    let mut sold = 0;
    for (&(pet, quantity), reply) in asked.iter().zip(&replies) {
        if pet == pending {
            reply.assert_error(409, "pet_not_available");
        } else if pet == missing {
            reply.assert_error(422, "unknown_pet");
        } else if reply.status == 201 {
            assert_eq!(reply.body["petId"], pet);
            assert_eq!(reply.body["quantity"], quantity);
            let id = reply.body["id"].as_i64().unwrap();
            let read = app.get(&format!("/v1/store/orders/{id}")).await;
            assert_eq!(
                (read.body["petId"].as_i64(), read.body["quantity"].as_i64()),
                (Some(pet), Some(quantity))
            );
            sold += quantity;
        } else {
            // Out of stock, or sold out (the pet no longer available).
            assert_eq!(reply.status, 409, "{reply:?}");
        }
    }
    assert_eq!(sold, 4, "two orders of two; the last unit never fits one");
    assert_eq!(stock(&app, stocked).await, (1, "available".into()));
}
