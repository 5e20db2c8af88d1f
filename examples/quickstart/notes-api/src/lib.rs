//! Notes 1.0.0
//!
//! A small API to start from.
//!
//! Generated from `examples/quickstart/notes.yaml` by `apigen generate examples/quickstart/notes.yaml --out examples/quickstart/notes-api --name notes-api --runtime crate`; regenerate it the same way, and check it is current with `--check` (in CI, say). `DOCS_HTML` is the API's reference page (`src/generated/docs.html`), one self-contained HTML file.
//!
//! # Features
//!
//! `server` compiles the actix-web glue, `axum` the axum glue (both serve one framework-neutral glue, `serving`), `client` a typed client. Each group of operations (a route trait) is a feature of its own, compiling in its operations and the types they use; `all-groups` (on by default) turns every one on. A build that needs a few groups turns the default features off and names them, `features = ["client", "GROUP"]`, and compiles nothing else.
//!
//! Every model implements `Serialize` and `Deserialize` whichever features are on, so a program can store, log or forward what it reads.
//!
//! - `notes` (untagged operations under `/notes`, trait `Notes`): `list_notes`, `create_note`, `get_note`
//!
//! # Serving it
//!
//! Implement each route trait (one per tag) for your service, say how refusals look (`server::Rejections`), and mount the routes in an actix-web `App`:
//!
//! ```no_run
//! use notes_api::{operations, runtime, server, DOCS_HTML};
//! use actix_web::{web, App, HttpServer};
//!
//! struct Service;
//!
//! impl operations::Notes for Service {
//!     async fn list_notes(&self, _request: operations::ListNotesRequest, _context: runtime::RequestContext) -> Result<operations::ListNotesResponse, operations::ErrorResponse> { todo!() }
//!     async fn create_note(&self, _request: operations::CreateNoteRequest, _context: runtime::RequestContext) -> Result<operations::CreateNoteResponse, operations::ErrorResponse> { todo!() }
//!     async fn get_note(&self, _request: operations::GetNoteRequest, _context: runtime::RequestContext) -> Result<operations::GetNoteResponse, operations::ErrorResponse> { todo!() }
//! }
//!
//! impl server::Rejections for Service {
//!     fn reject(&self, _rejection: runtime::Rejection) -> operations::ErrorResponse { todo!() }
//! }
//!
//! #[actix_web::main]
//! async fn main() -> std::io::Result<()> {
//!     let service = web::Data::new(Service);
//!     HttpServer::new(move || {
//!         let service = service.clone();
//!         App::new()
//!             .route("/docs", web::get().to(|| async {
//!                 actix_web::HttpResponse::Ok().content_type("text/html; charset=utf-8").body(DOCS_HTML)
//!             }))
//!             .configure(move |cfg| server::configure(cfg, service))
//!     })
//!     .bind("127.0.0.1:8080")?
//!     .run()
//!     .await
//! }
//! ```
//!
//! On axum (feature `axum`), the same implementation is a router, `axum::router(Arc::new(service))`; `axum::router_with` puts a layer around every route, which finds the operation it serves in the request's extensions (`runtime::axum::operation_of`):
//!
//! ```no_run
//! # #[cfg(feature = "axum")]
//! # mod example {
//! use notes_api::{axum as axum_glue, metadata, operations, runtime};
//! use std::sync::Arc;
//!
//! async fn log(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
//!     let operation = runtime::axum::operation_of(&request).map(|o| o.id);
//!     let response = next.run(request).await;
//!     println!("{operation:?}: {}", response.status());
//!     response
//! }
//!
//! pub async fn serve<S>(service: Arc<S>) -> std::io::Result<()>
//! where
//!     S: operations::Notes + axum_glue::Rejections + Send + Sync + 'static,
//! {
//!     let router = axum_glue::router_with(service, axum::middleware::from_fn(log));
//!     let app = runtime::axum::mounted(metadata::BASE_PATH, router);
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//!     axum::serve(listener, app).await
//! }
//! # }
//! ```
//!
//! # A mock server
//!
//! The `mock` feature adds `mock::MockService`, which implements every route trait from the spec alone: each operation answers its first success with the response's example or a value made from its schema (`Prefer: code=404`, `example=NAME` and `dynamic=true` choose otherwise), and requests are refused by the same glue as a real server's. `apigen mock SPEC` builds and runs one; to mount it in an `App` of your own:
//!
//! ```no_run
//! # #[cfg(feature = "mock")]
//! # async fn run() -> std::io::Result<()> {
//! use actix_web::{web, App, HttpServer};
//! use notes_api::{metadata, mock::MockService};
//!
//! let mock = MockService::new(0).expect("a value of the error schema");
//! HttpServer::new(move || {
//!     let mock = mock.clone();
//!     App::new().service(web::scope(metadata::BASE_PATH).configure(|cfg| mock.configure(cfg)))
//! })
//! .bind("127.0.0.1:4010")?
//! .run()
//! .await
//! # }
//! ```

#[rustfmt::skip]
mod generated;

pub use generated::*;
