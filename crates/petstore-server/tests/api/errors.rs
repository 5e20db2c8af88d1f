//! Requests refused before any handler runs: each gets the seed's Error JSON
//! with the status and code of DESIGN.md.

use crate::helpers::{read, spawn_app_on};
use reqwest::Method;
use serde_json::json;

on_both! {
    async fn malformed_parameters_are_bad_requests(framework) {
        let app = spawn_app_on(framework).await;
        app.get("/v1/pets/abc")
            .await
            .assert_error(400, "bad_request");
        app.get("/v1/pets/99999999999999999999")
            .await
            .assert_error(400, "bad_request");
        app.get("/v1/pets?limit=ten")
            .await
            .assert_error(400, "bad_request");
        app.get("/v1/pets?status=lost")
            .await
            .assert_error(400, "bad_request");
        app.get("/v1/pets?limit=1&limit=2")
            .await
            .assert_error(400, "bad_request");
        app.get("/v1/store/orders?complete=yes")
            .await
            .assert_error(400, "bad_request");
    }
}

on_both! {
    async fn parameters_out_of_bounds_fail_validation(framework) {
        let app = spawn_app_on(framework).await;
        app.get("/v1/pets/0")
            .await
            .assert_error(422, "validation_failed");
        app.get("/v1/pets/-3")
            .await
            .assert_error(422, "validation_failed");
        app.get("/v1/pets?limit=0")
            .await
            .assert_error(422, "validation_failed");
        app.get("/v1/pets?limit=101")
            .await
            .assert_error(422, "validation_failed");
        app.get("/v1/categories?after=-1")
            .await
            .assert_error(422, "validation_failed");
    }
}

on_both! {
    async fn bodies_that_do_not_fit_the_schema_fail_validation(framework) {
        let app = spawn_app_on(framework).await;
        let category = app.category("Dogs").await;
        for body in [
            json!({ "categoryId": category }),
            json!({ "name": "Rex", "categoryId": category, "colour": "brown" }),
            json!({ "name": "", "categoryId": category }),
            json!({ "name": "x".repeat(101), "categoryId": category }),
            json!({ "name": "Rex", "categoryId": "one" }),
            json!({ "name": "Rex", "categoryId": category, "status": "lost" }),
            json!({ "name": "Rex", "categoryId": category, "id": 7 }),
            json!({ "name": "Rex", "categoryId": 0 }),
            json!([1, 2]),
        ] {
            app.post("/v1/pets", body)
                .await
                .assert_error(422, "validation_failed");
        }
        app.post(
            "/v1/categories",
            json!({ "name": "x", "description": "d".repeat(501) }),
        )
        .await
        .assert_error(422, "validation_failed");
        // Nothing was written.
        assert_eq!(app.get("/v1/pets").await.body, json!([]));
    }
}

on_both! {
    async fn unreadable_bodies_wrong_types_and_sizes(framework) {
        let app = spawn_app_on(framework).await;
        let url = format!("{}/v1/pets", app.base);
        let send = |content_type: Option<&str>, body: Vec<u8>| {
            let mut request = app.client.post(&url).bearer_auth(&app.key).body(body);
            if let Some(ct) = content_type {
                request = request.header("content-type", ct);
            }
            async move { read(request.send().await.unwrap()).await }
        };
        send(Some("application/json"), b"{\"name\": ".to_vec())
            .await
            .assert_error(400, "bad_request");
        send(
            Some("application/json"),
            b"{\"name\": \"a\"} trailing".to_vec(),
        )
        .await
        .assert_error(400, "bad_request");
        send(Some("application/json"), vec![0xff, 0xfe])
            .await
            .assert_error(400, "bad_request");
        send(Some("application/json"), Vec::new())
            .await
            .assert_error(400, "bad_request");
        send(Some("text/plain"), b"{}".to_vec())
            .await
            .assert_error(415, "unsupported_media_type");
        send(None, b"{}".to_vec())
            .await
            .assert_error(415, "unsupported_media_type");
        let big = format!("{{\"name\": \"{}\"}}", "a".repeat(70 * 1024));
        send(Some("application/json"), big.into_bytes())
            .await
            .assert_error(413, "payload_too_large");
    }
}

on_both! {
    async fn unknown_routes_and_methods(framework) {
        let app = spawn_app_on(framework).await;
        app.get("/v1/unicorns").await.assert_error(404, "not_found");
        app.get("/nowhere").await.assert_error(404, "not_found");
        let r = app.call(Method::PATCH, "/v1/pets", None).await;
        r.assert_error(405, "method_not_allowed");
        assert_eq!(r.header("allow"), Some("GET, POST"));
    }
}
