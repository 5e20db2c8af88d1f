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
