//! The Notes API on actix-web: `cargo run -p notes-server --bin notes-on-actix`.

use actix_web::{web, App, HttpServer};
use notes_api::{metadata, server};
use notes_server::Notes;

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let listen = std::env::var("NOTES_LISTEN").unwrap_or_else(|_| "127.0.0.1:3000".into());
    let notes = web::Data::new(Notes::default());
    let http = HttpServer::new(move || {
        let notes = notes.clone();
        App::new().service(
            web::scope(metadata::BASE_PATH).configure(move |cfg| server::configure(cfg, notes)),
        )
    })
    .bind(&listen)?;
    for address in http.addrs() {
        println!("listening on http://{address}{}", metadata::BASE_PATH);
    }
    http.run().await
}
