use super::*;
use crate::operation::{ApiKeyLocation, SchemeKind};

static SCHEMES: &[SecurityScheme] = &[
    SecurityScheme {
        name: "bearer",
        kind: SchemeKind::Http { scheme: "bearer" },
    },
    SecurityScheme {
        name: "key",
        kind: SchemeKind::ApiKey {
            location: ApiKeyLocation::Query,
            name: "api_key",
        },
    },
];

static GET_ITEM: Operation = Operation {
    id: "getItem",
    method: "GET",
    path: "/items/{id}/files/{name}.json",
    tag: "Items",
    stability: Stability::Stable,
    deprecated: false,
    deprecated_since: None,
    sunset: None,
    successor: None,
    security: &[
        SecurityRequirement {
            schemes: &[("key", &[])],
        },
        SecurityRequirement {
            schemes: &[("bearer", &[])],
        },
    ],
};

#[test]
fn a_walk_renews_the_idempotency_key_it_carries_and_adds_none() {
    let key = |call: &Call| {
        call.headers
            .iter()
            .find(|(n, _)| n == "idempotency-key")
            .map(|(_, v)| v.to_str().unwrap().to_string())
    };
    let mut call = Call::new(&GET_ITEM);
    call.renew_idempotency_key();
    assert_eq!(key(&call), None);
    call.header("Idempotency-Key", &"first", Explode::No);
    call.renew_idempotency_key();
    let renewed = key(&call).unwrap();
    assert_ne!(renewed, "first");
    assert!(uuid::Uuid::parse_str(&renewed).is_ok(), "{renewed}");
}

#[test]
fn requests_carry_parameters_in_their_styles_and_the_usable_credentials() {
    let mut core = Core::new("http://example.com/api/v1/", SCHEMES).unwrap();
    core.set_credential("bearer", Credential::Token("secret".into()));
    let mut call = Call::new(&GET_ITEM);
    call.path("id", &7, Style::Simple, Explode::No);
    call.path("name", &"a b/c", Style::Simple, Explode::No);
    call.query("tag", &vec!["x", "y"], Style::Form, Explode::Yes);
    call.query("limit", &None::<i32>, Style::Form, Explode::Yes);
    call.header("X-Count", &3, Explode::No);
    call.cookie("session", &"s1", Explode::No);
    let request = core.request(&call, &[]).unwrap();
    assert_eq!(
        request.url().as_str(),
        "http://example.com/api/v1/items/7/files/a%20b%2Fc.json?tag=x&tag=y"
    );
    let headers = request.headers();
    assert_eq!(headers["authorization"], "Bearer secret");
    assert_eq!(headers["x-count"], "3");
    assert_eq!(headers["cookie"], "session=s1");
    // The first requirement the credentials satisfy wins: the API key.
    core.set_credential("key", Credential::Key("k1".into()));
    let request = core.request(&call, &[]).unwrap();
    assert!(
        request.url().as_str().ends_with("&api_key=k1"),
        "{}",
        request.url()
    );
    assert!(!request.headers().contains_key("authorization"));
}

#[test]
fn bodies_take_their_media_types() {
    let core = Core::new("http://example.com", SCHEMES).unwrap();
    let mut call = Call::new(&GET_ITEM);
    call.form_body(&serde_json::json!({"name": "Rex", "tags": ["a"], "owner": {"id": 1}}))
        .unwrap();
    let request = core.request(&call, &[]).unwrap();
    assert_eq!(
        request.headers()["content-type"],
        "application/x-www-form-urlencoded"
    );
    let body = request.body().and_then(reqwest::Body::as_bytes).unwrap();
    assert_eq!(
        std::str::from_utf8(body).unwrap(),
        "name=Rex&owner%5Bid%5D=1&tags%5B%5D=a"
    );
    call.json_body(&serde_json::json!({"a": 1})).unwrap();
    let request = core.request(&call, &[]).unwrap();
    assert_eq!(request.headers()["content-type"], "application/json");
}

#[test]
fn answers_decode_headers_and_bodies() {
    let mut headers = HeaderMap::new();
    headers.insert("x-ratelimit-limit", HeaderValue::from_static("60"));
    headers.insert("x-ratelimit-remaining", HeaderValue::from_static("59"));
    headers.insert("x-ratelimit-reset", HeaderValue::from_static("1795348860"));
    headers.insert("location", HeaderValue::from_static("/v1/pets/1"));
    let answer = Answer {
        status: 201,
        headers,
        body: br#"{"id": 1}"#.to_vec(),
        live: None,
        strict: false,
    };
    assert_eq!(answer.json::<serde_json::Value>().unwrap()["id"], 1);
    assert_eq!(
        answer.required_header::<String>("Location").unwrap(),
        "/v1/pets/1"
    );
    assert!(answer.header::<i64>("location").is_err());
    assert!(answer.required_header::<String>("ETag").is_err());
    let reply = answer.reply(());
    assert_eq!(
        reply.rate_limit(),
        Some(RateLimit {
            limit: 60,
            remaining: 59,
            reset: 1_795_348_860
        })
    );
}

#[test]
fn backoff_stays_under_its_ceiling_and_retry_after_wins() {
    let retry = Retry::default();
    for attempt in 0..10 {
        let wait = retry.wait(attempt, None);
        assert!(wait <= retry.cap, "{wait:?}");
        assert!(wait <= retry.base * 2u32.pow(attempt.min(20)), "{wait:?}");
    }
    assert_eq!(
        retry.wait(0, Some(Duration::from_secs(7))),
        Duration::from_secs(7)
    );
    let a = new_idempotency_key();
    assert_eq!(a.len(), 36);
    assert_ne!(a, new_idempotency_key());
}

#[test]
fn credentials_never_print() {
    let text = format!("{:?}", Credential::Token("secret".into()));
    assert!(!text.contains("secret"));
}
