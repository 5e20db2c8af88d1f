//! One log line per request, and the span around it: method, path, the
//! operation that served it, status, latency and key id (never the key),
//! with OpenTelemetry's HTTP field names on the span for whatever tracing
//! layer a deployment adds. Also counts the request in the metrics. The
//! same on either framework: each one's adapter (`on_actix`, `on_axum`)
//! starts a [`Logged`] at the head and finishes it at the answer.

use crate::metrics::Metrics;
use petstore_api::metadata::BASE_PATH;
use petstore_api::runtime::Operation;
use std::sync::Arc;
use std::time::Instant;

/// What the guard learnt of a request it answered or let through, for the
/// request log: the operation it was routed to (`None`: no route matched)
/// and the caller's key id. Both frameworks carry it in the response's
/// extensions, from the route to the log around the whole application.
#[derive(Debug, Clone, Copy)]
pub struct Served {
    pub operation: Option<&'static Operation>,
    pub key_id: Option<i64>,
}

/// One request, from its head to its answer: the span around it, with
/// OpenTelemetry's HTTP field names, for whatever tracing layer a
/// deployment adds (the log format itself shows no spans); then one log
/// line with method, path, operation, status, latency and key id (never
/// the key), and the request counted in the metrics.
#[derive(Debug)]
pub struct Logged {
    span: tracing::Span,
    started: Instant,
    method: String,
    path: String,
    metrics: Option<Arc<Metrics>>,
}

impl Logged {
    /// A request of `method` to `path` has arrived.
    pub fn start(metrics: Option<&Arc<Metrics>>, method: &str, path: &str) -> Logged {
        use tracing::field::Empty;
        if let Some(metrics) = metrics {
            metrics.started();
        }
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
        Logged {
            span,
            started: Instant::now(),
            method: method.to_string(),
            path: path.to_string(),
            metrics: metrics.cloned(),
        }
    }

    /// The span the request's handling runs in.
    pub fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// The request is answered with `status` (the head: a stream goes on).
    pub fn finish(self, served: Option<Served>, status: u16) {
        let operation = served.and_then(|s| s.operation);
        let key_id = served.and_then(|s| s.key_id);
        if !self.span.is_disabled() {
            if let Some(op) = operation {
                self.span
                    .record("http.route", format_args!("{BASE_PATH}{}", op.path));
                self.span.record("operation.id", op.id);
            }
            self.span.record("http.response.status_code", status);
            if let Some(id) = key_id {
                self.span.record("key.id", id);
            }
        }
        if let Some(metrics) = &self.metrics {
            metrics.finished(operation.map(|op| op.id), status, self.started.elapsed());
        }
        let (method, path) = (&self.method, &self.path);
        tracing::info!(
            target: "petstore::http",
            %method,
            %path,
            operation = operation.map_or("-", |op| op.id),
            status,
            latency_us = self.started.elapsed().as_micros() as u64,
            key_id,
            "request"
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::app::{Framework, Listen, Settings, Shared};
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

    /// `GET /v1/pets/7` with `key` through the application of `framework`,
    /// in this thread: its status.
    async fn get_pet(shared: &Shared, framework: Framework, key: &str) -> u16 {
        let authorization = format!("Bearer {key}");
        match framework {
            Framework::Actix => {
                let service = actix_web::test::init_service(crate::on_actix::app(shared)).await;
                let request = actix_web::test::TestRequest::get()
                    .uri("/v1/pets/7")
                    .insert_header(("Authorization", authorization))
                    .to_request();
                actix_web::test::call_service(&service, request)
                    .await
                    .status()
                    .as_u16()
            }
            Framework::Axum => {
                use tower_service::Service as _;
                let request = http::Request::get("/v1/pets/7")
                    .header("Authorization", authorization)
                    .body(axum::body::Body::empty())
                    .unwrap();
                let mut router = crate::on_axum::router(shared);
                match router.call(request).await {
                    Ok(response) => response.status().as_u16(),
                    Err(never) => match never {},
                }
            }
        }
    }

    #[actix_web::test]
    async fn the_request_span_carries_opentelemetry_fields_and_never_the_key() {
        for framework in Framework::ALL {
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
            let shared = Shared::new(&Settings::new(Listen::any_local_port(), db, clock)).unwrap();
            assert_eq!(get_pet(&shared, framework, key.expose()).await, 404);
            let seen = crate::lock(&seen).clone();
            for field in [
                "http.request.method=GET".to_string(),
                "url.path=/v1/pets/7".to_string(),
                "http.route=/v1/pets/{petId}".to_string(),
                "http.response.status_code=404".to_string(),
                "operation.id=getPet".to_string(),
                format!("key.id={id}"),
            ] {
                assert!(
                    seen.contains(&field),
                    "{framework:?}: {field} not in {seen:?}"
                );
            }
            assert!(!seen.iter().any(|f| f.contains(key.expose())), "{seen:?}");
        }
    }
}
