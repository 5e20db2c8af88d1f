//! One log line per request, and the span around it: method, path, the
//! operation that served it, status, latency and key id (never the key),
//! with OpenTelemetry's HTTP field names on the span for whatever tracing
//! layer a deployment adds. Also counts the request in the metrics.

use crate::keys::KeyInfo;
use crate::metrics::Metrics;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage};
use petstore_api::metadata::BASE_PATH;
use petstore_api::runtime::Operation;
use std::time::Instant;

/// One log line per request: method, path, operation, status, latency and
/// key id (never the key); and a span around the request with
/// OpenTelemetry's HTTP field names, for whatever tracing layer a
/// deployment adds (the log format itself shows no spans).
pub async fn log_request(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    use tracing::field::Empty;
    use tracing::Instrument as _;
    let started = Instant::now();
    let metrics = request.app_data::<web::Data<Metrics>>().cloned();
    if let Some(metrics) = &metrics {
        metrics.started();
    }
    let method = request.method().clone();
    let path = request.path().to_string();
    let span = tracing::info_span!(
        target: "petstore::http",
        "request",
        http.request.method = %method,
        url.path = %path,
        http.route = Empty,
        http.response.status_code = Empty,
        operation.id = Empty,
        key.id = Empty,
    );
    let response = next.call(request).instrument(span.clone()).await;
    let response = match (response, &metrics) {
        (Ok(response), _) => response,
        (Err(e), Some(metrics)) => {
            metrics.finished(
                None,
                e.as_response_error().status_code().as_u16(),
                started.elapsed(),
            );
            return Err(e);
        }
        (Err(e), None) => return Err(e),
    };
    let operation = Operation::of(response.request());
    let key_id = response
        .request()
        .extensions()
        .get::<KeyInfo>()
        .map(|k| k.id);
    let status = response.status().as_u16();
    if !span.is_disabled() {
        if let Some(op) = operation {
            span.record("http.route", format_args!("{BASE_PATH}{}", op.path));
            span.record("operation.id", op.id);
        }
        span.record("http.response.status_code", status);
        if let Some(id) = key_id {
            span.record("key.id", id);
        }
    }
    if let Some(metrics) = &metrics {
        metrics.finished(operation.map(|op| op.id), status, started.elapsed());
    }
    tracing::info!(
        target: "petstore::http",
        %method,
        %path,
        operation = operation.map_or("-", |op| op.id),
        status,
        latency_us = started.elapsed().as_micros() as u64,
        key_id,
        "request"
    );
    Ok(response)
}

#[cfg(test)]
mod tests {
    use crate::app::{app, Listen, Settings, Shared};
    use crate::limiter::BanPolicy;
    use crate::limits::ClientLimits;
    use crate::proxies::TrustedProxies;
    use crate::store::Db;
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};
    use tracing_subscriber::layer::{Context, SubscriberExt as _};

    /// Records every field of every span, as `name=value`.
    struct Capture(Arc<Mutex<Vec<String>>>);

    impl Visit for &Capture {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            crate::lock(&self.0).push(format!("{}={value:?}", field.name()));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            crate::lock(&self.0).push(format!("{}={value}", field.name()));
        }
    }

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
        fn on_new_span(
            &self,
            attrs: &tracing::span::Attributes<'_>,
            _: &tracing::span::Id,
            _: Context<'_, S>,
        ) {
            attrs.record(&mut &*self);
        }

        fn on_record(
            &self,
            _: &tracing::span::Id,
            values: &tracing::span::Record<'_>,
            _: Context<'_, S>,
        ) {
            values.record(&mut &*self);
        }
    }

    #[actix_web::test]
    async fn the_request_span_carries_opentelemetry_fields_and_never_the_key() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Capture(seen.clone()));
        let _default = tracing::subscriber::set_default(subscriber);
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let db = Db::connect(&url).await.unwrap();
        let clock = crate::service::system_clock();
        let (id, key) = crate::keys::create(&db, crate::keys::Plan::Free, None, None, clock())
            .await
            .unwrap();
        let shared = Shared::new(&Settings {
            listen: Listen::any_local_port(),
            db,
            clock,
            workers: None,
            ban: BanPolicy::default(),
            key_cache_ttl: std::time::Duration::ZERO,
            trusted_proxies: TrustedProxies::default(),
            metrics_listen: None,
            client_limits: ClientLimits::default(),
            webhooks: Default::default(),
        })
        .unwrap();
        let service = actix_web::test::init_service(app(&shared)).await;
        let request = actix_web::test::TestRequest::get()
            .uri("/v1/pets/7")
            .insert_header(("Authorization", format!("Bearer {}", key.expose())))
            .to_request();
        let response = actix_web::test::call_service(&service, request).await;
        assert_eq!(response.status(), 404);
        let seen = crate::lock(&seen).clone();
        for field in [
            "http.request.method=GET".to_string(),
            "url.path=/v1/pets/7".to_string(),
            "http.route=/v1/pets/{petId}".to_string(),
            "http.response.status_code=404".to_string(),
            "operation.id=getPet".to_string(),
            format!("key.id={id}"),
        ] {
            assert!(seen.contains(&field), "{field} not in {seen:?}");
        }
        assert!(!seen.iter().any(|f| f.contains(key.expose())), "{seen:?}");
    }
}
