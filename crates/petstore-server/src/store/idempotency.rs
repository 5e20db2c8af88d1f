//! Idempotency keys: a POST retried with the same `Idempotency-Key` and body
//! within 24 hours gets the first answer back without the work being done
//! again; the same key with another body is refused. The answer is recorded
//! in the transaction that did the work, so both commit or neither does.
//!
//! On PostgreSQL, requests with one key queue on a transaction-scoped
//! advisory lock, so that concurrent retries on any instance run one after
//! the other and all but the first replay its answer; SQLite's single writer
//! already runs them one after the other.

use super::conn::{args, Columns, Conn};
use super::{corrupt, Backend, Db, Result};
use crate::error::ApiError;

/// How long an idempotency key is remembered.
const IDEMPOTENCY_SECONDS: i64 = 24 * 3600;

/// A POST sent with an `Idempotency-Key`: who sent it, the key, and a hash of
/// what was asked (operation and body), so that a retry can be told from a
/// reuse of the key for something else.
#[derive(Debug, Clone)]
pub struct Idempotency {
    pub key_id: i64,
    pub key: String,
    pub request_hash: String,
    /// Unix seconds.
    pub now: i64,
}

impl Idempotency {
    /// A 64-bit name for this (API key, idempotency key) pair.
    fn lock_id(&self) -> i64 {
        use sha2::{Digest, Sha256};
        let digest = Sha256::new()
            .chain_update(self.key_id.to_be_bytes())
            .chain_update(self.key.as_bytes())
            .finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        i64::from_be_bytes(first)
    }
}

impl Db {
    /// A write that an `Idempotency-Key` may repeat: a retry of the same
    /// request within 24 hours gets the first answer back without the work
    /// being done again; the answer is recorded in the transaction that did
    /// the work. Without a key it is a plain [`Db::write`].
    pub(super) async fn write_idempotent<T>(
        &self,
        idem: Option<&Idempotency>,
        op: impl AsyncFnOnce(&mut Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T>
    where
        T: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
    {
        let idem = idem.cloned();
        self.write(async move |c| {
            if let Some(previous) = replay(c, idem.as_ref()).await? {
                return Ok(previous);
            }
            let answer = op(c).await?;
            remember(c, idem.as_ref(), &answer).await?;
            Ok(answer)
        })
        .await
    }
}

/// The response remembered for this idempotency key, if any: the same request
/// within 24 hours gets it again; another request under the same key is refused.
///
/// On PostgreSQL it first takes a transaction-scoped advisory lock on the key,
/// so that concurrent retries (on any instance) run one after the other and
/// all but the first replay its answer. SQLite's single writer already runs
/// them one after the other.
async fn replay<T: serde::de::DeserializeOwned>(
    c: &mut Conn<'_>,
    idem: Option<&Idempotency>,
) -> Result<Option<T>> {
    let Some(idem) = idem else { return Ok(None) };
    if c.backend() == Backend::Postgres {
        c.query(
            "SELECT 1 FROM (SELECT pg_advisory_xact_lock($1)) AS locked",
            args![idem.lock_id()],
        )
        .await?;
    }
    let row = c
        .query_opt(
            "SELECT request_hash, response FROM idempotency WHERE key_id = $1 AND idem_key = $2 AND created_at > $3",
            args![idem.key_id, &idem.key, idem.now - IDEMPOTENCY_SECONDS],
        )
        .await?;
    let Some(row) = row else { return Ok(None) };
    if row.text(0)? != idem.request_hash {
        return Err(ApiError::unprocessable(
            "idempotency_key_reused",
            "this Idempotency-Key was used for a different request in the last 24 hours",
        ));
    }
    serde_json::from_str(row.text(1)?)
        .map(Some)
        .map_err(corrupt)
}

/// Records the response to an idempotent request, in the transaction that did
/// the work, and forgets keys older than 24 hours.
async fn remember<T: serde::Serialize>(
    c: &mut Conn<'_>,
    idem: Option<&Idempotency>,
    response: &T,
) -> Result<()> {
    let Some(idem) = idem else { return Ok(()) };
    let response = serde_json::to_string(response).map_err(corrupt)?;
    c.execute(
        "DELETE FROM idempotency WHERE created_at <= $1",
        args![idem.now - IDEMPOTENCY_SECONDS],
    )
    .await?;
    c.execute(
        "INSERT INTO idempotency (key_id, idem_key, request_hash, response, created_at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (key_id, idem_key) DO UPDATE SET request_hash = excluded.request_hash, \
         response = excluded.response, created_at = excluded.created_at",
        args![idem.key_id, &idem.key, &idem.request_hash, response, idem.now],
    )
    .await?;
    Ok(())
}
