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
//!
//! The `Retry-After` of a 503 grows with the outage: as many seconds as
//! the breaker has been open (an outage that has lasted a minute is
//! unlikely to end in the next second), at least 1 and at most
//! [`MAX_RETRY_AFTER_SECONDS`]. Probes keep running every
//! [`PROBE_EVERY`], so the instance itself notices the return at once;
//! only well-behaved clients space their retries out.

use crate::error::{ApiError, MAX_RETRY_AFTER_SECONDS, RETRY_AFTER_SECONDS};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Consecutive failures that open the breaker.
pub const OPEN_AFTER: u32 = 2;
/// How often, at most, an open breaker lets a probe through.
pub const PROBE_EVERY: Duration = Duration::from_millis(250);

/// Where the breaker reads the time: the monotonic clock, or (in tests) a
/// hand that moves only when told.
#[derive(Debug, Clone)]
pub enum Clock {
    Monotonic(Instant),
    #[cfg(test)]
    Manual(std::sync::Arc<AtomicU64>),
}

impl Clock {
    /// Milliseconds since the clock's start.
    fn millis(&self) -> u64 {
        match self {
            Clock::Monotonic(epoch) => {
                u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
            }
            #[cfg(test)]
            Clock::Manual(now) => now.load(Ordering::Relaxed),
        }
    }
}

#[derive(Debug)]
pub struct Breaker {
    clock: Clock,
    /// Consecutive failures that said the database is away.
    failures: AtomicU32,
    /// While open: the earliest time for the next probe, in the clock's
    /// milliseconds.
    next_probe: AtomicU64,
    /// While open: when it opened, in the clock's milliseconds.
    opened_at: AtomicU64,
    /// Whether a probe is in flight.
    probing: AtomicBool,
    /// Requests refused while open, without touching the database.
    refused: AtomicU64,
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
        Breaker::with_clock(Clock::Monotonic(Instant::now()))
    }
}

impl Breaker {
    pub fn with_clock(clock: Clock) -> Self {
        Breaker {
            clock,
            failures: AtomicU32::new(0),
            next_probe: AtomicU64::new(0),
            opened_at: AtomicU64::new(0),
            probing: AtomicBool::new(false),
            refused: AtomicU64::new(0),
        }
    }

    /// How many requests the breaker refused without touching the
    /// database, since the process started.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    fn now(&self) -> u64 {
        self.clock.millis()
    }

    /// Whether the breaker is open: the database was away at last look.
    pub fn is_open(&self) -> bool {
        self.failures.load(Ordering::Relaxed) >= OPEN_AFTER
    }

    /// Seconds a 503 asks the client to wait: 1 while the breaker is
    /// closed, else as long as it has been open, up to
    /// [`MAX_RETRY_AFTER_SECONDS`].
    pub fn retry_after(&self) -> u32 {
        if !self.is_open() {
            return RETRY_AFTER_SECONDS;
        }
        let open_for = self
            .now()
            .saturating_sub(self.opened_at.load(Ordering::Relaxed));
        let seconds = u32::try_from(open_for.div_ceil(1000)).unwrap_or(u32::MAX);
        seconds.clamp(RETRY_AFTER_SECONDS, MAX_RETRY_AFTER_SECONDS)
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
        self.refused.fetch_add(1, Ordering::Relaxed);
        Err(ApiError::away(self.retry_after()))
    }

    fn failed(&self, error: &ApiError) {
        let before = self
            .failures
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_add(1))
            })
            .unwrap_or(u32::MAX);
        if before + 1 == OPEN_AFTER {
            let now = self.now();
            self.opened_at.store(now, Ordering::Relaxed);
            self.next_probe
                .store(now + PROBE_EVERY.as_millis() as u64, Ordering::Relaxed);
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
    /// Tells the breaker how the database did. A 503 among the results
    /// asks for the wait that the outage has grown to. A failure of
    /// `background` work is not counted (see `Db::for_background`).
    pub fn record<T>(self, result: Result<T, ApiError>, background: bool) -> Result<T, ApiError> {
        match result {
            Err(e) if e.database_away() => {
                if !background {
                    self.breaker.failed(&e);
                }
                Err(e.retry_after(self.breaker.retry_after()))
            }
            result => {
                self.breaker.succeeded();
                result
            }
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
    use std::sync::Arc;

    fn away() -> Result<(), ApiError> {
        Err(ApiError::unavailable("connection refused"))
    }

    /// A breaker on a clock that moves only when the test moves it.
    fn breaker() -> (Breaker, impl Fn(Duration)) {
        let now = Arc::new(AtomicU64::new(0));
        let breaker = Breaker::with_clock(Clock::Manual(now.clone()));
        let advance = move |by: Duration| {
            now.fetch_add(by.as_millis() as u64, Ordering::Relaxed);
        };
        (breaker, advance)
    }

    fn open(breaker: &Breaker) {
        for _ in 0..OPEN_AFTER {
            let _ = breaker.admit().unwrap().record(away(), false);
        }
        assert!(breaker.is_open());
    }

    #[test]
    fn opens_after_consecutive_failures_and_refuses_at_once() {
        let (breaker, _) = breaker();
        let _ = breaker.admit().unwrap().record(away(), false);
        assert!(!breaker.is_open(), "one failure is not an outage");
        let _ = breaker.admit().unwrap().record(Ok(()), false);
        let _ = breaker.admit().unwrap().record(away(), false);
        assert!(!breaker.is_open(), "a success in between resets the count");
        let _ = breaker.admit().unwrap().record(away(), false);
        assert!(breaker.is_open());
        assert!(matches!(
            breaker.admit(),
            Err(ApiError::Unavailable { cause: None, .. })
        ));
    }

    #[test]
    fn background_failures_do_not_open_it_and_background_successes_close_it() {
        let (breaker, advance) = breaker();
        for _ in 0..OPEN_AFTER + 1 {
            let refused = breaker.admit().unwrap().record(away(), true);
            assert!(refused.is_err(), "the failure is still the caller's");
        }
        assert!(!breaker.is_open(), "work no request waits for opened it");
        open(&breaker);
        advance(PROBE_EVERY);
        let _ = breaker.admit().expect("a probe").record(Ok(()), true);
        assert!(!breaker.is_open(), "a background success is a probe's");
    }

    #[test]
    fn errors_of_the_database_itself_count_as_it_being_there() {
        let (breaker, _) = breaker();
        for _ in 0..OPEN_AFTER {
            let _ = breaker
                .admit()
                .unwrap()
                .record::<()>(Err(ApiError::conflict("out_of_stock", "none left")), false);
        }
        assert!(!breaker.is_open());
    }

    #[test]
    fn one_probe_at_a_time_and_a_success_closes() {
        let (breaker, advance) = breaker();
        open(&breaker);
        assert!(breaker.admit().is_err(), "no probe before its time");
        advance(PROBE_EVERY);
        let probe = breaker.admit().expect("time for a probe");
        assert!(breaker.admit().is_err(), "one probe at a time");
        let _ = probe.record(Ok(()), false);
        assert!(!breaker.is_open());
        assert!(breaker.admit().is_ok());
    }

    #[test]
    fn a_failed_or_abandoned_probe_waits_for_the_next_slot() {
        let (breaker, advance) = breaker();
        open(&breaker);
        advance(PROBE_EVERY);
        let _ = breaker.admit().unwrap().record(away(), false);
        assert!(breaker.admit().is_err(), "the next probe is not due yet");
        advance(PROBE_EVERY);
        drop(breaker.admit().expect("due again"));
        advance(PROBE_EVERY);
        assert!(breaker.admit().is_ok(), "an abandoned probe frees its slot");
    }

    fn asked_to_wait(result: Result<(), ApiError>) -> u32 {
        match result {
            Err(ApiError::Unavailable { retry_after, .. }) => retry_after,
            other => panic!("not a 503: {other:?}"),
        }
    }

    #[test]
    fn the_wait_asked_for_grows_with_the_outage_up_to_its_bound() {
        let (breaker, advance) = breaker();
        assert_eq!(breaker.retry_after(), 1, "closed");
        open(&breaker);
        let refused = || asked_to_wait(breaker.admit().map(drop));
        assert_eq!(refused(), 1, "just opened");
        // A probe in flight: every other request is refused meanwhile.
        advance(PROBE_EVERY);
        let probe = breaker.admit().expect("time for a probe");
        advance(Duration::from_millis(650));
        assert_eq!(refused(), 1, "0.9 s into the outage");
        advance(Duration::from_millis(200));
        assert_eq!(refused(), 2, "1.1 s into the outage");
        advance(Duration::from_secs(8));
        assert_eq!(refused(), 10);
        // The probe's own 503 asks for the same wait.
        assert_eq!(asked_to_wait(probe.record(away(), false)), 10);
        advance(Duration::from_secs(600));
        let probe = breaker.admit().expect("time for a probe");
        assert_eq!(refused(), MAX_RETRY_AFTER_SECONDS, "the bound");
        // Back: the next outage starts again from 1 s.
        let _ = probe.record(Ok(()), false);
        assert_eq!(breaker.retry_after(), 1);
        open(&breaker);
        assert_eq!(refused(), 1);
    }
}
