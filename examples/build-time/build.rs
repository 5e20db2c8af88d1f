//! The pet store's API from its spec, into `OUT_DIR`: `src/lib.rs`
//! includes it. Cargo runs this again when the spec, a file it refers to,
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
}
