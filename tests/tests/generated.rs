//! What the generator's snapshots promise at run time: the security each
//! operation declares, and names that do not collide.

use petstore_tests::{hygiene, security};

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
    assert!(result.validate().is_ok());
    let chain = models::Option2 {
        next: Some(Box::new(models::Option2 { next: None })),
    };
    assert!(chain.validate().is_ok());
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
    use actix_web::{test, web, App};
    use petstore_tests::errors::{models, operations::*, runtime, server};

    /// Answers by id: 1 a thing, 2 not found, anything else a status no
    /// operation declares (418).
    struct Things;

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

    impl Api for Things {
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

    impl server::Rejections for Things {
        fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
            error(rejection.status().as_u16(), rejection.kind.code())
        }
    }

    async fn call(method: &str, path: &str) -> (u16, serde_json::Value) {
        let app = test::init_service(
            App::new().configure(|cfg| server::configure(cfg, web::Data::new(Things))),
        )
        .await;
        let request = test::TestRequest::default()
            .method(method.parse().unwrap())
            .uri(path)
            .to_request();
        let response = test::call_service(&app, request).await;
        let status = response.status().as_u16();
        let body = test::read_body(response).await;
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
