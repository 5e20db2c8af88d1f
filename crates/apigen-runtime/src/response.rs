//! Building responses: status, headers and bodies, as values of the `http`
//! crate that each framework's adapter sends as its own.

use super::rejection::{Rejection, RejectionKind};
use bytes::Bytes;
use futures_util::Stream;
use http::header::{HeaderName, HeaderValue, CONNECTION, CONTENT_TYPE};
use http::response::Builder;
use http::StatusCode;
use serde::Serialize;
use std::cell::RefCell;
use std::fmt;
use std::pin::Pin;

/// A response as the glue renders it, whatever framework sends it.
pub type Outgoing = http::Response<OutgoingBody>;

/// The body of an [`Outgoing`] response.
pub enum OutgoingBody {
    /// No body.
    Empty,
    /// A body in one piece.
    Full(Bytes),
    /// A body sent chunk by chunk as each is ready (an event stream), each
    /// flushed as it comes.
    Stream(Pin<Box<dyn Stream<Item = Bytes> + Send>>),
}

impl fmt::Debug for OutgoingBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutgoingBody::Empty => f.write_str("Empty"),
            OutgoingBody::Full(bytes) => f.debug_tuple("Full").field(bytes).finish(),
            OutgoingBody::Stream(_) => f.write_str("Stream"),
        }
    }
}

/// Starts a response with the given status.
pub fn respond(status: StatusCode) -> Builder {
    http::Response::builder().status(status)
}

/// Sets a header from any displayable value; values that are not valid header
/// text are left out rather than sent broken.
pub fn set_header(builder: &mut Builder, name: &'static str, value: impl fmt::Display) {
    if let (Ok(name), Ok(value), Some(headers)) = (
        HeaderName::from_bytes(name.as_bytes()),
        HeaderValue::from_str(&value.to_string()),
        builder.headers_mut(),
    ) {
        headers.insert(name, value);
    }
}

/// Sets a header whose value is an array, an object or JSON text: spelled
/// in `style` (`simple`: `a,b,c`; or JSON for a header described by
/// `content`), as the client reads it back. A value that cannot be
/// spelled (null, or not valid header text) is left out.
pub fn set_header_styled(
    builder: &mut Builder,
    name: &'static str,
    value: &impl Serialize,
    style: super::style::Style,
) {
    let text = super::strictly(|| serde_json::to_value(value))
        .ok()
        .and_then(|v| super::style::write(&v, name, style, false));
    if let Some(text) = text {
        set_header(builder, name, text);
    }
}

/// Finishes a response with `body`. Headers are checked as they are set,
/// so the builder holds no error; were it to, the answer is a bare 500.
pub(super) fn finish(builder: Builder, body: OutgoingBody) -> Outgoing {
    builder.body(body).unwrap_or_else(|_| {
        let mut response = http::Response::new(OutgoingBody::Empty);
        *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        response
    })
}

/// Finishes a response without a body.
pub fn empty(builder: Builder) -> Outgoing {
    finish(builder, OutgoingBody::Empty)
}

/// Finishes a response with a JSON body. A body that cannot be serialized
/// (a map with non-string keys, say) is an [`RejectionKind::Internal`]
/// rejection: the glue answers it with the service's own internal error.
pub fn json(builder: Builder, body: &impl Serialize) -> Result<Outgoing, Rejection> {
    json_as(builder, "application/json", body)
}

/// A JSON response sent as another JSON media type the spec declares
/// (`application/problem+json`).
pub fn json_as(
    builder: Builder,
    content_type: &'static str,
    body: &impl Serialize,
) -> Result<Outgoing, Rejection> {
    match to_json(body) {
        Ok(bytes) => Ok(finish(
            builder.header(CONTENT_TYPE, HeaderValue::from_static(content_type)),
            OutgoingBody::Full(bytes),
        )),
        Err(e) => Err(Rejection::new(
            RejectionKind::Internal,
            format!("the response body could not be serialized: {e}"),
        )),
    }
}

/// An error response with a JSON body and the given headers, for errors
/// outside any operation. If even the error body cannot be serialized, the
/// failure is logged and a bodiless 500 is sent: there is nothing left to
/// fall back on.
pub fn error_json(
    status: StatusCode,
    body: &impl Serialize,
    headers: &[(String, String)],
) -> Outgoing {
    let mut builder = respond(status);
    if let Some(map) = builder.headers_mut() {
        for (name, value) in headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                map.insert(name, value);
            }
        }
    }
    json(builder, body).unwrap_or_else(|rejection| {
        tracing::error!(error = %rejection.message, "an error response could not be rendered");
        empty(respond(StatusCode::INTERNAL_SERVER_ERROR))
    })
}

/// An error's body (JSON, where an API's error responses carry bodies of
/// different types) read as the type a response declares, strictly (it is
/// what the server is about to send); `None` when it does not fit, and the
/// error is then not that response.
pub fn error_body<T: serde::de::DeserializeOwned>(body: &serde_json::Value) -> Option<T> {
    super::strictly(|| T::deserialize(body)).ok()
}

/// A buffer bigger than this is not kept for the next body.
const KEPT_BUFFER: usize = 64 * 1024;

/// Serializes a body into a buffer kept by each thread, then copies it out at
/// its final size: one allocation per body instead of a growing vector's
/// chain of reallocations and copies.
///
/// Written strictly (see [`super::strictly`]): a value of an enum the spec
/// does not list cannot go out.
fn to_json(body: &impl Serialize) -> serde_json::Result<Bytes> {
    super::strictly(|| to_json_buffered(body))
}

fn to_json_buffered(body: &impl Serialize) -> serde_json::Result<Bytes> {
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    BUFFER.with(|buffer| {
        let Ok(mut buffer) = buffer.try_borrow_mut() else {
            // Only if a body's own serialization renders another body.
            return serde_json::to_vec(body).map(Bytes::from);
        };
        buffer.clear();
        let written =
            serde_json::to_writer(&mut *buffer, body).map(|()| Bytes::copy_from_slice(&buffer));
        if buffer.capacity() > KEPT_BUFFER {
            *buffer = Vec::new();
        }
        written
    })
}

/// The `Allow` header of a path's 405: the methods this build serves,
/// each given with whether its route is compiled in.
pub fn allowed(methods: &[(bool, &str)]) -> String {
    let mut served: Vec<&str> = Vec::new();
    for (on, method) in methods {
        if *on && !served.contains(method) {
            served.push(method);
        }
    }
    served.join(", ")
}

/// The status code for a number the generator checked to be in 100..=599.
pub fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The status of a response declared for a class of statuses (`4XX`): the
/// status itself when it is of the class, else an internal rejection, so
/// that nothing the spec does not declare goes out.
pub fn status_in_class(status: StatusCode, class: u16) -> Result<StatusCode, Rejection> {
    if status.as_u16() / 100 == class {
        Ok(status)
    } else {
        Err(Rejection::new(
            RejectionKind::Internal,
            format!("the handler answered {status} for responses declared as {class}XX"),
        ))
    }
}

/// Finishes a response with a body of bytes and its media type.
pub fn bytes(builder: Builder, media_type: &'static str, body: Vec<u8>) -> Outgoing {
    finish(
        builder.header(CONTENT_TYPE, HeaderValue::from_static(media_type)),
        OutgoingBody::Full(body.into()),
    )
}

/// Makes `response` the connection's last: it is closed once the response
/// is sent, and whatever the client still sends (an unread body) is not
/// read. Each adapter reads `Connection: close` as its framework says it.
pub fn close_connection(response: &mut Outgoing) {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
}

/// Whether [`close_connection`] marked `response`.
pub fn closes_connection(response: &Outgoing) -> bool {
    response
        .headers()
        .get(CONNECTION)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(response: Outgoing) -> Bytes {
        match response.into_body() {
            OutgoingBody::Full(bytes) => bytes,
            other => panic!("a JSON body is one piece, not {other:?}"),
        }
    }

    #[test]
    fn json_bodies_and_headers() {
        let mut builder = respond(status(201));
        set_header(&mut builder, "Location", "/v1/pets/1");
        set_header(&mut builder, "X-Bad", "line\nbreak");
        let response = json(builder, &serde_json::json!({"id": 1})).unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        assert_eq!(
            response.headers().get("content-type").unwrap(),
            "application/json"
        );
        assert_eq!(response.headers().get("location").unwrap(), "/v1/pets/1");
        assert!(
            !response.headers().contains_key("x-bad"),
            "invalid header text is left out"
        );
        assert_eq!(&whole(response)[..], br#"{"id":1}"#);
        // The kept buffer does not leak one body into the next.
        let second = whole(json(respond(status(200)), &[1, 2]).unwrap());
        assert_eq!(&second[..], b"[1,2]");
    }

    #[test]
    fn styled_headers_read_back_as_they_were_written() {
        use super::super::style::{styled, Style, ValueKind};
        let mut builder = respond(status(200));
        set_header_styled(&mut builder, "X-List", &["a", "b"], Style::Simple);
        set_header_styled(&mut builder, "X-Ints", &[1, 2, 3], Style::Simple);
        set_header_styled(
            &mut builder,
            "X-Json",
            &serde_json::json!({"a": [1, {"b": "c"}]}),
            Style::Json,
        );
        set_header_styled(&mut builder, "X-None", &None::<Vec<u8>>, Style::Simple);
        let response = empty(builder);
        let header = |name: &str| response.headers().get(name).unwrap().to_str().unwrap();
        assert_eq!(header("x-list"), "a,b");
        let list: Vec<String> = styled(
            header("x-list"),
            "X-List",
            ValueKind::Array,
            Style::Simple,
            false,
            "",
        )
        .unwrap();
        assert_eq!(list, ["a", "b"]);
        let ints: Vec<i64> = styled(
            header("x-ints"),
            "X-Ints",
            ValueKind::Array,
            Style::Simple,
            false,
            "",
        )
        .unwrap();
        assert_eq!(ints, [1, 2, 3]);
        let json: serde_json::Value = styled(
            header("x-json"),
            "X-Json",
            ValueKind::Object,
            Style::Json,
            false,
            "",
        )
        .unwrap();
        assert_eq!(json, serde_json::json!({"a": [1, {"b": "c"}]}));
        assert!(
            !response.headers().contains_key("x-none"),
            "null is left out"
        );
    }

    #[test]
    fn bodies_that_cannot_be_serialized_are_internal_rejections() {
        let bad: std::collections::HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let e = json(respond(status(200)), &bad).unwrap_err();
        assert_eq!(e.kind, RejectionKind::Internal);
        assert!(e.message.contains("key must be a string"), "{}", e.message);
        assert_eq!(
            error_json(status(404), &bad, &[]).status(),
            StatusCode::INTERNAL_SERVER_ERROR
        );
        let headers = [("Retry-After".to_string(), "3".to_string())];
        let gone = error_json(status(503), &"gone", &headers);
        assert_eq!(gone.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(gone.headers().get("retry-after").unwrap(), "3");
    }

    fn body_of(response: Result<Outgoing, Rejection>) -> Vec<u8> {
        whole(response.unwrap()).to_vec()
    }

    /// Bodies come out whole and exact whatever the thread rendered before:
    /// one larger than the buffer a thread keeps, then a small one, and one
    /// whose own serialization renders another body.
    #[test]
    fn json_bodies_are_exact_across_sizes_and_nesting() {
        let big: Vec<String> = (0..20_000).map(|i| format!("pet {i}")).collect();
        let expected = serde_json::to_vec(&big).unwrap();
        assert!(expected.len() > KEPT_BUFFER);
        assert_eq!(body_of(json(respond(status(200)), &big)), expected);
        assert_eq!(body_of(json(respond(status(200)), &[1, 2, 3])), b"[1,2,3]");

        struct Nested;
        impl Serialize for Nested {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let inner = body_of(json(respond(status(200)), &"inner"));
                serializer.serialize_str(&String::from_utf8(inner).unwrap())
            }
        }
        assert_eq!(
            body_of(json(respond(status(200)), &Nested)),
            br#""\"inner\"""#
        );
    }

    #[test]
    fn byte_bodies_keep_their_media_type() {
        let response = bytes(respond(status(200)), "image/png", vec![1, 2]);
        assert_eq!(response.headers().get("content-type").unwrap(), "image/png");
    }
}
