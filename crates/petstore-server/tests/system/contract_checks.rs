//! The contract itself: what it lets pass and what it catches.

use crate::contract::contract;
use crate::helpers::Reply;
use reqwest::Method;
use serde_json::{json, Value};

#[test]
fn the_contract_catches_what_the_spec_forbids() {
    use reqwest::header::{HeaderMap, HeaderValue};
    let contract = contract();
    let headers = |pairs: &[(&'static str, &str)]| {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    };
    let limits = [
        ("x-ratelimit-limit", "60"),
        ("x-ratelimit-remaining", "59"),
        ("x-ratelimit-reset", "30"),
        ("content-type", "application/json"),
    ];
    let reply = |status: u16, pairs: &[(&'static str, &str)], body: Value| Reply {
        status: reqwest::StatusCode::from_u16(status).unwrap(),
        headers: headers(pairs),
        body,
    };
    let item = json!({ "petId": 7, "quantity": 1_000_000, "status": "available" });
    let get = Method::GET;
    assert_eq!(
        contract.check(&get, "/v1/inventory/7", &reply(200, &limits, item.clone())),
        Some("getInventoryItem".into())
    );
    assert_eq!(
        contract.check(&get, "/healthz", &reply(200, &[], Value::Null)),
        None
    );
    let route = contract.route(&get, "/v1/inventory/7").unwrap();
    let broken = |r: &Reply| contract.check_response(route, r).unwrap_err();
    let over = json!({ "petId": 7, "quantity": 1_000_001, "status": "available" });
    assert!(broken(&reply(200, &limits, over)).contains("1000001"));
    let unknown = json!({ "petId": 7, "quantity": 1, "status": "lost" });
    assert!(broken(&reply(200, &limits, unknown)).contains("lost"));
    assert!(broken(&reply(418, &limits, item.clone())).contains("418"));
    let busy = json!({ "code": "rate_limited", "message": "wait", "status": 429 });
    assert!(broken(&reply(429, &limits, busy)).contains("Retry-After"));
    let mut bad_header = limits;
    bad_header[0] = ("x-ratelimit-limit", "many");
    assert!(broken(&reply(200, &bad_header, item.clone())).contains("not a number"));
    let mut text = limits;
    text[3] = ("content-type", "text/plain");
    assert!(broken(&reply(200, &text, item)).contains("text/plain"));
    let error = json!({ "message": "no", "status": 404 });
    assert!(broken(&reply(404, &limits, error)).contains("code"));
    assert!(broken(&reply(404, &limits, Value::Null)).contains("null"));
}
