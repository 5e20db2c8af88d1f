//! The test suites, as `cargo xtask ci` runs them.

use crate::{run, run_with_env};

/// Every test of the workspace, then the end-to-end suite again on
/// PostgreSQL (a private cluster the tests start themselves).
pub fn all() -> Result<(), String> {
    run("cargo", &["test", "--workspace", "--all-targets"])?;
    run_with_env(
        "cargo",
        &["test", "--package", "petstore-server", "--test", "api"],
        &[("PETSTORE_TEST_DATABASE", "postgres")],
    )
}
