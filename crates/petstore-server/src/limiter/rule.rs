//! The decision rule, one for every limiter: per subject, a minute and a day
//! window, both fixed and aligned to UTC (`start = now - now % size`); a
//! request is allowed when both have room, else it is 429 with
//! `Retry-After` set to the reset of the window that blocks longest; the
//! 11th request while limited (configurable) starts a ban. The headers
//! report the window with the fewest requests left.

use super::{BanPolicy, Decision, Verdict, DAY, MINUTE};
use crate::keys::Limits;

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Window {
    pub(super) start: i64,
    pub(super) count: u32,
}

impl Window {
    /// The window of `size` seconds holding `now`, keeping the count if it is
    /// this one.
    pub(super) fn roll(&mut self, now: i64, size: i64) {
        let start = now - now.rem_euclid(size);
        if self.start != start {
            *self = Window { start, count: 0 };
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Entry {
    pub(super) minute: Window,
    pub(super) day: Window,
    /// Requests sent while limited, since the limit started.
    pub(super) while_limited: u32,
    pub(super) banned_until: Option<i64>,
}

impl Entry {
    /// Whether both windows have passed and no ban runs: the entry can go.
    pub(super) fn is_idle(&self, now: i64) -> bool {
        self.banned_until.is_none_or(|t| t <= now) && self.day.start + DAY <= now
    }

    /// Counts one request at `now` (Unix seconds) against `limits`, and
    /// decides. The one rule for both the in-memory and the shared limiter.
    pub(super) fn decide(&mut self, limits: Limits, now: i64, ban: BanPolicy) -> Decision {
        self.minute.roll(now, MINUTE);
        self.day.roll(now, DAY);
        let windows = [
            (limits.per_minute, self.minute, MINUTE),
            (limits.per_day, self.day, DAY),
        ];

        if let Some(until) = self.banned_until {
            if until > now {
                return report(
                    &windows,
                    Verdict::Banned {
                        retry_after: until - now,
                    },
                );
            }
            self.banned_until = None;
            self.while_limited = 0;
        }

        // The windows already full, latest reset first: that one blocks longest.
        let blocking = windows
            .iter()
            .filter(|(limit, w, _)| w.count >= *limit)
            .map(|(_, w, size)| w.start + size)
            .max();
        if let Some(reset) = blocking {
            self.while_limited += 1;
            if self.while_limited > ban.after {
                let until = now + ban.seconds;
                self.banned_until = Some(until);
                return report(
                    &windows,
                    Verdict::Banned {
                        retry_after: until - now,
                    },
                );
            }
            return report(
                &windows,
                Verdict::Limited {
                    retry_after: (reset - now).max(1),
                },
            );
        }

        self.while_limited = 0;
        self.minute.count += 1;
        self.day.count += 1;
        let windows = [
            (limits.per_minute, self.minute, MINUTE),
            (limits.per_day, self.day, DAY),
        ];
        report(&windows, Verdict::Allowed)
    }
}

/// The header values: the window with the fewest requests left (the minute
/// window on a tie).
fn report(windows: &[(u32, Window, i64); 2], verdict: Verdict) -> Decision {
    let (limit, window, size) = windows
        .iter()
        .min_by_key(|(limit, w, _)| limit.saturating_sub(w.count))
        .copied()
        .unwrap_or((0, Window::default(), MINUTE));
    Decision {
        verdict,
        limit,
        remaining: limit.saturating_sub(window.count),
        reset: window.start + size,
    }
}
