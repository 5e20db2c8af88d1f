//! The pet store's API, generated at build time from `spec/openapi.yaml`
//! by `build.rs`: the same modules a crate written by `apigen generate`
//! has (`models`, `operations`, `client`, `runtime`, ...), under the same
//! features. Nothing generated is checked in; the next `cargo build` after
//! a spec edit generates it again.

include!(concat!(env!("OUT_DIR"), "/api.rs"));
