//! A client that honours rate limits, with the generated client's retries:
//! on 429 it waits for `Retry-After` (with exponential backoff and full
//! jitter when it has to try again), so it never sends while limited and
//! never earns a ban.
//!
//! ```text
//! PETSTORE_KEY=psk_... cargo run -p petstore-examples --example backoff -- 80
//! ```
//!
//! With a free key (60 requests a minute) the 61st request is limited; the
//! client sleeps until the window resets and carries on.

use petstore_api::client::Client;
use petstore_api::operations::{ListPetsRequest, ListPetsResponse, TooManyRequests};
use petstore_api::runtime::Retry;
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let base = std::env::var("PETSTORE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
    let key = std::env::var("PETSTORE_KEY").map_err(|_| "set PETSTORE_KEY to an API key")?;
    let requests: u32 = std::env::args().nth(1).map_or(Ok(80), |n| n.parse())?;
    let client = Client::new(&base)?
        .with_bearer_auth(key)
        .with_retries(Retry {
            attempts: 8,
            // A minute window may have most of a minute left to run.
            max_elapsed: Duration::from_secs(150),
            ..Retry::default()
        });
    for i in 1..=requests {
        let started = Instant::now();
        let reply = client
            .list_pets(ListPetsRequest {
                limit: 1,
                ..Default::default()
            })
            .await?;
        let remaining = reply
            .rate_limit()
            .map_or("?".into(), |r| r.remaining.to_string());
        let waited = started.elapsed();
        let note = if waited > Duration::from_secs(1) {
            format!(
                " after waiting {:.1}s for the limit to reset",
                waited.as_secs_f64()
            )
        } else {
            String::new()
        };
        match reply.into_inner() {
            ListPetsResponse::Ok { .. } => {
                println!("request {i:>3}: 200 (remaining {remaining}){note}")
            }
            ListPetsResponse::TooManyRequests(TooManyRequests { body, retry_after }) => {
                return Err(
                    format!("still limited ({}); retry in {retry_after}s", body.code).into(),
                )
            }
            other => return Err(format!("unexpected answer: {other:?}").into()),
        }
    }
    Ok(())
}
