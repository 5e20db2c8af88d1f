//! Empty: it exists so that cargo builds xtask's `[build-dependencies]`,
//! which are there only to resolve the compiler side's features as the
//! whole workspace does (see `Cargo.toml`).

fn main() {}
