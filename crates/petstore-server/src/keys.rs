//! API keys: random, shown once, stored only as a SHA-256 hash, each with a plan
//! that sets its rate limits.

use crate::error::ApiError;
use crate::lock;
use crate::store::conn::{args, Columns, Conn, Row};
use crate::store::{Backend, Db};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// Every key starts with this, so that leaked keys are easy to recognise.
const KEY_PREFIX: &str = "psk_";
/// Random bytes per key: 192 bits.
const KEY_BYTES: usize = 24;
const _: () = assert!(KEY_BYTES * 8 >= 128, "keys carry at least 128 random bits");

/// A plan: the request limits of the keys that have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    Free,
    Pro,
    Business,
    Enterprise,
}

impl Plan {
    /// (per minute, per day); enterprise limits are set per key.
    pub fn default_limits(self) -> Option<Limits> {
        let (per_minute, per_day) = match self {
            Plan::Free => (60, 1_000),
            Plan::Pro => (300, 10_000),
            Plan::Business => (1_000, 100_000),
            Plan::Enterprise => return None,
        };
        Some(Limits {
            per_minute,
            per_day,
        })
    }

    /// The event streams (`GET /v1/store/events`) a key may hold open on
    /// one instance.
    pub fn max_streams(self) -> usize {
        match self {
            Plan::Free => 2,
            Plan::Pro => 10,
            Plan::Business | Plan::Enterprise => 50,
        }
    }

    /// The webhook endpoints a key may hold.
    pub fn max_webhooks(self) -> usize {
        match self {
            Plan::Free => 2,
            Plan::Pro => 10,
            Plan::Business | Plan::Enterprise => 50,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Pro => "pro",
            Plan::Business => "business",
            Plan::Enterprise => "enterprise",
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Plan {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "free" => Ok(Plan::Free),
            "pro" => Ok(Plan::Pro),
            "business" => Ok(Plan::Business),
            "enterprise" => Ok(Plan::Enterprise),
            other => Err(format!(
                "unknown plan `{other}`: expected free, pro, business or enterprise"
            )),
        }
    }
}

/// Requests allowed per window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub per_minute: u32,
    pub per_day: u32,
}

/// A secret API key. Its `Debug` and `Display` never show the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The key itself, for showing it once at creation.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// What the server knows of a key it authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    pub id: i64,
    pub plan: Plan,
    pub limits: Limits,
}

/// A row of `keys list`.
#[derive(Debug, Clone)]
pub struct KeyRecord {
    pub id: i64,
    pub prefix: String,
    pub name: Option<String>,
    pub plan: Plan,
    pub limits: Limits,
    pub created_at: String,
    pub revoked_at: Option<String>,
}

fn hash(key: &str) -> String {
    hex(&Sha256::digest(key.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// Makes a new random key.
pub fn generate() -> Result<Secret, getrandom::Error> {
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes)?;
    Ok(Secret(format!("{KEY_PREFIX}{}", hex(&bytes))))
}

/// Creates a key with the plan's limits, or the given ones. Returns its id and
/// the secret, which is not stored and cannot be shown again.
pub async fn create(
    db: &Db,
    plan: Plan,
    limits: Option<Limits>,
    name: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(i64, Secret), String> {
    let secret = generate().map_err(|e| format!("no random source: {e}"))?;
    let row = NewKey::new(&secret, plan, limits, name, now)?;
    let id = db
        .write(async move |c| row.insert(c).await)
        .await
        .map_err(|e| format!("cannot store the key: {e}"))?;
    Ok((id, secret))
}

/// A key's row, as stored: never the secret itself.
struct NewKey {
    hash: String,
    prefix: String,
    name: Option<String>,
    plan: &'static str,
    limits: Limits,
    created_at: String,
}

impl NewKey {
    fn new(
        secret: &Secret,
        plan: Plan,
        limits: Option<Limits>,
        name: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<NewKey, String> {
        let limits = limits
            .or_else(|| plan.default_limits())
            .ok_or("enterprise keys need their limits: give --per-minute and --per-day")?;
        if limits.per_minute == 0 || limits.per_day == 0 {
            return Err("limits must be at least 1".into());
        }
        Ok(NewKey {
            hash: hash(&secret.0),
            prefix: secret.0.chars().take(KEY_PREFIX.len() + 8).collect(),
            name: name.map(str::to_string),
            plan: plan.as_str(),
            limits,
            created_at: now.to_rfc3339(),
        })
    }

    async fn insert(self, c: &mut Conn<'_>) -> Result<i64, ApiError> {
        c.insert(
            "INSERT INTO api_keys (hash, prefix, name, plan, per_minute, per_day, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            args![
                self.hash,
                self.prefix,
                self.name,
                self.plan,
                self.limits.per_minute,
                self.limits.per_day,
                self.created_at
            ],
        )
        .await
    }
}

/// Keys this instance has seen valid, so that most requests cost no
/// database read. An entry is trusted for `ttl`, then checked again: a key
/// revoked (by `keys revoke`, in another process) stops working within that
/// time. Unknown keys are never remembered, so a flood of made-up keys
/// cannot push real ones out (the gate limits such requests per client
/// address, as anonymous ones). The cache is emptied when it reaches
/// `capacity` keys.
///
/// Keys are found by the SHA-256 digest of what was presented, in memory and
/// in the database: every comparison is of digests, which a caller cannot
/// steer (a guess one character away from a key has a digest unrelated to
/// the key's), so how long a comparison takes says nothing about how close a
/// guess came.
#[derive(Debug)]
pub struct KeyCache {
    entries: std::sync::Mutex<std::collections::HashMap<String, (KeyInfo, std::time::Instant)>>,
    ttl: std::time::Duration,
    capacity: usize,
}

impl KeyCache {
    pub fn new(ttl: std::time::Duration, capacity: usize) -> Self {
        KeyCache {
            entries: Default::default(),
            ttl,
            capacity,
        }
    }

    /// The key with this secret, unless it is unknown or revoked: from
    /// memory while its entry is fresh, else from the database.
    pub async fn authenticate(
        &self,
        db: &Db,
        presented: &str,
    ) -> Result<Option<KeyInfo>, ApiError> {
        let hash = hash(presented);
        let fresh = lock(&self.entries)
            .get(&hash)
            .filter(|(_, at)| at.elapsed() < self.ttl)
            .map(|(info, _)| info.clone());
        if fresh.is_some() {
            return Ok(fresh);
        }
        let info = lookup(db, &hash).await?;
        let mut entries = lock(&self.entries);
        match &info {
            None => {
                entries.remove(&hash);
            }
            Some(info) => {
                if entries.len() >= self.capacity {
                    entries.clear();
                }
                entries.insert(hash, (info.clone(), std::time::Instant::now()));
            }
        }
        Ok(info)
    }

    /// How many keys are remembered.
    pub fn len(&self) -> usize {
        lock(&self.entries).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

async fn lookup(db: &Db, hash: &str) -> Result<Option<KeyInfo>, ApiError> {
    let row = db
        .read(async |c| {
            c.query_opt(
                "SELECT id, plan, per_minute, per_day FROM api_keys WHERE hash = $1 AND revoked_at IS NULL",
                args![hash],
            )
            .await
        })
        .await?;
    row.map(|r| {
        Ok(KeyInfo {
            id: r.int(0)?,
            plan: plan_of(&r, 1)?,
            limits: limits_of(&r, 2)?,
        })
    })
    .transpose()
}

fn plan_of(r: &Row, i: usize) -> Result<Plan, ApiError> {
    r.text(i)?
        .parse()
        .map_err(|e: String| ApiError::Internal(e.into()))
}

/// The limits in columns `i` (per minute) and `i + 1` (per day).
fn limits_of(r: &Row, i: usize) -> Result<Limits, ApiError> {
    let limit = |i| u32::try_from(r.int(i)?).map_err(|e| ApiError::Internal(Box::new(e)));
    Ok(Limits {
        per_minute: limit(i)?,
        per_day: limit(i + 1)?,
    })
}

pub async fn list(db: &Db) -> Result<Vec<KeyRecord>, ApiError> {
    let rows = db
        .read(async |c| {
            c.query(
                "SELECT id, prefix, name, plan, per_minute, per_day, created_at, revoked_at FROM api_keys ORDER BY id",
                &[],
            )
            .await
        })
        .await?;
    rows.iter()
        .map(|r| {
            Ok(KeyRecord {
                id: r.int(0)?,
                prefix: r.text(1)?.to_string(),
                name: r.opt_text(2)?.map(str::to_string),
                plan: plan_of(r, 3)?,
                limits: limits_of(r, 4)?,
                created_at: r.text(6)?.to_string(),
                revoked_at: r.opt_text(7)?.map(str::to_string),
            })
        })
        .collect()
}

/// Revokes a key; false when there is no such unrevoked key.
pub async fn revoke(db: &Db, id: i64, now: DateTime<Utc>) -> Result<bool, ApiError> {
    let changed = db
        .write(async move |c| {
            c.execute(
                "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
                args![now.to_rfc3339(), id],
            )
            .await
        })
        .await?;
    Ok(changed > 0)
}

/// The first start's key: a free-plan key named `bootstrap`, created only
/// when the database has never had a key. Checking and creating are one
/// transaction; on PostgreSQL it locks the keys table first, so instances
/// started together on an empty database create one key between them.
pub async fn bootstrap(db: &Db, now: DateTime<Utc>) -> Result<Option<(i64, Secret)>, String> {
    let secret = generate().map_err(|e| format!("no random source: {e}"))?;
    let row = NewKey::new(&secret, Plan::Free, None, Some("bootstrap"), now)?;
    let id = db
        .write(async move |c| {
            if c.backend() == Backend::Postgres {
                // Readers of the table (authentication) are not blocked.
                c.execute("LOCK TABLE api_keys IN EXCLUSIVE MODE", &[])
                    .await?;
            }
            let keys = c
                .query_one("SELECT count(*) FROM api_keys", &[])
                .await?
                .int(0)?;
            match keys {
                0 => row.insert(c).await.map(Some),
                _ => Ok(None),
            }
        })
        .await
        .map_err(|e| format!("cannot store the key: {e}"))?;
    Ok(id.map(|id| (id, secret)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plans the reference page shows (the spec's `info.x-plans`) are
    /// the plans the server enforces, with the same limits.
    #[test]
    fn the_specs_plans_are_the_enforced_plans() {
        let spec: serde_yaml::Value = serde_yaml::from_str(petstore_api::SPEC_YAML).unwrap();
        let listed = spec["info"]["x-plans"].as_sequence().expect("info.x-plans");
        let mut names = Vec::new();
        for entry in listed {
            let name = entry["name"].as_str().unwrap();
            let plan: Plan = name.parse().unwrap();
            let stated = entry["perMinute"].as_u64().map(|per_minute| Limits {
                per_minute: per_minute as u32,
                per_day: entry["perDay"].as_u64().unwrap() as u32,
            });
            assert_eq!(stated, plan.default_limits(), "plan {name}");
            names.push(name);
        }
        assert_eq!(names, ["free", "pro", "business", "enterprise"]);
    }

    #[test]
    fn keys_are_long_random_and_never_printed_by_debug() {
        let a = generate().unwrap();
        let b = generate().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), KEY_PREFIX.len() + 2 * KEY_BYTES);
        assert_eq!(format!("{a:?}"), "Secret(..)");
    }

    #[test]
    fn hashes_are_sha256_hex() {
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn plans() {
        assert_eq!(
            Plan::Free.default_limits(),
            Some(Limits {
                per_minute: 60,
                per_day: 1000
            })
        );
        assert_eq!(Plan::Enterprise.default_limits(), None);
        assert_eq!("pro".parse::<Plan>(), Ok(Plan::Pro));
        assert!("gold".parse::<Plan>().is_err());
    }

    #[actix_web::test]
    async fn made_up_keys_are_not_remembered_and_cannot_push_real_ones_out() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("k.db").display());
        let db = Db::connect(&url).await.unwrap();
        let (id, key) = create(&db, Plan::Free, None, None, chrono::Utc::now())
            .await
            .unwrap();
        let cache = KeyCache::new(std::time::Duration::from_secs(60), 4);
        let found = cache.authenticate(&db, key.expose()).await.unwrap();
        assert_eq!(found.map(|k| k.id), Some(id));
        for n in 0..100 {
            let guess = format!("psk_{n:048}");
            assert_eq!(cache.authenticate(&db, &guess).await.unwrap(), None);
        }
        assert_eq!(cache.len(), 1, "only the real key is remembered");
        // Still answered from memory: gone from the database, it works on
        // until its entry is older than the ttl.
        db.write(async move |c| {
            c.execute("DELETE FROM api_keys WHERE id = $1", args![id])
                .await?;
            Ok(())
        })
        .await
        .unwrap();
        let cached = cache.authenticate(&db, key.expose()).await.unwrap();
        assert_eq!(cached.map(|k| k.id), Some(id));
    }
}
