//! The limiter of a single process (SQLite): state in memory, shared by all
//! workers. It is created before `HttpServer::new` and handed to every
//! worker, so the limits are exact whatever the number of workers (a
//! per-worker limiter would multiply them).
//!
//! - State is split over 64 shards by a hash of the subject, each a
//!   `Mutex<HashMap>` held for one decision (a few hundred nanoseconds), so
//!   workers rarely contend.
//! - Every 4096 decisions a shard drops entries whose day window has passed
//!   and that are not banned: memory is bounded by the subjects seen in the
//!   current UTC day (about 100 bytes each). Evicting sooner would forget
//!   day counts and let a key exceed its daily limit.
//! - Time comes from the caller (the injected clock): tests move it instead
//!   of sleeping.

use super::rule::Entry;
use super::{BanPolicy, Decision, Subject, SWEEP_EVERY};
use crate::keys::Limits;
use crate::lock;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

const SHARDS: usize = 64;

#[derive(Debug, Default)]
struct Shard {
    entries: HashMap<Subject, Entry>,
    decisions: u32,
}

/// The limiter all workers share.
#[derive(Debug)]
pub struct RateLimiter {
    shards: Vec<Mutex<Shard>>,
    ban: BanPolicy,
}

impl RateLimiter {
    pub fn new(ban: BanPolicy) -> Self {
        RateLimiter {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            ban,
        }
    }

    fn shard(&self, subject: &Subject) -> &Mutex<Shard> {
        let mut hasher = DefaultHasher::new();
        subject.hash(&mut hasher);
        &self.shards[(hasher.finish() as usize) % SHARDS]
    }

    /// Counts one request of `subject` at `now` (Unix seconds) against
    /// `limits`, and decides.
    pub fn check(&self, subject: Subject, limits: Limits, now: i64) -> Decision {
        let mut shard = lock(self.shard(&subject));
        shard.decisions = shard.decisions.wrapping_add(1);
        if shard.decisions % SWEEP_EVERY == 0 {
            shard.entries.retain(|_, e| !e.is_idle(now));
        }
        shard
            .entries
            .entry(subject)
            .or_default()
            .decide(limits, now, self.ban)
    }

    /// Entries held, for tests of eviction.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| lock(s).entries.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every entry whose windows have passed and that is not banned.
    pub fn sweep(&self, now: i64) {
        for shard in &self.shards {
            lock(shard).entries.retain(|_, e| !e.is_idle(now));
        }
    }
}
