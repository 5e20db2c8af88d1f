//! The evolution gate's levels agree with what a generated client
//! tolerates: for every change to responses the gate calls harmless, a
//! client generated from a base document reads the answers of a server
//! generated from the revision (the `evolution_base` and
//! `evolution_revision` snapshots, over HTTP). The test first asks the
//! gate what the pair changes, so that a rule whose level moves, or a
//! harmless response rule the pair does not exercise, fails here.

use actix_web::{web, App, HttpServer};
use apigen::diff::{diff, Document, Level};
use petstore_tests::evolution_base as base;
use petstore_tests::evolution_revision as revision;
use std::collections::BTreeSet;

/// The harmless response rules the pair exercises, each checked below.
const TOLERATED: &[&str] = &[
    "response-property-added",
    "response-optional-property-removed",
    "response-optional-header-removed",
    "response-non-success-status-removed",
    "response-status-added",
    "response-body-added",
];

fn snapshot(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/apigen/tests/snapshots")
        .join(format!("{name}.yaml"))
}

#[test]
fn the_gate_calls_each_of_these_changes_harmless() {
    let base = Document::read(&snapshot("evolution_base")).expect("the base reads");
    let revision = Document::read(&snapshot("evolution_revision")).expect("the revision reads");
    let report = diff(&base, &revision, "2026-11-27");
    let info: BTreeSet<String> = report
        .findings
        .iter()
        .filter(|f| f.level == Level::Info)
        .map(|f| f.rule.id())
        .collect();
    let expected: BTreeSet<String> = TOLERATED.iter().map(|r| r.to_string()).collect();
    assert_eq!(info, expected, "{report:?}");
    // Every harmless response rule the gate has is exercised here.
    let harmless: BTreeSet<String> = apigen::diff::rules::Rule::all()
        .into_iter()
        .filter(|r| r.severity() == apigen::diff::rules::Severity::Info)
        .map(|r| r.id())
        .filter(|id| id.starts_with("response-"))
        .collect();
    assert_eq!(
        harmless, expected,
        "a harmless response rule without a case"
    );
    // The one more change, an enum value added, is a warning (another
    // make of client may break); this client keeps the value anyway.
    assert!(report
        .findings
        .iter()
        .any(|f| f.rule.id() == "response-property-enum-value-added" && f.level == Level::Warning));
}

/// A server generated from the revision.
#[derive(Debug)]
struct Revision;

impl revision::operations::Things for Revision {
    async fn get_thing(
        &self,
        request: revision::operations::GetThingRequest,
        _context: revision::runtime::RequestContext,
    ) -> Result<revision::operations::GetThingResponse, revision::operations::ErrorResponse> {
        use revision::models::{Thing, ThingKind};
        use revision::operations::GetThingResponse;
        Ok(match request.id {
            1 => GetThingResponse::Ok(Thing {
                id: 1,
                kind: ThingKind::Huge,
                made: Some(
                    chrono::DateTime::parse_from_rfc3339("2026-11-27T12:00:00Z")
                        .unwrap()
                        .with_timezone(&chrono::Utc),
                ),
            }),
            _ => GetThingResponse::Accepted,
        })
    }
}

impl revision::operations::Ping for Revision {
    async fn ping(
        &self,
        _request: revision::operations::PingRequest,
        _context: revision::runtime::RequestContext,
    ) -> Result<revision::operations::PingResponse, revision::operations::ErrorResponse> {
        Ok(revision::operations::PingResponse::Ok("pong".into()))
    }
}

impl revision::server::Rejections for Revision {
    fn reject(
        &self,
        rejection: revision::runtime::Rejection,
    ) -> revision::operations::ErrorResponse {
        revision::operations::ErrorResponse::new(
            rejection.status(),
            serde_json::json!({ "message": rejection.to_string() }),
        )
    }
}

/// The revision's server on a free port, and a client of the base.
async fn serve() -> base::client::Client {
    let service = web::Data::new(Revision);
    let http = HttpServer::new(move || {
        App::new().configure(|cfg| revision::server::configure(cfg, service.clone()))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .expect("a port");
    let address = http.addrs()[0];
    actix_web::rt::spawn(http.run());
    base::client::Client::new(&format!("http://{address}")).expect("a client")
}

#[actix_web::test]
async fn a_client_of_the_base_reads_the_revisions_answers() {
    let client = serve().await;
    let request = |id| base::operations::GetThingRequest { id };
    // A property added (`made`, to an object that allowed no others), an
    // optional one removed (`note`), an enum value added (`huge`, kept),
    // an optional header removed (`X-Trace`).
    match client.get_thing(request(1)).await.unwrap().into_inner() {
        base::operations::GetThingResponse::Ok { body, x_trace } => {
            assert_eq!(body.id, 1);
            assert_eq!(body.note, None);
            assert_eq!(body.kind.as_str(), "huge");
            assert!(matches!(body.kind, base::models::ThingKind::Unknown(_)));
            assert_eq!(x_trace, None);
        }
        other => panic!("expected the thing, got {other:?}"),
    }
    // A status added: the base cannot type it, and hands the answer back
    // whole (its status, headers and body) as undeclared.
    match client.get_thing(request(2)).await {
        Err(base::runtime::ClientError::Undeclared(answer)) => assert_eq!(answer.status, 202),
        other => panic!("expected the 202 as undeclared, got {other:?}"),
    }
    // A body added where the base expects none: read, and not in the way.
    let pong = client
        .ping(base::operations::PingRequest::default())
        .await
        .unwrap();
    assert!(matches!(
        pong.into_inner(),
        base::operations::PingResponse::Ok
    ));
    // The 404 the revision no longer declares is never sent: nothing to
    // read. Strictly, the base refuses what the revision sends: the
    // tolerance is the client's default, not the spec's.
    let strict = client.strict();
    assert!(strict.get_thing(request(1)).await.is_err());
}
