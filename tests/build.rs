//! Every generator snapshot (`crates/apigen/tests/snapshots/NAME.yaml`) is a
//! module of this crate, found by listing the directory: a new snapshot is
//! compiled without editing a list.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/apigen/tests/snapshots");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the snapshot directory")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "yaml").then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .filter(|name| dir.join(name).join("mod.rs").exists())
        .collect();
    names.sort();
    let mut out = String::new();
    for name in names {
        let module = dir.join(&name).join("mod.rs");
        let _ = writeln!(
            out,
            "#[rustfmt::skip]\n#[path = {:?}]\npub mod {name};\n",
            module
                .canonicalize()
                .unwrap_or(module)
                .display()
                .to_string()
        );
    }
    let target = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("snapshots.rs");
    std::fs::write(target, out).expect("write the module list");
}
