//! The generator's snapshot outputs, compiled. Each module below is the
//! checked-in expected output of one `crates/apigen/tests/snapshots/*.yaml`;
//! building this crate under `clippy -D warnings` proves every snapshot is
//! warning-free Rust.

#![deny(warnings)]

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/composition/mod.rs"]
pub mod composition;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/unions/mod.rs"]
pub mod unions;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/formats/mod.rs"]
pub mod formats;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/parameters/mod.rs"]
pub mod parameters;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/lifecycle/mod.rs"]
pub mod lifecycle;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/real_world/mod.rs"]
pub mod real_world;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/security/mod.rs"]
pub mod security;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/hygiene/mod.rs"]
pub mod hygiene;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/errors/mod.rs"]
pub mod errors;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/references/mod.rs"]
pub mod references;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/statuses/mod.rs"]
pub mod statuses;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/oneof/mod.rs"]
pub mod oneof;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/param_shapes/mod.rs"]
pub mod param_shapes;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/empty/mod.rs"]
pub mod empty;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/bare/mod.rs"]
pub mod bare;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/v31_nullability/mod.rs"]
pub mod v31_nullability;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/v31_keywords/mod.rs"]
pub mod v31_keywords;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/v31_structure/mod.rs"]
pub mod v31_structure;

#[rustfmt::skip]
#[path = "../../crates/apigen/tests/snapshots/v31_document/mod.rs"]
pub mod v31_document;
