//! Orders and stock as they change: the store's event stream, one line per
//! event, as the changes are committed (on any server instance). A dropped
//! connection is resumed from the last event received, so none is missed or
//! printed twice.
//!
//! ```text
//! cargo run -p petstore-server                  # prints an API key on first start
//! PETSTORE_KEY=psk_... cargo run -p petstore-examples --example watch [COUNT] [--from ID] [--pet ID]
//! ```
//!
//! `COUNT` stops after that many events (default: never); `--from ID`
//! starts after the event `ID` (`--from 0`: every event kept, the last 24
//! hours) instead of now; `--pet ID` shows only that pet's events.
//! `PETSTORE_URL` overrides the base URL (default `http://127.0.0.1:8080/v1`).

use petstore_api::client::Client;
use petstore_api::models::StoreEvent;
use petstore_api::operations::WatchStoreRequest;
use petstore_api::runtime::{Retry, StreamError, StreamExt as _};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let base = std::env::var("PETSTORE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
    let key = std::env::var("PETSTORE_KEY").map_err(|_| "set PETSTORE_KEY to an API key")?;
    let mut count = None;
    let mut request = WatchStoreRequest::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<i64> {
            let value = args.next().ok_or(format!("{name} takes an id"))?;
            Ok(value.parse().map_err(|_| format!("not an id: {value}"))?)
        };
        match arg.as_str() {
            "--from" => request.last_event_id = Some(value("--from")?),
            "--pet" => request.pet_id = Some(value("--pet")?),
            n => {
                count = Some(
                    n.parse::<usize>()
                        .map_err(|_| format!("not a count: {n}"))?,
                )
            }
        }
    }
    // Retries also pace the reconnects after a dropped connection.
    let client = Client::new(&base)?
        .with_bearer_auth(key)
        .with_retries(Retry::default());

    let mut events = client.watch_store_events(request);
    let mut seen = 0;
    while count.is_none_or(|count| seen < count) {
        let Some(event) = events.next().await else {
            break;
        };
        let event = match event {
            Ok(event) => event,
            Err(StreamError::Answered(reply)) => {
                return Err(format!("the server refused the stream: {:?}", reply.value).into())
            }
            Err(e) => return Err(e.into()),
        };
        match &event.data {
            StoreEvent::OrderEvent(e) => println!(
                "{:>8}  {}  {:<17} order {:>6}  pet {:>6}  quantity {:>4}  stock {:>7}",
                e.id,
                e.occurred_at.format("%H:%M:%S%.3f"),
                e.type_.as_str(),
                e.order_id,
                e.pet_id,
                e.quantity,
                e.stock
            ),
            StoreEvent::InventoryEvent(e) => println!(
                "{:>8}  {}  {:<17} {:>12}  pet {:>6}  {:>13}  stock {:>7}  {}",
                e.id,
                e.occurred_at.format("%H:%M:%S%.3f"),
                e.type_.as_str(),
                "",
                e.pet_id,
                "",
                e.stock,
                e.status
            ),
        }
        seen += 1;
    }
    Ok(())
}
