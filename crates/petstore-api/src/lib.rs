//! The pet store's HTTP interface, generated from `spec/openapi.yaml`.
//!
//! Everything under [`generated`] comes from `cargo xtask codegen` and is never
//! edited by hand:
//!
//! - [`models`]: the spec's schemas as serde types (`Pet`, `PetStatus`, ...);
//! - [`operations`]: per operation a request struct and a response enum, and the
//!   route traits [`operations::Pets`], [`operations::Store`] and
//!   [`operations::Webhooks`] (subscriptions);
//! - [`server`]: the actix-web glue ([`server::configure`]), with the
//!   `server` feature (the default);
//! - `client`: a typed client, `client::Client`, with the `client` feature;
//! - [`metadata`]: stability, deprecation, sunset and security of every
//!   operation;
//! - [`webhooks`]: the store's deliveries (a callback of
//!   `POST /webhooks`), with a receiver (`webhooks::operations::Receiver`,
//!   served on either framework) and a sender (`webhooks::client`).
//!
//! This file adds only what the spec cannot say: how a [`runtime::Rejection`]
//! becomes the spec's `Error` body.
//!
//! # Serving it
//!
//! A service implements the route traits ([`operations::Pets`],
//! [`operations::Store`], [`operations::Webhooks`]) and says how refusals look
//! (`server::Rejections`); `server::configure` mounts every operation's
//! route, with its validation, in an actix-web `App` (the pet store's own
//! server is built so, in `petstore-server`):
//!
//! ```
//! # #[cfg(feature = "server")]
//! # mod example {
//! use actix_web::{web, App};
//! use petstore_api::{metadata, operations, server};
//!
//! fn app<S>(service: web::Data<S>) -> App<impl actix_web::dev::ServiceFactory<
//!     actix_web::dev::ServiceRequest,
//!     Config = (),
//!     Response = actix_web::dev::ServiceResponse,
//!     Error = actix_web::Error,
//!     InitError = (),
//! >>
//! where
//!     S: operations::Pets + operations::Store + operations::Webhooks + server::Rejections + 'static,
//! {
//!     App::new().service(
//!         web::scope(metadata::BASE_PATH).configure(|cfg| server::configure(cfg, service)),
//!     )
//! }
//! # }
//! ```
//!
//! # Calling it
//!
//! With the `client` feature, `client::Client` has a method per operation,
//! taking its request struct and answering its response enum:
//!
//! ```no_run
//! # #[cfg(feature = "client")]
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use petstore_api::client::Client;
//! use petstore_api::models::NewCategory;
//! use petstore_api::operations::{CreateCategoryRequest, CreateCategoryResponse};
//!
//! let client = Client::new("http://127.0.0.1:8080/v1")?.with_bearer_auth("psk_...");
//! let request = CreateCategoryRequest {
//!     idempotency_key: None,
//!     body: NewCategory {
//!         id: None,
//!         name: "Dogs".into(),
//!         description: None,
//!     },
//! };
//! match client.create_category(request).await?.into_inner() {
//!     CreateCategoryResponse::Created { body, location } => {
//!         println!("category {} at {location}", body.id)
//!     }
//!     other => println!("refused: {other:?}"),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Paging
//!
//! A list that pages has `<op>_items`, every item with the next page
//! fetched when the stream needs it, and `<op>_pages`, every page as its
//! typed response:
//!
//! ```no_run
//! # #[cfg(feature = "client")]
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use petstore_api::client::Client;
//! use petstore_api::operations::ListPetsRequest;
//! use petstore_api::runtime::StreamExt as _;
//!
//! let client = Client::new("http://127.0.0.1:8080/v1")?.with_bearer_auth("psk_...");
//! let mut pets = std::pin::pin!(client.list_pets_items(ListPetsRequest::default()));
//! while let Some(pet) = pets.next().await {
//!     let pet = pet?;
//!     println!("{} {}", pet.id, pet.name);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Event streams
//!
//! `watch_store_events` reads the store's events as they come, and
//! reconnects with `Last-Event-ID` when the connection drops:
//!
//! ```no_run
//! # #[cfg(feature = "client")]
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use petstore_api::client::Client;
//! use petstore_api::operations::WatchStoreRequest;
//! use petstore_api::runtime::StreamExt as _;
//!
//! let client = Client::new("http://127.0.0.1:8080/v1")?.with_bearer_auth("psk_...");
//! let mut events = std::pin::pin!(client.watch_store_events(WatchStoreRequest::default()));
//! while let Some(event) = events.next().await {
//!     match event {
//!         Ok(event) => println!("{:?}: {:?}", event.id, event.data),
//!         Err(e) => {
//!             eprintln!("{e}");
//!             break;
//!         }
//!     }
//! }
//! # Ok(())
//! # }
//! ```

// Generated code keeps the generator's own (prettyplease) formatting, so that
// `cargo xtask codegen --check` compares like with like.
#[rustfmt::skip]
mod generated;

#[cfg(feature = "axum")]
pub use generated::axum;
#[cfg(feature = "client")]
pub use generated::client;
#[cfg(feature = "serving")]
pub use generated::glue;
#[cfg(feature = "mock")]
pub use generated::mock;
#[cfg(feature = "server")]
pub use generated::server;
pub use generated::{metadata, models, operations, runtime, webhooks, DOCS_HTML};

/// The user's guide (`docs/src`, an mdBook): its Rust examples compile,
/// and run where they are not marked `no_run`, as this crate's doc tests.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../../docs/src/introduction.md")]
    struct Introduction;
    #[doc = include_str!("../../../docs/src/generating.md")]
    struct Generating;
    #[doc = include_str!("../../../docs/src/client.md")]
    struct Client;
    #[doc = include_str!("../../../docs/src/serving.md")]
    struct Serving;
    #[doc = include_str!("../../../docs/src/mock.md")]
    struct Mock;
    #[doc = include_str!("../../../docs/src/paging.md")]
    struct Paging;
    #[doc = include_str!("../../../docs/src/events.md")]
    struct Events;
    #[doc = include_str!("../../../docs/src/webhooks.md")]
    struct Webhooks;
    #[doc = include_str!("../../../docs/src/features.md")]
    struct Features;
    #[doc = include_str!("../../../docs/src/gate.md")]
    struct Gate;
    #[doc = include_str!("../../../docs/src/versions.md")]
    struct Versions;
    #[doc = include_str!("../../../docs/src/extensions.md")]
    struct Extensions;
    #[doc = include_str!("../../../docs/src/petstore.md")]
    struct PetStore;
    #[doc = include_str!("../../../docs/src/compatibility.md")]
    struct Compatibility;
    #[doc = include_str!("../../../docs/src/cli.md")]
    struct CommandReference;
    #[doc = include_str!("../../../CONTRIBUTING.md")]
    struct Contributing;
}

/// The spec this crate was generated from, as served at `/openapi.yaml`.
pub const SPEC_YAML: &str = include_str!("../../../spec/openapi.yaml");

impl models::Error {
    /// An error body whose `status` agrees with the HTTP status it is sent with.
    pub fn new(status: runtime::StatusCode, code: &str, message: impl Into<String>) -> Self {
        models::Error {
            code: code.to_string(),
            message: message.into(),
            status: i32::from(status.as_u16()),
        }
    }
}

#[cfg(feature = "server")]
impl From<runtime::Rejection> for operations::ErrorResponse {
    /// The spec's `Error` body for a rejection. An internal rejection's
    /// message is for logs: the body says only that the server failed.
    fn from(rejection: runtime::Rejection) -> Self {
        let status = rejection.status();
        let message = match rejection.kind {
            runtime::RejectionKind::Internal => "the server failed to handle the request".into(),
            _ => rejection.message,
        };
        operations::ErrorResponse::new(
            status,
            models::Error::new(status, rejection.kind.code(), message),
        )
    }
}
