//! End-to-end tests: the real server on port 0 with a temporary SQLite file,
//! driven over HTTP.

mod helpers;

mod auth;
mod catalog;
mod crash;
mod errors;
mod hostile;
mod idempotency;
mod lifecycle;
mod limits;
mod orders;
