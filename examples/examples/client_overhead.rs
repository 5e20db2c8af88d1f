//! What the generated client costs over a bare reqwest call to the same
//! server: rounds that alternate `get_order` through the client with the same
//! request sent by hand (same `reqwest::Client`, same URL and header, the
//! same model decoded), timing each side. Run by `cargo xtask bench-client`,
//! which starts a release server and prints the table.
//!
//! ```text
//! client_overhead BASE_URL KEY ORDER_ID [ROUNDS] [CALLS_PER_ROUND]
//! ```

use petstore_api::client::Client;
use petstore_api::models::Order;
use petstore_api::operations::{GetOrderRequest, GetOrderResponse};
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [base, key, order, rest @ ..] = args.as_slice() else {
        return Err("usage: client_overhead BASE_URL KEY ORDER_ID [ROUNDS] [CALLS]".into());
    };
    let order_id: i64 = order.parse()?;
    let rounds: usize = rest.first().map_or(Ok(9), |r| r.parse())?;
    let calls: usize = rest.get(1).map_or(Ok(2000), |c| c.parse())?;
    let http = reqwest::Client::new();
    let client = Client::new(base)?
        .with_http_client(http.clone())
        .with_bearer_auth(key);
    let url = format!("{base}/store/orders/{order_id}");

    let generated = async || -> Result<Duration> {
        let started = Instant::now();
        for _ in 0..calls {
            let reply = client.get_order(GetOrderRequest { order_id }).await?;
            let GetOrderResponse::Ok(order) = reply.into_inner() else {
                return Err("not 200".into());
            };
            std::hint::black_box(order);
        }
        Ok(started.elapsed())
    };
    let bare = async || -> Result<Duration> {
        let started = Instant::now();
        for _ in 0..calls {
            let response = http.get(&url).bearer_auth(key).send().await?;
            if !response.status().is_success() {
                return Err("not 200".into());
            }
            let body = response.bytes().await?;
            let order: Order = serde_json::from_slice(&body)?;
            std::hint::black_box(order);
        }
        Ok(started.elapsed())
    };
    // Warm both paths (connections, allocator, page cache).
    generated().await?;
    bare().await?;
    println!("round,generated_us_per_call,bare_us_per_call");
    for round in 0..rounds {
        let (g, b) = if round % 2 == 0 {
            let g = generated().await?;
            (g, bare().await?)
        } else {
            let b = bare().await?;
            (generated().await?, b)
        };
        let per = |d: Duration| d.as_secs_f64() * 1e6 / calls as f64;
        println!("{round},{:.2},{:.2}", per(g), per(b));
    }
    Ok(())
}
