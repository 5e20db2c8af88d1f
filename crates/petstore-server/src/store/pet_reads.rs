//! Single pets read on PostgreSQL in rounds: while one round's statement is
//! in flight, the pets asked for meanwhile wait, and the next round reads
//! them all with one statement (`WHERE id = ANY($1)`). A lone request goes
//! alone, at once; under load a statement serves many requests, as the
//! limiter's rounds do for its decisions (`limiter/shared.rs`).
//!
//! Each request is answered by a statement that started after it arrived,
//! so it sees every write committed before it was made: nothing is cached.
//! A task spawned by the request that found no round in flight drives the
//! rounds, so a client that goes away strands no one.

use super::conn::FromRow;
use super::{Db, Result};
use crate::error::ApiError;
use crate::lock;
use petstore_api::models::Pet;
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::oneshot;

/// A request waiting for the next round: the pet's id, and where its
/// answer goes (`None`: no such pet).
type Waiting = (i64, oneshot::Sender<Result<Option<Pet>>>);

/// The rounds' state: `None` while no round is in flight, else the requests
/// for the next one.
#[derive(Debug, Default)]
pub(crate) struct PetReads(Mutex<Option<Vec<Waiting>>>);

impl Db {
    /// The pet `id`, read in the next round (see the module's docs). Runs
    /// on an actix (or tokio `LocalSet`) runtime, where the rounds' task is
    /// spawned.
    pub(super) async fn pet_in_round(&self, reads: &PetReads, id: i64) -> Result<Option<Pet>> {
        let (reply, answer) = oneshot::channel();
        let lead = {
            let mut waiting = lock(&reads.0);
            match &mut *waiting {
                Some(queue) => {
                    queue.push((id, reply));
                    false
                }
                None => {
                    *waiting = Some(vec![(id, reply)]);
                    true
                }
            }
        };
        if lead {
            let db = self.clone();
            actix_web::rt::spawn(async move { db.pet_rounds().await });
        }
        answer
            .await
            .unwrap_or_else(|_| Err(ApiError::Internal("the pet reads stopped".into())))
    }

    /// Runs rounds until no request waits.
    async fn pet_rounds(&self) {
        let Some(reads) = self.pet_reads() else {
            return;
        };
        let mut leading = Leading { reads, done: false };
        loop {
            let batch = {
                let mut waiting = lock(&reads.0);
                match &mut *waiting {
                    Some(queue) if !queue.is_empty() => std::mem::take(queue),
                    _ => {
                        // Under the lock: a request that comes after sees
                        // no round and leads its own.
                        *waiting = None;
                        leading.done = true;
                        return;
                    }
                }
            };
            // `{1,2,3}`: the ids as one array parameter.
            let ids: Vec<String> = batch.iter().map(|(id, _)| id.to_string()).collect();
            let ids = format!("{{{}}}", ids.join(","));
            let read = self
                .read(async |c| {
                    let rows = c
                        .query(
                            "SELECT id, name, category_id, status FROM pets \
                             WHERE id = ANY($1::bigint[])",
                            super::conn::args![ids],
                        )
                        .await?;
                    rows.iter()
                        .map(|r| Pet::from_row(r).map(|p| (p.id, p)))
                        .collect::<Result<HashMap<i64, Pet>>>()
                })
                .await;
            for (id, reply) in batch {
                let answer = match &read {
                    Ok(pets) => Ok(pets.get(&id).cloned()),
                    Err(e) => Err(e.relay()),
                };
                let _ = reply.send(answer);
            }
        }
    }
}

/// Held while rounds run. Dropped before they are done (the runtime
/// stopping with the task, a panic), it ends the round in flight: the
/// requests still queued are answered with an error (their senders
/// dropped) and the next request leads a new round, rather than all
/// waiting on a leader that is gone.
struct Leading<'a> {
    reads: &'a PetReads,
    /// The rounds ended with no request left (and the state says so).
    done: bool,
}

impl Drop for Leading<'_> {
    fn drop(&mut self) {
        if !self.done {
            lock(&self.reads.0).take();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_that_end_leave_no_one_waiting_on_them() {
        let reads = PetReads::default();
        let (reply, mut answer) = oneshot::channel();
        *lock(&reads.0) = Some(vec![(1, reply)]);
        drop(Leading {
            reads: &reads,
            done: false,
        });
        // The queued request is answered (its sender gone: an error), and
        // the next one will lead a round of its own.
        assert!(matches!(
            answer.try_recv(),
            Err(oneshot::error::TryRecvError::Closed)
        ));
        assert!(lock(&reads.0).is_none());
        // Rounds that ended as they should leave a new leader's queue be.
        let (reply, mut answer) = oneshot::channel();
        *lock(&reads.0) = Some(vec![(2, reply)]);
        drop(Leading {
            reads: &reads,
            done: true,
        });
        assert!(matches!(
            answer.try_recv(),
            Err(oneshot::error::TryRecvError::Empty)
        ));
        assert!(lock(&reads.0).is_some());
    }
}
