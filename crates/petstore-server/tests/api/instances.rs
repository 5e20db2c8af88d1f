//! Several server processes sharing one PostgreSQL database behave as one
//! service: stock is never oversold, rate limits and bans are counted once.

use crate::helpers::{call, create_key, Reply, Server};
use crate::postgres;
use chrono::{Timelike, Utc};
use petstore_server::keys;
use petstore_server::store::Db;
use reqwest::Method;
use serde_json::{json, Value};

const INSTANCES: usize = 3;

/// Three instances on a fresh database, and an operator's key.
async fn service(args: &[&str], key_limits: (u32, u32)) -> (Vec<Server>, String) {
    let url = postgres::cluster().fresh_database().await;
    // The key first: the schema is then in place before the instances start.
    let key = create_key(&url, "enterprise", Some(key_limits));
    let servers = (0..INSTANCES)
        .map(|_| Server::start_with(&url, args).0)
        .collect();
    (servers, key)
}

async fn send(
    client: &reqwest::Client,
    server: &Server,
    key: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> Reply {
    call(client, &server.base, key, method, path, body).await
}

/// The limits below are per day; a test started seconds before midnight UTC
/// would see two days. Wait that out.
async fn away_from_midnight() {
    let now = Utc::now();
    if now.hour() == 23 && now.minute() == 59 {
        tokio::time::sleep(std::time::Duration::from_secs(61)).await;
    }
}

#[actix_web::test]
async fn concurrent_orders_across_instances_never_oversell() {
    let (servers, key) = service(&[], (100_000_000, 100_000_000)).await;
    let client = reqwest::Client::new();
    let first = &servers[0];
    let category = send(
        &client,
        first,
        &key,
        Method::POST,
        "/v1/categories",
        Some(json!({ "name": "Dogs" })),
    )
    .await;
    let pet = send(
        &client,
        first,
        &key,
        Method::POST,
        "/v1/pets",
        Some(json!({ "name": "Rex", "categoryId": category.body["id"] })),
    )
    .await;
    let pet = pet.body["id"].as_i64().unwrap();
    const STOCK: usize = 50;
    let stocked = send(
        &client,
        first,
        &key,
        Method::PATCH,
        &format!("/v1/inventory/{pet}"),
        Some(json!({ "quantity": STOCK })),
    )
    .await;
    assert_eq!(stocked.status, 200, "{stocked:?}");

    // 150 orders of one, sent at once, round-robin over the instances.
    let orders = (0..3 * STOCK).map(|i| {
        send(
            &client,
            &servers[i % INSTANCES],
            &key,
            Method::POST,
            "/v1/store/orders",
            Some(json!({ "petId": pet, "quantity": 1 })),
        )
    });
    let replies = futures_util::future::join_all(orders).await;
    let created: Vec<&Reply> = replies.iter().filter(|r| r.status == 201).collect();
    assert_eq!(created.len(), STOCK, "exactly the stock is sold");
    for refused in replies.iter().filter(|r| r.status != 201) {
        assert_eq!(refused.status, 409, "{refused:?}");
        let code = refused.body["code"].as_str().unwrap();
        assert!(
            matches!(code, "out_of_stock" | "pet_not_available"),
            "{refused:?}"
        );
    }
    // Every instance sees the same end state. (Which instance sold how many
    // is up to timing: one may see the stock gone before any of its orders.)
    for server in &servers {
        let item = send(
            &client,
            server,
            &key,
            Method::GET,
            &format!("/v1/inventory/{pet}"),
            None,
        )
        .await;
        assert_eq!(item.body["quantity"], 0, "{item:?}");
        assert_eq!(item.body["status"], "sold", "{item:?}");
        let listed = send(
            &client,
            server,
            &key,
            Method::GET,
            &format!("/v1/store/orders?petId={pet}&limit=100"),
            None,
        )
        .await;
        assert_eq!(listed.body.as_array().unwrap().len(), STOCK);
    }
}

#[actix_web::test]
async fn rate_limits_are_counted_once_across_instances() {
    away_from_midnight().await;
    const PER_DAY: usize = 30;
    // A ban would not change the count; keep it out of the way.
    let (servers, key) = service(&["--ban-after", "1000"], (1_000, PER_DAY as u32)).await;
    let client = reqwest::Client::new();
    let requests = (0..3 * PER_DAY).map(|i| {
        send(
            &client,
            &servers[i % INSTANCES],
            &key,
            Method::GET,
            "/v1/pets",
            None,
        )
    });
    let replies = futures_util::future::join_all(requests).await;
    let allowed = replies.iter().filter(|r| r.status == 200).count();
    assert_eq!(allowed, PER_DAY, "the day's limit holds across instances");
    for limited in replies.iter().filter(|r| r.status != 200) {
        limited.assert_error(429, "rate_limited");
        assert_eq!(limited.header("x-ratelimit-remaining"), Some("0"));
        assert!(limited.header("retry-after").is_some());
    }
    // Each instance reports the shared count: nothing left anywhere.
    for server in &servers {
        let r = send(&client, server, &key, Method::GET, "/v1/pets", None).await;
        r.assert_error(429, "rate_limited");
        assert_eq!(r.header("x-ratelimit-limit"), Some("30"));
    }
}

#[actix_web::test]
async fn a_ban_earned_on_one_instance_holds_on_all() {
    away_from_midnight().await;
    let (servers, key) = service(&["--ban-after", "2", "--ban-minutes", "15"], (1_000, 1)).await;
    let client = reqwest::Client::new();
    let get = |i: usize| send(&client, &servers[i], &key, Method::GET, "/v1/pets", None);
    assert_eq!(get(0).await.status, 200, "the one request of the day");
    // Limited twice, on two other instances: tolerated.
    get(1).await.assert_error(429, "rate_limited");
    get(2).await.assert_error(429, "rate_limited");
    // The third request while limited, on the first instance, earns the ban.
    get(0).await.assert_error(429, "api_key_banned");
    // Every instance knows it.
    for i in 0..INSTANCES {
        let r = get(i).await;
        r.assert_error(429, "api_key_banned");
        let retry: i64 = r.header("retry-after").unwrap().parse().unwrap();
        assert!((890..=900).contains(&retry), "{r:?}");
    }
}

#[actix_web::test]
async fn shared_limiter_forgets_subjects_whose_day_has_passed() {
    use petstore_server::keys::Limits;
    use petstore_server::limiter::{BanPolicy, SharedLimiter, Subject, Verdict};
    use petstore_server::store::Db;
    let db = Db::connect(&postgres::cluster().fresh_database().await)
        .await
        .unwrap();
    let limiter = SharedLimiter::new(
        db.clone(),
        BanPolicy {
            after: 0,
            seconds: 7200,
        },
    );
    let rows = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM rate_limits")
            .fetch_one(db.postgres().expect("a PostgreSQL database"))
            .await
            .unwrap()
    };
    // 2026-11-22T12:00:00Z.
    const NOON: i64 = 1_795_348_800;
    let one = Limits {
        per_minute: 1,
        per_day: 100,
    };
    for id in 0..20 {
        let d = limiter.check(Subject::Key(id), one, NOON).await.unwrap();
        assert_eq!(d.verdict, Verdict::Allowed);
    }
    // Key 0 is limited, then banned for two hours.
    limiter.check(Subject::Key(0), one, NOON).await.unwrap();
    assert!(matches!(
        limiter
            .check(Subject::Key(0), one, NOON)
            .await
            .unwrap()
            .verdict,
        Verdict::Banned { .. }
    ));
    limiter.sweep(NOON + 3600).await.unwrap();
    assert_eq!(rows().await, 20, "the day windows still count");
    limiter.sweep(NOON + 12 * 3600).await.unwrap();
    assert_eq!(rows().await, 0, "a new UTC day: nothing to remember");
}

/// Instances started together on an empty database run their first-start
/// check at once: one key between them. (Twelve checks in one process, each
/// on its own connection, make the race likelier than three process starts,
/// which the migrator's lock staggers.)
#[actix_web::test]
async fn concurrent_bootstraps_create_one_key() {
    let url = postgres::cluster().fresh_database().await;
    let db = Db::connect(&url).await.expect("database opens");
    let now = Utc::now();
    let created = futures_util::future::join_all((0..12).map(|_| keys::bootstrap(&db, now))).await;
    let created: Vec<_> = created
        .into_iter()
        .filter_map(|r| r.expect("bootstrap runs"))
        .collect();
    assert_eq!(created.len(), 1);
}

/// With `sslmode=verify-full`, the store's connections are encrypted and the
/// server's certificate is checked: one from another authority is refused.
#[actix_web::test]
async fn database_connections_can_require_verified_tls() {
    use sqlx::Connection;
    let cluster = postgres::cluster();
    let url = cluster.fresh_database().await;
    let verified = format!(
        "{url}?sslmode=verify-full&sslrootcert={}",
        cluster.authority().display()
    );
    let db = Db::connect(&verified)
        .await
        .expect("a verified TLS connection");
    keys::bootstrap(&db, Utc::now())
        .await
        .expect("a write over TLS")
        .expect("a fresh database gets a bootstrap key");
    let mut watcher = sqlx::PgConnection::connect(&url).await.unwrap();
    let (encrypted, plain): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl) \
         FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) \
         WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()",
    )
    .fetch_one(&mut watcher)
    .await
    .unwrap();
    assert!(encrypted >= 1, "the store holds no encrypted connection");
    assert_eq!(plain, 0, "the store holds unencrypted connections");

    let elsewhere = format!(
        "{url}?sslmode=verify-full&sslrootcert={}",
        cluster.other_authority().display()
    );
    assert!(
        Db::connect(&elsewhere).await.is_err(),
        "a certificate from another authority was accepted"
    );
}

/// `--database-connections` bounds what one instance holds open, however many
/// requests it serves at once; the others wait for a connection.
#[actix_web::test]
async fn an_instance_opens_no_more_connections_than_it_is_allowed() {
    use sqlx::Connection;
    let url = postgres::cluster().fresh_database().await;
    let key = create_key(&url, "enterprise", Some((100_000_000, 100_000_000)));
    let (server, _) = Server::start_with(&url, &["--database-connections", "2"]);
    let client = reqwest::Client::new();
    let category = send(
        &client,
        &server,
        &key,
        Method::POST,
        "/v1/categories",
        Some(json!({ "name": "Dogs" })),
    )
    .await;
    assert_eq!(category.status, 201, "{category:?}");
    let writes = (0..60).map(|i| {
        send(
            &client,
            &server,
            &key,
            Method::POST,
            "/v1/categories",
            Some(json!({ "name": format!("Category {i}") })),
        )
    });
    for reply in futures_util::future::join_all(writes).await {
        assert_eq!(reply.status, 201, "{reply:?}");
    }
    let mut watcher = sqlx::PgConnection::connect(&url).await.unwrap();
    let others: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .fetch_one(&mut watcher)
    .await
    .unwrap();
    assert!(others <= 2, "the instance holds {others} connections");
    assert!(others >= 1, "the instance's pool is open");
}

/// Concurrent requests of one subject are decided in rounds, each under the
/// row's lock: exactly the limit is allowed, the rounds go on when the
/// request that started them is abandoned, and the row ends exact.
#[actix_web::test]
async fn one_subjects_concurrent_checks_are_exact_and_survive_an_abandoned_request() {
    use futures_util::FutureExt;
    use petstore_server::keys::Limits;
    use petstore_server::limiter::{BanPolicy, SharedLimiter, Subject, Verdict};
    let db = Db::connect(&postgres::cluster().fresh_database().await)
        .await
        .unwrap();
    let limiter = SharedLimiter::new(db.clone(), BanPolicy::default());
    const NOON: i64 = 1_795_348_800;
    let ten = Limits {
        per_minute: 10,
        per_day: 1000,
    };
    let key = Subject::Key(7);
    // The first request queues, starts the rounds, and is abandoned.
    let mut abandoned = Box::pin(limiter.check(key, ten, NOON));
    assert!((&mut abandoned).now_or_never().is_none());
    drop(abandoned);
    let checks = (0..39).map(|_| limiter.check(key, ten, NOON));
    let decisions = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        futures_util::future::join_all(checks),
    )
    .await
    .expect("every check is answered");
    let allowed = decisions
        .iter()
        .filter(|d| d.as_ref().unwrap().verdict == Verdict::Allowed)
        .count();
    assert_eq!(allowed, 9, "the abandoned request was counted first");
    let counted: i32 =
        sqlx::query_scalar("SELECT minute_count FROM rate_limits WHERE subject = 'key:7'")
            .fetch_one(db.postgres().expect("a PostgreSQL database"))
            .await
            .unwrap();
    assert_eq!(counted, 10);
}
