//! A walk through the store against a running server, with the generated
//! client: create a category, a pet and an order, then complete the order.
//! No URL, status code or JSON is written by hand: each call takes the
//! operation's request and answers with its response enum.
//!
//! ```text
//! cargo run -p petstore-server                  # prints an API key on first start
//! PETSTORE_KEY=psk_... cargo run -p petstore-examples --example walkthrough
//! ```
//!
//! `PETSTORE_URL` overrides the base URL (default `http://127.0.0.1:8080/v1`).

use petstore_api::client::Client;
use petstore_api::models::{NewCategory, NewOrder, NewPet, PetStatus};
use petstore_api::operations::*;
use petstore_api::runtime::StreamExt as _;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// An answer the walk did not expect, as an error.
fn unexpected(answer: impl std::fmt::Debug) -> Box<dyn std::error::Error> {
    format!("unexpected answer: {answer:?}").into()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let base = std::env::var("PETSTORE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
    let key = std::env::var("PETSTORE_KEY").map_err(|_| "set PETSTORE_KEY to an API key")?;
    let client = Client::new(&base)?.with_bearer_auth(key);

    let category = match client
        .create_category(CreateCategoryRequest {
            idempotency_key: None,
            body: NewCategory {
                id: None,
                name: "Dogs".into(),
                description: Some("Loyal companions".into()),
            },
        })
        .await?
        .into_inner()
    {
        CreateCategoryResponse::Created { body, .. } => body,
        other => return Err(unexpected(other)),
    };
    println!("created category {} ({})", category.id, category.name);

    let pet = match client
        .create_pet(CreatePetRequest {
            idempotency_key: None,
            body: NewPet {
                id: None,
                name: "Rex".into(),
                category_id: category.id,
                status: Some(PetStatus::Available),
            },
        })
        .await?
        .into_inner()
    {
        CreatePetResponse::Created { body, location } => {
            println!(
                "created pet {} ({}) at {location}, stock 1",
                body.id, body.name
            );
            body
        }
        other => return Err(unexpected(other)),
    };

    let order = match client
        .place_order(PlaceOrderRequest {
            idempotency_key: None,
            body: NewOrder {
                pet_id: pet.id,
                quantity: 1,
                ship_date: None,
            },
        })
        .await?
        .into_inner()
    {
        PlaceOrderResponse::Created { body, .. } => body,
        PlaceOrderResponse::Conflict(error) => return Err(error.message.into()),
        other => return Err(unexpected(other)),
    };
    let order_id = order.id.ok_or("the order has no id")?;
    println!("placed order {order_id} for pet {}", pet.id);

    let listed = client
        .list_pets(ListPetsRequest {
            id: Some(vec![pet.id]),
            ..Default::default()
        })
        .await?;
    let remaining = listed.rate_limit().map_or(0, |r| r.remaining);
    match listed.into_inner() {
        ListPetsResponse::Ok { body, .. } => {
            let status = body.first().and_then(|p| p.status.clone());
            let status = status.map_or("unknown".into(), |s| s.to_string());
            println!(
                "pet {} is now {status} ({remaining} requests left this window)",
                pet.id
            );
        }
        other => return Err(unexpected(other)),
    }

    // Every pet of the category, page after page: the stream asks for the
    // next page when it needs one and stops after the last.
    let mut pets = std::pin::pin!(client.list_pets_items(ListPetsRequest {
        category_id: Some(category.id),
        ..Default::default()
    }));
    let mut names = Vec::new();
    while let Some(pet) = pets.next().await {
        names.push(pet?.name);
    }
    println!("category {} holds {}", category.name, names.join(", "));

    match client
        .complete_order(CompleteOrderRequest {
            order_id,
            idempotency_key: None,
        })
        .await?
        .into_inner()
    {
        CompleteOrderResponse::Ok(done) => println!(
            "completed order {order_id}, shipped {}",
            done.ship_date.map_or("-".into(), |d| d.to_rfc3339())
        ),
        other => return Err(unexpected(other)),
    }
    Ok(())
}
