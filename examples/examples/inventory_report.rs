//! The stock of every pet, one line each, and how many pets there are: every
//! page of two lists, read as streams. No paging loop: the client asks for
//! the next page when the stream needs it, and stops after the last.
//!
//! ```text
//! cargo run -p petstore-server                  # prints an API key on first start
//! PETSTORE_KEY=psk_... cargo run -p petstore-examples --example inventory_report [PAGE_SIZE]
//! ```
//!
//! `PETSTORE_URL` overrides the base URL (default `http://127.0.0.1:8080/v1`);
//! `PAGE_SIZE` (default 50, at most 100) is the size of each page asked for.

use petstore_api::client::Client;
use petstore_api::operations::{ListInventoryRequest, ListPetsRequest};
use petstore_api::runtime::StreamExt as _;
use std::collections::BTreeMap;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let base = std::env::var("PETSTORE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
    let key = std::env::var("PETSTORE_KEY").map_err(|_| "set PETSTORE_KEY to an API key")?;
    let page_size: i32 = match std::env::args().nth(1) {
        Some(size) => size
            .parse()
            .map_err(|_| format!("not a page size: {size}"))?,
        None => 50,
    };
    let client = Client::new(&base)?.with_bearer_auth(key);

    // Every pet's name, by id.
    let mut names = BTreeMap::new();
    let mut pets = std::pin::pin!(client.list_pets_items(ListPetsRequest {
        limit: page_size,
        ..Default::default()
    }));
    while let Some(pet) = pets.next().await {
        let pet = pet?;
        names.insert(pet.id, pet.name);
    }

    // Every inventory entry, in pet id order, beside its pet's name.
    let mut entries = std::pin::pin!(client.list_inventory_items(ListInventoryRequest {
        limit: page_size,
        ..Default::default()
    }));
    let mut count = 0;
    while let Some(entry) = entries.next().await {
        let entry = entry?;
        let name = names.get(&entry.pet_id).map_or("(unnamed)", String::as_str);
        println!(
            "pet {:>6}  {name:<24} stock {:>7}  {}",
            entry.pet_id, entry.quantity, entry.status
        );
        count += 1;
    }
    println!("{count} {}", if count == 1 { "pet" } else { "pets" });
    Ok(())
}
