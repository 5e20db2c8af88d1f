//! The pet store's HTTP interface, generated from `spec/openapi.yaml`.
//!
//! Everything under [`generated`] comes from `cargo xtask codegen` and is never
//! edited by hand:
//!
//! - [`models`]: the spec's schemas as serde types (`Pet`, `PetStatus`, ...);
//! - [`operations`]: per operation a request struct and a response enum, and the
//!   route traits [`operations::Pets`] and [`operations::Store`];
//! - [`server`]: the actix-web glue ([`server::configure`]), with the
//!   `server` feature (the default);
//! - `client`: a typed client, `client::Client`, with the `client` feature;
//! - [`metadata`]: stability, deprecation, sunset and security of every
//!   operation.
//!
//! This file adds only what the spec cannot say: how a [`runtime::Rejection`]
//! becomes the spec's `Error` body.

// Generated code keeps the generator's own (prettyplease) formatting, so that
// `cargo xtask codegen --check` compares like with like.
#[rustfmt::skip]
mod generated;

#[cfg(feature = "client")]
pub use generated::client;
#[cfg(feature = "mock")]
pub use generated::mock;
#[cfg(feature = "server")]
pub use generated::server;
pub use generated::{metadata, models, operations, runtime, DOCS_HTML};

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
