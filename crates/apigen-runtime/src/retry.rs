//! The retry policy of a generated client.

use std::time::Duration;

/// When to try a call again. Retries are off unless a client asks for them.
///
/// A call is retried when the server says it did not do it (429, 503),
/// waiting what `Retry-After` says; and, when resending is safe (an
/// idempotent method, or an `Idempotency-Key` the client generated once and
/// sends each time), after a transport failure or a 502 or 504, with
/// exponential backoff and full jitter. Never more than `attempts` tries in
/// all, never past `max_elapsed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Tries in all, the first included.
    pub attempts: u32,
    /// The longest a call may take, waits included.
    pub max_elapsed: Duration,
    /// The first backoff's ceiling; each further one doubles it.
    pub base: Duration,
    /// The highest backoff ceiling.
    pub cap: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            attempts: 4,
            max_elapsed: Duration::from_secs(60),
            base: Duration::from_millis(200),
            cap: Duration::from_secs(10),
        }
    }
}

impl Retry {
    /// The wait before try `attempt + 1` (0-based): `Retry-After` when the
    /// server gave one, else a random time up to the backoff ceiling.
    pub(crate) fn wait(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait;
        }
        let ceiling = self
            .base
            .saturating_mul(2u32.saturating_pow(attempt))
            .min(self.cap);
        ceiling.mul_f64(fastrand::f64())
    }
}
