//! Durability: every write answered with 2xx survives `kill -9`.

use crate::helpers::{create_key, database_url, read, Server};
use serde_json::json;

#[actix_web::test]
async fn acknowledged_writes_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let url = database_url(dir.path()).await;
    let (mut server, key) = Server::start(&url);
    let key = key.expect("a fresh database prints a bootstrap key");
    let client = reqwest::Client::new();
    let category = read(
        client
            .post(format!("{}/v1/categories", server.base))
            .bearer_auth(&key)
            .json(&json!({ "name": "Dogs" }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(category.status, 201);
    let mut pets = Vec::new();
    for i in 0..20 {
        let r = read(
            client
                .post(format!("{}/v1/pets", server.base))
                .bearer_auth(&key)
                .json(&json!({ "name": format!("Pet {i}"), "categoryId": category.body["id"] }))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(r.status, 201);
        pets.push(r.body);
    }
    server.kill_9();

    let (mut server, second_key) = Server::start(&url);
    assert_eq!(second_key, None, "the bootstrap key is made only once");
    let listed = read(
        client
            .get(format!("{}/v1/pets?limit=100", server.base))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(listed.body, json!(pets));
    server.kill_9();
}

/// Writers place orders and create pets concurrently while the server is
/// killed with SIGKILL; after a restart every acknowledged write is there, and
/// for every pet the stock plus what was ordered is what it started with.
#[actix_web::test]
async fn concurrent_writes_survive_sigkill_mid_stream_and_balance() {
    let dir = tempfile::tempdir().unwrap();
    let url = database_url(dir.path()).await;
    let key = create_key(&url, "enterprise", Some((100_000_000, 100_000_000)));
    let (mut server, _) = Server::start(&url);
    let client = reqwest::Client::new();
    let base = server.base.clone();
    let post = |path: &str, body: serde_json::Value| {
        client
            .post(format!("{base}{path}"))
            .bearer_auth(&key)
            .json(&body)
            .send()
    };
    let category = read(
        post("/v1/categories", json!({ "name": "Dogs" }))
            .await
            .unwrap(),
    )
    .await;
    let category = category.body["id"].as_i64().unwrap();
    const STOCK: i64 = 1000;
    let mut seeded = Vec::new();
    for i in 0..4 {
        let pet = read(
            post(
                "/v1/pets",
                json!({ "name": format!("Seed {i}"), "categoryId": category }),
            )
            .await
            .unwrap(),
        )
        .await;
        let id = pet.body["id"].as_i64().unwrap();
        let r = client
            .patch(format!("{base}/v1/inventory/{id}"))
            .bearer_auth(&key)
            .json(&json!({ "quantity": STOCK }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        seeded.push(id);
    }

    // Eight writers: each records what the server acknowledged. The kill
    // comes once they have had 40 orders acknowledged, however long that
    // takes on a busy machine, so writes are always in flight when it does.
    const BEFORE_KILL: usize = 40;
    let placed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writers = (0..8).map(|w| {
        let placed = placed.clone();
        let client = client.clone();
        let base = base.clone();
        let key = key.clone();
        let seeded = seeded.clone();
        async move {
            let mut orders = Vec::new();
            let mut pets = Vec::new();
            for i in 0.. {
                let (path, body) = if i % 3 == 0 {
                    (
                        "/v1/pets",
                        json!({ "name": format!("W{w}-{i}"), "categoryId": category }),
                    )
                } else {
                    let quantity = 1 + (i % 3);
                    (
                        "/v1/store/orders",
                        json!({ "petId": seeded[(w + i) % seeded.len()], "quantity": quantity }),
                    )
                };
                let sent = client
                    .post(format!("{base}{path}"))
                    .bearer_auth(&key)
                    .json(&body)
                    .send()
                    .await;
                let Ok(response) = sent else { break };
                let status = response.status();
                let Ok(body) = response.json::<serde_json::Value>().await else {
                    break;
                };
                if status == 201 && path == "/v1/pets" {
                    pets.push(body);
                } else if status == 201 {
                    orders.push(body);
                    placed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
            (pets, orders)
        }
    });
    let run = futures_util::future::join_all(writers);
    let kill = async {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while placed.load(std::sync::atomic::Ordering::Relaxed) < BEFORE_KILL {
            assert!(
                std::time::Instant::now() < deadline,
                "the writers got {} orders acknowledged in a minute",
                placed.load(std::sync::atomic::Ordering::Relaxed)
            );
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        server.kill_9();
    };
    let (results, ()) = tokio::join!(run, kill);
    let acknowledged_pets: Vec<_> = results.iter().flat_map(|(p, _)| p.clone()).collect();
    let acknowledged_orders: Vec<_> = results.iter().flat_map(|(_, o)| o.clone()).collect();
    assert!(acknowledged_orders.len() >= BEFORE_KILL);

    let (mut server, _) = Server::start(&url);
    let base = server.base.clone();
    let get = |path: String| {
        let client = client.clone();
        let key = key.clone();
        let base = base.clone();
        async move {
            read(
                client
                    .get(format!("{base}{path}"))
                    .bearer_auth(&key)
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    for pet in &acknowledged_pets {
        let id = pet["id"].as_i64().unwrap();
        let found = get(format!("/v1/pets?id={id}")).await;
        assert_eq!(found.body, json!([pet]), "acknowledged pet {id} is stored");
        let item = get(format!("/v1/inventory/{id}")).await;
        assert_eq!(item.status, 200, "pet {id} has its inventory entry");
    }
    let mut all_orders = Vec::new();
    let mut after = 0;
    loop {
        let page = get(format!("/v1/store/orders?limit=100&after={after}")).await;
        let items = page.body.as_array().unwrap().clone();
        let Some(last) = items.last() else { break };
        after = last["id"].as_i64().unwrap();
        all_orders.extend(items);
    }
    for order in &acknowledged_orders {
        assert!(
            all_orders.contains(order),
            "acknowledged order {order} is stored"
        );
    }
    for pet in &seeded {
        let ordered: i64 = all_orders
            .iter()
            .filter(|o| o["petId"] == *pet)
            .map(|o| o["quantity"].as_i64().unwrap())
            .sum();
        let stock = get(format!("/v1/inventory/{pet}")).await.body["quantity"]
            .as_i64()
            .unwrap();
        assert_eq!(
            stock + ordered,
            STOCK,
            "pet {pet}: stock {stock} + ordered {ordered}"
        );
    }
    server.kill_9();
}
