//! OAuth 2 in the generated client, against a real authorization server:
//! `tests/oauth/server.mjs`, oidc-provider (a certified implementation)
//! with a resource server on its origin that takes only the tokens it
//! issued and still holds. Clients of two snapshots: `partner_reports` (a `partner`
//! scheme with a client credentials flow, a `user` scheme whose tokens a
//! refresh token renews) and `tour32` (a device flow; a scheme whose
//! authorization server's metadata names its token endpoint).
//!
//! The server needs Node.js and `npm ci --prefix tests/oauth`, which
//! `.ci/run` installs. Without them these tests say so and pass, unless
//! `PETSTORE_REQUIRE_OAUTH_SERVER` is set (as `.ci/run` sets it).

use petstore_tests::{partner_reports as partner, tour32};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The authorization and resource server, running; stopped on drop.
struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    origin: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts the server, taking only `auth_method` from clients (both
    /// when `None`); `None` when Node.js or the server's packages are not
    /// installed and nothing requires them.
    fn start(auth_method: Option<&str>) -> Option<Server> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("oauth");
        let missing = if !dir.join("node_modules/oidc-provider").is_dir() {
            Some("its packages are not installed (`npm ci --prefix tests/oauth`)")
        } else if Command::new("node").arg("--version").output().is_err() {
            Some("Node.js is not installed")
        } else {
            None
        };
        if let Some(why) = missing {
            assert!(
                std::env::var_os("PETSTORE_REQUIRE_OAUTH_SERVER").is_none(),
                "PETSTORE_REQUIRE_OAUTH_SERVER is set, and the OAuth test server cannot run: {why}"
            );
            eprintln!("skipped: the OAuth test server cannot run: {why}");
            return None;
        }
        let mut command = Command::new("node");
        command
            .arg("server.mjs")
            .args(auth_method)
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().expect("node starts");
        let stdout = child.stdout.take().expect("its output");
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .expect("the server says where it listens");
        // The rest is read and dropped: the server must not write into a
        // closed pipe.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let origin = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("not the server's first line: {line:?}"))
            .to_string();
        Some(Server { child, origin })
    }

    /// What the server has seen: token requests (`grants`) and API calls
    /// (`api`).
    async fn log(&self) -> Value {
        reqwest::get(format!("{}/control/log", self.origin))
            .await
            .expect("the log")
            .bytes()
            .await
            .map(|b| serde_json::from_slice(&b).expect("JSON"))
            .expect("read")
    }

    /// The token requests of `grant_type` the server has seen.
    async fn grants(&self, grant_type: &str) -> Vec<Value> {
        let log = self.log().await;
        log["grants"]
            .as_array()
            .expect("grants")
            .iter()
            .filter(|g| g["grant_type"] == grant_type)
            .cloned()
            .collect()
    }

    /// The API calls the server refused with 401.
    async fn refused(&self) -> Vec<Value> {
        let log = self.log().await;
        let calls = log["api"].as_array().expect("calls");
        calls
            .iter()
            .filter(|c| c["status"] == 401)
            .cloned()
            .collect()
    }

    /// The token the API saw last.
    async fn last_token(&self) -> String {
        let log = self.log().await;
        let calls = log["api"].as_array().expect("calls");
        calls.last().expect("a call")["token"]
            .as_str()
            .expect("a token")
            .to_string()
    }

    /// Revokes `token` as `client` with its `secret` (RFC 7009).
    async fn revoke(&self, token: &str, client: &str, secret: &str) {
        let status = reqwest::Client::new()
            .post(format!("{}/oauth/revoke", self.origin))
            .basic_auth(client, Some(secret))
            .form(&[("token", token)])
            .send()
            .await
            .expect("revoked")
            .status();
        assert_eq!(status, 200, "revocation");
    }

    /// Waits until the server no longer takes `token`: it answers at the
    /// token's expiry.
    async fn until_expired(&self, token: &str) {
        let answer = reqwest::get(format!("{}/control/expired?token={token}", self.origin))
            .await
            .expect("asked")
            .bytes()
            .await
            .expect("read");
        let answer: Value = serde_json::from_slice(&answer).expect("JSON");
        assert_eq!(answer["expired"], true);
    }
}

fn reports_client(server: &Server) -> partner::client::Client {
    partner::client::Client::new(&format!("{}/v1", server.origin)).expect("a client")
}

fn report(title: &str) -> partner::operations::CreateReportRequest {
    partner::operations::CreateReportRequest {
        body: partner::models::Report {
            id: None,
            title: title.into(),
        },
    }
}

/// Five calls at once with no token yet make one token request, with the
/// scope their operation requires; another operation's scope is another
/// token.
#[actix_web::test]
async fn concurrent_first_calls_share_one_token_request() {
    let Some(server) = Server::start(None) else {
        return;
    };
    let client =
        reports_client(&server).with_partner_client_credentials("reporting", "reporting-secret");
    let calls = (0..5).map(|_| client.list_reports(Default::default()));
    for reply in futures_util::future::join_all(calls).await {
        let reports = reply.expect("an answer").into_inner();
        assert!(
            matches!(reports, partner::operations::ListReportsResponse::Ok(ref r) if r.len() == 1),
            "{reports:?}"
        );
    }
    let grants = server.grants("client_credentials").await;
    assert_eq!(
        grants.len(),
        1,
        "one token request for five calls: {grants:?}"
    );
    assert_eq!(grants[0]["scope"], "reports:read");
    assert_eq!(grants[0]["basic"], true, "client_secret_basic by default");
    assert_eq!(grants[0]["outcome"], "issued");

    let filed = client.create_report(report("Second quarter")).await;
    assert!(matches!(
        filed.expect("filed").into_inner(),
        partner::operations::CreateReportResponse::Created(_)
    ));
    let grants = server.grants("client_credentials").await;
    assert_eq!(grants.len(), 2, "{grants:?}");
    assert_eq!(grants[1]["scope"], "reports:write");
    client.list_reports(Default::default()).await.expect("read");
    assert_eq!(
        server.grants("client_credentials").await.len(),
        2,
        "each scope set's token is kept"
    );
    let shown = format!("{client:?}");
    assert!(
        !shown.contains("reporting-secret") && !shown.contains(&server.last_token().await),
        "{shown}"
    );
}

/// A token revoked before it is due is refused with 401 `invalid_token`:
/// the client renews it once and sends the call again.
#[actix_web::test]
async fn a_revoked_token_is_renewed_once_and_the_call_sent_again() {
    let Some(server) = Server::start(None) else {
        return;
    };
    let client =
        reports_client(&server).with_partner_client_credentials("reporting", "reporting-secret");
    client.list_reports(Default::default()).await.expect("read");
    let revoked = server.last_token().await;
    server
        .revoke(&revoked, "reporting", "reporting-secret")
        .await;
    // A body is sent again whole.
    let filed = client.create_report(report("After revocation")).await;
    assert!(matches!(
        filed.expect("filed").into_inner(),
        partner::operations::CreateReportResponse::Created(ref r) if r.title == "After revocation"
    ));
    client.list_reports(Default::default()).await.expect("read");
    let refused = server.refused().await;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["token"], revoked.as_str());
    let grants = server.grants("client_credentials").await;
    let scopes: Vec<&str> = grants
        .iter()
        .map(|g| g["scope"].as_str().unwrap())
        .collect();
    assert_eq!(
        scopes,
        ["reports:read", "reports:write", "reports:read"],
        "the write token, then a renewal of the read token after its refusal"
    );
}

/// A token is renewed before it expires, not after the API refuses it.
#[actix_web::test]
async fn a_token_is_renewed_before_it_expires() {
    let Some(server) = Server::start(None) else {
        return;
    };
    // This client's tokens live two seconds; renewed after one.
    let client = reports_client(&server)
        .with_partner_client_credentials("short-lived", "short-lived-secret");
    client.list_reports(Default::default()).await.expect("read");
    let first = server.last_token().await;
    server.until_expired(&first).await;
    client.list_reports(Default::default()).await.expect("read");
    assert_ne!(server.last_token().await, first, "a new token");
    assert_eq!(server.grants("client_credentials").await.len(), 2);
    let refused = server.refused().await;
    assert!(
        refused.is_empty(),
        "no call went out with the expired token: {refused:?}"
    );
}

/// The authorization server's refusals are typed errors with its
/// description: a wrong secret, a scope the client may not have.
#[actix_web::test]
async fn the_servers_refusals_are_authorization_errors() {
    let Some(server) = Server::start(None) else {
        return;
    };
    let client =
        reports_client(&server).with_partner_client_credentials("reporting", "not-the-secret");
    let error = client
        .list_reports(Default::default())
        .await
        .expect_err("a wrong secret");
    match &error {
        partner::runtime::ClientError::Authorization { error, description } => {
            assert_eq!(error, "invalid_client");
            assert!(description.is_some(), "the server's description");
        }
        other => panic!("{other}"),
    }
    assert!(!error.to_string().contains("not-the-secret"), "{error}");
    let grants = server.grants("client_credentials").await;
    assert!(
        (1..=2).contains(&grants.len()),
        "no loop of token requests: {grants:?}"
    );
    assert!(
        server.log().await["api"].as_array().unwrap().is_empty(),
        "no call without a token"
    );

    let client = reports_client(&server).with_partner_client_credentials("reader", "reader-secret");
    client
        .list_reports(Default::default())
        .await
        .expect("the reader reads");
    match client.create_report(report("Not allowed")).await {
        Err(partner::runtime::ClientError::Authorization { error, .. }) => {
            assert_eq!(error, "invalid_scope")
        }
        other => panic!("{other:?}"),
    }
}

/// `client_secret_post` where the authorization server's metadata (RFC
/// 8414, at the scheme's `oauth2MetadataUrl`) lists it and not basic, or
/// where the program asks for it.
#[actix_web::test]
async fn the_client_authenticates_as_the_metadata_says_or_as_asked() {
    let Some(server) = Server::start(Some("client_secret_post")) else {
        return;
    };
    let client = tour32::client::Client::new(&server.origin)
        .expect("a client")
        .with_partner_login_client_credentials("reporting", "reporting-secret");
    let me = client
        .who_am_i(Default::default())
        .await
        .expect("an answer");
    assert_eq!(
        me.into_inner(),
        tour32::operations::WhoAmIResponse::Ok("reporting".into())
    );
    let grants = server.grants("client_credentials").await;
    assert_eq!(grants.len(), 1);
    assert_eq!(grants[0]["basic"], false, "the secret in the form");
    assert_eq!(grants[0]["outcome"], "issued");

    let session =
        partner::runtime::OAuthSession::client_credentials("reporting", "reporting-secret")
            .client_auth(partner::runtime::ClientAuth::SecretPost);
    let client = reports_client(&server).with_partner_session(session);
    client.list_reports(Default::default()).await.expect("read");
    let grants = server.grants("client_credentials").await;
    assert_eq!(grants.len(), 2);
    assert_eq!(grants[1]["basic"], false);
    assert_eq!(grants[1]["outcome"], "issued");
}

/// The device flow's tokens carry their refresh token: a session renews
/// the access token with it before it expires and when the API refuses
/// it, each new token set
/// reaches the program's listener, and a rotated refresh token replaces
/// the old one, which the server no longer takes.
#[actix_web::test]
async fn a_refresh_token_renews_and_its_rotation_is_kept() {
    let Some(server) = Server::start(None) else {
        return;
    };
    let mut device = tour32::client::Client::new(&server.origin).expect("a client");
    let origin = server.origin.clone();
    let tokens = device
        .sign_in_device_login(
            "device",
            &["openid", "offline_access", "read:pets"],
            |code| {
                // The user approves on another device.
                let approve = format!("{origin}/control/approve?user_code={}", code.user_code);
                actix_web::rt::spawn(async move {
                    let approved = reqwest::Client::new().post(approve).send().await;
                    assert_eq!(approved.expect("approved").status(), 200);
                });
            },
        )
        .await
        .expect("signed in");
    let first_refresh = tokens.refresh_token.clone().expect("a refresh token");
    assert!(tokens.expires_at.is_some());
    let me = device
        .who_am_i(Default::default())
        .await
        .expect("an answer");
    assert_eq!(
        me.into_inner(),
        tour32::operations::WhoAmIResponse::Ok("alice".into())
    );

    // The program keeps the set and starts from it, persisting each new one.
    let kept: Arc<Mutex<Vec<partner::runtime::TokenSet>>> = Arc::default();
    let listener = kept.clone();
    let session = partner::runtime::OAuthSession::refresh("device", tokens.clone())
        .token_url("/oauth/token")
        .on_new_tokens(move |set| listener.lock().unwrap().push(set.clone()));
    let client = reports_client(&server).with_user_session(session);
    let subject = |reply: partner::runtime::Reply<partner::operations::WhoAmIResponse>| match reply
        .into_inner()
    {
        partner::operations::WhoAmIResponse::Ok(me) => me.subject,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        subject(client.who_am_i(Default::default()).await.unwrap()),
        "alice"
    );
    assert!(
        server.grants("refresh_token").await.is_empty(),
        "the kept access token serves while it is good"
    );

    // Renewed before it expires (the device's tokens live four seconds),
    // then when the API no longer takes it.
    server.until_expired(&server.last_token().await).await;
    assert_eq!(
        subject(client.who_am_i(Default::default()).await.unwrap()),
        "alice"
    );
    let forget = format!(
        "{}/control/forget?token={}",
        server.origin,
        server.last_token().await
    );
    reqwest::Client::new()
        .post(forget)
        .send()
        .await
        .expect("forgotten");
    assert_eq!(
        subject(client.who_am_i(Default::default()).await.unwrap()),
        "alice"
    );
    let refreshes = server.grants("refresh_token").await;
    assert_eq!(refreshes.len(), 2, "{refreshes:?}");
    assert!(
        refreshes.iter().all(|r| r["outcome"] == "issued"),
        "each refresh used the refresh token in effect: {refreshes:?}"
    );
    let refused = server.refused().await;
    assert_eq!(
        refused.len(),
        1,
        "only the forgotten token was refused: {refused:?}"
    );
    let kept = kept.lock().unwrap().clone();
    assert_eq!(kept.len(), 2, "each new set reached the listener");
    let rotated: Vec<&str> = kept
        .iter()
        .map(|set| set.refresh_token.as_deref().expect("a refresh token"))
        .collect();
    assert!(
        rotated[0] != first_refresh && rotated[1] != rotated[0],
        "rotated each time"
    );
    // The first refresh token was consumed by its rotation.
    let answer = reqwest::Client::new()
        .post(format!("{}/oauth/token", server.origin))
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", first_refresh.as_str()),
            ("client_id", "device"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
    let refusal: Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    assert_eq!(refusal["error"], "invalid_grant");
}

/// A token server that is down is a transport error once the client's
/// retry policy is spent; one that answers 503 is asked again.
#[actix_web::test]
async fn a_token_server_that_is_down_is_a_transport_error_within_the_retry_policy() {
    use actix_web::{web, App, HttpResponse, HttpServer};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let retry = partner::runtime::Retry {
        attempts: 3,
        max_elapsed: Duration::from_secs(10),
        base: Duration::from_millis(10),
        cap: Duration::from_millis(50),
    };
    let closed = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("a port");
    let down = closed.local_addr().unwrap();
    drop(closed);
    let session = partner::runtime::OAuthSession::client_credentials("reporting", "s")
        .token_url(format!("http://{down}/oauth/token"));
    let client = partner::client::Client::new(&format!("http://{down}/v1"))
        .unwrap()
        .with_retries(retry)
        .with_partner_session(session);
    // The tries' count shows below, on a server that answers; here, that
    // the refusal ends as the error it is (nextest's deadline, a hang).
    match client.list_reports(Default::default()).await {
        Err(partner::runtime::ClientError::Transport(e)) => assert!(e.is_connect(), "{e}"),
        other => panic!("{other:?}"),
    }

    // Busy twice, then a token: three requests, and the call goes out.
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let http = HttpServer::new(move || {
        let asked = counted.clone();
        App::new()
            .route(
                "/oauth/token",
                web::post().to(move || {
                    let n = asked.fetch_add(1, Ordering::SeqCst);
                    async move {
                        if n < 2 {
                            return HttpResponse::ServiceUnavailable().finish();
                        }
                        HttpResponse::Ok().json(serde_json::json!({
                            "access_token": "t-1", "token_type": "Bearer", "expires_in": 60
                        }))
                    }
                }),
            )
            .route(
                "/v1/reports",
                web::get().to(|request: actix_web::HttpRequest| async move {
                    let bearer = request.headers().get("authorization").unwrap();
                    assert_eq!(bearer, "Bearer t-1");
                    HttpResponse::Ok().json(serde_json::json!([]))
                }),
            )
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let address = http.addrs()[0];
    actix_web::rt::spawn(http.run());
    let client = partner::client::Client::new(&format!("http://{address}/v1"))
        .unwrap()
        .with_retries(retry)
        .with_partner_client_credentials("reporting", "s");
    client.list_reports(Default::default()).await.expect("read");
    assert_eq!(asked.load(Ordering::SeqCst), 3);
}

/// The mock stands in for the whole OAuth path: its token endpoint, at
/// the spec's relative token URL, issues the credential it takes, on
/// both frameworks.
#[actix_web::test]
async fn the_mock_issues_the_credentials_it_takes() {
    use partner::{metadata, mock::MockService};
    for framework in petstore_tests::Framework::ALL {
        let mock = MockService::new(1)
            .unwrap()
            .accepting_only(["mock-token-1"]);
        let tokens = mock.token_endpoint();
        assert_eq!(tokens.paths(), ["/oauth/token"]);
        let address = match framework {
            petstore_tests::Framework::Actix => {
                let http = actix_web::HttpServer::new(move || {
                    let (mock, tokens) = (mock.clone(), tokens.clone());
                    actix_web::App::new()
                        .configure(|cfg| tokens.configure(cfg))
                        .service(
                            actix_web::web::scope(metadata::BASE_PATH)
                                .configure(|cfg| mock.configure(cfg)),
                        )
                })
                .workers(1)
                .bind(("127.0.0.1", 0))
                .unwrap();
                let address = http.addrs()[0];
                actix_web::rt::spawn(http.run());
                address
            }
            petstore_tests::Framework::Axum => {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                    .await
                    .unwrap();
                let address = listener.local_addr().unwrap();
                let router = tokens.router().merge(partner::runtime::axum::mounted(
                    metadata::BASE_PATH,
                    mock.router(),
                ));
                tokio::spawn(async move { axum::serve(listener, router).await });
                address
            }
        };
        let base = format!("http://{address}{}", metadata::BASE_PATH);
        let client = partner::client::Client::new(&base)
            .unwrap()
            .with_partner_client_credentials("any-client", "any-secret");
        let reply = client.list_reports(Default::default()).await.unwrap();
        assert!(
            matches!(
                reply.into_inner(),
                partner::operations::ListReportsResponse::Ok(_)
            ),
            "{framework:?}"
        );
        let client = partner::client::Client::new(&base)
            .unwrap()
            .with_partner("another-token");
        let reply = client.list_reports(Default::default()).await.unwrap();
        assert!(
            matches!(
                reply.into_inner(),
                partner::operations::ListReportsResponse::Unauthorized(_)
            ),
            "{framework:?}"
        );
    }
}

/// An API that refuses every token: the client renews once, sends the
/// call once more, and the second 401 is the answer. No loop.
#[actix_web::test]
async fn a_token_refused_twice_is_the_answer() {
    use actix_web::{web, App, HttpResponse, HttpServer};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (tokens, calls) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (issued, refused) = (tokens.clone(), calls.clone());
    let http = HttpServer::new(move || {
        let (issued, refused) = (issued.clone(), refused.clone());
        App::new()
            .route(
                "/oauth/token",
                web::post().to(move || {
                    let n = issued.fetch_add(1, Ordering::SeqCst);
                    async move {
                        HttpResponse::Ok().json(serde_json::json!({
                            "access_token": format!("t-{n}"), "token_type": "bearer"
                        }))
                    }
                }),
            )
            .route(
                "/v1/reports",
                web::get().to(move || {
                    refused.fetch_add(1, Ordering::SeqCst);
                    async {
                        HttpResponse::Unauthorized()
                            .insert_header(("www-authenticate", r#"Bearer error="invalid_token""#))
                            .json(serde_json::json!({"code": "unauthorized", "message": "no"}))
                    }
                }),
            )
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let address = http.addrs()[0];
    actix_web::rt::spawn(http.run());
    let client = partner::client::Client::new(&format!("http://{address}/v1"))
        .unwrap()
        .with_partner_client_credentials("reporting", "s");
    let reply = client
        .list_reports(Default::default())
        .await
        .expect("an answer");
    assert!(matches!(
        reply.into_inner(),
        partner::operations::ListReportsResponse::Unauthorized(_)
    ));
    assert_eq!(tokens.load(Ordering::SeqCst), 2, "one renewal");
    assert_eq!(calls.load(Ordering::SeqCst), 2, "sent twice");
}
