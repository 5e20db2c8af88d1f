//! The pet store's API from its spec, and a partner's reports API whose
//! client gets OAuth 2 tokens itself, into `OUT_DIR`: `src/lib.rs`
//! includes them. Cargo runs this again when a spec, a file it refers to,
//! or this crate's manifest changes.

fn main() {
    apigen::build::Builder::new("../../spec/openapi.yaml")
        // The workspace's runtime crate, named in Cargo.toml, instead of a
        // copy of its sources in OUT_DIR.
        .runtime(apigen::build::Runtime::Crate)
        // The spec's one note (how event data is read) is the generator's
        // to say once, in `cargo xtask codegen`, not on every build.
        .notes(false)
        .generate();
    // The document the client's OAuth tests use (tests/tests/oauth.rs):
    // a `partner` scheme with a client credentials flow.
    apigen::build::Builder::new("../../crates/apigen/tests/snapshots/partner_reports.yaml")
        .module("partner")
        .runtime(apigen::build::Runtime::Crate)
        .generate();
}
