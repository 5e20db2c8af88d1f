//! End-to-end tests that run once, whatever database the `api` suite was
//! asked for: each chooses its own (a SQLite file, a private PostgreSQL
//! cluster, or several server processes on one) or needs none. The server
//! as a process (its command line, SIGTERM), at the socket (slow and
//! hostile clients), on a full or locked disk, across instances, through
//! PostgreSQL outages, and its reference page in a browser.

// Shared with the `api` suite; each uses part of them.
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

mod abuse;
mod browser;
mod cli;
mod contract_checks;
mod disk;
mod instances;
mod limiter;
mod outage;
mod shutdown;
