//! The sources of `apigen-runtime`, for a generated crate that carries its
//! own copy ([`crate::Runtime::Vendored`]). The crate itself is the one
//! place they are written, compiled and tested; this only embeds them.

/// Each source file of the runtime crate, by name, with its text.
pub const SOURCES: &[(&str, &str)] = &[
    ("lib.rs", include_str!("../../../apigen-runtime/src/lib.rs")),
    (
        "body.rs",
        include_str!("../../../apigen-runtime/src/body.rs"),
    ),
    (
        "context.rs",
        include_str!("../../../apigen-runtime/src/context.rs"),
    ),
    (
        "fields.rs",
        include_str!("../../../apigen-runtime/src/fields.rs"),
    ),
    (
        "form.rs",
        include_str!("../../../apigen-runtime/src/form.rs"),
    ),
    (
        "operation.rs",
        include_str!("../../../apigen-runtime/src/operation.rs"),
    ),
    (
        "params.rs",
        include_str!("../../../apigen-runtime/src/params.rs"),
    ),
    (
        "rejection.rs",
        include_str!("../../../apigen-runtime/src/rejection.rs"),
    ),
    (
        "response.rs",
        include_str!("../../../apigen-runtime/src/response.rs"),
    ),
    (
        "validate.rs",
        include_str!("../../../apigen-runtime/src/validate.rs"),
    ),
];

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
