//! The sources of `apigen-runtime`, for a generated crate that carries its
//! own copy ([`crate::Runtime::Vendored`]). The crate itself is the one
//! place they are written, compiled and tested; this only embeds them.

/// The runtime crate's sources, by file name, with their text.
macro_rules! sources {
    ($($file:literal),* $(,)?) => {
        &[$(($file, include_str!(concat!("../../../apigen-runtime/src/", $file)))),*]
    };
}

/// Each source file of the runtime crate, by name, with its text.
pub const SOURCES: &[(&str, &str)] = sources![
    "lib.rs",
    "body.rs",
    "client.rs",
    "context.rs",
    "decide.rs",
    "fields.rs",
    "form.rs",
    "operation.rs",
    "params.rs",
    "rejection.rs",
    "response.rs",
    "style.rs",
    "validate.rs",
    "values.rs",
];

/// The features and dependencies a crate with a vendored runtime needs: its
/// generated code's and the runtime's own, at the versions this workspace
/// builds with. A test keeps the list in step with `apigen-runtime`'s
/// manifest.
pub const MANIFEST_DEPENDENCIES: &str = r#"[features]
default = ["server"]
# The actix-web glue and the route traits.
server = ["dep:actix-web", "dep:actix-service", "dep:futures-util", "dep:tracing"]
# A typed client (reqwest, with rustls).
client = ["dep:reqwest", "dep:tokio", "uuid/v4", "dep:fastrand", "dep:tracing"]

[dependencies]
actix-service = { version = "2", optional = true }
actix-web = { version = "4", default-features = false, features = ["macros"], optional = true }
base64 = "0.22"
chrono = { version = "0.4", default-features = false, features = ["std", "clock", "serde"] }
fastrand = { version = "2", optional = true }
form_urlencoded = "1"
futures-util = { version = "0.3", default-features = false, optional = true }
http = "0.2"
regex = { version = "1", default-features = false, features = ["std", "unicode-perl"] }
reqwest = { version = "0.12", default-features = false, features = ["rustls-tls", "multipart"], optional = true }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
tokio = { version = "1", default-features = false, features = ["time"], optional = true }
tracing = { version = "0.1", optional = true }
# `format: uuid` in models, and the client's idempotency keys (v4).
uuid = { version = "1", default-features = false, features = ["serde"] }
"#;

/// The file a runtime source becomes in the generated module: the crate
/// root is the module's `mod.rs`.
pub fn file_name(source: &str) -> &str {
    if source == "lib.rs" {
        "mod.rs"
    } else {
        source
    }
}

#[cfg(test)]
mod tests {
    use super::SOURCES;

    /// A dependency added to the runtime crate is one of a vendoring
    /// crate's too.
    #[test]
    fn vendoring_crates_get_every_runtime_dependency() {
        let manifest = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../apigen-runtime/Cargo.toml"),
        )
        .unwrap();
        let dependencies = manifest
            .split("[dependencies]")
            .nth(1)
            .unwrap()
            .split("\n[")
            .next()
            .unwrap();
        for line in dependencies.lines().filter(|l| !l.starts_with('#')) {
            let name: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if name.is_empty() {
                continue;
            }
            assert!(
                super::MANIFEST_DEPENDENCIES.contains(&format!("\n{name} = ")),
                "{name} is missing from MANIFEST_DEPENDENCIES"
            );
        }
    }

    /// A module added to the runtime crate is vendored too.
    #[test]
    fn every_runtime_source_is_vendored() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../apigen-runtime/src");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut vendored: Vec<String> = SOURCES.iter().map(|(n, _)| n.to_string()).collect();
        vendored.sort();
        assert_eq!(vendored, on_disk);
    }
}
