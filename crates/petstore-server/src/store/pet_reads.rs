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
        loop {
            let batch = {
                let mut waiting = lock(&reads.0);
                match &mut *waiting {
                    Some(queue) if !queue.is_empty() => std::mem::take(queue),
                    _ => {
                        *waiting = None;
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
