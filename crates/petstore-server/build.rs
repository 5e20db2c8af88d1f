//! The migrations are embedded at compile time: `migrations.rs` in
//! `OUT_DIR` lists each backend's files (`<VERSION>_<DESCRIPTION>.sql`, in
//! version order) as `include_str!`s, which `store::setup` hands to sqlx's
//! migrator. A migration added or edited rebuilds the crate.
//!
//! sqlx's own `migrate!` macro does the same, but needs sqlx's `macros`
//! feature, which compiles sqlx's compile-time query checker and with it a
//! second sqlx, PostgreSQL driver and SQLite (its C source) for the host:
//! about 40 s of CPU in every build, for a list of files.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    let mut out = String::new();
    for (constant, dir) in [("SQLITE", "sqlite"), ("POSTGRES", "postgres")] {
        let _ = writeln!(
            out,
            "/// `migrations/{dir}`: each file's version, description and SQL.\n\
             pub const {constant}: &[(i64, &str, &str)] = &["
        );
        for (version, description, file) in migrations(&Path::new("migrations").join(dir)) {
            let _ = writeln!(
                out,
                "    ({version}, {description:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/migrations/{dir}/{file}\"))),"
            );
        }
        out.push_str("];\n");
    }
    let target =
        Path::new(&std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("migrations.rs");
    std::fs::write(&target, out).expect("OUT_DIR is writable");
}

/// The migrations in `dir`, named as sqlx names them: version, description
/// (the name's rest, `_` read as a space), file name; by version.
fn migrations(dir: &Path) -> Vec<(i64, String, String)> {
    let mut found = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let name = entry.expect("a directory entry").file_name();
        let name = name
            .to_str()
            .expect("migration names are UTF-8")
            .to_string();
        let Some(stem) = name.strip_suffix(".sql") else {
            continue;
        };
        assert!(
            !stem.ends_with(".up") && !stem.ends_with(".down"),
            "{name}: reversible migrations are not embedded; the store's are simple"
        );
        let (version, description) = stem
            .split_once('_')
            .unwrap_or_else(|| panic!("{name}: expected <VERSION>_<DESCRIPTION>.sql"));
        let version: i64 = version
            .parse()
            .unwrap_or_else(|_| panic!("{name}: the version is not an integer"));
        found.push((version, description.replace('_', " "), name));
    }
    found.sort();
    found
}
