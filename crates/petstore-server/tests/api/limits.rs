//! Rate limits and bans, seen from the client. The clock is injected: windows
//! and bans move when the test says so, never by sleeping.

use crate::helpers::{
    database_url, spawn, spawn_app_on, within_one_minute_window, Options, Reply, Server,
};
use petstore_server::keys::{Limits, Plan};
use petstore_server::limiter::BanPolicy;
use reqwest::Method;
use serde_json::json;

/// 2026-11-22T12:01:00Z, the end of the tests' first minute window.
const NEXT_MINUTE: i64 = 1_795_348_860;
/// 2026-11-23T00:00:00Z.
const NEXT_DAY: i64 = 1_795_392_000;

#[track_caller]
fn assert_limit_headers(r: &Reply, limit: u32, remaining: u32, reset: i64) {
    assert_eq!(
        r.header("x-ratelimit-limit"),
        Some(limit.to_string().as_str()),
        "{r:?}"
    );
    assert_eq!(
        r.header("x-ratelimit-remaining"),
        Some(remaining.to_string().as_str()),
        "{r:?}"
    );
    assert_eq!(
        r.header("x-ratelimit-reset"),
        Some(reset.to_string().as_str()),
        "{r:?}"
    );
}

on_both! {
    async fn every_kind_of_response_carries_the_rate_limit_headers(framework) {
        let app = spawn_app_on(framework).await;
        let key = app.key(Plan::Pro, None).await;
        let ok = app.get_as(Some(&key), "/v1/pets").await;
        assert_eq!(ok.status, 200);
        assert_limit_headers(&ok, 300, 299, NEXT_MINUTE);
        let invalid = app.get_as(Some(&key), "/v1/pets?limit=0").await;
        invalid.assert_error(422, "validation_failed");
        assert_limit_headers(&invalid, 300, 298, NEXT_MINUTE);
        let missing = app.get_as(Some(&key), "/v1/pets/77").await;
        missing.assert_error(404, "not_found");
        let unknown_route = app.get_as(Some(&key), "/v1/nowhere").await;
        unknown_route.assert_error(404, "not_found");
        assert_limit_headers(&unknown_route, 300, 296, NEXT_MINUTE);
        let anonymous = app.get_as(None, "/v1/pets").await;
        anonymous.assert_error(401, "unauthorized");
        assert_limit_headers(&anonymous, 60, 59, NEXT_MINUTE);
    }
}

on_both! {
    async fn eight_parallel_clients_on_a_free_key_get_exactly_sixty(framework) {
        let app = spawn_app_on(framework).await;
        let key = app.key(Plan::Free, None).await;
        let clients = (0..8).map(|_| {
            let client = reqwest::Client::new();
            let url = format!("{}/v1/categories", app.base);
            let key = key.clone();
            async move {
                let mut statuses = Vec::new();
                for _ in 0..12 {
                    let r = client.get(&url).bearer_auth(&key).send().await.unwrap();
                    statuses.push(r.status().as_u16());
                }
                statuses
            }
        });
        let statuses: Vec<u16> = futures_util::future::join_all(clients).await.concat();
        assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 60);
        assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 36);
    }
}

on_both! {
    async fn over_the_limit_is_429_with_retry_after_until_the_window_resets(framework) {
        let app = spawn_app_on(framework).await;
        let key = app
            .key(
                Plan::Enterprise,
                Some(Limits {
                    per_minute: 3,
                    per_day: 100,
                }),
            )
            .await;
        app.advance(chrono::Duration::seconds(15));
        for remaining in [2, 1, 0] {
            let r = app.get_as(Some(&key), "/v1/pets").await;
            assert_eq!(r.status, 200);
            assert_limit_headers(&r, 3, remaining, NEXT_MINUTE);
        }
        let limited = app.get_as(Some(&key), "/v1/pets").await;
        limited.assert_error(429, "rate_limited");
        assert_eq!(limited.header("retry-after"), Some("45"));
        assert_limit_headers(&limited, 3, 0, NEXT_MINUTE);

        app.advance(chrono::Duration::seconds(45));
        let r = app.get_as(Some(&key), "/v1/pets").await;
        assert_eq!(r.status, 200, "a new minute window");
        assert_limit_headers(&r, 3, 2, NEXT_MINUTE + 60);
    }
}

on_both! {
    async fn the_day_window_limits_too_and_is_reported_when_closer(framework) {
        let app = spawn_app_on(framework).await;
        let key = app
            .key(
                Plan::Enterprise,
                Some(Limits {
                    per_minute: 100,
                    per_day: 2,
                }),
            )
            .await;
        let r = app.get_as(Some(&key), "/v1/pets").await;
        assert_limit_headers(&r, 2, 1, NEXT_DAY);
        app.get_as(Some(&key), "/v1/pets").await;
        app.advance(chrono::Duration::minutes(30));
        let limited = app.get_as(Some(&key), "/v1/pets").await;
        limited.assert_error(429, "rate_limited");
        assert_eq!(
            limited.header("retry-after"),
            Some(((NEXT_DAY - NEXT_MINUTE + 60) - 1800).to_string().as_str())
        );
    }
}

on_both! {
    async fn persisting_while_limited_gets_the_key_banned_for_fifteen_minutes(framework) {
        let app = spawn_app_on(framework).await;
        let key = app
            .key(
                Plan::Enterprise,
                Some(Limits {
                    per_minute: 1,
                    per_day: 1000,
                }),
            )
            .await;
        let other = app.key(Plan::Free, None).await;
        assert_eq!(app.get_as(Some(&key), "/v1/pets").await.status, 200);
        for _ in 0..10 {
            app.get_as(Some(&key), "/v1/pets")
                .await
                .assert_error(429, "rate_limited");
        }
        let banned = app.get_as(Some(&key), "/v1/pets").await;
        banned.assert_error(429, "api_key_banned");
        assert_eq!(banned.header("retry-after"), Some("900"));
        assert!(banned.header("x-ratelimit-limit").is_some());
        // Other keys are unaffected.
        assert_eq!(app.get_as(Some(&other), "/v1/pets").await.status, 200);

        app.advance(chrono::Duration::minutes(5));
        let still = app.get_as(Some(&key), "/v1/pets").await;
        still.assert_error(429, "api_key_banned");
        assert_eq!(still.header("retry-after"), Some("600"));
        app.advance(chrono::Duration::minutes(10));
        assert_eq!(app.get_as(Some(&key), "/v1/pets").await.status, 200);
    }
}

on_both! {
    async fn ban_thresholds_are_configurable(framework) {
        let app = spawn(Options {
            framework,
            ban: BanPolicy {
                after: 2,
                seconds: 60,
            },
            ..Options::default()
        })
        .await;
        let key = app
            .key(
                Plan::Enterprise,
                Some(Limits {
                    per_minute: 1,
                    per_day: 1000,
                }),
            )
            .await;
        app.get_as(Some(&key), "/v1/pets").await;
        app.get_as(Some(&key), "/v1/pets")
            .await
            .assert_error(429, "rate_limited");
        app.get_as(Some(&key), "/v1/pets")
            .await
            .assert_error(429, "rate_limited");
        let banned = app.get_as(Some(&key), "/v1/pets").await;
        banned.assert_error(429, "api_key_banned");
        assert_eq!(banned.header("retry-after"), Some("60"));
    }
}

on_both! {
    async fn requests_without_a_valid_key_are_limited_per_address_at_the_free_rate(framework) {
        let app = spawn_app_on(framework).await;
        for remaining in (0..60).rev() {
            let r = app.get_as(Some("psk_wrong"), "/v1/pets").await;
            r.assert_error(401, "unauthorized");
            assert_limit_headers(&r, 60, remaining, NEXT_MINUTE);
        }
        app.get_as(None, "/v1/pets")
            .await
            .assert_error(429, "rate_limited");
        // A valid key is counted on its own.
        assert_eq!(app.get("/v1/pets").await.status, 200);
    }
}

on_both! {
    /// Behind a trusted proxy (`--trusted-proxies`), anonymous clients are limited
    /// by the address it forwards; from any other peer, `X-Forwarded-For` is
    /// ignored and every client there shares the peer's limit.
    async fn anonymous_clients_behind_a_trusted_proxy_are_limited_apart(framework) {
        let client = reqwest::Client::new();
        for (args, next_client) in [
            (&["--trusted-proxies", "127.0.0.1"][..], 401),
            (&[][..], 429),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let args: Vec<&str> = ["--framework", framework.as_str()].iter().chain(args).copied().collect();
            let (server, _) = Server::start_with(&database_url(dir.path()).await, &args);
            let get = |from: &'static str| {
                client
                    .get(format!("{}/v1/pets", server.base))
                    .header("x-forwarded-for", from)
                    .send()
            };
            // The server runs on the real clock: 62 requests in one window.
            within_one_minute_window(20).await;
            for _ in 0..60 {
                assert_eq!(get("198.51.100.7").await.unwrap().status(), 401);
            }
            assert_eq!(get("198.51.100.7").await.unwrap().status(), 429);
            assert_eq!(
                get("198.51.100.8").await.unwrap().status(),
                next_client,
                "another client, with {args:?}"
            );
        }
    }
}

on_both! {
    async fn writes_count_like_reads(framework) {
        let app = spawn_app_on(framework).await;
        let key = app
            .key(
                Plan::Enterprise,
                Some(Limits {
                    per_minute: 2,
                    per_day: 100,
                }),
            )
            .await;
        let url = format!("{}/v1/categories", app.base);
        for expected in [201, 201, 429] {
            let r = app
                .client
                .request(Method::POST, &url)
                .bearer_auth(&key)
                .json(&json!({ "name": "Dogs" }))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), expected);
        }
    }
}
