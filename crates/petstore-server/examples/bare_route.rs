//! The framework's limit, for `cargo xtask bench`: an actix-web server with no
//! middleware, storage or validation, answering every request with the status,
//! headers and body recorded from the real server.
//!
//! ```text
//! bare_route ADDR RESPONSE_JSON
//! ```
//!
//! `RESPONSE_JSON` is `{"status": 200, "headers": [[name, value], ...],
//! "body": "..."}`.

use actix_web::http::StatusCode;
use actix_web::{web, App, HttpResponse, HttpServer};

#[derive(serde::Deserialize)]
struct Recorded {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

async fn answer(_body: web::Bytes, recorded: web::Data<Recorded>) -> HttpResponse {
    let mut response =
        HttpResponse::build(StatusCode::from_u16(recorded.status).unwrap_or(StatusCode::OK));
    for (name, value) in &recorded.headers {
        response.insert_header((name.as_str(), value.as_str()));
    }
    response.body(recorded.body.clone())
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(address), Some(file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: bare_route ADDR RESPONSE_JSON");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file)?;
    let recorded: Recorded = serde_json::from_str(&text).map_err(std::io::Error::other)?;
    let recorded = web::Data::new(recorded);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(recorded.clone())
            .default_service(web::to(answer))
    })
    .bind(address)?;
    println!("bare route listening on {}", server.addrs()[0]);
    server.run().await
}
