//! Prometheus metrics, in the text exposition format, on a listener of their
//! own (`--metrics-listen ADDR`; off by default, and then nothing here runs).
//!
//! - `petstore_requests_total{operation, status_class}`: answered requests,
//!   by operationId (`none` for unknown paths and methods) and `2xx`..`5xx`;
//! - `petstore_request_duration_seconds{operation}`: a latency histogram;
//! - `petstore_rate_limit_refusals_total{reason}`: 429s, `rate_limited` or
//!   `api_key_banned`;
//! - `petstore_requests_in_flight`;
//! - `petstore_sqlite_write_queue`: writes waiting for the SQLite writer, or
//!   `petstore_postgres_connections{state}`: the pool's `idle` and `in_use`
//!   connections, and the one the event feed holds for `LISTEN`
//!   (`listening`), whichever database the server runs on;
//! - `petstore_database_breaker_open`: 1 while this instance believes the
//!   database away and answers 503 without trying (PostgreSQL's circuit
//!   breaker), else 0;
//! - `petstore_database_breaker_refusals_total`: requests the breaker
//!   answered 503 without touching the database;
//! - `petstore_webhook_attempts_total{result}`: webhook delivery attempts
//!   this instance made, by result (`succeeded`, `failed`, `timed_out`,
//!   `unreachable`, `refused`), and
//!   `petstore_webhook_attempt_duration_seconds`, their latency.
//!
//! The listener answers `GET /metrics` only, without a key: bind it where
//! only the scraper reaches it.

use crate::store::{Db, PoolState};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::time::Duration;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    operation: &'static str,
    status_class: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    operation: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusalLabels {
    reason: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AttemptLabels {
    result: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ConnectionLabels {
    state: &'static str,
}

type Latency = Family<OperationLabels, Histogram, fn() -> Histogram>;

/// Every metric the server keeps, and the registry that renders them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Latency,
    refusals: Family<RefusalLabels, Counter>,
    in_flight: Gauge,
    write_queue: Gauge,
    connections: Family<ConnectionLabels, Gauge>,
    breaker_open: Gauge,
    breaker_refusals: Counter,
    webhook_attempts: Family<AttemptLabels, Counter>,
    webhook_latency: Histogram,
    /// Held while the database's figures are copied in, so that two
    /// scrapes at once do not both add the same refusals.
    rendering: std::sync::Mutex<()>,
}

/// 0.5 ms to about 16 s, doubling.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("petstore");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "requests",
            "Requests answered, by operation and status class",
            requests.clone(),
        );
        let latency: Latency = Family::new_with_constructor(latency_histogram);
        registry.register(
            "request_duration_seconds",
            "Time from a request's arrival to its answer, by operation",
            latency.clone(),
        );
        let refusals = Family::<RefusalLabels, Counter>::default();
        registry.register(
            "rate_limit_refusals",
            "Requests refused with 429, by reason (rate_limited, api_key_banned)",
            refusals.clone(),
        );
        let in_flight = Gauge::default();
        registry.register(
            "requests_in_flight",
            "Requests received and not yet answered",
            in_flight.clone(),
        );
        let write_queue = Gauge::default();
        registry.register(
            "sqlite_write_queue",
            "Writes waiting for the SQLite writer thread",
            write_queue.clone(),
        );
        let connections = Family::<ConnectionLabels, Gauge>::default();
        registry.register(
            "postgres_connections",
            "PostgreSQL connections of this instance's pool, by state (idle, in_use)",
            connections.clone(),
        );
        let breaker_open = Gauge::default();
        registry.register(
            "database_breaker_open",
            "1 while the database is believed away and requests are answered 503 \
             without trying (the circuit breaker is open), else 0",
            breaker_open.clone(),
        );
        let breaker_refusals = Counter::default();
        registry.register(
            "database_breaker_refusals",
            "Requests answered 503 by the open circuit breaker without touching the database",
            breaker_refusals.clone(),
        );
        let webhook_attempts = Family::<AttemptLabels, Counter>::default();
        registry.register(
            "webhook_attempts",
            "Webhook delivery attempts made by this instance, by result",
            webhook_attempts.clone(),
        );
        let webhook_latency = latency_histogram();
        registry.register(
            "webhook_attempt_duration_seconds",
            "Time from a webhook attempt's start to its receiver's answer (or its failure)",
            webhook_latency.clone(),
        );
        Metrics {
            registry,
            webhook_attempts,
            webhook_latency,
            requests,
            latency,
            refusals,
            in_flight,
            write_queue,
            connections,
            breaker_open,
            breaker_refusals,
            rendering: std::sync::Mutex::default(),
        }
    }
}

impl Metrics {
    /// A request arrived.
    pub fn started(&self) {
        self.in_flight.inc();
    }

    /// A request was answered: `operation` is its operationId, if one
    /// served it.
    pub fn finished(&self, operation: Option<&'static str>, status: u16, elapsed: Duration) {
        self.in_flight.dec();
        let operation = operation.unwrap_or("none");
        let status_class = match status {
            100..=199 => "1xx",
            200..=299 => "2xx",
            300..=399 => "3xx",
            400..=499 => "4xx",
            _ => "5xx",
        };
        self.requests
            .get_or_create(&RequestLabels {
                operation,
                status_class,
            })
            .inc();
        self.latency
            .get_or_create(&OperationLabels { operation })
            .observe(elapsed.as_secs_f64());
    }

    /// The gate refused a request with 429: `rate_limited` or
    /// `api_key_banned`.
    pub fn refused(&self, reason: &'static str) {
        self.refusals.get_or_create(&RefusalLabels { reason }).inc();
    }

    /// A webhook attempt ended with `result` after `elapsed`.
    pub fn attempted(&self, result: &'static str, elapsed: Duration) {
        self.webhook_attempts
            .get_or_create(&AttemptLabels { result })
            .inc();
        self.webhook_latency.observe(elapsed.as_secs_f64());
    }

    /// The exposition text, with the database's gauges read now.
    pub fn render(&self, db: &Db) -> String {
        let _rendering = self
            .rendering
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match db.pool_state() {
            PoolState::Sqlite { queued_writes } => {
                self.write_queue
                    .set(i64::try_from(queued_writes).unwrap_or(i64::MAX));
            }
            PoolState::Postgres {
                open,
                idle,
                listening,
            } => {
                let gauge = |state| self.connections.get_or_create(&ConnectionLabels { state });
                gauge("idle").set(i64::from(idle));
                gauge("in_use").set(i64::from(
                    open.saturating_sub(idle).saturating_sub(listening),
                ));
                gauge("listening").set(i64::from(listening));
            }
        };
        self.breaker_open.set(i64::from(db.breaker_open()));
        // The breaker counts; the counter catches up with it.
        let refused = db.breaker_refusals();
        self.breaker_refusals
            .inc_by(refused.saturating_sub(self.breaker_refusals.get()));
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// `GET /metrics`: every metric in the text exposition format (empty
/// when metrics are off).
pub fn scrape(shared: &crate::app::Shared) -> petstore_api::runtime::Outgoing {
    let text = shared
        .metrics
        .as_ref()
        .map(|metrics| metrics.render(&shared.state.db))
        .unwrap_or_default();
    let mut response = petstore_api::runtime::Outgoing::new(
        petstore_api::runtime::OutgoingBody::Full(text.into()),
    );
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_operation_and_class() {
        let metrics = Metrics::default();
        metrics.started();
        metrics.started();
        metrics.finished(Some("listPets"), 200, Duration::from_millis(3));
        metrics.finished(None, 404, Duration::from_millis(1));
        metrics.refused("rate_limited");
        metrics.attempted("succeeded", Duration::from_millis(2));
        metrics.attempted("timed_out", Duration::from_secs(10));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &metrics.registry).unwrap();
        for line in [
            "petstore_requests_total{operation=\"listPets\",status_class=\"2xx\"} 1",
            "petstore_requests_total{operation=\"none\",status_class=\"4xx\"} 1",
            "petstore_request_duration_seconds_count{operation=\"listPets\"} 1",
            "petstore_request_duration_seconds_bucket{le=\"0.004\",operation=\"listPets\"} 1",
            "petstore_rate_limit_refusals_total{reason=\"rate_limited\"} 1",
            "petstore_requests_in_flight 0",
            "petstore_webhook_attempts_total{result=\"succeeded\"} 1",
            "petstore_webhook_attempts_total{result=\"timed_out\"} 1",
            "petstore_webhook_attempt_duration_seconds_count 2",
            "petstore_webhook_attempt_duration_seconds_bucket{le=\"0.004\"} 1",
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
    }
}
