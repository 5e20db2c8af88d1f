//! The pet store server: the generated `petstore-api` traits implemented over
//! SQLite, with API keys.
//!
//! `main.rs` is a thin command line over this library; tests build the same
//! [`app::Application`] on port 0.

pub mod app;
pub mod cli;
pub mod error;
pub mod gate;
pub mod keys;
pub mod lifecycle;
pub mod limiter;
pub mod logging;
pub mod proxies;
pub mod service;
pub mod store;
