//! Single pets read on PostgreSQL in rounds (`crate::rounds`): while a
//! round's statement is in flight, the pets asked for meanwhile wait, and
//! the next round reads them all with one statement (`WHERE id = ANY($1)`).
//! A lone request goes alone, at once.
//!
//! Each request is answered by a statement that started after it arrived,
//! so it sees every write committed before it was made: nothing is cached.

use super::catalog::select_pets;
use super::conn::{postgres_row, FromRow};
use super::{Db, Result};
use crate::rounds::Rounds;
use petstore_api::models::Pet;
use std::collections::HashMap;
use std::sync::Arc;

/// Rounds of one key, a pet's id each, `None` for no such pet.
pub(crate) type PetReads = Arc<Rounds<(), i64, Option<Pet>>>;

impl Db {
    /// The pet `id`, read in the next round (see the module's docs). Runs
    /// on an actix (or tokio `LocalSet`) runtime, where the rounds' task is
    /// spawned.
    pub(super) async fn pet_in_round(&self, reads: &PetReads, id: i64) -> Result<Option<Pet>> {
        let db = self.clone();
        reads
            .ask((), id, async move |_, ids: Vec<i64>| {
                db.pets_by_id(&ids).await
            })
            .await
    }

    /// The pets of `ids`, in one statement, in the same order.
    async fn pets_by_id(&self, ids: &[i64]) -> Result<Vec<Option<Pet>>> {
        // The ids as one array parameter, bound in binary: sent as text
        // (`{1,2,3}`), parsing it was a tenth of the database's CPU under
        // a load of single reads.
        let found = self
            .read(async |c| {
                let rows = sqlx::query(concat!(select_pets!(), " WHERE id = ANY($1)"))
                    .bind(ids)
                    .fetch_all(c.postgres("pets read in rounds")?)
                    .await?;
                rows.iter()
                    .map(|r| Pet::from_row(&postgres_row(r)?).map(|p| (p.id, p)))
                    .collect::<Result<HashMap<i64, Pet>>>()
            })
            .await?;
        Ok(ids.iter().map(|id| found.get(id).cloned()).collect())
    }
}
