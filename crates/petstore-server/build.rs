//! The migrations are embedded by `sqlx::migrate!` at compile time: a
//! migration added or edited must rebuild the crate.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
