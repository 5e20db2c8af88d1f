//! How many pets the store holds in each status, read with the client this
//! crate generates at build time (see `build.rs`): every page of the pet
//! list, walked as one stream.
//!
//! ```text
//! cargo run -p petstore-server                  # prints an API key on first start
//! PETSTORE_KEY=psk_... cargo run -p petstore-build-time
//! ```
//!
//! `PETSTORE_URL` overrides the base URL (default `http://127.0.0.1:8080/v1`).

use petstore_build_time::client::Client;
use petstore_build_time::models::PetStatus;
use petstore_build_time::operations::ListPetsRequest;
use petstore_build_time::runtime::StreamExt as _;
use std::collections::BTreeMap;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let base = std::env::var("PETSTORE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
    let key = std::env::var("PETSTORE_KEY").map_err(|_| "set PETSTORE_KEY to an API key")?;
    let client = Client::new(&base)?.with_bearer_auth(key);

    let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
    let mut pets = std::pin::pin!(client.list_pets_items(ListPetsRequest {
        limit: 100,
        ..Default::default()
    }));
    while let Some(pet) = pets.next().await {
        let status = match pet?.status {
            Some(status) => status.to_string(),
            None => "(no status)".to_string(),
        };
        *by_status.entry(status).or_default() += 1;
    }
    for status in PetStatus::ALL {
        by_status.entry(status.to_string()).or_default();
    }
    for (status, count) in &by_status {
        println!("{status:<12} {count:>6}");
    }
    Ok(())
}
