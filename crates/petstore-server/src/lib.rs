//! The pet store server: the generated `petstore-api` traits implemented over
//! SQLite or PostgreSQL, with API keys, rate limits and metrics, served on
//! actix-web or on axum (`app::Framework`).
//!
//! `main.rs` is a thin command line over this library; tests build the same
//! [`app::Application`] on port 0.

pub mod app;
pub mod cli;
pub mod error;
pub mod feed;
pub mod gate;
pub mod keys;
pub mod lifecycle;
pub mod limiter;
pub mod limits;
pub mod logging;
pub mod metrics;
pub mod on_actix;
pub mod on_axum;
pub mod outside;
pub mod proxies;
pub mod request_log;
mod rounds;
pub mod service;
pub mod shutdown;
pub mod store;
pub mod webhooks;

/// A mutex's guard. The server's mutexes guard caches and counters, which a
/// panic while one was held leaves at worst stale, so a poisoned mutex is
/// used as is.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
