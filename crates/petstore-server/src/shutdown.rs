//! The server's graceful stop, one signal for every part that must stop.
//!
//! SIGTERM or SIGINT (or [`Shutdown::stop`], for tests and embedders) sets
//! the stop and its deadline, the grace period from now
//! (`--shutdown-grace`, 30 s by default). Then, at once and side by side:
//! - the HTTP server stops accepting, finishes the requests in flight, and
//!   closes each connection as its answer ends (`on_actix`, `on_axum`);
//! - event streams end, each with a `retry:` hint (`Feed::close`);
//! - the webhook dispatcher claims nothing more, lets the attempts in
//!   flight finish, and hands back to the outbox at the deadline those
//!   that have not, so that another instance (or the next start) makes
//!   them at once rather than after their lease (`webhooks`).
//!
//! [`crate::app::Application::run_until_stopped`] waits for all of it, up
//! to the deadline, and returns.

use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// The stop, shared by every part of one server: cheap to clone.
#[derive(Debug, Clone)]
pub struct Shutdown {
    grace: Duration,
    /// `None` while running; the deadline once stopping.
    state: Arc<watch::Sender<Option<Instant>>>,
}

impl Shutdown {
    /// A stop that gives what is in flight `grace` to finish.
    pub fn new(grace: Duration) -> Self {
        Shutdown {
            grace,
            state: Arc::new(watch::Sender::new(None)),
        }
    }

    /// The grace period.
    pub fn grace(&self) -> Duration {
        self.grace
    }

    /// Starts the stop (a second call changes nothing).
    pub fn stop(&self) {
        let deadline = Instant::now() + self.grace;
        self.state.send_if_modified(|state| {
            let first = state.is_none();
            if first {
                *state = Some(deadline);
            }
            first
        });
    }

    /// The deadline, once stopping.
    pub fn deadline(&self) -> Option<Instant> {
        *self.state.borrow()
    }

    /// Waits until the stop starts; then its deadline.
    pub async fn stopping(&self) -> Instant {
        let mut state = self.state.subscribe();
        loop {
            if let Some(deadline) = *state.borrow_and_update() {
                return deadline;
            }
            // The sender lives as long as `self`: `changed` cannot fail.
            if state.changed().await.is_err() {
                return Instant::now();
            }
        }
    }

    /// Starts the stop on SIGTERM or SIGINT, from a task of the current
    /// runtime. Where the signals cannot be had, the server runs until
    /// killed, and says so.
    pub fn on_signals(&self) {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut terminate), Ok(mut interrupt)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::warn!("SIGTERM and SIGINT cannot be caught: no graceful stop");
            return;
        };
        let shutdown = self.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
            tracing::info!(grace = ?shutdown.grace, "stopping");
            shutdown.stop();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stop_is_seen_by_every_waiter_with_one_deadline() {
        let shutdown = Shutdown::new(Duration::from_secs(5));
        assert_eq!(shutdown.deadline(), None);
        let waiter = {
            let shutdown = shutdown.clone();
            tokio::spawn(async move { shutdown.stopping().await })
        };
        shutdown.stop();
        let deadline = shutdown.deadline().expect("stopping");
        shutdown.stop();
        assert_eq!(shutdown.deadline(), Some(deadline), "the first stop holds");
        assert_eq!(waiter.await.unwrap(), deadline);
        // A waiter that comes late sees it at once.
        assert_eq!(shutdown.stopping().await, deadline);
    }
}
