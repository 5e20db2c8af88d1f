//! Startup: the actix-web application, its middleware and its listener.

use crate::keys::{self, KeyInfo};
use crate::service::{Clock, PetStore};
use crate::store::Db;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Server, ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::{from_fn, Next};
use actix_web::{web, App, HttpMessage, HttpResponse, HttpServer};
use petstore_api::metadata::BASE_PATH;
use petstore_api::models;
use petstore_api::operations::ErrorResponse;
use petstore_api::server;
use std::net::TcpListener;
use std::time::Instant;

/// What the server needs to start.
#[derive(Clone)]
pub struct Settings {
    /// Address to listen on; port 0 picks a free port.
    pub listen: String,
    pub db: Db,
    pub clock: Clock,
    /// Worker threads; `None` for one per core.
    pub workers: Option<usize>,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("listen", &self.listen)
            .field("workers", &self.workers)
            .finish_non_exhaustive()
    }
}

/// A bound, not yet running server.
pub struct Application {
    address: std::net::SocketAddr,
    server: Server,
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl Application {
    /// Binds the listener and builds the server. SIGINT and SIGTERM stop it
    /// gracefully: requests in flight are finished first.
    pub fn build(settings: Settings) -> std::io::Result<Application> {
        let listener = TcpListener::bind(&settings.listen)?;
        let address = listener.local_addr()?;
        let state = web::Data::new(PetStore {
            db: settings.db.clone(),
            clock: settings.clock.clone(),
        });
        let mut http = HttpServer::new(move || {
            App::new()
                .wrap(from_fn(authenticate))
                .wrap(from_fn(log_request))
                .app_data(state.clone())
                .route("/healthz", web::get().to(healthz))
                .route("/openapi.yaml", web::get().to(openapi))
                .service(
                    web::scope(BASE_PATH).configure(|cfg| server::configure(cfg, state.clone())),
                )
                .default_service(web::to(server::not_found::<PetStore>))
        })
        .shutdown_timeout(30)
        .listen(listener)?;
        if let Some(workers) = settings.workers {
            http = http.workers(workers);
        }
        Ok(Application {
            address,
            server: http.run(),
        })
    }

    pub fn address(&self) -> std::net::SocketAddr {
        self.address
    }

    pub fn port(&self) -> u16 {
        self.address.port()
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }

    /// The server future, for tests that spawn it.
    pub fn into_server(self) -> Server {
        self.server
    }
}

/// Paths served without a key, outside the spec.
fn is_public(path: &str) -> bool {
    matches!(path, "/healthz" | "/openapi.yaml")
}

async fn healthz(state: web::Data<PetStore>) -> HttpResponse {
    match state.db.ping().await {
        Ok(()) => HttpResponse::Ok().content_type("text/plain").body("ok\n"),
        Err(e) => {
            tracing::error!(error = %e, "health check: database unreachable");
            HttpResponse::ServiceUnavailable()
                .content_type("text/plain")
                .body("database unreachable\n")
        }
    }
}

async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/yaml")
        .body(petstore_api::SPEC_YAML)
}

fn error(status: StatusCode, code: &str, message: &str) -> HttpResponse {
    ErrorResponse::new(status, models::Error::new(status, code, message)).into_http()
}

/// Checks `Authorization: Bearer <key>` on everything but the public paths, and
/// leaves the key's [`KeyInfo`] in the request's extensions.
async fn authenticate(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if is_public(request.path()) {
        return next
            .call(request)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, key) = v.split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| key.trim().to_string())
        })
        .filter(|k| !k.is_empty());
    let Some(presented) = presented else {
        let response = error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "send an API key as `Authorization: Bearer <key>`",
        );
        return Ok(unauthorized(request, response));
    };
    let Some(state) = request.app_data::<web::Data<PetStore>>().cloned() else {
        return Err(actix_web::error::ErrorInternalServerError(
            "no application state",
        ));
    };
    match keys::authenticate(&state.db, &presented).await {
        Ok(Some(key)) => {
            request.extensions_mut().insert(key);
            next.call(request)
                .await
                .map(ServiceResponse::map_into_boxed_body)
        }
        Ok(None) => {
            let response = error(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "the API key is unknown or revoked",
            );
            Ok(unauthorized(request, response))
        }
        Err(e) => {
            tracing::error!(error = %e, "key lookup failed");
            let response = error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the server failed to handle the request",
            );
            Ok(request.into_response(response))
        }
    }
}

fn unauthorized(request: ServiceRequest, mut response: HttpResponse) -> ServiceResponse<BoxBody> {
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    request.into_response(response)
}

/// One log line per request: method, path, status, latency and key id (never
/// the key).
async fn log_request(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.path().to_string();
    let response = next.call(request).await?;
    let key_id = response
        .request()
        .extensions()
        .get::<KeyInfo>()
        .map(|k| k.id);
    tracing::info!(
        target: "petstore::http",
        %method,
        %path,
        status = response.status().as_u16(),
        latency_us = started.elapsed().as_micros() as u64,
        key_id,
        "request"
    );
    Ok(response)
}
