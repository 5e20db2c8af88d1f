//! The features and dependencies of a crate generated against the runtime
//! (`crates/apigen/runtime/dependencies.toml`), written by `cargo xtask
//! codegen` from the runtime's own manifest and checked by `--check`, so
//! that they are never copied by hand and the generator's package carries
//! them (a build script could not read a manifest outside its package).
//!
//! Read through `cargo metadata`, which resolves workspace inheritance:
//! the runtime's `[features]` and `[dependencies]`, with what generated
//! code needs besides (`[package.metadata.apigen.generated-code]`). A
//! dependency the runtime takes as optional and generated code always
//! needs becomes required; the features that enabled it (`dep:uuid`) then
//! enable what the runtime asked of it (`uuid/v4`).

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Where the generator's package carries the fragment.
pub const PATH: &str = "crates/apigen/runtime/dependencies.toml";

/// Where it carries the dependencies of the derives' crate, for the copy
/// of it that a vendoring crate holds (`apigen-macros`, whose sources sit
/// beside this file).
pub const MACROS_PATH: &str = "crates/apigen/runtime/macros/dependencies.toml";

/// A dependency as the generated crate declares it.
#[derive(Debug, Clone, Default)]
struct Dependency {
    version: String,
    default_features: bool,
    features: Vec<String>,
    optional: bool,
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Each fragment's path and text, from the manifests as they are now.
pub fn files() -> Result<[(&'static str, String); 2], String> {
    let packages = crate::workspace_packages()?;
    let package = |name: &str| {
        packages
            .iter()
            .find(|p| p["name"] == name)
            .ok_or_else(|| format!("{name} is not a workspace member"))
    };
    Ok([
        (PATH, render(package("apigen-runtime")?)),
        (MACROS_PATH, render_macros(package("apigen-macros")?)),
    ])
}

/// The `[dependencies]` of the derives' crate.
fn render_macros(macros: &Value) -> String {
    let mut out = String::from(
        "# The dependencies of the derives' crate a vendoring crate carries:\n\
         # written by `cargo xtask codegen` from crates/apigen-macros/Cargo.toml.\n\
         [dependencies]\n",
    );
    dependency_lines(&mut out, &dependencies(macros));
    out
}

/// A package's normal dependencies by the name it uses, but those of this
/// workspace (the derives' crate, which a vendoring crate carries as a
/// copy, and a crate on the runtime gets through it).
fn dependencies(package: &Value) -> BTreeMap<String, Dependency> {
    let mut deps = BTreeMap::new();
    for dep in package["dependencies"].as_array().into_iter().flatten() {
        // Dev- and build-dependencies are the package's own.
        if !dep["kind"].is_null() || !dep["path"].is_null() {
            continue;
        }
        let req = dep["req"].as_str().unwrap_or_default();
        let name = dep["rename"]
            .as_str()
            .or(dep["name"].as_str())
            .unwrap_or_default();
        deps.insert(
            name.to_string(),
            Dependency {
                version: req.strip_prefix('^').unwrap_or(req).to_string(),
                default_features: dep["uses_default_features"].as_bool().unwrap_or(true),
                features: strings(&dep["features"]),
                optional: dep["optional"].as_bool().unwrap_or(false),
            },
        );
    }
    deps
}

/// A `name = { version = ..., ... }` line per dependency.
fn dependency_lines(out: &mut String, deps: &BTreeMap<String, Dependency>) {
    for (name, dep) in deps {
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
}

fn render(runtime: &Value) -> String {
    let mut deps = dependencies(runtime);
    // What generated code needs: required, whatever the runtime says.
    let generated = runtime["metadata"]["apigen"]["generated-code"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    // `dep:X` -> `X/f` for each feature the runtime asked of a dependency
    // that generated code makes required.
    let mut promoted: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, spec) in &generated {
        let needed = Dependency {
            version: spec["version"].as_str().unwrap_or_default().to_string(),
            default_features: spec["default-features"].as_bool().unwrap_or(true),
            features: strings(&spec["features"]),
            optional: false,
        };
        match deps.get_mut(name) {
            Some(dep) if dep.optional => {
                let extra = dep
                    .features
                    .iter()
                    .filter(|f| !needed.features.contains(f))
                    .cloned()
                    .collect();
                promoted.insert(name.clone(), extra);
                *dep = needed;
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

    let mut out = String::from(
        "# The features and dependencies of a crate generated against apigen-runtime:\n\
         # written by `cargo xtask codegen` from crates/apigen-runtime/Cargo.toml.\n\
         [features]\n",
    );
    let features = runtime["features"].as_object().cloned().unwrap_or_default();
    for (feature, enables) in &features {
        let enables: Vec<String> = strings(enables)
            .into_iter()
            .flat_map(|e| {
                match e
                    .strip_prefix("dep:")
                    .and_then(|d| promoted.get(d).map(|f| (d, f)))
                {
                    Some((dep, features)) => {
                        features.iter().map(|f| format!("{dep}/{f}")).collect()
                    }
                    None => vec![e],
                }
            })
            .map(|e| format!("{e:?}"))
            .collect();
        let _ = writeln!(out, "{feature} = [{}]", enables.join(", "));
    }
    out.push_str("\n[dependencies]\n");
    dependency_lines(&mut out, &deps);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// An optional dependency that generated code needs becomes required,
    /// and the feature that turned it on turns on its features instead.
    #[test]
    fn a_dependency_generated_code_needs_is_required_and_its_feature_kept() {
        let runtime = json!({
            "dependencies": [
                {"name": "uuid", "req": "^1", "kind": null, "optional": true,
                 "uses_default_features": false, "features": ["v4"]},
                {"name": "http", "req": "^1", "kind": null, "optional": false,
                 "uses_default_features": true, "features": []},
                {"name": "postcard", "req": "^1", "kind": "dev", "optional": false,
                 "uses_default_features": false, "features": []}
            ],
            "features": {"client": ["dep:uuid", "dep:http"], "default": []},
            "metadata": {"apigen": {"generated-code": {
                "uuid": {"version": "1", "default-features": false, "features": ["serde"]},
                "chrono": {"version": "0.4"}
            }}}
        });
        let text = super::render(&runtime);
        assert!(
            text.contains("client = [\"uuid/v4\", \"dep:http\"]\n"),
            "{text}"
        );
        assert!(text.contains(
            "uuid = { version = \"1\", default-features = false, features = [\"serde\"] }\n"
        ));
        assert!(text.contains("chrono = { version = \"0.4\" }\n"), "{text}");
        assert!(text.contains("http = { version = \"1\" }\n"), "{text}");
        assert!(!text.contains("postcard"), "{text}");
    }
}
