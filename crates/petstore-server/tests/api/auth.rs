use crate::helpers::{read, spawn_app};
use petstore_server::keys::{self, Plan};

#[actix_web::test]
async fn requests_without_a_key_get_401_with_the_error_body() {
    let app = spawn_app().await;
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

#[actix_web::test]
async fn unknown_malformed_and_revoked_keys_get_401() {
    let app = spawn_app().await;
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

#[actix_web::test]
async fn health_and_spec_are_public() {
    let app = spawn_app().await;
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
                !bytes.windows(needle.len()).any(|w| w == needle),
                "{} holds the key",
                path.display()
            );
        }
    }
    assert!(scanned > 0, "the database is on disk");
}
