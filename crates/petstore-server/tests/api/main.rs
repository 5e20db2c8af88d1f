//! End-to-end tests of the API on the database the suite is asked for: the
//! real server on port 0, driven over HTTP, on a temporary SQLite file or
//! (with `PETSTORE_TEST_DATABASE=postgres`) a fresh database on a private
//! PostgreSQL cluster. CI runs this suite once on each. Tests that choose
//! their own database, or need none, are the `system` suite's, which runs
//! once.

// Shared with the `system` suite; each uses part of them.
#[allow(dead_code)]
#[path = "../common/contract.rs"]
mod contract;
#[allow(dead_code, unused_macros)]
#[macro_use]
#[path = "../common/helpers.rs"]
mod helpers;
#[allow(dead_code)]
#[path = "../common/postgres.rs"]
mod postgres;
#[allow(dead_code)]
#[path = "../common/receiver.rs"]
mod receiver;

mod auth;
mod catalog;
mod client;
mod conformance;
mod crash;
mod errors;
mod events;
mod hostile;
mod idempotency;
mod lifecycle;
mod limits;
mod metrics;
mod orders;
mod webhooks;
