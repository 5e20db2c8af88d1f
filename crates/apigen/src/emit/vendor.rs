//! The sources of `apigen-runtime`, for a generated crate that carries its
//! own copy ([`crate::Runtime::Vendored`]). The crate itself is the one
//! place they are written, compiled and tested; this only embeds them.
//!
//! They are read from `runtime/src/` in this crate's directory, where each
//! file is a link to the runtime crate's: `cargo package` packs what a link
//! points to, so the generator's package carries the runtime's sources and
//! builds on its own.

/// A vendored crate's sources under `dir`, by file name, with their text.
macro_rules! sources {
    ($dir:literal: $($file:literal),* $(,)?) => {
        &[$(($file, include_str!(concat!($dir, $file)))),*]
    };
}

/// Each source file of the runtime crate, by name, with its text.
pub const SOURCES: &[(&str, &str)] = sources!["../../runtime/src/":
    "lib.rs",
    "actix.rs",
    "axum.rs",
    "body.rs",
    "client.rs",
    "client/error.rs",
    "client/oauth.rs",
    "client/reading.rs",
    "context.rs",
    "credentials.rs",
    "decide.rs",
    "device.rs",
    "events.rs",
    "fields.rs",
    "form.rs",
    "framing.rs",
    "glue.rs",
    "mock.rs",
    "mock_schema.rs",
    "mock_values.rs",
    "operation.rs",
    "paging.rs",
    "params.rs",
    "private.rs",
    "record.rs",
    "rejection.rs",
    "response.rs",
    "retry.rs",
    "style.rs",
    "validate.rs",
    "values.rs",
    "media.rs",
    "vocabulary.rs",
    "webhooks.rs",
];

/// The derives' crate's sources (`apigen-macros`), by file name, with
/// their text: a vendoring crate carries them as a package of its own
/// (`macros/`), as a derive must be a crate.
pub const MACRO_SOURCES: &[(&str, &str)] = sources!["../../runtime/macros/src/":
    "lib.rs",
    "case.rs",
    "enums.rs",
    "model.rs",
    "record.rs",
    "union.rs",
    "validate.rs",
];

/// The `[dependencies]` of the derives' crate, as `cargo xtask codegen`
/// writes them from its manifest (`runtime/macros/dependencies.toml`),
/// without their heading.
pub fn macro_dependencies() -> &'static str {
    let text = include_str!("../../runtime/macros/dependencies.toml");
    text.find("[dependencies]")
        .map_or(text, |start| &text[start..])
}

/// The features and dependencies a crate with a vendored runtime needs:
/// the runtime's own and what its generated code needs, at the versions
/// this workspace builds with: `runtime/dependencies.toml`, which `cargo
/// xtask codegen` writes from the runtime's manifest, without its heading.
pub fn manifest_dependencies() -> &'static str {
    let text = include_str!("../../runtime/dependencies.toml");
    text.find("[features]").map_or(text, |start| &text[start..])
}

/// The file a runtime source becomes in the generated module: the crate
/// root is the module's `mod.rs`.
pub fn file_name(source: &str) -> &str {
    if source == "lib.rs" {
        "mod.rs"
    } else {
        source
    }
}

/// The heading of the crate docs' examples, which name the crate
/// (`apigen_runtime::...`) and so cannot compile in a copy of it.
const EXAMPLES: &str = "//! # Examples";

/// The declaration of a runtime file's unit tests, which live in a file of
/// their own that a copy does not carry.
const TESTS: &str = "\n#[cfg(test)]\nmod tests;\n";

/// A runtime source as the generated module carries it: without the
/// declaration of its unit tests ([`TESTS`]), and the crate root's docs
/// without their examples (from [`EXAMPLES`] to the end of the docs).
pub fn text(source: &str, text: &'static str) -> std::borrow::Cow<'static, str> {
    if let Some(code) = text.strip_suffix(TESTS) {
        return code.into();
    }
    if source != "lib.rs" {
        return text.into();
    }
    let Some(start) = text.find(EXAMPLES) else {
        return text.into();
    };
    let end = text[start..]
        .lines()
        .take_while(|line| line.starts_with("//!"))
        .map(|line| line.len() + 1)
        .sum::<usize>();
    format!(
        "{}//! (Examples: the docs of the `apigen-runtime` crate.)\n{}",
        &text[..start],
        &text[start + end..]
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::SOURCES;

    #[test]
    fn the_copy_of_the_crate_root_has_no_examples_that_name_the_crate() {
        let (name, root) = SOURCES[0];
        assert_eq!(name, "lib.rs");
        assert!(
            root.contains(super::EXAMPLES),
            "the crate docs have examples"
        );
        let copied = super::text(name, root);
        assert!(!copied.contains("apigen_runtime::"), "{copied}");
        assert!(!copied.contains("```"), "{copied}");
        assert!(copied.contains("#![warn(missing_docs)]"), "the code stays");
        let source = |name: &str| SOURCES.iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!(
            super::text("style.rs", source("style.rs")),
            source("style.rs")
        );
        // A file's unit tests stay with the runtime crate.
        let record = super::text("record.rs", source("record.rs"));
        assert!(source("record.rs").ends_with(super::TESTS));
        assert!(!record.contains("mod tests") && record.ends_with("}\n"));
        // No other file's docs name the crate: a copy could not compile them.
        for (name, source) in SOURCES {
            let copied = super::text(name, source);
            assert!(
                !copied.contains("apigen_runtime"),
                "{name} names `apigen_runtime`, which a copy of it is not"
            );
        }
    }

    /// Every dependency of the runtime, as Cargo itself resolves it
    /// (`cargo metadata`, workspace inheritance applied), is one of a
    /// vendoring crate's: the same version requirement, default features
    /// as the runtime takes them, and at least its features.
    #[test]
    fn vendoring_crates_get_every_runtime_dependency_at_its_version_and_features() {
        let out = std::process::Command::new(env!("CARGO"))
            .args([
                "metadata",
                "--format-version",
                "1",
                "--no-deps",
                "--offline",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo metadata runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let package = |name: &str| {
            metadata["packages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("{name} is a workspace member"))
                .clone()
        };
        let vendored: toml::Table = super::manifest_dependencies().parse().unwrap();
        let macros: toml::Table = super::macro_dependencies().parse().unwrap();
        for (package, declared) in [
            (package("apigen-runtime"), &vendored),
            (package("apigen-macros"), &macros),
        ] {
            check(&package, declared);
        }
    }

    /// Each normal dependency of `package` is in `vendored`'s
    /// `[dependencies]` as it asks, with its features there or turned on
    /// by a feature of `vendored`.
    fn check(package: &serde_json::Value, vendored: &toml::Table) {
        let declared = vendored["dependencies"].as_table().unwrap();
        for dep in package["dependencies"].as_array().unwrap() {
            if dep["kind"] != serde_json::Value::Null {
                continue; // dev- and build-dependencies are the package's own
            }
            if dep["path"] != serde_json::Value::Null {
                continue; // the derives' crate: carried as a copy of its own
            }
            let name = dep["name"].as_str().unwrap();
            let ours = declared
                .get(name)
                .unwrap_or_else(|| panic!("{name} is missing"));
            let version = ours["version"].as_str().unwrap();
            assert_eq!(
                format!("^{version}"),
                dep["req"].as_str().unwrap(),
                "{name}: version"
            );
            let default_features = ours
                .get("default-features")
                .and_then(toml::Value::as_bool)
                .unwrap_or(true);
            assert_eq!(
                default_features,
                dep["uses_default_features"].as_bool().unwrap(),
                "{name}: default features"
            );
            let features: Vec<&str> = ours
                .get("features")
                .and_then(toml::Value::as_array)
                .map(|a| a.iter().filter_map(toml::Value::as_str).collect())
                .unwrap_or_default();
            for feature in dep["features"].as_array().unwrap() {
                let feature = feature.as_str().unwrap();
                let enabled = features.contains(&feature)
                    || vendored
                        .get("features")
                        .and_then(toml::Value::as_table)
                        .into_iter()
                        .flat_map(toml::Table::values)
                        .flat_map(|v| v.as_array().unwrap())
                        .any(|e| e.as_str() == Some(&format!("{name}/{feature}")));
                assert!(enabled, "{name}: feature {feature}");
            }
        }
    }

    /// A module added to the runtime crate is vendored too, and each
    /// vendored file is a link to the runtime's own (`runtime/src/`), so
    /// that the two cannot differ.
    #[test]
    fn every_runtime_source_is_vendored() {
        use std::path::Path;
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        vendored(here, "apigen-runtime", "runtime/src", SOURCES);
        vendored(
            here,
            "apigen-macros",
            "runtime/macros/src",
            super::MACRO_SOURCES,
        );
    }

    /// Every source of the crate `name` but its unit tests is in `sources`,
    /// and linked from `links` in this crate's directory.
    fn vendored(here: &std::path::Path, name: &str, links: &str, listed: &[(&str, &str)]) {
        use std::path::Path;
        let dir = here.join("..").join(name).join("src");
        // A file's unit tests (`client/tests.rs`) are not carried.
        fn sources(dir: &Path, under: &str, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if path.is_dir() {
                    sources(&path, &format!("{under}{name}/"), out);
                } else if name != "tests.rs" {
                    out.push(format!("{under}{name}"));
                }
            }
        }
        let mut on_disk = Vec::new();
        sources(&dir, "", &mut on_disk);
        on_disk.sort();
        let mut vendored: Vec<String> = listed.iter().map(|(n, _)| n.to_string()).collect();
        vendored.sort();
        assert_eq!(vendored, on_disk, "{name}");
        let mut linked = Vec::new();
        sources(&here.join(links), "", &mut linked);
        linked.sort();
        assert_eq!(linked, on_disk, "{links}/ links every source of {name}");
        for file in &linked {
            let link = here.join(links).join(file);
            let target = std::fs::read_link(&link)
                .unwrap_or_else(|e| panic!("{links}/{file} is not a link: {e}"));
            assert_eq!(
                link.parent().unwrap().join(target).canonicalize().unwrap(),
                dir.join(file).canonicalize().unwrap(),
                "{links}/{file} links the file of {name}"
            );
        }
    }
}
