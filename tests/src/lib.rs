//! The generator's snapshot outputs, compiled. Each module is the checked-in
//! expected output of one `crates/apigen/tests/snapshots/*.yaml`, listed by
//! `build.rs` from the directory; building this crate under
//! `clippy -D warnings` proves every snapshot is warning-free Rust.

#![deny(warnings)]

/// The frameworks a generated crate serves on: each generated-glue test
/// runs its one body on every one of them ([`serve!`]), so that the two
/// cannot drift apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framework {
    /// `server::configure`, on an actix-web `HttpServer`.
    Actix,
    /// `axum::router`, served by `axum::serve`.
    Axum,
}

impl Framework {
    /// Every framework, in the order tests run them.
    pub const ALL: [Framework; 2] = [Framework::Actix, Framework::Axum];
}

/// What one request was answered with: its status, headers (names in
/// lower case) and body.
pub type Answered = (u16, Vec<(String, String)>, Vec<u8>);

/// Answers `$request` (an `http::Request<Vec<u8>>`) with `$service` (an
/// `Arc` of the implementation) served by the generated crate `$api` on
/// actix-web and on axum, in process; fails unless both answer alike
/// (status, body, and headers but `date` and `content-length`), and
/// evaluates to the answer ([`Answered`]).
#[macro_export]
macro_rules! answer_on_both {
    ($api:path, $service:expr, $request:expr) => {{
        use $api as api;
        let service: std::sync::Arc<_> = $service;
        let request: http::Request<Vec<u8>> = $request;
        let data = actix_web::web::Data::from(service.clone());
        let app = actix_web::test::init_service(
            actix_web::App::new().configure(move |cfg| api::server::configure(cfg, data)),
        )
        .await;
        let method = actix_web::http::Method::from_bytes(request.method().as_str().as_bytes())
            .expect("a method");
        let mut on_actix = actix_web::test::TestRequest::default()
            .method(method)
            .uri(&request.uri().to_string())
            .set_payload(request.body().clone());
        for (name, value) in request.headers() {
            on_actix = on_actix.append_header((name.as_str(), value.as_bytes()));
        }
        let response = actix_web::test::call_service(&app, on_actix.to_request()).await;
        let headers = $crate::headers(
            response
                .headers()
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_bytes())),
        );
        let status = response.status().as_u16();
        let body = actix_web::test::read_body(response).await.to_vec();
        let on_actix: $crate::Answered = (status, headers, body);
        let (parts, body) = request.into_parts();
        let request = http::Request::from_parts(parts, axum::body::Body::from(body));
        let response = tower::ServiceExt::oneshot(api::axum::router(service), request)
            .await
            .expect("infallible");
        let headers = $crate::headers(
            response
                .headers()
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_bytes())),
        );
        let status = response.status().as_u16();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("a body")
            .to_vec();
        let on_axum: $crate::Answered = (status, headers, body);
        assert_eq!(
            $crate::comparable(&on_actix),
            $crate::comparable(&on_axum),
            "actix-web, then axum"
        );
        on_actix
    }};
}

/// Headers as [`Answered`] holds them, from either framework's map.
pub fn headers<'h>(headers: impl Iterator<Item = (&'h str, &'h [u8])>) -> Vec<(String, String)> {
    headers
        .map(|(name, value)| {
            (
                name.to_string(),
                String::from_utf8_lossy(value).into_owned(),
            )
        })
        .collect()
}

/// An answer as two frameworks must agree on it: headers sorted, but the
/// date and the length (which each server writes its own way).
pub fn comparable(answer: &Answered) -> (u16, Vec<(String, String)>, String) {
    let mut headers: Vec<(String, String)> = answer
        .1
        .iter()
        .filter(|(n, _)| !matches!(n.as_str(), "date" | "content-length"))
        .cloned()
        .collect();
    headers.sort();
    (
        answer.0,
        headers,
        String::from_utf8_lossy(&answer.2).into_owned(),
    )
}

/// A request for [`answer_on_both!`]: `method`, `uri`, `headers` and `body`.
pub fn request(
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> http::Request<Vec<u8>> {
    let mut request = http::Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(body.to_vec()).expect("a request")
}

/// Serves `$service` (an `Arc` of the implementation) with the generated
/// crate `$api` on `$framework`, on a free local port, for the rest of the
/// test; evaluates to the base URL (`http://127.0.0.1:PORT`). Runs inside
/// `#[actix_web::test]`, whose runtime is tokio's too.
#[macro_export]
macro_rules! serve {
    ($framework:expr, $api:path, $service:expr) => {{
        use $api as api;
        let service: std::sync::Arc<_> = $service;
        let address = match $framework {
            $crate::Framework::Actix => {
                let service = actix_web::web::Data::from(service);
                let http = actix_web::HttpServer::new(move || {
                    let service = service.clone();
                    actix_web::App::new().configure(move |cfg| api::server::configure(cfg, service))
                })
                .workers(1)
                .bind(("127.0.0.1", 0))
                .expect("a port");
                let address = http.addrs()[0];
                actix_web::rt::spawn(http.run());
                address
            }
            $crate::Framework::Axum => {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                    .await
                    .expect("a port");
                let address = listener.local_addr().expect("an address");
                tokio::spawn(
                    async move { axum::serve(listener, api::axum::router(service)).await },
                );
                address
            }
        };
        format!("http://{address}")
    }};
}

include!(concat!(env!("OUT_DIR"), "/snapshots.rs"));
