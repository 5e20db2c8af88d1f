//! The mock server, through the `mocked` snapshot's generated `MockService`
//! and glue: the first success with the response's first example that
//! fits its schema; values made within the schema's bounds, pattern and
//! discriminator, the same for the same seed; `Prefer` choosing a status,
//! a named example or made values; credentials required where the spec
//! secures an operation; refusals by the same glue, as declared statuses.

use actix_web::{test, web, App, FromRequest as _};
use petstore_tests::mocked::{metadata, mock::MockService, models::*, runtime};
use serde_json::Value;

type Answer = (u16, Vec<(String, String)>, Value);

/// Sends one request to a fresh mock with `seed`, on actix-web and on
/// axum, checks that both answer alike, and returns the status, the
/// headers and the JSON body (`null` when there is none).
async fn ask(seed: u64, request: test::TestRequest) -> Answer {
    ask_mock(
        MockService::new(seed).expect("a problem body can be made"),
        request,
    )
    .await
}

/// [`ask`], of `mock`.
async fn ask_mock(mock: MockService, request: test::TestRequest) -> Answer {
    let (request, mut payload) = request.to_http_parts();
    let body = actix_web::web::Payload::from_request(&request, &mut payload)
        .await
        .unwrap()
        .to_bytes()
        .await
        .unwrap();
    let mut again = test::TestRequest::default()
        .method(request.method().clone())
        .uri(&request.uri().to_string())
        .set_payload(body.clone());
    for (name, value) in request.headers() {
        again = again.append_header((name.clone(), value.clone()));
    }
    let on_actix = ask_actix(mock.clone(), again).await;
    let mut on_axum = http::Request::builder()
        .method(request.method().as_str())
        .uri(request.uri().to_string());
    for (name, value) in request.headers() {
        on_axum = on_axum.header(name.as_str(), value.as_bytes());
    }
    let on_axum = ask_axum(mock, on_axum.body(axum::body::Body::from(body)).unwrap()).await;
    assert_eq!(
        petstore_tests::comparable(&on_actix),
        petstore_tests::comparable(&on_axum),
        "actix-web, then axum"
    );
    let (status, headers, body) = on_actix;
    (status, headers, json_of(&body))
}

/// The answer of a mock served by actix-web.
async fn ask_actix(mock: MockService, request: test::TestRequest) -> petstore_tests::Answered {
    let app = test::init_service(
        App::new().service(web::scope(metadata::BASE_PATH).configure(|cfg| mock.configure(cfg))),
    )
    .await;
    let response = test::call_service(&app, request.to_request()).await;
    let status = response.status().as_u16();
    let headers = petstore_tests::headers(
        response
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_bytes())),
    );
    let body = test::read_body(response).await;
    (status, headers, body.to_vec())
}

/// The answer of a mock served by axum.
async fn ask_axum(
    mock: MockService,
    request: http::Request<axum::body::Body>,
) -> petstore_tests::Answered {
    use tower::ServiceExt as _;
    let router = runtime::axum::mounted(metadata::BASE_PATH, mock.router());
    let response = router.oneshot(request).await.expect("infallible");
    let status = response.status().as_u16();
    let headers = petstore_tests::headers(
        response
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_bytes())),
    );
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a body");
    (status, headers, body.to_vec())
}

fn json_of(body: &[u8]) -> Value {
    if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(body).expect("a JSON body")
    }
}

fn get(path: &str) -> test::TestRequest {
    test::TestRequest::get()
        .uri(&format!("/api{path}"))
        .insert_header(("X-Key", "anything"))
}

fn header<'a>(answer: &'a Answer, name: &str) -> Option<&'a str> {
    answer
        .1
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A made book keeps every bound of its schema, whatever the seed.
fn assert_book(book: &Value) {
    let isbn = book["isbn"].as_str().expect("an isbn");
    assert!(
        regex::Regex::new("^978-[0-9]{10}$").unwrap().is_match(isbn),
        "{book}"
    );
    let title = book["title"].as_str().expect("a title").chars().count();
    assert!((1..=40).contains(&title), "{book}");
    let pages = book["pages"].as_i64().expect("pages");
    assert!((1..=2000).contains(&pages), "{book}");
    match book["format"]["kind"].as_str() {
        Some("paper") => assert!(book["format"]["weight"].as_i64() >= Some(1), "{book}"),
        Some("ebook") => assert!(book["format"]["bytes"].as_i64() >= Some(1), "{book}"),
        other => panic!("format kind {other:?} in {book}"),
    }
    // What the mock sends, the type reads.
    serde_json::from_value::<Book>(book.clone()).expect("a Book");
}

#[actix_web::test]
async fn the_first_success_answers_with_the_first_example_that_fits() {
    let answer = ask(0, get("/books")).await;
    assert_eq!(answer.0, 200);
    assert_eq!(answer.2[0]["title"], "The Odyssey", "{}", answer.2);
    // A required header is there, and within its bounds.
    let total: i64 = header(&answer, "X-Total")
        .expect("X-Total")
        .parse()
        .unwrap();
    assert!(total >= 0);
}

#[actix_web::test]
async fn an_example_that_breaks_its_schema_is_not_sent() {
    // `bad` has an isbn the pattern refuses: made values answer instead.
    let answer = ask(0, get("/books").insert_header(("Prefer", "example=bad"))).await;
    assert_eq!(answer.0, 200);
    for book in answer.2.as_array().expect("a list") {
        assert_book(book);
    }
    let unknown = ask(0, get("/books").insert_header(("Prefer", "example=none"))).await;
    assert_eq!(unknown.0, 400);
    let message = unknown.2["message"].as_str().unwrap();
    assert!(message.contains("classics, bad"), "{message}");
}

#[actix_web::test]
async fn made_values_keep_every_bound_and_follow_the_seed() {
    let mut kinds = std::collections::BTreeSet::new();
    let mut bodies = Vec::new();
    for seed in 0..16 {
        let dynamic = || get("/books").insert_header(("Prefer", "dynamic=true"));
        let answer = ask(seed, dynamic()).await;
        assert_eq!(answer.0, 200);
        for book in answer.2.as_array().expect("a list") {
            assert_book(book);
            kinds.insert(book["format"]["kind"].as_str().unwrap().to_string());
        }
        assert_eq!(ask(seed, dynamic()).await.2, answer.2, "seed {seed}");
        bodies.push(answer.2);
    }
    // Both variants of the union get made, and seeds make different values.
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    bodies.dedup();
    assert!(bodies.len() > 1);
}

#[actix_web::test]
async fn prefer_code_answers_a_declared_status_and_names_them_otherwise() {
    let answer = ask(0, get("/books").insert_header(("Prefer", "code=400"))).await;
    assert_eq!(answer.0, 400);
    assert!(answer.2["code"].is_string() && answer.2["message"].is_string());
    // `default` stands for any status the operation does not declare.
    let post = test::TestRequest::post()
        .uri("/api/books")
        .insert_header(("X-Key", "k"))
        .insert_header(("Prefer", "code=409"))
        .set_json(serde_json::json!({
            "isbn": "978-0140449136", "title": "T", "pages": 1,
            "format": {"kind": "ebook", "bytes": 3}
        }));
    assert_eq!(ask(0, post).await.0, 409);
    let undeclared = ask(0, get("/books").insert_header(("Prefer", "code=404"))).await;
    assert_eq!(undeclared.0, 400);
    let message = undeclared.2["message"].as_str().unwrap();
    assert!(message.contains("declares 200, 400"), "{message}");
}

#[actix_web::test]
async fn a_secured_operation_needs_a_credential_of_its_scheme() {
    // `addBook`'s `default` takes the 401.
    let anonymous = test::TestRequest::post().uri("/api/books");
    let answer = ask(0, anonymous).await;
    assert_eq!(answer.0, 401);
    assert!(
        answer.2["message"].as_str().unwrap().contains("`key`"),
        "{}",
        answer.2
    );
    let empty = test::TestRequest::post()
        .uri("/api/books")
        .insert_header(("X-Key", ""));
    assert_eq!(ask(0, empty).await.0, 401);
    // `listBooks` declares no status for it, but a 400: that is sent.
    let undeclared = ask(0, test::TestRequest::get().uri("/api/books")).await;
    assert_eq!(undeclared.0, 400);
    assert_eq!(undeclared.2["code"], "unauthorized");
    // Credentials that travel in `Authorization` are a 401 when missing,
    // as HTTP has it, declared or not; a bearer token of any value will do.
    let admin = || test::TestRequest::get().uri("/api/admin/stats");
    assert_eq!(ask(0, admin()).await.0, 401);
    let basic = admin().insert_header(("Authorization", "Basic eDp5"));
    assert_eq!(ask(0, basic).await.0, 401);
    let bearer = admin().insert_header(("Authorization", "Bearer anything"));
    let answer = ask(0, bearer).await;
    assert_eq!(answer.0, 200);
    assert!(answer.2["books"].as_i64() >= Some(0), "{}", answer.2);
    // A required `Authorization` header parameter is credentials too: a
    // 401, with no body, as the operation declares it.
    let me = || test::TestRequest::get().uri("/api/me");
    assert_eq!(ask(0, me()).await.0, 401);
    assert_eq!(ask(0, me()).await.2, Value::Null);
    let me = me().insert_header(("Authorization", "Token t"));
    assert_eq!(ask(0, me).await.0, 200);
    // An operation with `security: []` is open.
    let health = test::TestRequest::get().uri("/api/health");
    assert_eq!(ask(0, health).await.0, 204);
}

#[actix_web::test]
async fn a_mock_given_credentials_takes_only_those() {
    let mock = || {
        MockService::new(0)
            .expect("a problem body can be made")
            .accepting_only(["k-1", "token-2"])
    };
    let add = |key: &'static str| {
        test::TestRequest::post()
            .uri("/api/books")
            .insert_header(("X-Key", key))
    };
    // An API key in a header: the given one, and only it.
    assert_ne!(ask_mock(mock(), add("k-1")).await.0, 401);
    let other = ask_mock(mock(), add("anything")).await;
    assert_eq!(other.0, 401);
    assert!(
        other.2["message"]
            .as_str()
            .unwrap()
            .contains("takes only the credentials it was given"),
        "{}",
        other.2
    );
    assert_eq!(
        ask_mock(mock(), test::TestRequest::post().uri("/api/books"))
            .await
            .0,
        401
    );
    // A bearer token: the same list, whatever the scheme.
    let admin = |authorization: &'static str| {
        test::TestRequest::get()
            .uri("/api/admin/stats")
            .insert_header(("Authorization", authorization))
    };
    assert_eq!(ask_mock(mock(), admin("Bearer token-2")).await.0, 200);
    assert_eq!(ask_mock(mock(), admin("Bearer k-1")).await.0, 200);
    assert_eq!(ask_mock(mock(), admin("Bearer anything")).await.0, 401);
    // Without the list, any non-empty one is taken, as before.
    assert_eq!(ask(0, admin("Bearer anything")).await.0, 200);
}

#[actix_web::test]
async fn requests_are_refused_by_the_glue_as_declared_statuses() {
    // Out of bounds: 422 is not declared, so it goes out as the declared 400.
    let answer = ask(0, get("/books?limit=500")).await;
    assert_eq!(answer.0, 400);
    assert!(
        answer.2["message"].as_str().unwrap().contains("limit"),
        "{}",
        answer.2
    );
    // A body the schema refuses, on an operation whose `default` takes it.
    let post = test::TestRequest::post()
        .uri("/api/books")
        .insert_header(("X-Key", "k"))
        .set_json(serde_json::json!({"isbn": "1", "title": "", "pages": 0}));
    let refused = ask(0, post).await;
    assert_eq!(refused.0, 422);
    assert!(refused.2["message"].is_string(), "{}", refused.2);
}

#[actix_web::test]
async fn a_body_offered_as_json_as_a_form_and_as_xml_is_read_each_way() {
    let post = || {
        test::TestRequest::post()
            .uri("/api/notes")
            .insert_header(("X-Key", "k"))
    };
    let json = post().set_json(serde_json::json!({"text": "hello", "pinned": true}));
    assert_eq!(ask(0, json).await.0, 201);
    let form = post()
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .set_payload("text=hello&pinned=true");
    assert_eq!(ask(0, form).await.0, 201);
    let xml = post()
        .insert_header(("Content-Type", "application/xml; charset=utf-8"))
        .set_payload("<note><text>hello</text><pinned>true</pinned></note>");
    assert_eq!(ask(0, xml).await.0, 201);
    let xml = post()
        .insert_header(("Content-Type", "application/xml"))
        .set_payload("<note><text>far too long for a note of twenty</text></note>");
    assert_eq!(ask(0, xml).await.0, 400);
    let malformed = post()
        .insert_header(("Content-Type", "application/xml"))
        .set_payload("<note><text>hello</note>");
    assert_eq!(ask(0, malformed).await.0, 400);
    // A form breaking the schema's bound is refused like JSON would be,
    // as the declared 400.
    let long = post()
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .set_payload("text=far+too+long+for+a+note+of+twenty");
    assert_eq!(ask(0, long).await.0, 400);
    let other = post()
        .insert_header(("Content-Type", "text/plain"))
        .set_payload("hello");
    let refused = ask(0, other).await;
    assert_eq!(refused.0, 400);
    // The operation's 400 declares a body of its own, in a media type of
    // its own: the refusal has both.
    assert_eq!(
        header(&refused, "content-type"),
        Some("application/problem+json")
    );
    // The typed 400 itself, as the glue renders it, is sent so too.
    let asked = post()
        .insert_header(("Prefer", "code=400"))
        .set_json(serde_json::json!({"text": "hi"}));
    let asked = ask(0, asked).await;
    assert_eq!(asked.0, 400);
    assert_eq!(
        header(&asked, "content-type"),
        Some("application/problem+json")
    );
    assert!(
        refused.2["reason"].as_str().is_some_and(|r| !r.is_empty()),
        "{}",
        refused.2
    );
}

/// OpenAPI 3.2's `query` operation and an `additionalOperations` method
/// are mocked like any other: routed by their own method, the body read,
/// and answered with the examples of a media type given by reference.
#[actix_web::test]
async fn a_query_and_an_additional_method_are_answered_as_themselves() {
    use petstore_tests::tour32 as spec;
    let mock = spec::mock::MockService::new(7).expect("a problem body can be made");
    let app = test::init_service(
        App::new()
            .service(web::scope(spec::metadata::BASE_PATH).configure(|cfg| mock.configure(cfg))),
    )
    .await;
    let call = |method: &str, path: &str| {
        test::TestRequest::default()
            .method(method.parse().unwrap())
            .uri(path)
            .insert_header(("content-type", "application/json"))
            .set_payload(r#"{"name": "Re", "limit": 3}"#)
            .to_request()
    };
    let response = test::call_service(&app, call("QUERY", "/pets")).await;
    assert_eq!(response.status().as_u16(), 200);
    // The example of the media type the response names by reference, its
    // 3.2 `dataValue`.
    let pets: Vec<spec::models::Pet> = test::read_body_json(response).await;
    let names: Vec<&str> = pets.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Rex", "Tom"]);
    let response = test::call_service(&app, call("COPY", "/pets/3")).await;
    assert_eq!(response.status().as_u16(), 201);
    let _: spec::models::Pet = test::read_body_json(response).await;
    // The QUERY's body is checked like a POST's.
    let refused = test::TestRequest::default()
        .method("QUERY".parse().unwrap())
        .uri("/pets")
        .insert_header(("content-type", "application/json"))
        .set_payload(r#"{"limit": 0}"#)
        .to_request();
    let response = test::call_service(&app, refused).await;
    assert_eq!(response.status().as_u16(), 422);
}

/// OpenAPI 3.2's sequential media are mocked as streams: JSON Lines one
/// item of the spec's schema a line (when `Accept` asks for them, or names
/// neither them nor the JSON beside them), a JSON text sequence each item
/// after a record separator.
#[actix_web::test]
async fn sequential_media_are_mocked_one_valid_item_at_a_time() {
    use petstore_tests::tour32 as spec;
    let mock = spec::mock::MockService::new(7).expect("a problem body can be made");
    let app = test::init_service(
        App::new()
            .service(web::scope(spec::metadata::BASE_PATH).configure(|cfg| mock.configure(cfg))),
    )
    .await;
    let read = |response: actix_web::dev::ServiceResponse| async move {
        let media = response.headers().get("content-type").cloned();
        let body = test::read_body(response).await;
        let text = String::from_utf8(body.to_vec()).expect("UTF-8");
        (media.map(|m| m.to_str().unwrap().to_string()), text)
    };
    let export = |accept: &str| {
        test::TestRequest::get()
            .uri("/pets/export")
            .insert_header(("accept", accept))
            .to_request()
    };
    let (media, text) = read(test::call_service(&app, export("application/jsonl")).await).await;
    assert_eq!(media.as_deref(), Some("application/jsonl"));
    let pets: Vec<spec::models::Pet> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("a pet a line"))
        .collect();
    assert_eq!(pets.len(), 3, "{text}");
    // Asked for nothing in particular, the media type the document lists
    // first; asked for JSON, the same status answers as JSON.
    let plain = test::TestRequest::get().uri("/pets/export").to_request();
    let (media, _) = read(test::call_service(&app, plain).await).await;
    assert_eq!(media.as_deref(), Some("application/jsonl"));
    let (media, text) = read(test::call_service(&app, export("application/json")).await).await;
    assert_eq!(media.as_deref(), Some("application/json"));
    let _: Vec<spec::models::Pet> = serde_json::from_str(&text).expect("an array of pets");

    let changes = test::TestRequest::default()
        .method("QUERY".parse().unwrap())
        .uri("/pets/changes")
        .insert_header(("content-type", "application/json"))
        .set_payload("{}")
        .to_request();
    let (media, text) = read(test::call_service(&app, changes).await).await;
    assert_eq!(media.as_deref(), Some("application/json-seq"));
    let records: Vec<&str> = text.split('\u{1e}').skip(1).collect();
    assert_eq!(records.len(), 3, "{text:?}");
    for record in records {
        // Each record one JSON text, ended by a line feed, that the
        // item's type (its `id` and `name` required) reads.
        let text = record
            .strip_suffix('\n')
            .expect("a line feed ends a record");
        let _: spec::models::PetChangesOkItem = serde_json::from_str(text).expect("a change");
    }

    // `multipart/mixed`: a JSON part each, between the delimiters of the
    // boundary its `Content-Type` names, then the closing delimiter.
    let bundle = test::TestRequest::get().uri("/pets/bundle").to_request();
    let (media, text) = read(test::call_service(&app, bundle).await).await;
    let media = media.expect("a media type");
    let boundary = media
        .strip_prefix("multipart/mixed; boundary=")
        .expect("a boundary");
    let delimiter = format!("--{boundary}\r\n");
    let (parts, end) = text
        .rsplit_once(&format!("--{boundary}--\r\n"))
        .expect("a closing delimiter");
    assert_eq!(end, "");
    let parts: Vec<&str> = parts.split(&delimiter).skip(1).collect();
    assert_eq!(parts.len(), 3, "{text:?}");
    for part in parts {
        let (headers, body) = part.split_once("\r\n\r\n").expect("headers, then a body");
        assert_eq!(headers, "content-type: application/json");
        let body = body
            .strip_suffix("\r\n")
            .expect("a line break before the delimiter");
        let _: spec::models::Pet = serde_json::from_str(body).expect("a pet a part");
    }
}

/// An event stream whose schema describes whole events is mocked with
/// each event's `event` field one its schema allows, beside its id and
/// its data of the content schema.
#[actix_web::test]
async fn mocked_events_are_named_as_their_schema_allows() {
    use petstore_tests::tour32 as spec;
    let mock = spec::mock::MockService::new(3).expect("a problem body can be made");
    let app = test::init_service(
        App::new()
            .service(web::scope(spec::metadata::BASE_PATH).configure(|cfg| mock.configure(cfg))),
    )
    .await;
    let request = test::TestRequest::get()
        .uri("/pets/events")
        .insert_header(("accept", "text/event-stream"))
        .to_request();
    let response = test::call_service(&app, request).await;
    assert_eq!(response.status(), 200);
    let body = test::read_body(response).await;
    let text = String::from_utf8(body.to_vec()).expect("UTF-8");
    let events: Vec<&str> = text.split("\n\n").filter(|e| e.contains("data:")).collect();
    assert_eq!(events.len(), 3, "{text}");
    let mut names = Vec::new();
    for event in events {
        let field = |name: &str| {
            event
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .map(str::trim)
        };
        names.push(field("event:").expect("every event named").to_string());
        let data = field("data:").expect("data");
        let _: spec::models::Pet = serde_json::from_str(data).expect("a pet");
    }
    assert_eq!(names, ["pet.created", "pet.changed", "pet.created"]);
}
