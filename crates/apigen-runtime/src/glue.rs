//! What every generated handler does once its request is read: send the
//! handler's typed answer, or the refusal of a request that never reached
//! it, as a variant its operation declares. Written once here, generic over
//! the operation's response type, rather than once per generated crate.

use super::rejection::{Rejection, RejectionKind};
use super::response::Outgoing;
use http::header::{HeaderValue, ALLOW};
use http::StatusCode;

/// The error any operation of a generated crate may answer with (its
/// `ErrorResponse`): a status, and the response it is outside any operation.
pub trait ErrorAnswer: Clone {
    /// The error's status.
    fn status(&self) -> StatusCode;
    /// The response as it is sent when no operation declares its status.
    fn into_http(self) -> Outgoing;
}

/// An operation's typed response: one variant per status its spec declares.
pub trait Response: Sized {
    /// The crate's error type, which a handler returns as its error.
    type Error: ErrorAnswer;

    /// The variant the operation declares for an error's status, or the
    /// error back when it declares none.
    fn declared(error: Self::Error) -> Result<Self, Self::Error>;

    /// Renders the response: status, headers and body. A body that cannot
    /// be serialized is an internal rejection.
    fn into_http(self) -> Result<Outgoing, Rejection>;
}

/// Sends a handler's answer. An error goes out as the variant the operation
/// declares for its status; a status it does not declare becomes the
/// service's internal error (`reject` makes it), and so does a body that
/// cannot be serialized.
pub fn answer<R: Response>(
    answer: Result<R, R::Error>,
    reject: impl Fn(Rejection) -> R::Error,
) -> Outgoing {
    match answer.or_else(R::declared) {
        Ok(response) => response
            .into_http()
            .unwrap_or_else(|rejection| refuse::<R>(rejection, reject)),
        Err(undeclared) => {
            let message = format!(
                "the handler answered {}, which its operation does not declare",
                undeclared.status()
            );
            refuse::<R>(Rejection::new(RejectionKind::Internal, message), reject)
        }
    }
}

/// Sends a refusal: as the variant the operation declares for its status;
/// else, for a request that breaks the spec's bounds (422) or comes in a
/// media type the operation does not read (415), as the operation's
/// declared 400, which both also are; else
/// as `reject` makes it (a malformed parameter is the client's mistake,
/// not the server's failure, declared or not). A refusal that leaves the
/// body unread closes the connection.
pub fn refuse<R: Response>(
    rejection: Rejection,
    reject: impl Fn(Rejection) -> R::Error,
) -> Outgoing {
    let unread = rejection.kind.leaves_body_unread();
    let client_mistake = matches!(
        rejection.kind,
        RejectionKind::ValidationFailed | RejectionKind::UnsupportedMediaType
    );
    let as_bad_request = client_mistake
        .then(|| Rejection::new(RejectionKind::BadRequest, rejection.message.clone()));
    let error = reject(rejection);
    let declared = R::declared(error.clone()).or_else(|error| match &as_bad_request {
        Some(bad) => R::declared(reject(bad.clone())),
        None => Err(error),
    });
    let mut http = match declared.map(R::into_http) {
        Ok(Ok(http)) => http,
        _ => error.into_http(),
    };
    if unread {
        super::response::close_connection(&mut http);
    }
    http
}

/// The answer for a request that no route matches.
pub fn not_found<E: ErrorAnswer>(
    method: &str,
    path: &str,
    reject: impl Fn(Rejection) -> E,
) -> Outgoing {
    let message = format!("no route for {method} {path}");
    reject(Rejection::new(RejectionKind::NotFound, message)).into_http()
}

/// The answer for a method that the path's resource does not serve, with
/// `Allow` naming the methods it does (`GET, POST`).
pub fn method_not_allowed<E: ErrorAnswer>(
    method: &str,
    path: &str,
    allow: &str,
    reject: impl Fn(Rejection) -> E,
) -> Outgoing {
    let message = format!("{method} is not allowed on {path}; allowed: {allow}");
    let mut response = reject(Rejection::new(RejectionKind::MethodNotAllowed, message)).into_http();
    if let Ok(allow) = HeaderValue::from_str(allow) {
        response.headers_mut().insert(ALLOW, allow);
    }
    response
}
