//! The one application error type. Each variant's doc names its HTTP status;
//! internal causes are logged and never sent to the client.

use actix_web::http::StatusCode;
use petstore_api::models;
use petstore_api::operations::ErrorResponse;
use std::fmt;

#[derive(Debug)]
pub enum ApiError {
    /// 404 `not_found`.
    NotFound(String),
    /// 409, with a code from the store's rules (`out_of_stock`, ...).
    Conflict { code: &'static str, message: String },
    /// 422, with `validation_failed` or a code naming what is unknown.
    Unprocessable { code: &'static str, message: String },
    /// 500 `internal`: the cause is logged, the client sees a generic message.
    Internal(Box<dyn std::error::Error + Send + Sync>),
}

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

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::NotFound(m) => write!(f, "not_found: {m}"),
            ApiError::Conflict { code, message } | ApiError::Unprocessable { code, message } => {
                write!(f, "{code}: {message}")
            }
            // The cause itself: it reads on its own in logs and messages.
            ApiError::Internal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ApiError {}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError::Internal(Box::new(e))
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        ApiError::Internal(Box::new(e))
    }
}

impl From<ApiError> for ErrorResponse {
    fn from(e: ApiError) -> Self {
        let status = e.status();
        let body = match e {
            ApiError::NotFound(message) => models::Error::new(status, "not_found", message),
            ApiError::Conflict { code, message } | ApiError::Unprocessable { code, message } => {
                models::Error::new(status, code, message)
            }
            ApiError::Internal(cause) => {
                tracing::error!(error = %cause, "internal error");
                models::Error::new(
                    status,
                    "internal",
                    "the server failed to handle the request",
                )
            }
        };
        ErrorResponse::new(status, body)
    }
}
