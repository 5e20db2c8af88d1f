//! Why a call of a generated client gave no typed answer.

use super::{Answer, Violation};
use std::fmt;

/// Why a call gave no typed answer.
#[derive(Debug)]
pub enum ClientError {
    /// The request breaks a bound of the spec: nothing was sent.
    Invalid(Violation),
    /// The base URL or a built URL is not a URL.
    Url(String),
    /// The request could not be sent, or its answer not received.
    Transport(reqwest::Error),
    /// The server answered a status the operation does not declare: the
    /// answer, whole.
    Undeclared(Box<Answer>),
    /// A page walk met an answer that is not a page (a declared error
    /// status, once the client's retries are spent): the answer, whole.
    NotAPage(Box<Answer>),
    /// A page walk cannot go on: the server handed back a cursor or URL
    /// it had already given, which would walk the same pages forever.
    Paging(String),
    /// An OAuth authorization server refused (RFC 6749's `error`, such as
    /// `access_denied` or `expired_token`, with its description).
    Authorization {
        /// The error code.
        error: String,
        /// What the server says of it.
        description: Option<String>,
    },
    /// A declared status whose body or headers do not fit the spec.
    Decode {
        /// The status it answered.
        status: u16,
        /// What did not fit.
        message: String,
    },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Invalid(v) => write!(f, "the request is invalid: {v}"),
            ClientError::Url(u) => write!(f, "not a URL: {u}"),
            ClientError::Authorization { error, description } => {
                write!(f, "the authorization server refused: {error}")?;
                match description {
                    Some(description) => write!(f, " ({description})"),
                    None => Ok(()),
                }
            }
            ClientError::Transport(e) => write!(f, "the request failed: {e}"),
            ClientError::Undeclared(answer) => write!(
                f,
                "the server answered {}, which the operation does not declare: {}",
                answer.status,
                String::from_utf8_lossy(&answer.body[..answer.body.len().min(200)])
            ),
            ClientError::NotAPage(answer) => write!(
                f,
                "the server answered {} where a page was expected: {}",
                answer.status,
                String::from_utf8_lossy(&answer.body[..answer.body.len().min(200)])
            ),
            ClientError::Paging(message) => write!(f, "paging stopped: {message}"),
            ClientError::Decode { status, message } => {
                write!(f, "the {status} answer does not fit the spec: {message}")
            }
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Transport(e) => Some(e),
            _ => None,
        }
    }
}
