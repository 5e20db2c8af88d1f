//! The Notes API on axum: `cargo run -p notes-server`.

use notes_api::{axum as glue, metadata, runtime};
use notes_server::Notes;
use std::sync::Arc;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listen = std::env::var("NOTES_LISTEN").unwrap_or_else(|_| "127.0.0.1:3000".into());
    let router = glue::router(Arc::new(Notes::default()));
    // The routes under the spec's base path, `/v1`.
    let app = runtime::axum::mounted(metadata::BASE_PATH, router);
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    println!(
        "listening on http://{}{}",
        listener.local_addr()?,
        metadata::BASE_PATH
    );
    axum::serve(listener, app).await
}
