//! Writes the features and dependencies of a crate that carries the
//! runtime's sources (`Runtime::Vendored`) from the runtime's own manifest,
//! so that they are never copied by hand: `apigen-runtime/Cargo.toml`'s
//! `[features]` and `[dependencies]` (workspace-inherited ones resolved
//! from the workspace's manifest), with what generated code needs besides
//! (`[package.metadata.apigen.generated-code]`). A dependency the runtime
//! takes as optional and generated code always needs becomes required; the
//! features that enabled it (`dep:uuid`) then enable what the runtime asked
//! of it (`uuid/v4`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use toml::{Table, Value};

fn read(path: &Path) -> Table {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{} is not TOML: {e}", path.display()))
}

/// A dependency as the vendoring crate declares it.
#[derive(Debug, Clone, Default)]
struct Dependency {
    version: String,
    default_features: bool,
    features: Vec<String>,
    optional: bool,
}

fn dependency(spec: &Value, workspace: &Table, name: &str) -> Dependency {
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    match spec {
        Value::String(version) => Dependency {
            version: version.clone(),
            default_features: true,
            ..Dependency::default()
        },
        Value::Table(table) => {
            let inherited = table.get("workspace").and_then(Value::as_bool) == Some(true);
            let mut dep = if inherited {
                let from = workspace
                    .get(name)
                    .unwrap_or_else(|| panic!("`{name}` is not a workspace dependency"));
                dependency(from, workspace, name)
            } else {
                Dependency {
                    version: table
                        .get("version")
                        .and_then(Value::as_str)
                        .unwrap_or_else(|| panic!("`{name}` has no version"))
                        .to_string(),
                    default_features: table
                        .get("default-features")
                        .and_then(Value::as_bool)
                        .unwrap_or(true),
                    ..Dependency::default()
                }
            };
            for feature in strings(table.get("features")) {
                if !dep.features.contains(&feature) {
                    dep.features.push(feature);
                }
            }
            dep.optional = table
                .get("optional")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            dep
        }
        other => panic!("`{name}` = {other:?} is not a dependency"),
    }
}

fn main() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let runtime = read(&here.join("../apigen-runtime/Cargo.toml"));
    let root = read(&here.join("../../Cargo.toml"));
    let workspace = root
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(Value::as_table)
        .cloned()
        .unwrap_or_default();

    let mut deps: BTreeMap<String, Dependency> = BTreeMap::new();
    for (name, spec) in runtime["dependencies"].as_table().expect("[dependencies]") {
        deps.insert(name.clone(), dependency(spec, &workspace, name));
    }
    // What generated code needs: required, whatever the runtime says.
    let generated = runtime
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("apigen"))
        .and_then(|a| a.get("generated-code"))
        .and_then(Value::as_table)
        .cloned()
        .unwrap_or_default();
    // `dep:X` -> `X/f` for each feature the runtime asked of a dependency
    // that generated code makes required.
    let mut promoted: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, spec) in &generated {
        let needed = dependency(spec, &workspace, name);
        match deps.get_mut(name) {
            Some(dep) if dep.optional => {
                let extra: Vec<String> = dep
                    .features
                    .iter()
                    .filter(|f| !needed.features.contains(f))
                    .cloned()
                    .collect();
                promoted.insert(name.clone(), extra);
                *dep = Dependency {
                    optional: false,
                    ..needed
                };
            }
            Some(dep) => {
                for f in needed.features {
                    if !dep.features.contains(&f) {
                        dep.features.push(f);
                    }
                }
            }
            None => {
                deps.insert(name.clone(), needed);
            }
        }
    }

    let mut out = String::from("[features]\n");
    for (feature, enables) in runtime["features"].as_table().expect("[features]") {
        let enables: Vec<String> = enables
            .as_array()
            .expect("a feature is a list")
            .iter()
            .filter_map(Value::as_str)
            .flat_map(|e| {
                match e
                    .strip_prefix("dep:")
                    .and_then(|d| promoted.get(d).map(|f| (d, f)))
                {
                    Some((dep, features)) => {
                        features.iter().map(|f| format!("{dep}/{f}")).collect()
                    }
                    None => vec![e.to_string()],
                }
            })
            .map(|e| format!("{e:?}"))
            .collect();
        let _ = writeln!(out, "{feature} = [{}]", enables.join(", "));
    }
    out.push_str("\n[dependencies]\n");
    for (name, dep) in &deps {
        let mut parts = vec![format!("version = {:?}", dep.version)];
        if !dep.default_features {
            parts.push("default-features = false".into());
        }
        if !dep.features.is_empty() {
            let features: Vec<String> = dep.features.iter().map(|f| format!("{f:?}")).collect();
            parts.push(format!("features = [{}]", features.join(", ")));
        }
        if dep.optional {
            parts.push("optional = true".into());
        }
        let _ = writeln!(out, "{name} = {{ {} }}", parts.join(", "));
    }
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("manifest_dependencies.toml");
    std::fs::write(target, out).expect("write the vendored manifest");
}
