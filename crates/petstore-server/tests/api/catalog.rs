//! Pets, categories and inventory.

use crate::helpers::spawn_app;
use reqwest::Method;
use serde_json::json;

#[actix_web::test]
async fn a_pet_is_created_read_replaced_and_deleted() {
    let app = spawn_app().await;
    let category = app.category("Cats").await;
    let created = app
        .post(
            "/v1/pets",
            json!({ "name": "Tom", "categoryId": category, "status": "pending" }),
        )
        .await;
    assert_eq!(created.status, 201);
    let id = created.body["id"].as_i64().unwrap();
    assert_eq!(
        created.header("location"),
        Some(format!("/v1/pets/{id}").as_str())
    );
    assert_eq!(
        created.body,
        json!({ "id": id, "name": "Tom", "categoryId": category, "status": "pending" })
    );

    let got = app.get(&format!("/v1/pets/{id}")).await;
    assert_eq!(got.status, 200);
    assert_eq!(got.body, created.body);

    let replaced = app
        .call(
            Method::PUT,
            &format!("/v1/pets/{id}"),
            Some(json!({ "name": "Thomas", "categoryId": category, "status": "available" })),
        )
        .await;
    assert_eq!(replaced.status, 200);
    assert_eq!(replaced.body["name"], "Thomas");
    let item = app.get(&format!("/v1/inventory/{id}")).await;
    assert_eq!(
        item.body,
        json!({ "petId": id, "quantity": 1, "status": "available" })
    );

    let deleted = app
        .call(Method::DELETE, &format!("/v1/pets/{id}"), None)
        .await;
    assert_eq!(deleted.status, 204);
    app.get(&format!("/v1/pets/{id}"))
        .await
        .assert_error(404, "not_found");
    app.get(&format!("/v1/inventory/{id}"))
        .await
        .assert_error(404, "not_found");
    app.call(Method::DELETE, &format!("/v1/pets/{id}"), None)
        .await
        .assert_error(404, "not_found");
}

/// On PostgreSQL, single pets asked for at once are read in rounds, one
/// statement for many: each request still gets its own pet, a missing one
/// its 404, and a pet written before the read is read as written.
#[actix_web::test]
async fn pets_read_at_once_each_get_their_own() {
    let app = spawn_app().await;
    let category = app.category("Birds").await;
    let mut ids = Vec::new();
    for n in 0..6 {
        let created = app
            .post(
                "/v1/pets",
                json!({ "name": format!("Bird {n}"), "categoryId": category }),
            )
            .await;
        assert_eq!(created.status, 201);
        ids.push(created.body["id"].as_i64().unwrap());
    }
    let missing = ids.iter().max().unwrap() + 1000;
    let paths: Vec<String> = ids
        .iter()
        .chain([&missing])
        .cycle()
        .take(28)
        .map(|id| format!("/v1/pets/{id}"))
        .collect();
    let replies = futures_util::future::join_all(paths.iter().map(|p| app.get(p))).await;
    for (path, reply) in paths.iter().zip(&replies) {
        let id: i64 = path.rsplit('/').next().unwrap().parse().unwrap();
        if id == missing {
            reply.assert_error(404, "not_found");
        } else {
            assert_eq!(reply.status, 200, "{path}");
            assert_eq!(reply.body["id"], id);
            let n = ids.iter().position(|i| *i == id).unwrap();
            assert_eq!(reply.body["name"], format!("Bird {n}"));
        }
    }
    // A write, then reads: each sees it.
    let renamed = app
        .call(
            Method::PUT,
            &format!("/v1/pets/{}", ids[0]),
            Some(json!({ "name": "Renamed", "categoryId": category })),
        )
        .await;
    assert_eq!(renamed.status, 200);
    let path = format!("/v1/pets/{}", ids[0]);
    let replies = futures_util::future::join_all((0..8).map(|_| app.get(&path))).await;
    assert!(replies.iter().all(|r| r.body["name"] == "Renamed"));
}

#[actix_web::test]
async fn a_new_pet_is_available_with_a_stock_of_one() {
    let app = spawn_app().await;
    let category = app.category("Birds").await;
    let pet = app
        .post(
            "/v1/pets",
            json!({ "name": "Tweety", "categoryId": category }),
        )
        .await;
    assert_eq!(pet.body["status"], "available");
    let id = pet.body["id"].as_i64().unwrap();
    let item = app.get(&format!("/v1/inventory/{id}")).await;
    assert_eq!(
        item.body,
        json!({ "petId": id, "quantity": 1, "status": "available" })
    );
}

#[actix_web::test]
async fn pets_naming_unknown_categories_are_refused() {
    let app = spawn_app().await;
    app.post("/v1/pets", json!({ "name": "Ghost", "categoryId": 999 }))
        .await
        .assert_error(422, "unknown_category");
    let id = app.pet_with_stock(1).await;
    app.call(
        Method::PUT,
        &format!("/v1/pets/{id}"),
        Some(json!({ "name": "Ghost", "categoryId": 999 })),
    )
    .await
    .assert_error(422, "unknown_category");
    app.call(
        Method::PUT,
        "/v1/pets/12345",
        Some(json!({ "name": "X", "categoryId": 1 })),
    )
    .await
    .assert_error(404, "not_found");
}

#[actix_web::test]
async fn lists_page_by_id_with_a_next_link_that_keeps_the_filters() {
    let app = spawn_app().await;
    let dogs = app.category("Dogs").await;
    let cats = app.category("Cats").await;
    let mut dog_ids = Vec::new();
    for i in 0..5 {
        let r = app
            .post(
                "/v1/pets",
                json!({ "name": format!("Dog {i}"), "categoryId": dogs }),
            )
            .await;
        dog_ids.push(r.body["id"].as_i64().unwrap());
        app.post(
            "/v1/pets",
            json!({ "name": format!("Cat {i}"), "categoryId": cats }),
        )
        .await;
    }
    let first = app
        .get(&format!("/v1/pets?limit=2&categoryId={dogs}"))
        .await;
    assert_eq!(first.status, 200);
    let ids: Vec<i64> = first
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, dog_ids[..2]);
    let link = first.header("link").unwrap().to_string();
    assert_eq!(
        link,
        format!(
            "</v1/pets?limit=2&after={}&categoryId={dogs}>; rel=\"next\"",
            dog_ids[1]
        )
    );
    // Follow the links to the end: every dog once, in order, and no link on the last page.
    let mut seen = ids;
    let mut next = Some(link);
    while let Some(link) = next {
        let path = link
            .trim_start_matches('<')
            .split('>')
            .next()
            .unwrap()
            .to_string();
        let page = app.get(&path).await;
        seen.extend(
            page.body
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["id"].as_i64().unwrap()),
        );
        next = page.header("link").map(str::to_string);
    }
    assert_eq!(seen, dog_ids);

    let two = app
        .get(&format!("/v1/pets?id={}&id={}", dog_ids[4], dog_ids[0]))
        .await;
    let ids: Vec<i64> = two
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [dog_ids[0], dog_ids[4]]);
    assert!(two.header("link").is_none());

    let pending = app.get("/v1/pets?status=pending").await;
    assert_eq!(pending.body, json!([]));
    let all = app.get("/v1/pets?limit=100").await;
    assert_eq!(all.body.as_array().unwrap().len(), 10);
}

#[actix_web::test]
async fn categories_are_created_listed_and_deleted_only_when_empty() {
    let app = spawn_app().await;
    let created = app
        .post(
            "/v1/categories",
            json!({ "name": "Fish", "description": "Wet pets" }),
        )
        .await;
    assert_eq!(created.status, 201);
    let id = created.body["id"].as_i64().unwrap();
    assert_eq!(
        created.header("location"),
        Some(format!("/v1/categories/{id}").as_str())
    );
    let got = app.get(&format!("/v1/categories/{id}")).await;
    assert_eq!(
        got.body,
        json!({ "id": id, "name": "Fish", "description": "Wet pets" })
    );
    let list = app.get("/v1/categories").await;
    assert_eq!(list.body, json!([got.body]));

    let pet = app
        .post("/v1/pets", json!({ "name": "Nemo", "categoryId": id }))
        .await;
    let pet_id = pet.body["id"].as_i64().unwrap();
    app.call(Method::DELETE, &format!("/v1/categories/{id}"), None)
        .await
        .assert_error(409, "category_in_use");
    assert_eq!(
        app.call(Method::DELETE, &format!("/v1/pets/{pet_id}"), None)
            .await
            .status,
        204
    );
    assert_eq!(
        app.call(Method::DELETE, &format!("/v1/categories/{id}"), None)
            .await
            .status,
        204
    );
    app.get(&format!("/v1/categories/{id}"))
        .await
        .assert_error(404, "not_found");
}

#[actix_web::test]
async fn inventory_updates_move_status_between_available_and_sold() {
    let app = spawn_app().await;
    let id = app.pet_with_stock(1).await;
    let path = format!("/v1/inventory/{id}");
    let zero = app
        .call(Method::PATCH, &path, Some(json!({ "quantity": 0 })))
        .await;
    assert_eq!(
        zero.body,
        json!({ "petId": id, "quantity": 0, "status": "sold" })
    );
    assert_eq!(
        app.get(&format!("/v1/pets/{id}")).await.body["status"],
        "sold"
    );
    let sold = app.get("/v1/inventory?status=sold").await;
    assert_eq!(sold.body, json!([zero.body]));

    let three = app
        .call(Method::PATCH, &path, Some(json!({ "quantity": 3 })))
        .await;
    assert_eq!(
        three.body,
        json!({ "petId": id, "quantity": 3, "status": "available" })
    );

    // A pending pet stays pending whatever its stock.
    let category = app.get(&format!("/v1/pets/{id}")).await.body["categoryId"].clone();
    app.call(
        Method::PUT,
        &format!("/v1/pets/{id}"),
        Some(json!({ "name": "Rex", "categoryId": category, "status": "pending" })),
    )
    .await;
    let r = app
        .call(Method::PATCH, &path, Some(json!({ "quantity": 0 })))
        .await;
    assert_eq!(r.body["status"], "pending");
    let r = app
        .call(Method::PATCH, &path, Some(json!({ "quantity": 5 })))
        .await;
    assert_eq!(r.body["status"], "pending");

    app.call(
        Method::PATCH,
        "/v1/inventory/999",
        Some(json!({ "quantity": 1 })),
    )
    .await
    .assert_error(404, "not_found");
    app.call(Method::PATCH, &path, Some(json!({ "quantity": 1_000_001 })))
        .await
        .assert_error(422, "validation_failed");
}
