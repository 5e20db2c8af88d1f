//! Deprecation, sunset and stability on the wire.

use crate::helpers::spawn_app_on;
use reqwest::Method;
use serde_json::json;

on_both! {
    async fn the_deprecated_operation_announces_its_sunset_and_successor(framework) {
        let app = spawn_app_on(framework).await;
        let pet = app.pet_with_stock(1).await;
        let r = app.get(&format!("/v1/pets/{pet}")).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.header("deprecation"), Some("@1793491200"));
        assert_eq!(r.header("sunset"), Some("Thu, 05 Dec 2030 00:00:00 GMT"));
        assert_eq!(
            r.header("link"),
            Some("</v1/pets>; rel=\"successor-version\"")
        );
        let missing = app.get("/v1/pets/999").await;
        missing.assert_error(404, "not_found");
        assert_eq!(
            missing.header("sunset"),
            Some("Thu, 05 Dec 2030 00:00:00 GMT")
        );
        // Other operations on the same path are not deprecated.
        let replaced = app
            .call(
                Method::PUT,
                &format!("/v1/pets/{pet}"),
                Some(json!({ "name": "A", "categoryId": 1 })),
            )
            .await;
        assert!(replaced.header("deprecation").is_none());
    }
}

on_both! {
    async fn after_the_sunset_the_operation_answers_410(framework) {
        let app = spawn_app_on(framework).await;
        let pet = app.pet_with_stock(1).await;
        app.set_time("2030-12-04T23:59:59Z");
        assert_eq!(app.get(&format!("/v1/pets/{pet}")).await.status, 200);
        app.set_time("2030-12-05T00:00:00Z");
        let gone = app.get(&format!("/v1/pets/{pet}")).await;
        gone.assert_error(410, "sunset");
        assert_eq!(gone.header("sunset"), Some("Thu, 05 Dec 2030 00:00:00 GMT"));
        assert!(gone.header("x-ratelimit-remaining").is_some());
        // Its successor still works.
        assert_eq!(app.get(&format!("/v1/pets?id={pet}")).await.status, 200);
    }
}

on_both! {
    async fn operations_with_a_stability_marker_say_so(framework) {
        let app = spawn_app_on(framework).await;
        let pet = app.pet_with_stock(1).await;
        let category = app.category("Fish").await;
        let r = app.get(&format!("/v1/categories/{category}")).await;
        assert_eq!(r.header("x-api-stability"), Some("beta"));
        assert_eq!(
            app.get("/v1/inventory").await.header("x-api-stability"),
            Some("beta")
        );
        let r = app
            .call(
                Method::PATCH,
                &format!("/v1/inventory/{pet}"),
                Some(json!({ "quantity": 4 })),
            )
            .await;
        assert_eq!(r.header("x-api-stability"), Some("experimental"));
        assert!(app
            .get("/v1/pets")
            .await
            .header("x-api-stability")
            .is_none());
    }
}
