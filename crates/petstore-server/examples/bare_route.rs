//! The framework's limit, for `cargo xtask bench`: a server with no
//! middleware, storage or validation, answering every request with the status,
//! headers and body recorded from the real server, on actix-web (its own
//! workers, one per core) or on axum (`axum::serve` on tokio's multi-threaded
//! runtime), each as its documentation shows.
//!
//! ```text
//! bare_route ADDR RESPONSE_JSON [actix|axum] [ROUTE]
//! ```
//!
//! `RESPONSE_JSON` is `{"status": 200, "headers": [[name, value], ...],
//! "body": "..."}`. With a `ROUTE` (`/pets/{petId}`), requests are routed
//! to its `GET` as the framework routes them (the shape of one generated
//! route, without its extraction, validation and rendering); without,
//! every request is answered as it comes.

use std::sync::Arc;

#[derive(serde::Deserialize)]
struct Recorded {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

async fn on_actix(
    _body: actix_web::web::Bytes,
    recorded: actix_web::web::Data<Recorded>,
) -> actix_web::HttpResponse {
    use actix_web::http::StatusCode;
    let mut response = actix_web::HttpResponse::build(
        StatusCode::from_u16(recorded.status).unwrap_or(StatusCode::OK),
    );
    for (name, value) in &recorded.headers {
        response.insert_header((name.as_str(), value.as_str()));
    }
    response.body(recorded.body.clone())
}

async fn on_axum(recorded: Arc<Recorded>, _body: axum::body::Bytes) -> axum::response::Response {
    let mut response = axum::response::Response::new(axum::body::Body::from(recorded.body.clone()));
    *response.status_mut() =
        http::StatusCode::from_u16(recorded.status).unwrap_or(http::StatusCode::OK);
    for (name, value) in &recorded.headers {
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(name.as_bytes()),
            http::HeaderValue::from_str(value),
        ) {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(address), Some(file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: bare_route ADDR RESPONSE_JSON [actix|axum] [ROUTE]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file)?;
    let recorded: Recorded = serde_json::from_str(&text).map_err(std::io::Error::other)?;
    let route = args.get(4).cloned();
    match args.get(3).map_or("actix", String::as_str) {
        "axum" => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(async {
                let recorded = Arc::new(recorded);
                let answer = move |body| on_axum(recorded.clone(), body);
                let app = match &route {
                    Some(route) => axum::Router::new().route(route, axum::routing::get(answer)),
                    None => axum::Router::new().fallback(answer),
                };
                let listener = tokio::net::TcpListener::bind(address).await?;
                println!("bare route listening on {}", listener.local_addr()?);
                axum::serve(listener, app).await
            }),
        _ => actix_web::rt::System::new().block_on(async {
            use actix_web::{web, App, HttpServer};
            let recorded = web::Data::new(recorded);
            let server = HttpServer::new(move || {
                let app = App::new().app_data(recorded.clone());
                match &route {
                    Some(route) => app.route(route, web::get().to(on_actix)),
                    None => app.default_service(web::to(on_actix)),
                }
            })
            .bind(address)?;
            println!("bare route listening on {}", server.addrs()[0]);
            server.run().await
        }),
    }
}
