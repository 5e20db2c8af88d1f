use crate::helpers::{read, spawn, spawn_app_on, Options};
use petstore_server::keys::{Limits, Plan};

/// The value of one sample line of the exposition text, by its exact name
/// and labels.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
}

on_both! {
    async fn metrics_are_scraped_from_their_own_listener(framework) {
        let app = spawn(Options {
            framework,
            metrics: true,
            ..Options::default()
        })
        .await;
        let url = app.metrics.clone().expect("metrics are on");
        app.get("/v1/pets").await;
        app.get("/v1/pets").await;
        app.get("/v1/nowhere").await;
        let anonymous = read(
            app.client
                .get(format!("{}/v1/pets", app.base))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(anonymous.status, 401);

        let scraped = app.client.get(&url).send().await.unwrap();
        assert_eq!(scraped.status(), 200);
        assert!(scraped
            .headers()
            .get("content-type")
            .is_some_and(|ct| ct.to_str().unwrap().starts_with("text/plain")));
        let text = scraped.text().await.unwrap();
        let at = |series| sample(&text, series).unwrap_or_else(|| panic!("no {series} in\n{text}"));
        assert_eq!(
            at("petstore_requests_total{operation=\"listPets\",status_class=\"2xx\"}"),
            2.0
        );
        assert_eq!(
            at("petstore_requests_total{operation=\"listPets\",status_class=\"4xx\"}"),
            1.0
        );
        assert_eq!(
            at("petstore_requests_total{operation=\"none\",status_class=\"4xx\"}"),
            1.0
        );
        assert_eq!(
            at("petstore_request_duration_seconds_count{operation=\"listPets\"}"),
            3.0
        );
        assert_eq!(at("petstore_requests_in_flight"), 0.0);
        assert_eq!(at("petstore_database_breaker_open"), 0.0);
        let queue = if crate::helpers::on_postgres() {
            "petstore_postgres_connections{state=\"in_use\"}"
        } else {
            "petstore_sqlite_write_queue"
        };
        // A pooled connection goes back to the pool after its request is
        // answered, not before: wait for it (for at most 10 s) rather than
        // race it.
        let mut idle = at(queue);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while idle != 0.0 && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            let text = app
                .client
                .get(&url)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            idle = sample(&text, queue).unwrap();
        }
        assert_eq!(idle, 0.0, "{queue}");
        // The metrics listener serves metrics only, and no API.
        let api = app
            .client
            .get(url.replace("/metrics", "/v1/pets"))
            .send()
            .await
            .unwrap();
        assert_eq!(api.status(), 404);
    }
}

on_both! {
    async fn refusals_are_counted_by_reason(framework) {
        let app = spawn(Options {
            framework,
            metrics: true,
            ..Options::default()
        })
        .await;
        let limits = Limits {
            per_minute: 2,
            per_day: 1000,
        };
        let key = app.key(Plan::Enterprise, Some(limits)).await;
        for _ in 0..4 {
            app.get_as(Some(&key), "/v1/pets").await;
        }
        let text = app
            .client
            .get(app.metrics.clone().unwrap())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(
            sample(
                &text,
                "petstore_rate_limit_refusals_total{reason=\"rate_limited\"}"
            ),
            Some(2.0)
        );
    }
}

on_both! {
    async fn metrics_are_off_unless_asked_for(framework) {
        assert!(spawn_app_on(framework).await.metrics.is_none());
    }
}
