//! What the generator's snapshots promise at run time: the security each
//! operation declares, and names that do not collide.

use petstore_tests::{hygiene, security};

/// A response's status, `Allow` header and JSON body (`null` when there is
/// none), read whole.
/// What a handler got on both frameworks (`answer_on_both!` calls it
/// twice): the same value twice, or nothing when the glue refused the
/// request before the handler on both.
fn same_on_both<T: PartialEq + std::fmt::Debug>(mut got: Vec<T>) -> Option<T> {
    match got.len() {
        0 => None,
        2 => {
            let axum = got.pop();
            let actix = got.pop();
            assert_eq!(
                actix, axum,
                "what the handler got on actix-web, then on axum"
            );
            actix
        }
        n => panic!("the handler ran {n} times for one request on each framework"),
    }
}

fn status_allow_body(answer: petstore_tests::Answered) -> (u16, Option<String>, serde_json::Value) {
    let (status, headers, body) = answer;
    let allow = headers
        .into_iter()
        .find(|(name, _)| name == "allow")
        .map(|(_, value)| value);
    (
        status,
        allow,
        serde_json::from_slice(&body).unwrap_or_default(),
    )
}

#[test]
fn each_operation_carries_its_own_security_or_the_documents() {
    use security::metadata::*;
    assert!(GET_PUBLIC.is_public(), "security: [] is public");
    assert!(
        GET_OPTIONAL.is_public(),
        "an empty requirement admits anyone"
    );
    assert!(!GET_DEFAULT.is_public());
    assert_eq!(GET_DEFAULT.security, DEFAULT_SECURITY);
    assert_eq!(DEFAULT_SECURITY[0].schemes, [("bearer", &[][..])]);
    assert_eq!(
        DO_ADMIN.security[0].schemes,
        [("basic", &[][..]), ("oauth", &["admin", "write"][..])]
    );
    let schemes: Vec<&str> = GET_WITH_KEY
        .security
        .iter()
        .map(|r| r.schemes[0].0)
        .collect();
    assert_eq!(schemes, ["apiKeyHeader", "apiKeyQuery", "session"]);
    use security::runtime::{ApiKeyLocation, SchemeKind};
    let kind = |name: &str| {
        SECURITY_SCHEMES
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .kind
    };
    assert_eq!(kind("basic"), SchemeKind::Http { scheme: "basic" });
    assert_eq!(
        kind("apiKeyQuery"),
        SchemeKind::ApiKey {
            location: ApiKeyLocation::Query,
            name: "api_key"
        }
    );
    assert_eq!(kind("oidc"), SchemeKind::OpenIdConnect);
}

#[test]
fn operation_ids_that_differ_in_case_get_their_own_constants() {
    use hygiene::metadata::*;
    assert_eq!(GET_PET.id, "getPet");
    assert_eq!(GET_PET2.id, "get_pet");
    // Each constant is the table's entry: one address per operation.
    assert!(std::ptr::eq(GET_PET2, &OPERATIONS[1]));
    assert_eq!(by_id("respond").map(|op| op.path), Some("/d"));
}

#[test]
fn schemas_named_like_the_prelude_keep_working_types() {
    use hygiene::models;
    use hygiene::runtime::Validate;
    let result = models::Result2 {
        ok: true,
        error: Some(models::String2 {
            s: Some("x".into()),
        }),
    };
    let json = serde_json::to_value(&result).unwrap();
    assert_eq!(json, serde_json::json!({"ok": true, "error": {"s": "x"}}));
    assert_eq!(
        serde_json::from_value::<models::Result2>(json).unwrap(),
        result
    );
    let chain = models::Option2 {
        next: Some(Box::new(models::Option2 { next: None })),
    };
    let json = serde_json::to_value(&chain).unwrap();
    assert_eq!(
        serde_json::from_value::<models::Option2>(json).unwrap(),
        chain
    );
    // An alias's bounds are checked where it is used: `Vec` allows two items.
    let too_many = hygiene::operations::ConfigureRequest {
        body: vec![models::Box2 { b: None }; 3],
    };
    assert_eq!(
        too_many.validate().unwrap_err().to_string(),
        "`body` must have at most 2 items"
    );
}

mod errors_glue {

    use petstore_tests::errors::{models, operations::*, runtime, server};

    /// Answers by id: 1 a thing, 2 not found, anything else a status no
    /// operation declares (418).
    struct Service;

    fn error(status: u16, code: &str) -> ErrorResponse {
        ErrorResponse::new(
            runtime::StatusCode::from_u16(status).unwrap(),
            models::Error {
                code: code.into(),
                status: i32::from(status),
            },
        )
    }

    fn answer(id: i64) -> Result<models::Thing, ErrorResponse> {
        match id {
            1 => Ok(models::Thing { id }),
            2 => Err(error(404, "not_found")),
            _ => Err(error(418, "teapot")),
        }
    }

    impl Things for Service {
        async fn get_thing(
            &self,
            request: GetThingRequest,
            _: runtime::RequestContext,
        ) -> Result<GetThingResponse, ErrorResponse> {
            answer(request.id).map(GetThingResponse::Ok)
        }

        async fn delete_thing(
            &self,
            request: DeleteThingRequest,
            _: runtime::RequestContext,
        ) -> Result<DeleteThingResponse, ErrorResponse> {
            answer(request.id).map(|_| DeleteThingResponse::NoContent)
        }

        async fn list_things(
            &self,
            _: ListThingsRequest,
            _: runtime::RequestContext,
        ) -> Result<ListThingsResponse, ErrorResponse> {
            answer(3).map(|t| ListThingsResponse::Ok(vec![t]))
        }
    }

    impl server::Rejections for Service {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            error(rejection.status().as_u16(), rejection.kind.code())
        }
    }

    async fn call(method: &str, path: &str) -> (u16, serde_json::Value) {
        let request = petstore_tests::request(method, path, &[], b"");
        let (status, _, body) = petstore_tests::answer_on_both!(
            petstore_tests::errors,
            std::sync::Arc::new(Service),
            request
        );
        (status, serde_json::from_slice(&body).unwrap_or_default())
    }

    #[actix_web::test]
    async fn declared_statuses_go_out_as_they_are() {
        assert_eq!(call("GET", "/things/1").await.0, 200);
        let (status, body) = call("GET", "/things/2").await;
        assert_eq!((status, body["code"].as_str()), (404, Some("not_found")));
    }

    #[actix_web::test]
    async fn an_undeclared_status_becomes_the_internal_error_the_operation_declares() {
        // getThing declares 500: the service's internal error, whose body
        // agrees with the status it is sent with.
        let (status, body) = call("GET", "/things/3").await;
        assert_eq!(status, 500);
        assert_eq!(body["code"], "internal");
        assert_eq!(body["status"], 500);
        // deleteThing declares no 500 either: the internal error still,
        // never the undeclared 418.
        let (status, body) = call("DELETE", "/things/3").await;
        assert_eq!((status, body["status"].as_i64()), (500, Some(500)));
        // listThings declares `default`: any status is declared.
        let (status, body) = call("GET", "/things").await;
        assert_eq!((status, body["code"].as_str()), (418, Some("teapot")));
    }

    /// On axum, a layer around the routes sees each request's operation
    /// (none for a 404 or a 405) and its answer.
    #[actix_web::test]
    async fn an_axum_layer_knows_the_operation_it_observes() {
        use std::sync::{Arc, Mutex};
        use tower::ServiceExt as _;
        /// Each answer's operation and status.
        type Seen = Mutex<Vec<(Option<&'static str>, u16)>>;
        let seen: Arc<Seen> = Arc::default();
        let observed = seen.clone();
        let layer = runtime::axum::Observe::new(move |answered: &runtime::axum::Answered| {
            let operation = answered.operation.map(|o| o.id);
            observed
                .lock()
                .unwrap()
                .push((operation, answered.status.as_u16()));
        });
        // Stacked with the request log, as a service would stack layers.
        let layers = tower::ServiceBuilder::new()
            .layer(runtime::axum::request_log())
            .layer(layer);
        let router = petstore_tests::errors::axum::router_with(Arc::new(Service), layers);
        for (method, path) in [
            ("GET", "/things/1"),
            ("GET", "/things/3"),
            ("GET", "/things/x"),
            ("PUT", "/things/1"),
            ("GET", "/nowhere"),
        ] {
            let request = petstore_tests::request(method, path, &[], b"");
            let (parts, body) = request.into_parts();
            let request = http::Request::from_parts(parts, axum::body::Body::from(body));
            router.clone().oneshot(request).await.expect("infallible");
        }
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (Some("getThing"), 200),
                (Some("getThing"), 500),
                (Some("getThing"), 400),
                (None, 405),
                (None, 404),
            ]
        );
    }

    #[actix_web::test]
    async fn refusals_before_the_handler_use_the_same_path() {
        let (status, body) = call("GET", "/things/x").await;
        assert_eq!((status, body["code"].as_str()), (400, Some("bad_request")));
        let (status, _) = call("PUT", "/things/1").await;
        assert_eq!(status, 405);
        let (status, body) = call("GET", "/nowhere").await;
        assert_eq!((status, body["code"].as_str()), (404, Some("not_found")));
    }
}

/// Status ranges and `default` beside explicit codes, and the methods
/// actix-web has no shorthand for, through the generated glue.
mod statuses_glue {

    use petstore_tests::statuses::{models, operations::*, runtime, server};
    use runtime::Response as _;

    struct Service;

    fn error(status: u16, code: &str) -> ErrorResponse {
        ErrorResponse::new(
            runtime::StatusCode::from_u16(status).unwrap(),
            models::Error {
                code: code.into(),
                status: i32::from(status),
            },
        )
    }

    fn status(code: u16) -> runtime::StatusCode {
        runtime::StatusCode::from_u16(code).unwrap()
    }

    impl Teapots for Service {
        async fn get_teapot(
            &self,
            request: GetTeapotRequest,
            _: runtime::RequestContext,
        ) -> Result<GetTeapotResponse, ErrorResponse> {
            match request.id {
                1 => Ok(GetTeapotResponse::Ok(models::Teapot { id: 1 })),
                // Errors, each sent as the variant its status falls in.
                2 => Err(error(404, "not_found")),
                3 => Err(error(418, "teapot")),
                4 => Err(error(503, "unavailable")),
                // A range variant with a status outside its range.
                5 => Ok(GetTeapotResponse::ClientError {
                    status: status(302),
                    body: models::Error {
                        code: "moved".into(),
                        status: 302,
                    },
                }),
                // An error outside every declared status.
                _ => Err(error(302, "found")),
            }
        }

        async fn teapot_options(
            &self,
            _: TeapotOptionsRequest,
            _: runtime::RequestContext,
        ) -> Result<TeapotOptionsResponse, ErrorResponse> {
            Ok(TeapotOptionsResponse::NoContent {
                allow: Some("OPTIONS, HEAD, TRACE".into()),
            })
        }

        async fn teapots_head(
            &self,
            _: TeapotsHeadRequest,
            _: runtime::RequestContext,
        ) -> Result<TeapotsHeadResponse, ErrorResponse> {
            Ok(TeapotsHeadResponse::Ok)
        }

        async fn trace_teapots(
            &self,
            _: TraceTeapotsRequest,
            _: runtime::RequestContext,
        ) -> Result<TraceTeapotsResponse, ErrorResponse> {
            Ok(TraceTeapotsResponse::Success {
                status: status(203),
            })
        }
    }

    impl Kettles for Service {
        async fn kettles_head(
            &self,
            _: KettlesHeadRequest,
            _: runtime::RequestContext,
        ) -> Result<KettlesHeadResponse, ErrorResponse> {
            Ok(KettlesHeadResponse::Ok)
        }
    }

    impl server::Rejections for Service {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            error(rejection.status().as_u16(), rejection.kind.code())
        }
    }

    /// Status, `Allow` header and body of one call, on both frameworks.
    async fn call(method: &str, path: &str) -> (u16, Option<String>, serde_json::Value) {
        let request = petstore_tests::request(method, path, &[], b"");
        let answer = petstore_tests::answer_on_both!(
            petstore_tests::statuses,
            std::sync::Arc::new(Service),
            request
        );
        super::status_allow_body(answer)
    }

    #[actix_web::test]
    async fn an_error_goes_out_as_its_code_or_its_range() {
        let (s, _, body) = call("GET", "/teapots/2").await;
        assert_eq!((s, body["code"].as_str()), (404, Some("not_found")));
        assert_eq!(
            GetTeapotResponse::declared(error(404, "x")).unwrap(),
            GetTeapotResponse::NotFound(models::Error {
                code: "x".into(),
                status: 404
            }),
            "the explicit code wins over its range"
        );
        let (s, _, body) = call("GET", "/teapots/3").await;
        assert_eq!((s, body["code"].as_str()), (418, Some("teapot")));
        let (s, _, body) = call("GET", "/teapots/4").await;
        assert_eq!((s, body["code"].as_str()), (503, Some("unavailable")));
        assert!(matches!(
            GetTeapotResponse::declared(error(418, "x")),
            Ok(GetTeapotResponse::ClientError { status, .. }) if status.as_u16() == 418
        ));
    }

    #[actix_web::test]
    async fn a_status_outside_the_declared_range_is_refused() {
        // Sent as a 4XX with 302: the glue refuses it, and the internal error
        // goes out as the 5XX the operation declares.
        let (s, _, body) = call("GET", "/teapots/5").await;
        assert_eq!((s, body["code"].as_str()), (500, Some("internal")));
        // An error no response declares: the same.
        let (s, _, body) = call("GET", "/teapots/6").await;
        assert_eq!((s, body["code"].as_str()), (500, Some("internal")));
    }

    #[actix_web::test]
    async fn options_head_and_trace_route() {
        let (s, allow, _) = call("OPTIONS", "/teapots").await;
        assert_eq!((s, allow.as_deref()), (204, Some("OPTIONS, HEAD, TRACE")));
        assert_eq!(call("HEAD", "/teapots").await.0, 200);
        assert_eq!(call("TRACE", "/teapots").await.0, 203);
        assert_eq!(call("HEAD", "/kettles").await.0, 200);
        // Other methods: 405, with what the path allows.
        let (s, allow, body) = call("GET", "/kettles").await;
        assert_eq!((s, allow.as_deref()), (405, Some("HEAD")));
        assert_eq!(body["code"], "method_not_allowed");
        let (s, allow, _) = call("POST", "/teapots").await;
        assert_eq!((s, allow.as_deref()), (405, Some("OPTIONS, HEAD, TRACE")));
    }
}

/// Unions decided by the schema, and the inferred discriminator, through the
/// generated glue.
mod oneof_glue {

    use petstore_tests::oneof::{models, operations::*, runtime, server};

    struct Service;

    impl Shapes for Service {
        async fn measure(
            &self,
            request: MeasureRequest,
            _: runtime::RequestContext,
        ) -> Result<MeasureResponse, ErrorResponse> {
            let name = match request.body {
                models::Shape::Circle(_) => "circle",
                models::Shape::Square(_) => "square",
                models::Shape::Rectangle(_) => "rectangle",
            };
            Ok(MeasureResponse::Ok(name.into()))
        }
    }

    impl Animals for Service {
        async fn greet(
            &self,
            request: GreetRequest,
            _: runtime::RequestContext,
        ) -> Result<GreetResponse, ErrorResponse> {
            Ok(GreetResponse::Ok(match request.body {
                models::Animal::Dog(d) => format!("woof, {}", d.name),
                models::Animal::Cat(c) => format!("meow, {}", c.name),
            }))
        }
    }

    impl server::Rejections for Service {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            ErrorResponse::new(
                rejection.status(),
                models::Error {
                    code: rejection.kind.code().into(),
                    message: rejection.message,
                },
            )
        }
    }

    async fn post(path: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
        let json = [("content-type", "application/json")];
        let request = petstore_tests::request("POST", path, &json, body.to_string().as_bytes());
        let (status, _, body) = petstore_tests::answer_on_both!(
            petstore_tests::oneof,
            std::sync::Arc::new(Service),
            request
        );
        (status, serde_json::from_slice(&body).unwrap_or_default())
    }

    #[actix_web::test]
    async fn exactly_one_variant_must_accept_the_value() {
        use serde_json::json;
        assert_eq!(
            post("/shapes", json!({"radius": 1})).await,
            (200, json!("circle"))
        );
        // A circle refuses other properties, and a rectangle needs a height:
        // a square, whatever order the variants are listed in.
        assert_eq!(
            post("/shapes", json!({"radius": 1, "side": 2})).await,
            (200, json!("square"))
        );
        // A square and a rectangle both accept this one: refused, by name.
        let (status, body) = post("/shapes", json!({"side": 2, "height": 3})).await;
        assert_eq!(status, 422, "{body}");
        let message = body["message"].as_str().unwrap();
        assert!(
            message.contains("fits more than one shape of a `Shape` (Square, Rectangle)"),
            "{message}"
        );
        let (status, body) = post("/shapes", json!({"edge": 1})).await;
        assert_eq!(status, 422);
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("none of the shapes a `Shape` may take (Circle, Square, Rectangle)"),
            "{body}"
        );
    }

    #[actix_web::test]
    async fn variants_that_fix_a_property_are_read_by_it() {
        use serde_json::json;
        assert_eq!(
            post("/animals", json!({"kind": "cat", "name": "Tom"})).await,
            (200, json!("meow, Tom"))
        );
        let (status, body) = post("/animals", json!({"kind": "cow", "name": "x"})).await;
        assert_eq!(status, 422);
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("unknown `kind` value `cow`: expected `dog`, `cat`"),
            "{body}"
        );
        // Serialised back, the variant keeps its property.
        let dog: models::Animal =
            serde_json::from_value(json!({"kind": "dog", "name": "Rex"})).unwrap();
        assert_eq!(
            serde_json::to_value(&dog).unwrap(),
            json!({"kind": "dog", "name": "Rex"})
        );
    }
}

/// Parameters whose shape no style carries travel as JSON text; a
/// `deepObject` holds a union; `content` parameters are their JSON.
mod param_shapes_glue {

    use petstore_tests::param_shapes::{models, operations::*, runtime, server};

    struct Service;

    impl Search for Service {
        async fn search(
            &self,
            request: SearchRequest,
            _: runtime::RequestContext,
        ) -> Result<SearchResponse, ErrorResponse> {
            let choice = request.choice.map(|c| match c {
                models::SearchChoice::ByName(n) => format!("name {}", n.name),
                models::SearchChoice::ById(i) => format!("id {}", i.id),
            });
            let echo = serde_json::json!({
                "filter": request.filter,
                "choice": choice,
                "where": request.where_,
                "context": request.x_context,
            });
            Ok(SearchResponse::Ok(
                serde_json::from_value(echo).expect("an object"),
            ))
        }
    }

    impl server::Rejections for Service {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            ErrorResponse::new(
                rejection.status(),
                models::Error {
                    code: rejection.kind.code().into(),
                    message: rejection.message,
                },
            )
        }
    }

    fn encoded(text: &str) -> String {
        form_urlencoded::byte_serialize(text.as_bytes()).collect()
    }

    async fn get(query: &str, context: Option<&str>) -> (u16, serde_json::Value) {
        let headers: Vec<(&str, &str)> = context.map(|c| ("X-Context", c)).into_iter().collect();
        let request = petstore_tests::request("GET", &format!("/search?{query}"), &headers, b"");
        let (status, _, body) = petstore_tests::answer_on_both!(
            petstore_tests::param_shapes,
            std::sync::Arc::new(Service),
            request
        );
        (status, serde_json::from_slice(&body).unwrap_or_default())
    }

    #[actix_web::test]
    async fn json_text_carries_what_a_style_cannot() {
        use serde_json::json;
        let filter = encoded(r#"{"tags":[{"k":"colour","v":"red"}]}"#);
        let near = encoded(r#"{"near":[1.5,2]}"#);
        let (status, body) = get(
            &format!("filter={filter}&where={near}"),
            Some(r#"{"trace":"t-1"}"#),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            body["filter"],
            json!({"tags": [{"k": "colour", "v": "red"}]})
        );
        assert_eq!(body["where"], json!({"near": [1.5, 2.0]}));
        assert_eq!(body["context"], json!({"trace": "t-1"}));
        let (status, body) = get("filter=%7Bnot%20json", None).await;
        assert_eq!(status, 400);
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("query parameter `filter` is not the JSON its schema asks for"),
            "{body}"
        );
    }

    #[actix_web::test]
    async fn a_deep_object_union_is_decided_from_its_keys() {
        assert_eq!(get("choice[id]=42", None).await.1["choice"], "id 42");
        assert_eq!(get("choice[name]=Rex", None).await.1["choice"], "name Rex");
        let (status, body) = get("choice[other]=1", None).await;
        assert_eq!(status, 400, "{body}");
    }
}

/// Formats users expect typed, format checks on request, and optional
/// nullable properties in three states, through the generated glue.
mod formats_glue {
    use petstore_tests::formats::{models, operations::*, runtime, server};
    use serde_json::json;
    use std::sync::Mutex;

    /// Keeps each sample it was sent.
    #[derive(Default)]
    struct Store(Mutex<Vec<Option<models::Sample>>>);

    impl Samples for Store {
        async fn put_sample(
            &self,
            request: PutSampleRequest,
            _: runtime::RequestContext,
        ) -> Result<PutSampleResponse, ErrorResponse> {
            self.0.lock().unwrap().push(request.body);
            Ok(PutSampleResponse::NoContent)
        }
    }

    impl server::Rejections for Store {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            ErrorResponse::new(rejection.status(), json!({ "message": rejection.message }))
        }
    }

    /// The status, and the sample the handler got.
    async fn put(body: serde_json::Value) -> (u16, Option<models::Sample>, serde_json::Value) {
        let store = std::sync::Arc::new(Store::default());
        let json = [("content-type", "application/json")];
        let request =
            petstore_tests::request("PUT", "/samples", &json, body.to_string().as_bytes());
        let (status, _, body) =
            petstore_tests::answer_on_both!(petstore_tests::formats, store.clone(), request);
        let got = super::same_on_both(std::mem::take(&mut *store.0.lock().unwrap()));
        (
            status,
            got.flatten(),
            serde_json::from_slice(&body).unwrap_or_default(),
        )
    }

    fn minimal() -> serde_json::Value {
        json!({ "small": 1, "big": 2, "mandatoryNote": null })
    }

    fn with(key: &str, value: serde_json::Value) -> serde_json::Value {
        let mut body = minimal();
        body[key] = value;
        body
    }

    #[actix_web::test]
    async fn absent_null_and_a_value_are_three_states() {
        let (status, absent, _) = put(minimal()).await;
        assert_eq!(status, 204);
        let absent = absent.unwrap();
        assert_eq!(absent.nickname, runtime::Nullable::Absent);
        let null = put(with("nickname", json!(null))).await.1.unwrap();
        assert_eq!(null.nickname, runtime::Nullable::Null);
        let set = put(with("nickname", json!("Rex"))).await.1.unwrap();
        assert_eq!(set.nickname, runtime::Nullable::Value("Rex".into()));
        // Written back, each stays what it was.
        assert!(serde_json::to_value(&absent)
            .unwrap()
            .get("nickname")
            .is_none());
        assert_eq!(
            serde_json::to_value(&null).unwrap()["nickname"],
            json!(null)
        );
        assert_eq!(serde_json::to_value(&set).unwrap()["nickname"], "Rex");
        // The value's own checks still apply.
        let (status, _, _) = put(with("nickname", json!("x".repeat(21)))).await;
        assert_eq!(status, 422);
        // Required and nullable: null is accepted, absent is not.
        let mut body = minimal();
        body.as_object_mut().unwrap().remove("mandatoryNote");
        let (status, _, body) = put(body).await;
        assert_eq!(status, 422, "{body}");
        assert!(
            body["message"].as_str().unwrap().contains("mandatoryNote"),
            "{body}"
        );
    }

    #[actix_web::test]
    async fn uuids_and_bytes_are_typed() {
        let id = "67e55044-10b1-426f-9247-bb680e5fe0c8";
        let mut body = with("token", json!(id));
        body["blob"] = json!("AAEC+v8=");
        body["file"] = json!("aGk=");
        let sample = put(body).await.1.unwrap();
        assert_eq!(sample.token, Some(id.parse().unwrap()));
        assert_eq!(
            sample.blob.as_deref().map(|b| b.as_slice()),
            Some(&[0, 1, 2, 250, 255][..])
        );
        assert_eq!(
            sample.file.as_deref().map(|b| b.as_slice()),
            Some(&b"hi"[..])
        );
        let written = serde_json::to_value(&sample).unwrap();
        assert_eq!(written["blob"], "AAEC+v8=", "bytes go out as base64 text");
        assert_eq!(written["token"], id);
        let (status, _, body) = put(with("token", json!("not-a-uuid"))).await;
        assert_eq!(status, 422, "{body}");
        let (status, _, _) = put(with("blob", json!([1, 2, 3]))).await;
        assert_eq!(status, 204, "raw bytes read too (a multipart file part)");
    }

    #[actix_web::test]
    async fn email_uri_and_duration_are_checked_when_asked() {
        assert_eq!(put(with("contact", json!("a@example.com"))).await.0, 204);
        let (status, _, body) = put(with("contact", json!("not an address"))).await;
        assert_eq!(status, 422);
        assert!(
            body["message"].as_str().unwrap().contains("email"),
            "{body}"
        );
        assert_eq!(
            put(with("homepage", json!("https://example.com"))).await.0,
            204
        );
        assert_eq!(put(with("homepage", json!("example.com"))).await.0, 422);
        assert_eq!(put(with("every", json!("PT1H30M"))).await.0, 204);
        assert_eq!(put(with("every", json!("AAA"))).await.0, 422);
    }
}

/// Checks run where a type can break a bound, and fractional bounds on
/// integers keep exactly the integers inside them.
#[test]
fn bounds_are_checked_where_a_type_can_break_one() {
    use petstore_tests::checked::{models, operations::StockShelfRequest, runtime::Validate};
    let request = |level: i64, label: &str| StockShelfRequest {
        level: Some(level),
        note: None,
        tier: None,
        body: models::Shelf {
            labels: Some(vec![models::Label { text: label.into() }]),
            note: None,
            tags: None,
        },
    };
    // `minimum: 1.5`, `maximum: 9.5` (exclusive): 2 to 9.
    let level = |n| request(n, "ok").validate().map_err(|v| v.to_string());
    assert_eq!(level(1), Err("`level` must be at least 2".into()));
    assert_eq!(level(2), Ok(()));
    assert_eq!(level(9), Ok(()));
    assert_eq!(level(10), Err("`level` must be at most 9".into()));
    // A label held in a list, in the body.
    assert_eq!(
        request(2, "too long by far")
            .validate()
            .unwrap_err()
            .to_string(),
        "`body.labels.0.text` must be at most 8 characters long"
    );
    // `uniqueItems`: no tag twice.
    let mut tagged = request(2, "ok");
    tagged.body.tags = Some(vec!["new".into(), "sale".into()]);
    assert_eq!(tagged.validate(), Ok(()));
    tagged.body.tags = Some(vec!["new".into(), "sale".into(), "new".into()]);
    assert_eq!(
        tagged.validate().unwrap_err().to_string(),
        "`body.tags` must not repeat an item: items 0 and 2 are the same"
    );
}

#[test]
fn a_union_whose_variants_may_omit_the_tag_is_decided_by_structure_without_it() {
    use petstore_tests::references::models::Found;
    use serde_json::json;
    // `Base` does not carry `kind`: without it, only `Base` fits.
    let found: Found = serde_json::from_value(json!({"id": "b1"})).unwrap();
    assert!(matches!(found, Found::Base(_)), "{found:?}");
    // With it, the tag decides, as before.
    let found: Found = serde_json::from_value(json!({"kind": "base", "id": "b1"})).unwrap();
    assert!(matches!(found, Found::Base(_)), "{found:?}");
    let unknown = serde_json::from_value::<Found>(json!({"kind": "other"})).unwrap_err();
    assert!(
        unknown.to_string().contains("unknown `kind` value"),
        "{unknown}"
    );
}

mod nullability_glue {
    use petstore_tests::v31_nullability::{models, operations::*, runtime, server};
    use serde_json::json;
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    type Seen = (
        Option<i64>,
        Option<BTreeMap<String, String>>,
        Option<String>,
    );

    /// Keeps the query parameters it was sent, and the query object apart.
    #[derive(Default)]
    struct Store(
        Mutex<Vec<Seen>>,
        Mutex<Vec<Option<models::PatchAccountRange>>>,
    );

    impl Api for Store {
        async fn patch_account(
            &self,
            request: PatchAccountRequest,
            _: runtime::RequestContext,
        ) -> Result<PatchAccountResponse, ErrorResponse> {
            self.0
                .lock()
                .unwrap()
                .push((request.since, request.filter, request.note));
            self.1.lock().unwrap().push(request.range);
            Err(ErrorResponse::new(
                runtime::StatusCode::IM_A_TEAPOT,
                json!({}),
            ))
        }
    }

    impl server::Rejections for Store {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            ErrorResponse::new(rejection.status(), json!({ "message": rejection.message }))
        }
    }

    /// What the handler got for this query, or the refusal's status.
    async fn patch(query: &str) -> Result<Seen, u16> {
        patched(query).await.map(|(seen, _)| seen)
    }

    /// What the handler got for this query, its query object too.
    async fn patched(query: &str) -> Result<(Seen, Option<models::PatchAccountRange>), u16> {
        let store = std::sync::Arc::new(Store::default());
        let json = [("content-type", "application/json")];
        let request =
            petstore_tests::request("PATCH", &format!("/accounts/1?{query}"), &json, b"{}");
        let (status, _, _) = petstore_tests::answer_on_both!(
            petstore_tests::v31_nullability,
            store.clone(),
            request
        );
        let seen = super::same_on_both(std::mem::take(&mut *store.0.lock().unwrap()));
        let range = super::same_on_both(std::mem::take(&mut *store.1.lock().unwrap()));
        seen.map(|seen| (seen, range.flatten())).ok_or(status)
    }

    #[actix_web::test]
    async fn a_query_object_property_that_admits_null_takes_null_where_it_is_no_text_of_its_type() {
        let (_, range) = patched("min=null&open=null&label=null&code=null&limit=null")
            .await
            .unwrap();
        use runtime::Nullable;
        let range = range.expect("the query object");
        assert_eq!((range.min, range.open), (Nullable::Null, Nullable::Null));
        // A string keeps the text, unless its pattern refuses it.
        assert_eq!(range.label, Nullable::Value("null".to_string()));
        assert_eq!(range.code, Nullable::Null);
        // A named integer too.
        assert_eq!(range.limit, Nullable::Null);
        let (_, range) = patched("min=4&open=true").await.unwrap();
        let range = range.expect("the query object");
        assert_eq!(
            (range.min, range.open),
            (Nullable::Value(4), Nullable::Value(true))
        );
        assert_eq!(patched("min=nil").await.map(|_| ()), Err(400));
    }

    #[actix_web::test]
    async fn a_query_parameter_that_admits_null_takes_null_where_it_is_no_text_of_its_type() {
        assert_eq!(
            patch("since=null&filter=null").await,
            Ok((None, None, None))
        );
        let filter = BTreeMap::from([("a".to_string(), "b".to_string())]);
        assert_eq!(
            patch("since=3&filter=%7B%22a%22%3A%22b%22%7D").await,
            Ok((Some(3), Some(filter), None))
        );
        // A string that admits null keeps the text `null`: it is a string.
        assert_eq!(
            patch("note=null").await,
            Ok((None, None, Some("null".into())))
        );
        assert_eq!(patch("since=nil").await, Err(400));
    }
}

#[test]
fn a_tag_must_name_a_variant_and_a_component_is_named_by_its_own_name_too() {
    use petstore_tests::unions::models::Shape;
    use serde_json::json;
    // The discriminator decides: a tag naming no variant is refused, as
    // OpenAPI says, even where the structure would fit.
    let none = serde_json::from_value::<Shape>(json!({"kind": "disc", "radius": 1.0})).unwrap_err();
    assert!(
        none.to_string()
            .contains("unknown `kind` value `disc`: expected `circle`, `square`"),
        "{none}"
    );
    // The mapping names `Circle` `circle`; its component's name is a name
    // of it too.
    let shape: Shape = serde_json::from_value(json!({"kind": "Circle", "radius": 1.0})).unwrap();
    assert!(matches!(shape, Shape::Circle(_)), "{shape:?}");
}

#[test]
fn a_union_beside_properties_sees_the_properties_it_shares_with_the_object() {
    use petstore_tests::unions::models::{LabeledShape, LabeledShapeKind, LabeledShapeVariant};
    use serde_json::json;
    // The object declares the discriminator and so do the variants: each
    // reads it, as JSON Schema shows every subschema the whole object.
    let wire = json!({"kind": "square", "side": 2.0, "label": "tile"});
    let shape: LabeledShape = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(shape.kind, LabeledShapeKind::Square);
    match &shape.variant {
        LabeledShapeVariant::Square(square) => assert_eq!(square.kind, "square"),
        other => panic!("read as {other:?}"),
    }
    // Written back, the property is there once.
    let written = serde_json::to_string(&shape).unwrap();
    assert_eq!(written.matches("\"kind\"").count(), 1, "{written}");
    assert_eq!(serde_json::to_value(&shape).unwrap(), wire);
    // The discriminator still decides: its value names the variant.
    let refused = serde_json::from_value::<LabeledShape>(json!({"kind": "circle", "side": 2.0}))
        .unwrap_err()
        .to_string();
    assert!(refused.contains("radius"), "{refused}");
}

#[test]
fn a_part_that_allows_no_other_properties_closes_the_whole_object() {
    use petstore_tests::composition::models::ClosedAppend;
    use serde_json::json;
    let read: ClosedAppend =
        serde_json::from_value(json!({"inputs": "hi", "stream": false})).unwrap();
    assert_eq!(read.inputs.as_deref(), Some("hi"));
    // Refused strictly (a server reading a request); skipped otherwise (a
    // client reading a newer server's answer).
    let other = json!({"inputs": "hi", "other": 1});
    let refused = apigen_runtime::__private::strictly(|| {
        serde_json::from_value::<ClosedAppend>(other.clone())
    })
    .unwrap_err()
    .to_string();
    assert!(refused.contains("unknown field `other`"), "{refused}");
    let read: ClosedAppend = serde_json::from_value(other).unwrap();
    assert_eq!(read.inputs.as_deref(), Some("hi"));
}

#[test]
fn a_required_write_only_property_is_required_in_requests_only() {
    use petstore_tests::composition::models::{Account, NewAccount};
    use petstore_tests::composition::runtime::Validate;
    use serde_json::json;
    // A request without it reads, and is refused by the check the glue and
    // the client run on requests.
    let request: NewAccount = serde_json::from_value(json!({"email": "a@b.c"})).unwrap();
    let refused = request.validate().unwrap_err().to_string();
    assert!(
        refused.contains("password") && refused.contains("is required"),
        "{refused}"
    );
    let request: NewAccount =
        serde_json::from_value(json!({"email": "a@b.c", "password": "long enough"})).unwrap();
    assert_eq!(request.validate(), Ok(()));
    // A response never carries it.
    let id = "9b2f6a3c-1d4e-4f5a-8b6c-7d8e9f0a1b2c";
    let account: Account = serde_json::from_value(json!({
        "email": "a@b.c", "id": id, "createdAt": "2026-01-01T00:00:00Z",
        "region": "eu", "owner": null
    }))
    .unwrap();
    assert_eq!(account.password, None);
    assert!(serde_json::to_value(&account)
        .unwrap()
        .get("password")
        .is_none());
}

mod shared_shapes_glue {
    use petstore_tests::shared_shapes::{operations::*, runtime, server};
    use serde_json::json;

    /// Answers which operation took the request, and with what.
    struct Journals;

    impl Api for Journals {
        async fn get_journal(
            &self,
            request: GetJournalRequest,
            _: runtime::RequestContext,
        ) -> Result<GetJournalResponse, ErrorResponse> {
            Ok(GetJournalResponse::Ok(format!("id {}", request.journal_id)))
        }

        async fn get_journal_by_number(
            &self,
            request: GetJournalByNumberRequest,
            _: runtime::RequestContext,
        ) -> Result<GetJournalByNumberResponse, ErrorResponse> {
            Ok(GetJournalByNumberResponse::Ok(format!(
                "number {}",
                request.journal_number
            )))
        }

        async fn get_journal_by_name(
            &self,
            request: GetJournalByNameRequest,
            _: runtime::RequestContext,
        ) -> Result<GetJournalByNameResponse, ErrorResponse> {
            Ok(GetJournalByNameResponse::Ok(format!(
                "name {}",
                request.name
            )))
        }

        async fn get_journal_by_title(
            &self,
            request: GetJournalByTitleRequest,
            _: runtime::RequestContext,
        ) -> Result<GetJournalByTitleResponse, ErrorResponse> {
            Ok(GetJournalByTitleResponse::Ok(format!(
                "title {}",
                request.title
            )))
        }

        async fn delete_journal(
            &self,
            _: DeleteJournalRequest,
            _: runtime::RequestContext,
        ) -> Result<DeleteJournalResponse, ErrorResponse> {
            Ok(DeleteJournalResponse::NoContent)
        }
    }

    impl server::Rejections for Journals {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            ErrorResponse::new(rejection.status(), json!({ "message": rejection.message }))
        }
    }

    /// The status, and the `Allow` header or the answer's text, of one
    /// call on both frameworks.
    async fn call(method: &str, path: &str) -> (u16, String) {
        let request = petstore_tests::request(method, path, &[], b"");
        let (status, allow, body) = super::status_allow_body(petstore_tests::answer_on_both!(
            petstore_tests::shared_shapes,
            std::sync::Arc::new(Journals),
            request
        ));
        (
            status,
            allow.unwrap_or_else(|| body.as_str().unwrap_or_default().to_string()),
        )
    }

    #[actix_web::test]
    async fn a_request_goes_to_the_operation_whose_path_parameters_it_reads_as() {
        let id = "9b2f6a3c-1d4e-4f5a-8b6c-7d8e9f0a1b2c";
        assert_eq!(
            call("GET", &format!("/journals/{id}")).await,
            (200, format!("id {id}"))
        );
        assert_eq!(call("GET", "/journals/30").await, (200, "number 30".into()));
        assert_eq!(
            call("GET", "/journals/q%204").await,
            (200, "name q 4".into())
        );
        assert_eq!(call("DELETE", "/journals/30").await.0, 204);
        assert_eq!(
            call("POST", "/journals/30").await,
            (405, "GET, DELETE".into())
        );
    }
}

/// A form cannot spell an empty list: a required list it leaves out is
/// empty; JSON must still send it.
#[actix_web::test]
async fn a_required_list_a_form_leaves_out_is_empty_and_json_must_send_it() {
    use actix_web::{test, FromRequest};
    use petstore_tests::paging::{models::ListStripedOkBody, runtime};
    async fn read(content_type: &str, body: &'static str) -> Result<ListStripedOkBody, u16> {
        let request = test::TestRequest::post()
            .insert_header(("content-type", content_type))
            .set_payload(body);
        let (request, mut payload) = request.to_http_parts();
        let payload = actix_web::web::Payload::from_request(&request, &mut payload)
            .await
            .unwrap();
        let (request, payload) = (
            runtime::actix::context(&request),
            runtime::actix::payload(payload),
        );
        let read = if content_type.starts_with("application/json") {
            runtime::json_body(&request, payload, 1024).await
        } else {
            runtime::form_body(&request, payload, 1024).await
        };
        read.map(Option::unwrap).map_err(|r| r.status().as_u16())
    }
    let form = read("application/x-www-form-urlencoded", "has_more=false").await;
    assert_eq!(form.map(|b| b.data.len()), Ok(0));
    let json = read("application/json", r#"{"has_more": false}"#).await;
    assert_eq!(json.map(|b| b.data.len()), Err(422));
}

#[test]
fn a_variant_takes_null_for_a_required_property_that_admits_it() {
    use petstore_tests::v31_nullability::models::Contact;
    let contact: Contact =
        serde_json::from_value(serde_json::json!({"address": "a@b.c", "label": null})).unwrap();
    assert!(matches!(contact, Contact::Email(_)), "{contact:?}");
    // Still required: absent is refused.
    assert!(serde_json::from_value::<Contact>(serde_json::json!({"address": "a@b.c"})).is_err());
}

#[test]
fn an_integer_enum_is_checked_as_a_bound_is() {
    use petstore_tests::checked::{
        models::Shelf, operations::StockShelfRequest, runtime::Validate,
    };
    let request = |tier| StockShelfRequest {
        level: None,
        note: None,
        tier: Some(tier),
        body: Shelf {
            labels: None,
            note: None,
            tags: None,
        },
    };
    assert_eq!(request(2).validate(), Ok(()));
    let refused = request(4).validate().unwrap_err().to_string();
    assert!(
        refused.contains("must be one of 1, 2, 3, not 4"),
        "{refused}"
    );
}

/// OpenAPI 3.2's `query` operation and `additionalOperations`, through
/// the generated client and server: each sent and routed as its own method.
mod tour32_glue {
    use actix_web::{web, App, HttpServer};
    use petstore_tests::tour32::{client, metadata, models, operations::*, runtime, server};

    struct Service;

    fn pet(id: i64, name: &str) -> models::Pet {
        models::Pet {
            id,
            name: name.into(),
        }
    }

    impl Pets for Service {
        async fn list_pets(
            &self,
            _: ListPetsRequest,
            _: runtime::RequestContext,
        ) -> Result<ListPetsResponse, ErrorResponse> {
            Ok(ListPetsResponse::Ok(vec![pet(1, "Rex"), pet(2, "Tom")]))
        }

        async fn search_pets(
            &self,
            request: SearchPetsRequest,
            _: runtime::RequestContext,
        ) -> Result<SearchPetsResponse, ErrorResponse> {
            let wanted = request.body.name.unwrap_or_default();
            let found = [pet(1, "Rex"), pet(2, "Tom")]
                .into_iter()
                .filter(|p| p.name.contains(&wanted))
                .collect();
            Ok(SearchPetsResponse::Ok(found))
        }

        async fn link_pet(
            &self,
            request: LinkPetRequest,
            _: runtime::RequestContext,
        ) -> Result<LinkPetResponse, ErrorResponse> {
            Ok(match (request.pet_id, request.link.as_str()) {
                (1, "</pets/2>; rel=\"sibling\"") => LinkPetResponse::NoContent,
                _ => LinkPetResponse::NotFound,
            })
        }

        async fn copy_pets_pet_id(
            &self,
            request: CopyPetsPetIdRequest,
            _: runtime::RequestContext,
        ) -> Result<CopyPetsPetIdResponse, ErrorResponse> {
            Ok(CopyPetsPetIdResponse::Created(pet(
                request.pet_id + 100,
                "copy",
            )))
        }

        async fn pet_events(
            &self,
            _: PetEventsRequest,
            _: runtime::RequestContext,
        ) -> Result<PetEventsResponse, ErrorResponse> {
            let events = [pet(1, "Rex"), pet(2, "Tom")]
                .into_iter()
                .map(|p| runtime::Event::new(p).with_event("changed"));
            Ok(PetEventsResponse::Ok(runtime::EventStream::new(
                futures_util::stream::iter(events),
            )))
        }

        async fn lookup_pets(
            &self,
            request: LookupPetsRequest,
            _: runtime::RequestContext,
        ) -> Result<LookupPetsResponse, ErrorResponse> {
            let names = request.selector.names;
            let found = [pet(1, "Rex"), pet(2, "Tom"), pet(3, "Zoé & co")]
                .into_iter()
                .filter(|p| names.contains(&p.name))
                .collect();
            Ok(LookupPetsResponse::Ok(found))
        }

        async fn find_pets(
            &self,
            request: FindPetsRequest,
            _: runtime::RequestContext,
        ) -> Result<FindPetsResponse, ErrorResponse> {
            let (name, limit) = match request.filter {
                Some(filter) => (filter.name.unwrap_or_default(), filter.limit),
                None => (String::new(), None),
            };
            let found = [pet(1, "Rex"), pet(2, "Tom"), pet(3, "Rey")]
                .into_iter()
                .filter(|p| p.name.contains(&name))
                .take(limit.map_or(10, |l| l as usize))
                .collect();
            Ok(FindPetsResponse::Ok(found))
        }

        async fn export_pets(
            &self,
            _: ExportPetsRequest,
            _: runtime::RequestContext,
        ) -> Result<ExportPetsResponse, ErrorResponse> {
            let pets = [pet(1, "Rex"), pet(2, "Tom"), pet(3, "Zoé")];
            Ok(ExportPetsResponse::OkStream(runtime::ItemStream::new(
                futures_util::stream::iter(pets),
            )))
        }

        async fn bundle_pets(
            &self,
            _: BundlePetsRequest,
            _: runtime::RequestContext,
        ) -> Result<BundlePetsResponse, ErrorResponse> {
            let pets = [pet(1, "Rex"), pet(2, "Tom")];
            Ok(BundlePetsResponse::Ok(runtime::ItemStream::new(
                futures_util::stream::iter(pets),
            )))
        }

        async fn pet_changes(
            &self,
            request: PetChangesRequest,
            _: runtime::RequestContext,
        ) -> Result<PetChangesResponse, ErrorResponse> {
            let since = request.body.and_then(|b| b.since).unwrap_or(0);
            let changes = (since + 1..=since + 2).map(|id| models::PetChangesOkItem {
                id,
                name: format!("change {id}"),
            });
            Ok(PetChangesResponse::Ok(runtime::ItemStream::new(
                futures_util::stream::iter(changes),
            )))
        }
    }

    impl Hooks for Service {
        async fn register_hook(
            &self,
            _: RegisterHookRequest,
            _: runtime::RequestContext,
        ) -> Result<RegisterHookResponse, ErrorResponse> {
            Ok(RegisterHookResponse::NoContent)
        }

        async fn who_am_i(
            &self,
            _: WhoAmIRequest,
            context: runtime::RequestContext,
        ) -> Result<WhoAmIResponse, ErrorResponse> {
            let token = context
                .headers()
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            Ok(match token {
                Some(token) => WhoAmIResponse::Ok(token.to_string()),
                None => WhoAmIResponse::Unauthorized,
            })
        }
    }

    impl server::Rejections for Service {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            ErrorResponse::new(
                rejection.status(),
                serde_json::json!({ "code": rejection.kind.code() }),
            )
        }
    }

    fn app() -> App<
        impl actix_web::dev::ServiceFactory<
            actix_web::dev::ServiceRequest,
            Config = (),
            Response = actix_web::dev::ServiceResponse,
            Error = actix_web::Error,
            InitError = (),
        >,
    > {
        App::new().configure(|cfg| server::configure(cfg, web::Data::new(Service)))
    }

    /// The glue on every framework: `test(base_url)` runs once on each,
    /// and a failure names the framework.
    use std::sync::Arc;

    async fn on_every_framework<F: std::future::Future<Output = ()>>(test: impl Fn(String) -> F) {
        for framework in petstore_tests::Framework::ALL {
            eprintln!("on {framework:?}");
            let base = petstore_tests::serve!(framework, petstore_tests::tour32, Arc::new(Service));
            test(base).await;
        }
    }

    #[actix_web::test]
    async fn the_client_sends_query_and_link_as_themselves() {
        on_every_framework(the_client_sends_query_and_link_on).await;
    }

    async fn the_client_sends_query_and_link_on(base: String) {
        let client = client::Client::new(&base).expect("a client");

        assert_eq!(metadata::SEARCH_PETS.method, "QUERY");
        let found = client
            .search_pets(SearchPetsRequest {
                body: models::Filter {
                    name: Some("Re".into()),
                    limit: None,
                },
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(found, SearchPetsResponse::Ok(vec![pet(1, "Rex")]));

        assert_eq!(metadata::LINK_PET.method, "LINK");
        let link = |pet_id, link: &str| LinkPetRequest {
            pet_id,
            link: link.into(),
        };
        let linked = client.link_pet(link(1, "</pets/2>; rel=\"sibling\"")).await;
        assert_eq!(linked.unwrap().into_inner(), LinkPetResponse::NoContent);
        let missing = client.link_pet(link(1, "</pets/9>")).await;
        assert_eq!(missing.unwrap().into_inner(), LinkPetResponse::NotFound);

        let copy = client
            .copy_pets_pet_id(CopyPetsPetIdRequest { pet_id: 7 })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(copy, CopyPetsPetIdResponse::Created(pet(107, "copy")));

        // An event stream described by 3.2's `itemSchema`: each event's
        // data typed by its `contentSchema`.
        use futures_util::StreamExt as _;
        let events: Vec<_> = client
            .pet_events_events(PetEventsRequest::default())
            .resume(false)
            .map(|e| e.expect("an event"))
            .collect()
            .await;
        let read: Vec<(Option<&str>, &models::Pet)> = events
            .iter()
            .map(|e| (e.event.as_deref(), &e.data))
            .collect();
        assert_eq!(
            read,
            [
                (Some("changed"), &pet(1, "Rex")),
                (Some("changed"), &pet(2, "Tom"))
            ]
        );

        // `in: querystring`: the whole query string, one form.
        let filter = models::FindPetsFilter {
            name: Some("Re".into()),
            limit: Some(1),
        };
        let found = client
            .find_pets(FindPetsRequest {
                filter: Some(filter),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(found, FindPetsResponse::Ok(vec![pet(1, "Rex")]));
        // The whole query string as JSON text, whatever it holds (`&`, `+`,
        // spaces and accents travel percent-encoded).
        let selector = models::LookupPetsSelector {
            names: vec!["Zoé & co".into(), "Tom".into()],
        };
        let found = client
            .lookup_pets(LookupPetsRequest { selector })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            found,
            LookupPetsResponse::Ok(vec![pet(2, "Tom"), pet(3, "Zoé & co")])
        );

        // JSON Lines (`itemSchema` by `$ref`), beside JSON: each item typed.
        let pets: Vec<models::Pet> = client
            .export_pets_stream(ExportPetsRequest::default())
            .map(|p| p.expect("a pet"))
            .collect()
            .await;
        assert_eq!(pets, [pet(1, "Rex"), pet(2, "Tom"), pet(3, "Zoé")]);
        // `multipart/mixed` with an `itemSchema`: a JSON part each.
        let pets: Vec<models::Pet> = client
            .bundle_pets_stream(BundlePetsRequest::default())
            .map(|p| p.expect("a pet"))
            .collect()
            .await;
        assert_eq!(pets, [pet(1, "Rex"), pet(2, "Tom")]);
        // A JSON text sequence, answering a QUERY with a body.
        let request = PetChangesRequest {
            body: Some(models::PetChangesBody { since: Some(40) }),
        };
        let changes: Vec<i64> = client
            .pet_changes_stream(request)
            .map(|c| c.expect("a change").id)
            .collect()
            .await;
        assert_eq!(changes, [41, 42]);
    }

    #[actix_web::test]
    async fn items_go_out_framed_as_their_media_type_says() {
        on_every_framework(items_go_out_framed_on).await;
    }

    async fn items_go_out_framed_on(base: String) {
        let http = reqwest::Client::new();
        let response = http
            .get(format!("{base}/pets/export"))
            .send()
            .await
            .unwrap();
        let media = response.headers().get("content-type").cloned();
        assert_eq!(media.unwrap(), "application/jsonl");
        let text = response.text().await.unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON text a line"))
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[2]["name"], "Zoé");
        let response = http
            .request("QUERY".parse().unwrap(), format!("{base}/pets/changes"))
            .header("content-type", "application/json")
            .body(r#"{"since": 1}"#)
            .send()
            .await
            .unwrap();
        let media = response.headers().get("content-type").cloned();
        assert_eq!(media.unwrap(), "application/json-seq");
        assert_eq!(
            response.text().await.unwrap(),
            "\u{1e}{\"id\":2,\"name\":\"change 2\"}\n\u{1e}{\"id\":3,\"name\":\"change 3\"}\n"
        );
        // Parts, between delimiters of the boundary the header names.
        let response = http
            .get(format!("{base}/pets/bundle"))
            .send()
            .await
            .unwrap();
        let media = response.headers().get("content-type").cloned().unwrap();
        let media = media.to_str().unwrap();
        let boundary = media
            .strip_prefix("multipart/mixed; boundary=")
            .expect("a boundary")
            .to_string();
        let part =
            |p: &str| format!("--{boundary}\r\ncontent-type: application/json\r\n\r\n{p}\r\n");
        assert_eq!(
            response.text().await.unwrap(),
            part(r#"{"id":1,"name":"Rex"}"#)
                + &part(r#"{"id":2,"name":"Tom"}"#)
                + &format!("--{boundary}--\r\n")
        );
    }

    /// An authorization server with a device flow at `/oauth/device` and
    /// `/oauth/token` that approves after the first poll, and its metadata
    /// (RFC 8414) at `/.well-known/oauth-authorization-server`, naming the
    /// flow's endpoints when `offers_device`; its address, and how many
    /// polls it has had.
    fn authorization_server(
        offers_device: bool,
    ) -> (
        std::net::SocketAddr,
        std::sync::Arc<std::sync::atomic::AtomicUsize>,
    ) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        type Form = web::Form<std::collections::HashMap<String, String>>;
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = polls.clone();
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("a port");
        let address = listener.local_addr().expect("an address");
        let http = HttpServer::new(move || {
            let polls = counted.clone();
            app()
                .route(
                    "/.well-known/oauth-authorization-server",
                    web::get().to(move || async move {
                        let mut metadata = serde_json::json!({
                            "issuer": format!("http://{address}"),
                            "token_endpoint": format!("http://{address}/oauth/token"),
                        });
                        if offers_device {
                            metadata["device_authorization_endpoint"] =
                                format!("http://{address}/oauth/device").into();
                        }
                        actix_web::HttpResponse::Ok().json(metadata)
                    }),
                )
                .route(
                    "/oauth/device",
                    web::post().to(|form: Form| async move {
                        assert_eq!(form.get("client_id").map(String::as_str), Some("cli"));
                        assert_eq!(form.get("scope").map(String::as_str), Some("read:pets"));
                        actix_web::HttpResponse::Ok().json(serde_json::json!({
                            "device_code": "dc-1", "user_code": "WDJB-MJHT",
                            "verification_uri": "https://example.com/device",
                            "expires_in": 600, "interval": 0
                        }))
                    }),
                )
                .route(
                    "/oauth/token",
                    web::post().to(move |form: Form| {
                        let polls = polls.clone();
                        async move {
                            assert_eq!(form.get("device_code").map(String::as_str), Some("dc-1"));
                            // The user approves after the first poll.
                            if polls.fetch_add(1, Ordering::SeqCst) == 0 {
                                return actix_web::HttpResponse::BadRequest()
                                    .json(serde_json::json!({"error": "authorization_pending"}));
                            }
                            actix_web::HttpResponse::Ok().json(serde_json::json!({
                                "access_token": "tok-1", "token_type": "Bearer"
                            }))
                        }
                    }),
                )
        })
        .workers(1)
        .listen(listener)
        .expect("listening");
        actix_web::rt::spawn(http.run());
        (address, polls)
    }

    /// OpenAPI 3.2's device authorization flow: the client asks for a
    /// code, shows it, polls while the user has not approved, and then
    /// sends the token it got to an operation that requires the scheme.
    #[actix_web::test]
    async fn the_client_signs_in_through_the_device_flow() {
        let (address, polls) = authorization_server(false);
        let mut client = client::Client::new(&format!("http://{address}")).expect("a client");
        let mut shown = None;
        client
            .sign_in_device_login("cli", &["read:pets"], |code| {
                shown = Some(code.user_code.clone())
            })
            .await
            .expect("signed in");
        assert_eq!(shown.as_deref(), Some("WDJB-MJHT"));
        assert_eq!(
            polls.load(std::sync::atomic::Ordering::SeqCst),
            2,
            "pending once, then the token"
        );
        let me = client.who_am_i(WhoAmIRequest::default()).await.unwrap();
        assert_eq!(me.into_inner(), WhoAmIResponse::Ok("tok-1".into()));
    }

    /// A scheme with 3.2's `oauth2MetadataUrl` and no device flow written:
    /// the client finds the flow's two endpoints in the authorization
    /// server's metadata, then signs in through them.
    #[actix_web::test]
    async fn the_client_finds_the_device_flow_in_the_servers_metadata() {
        let (address, polls) = authorization_server(true);
        let mut client = client::Client::new(&format!("http://{address}")).expect("a client");
        client
            .sign_in_partner_login("cli", &["read:pets"], |_| {})
            .await
            .expect("signed in");
        assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 2);
        let me = client.who_am_i(WhoAmIRequest::default()).await.unwrap();
        assert_eq!(me.into_inner(), WhoAmIResponse::Ok("tok-1".into()));
        // Metadata that offers no device flow is a refusal that says so,
        // before any code is asked for.
        let (address, polls) = authorization_server(false);
        let mut client = client::Client::new(&format!("http://{address}")).expect("a client");
        let refused = client
            .sign_in_partner_login("cli", &[], |_| panic!("no code to show"))
            .await
            .expect_err("no device flow offered");
        match refused {
            runtime::ClientError::Authorization { error, description } => {
                assert_eq!(error, "unsupported_grant_type");
                assert!(description
                    .unwrap()
                    .contains("device_authorization_endpoint"));
            }
            other => panic!("{other}"),
        }
        assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 0);
    }

    /// Status, `Allow` header and body of one call to the server at `base`.
    async fn call(
        base: &str,
        method: &str,
        path: &str,
        body: &str,
    ) -> (u16, Option<String>, serde_json::Value) {
        let response = reqwest::Client::new()
            .request(method.parse().unwrap(), format!("{base}{path}"))
            .header("content-type", "application/json")
            .header("link", "</pets/2>; rel=\"sibling\"")
            .body(body.to_string())
            .send()
            .await
            .expect("an answer");
        let status = response.status().as_u16();
        let allow = response
            .headers()
            .get("allow")
            .map(|v| v.to_str().unwrap().to_string());
        let body = response.bytes().await.unwrap();
        (
            status,
            allow,
            serde_json::from_slice(&body).unwrap_or_default(),
        )
    }

    #[actix_web::test]
    async fn the_glue_routes_and_validates_them_like_any_method() {
        on_every_framework(|base| async move { routes_and_validates_on(&base).await }).await;
    }

    async fn routes_and_validates_on(base: &str) {
        let (s, _, body) = call(base, "QUERY", "/pets", r#"{"name": "T"}"#).await;
        assert_eq!((s, body[0]["name"].as_str()), (200, Some("Tom")));
        // The body is read and checked against the spec's bounds; the 422
        // goes out as the operation declares it, without a body.
        let (s, _, body) = call(base, "QUERY", "/pets", r#"{"limit": 0}"#).await;
        assert_eq!((s, body), (422, serde_json::Value::Null));
        // A query string read whole as a form, each property a pair, and
        // checked against the spec's bounds.
        let (s, _, body) = call(base, "GET", "/pets/find?name=Re&limit=2", "").await;
        assert_eq!((s, body.as_array().map(Vec::len)), (200, Some(2)));
        let (s, _, body) = call(base, "GET", "/pets/find?limit=0", "").await;
        assert_eq!((s, body["code"].as_str()), (422, Some("validation_failed")));
        // A query string read whole as JSON text, percent-decoded, and
        // checked against the spec's bounds; one that is no JSON is a 400.
        let (s, _, body) = call(
            base,
            "GET",
            "/pets/lookup?%7B%22names%22%3A%5B%22Rex%22%5D%7D",
            "",
        )
        .await;
        assert_eq!((s, body[0]["name"].as_str()), (200, Some("Rex")));
        let (s, _, body) = call(base, "GET", "/pets/lookup?%7B%22names%22%3A%5B%5D%7D", "").await;
        assert_eq!((s, body), (422, serde_json::Value::Null));
        assert_eq!(call(base, "GET", "/pets/lookup?names=Rex", "").await.0, 400);
        assert_eq!(call(base, "GET", "/pets/lookup", "").await.0, 400);
        // A path parameter the path item declares, for its other methods.
        assert_eq!(call(base, "LINK", "/pets/1", "").await.0, 204);
        let (s, _, body) = call(base, "LINK", "/pets/0", "").await;
        assert_eq!((s, body["code"].as_str()), (422, Some("validation_failed")));
        // Other methods: 405, naming what each path serves.
        let (s, allow, _) = call(base, "DELETE", "/pets", "").await;
        assert_eq!((s, allow.as_deref()), (405, Some("GET, QUERY")));
        let (s, allow, _) = call(base, "GET", "/pets/1", "").await;
        assert_eq!((s, allow.as_deref()), (405, Some("LINK, COPY")));
    }
}

/// OpenAPI 3.2's `defaultMapping`: the variant it names reads a value whose
/// tag names no variant, or is absent; a value the tag names is read as
/// that variant, and refused when it does not fit it.
#[test]
fn a_default_mapping_reads_what_no_variant_is_named_for() {
    use petstore_tests::tour32::models::{Animal, Cat, OtherAnimal};
    let read = |json: &str| serde_json::from_str::<Animal>(json);
    assert_eq!(
        read(r#"{"kind": "cat", "lives": 9}"#).unwrap(),
        Animal::Cat(Cat {
            kind: "cat".into(),
            lives: 9
        })
    );
    let other = |kind: Option<&str>| {
        Animal::OtherAnimal(OtherAnimal {
            kind: kind.map(str::to_string),
            name: Some("Rex".into()),
        })
    };
    assert_eq!(
        read(r#"{"kind": "dog", "name": "Rex"}"#).unwrap(),
        other(Some("dog"))
    );
    assert_eq!(read(r#"{"name": "Rex"}"#).unwrap(), other(None));
    assert!(read(r#"{"kind": "cat", "name": "Rex"}"#).is_err());
    // Written back as it was read.
    let json = serde_json::to_value(other(Some("dog"))).unwrap();
    assert_eq!(json, serde_json::json!({"kind": "dog", "name": "Rex"}));
}
