//! Standard Webhooks signatures (<https://www.standardwebhooks.com>): what a
//! sender puts on a delivery and what a receiver checks before it believes
//! one.
//!
//! A delivery carries three headers: `webhook-id` (the message id, the same
//! on every retry, which a receiver may use to drop duplicates),
//! `webhook-timestamp` (Unix seconds of the attempt) and
//! `webhook-signature`, a space-separated list of `v1,<base64>`: each an
//! HMAC-SHA256 of `"{id}.{timestamp}.{body}"` keyed with the secret's
//! bytes. The secret is shown to users as `whsec_` and the base64 of its
//! bytes. A list lets a sender sign with an old and a new secret while
//! they rotate; a receiver accepts a delivery when any `v1` signature in it
//! is one of its secret's. Signatures of other versions (`v1a`, asymmetric)
//! are skipped.
//!
//! Everything here works on strings and bytes, not on one framework's
//! request type, so that any server glue reads the headers and calls
//! [`WebhookSecret::verify`].

use base64::Engine as _;
use hmac::{Mac as _, SimpleHmac};
use std::fmt;
use std::time::Duration;

/// The header naming the message (`webhook-id`).
pub const WEBHOOK_ID: &str = "webhook-id";
/// The header with the attempt's Unix time in seconds (`webhook-timestamp`).
pub const WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
/// The header with the signatures (`webhook-signature`).
pub const WEBHOOK_SIGNATURE: &str = "webhook-signature";

/// How far from the receiver's clock a delivery's timestamp may be, either
/// way, unless the receiver says otherwise: older ones may be replays.
pub const WEBHOOK_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// The prefix a secret is shown with.
const PREFIX: &str = "whsec_";

type HmacSha256 = SimpleHmac<sha2::Sha256>;

/// A signing secret: its bytes. Never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret {
    key: Vec<u8>,
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(***)")
    }
}

/// Why a delivery is not believed, or a secret not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookError {
    /// A header the signature needs is absent (its name).
    MissingHeader(&'static str),
    /// `webhook-timestamp` is not a whole number of seconds.
    InvalidTimestamp,
    /// The timestamp is older than the tolerance allows (a replay, or a
    /// sender's clock far behind).
    TooOld,
    /// The timestamp is further ahead than the tolerance allows.
    InTheFuture,
    /// No `v1` signature in the header is the secret's for this body.
    InvalidSignature,
    /// The secret is not `whsec_` and base64, or is empty.
    InvalidSecret,
}

impl fmt::Display for WebhookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebhookError::MissingHeader(name) => write!(f, "the `{name}` header is missing"),
            WebhookError::InvalidTimestamp => {
                f.write_str("`webhook-timestamp` is not a number of seconds")
            }
            WebhookError::TooOld => f.write_str("the delivery's timestamp is too old"),
            WebhookError::InTheFuture => f.write_str("the delivery's timestamp is in the future"),
            WebhookError::InvalidSignature => {
                f.write_str("no signature of the delivery is the secret's")
            }
            WebhookError::InvalidSecret => {
                f.write_str("a webhook secret is `whsec_` and the base64 of its bytes")
            }
        }
    }
}

impl std::error::Error for WebhookError {}

impl WebhookSecret {
    /// The secret of `bytes` (Standard Webhooks asks for 24 to 64 random
    /// bytes); `None` when empty.
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Option<Self> {
        let key = bytes.into();
        (!key.is_empty()).then_some(WebhookSecret { key })
    }

    /// The secret as users are shown it: `whsec_` and base64, the prefix
    /// optional.
    pub fn parse(text: &str) -> Result<Self, WebhookError> {
        let encoded = text.trim().strip_prefix(PREFIX).unwrap_or(text.trim());
        let key = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|_| WebhookError::InvalidSecret)?;
        WebhookSecret::from_bytes(key).ok_or(WebhookError::InvalidSecret)
    }

    /// The secret as users are shown it (`whsec_...`).
    pub fn expose(&self) -> String {
        format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::STANDARD.encode(&self.key)
        )
    }

    fn mac(&self, id: &str, timestamp: i64, body: &[u8]) -> HmacSha256 {
        let mut mac =
            HmacSha256::new_from_slice(&self.key).expect("HMAC takes a key of any length");
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac
    }

    /// The `webhook-signature` value of a delivery of `body` as message
    /// `id` at `timestamp` (Unix seconds): `v1,<base64>`.
    pub fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        let signature = self.mac(id, timestamp, body).finalize().into_bytes();
        format!(
            "v1,{}",
            base64::engine::general_purpose::STANDARD.encode(signature)
        )
    }

    /// Whether a delivery is this secret's: its headers' values (`None`
    /// for one absent), its body as received, the receiver's time `now`
    /// (Unix seconds) and how far the timestamp may stray from it. The
    /// signatures are compared in constant time.
    pub fn verify(
        &self,
        headers: DeliveryHeaders<'_>,
        body: &[u8],
        now: i64,
        tolerance: Duration,
    ) -> Result<(), WebhookError> {
        let id = headers.id.ok_or(WebhookError::MissingHeader(WEBHOOK_ID))?;
        let timestamp = headers
            .timestamp
            .ok_or(WebhookError::MissingHeader(WEBHOOK_TIMESTAMP))?;
        let signatures = headers
            .signature
            .ok_or(WebhookError::MissingHeader(WEBHOOK_SIGNATURE))?;
        let timestamp: i64 = timestamp
            .trim()
            .parse()
            .map_err(|_| WebhookError::InvalidTimestamp)?;
        let tolerance = i64::try_from(tolerance.as_secs()).unwrap_or(i64::MAX);
        if now.saturating_sub(timestamp) > tolerance {
            return Err(WebhookError::TooOld);
        }
        if timestamp.saturating_sub(now) > tolerance {
            return Err(WebhookError::InTheFuture);
        }
        let expected = self.mac(id, timestamp, body);
        let matches = signatures
            .split(' ')
            .filter_map(|s| s.split_once(','))
            .filter(|(version, _)| *version == "v1")
            .filter_map(|(_, signature)| {
                base64::engine::general_purpose::STANDARD
                    .decode(signature)
                    .ok()
            })
            .any(|signature| expected.clone().verify_slice(&signature).is_ok());
        if matches {
            Ok(())
        } else {
            Err(WebhookError::InvalidSignature)
        }
    }
}

/// What a receiver of signed webhooks knows, for the generated glue to
/// check each delivery before its handler runs: the secrets deliveries may
/// be signed with (more than one while a secret rotates) and how far a
/// delivery's timestamp may stray from the receiver's clock.
pub trait Signatures {
    /// The secrets a delivery's signature may be made with; one of them
    /// must match.
    fn webhook_secrets(&self) -> &[WebhookSecret];

    /// How far from now a delivery's timestamp may be, either way.
    fn webhook_tolerance(&self) -> Duration {
        WEBHOOK_TOLERANCE
    }
}

/// A delivery's body once its signature is verified: the request's body,
/// read whole (up to `limit` bytes), if one of `signatures`' secrets
/// signed it within the tolerance; else a 401 rejection saying why.
#[cfg(feature = "serving")]
pub async fn verified(
    request: &super::RequestContext,
    payload: impl super::Payload,
    limit: usize,
    signatures: &(impl Signatures + ?Sized),
) -> Result<impl super::Payload, super::Rejection> {
    let body = super::read_body(request, payload, limit).await?;
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    let headers = DeliveryHeaders {
        id: header(WEBHOOK_ID),
        timestamp: header(WEBHOOK_TIMESTAMP),
        signature: header(WEBHOOK_SIGNATURE),
    };
    let now = unix_now();
    let tolerance = signatures.webhook_tolerance();
    let mut outcome = Err(WebhookError::InvalidSignature);
    for secret in signatures.webhook_secrets() {
        outcome = secret.verify(headers, &body, now, tolerance);
        if outcome.is_ok() || !matches!(outcome, Err(WebhookError::InvalidSignature)) {
            break;
        }
    }
    match outcome {
        Ok(()) => {
            let whole: Result<bytes::Bytes, super::BodyError> = Ok(body);
            Ok(futures_util::stream::once(std::future::ready(whole)))
        }
        Err(e) => Err(super::Rejection::new(
            super::RejectionKind::Unauthorized,
            format!("the delivery is not believed: {e}"),
        )),
    }
}

/// The current Unix time in seconds: when a delivery is signed (the
/// client's side) or checked (the serving side).
#[cfg(any(feature = "client", feature = "serving"))]
pub(crate) fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The values of a delivery's three headers, as received (`None` for one
/// absent).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeliveryHeaders<'a> {
    /// `webhook-id`.
    pub id: Option<&'a str>,
    /// `webhook-timestamp`.
    pub timestamp: Option<&'a str>,
    /// `webhook-signature`.
    pub signature: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectors of the Standard Webhooks libraries' own tests
    /// (standard-webhooks/standard-webhooks: `libraries/rust/src/lib.rs`,
    /// `libraries/javascript/src/webhook.test.ts`).
    const VECTORS: [(&str, &str, i64, &str, &str); 2] = [
        (
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1649367553,
            r#"{"email":"test@example.com","username":"test_user"}"#,
            "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=",
        ),
        (
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            r#"{"test": 2432232314}"#,
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ),
    ];

    fn headers<'a>(id: &'a str, timestamp: &'a str, signature: &'a str) -> DeliveryHeaders<'a> {
        DeliveryHeaders {
            id: Some(id),
            timestamp: Some(timestamp),
            signature: Some(signature),
        }
    }

    #[test]
    fn signatures_match_the_published_vectors_and_verify() {
        for (secret, id, timestamp, body, signature) in VECTORS {
            let secret = WebhookSecret::parse(secret).unwrap();
            assert_eq!(secret.sign(id, timestamp, body.as_bytes()), signature);
            let ts = timestamp.to_string();
            let verified = secret.verify(
                headers(id, &ts, signature),
                body.as_bytes(),
                timestamp,
                WEBHOOK_TOLERANCE,
            );
            assert_eq!(verified, Ok(()));
            // One byte of the body changed, or another id: not believed.
            let tampered = body.replace('2', "3").replace("test_user", "test_usex");
            let other = secret.verify(
                headers(id, &ts, signature),
                tampered.as_bytes(),
                timestamp,
                WEBHOOK_TOLERANCE,
            );
            assert_eq!(other, Err(WebhookError::InvalidSignature));
            let moved = secret.verify(
                headers("msg_other", &ts, signature),
                body.as_bytes(),
                timestamp,
                WEBHOOK_TOLERANCE,
            );
            assert_eq!(moved, Err(WebhookError::InvalidSignature));
        }
    }

    #[test]
    fn any_v1_signature_of_a_list_may_be_the_secrets() {
        let (secret, id, timestamp, body, signature) = VECTORS[1];
        let secret = WebhookSecret::parse(secret).unwrap();
        let ts = timestamp.to_string();
        let list = format!(
            "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,{0} v1a,{0} {signature} v1,not-base64",
            &signature[3..]
        );
        let check = |list: &str| {
            secret.verify(
                headers(id, &ts, list),
                body.as_bytes(),
                timestamp,
                WEBHOOK_TOLERANCE,
            )
        };
        assert_eq!(check(&list), Ok(()));
        // Only other versions carry the right bytes: refused.
        let other_versions = format!("v2,{0} v1a,{0}", &signature[3..]);
        assert_eq!(check(&other_versions), Err(WebhookError::InvalidSignature));
        assert_eq!(check("v1,"), Err(WebhookError::InvalidSignature));
    }

    #[test]
    fn a_timestamp_outside_the_tolerance_or_a_missing_header_is_refused() {
        let (secret, id, timestamp, body, signature) = VECTORS[1];
        let secret = WebhookSecret::parse(secret).unwrap();
        let ts = timestamp.to_string();
        let at = |now: i64| {
            secret.verify(
                headers(id, &ts, signature),
                body.as_bytes(),
                now,
                WEBHOOK_TOLERANCE,
            )
        };
        assert_eq!(at(timestamp + 300), Ok(()));
        assert_eq!(at(timestamp - 300), Ok(()));
        assert_eq!(at(timestamp + 301), Err(WebhookError::TooOld));
        assert_eq!(at(timestamp - 301), Err(WebhookError::InTheFuture));
        let bad = secret.verify(
            headers(id, "hello", signature),
            b"",
            timestamp,
            WEBHOOK_TOLERANCE,
        );
        assert_eq!(bad, Err(WebhookError::InvalidTimestamp));
        for (missing, expected) in [
            (
                DeliveryHeaders {
                    id: None,
                    ..headers(id, &ts, signature)
                },
                WEBHOOK_ID,
            ),
            (
                DeliveryHeaders {
                    timestamp: None,
                    ..headers(id, &ts, signature)
                },
                WEBHOOK_TIMESTAMP,
            ),
            (
                DeliveryHeaders {
                    signature: None,
                    ..headers(id, &ts, signature)
                },
                WEBHOOK_SIGNATURE,
            ),
        ] {
            let refused = secret.verify(missing, body.as_bytes(), timestamp, WEBHOOK_TOLERANCE);
            assert_eq!(refused, Err(WebhookError::MissingHeader(expected)));
        }
    }

    #[test]
    fn secrets_are_read_with_or_without_their_prefix_and_never_printed() {
        let with = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let without = WebhookSecret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        assert_eq!(with, without);
        assert_eq!(with.expose(), "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        assert_eq!(format!("{with:?}"), "WebhookSecret(***)");
        for bad in ["whsec_", "", "whsec_not base64!"] {
            assert_eq!(
                WebhookSecret::parse(bad),
                Err(WebhookError::InvalidSecret),
                "{bad:?}"
            );
        }
    }
}
