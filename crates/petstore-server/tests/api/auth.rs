use crate::helpers::{read, spawn_app, spawn_app_on};
use petstore_server::keys::{self, Plan};

on_both! {
    async fn requests_without_a_key_get_401_with_the_error_body(framework) {
        let app = spawn_app_on(framework).await;
        let r = read(
            app.client
                .get(format!("{}/v1/pets", app.base))
                .send()
                .await
                .unwrap(),
        )
        .await;
        r.assert_error(401, "unauthorized");
        assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    }
}

on_both! {
    async fn unknown_malformed_and_revoked_keys_get_401(framework) {
        let app = spawn_app_on(framework).await;
        let url = format!("{}/v1/pets", app.base);
        for auth in ["Bearer psk_nope", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer"] {
            let r = read(
                app.client
                    .get(&url)
                    .header("Authorization", auth)
                    .send()
                    .await
                    .unwrap(),
            )
            .await;
            r.assert_error(401, "unauthorized");
        }
        let (id, secret) = keys::create(&app.db, Plan::Free, None, None, chrono::Utc::now())
            .await
            .unwrap();
        let ok = read(
            app.client
                .get(&url)
                .bearer_auth(secret.expose())
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(ok.status, 200);
        assert!(keys::revoke(&app.db, id, chrono::Utc::now()).await.unwrap());
        let r = read(
            app.client
                .get(&url)
                .bearer_auth(secret.expose())
                .send()
                .await
                .unwrap(),
        )
        .await;
        r.assert_error(401, "unauthorized");
    }
}

on_both! {
    async fn health_and_spec_are_public(framework) {
        let app = spawn_app_on(framework).await;
        let health = app
            .client
            .get(format!("{}/healthz", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(health.status(), 200);
        let spec = app
            .client
            .get(format!("{}/openapi.yaml", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(spec.status(), 200);
        assert_eq!(spec.text().await.unwrap(), petstore_api::SPEC_YAML);
    }
}

#[actix_web::test]
async fn keys_are_stored_only_as_hashes() {
    let app = spawn_app().await;
    let (_, secret) = keys::create(&app.db, Plan::Pro, None, None, chrono::Utc::now())
        .await
        .unwrap();
    let listed = keys::list(&app.db).await.unwrap();
    assert!(listed
        .iter()
        .any(|k| k.plan == Plan::Pro && k.limits.per_minute == 300));
    // Nothing on disk (database, WAL) holds the key itself.
    let needle = secret.expose().as_bytes();
    let mut files = app.data_dirs().await;
    let mut scanned = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if let Ok(bytes) = std::fs::read(&path) {
            scanned += bytes.len();
            assert!(
                memchr::memmem::find(&bytes, needle).is_none(),
                "{} holds the key",
                path.display()
            );
        }
    }
    assert!(scanned > 0, "the database is on disk");
}

/// Security comes from each operation's entry in the spec, which the glue
/// attaches to its route: the server's own guard around two routes whose
/// operations differ only in their `security`. The public one needs no key
/// and is still limited per client address, at the free plan's rates.
#[actix_web::test]
async fn each_operation_is_held_to_its_own_security() {
    use actix_web::middleware::from_fn;
    use actix_web::{test, web, App, HttpResponse};
    use petstore_api::metadata::DEFAULT_SECURITY;
    use petstore_api::runtime::{self, Operation, Stability};
    use petstore_server::app::{Listen, Settings, Shared};
    use petstore_server::on_actix::guard;

    const fn operation(
        id: &'static str,
        security: &'static [runtime::SecurityRequirement],
    ) -> Operation {
        Operation {
            id,
            method: "GET",
            path: "/x",
            tag: "Pets",
            stability: Stability::Stable,
            deprecated: false,
            deprecated_since: None,
            sunset: None,
            successor: None,
            security,
        }
    }
    static OPEN: Operation = operation("open", &[]);
    static CLOSED: Operation = operation("closed", DEFAULT_SECURITY);

    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("t.db").display());
    let db = petstore_server::store::Db::connect(&url).await.unwrap();
    let shared = Shared::new(&Settings::new(
        Listen::any_local_port(),
        db,
        petstore_server::service::system_clock(),
    ))
    .unwrap();
    let ok = || web::get().to(|| async { HttpResponse::Ok().finish() });
    let app = test::init_service(
        App::new()
            .app_data(web::Data::new(shared.clone()))
            .service(web::resource("/open").route(runtime::serve(ok(), &OPEN, from_fn(guard))))
            .service(web::resource("/closed").route(runtime::serve(ok(), &CLOSED, from_fn(guard)))),
    )
    .await;
    let get = |path: &str| test::TestRequest::get().uri(path).to_request();

    let closed = test::call_service(&app, get("/closed")).await;
    assert_eq!(closed.status(), 401);
    let mut remaining = Vec::new();
    for _ in 0..59 {
        let open = test::call_service(&app, get("/open")).await;
        assert_eq!(open.status(), 200);
        remaining.push(
            open.headers()
                .get("x-ratelimit-remaining")
                .unwrap()
                .to_str()
                .unwrap()
                .to_string(),
        );
    }
    // The 401 counted too: one address, one budget of 60 a minute.
    assert_eq!(remaining.first().map(String::as_str), Some("58"));
    assert_eq!(remaining.last().map(String::as_str), Some("0"));
    let limited = test::call_service(&app, get("/open")).await;
    assert_eq!(limited.status(), 429);
}
