//! A client that honours rate limits: on 429 it waits for `Retry-After`, and
//! backs off exponentially with jitter when it is told to retry again. It never
//! sends while limited, so it never earns a ban.
//!
//! ```text
//! PETSTORE_KEY=psk_... cargo run -p petstore-examples --example backoff -- 80
//! ```
//!
//! With a free key (60 requests a minute) the 61st request is limited; the
//! client sleeps until the window resets and carries on.

use reqwest::{Client, Response, StatusCode};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The first backoff step, the cap, and how many tries before giving up.
const BASE: Duration = Duration::from_millis(500);
const CAP: Duration = Duration::from_secs(120);
const MAX_TRIES: u32 = 8;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let base = std::env::var("PETSTORE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
    let key = std::env::var("PETSTORE_KEY").map_err(|_| "set PETSTORE_KEY to an API key")?;
    let requests: u32 = std::env::args().nth(1).map_or(Ok(80), |n| n.parse())?;
    let client = Client::new();
    let mut jitter = Jitter::seeded();
    for i in 1..=requests {
        let response = send_with_backoff(&mut jitter, || {
            client
                .get(format!("{base}/pets?limit=1"))
                .bearer_auth(&key)
                .send()
        })
        .await?;
        println!(
            "request {i:>3}: {} (remaining {})",
            response.status().as_u16(),
            header(&response, "x-ratelimit-remaining").unwrap_or("?")
        );
    }
    Ok(())
}

/// Sends, and on 429 sleeps before trying again: at least `Retry-After`, and
/// at least a full-jitter exponential step (`random(0, min(CAP, BASE * 2^try))`)
/// so that many clients limited together do not return together.
async fn send_with_backoff<F, Fut>(jitter: &mut Jitter, send: F) -> Result<Response>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = reqwest::Result<Response>>,
{
    for attempt in 0..MAX_TRIES {
        let response = send().await?;
        if response.status() != StatusCode::TOO_MANY_REQUESTS {
            return Ok(response);
        }
        let retry_after = header(&response, "retry-after")
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(Duration::ZERO, Duration::from_secs);
        let step = CAP.min(BASE * 2u32.saturating_pow(attempt));
        let wait = retry_after.max(jitter.up_to(step));
        let body: serde_json::Value = response.json().await.unwrap_or_default();
        println!(
            "  429 {}: waiting {:.1}s (Retry-After {}s, attempt {})",
            body["code"].as_str().unwrap_or("?"),
            wait.as_secs_f64(),
            retry_after.as_secs(),
            attempt + 1
        );
        tokio::time::sleep(wait).await;
    }
    Err(format!("still rate limited after {MAX_TRIES} tries").into())
}

fn header<'r>(response: &'r Response, name: &str) -> Option<&'r str> {
    response.headers().get(name)?.to_str().ok()
}

/// A small xorshift generator: jitter needs spread, not cryptographic quality.
struct Jitter(u64);

impl Jitter {
    fn seeded() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Jitter(nanos | 1)
    }

    fn up_to(&mut self, max: Duration) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let fraction = (self.0 >> 11) as f64 / (1u64 << 53) as f64;
        max.mul_f64(fraction)
    }
}
