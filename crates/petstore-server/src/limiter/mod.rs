//! Rate limits: per key (or per client address, for requests without a valid
//! key), a minute and a day window, both fixed and aligned to UTC, and a ban for
//! subjects that keep sending while limited.
//!
//! The rule ([`rule`]) is one; where its state lives depends on the
//! deployment: in memory ([`RateLimiter`]) for a single process on SQLite, in
//! PostgreSQL ([`SharedLimiter`]) when several instances share a database.

mod local;
mod rule;
mod shared;

pub use local::RateLimiter;
pub use shared::SharedLimiter;

use crate::error::ApiError;
use crate::keys::Limits;
use crate::store::{Backend, Db};
use std::net::IpAddr;

/// Every this many decisions, a limiter drops its idle entries.
const SWEEP_EVERY: u32 = 4096;
const MINUTE: i64 = 60;
const DAY: i64 = 86_400;

/// Who a request is counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject {
    Key(i64),
    Address(IpAddr),
}

/// When a subject gets banned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BanPolicy {
    /// Requests tolerated while limited; one more starts a ban.
    pub after: u32,
    /// How long a ban lasts, in seconds.
    pub seconds: i64,
}

impl Default for BanPolicy {
    fn default() -> Self {
        BanPolicy {
            after: 10,
            seconds: 15 * 60,
        }
    }
}

/// The verdict on one request, with what the `X-RateLimit-*` headers report:
/// the window closest to exhaustion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds at which the reported window resets.
    pub reset: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Over a limit: retry after this many seconds (the blocking window's reset).
    Limited {
        retry_after: i64,
    },
    /// Banned: retry after this many seconds (the ban's end).
    Banned {
        retry_after: i64,
    },
}

/// The server's limiter: in memory for a single process (SQLite), in the
/// database when instances share one (PostgreSQL).
#[derive(Debug)]
pub enum Limiter {
    Local(RateLimiter),
    Shared(SharedLimiter),
}

impl Limiter {
    /// The limiter that fits the database the server runs on.
    pub fn for_db(db: &Db, ban: BanPolicy) -> Limiter {
        match db.backend() {
            Backend::Sqlite => Limiter::Local(RateLimiter::new(ban)),
            Backend::Postgres => Limiter::Shared(SharedLimiter::new(db.clone(), ban)),
        }
    }

    pub async fn check(
        &self,
        subject: Subject,
        limits: Limits,
        now: i64,
    ) -> Result<Decision, ApiError> {
        match self {
            Limiter::Local(limiter) => Ok(limiter.check(subject, limits, now)),
            Limiter::Shared(limiter) => limiter.check(subject, limits, now).await,
        }
    }
}

impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Subject::Key(id) => write!(f, "key:{id}"),
            Subject::Address(address) => write!(f, "ip:{address}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FREE: Limits = Limits {
        per_minute: 60,
        per_day: 1000,
    };
    /// 2026-11-22T12:00:00Z: a minute boundary.
    const NOON: i64 = 1_795_348_800;

    #[test]
    fn sixty_a_minute_then_429_until_the_next_minute() {
        let limiter = RateLimiter::new(BanPolicy::default());
        let key = Subject::Key(1);
        for i in 0..60 {
            let d = limiter.check(key, FREE, NOON + 10);
            assert_eq!(d.verdict, Verdict::Allowed);
            assert_eq!((d.limit, d.remaining, d.reset), (60, 59 - i, NOON + 60));
        }
        let d = limiter.check(key, FREE, NOON + 10);
        assert_eq!(d.verdict, Verdict::Limited { retry_after: 50 });
        assert_eq!((d.remaining, d.reset), (0, NOON + 60));
        // The next minute window starts fresh.
        assert_eq!(
            limiter.check(key, FREE, NOON + 60).verdict,
            Verdict::Allowed
        );
    }

    #[test]
    fn the_day_window_reports_when_it_is_closer_to_exhaustion() {
        let limiter = RateLimiter::new(BanPolicy::default());
        let tight = Limits {
            per_minute: 60,
            per_day: 3,
        };
        let key = Subject::Key(2);
        let d = limiter.check(key, tight, NOON);
        assert_eq!((d.limit, d.remaining), (3, 2));
        let midnight = NOON + 12 * 3600;
        assert_eq!(d.reset, midnight);
        limiter.check(key, tight, NOON);
        limiter.check(key, tight, NOON);
        let d = limiter.check(key, tight, NOON + 120);
        assert_eq!(
            d.verdict,
            Verdict::Limited {
                retry_after: midnight - NOON - 120
            }
        );
    }

    #[test]
    fn more_than_ten_requests_while_limited_start_a_fifteen_minute_ban() {
        let limiter = RateLimiter::new(BanPolicy::default());
        let key = Subject::Key(3);
        let one = Limits {
            per_minute: 1,
            per_day: 100,
        };
        assert_eq!(limiter.check(key, one, NOON).verdict, Verdict::Allowed);
        for _ in 0..10 {
            assert!(matches!(
                limiter.check(key, one, NOON + 1).verdict,
                Verdict::Limited { .. }
            ));
        }
        assert_eq!(
            limiter.check(key, one, NOON + 2).verdict,
            Verdict::Banned { retry_after: 900 }
        );
        // Still banned in the next minute, although the window has reset.
        assert_eq!(
            limiter.check(key, one, NOON + 62).verdict,
            Verdict::Banned { retry_after: 840 }
        );
        assert_eq!(
            limiter.check(key, one, NOON + 2 + 900).verdict,
            Verdict::Allowed
        );
    }

    #[test]
    fn ban_thresholds_are_configurable() {
        let limiter = RateLimiter::new(BanPolicy {
            after: 0,
            seconds: 5,
        });
        let one = Limits {
            per_minute: 1,
            per_day: 100,
        };
        let subject = Subject::Address("192.0.2.1".parse().unwrap());
        limiter.check(subject, one, NOON);
        assert_eq!(
            limiter.check(subject, one, NOON).verdict,
            Verdict::Banned { retry_after: 5 }
        );
    }

    #[test]
    fn subjects_are_counted_apart() {
        let limiter = RateLimiter::new(BanPolicy::default());
        let one = Limits {
            per_minute: 1,
            per_day: 100,
        };
        assert_eq!(
            limiter.check(Subject::Key(1), one, NOON).verdict,
            Verdict::Allowed
        );
        assert_eq!(
            limiter.check(Subject::Key(2), one, NOON).verdict,
            Verdict::Allowed
        );
    }

    #[test]
    fn idle_entries_are_evicted_once_their_day_has_passed() {
        let limiter = RateLimiter::new(BanPolicy::default());
        for i in 0..100 {
            limiter.check(Subject::Key(i), FREE, NOON);
        }
        assert_eq!(limiter.len(), 100);
        limiter.sweep(NOON + 3600);
        assert_eq!(limiter.len(), 100, "the day windows still count");
        limiter.sweep(NOON + DAY);
        assert!(limiter.is_empty());
    }

    #[test]
    fn concurrent_checks_are_exact() {
        let limiter = std::sync::Arc::new(RateLimiter::new(BanPolicy {
            after: u32::MAX,
            seconds: 1,
        }));
        let allowed: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    let limiter = limiter.clone();
                    s.spawn(move || {
                        (0..100)
                            .filter(|_| {
                                limiter.check(Subject::Key(9), FREE, NOON).verdict
                                    == Verdict::Allowed
                            })
                            .count()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(allowed, 60);
    }
}
