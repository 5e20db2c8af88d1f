//! End-to-end tests: the real server on port 0, driven over HTTP, on a
//! temporary SQLite file or (with `PETSTORE_TEST_DATABASE=postgres`) a fresh
//! database on a private PostgreSQL cluster. `instances` always runs on
//! PostgreSQL: several servers sharing one database.

mod helpers;
mod postgres;

mod abuse;
mod auth;
mod browser;
mod catalog;
mod cli;
mod client;
mod conformance;
mod crash;
mod disk;
mod errors;
mod events;
mod hostile;
mod idempotency;
mod instances;
mod lifecycle;
mod limits;
mod metrics;
mod orders;
mod outage;
