//! The generator's snapshot outputs, compiled. Each module is the checked-in
//! expected output of one `crates/apigen/tests/snapshots/*.yaml`, listed by
//! `build.rs` from the directory; building this crate under
//! `clippy -D warnings` proves every snapshot is warning-free Rust.

#![deny(warnings)]

include!(concat!(env!("OUT_DIR"), "/snapshots.rs"));
