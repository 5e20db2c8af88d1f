//! The one application error type. Each variant's doc names its HTTP status;
//! internal causes are logged and never sent to the client.
//!
//! Storage errors are sorted by what they tell the client: a database that
//! cannot be reached or cannot take the request now (a refused or lost
//! connection, a timeout, a lock held too long, a full disk) is
//! [`ApiError::Unavailable`], a 503 after which nothing was done; a write whose
//! commit was sent but never confirmed is [`ApiError::Indeterminate`]; any
//! other failure is [`ApiError::Internal`].

use petstore_api::models;
use petstore_api::operations::ErrorResponse;
use petstore_api::runtime::StatusCode;
use std::fmt;

#[derive(Debug)]
pub enum ApiError {
    /// 404 `not_found`.
    NotFound(String),
    /// 409, with a code from the store's rules (`out_of_stock`, ...).
    Conflict { code: &'static str, message: String },
    /// 422, with `validation_failed` or a code naming what is unknown.
    Unprocessable { code: &'static str, message: String },
    /// 410, with a code naming what is gone (`event_id_expired`).
    Gone { code: &'static str, message: String },
    /// 429 with `Retry-After`: a limit other than the rate limits
    /// (`too_many_streams`).
    TooMany {
        code: &'static str,
        message: String,
        retry_after: u32,
    },
    /// 500 `internal`: the cause is logged, the client sees a generic message.
    Internal(Box<dyn std::error::Error + Send + Sync>),
    /// 503 `unavailable` with `Retry-After`: the database cannot be reached
    /// or cannot take the request now, and nothing was done. Logged with its
    /// cause; `cause` is `None` when the request was refused without trying
    /// (the database is known to be away). `retry_after` is in seconds: 1
    /// at first, growing with the outage (see the store's breaker).
    Unavailable {
        cause: Option<Box<dyn std::error::Error + Send + Sync>>,
        retry_after: u32,
    },
    /// 500 `internal`: a write's commit was sent and never confirmed, so it
    /// may or may not have happened. The client is told to retry with the
    /// same `Idempotency-Key`, which returns the first answer if it did.
    Indeterminate(Box<dyn std::error::Error + Send + Sync>),
}

/// Seconds a 503 `unavailable` asks the client to wait at first: the
/// instance tests whether the database is back every fraction of that. A
/// longer outage asks for longer waits, up to [`MAX_RETRY_AFTER_SECONDS`].
pub const RETRY_AFTER_SECONDS: u32 = 1;
/// The longest wait a 503 `unavailable` asks for.
pub const MAX_RETRY_AFTER_SECONDS: u32 = 30;

type Cause = Box<dyn std::error::Error + Send + Sync>;

impl ApiError {
    pub fn not_found(what: impl fmt::Display) -> Self {
        ApiError::NotFound(format!("{what} does not exist"))
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Conflict {
            code,
            message: message.into(),
        }
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Unprocessable {
            code,
            message: message.into(),
        }
    }

    /// The database cannot take the request now, for this reason.
    pub fn unavailable(cause: impl Into<Cause>) -> Self {
        ApiError::Unavailable {
            cause: Some(cause.into()),
            retry_after: RETRY_AFTER_SECONDS,
        }
    }

    /// Refused without trying: the database is known to be away. The
    /// client is asked to wait `retry_after` seconds.
    pub fn away(retry_after: u32) -> Self {
        ApiError::Unavailable {
            cause: None,
            retry_after,
        }
    }

    /// The same error; a 503 asks the client to wait `seconds` instead.
    pub fn retry_after(self, seconds: u32) -> Self {
        match self {
            ApiError::Unavailable { cause, .. } => ApiError::Unavailable {
                cause,
                retry_after: seconds,
            },
            other => other,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Gone { .. } => StatusCode::GONE,
            ApiError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal(_) | ApiError::Indeterminate(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The `Retry-After` the error's answer carries, in seconds.
    fn retry_after_seconds(&self) -> Option<u32> {
        match self {
            ApiError::TooMany { retry_after, .. } | ApiError::Unavailable { retry_after, .. } => {
                Some(*retry_after)
            }
            _ => None,
        }
    }

    /// Whether this error says the database is away (rather than that it
    /// answered, with a refusal or an error of its own).
    pub fn database_away(&self) -> bool {
        matches!(
            self,
            ApiError::Unavailable { .. } | ApiError::Indeterminate(_)
        )
    }

    /// The same error, its cause prefixed with what failed (for the log).
    pub fn context(self, what: &str) -> ApiError {
        match self {
            ApiError::Internal(e) => ApiError::Internal(format!("{what}: {e}").into()),
            ApiError::Unavailable {
                cause: Some(e),
                retry_after,
            } => ApiError::Unavailable {
                cause: Some(format!("{what}: {e}").into()),
                retry_after,
            },
            ApiError::Indeterminate(e) => ApiError::Indeterminate(format!("{what}: {e}").into()),
            other => other,
        }
    }

    /// The same error for another caller: one failure answered to every
    /// request that waited on it (a round of the shared rate limiter).
    pub fn relay(&self) -> ApiError {
        match self {
            ApiError::NotFound(m) => ApiError::NotFound(m.clone()),
            ApiError::Conflict { code, message } => ApiError::conflict(code, message.clone()),
            ApiError::Unprocessable { code, message } => {
                ApiError::unprocessable(code, message.clone())
            }
            ApiError::Gone { code, message } => ApiError::Gone {
                code,
                message: message.clone(),
            },
            ApiError::TooMany {
                code,
                message,
                retry_after,
            } => ApiError::TooMany {
                code,
                message: message.clone(),
                retry_after: *retry_after,
            },
            ApiError::Internal(e) => ApiError::Internal(e.to_string().into()),
            ApiError::Unavailable { cause, retry_after } => ApiError::Unavailable {
                cause: cause.as_ref().map(|e| e.to_string().into()),
                retry_after: *retry_after,
            },
            ApiError::Indeterminate(e) => ApiError::Indeterminate(e.to_string().into()),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::NotFound(m) => write!(f, "not_found: {m}"),
            ApiError::Conflict { code, message }
            | ApiError::Unprocessable { code, message }
            | ApiError::Gone { code, message }
            | ApiError::TooMany { code, message, .. } => write!(f, "{code}: {message}"),
            // The cause itself: it reads on its own in logs and messages.
            ApiError::Internal(e) => e.fmt(f),
            ApiError::Unavailable { cause: Some(e), .. } => {
                write!(f, "database unavailable: {e}")
            }
            ApiError::Unavailable { cause: None, .. } => f.write_str("database unavailable"),
            ApiError::Indeterminate(e) => write!(f, "commit unconfirmed: {e}"),
        }
    }
}

impl std::error::Error for ApiError {}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        if unreachable_sqlx(&e) {
            ApiError::unavailable(e)
        } else if unstorable_text(&e) {
            ApiError::Unprocessable {
                code: "validation_failed",
                message: "text may not contain the NUL character (U+0000)".into(),
            }
        } else {
            ApiError::Internal(Box::new(e))
        }
    }
}

/// Whether PostgreSQL refused a value its text type cannot hold: NUL
/// (U+0000), which JSON strings may carry (SQLSTATE 22021; 22P05 for a
/// character the encoding lacks). The client sent it: a 422, not a 500.
fn unstorable_text(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db)
        if db.code().is_some_and(|code| matches!(&*code, "22021" | "22P05")))
}

/// Whether a PostgreSQL (or sqlx) error says the database is away or cannot
/// take work now, rather than that it refused this request.
fn unreachable_sqlx(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // Class 08: connection exceptions. 57P01-57P03: the server is
            // shutting down or starting up. 57014: a statement ran past
            // `statement_timeout`. 53300: too many connections. 55P03: a
            // lock not available in time.
            code.starts_with("08")
                || matches!(
                    &*code,
                    "57P01" | "57P02" | "57P03" | "57014" | "53300" | "55P03"
                )
        }),
        _ => false,
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        if unavailable_sqlite(&e) {
            ApiError::unavailable(e)
        } else {
            ApiError::Internal(Box::new(e))
        }
    }
}

impl ApiError {
    /// A SQLite error known only by reference (a group's failed commit,
    /// answered to each of its writes), with what failed.
    pub(crate) fn sqlite(e: &rusqlite::Error, what: &str) -> ApiError {
        let message = format!("{what}: {e}");
        if unavailable_sqlite(e) {
            ApiError::unavailable(message)
        } else {
            ApiError::Internal(message.into())
        }
    }
}

/// Whether a SQLite error says the file cannot take the request now: locked
/// past the busy timeout, a full disk, an I/O error, a file that cannot be
/// opened or written.
fn unavailable_sqlite(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::*;
    matches!(
        e.sqlite_error_code(),
        Some(DatabaseBusy | DatabaseLocked | DiskFull | SystemIoFailure | CannotOpen | ReadOnly)
    )
}

impl From<ApiError> for ErrorResponse {
    fn from(e: ApiError) -> Self {
        let status = e.status();
        let retry_after = e.retry_after_seconds();
        let body = match e {
            ApiError::NotFound(message) => models::Error::new(status, "not_found", message),
            ApiError::Conflict { code, message }
            | ApiError::Unprocessable { code, message }
            | ApiError::Gone { code, message }
            | ApiError::TooMany { code, message, .. } => models::Error::new(status, code, message),
            ApiError::Internal(cause) => {
                tracing::error!(error = %cause, "internal error");
                models::Error::new(
                    status,
                    "internal",
                    "the server failed to handle the request",
                )
            }
            ApiError::Indeterminate(cause) => {
                tracing::error!(error = %cause, "a commit was not confirmed");
                models::Error::new(
                    status,
                    "internal",
                    "the database did not confirm the change, which may or may not have \
                     been made; retry with the same Idempotency-Key to learn which",
                )
            }
            ApiError::Unavailable { cause, retry_after } => {
                if let Some(cause) = cause {
                    tracing::warn!(error = %cause, "database unavailable");
                }
                models::Error::new(
                    status,
                    "unavailable",
                    format!(
                        "the database is unavailable and nothing was done; \
                         retry in {retry_after} s"
                    ),
                )
            }
        };
        let response = ErrorResponse::new(status, body);
        match retry_after {
            Some(seconds) => response.with_header("Retry-After", seconds),
            None => response,
        }
    }
}
