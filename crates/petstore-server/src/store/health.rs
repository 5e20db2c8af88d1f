//! Whether the database is there: a circuit breaker per instance, so that
//! while PostgreSQL is away requests are answered 503 at once instead of
//! each waiting out the database timeout.
//!
//! The breaker counts consecutive failures that say the database is away
//! (refused or lost connections, timeouts; see [`ApiError::database_away`]).
//! After [`OPEN_AFTER`] of them it opens: requests are refused without
//! touching the database, except one at a time, at most every
//! [`PROBE_EVERY`], which goes through as a probe. The first request (or
//! health check) that succeeds closes it. Probes are the requests
//! themselves, so recovery is noticed as soon as traffic (or the load
//! balancer's health checks) arrives, with no background task.
//!
//! A request the database answered, even with an error of its own (a
//! constraint, a conflict), counts as a success: the database is there.

use crate::error::ApiError;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Consecutive failures that open the breaker.
pub const OPEN_AFTER: u32 = 2;
/// How often, at most, an open breaker lets a probe through.
pub const PROBE_EVERY: Duration = Duration::from_millis(250);

#[derive(Debug)]
pub struct Breaker {
    epoch: Instant,
    /// Consecutive failures that said the database is away.
    failures: AtomicU32,
    /// While open: the earliest time for the next probe, in milliseconds
    /// since `epoch`.
    next_probe: AtomicU64,
    /// Whether a probe is in flight.
    probing: AtomicBool,
}

/// Leave to use the database, to be told how it went with
/// [`Ticket::record`]. A probe's ticket dropped unrecorded (its request
/// cancelled, or timed out by the caller) frees the probe's slot.
#[must_use]
#[derive(Debug)]
pub struct Ticket<'a> {
    breaker: &'a Breaker,
    probe: bool,
}

impl Default for Breaker {
    fn default() -> Self {
        Breaker {
            epoch: Instant::now(),
            failures: AtomicU32::new(0),
            next_probe: AtomicU64::new(0),
            probing: AtomicBool::new(false),
        }
    }
}

impl Breaker {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether the breaker is open: the database was away at last look.
    pub fn is_open(&self) -> bool {
        self.failures.load(Ordering::Relaxed) >= OPEN_AFTER
    }

    /// Leave to use the database, or a 503 `unavailable` at once while the
    /// breaker is open and it is not time for a probe.
    pub fn admit(&self) -> Result<Ticket<'_>, ApiError> {
        if !self.is_open() {
            return Ok(Ticket {
                breaker: self,
                probe: false,
            });
        }
        let now = self.now();
        if now >= self.next_probe.load(Ordering::Relaxed)
            && self
                .probing
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            self.next_probe
                .store(now + PROBE_EVERY.as_millis() as u64, Ordering::Relaxed);
            return Ok(Ticket {
                breaker: self,
                probe: true,
            });
        }
        Err(ApiError::Unavailable(None))
    }

    fn failed(&self, error: &ApiError) {
        let before = self
            .failures
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_add(1))
            })
            .unwrap_or(u32::MAX);
        if before + 1 == OPEN_AFTER {
            self.next_probe.store(
                self.now() + PROBE_EVERY.as_millis() as u64,
                Ordering::Relaxed,
            );
            tracing::error!(
                error = %error,
                "the database is away: answering 503 until a probe succeeds"
            );
        }
    }

    fn succeeded(&self) {
        // A load first: on the happy path the count is 0 and stays unwritten.
        if self.failures.load(Ordering::Relaxed) != 0
            && self.failures.swap(0, Ordering::Relaxed) >= OPEN_AFTER
        {
            tracing::warn!("the database is back");
        }
    }
}

impl Ticket<'_> {
    /// Tells the breaker how the database did.
    pub fn record<T>(self, result: &Result<T, ApiError>) {
        match result {
            Err(e) if e.database_away() => self.breaker.failed(e),
            _ => self.breaker.succeeded(),
        }
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if self.probe {
            self.breaker.probing.store(false, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn away() -> Result<(), ApiError> {
        Err(ApiError::unavailable("connection refused"))
    }

    #[test]
    fn opens_after_consecutive_failures_and_refuses_at_once() {
        let breaker = Breaker::default();
        breaker.admit().unwrap().record(&away());
        assert!(!breaker.is_open(), "one failure is not an outage");
        breaker.admit().unwrap().record(&Ok(()));
        breaker.admit().unwrap().record(&away());
        assert!(!breaker.is_open(), "a success in between resets the count");
        breaker.admit().unwrap().record(&away());
        assert!(breaker.is_open());
        assert!(matches!(breaker.admit(), Err(ApiError::Unavailable(None))));
    }

    #[test]
    fn errors_of_the_database_itself_count_as_it_being_there() {
        let breaker = Breaker::default();
        for _ in 0..OPEN_AFTER {
            breaker
                .admit()
                .unwrap()
                .record::<()>(&Err(ApiError::conflict("out_of_stock", "none left")));
        }
        assert!(!breaker.is_open());
    }

    #[test]
    fn one_probe_at_a_time_and_a_success_closes() {
        let breaker = Breaker::default();
        for _ in 0..OPEN_AFTER {
            breaker.admit().unwrap().record(&away());
        }
        std::thread::sleep(PROBE_EVERY);
        let probe = breaker.admit().expect("time for a probe");
        assert!(breaker.admit().is_err(), "one probe at a time");
        probe.record(&Ok(()));
        assert!(!breaker.is_open());
        assert!(breaker.admit().is_ok());
    }

    #[test]
    fn a_failed_or_abandoned_probe_waits_for_the_next_slot() {
        let breaker = Breaker::default();
        for _ in 0..OPEN_AFTER {
            breaker.admit().unwrap().record(&away());
        }
        std::thread::sleep(PROBE_EVERY);
        breaker.admit().unwrap().record(&away());
        assert!(breaker.admit().is_err(), "the next probe is not due yet");
        std::thread::sleep(PROBE_EVERY);
        drop(breaker.admit().expect("due again"));
        std::thread::sleep(PROBE_EVERY);
        assert!(breaker.admit().is_ok(), "an abandoned probe frees its slot");
    }
}
