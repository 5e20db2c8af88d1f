//! A back end that calls a partner's API with OAuth 2 client credentials:
//! the client generated for `partner_reports.yaml` gets its tokens itself,
//! one per scope set, shared by concurrent calls and renewed before they
//! expire. Nothing here asks for a token.
//!
//! Against the mock, whose token endpoint issues the credential it takes:
//!
//! ```text
//! apigen mock crates/apigen/tests/snapshots/partner_reports.yaml --accept-credential demo-token
//! cargo run -p petstore-build-time --bin client-credentials
//! ```
//!
//! Against a real authorization server (oidc-provider, with a resource
//! server on its origin; `npm ci --prefix tests/oauth` first):
//!
//! ```text
//! node tests/oauth/server.mjs          # listening on http://127.0.0.1:PORT
//! PARTNER_URL=http://127.0.0.1:PORT/v1 cargo run -p petstore-build-time --bin client-credentials
//! ```
//!
//! `PARTNER_URL` is the API's base URL (default `http://127.0.0.1:4010/v1`,
//! the mock's); `PARTNER_CLIENT_ID` and `PARTNER_CLIENT_SECRET` the client's
//! credentials (default `reporting` and `reporting-secret`, the test
//! server's).

use petstore_build_time::partner::client::Client;
use petstore_build_time::partner::models::Report;
use petstore_build_time::partner::operations::{
    CreateReportRequest, CreateReportResponse, ListReportsResponse,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let var = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let base = var("PARTNER_URL", "http://127.0.0.1:4010/v1");
    let client = Client::new(&base)?.with_partner_client_credentials(
        var("PARTNER_CLIENT_ID", "reporting"),
        var("PARTNER_CLIENT_SECRET", "reporting-secret"),
    );
    // Three calls at once: one token request, with `reports:read`.
    let (a, b, c) = tokio::join!(
        client.list_reports(Default::default()),
        client.list_reports(Default::default()),
        client.list_reports(Default::default()),
    );
    for reply in [a?, b?, c?] {
        match reply.into_inner() {
            ListReportsResponse::Ok(reports) => println!("{} report(s)", reports.len()),
            other => return Err(format!("listing reports: {other:?}").into()),
        }
    }

    // Another scope, another token: `reports:write`.
    let filed = client
        .create_report(CreateReportRequest {
            body: Report {
                id: None,
                title: "Third quarter".into(),
            },
        })
        .await?;
    match filed.into_inner() {
        CreateReportResponse::Created(report) => println!("filed {:?}", report.title),
        other => return Err(format!("filing a report: {other:?}").into()),
    }
    Ok(())
}
