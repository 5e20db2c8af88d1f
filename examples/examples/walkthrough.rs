//! A walk through the store against a running server: create a category, a pet
//! and an order, then complete the order. Every body is a generated model.
//!
//! ```text
//! cargo run -p petstore-server                  # prints an API key on first start
//! PETSTORE_KEY=psk_... cargo run -p petstore-examples --example walkthrough
//! ```
//!
//! `PETSTORE_URL` overrides the base URL (default `http://127.0.0.1:8080/v1`).

use petstore_api::models::{Category, NewCategory, NewOrder, NewPet, Order, Pet, PetStatus};
use reqwest::{Client, RequestBuilder};
use serde::de::DeserializeOwned;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let base = std::env::var("PETSTORE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
    let key = std::env::var("PETSTORE_KEY").map_err(|_| "set PETSTORE_KEY to an API key")?;
    let client = Client::new();
    let auth = |request: RequestBuilder| request.bearer_auth(&key);

    let category: Category = send(auth(client.post(format!("{base}/categories")).json(
        &NewCategory {
            id: None,
            name: "Dogs".into(),
            description: Some("Loyal companions".into()),
        },
    )))
    .await?;
    println!("created category {} ({})", category.id, category.name);

    let pet: Pet = send(auth(client.post(format!("{base}/pets")).json(&NewPet {
        id: None,
        name: "Rex".into(),
        category_id: category.id,
        status: Some(PetStatus::Available),
    })))
    .await?;
    println!("created pet {} ({}), stock 1", pet.id, pet.name);

    let order: Order = send(auth(client.post(format!("{base}/store/orders")).json(
        &NewOrder {
            pet_id: pet.id,
            quantity: 1,
            ship_date: None,
        },
    )))
    .await?;
    let order_id = order.id.ok_or("the order has no id")?;
    println!("placed order {order_id} for pet {}", pet.id);

    let pet: Pet = send(auth(client.get(format!("{base}/pets?id={}", pet.id))))
        .await
        .map(|mut pets: Vec<Pet>| pets.remove(0))?;
    println!(
        "pet {} is now {}",
        pet.id,
        pet.status.map_or("unknown".into(), |s| s.to_string())
    );

    let done: Order = send(auth(
        client.post(format!("{base}/store/orders/{order_id}/complete")),
    ))
    .await?;
    println!(
        "completed order {order_id}, shipped {}",
        done.ship_date.map_or("-".into(), |d| d.to_rfc3339())
    );
    Ok(())
}

/// Sends a request and decodes a success body; an error body becomes the error.
async fn send<T: DeserializeOwned>(request: RequestBuilder) -> Result<T> {
    let response = request.send().await?;
    let status = response.status();
    if status.is_success() {
        return Ok(response.json().await?);
    }
    let error: petstore_api::models::Error = response.json().await?;
    Err(format!("{} {}: {}", status.as_u16(), error.code, error.message).into())
}
