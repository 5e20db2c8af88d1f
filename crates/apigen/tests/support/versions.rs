//! Test support for the tests that compare a document across OpenAPI
//! versions. Included by path where it is needed.

/// How both versions of a document are generated: leniently, from the same
/// source name, so that the preambles agree.
pub fn config() -> apigen::Config {
    apigen::Config {
        command: "test".into(),
        source: "spec.yaml".into(),
        lenient: true,
        runtime: apigen::Runtime::Crate,
        group_features: false,
        serde_sides: false,
        check_formats: false,
    }
}
