//! Why a request is refused before it reaches a handler, and the message
//! the client gets.

use super::validate::Violation;
use http::StatusCode;
use std::fmt;

/// Why a request was refused before it reached a handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionKind {
    /// Unreadable: a malformed parameter, truncated or invalid JSON.
    BadRequest,
    /// No credentials: a required `Authorization` header parameter is
    /// missing (as HTTP has it, a 401, not a malformed request).
    Unauthorized,
    /// No route matches the path.
    NotFound,
    /// The path exists, but not with this method.
    MethodNotAllowed,
    /// The body is larger than the operation's limit
    /// (`DEFAULT_BODY_LIMIT` unless the spec sets one).
    PayloadTooLarge,
    /// The body did not arrive within the deadline a layer gave it.
    RequestTimeout,
    /// The body is not JSON.
    UnsupportedMediaType,
    /// Well-formed, but a field is missing or unknown, has the wrong type or
    /// breaks a bound of the spec.
    ValidationFailed,
    /// The server failed: a handler answered a status its operation does
    /// not declare, or its answer could not be serialized. The message is
    /// for logs; do not send it.
    Internal,
}

impl RejectionKind {
    /// The HTTP status a rejection of this kind is answered with.
    pub fn status(self) -> StatusCode {
        match self {
            RejectionKind::BadRequest => StatusCode::BAD_REQUEST,
            RejectionKind::Unauthorized => StatusCode::UNAUTHORIZED,
            RejectionKind::NotFound => StatusCode::NOT_FOUND,
            RejectionKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RejectionKind::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            RejectionKind::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            RejectionKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RejectionKind::ValidationFailed => StatusCode::UNPROCESSABLE_ENTITY,
            RejectionKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Whether the refusal leaves the request's body unread (too large, or
    /// not arriving in time): the connection is then closed after the
    /// answer, rather than read to the end of a body that may never end.
    pub fn leaves_body_unread(self) -> bool {
        matches!(
            self,
            RejectionKind::PayloadTooLarge | RejectionKind::RequestTimeout
        )
    }

    /// A machine-readable code: `bad_request`, `validation_failed`, ...
    pub fn code(self) -> &'static str {
        match self {
            RejectionKind::BadRequest => "bad_request",
            RejectionKind::Unauthorized => "unauthorized",
            RejectionKind::NotFound => "not_found",
            RejectionKind::MethodNotAllowed => "method_not_allowed",
            RejectionKind::PayloadTooLarge => "payload_too_large",
            RejectionKind::RequestTimeout => "request_timeout",
            RejectionKind::UnsupportedMediaType => "unsupported_media_type",
            RejectionKind::ValidationFailed => "validation_failed",
            RejectionKind::Internal => "internal",
        }
    }
}

/// A request refused before it reached a handler, with a message for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// What kind of refusal it is; decides the status.
    pub kind: RejectionKind,
    /// What was wrong, for the client.
    pub message: String,
}

impl Rejection {
    /// A rejection of `kind`, with a message for the client.
    pub fn new(kind: RejectionKind, message: impl Into<String>) -> Self {
        Rejection {
            kind,
            message: message.into(),
        }
    }

    /// The HTTP status the rejection is answered with.
    pub fn status(&self) -> StatusCode {
        self.kind.status()
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.code(), self.message)
    }
}

impl From<Violation> for Rejection {
    fn from(v: Violation) -> Self {
        Rejection::new(RejectionKind::ValidationFailed, v.to_string())
    }
}

/// The error `FromStr` gives for a string that names no variant of an enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant {
    /// The enum type, as the spec names it.
    pub type_name: &'static str,
    /// The string that named no variant.
    pub value: String,
}

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a {}", self.value, self.type_name)
    }
}

impl std::error::Error for UnknownVariant {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_status_and_code() {
        let kinds = [
            (RejectionKind::BadRequest, 400, "bad_request"),
            (RejectionKind::NotFound, 404, "not_found"),
            (RejectionKind::MethodNotAllowed, 405, "method_not_allowed"),
            (RejectionKind::PayloadTooLarge, 413, "payload_too_large"),
            (
                RejectionKind::UnsupportedMediaType,
                415,
                "unsupported_media_type",
            ),
            (RejectionKind::ValidationFailed, 422, "validation_failed"),
            (RejectionKind::Internal, 500, "internal"),
        ];
        for (kind, status, code) in kinds {
            assert_eq!((kind.status().as_u16(), kind.code()), (status, code));
        }
    }

    #[test]
    fn a_violation_is_a_validation_failure_naming_its_place() {
        let rejection: Rejection = Violation::new("must be at most 3").within("name").into();
        assert_eq!(rejection.kind, RejectionKind::ValidationFailed);
        assert_eq!(
            rejection.to_string(),
            "validation_failed: `name` must be at most 3"
        );
    }
}
