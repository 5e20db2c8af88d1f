//! What a client may take of the server: how long it may take to send a
//! request's head and its body, how long an idle connection stays open, and
//! how large the headers may be. Slow, broken or hostile clients meet these
//! first.
//!
//! - The head deadline and the idle deadline are actix-web's own
//!   (`client_request_timeout`, `keep_alive`): a connection whose request
//!   head is not complete in time is answered 408 by the HTTP layer and
//!   closed (there is no request yet to answer in the API's terms); an idle
//!   keep-alive connection is closed.
//! - Headers over [`ClientLimits::max_header_bytes`] are refused by the gate
//!   with 431 and the Error JSON, after the rate limits (so the request is
//!   counted and the answer carries the headers). A head over the HTTP
//!   layer's own buffer (128 KiB) never becomes a request: it is refused
//!   with a bare 431 and the connection closed.
//! - A request body must arrive within [`ClientLimits::body_timeout`] of the
//!   head ([`body_deadline`]): a body still arriving then is cut, and the
//!   generated glue answers 408 `request_timeout`. Its size is bounded by
//!   the operation (`x-max-body-size`, or the runtime's 1 MiB): 413, read no
//!   further.
//! - Every connection costs a file descriptor: at start the server raises
//!   its soft limit on open files to the hard limit the system grants
//!   ([`raise_open_files_limit`]), so that a burst of connections, slow
//!   ones included, is not refused at a soft limit of 1,024 long before
//!   anything else runs out.

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use futures_util::Stream;
use std::cell::RefCell;
use std::future::Future as _;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

/// What [`raise_open_files_limit`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFiles {
    /// The soft limit before (`None`: unlimited).
    pub before: Option<u64>,
    /// The soft limit now.
    pub now: Option<u64>,
}

/// Raises this process's soft limit on open files (`RLIMIT_NOFILE`) to its
/// hard limit, and logs what it did. Nothing is raised where the soft
/// limit already is the hard one, or where the system refuses.
pub fn raise_open_files_limit() -> OpenFiles {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    let before = limit.current;
    if limit.current == limit.maximum {
        tracing::info!(open_files = ?before, "open files limit is the hard limit already");
        return OpenFiles {
            before,
            now: before,
        };
    }
    let raised = Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => {
            tracing::info!(from = ?before, to = ?limit.maximum, "open files limit raised");
            OpenFiles {
                before,
                now: limit.maximum,
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, limit = ?before, "open files limit could not be raised");
            OpenFiles {
                before,
                now: before,
            }
        }
    }
}

/// The limits, as the command line sets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientLimits {
    /// How long a client may take to send a request's head.
    pub header_timeout: Duration,
    /// How long an idle keep-alive connection stays open.
    pub keep_alive: Duration,
    /// How long an event stream stays silent before a comment goes out.
    pub stream_keep_alive: Duration,
    /// How long a client may take to send a request's body, from its head.
    pub body_timeout: Duration,
    /// The most bytes a request's headers may take (names and values, with
    /// their separators).
    pub max_header_bytes: usize,
}

impl Default for ClientLimits {
    fn default() -> Self {
        ClientLimits {
            header_timeout: Duration::from_secs(5),
            keep_alive: Duration::from_secs(5),
            stream_keep_alive: petstore_api::runtime::DEFAULT_KEEP_ALIVE,
            body_timeout: Duration::from_secs(10),
            max_header_bytes: 16 * 1024,
        }
    }
}

/// The size of a request's headers, as they came on the wire: each line's
/// name, `: `, value and line end.
pub fn header_bytes(request: &ServiceRequest) -> usize {
    request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum()
}

/// The middleware that gives every request body its deadline: the body
/// stream fails with a timeout once `limits.body_timeout` has passed since
/// the request's head arrived.
///
/// It also makes a refusal that left the body unread (the response says
/// `Connection: close`: too large, too slow) end the connection. The HTTP
/// layer would otherwise read a chunked body it was told to close on to
/// its end, to reuse the connection: an endless body, endlessly. Holding
/// the body stream until the response is sent makes the layer close
/// instead.
pub async fn body_deadline(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let limit = request
        .app_data::<actix_web::web::Data<ClientLimits>>()
        .map_or_else(|| ClientLimits::default().body_timeout, |l| l.body_timeout);
    let payload = actix_web::HttpMessage::take_payload(&mut request);
    let held = Rc::new(RefCell::new(Some(payload)));
    let stream: BoxedPayload = Box::pin(Deadline {
        inner: held.clone(),
        timer: Box::pin(tokio::time::sleep(limit)),
        limit,
        expired: false,
    });
    request.set_payload(actix_web::dev::Payload::from(stream));
    let response = next.call(request).await?;
    if response.response().head().keep_alive() {
        return Ok(response.map_into_left_body());
    }
    let payload = held.take();
    Ok(response.map_body(|_, body| {
        EitherBody::right(Holding {
            body: body.boxed(),
            _payload: payload,
        })
    }))
}

/// A response body that keeps the request's body stream alive until it
/// has been sent.
struct Holding {
    body: BoxBody,
    _payload: Option<actix_web::dev::Payload>,
}

impl MessageBody for Holding {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> actix_web::body::BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}

type BoxedPayload = Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>;

/// A body stream that fails with [`std::io::ErrorKind::TimedOut`] once its
/// timer fires, and ends after that. The stream it reads is shared with
/// [`body_deadline`], which may keep it past the request.
struct Deadline {
    inner: Rc<RefCell<Option<actix_web::dev::Payload>>>,
    timer: Pin<Box<tokio::time::Sleep>>,
    limit: Duration,
    expired: bool,
}

impl Stream for Deadline {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.expired {
            return Poll::Ready(None);
        }
        let polled = match self.inner.borrow_mut().as_mut() {
            Some(inner) => Pin::new(inner).poll_next(cx),
            None => Poll::Ready(None),
        };
        if let Poll::Ready(item) = polled {
            return Poll::Ready(item);
        }
        if self.timer.as_mut().poll(cx).is_ready() {
            self.expired = true;
            let message = format!("the body was not complete within {:?}", self.limit);
            return Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                message,
            )))));
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt as _;

    fn payload(stream: impl Stream<Item = Result<Bytes, PayloadError>> + 'static) -> Deadline {
        Deadline {
            inner: Rc::new(RefCell::new(Some(actix_web::dev::Payload::from(
                Box::pin(stream) as BoxedPayload,
            )))),
            timer: Box::pin(tokio::time::sleep(Duration::from_millis(20))),
            limit: Duration::from_millis(20),
            expired: false,
        }
    }

    #[actix_web::test]
    async fn a_body_still_arriving_at_its_deadline_is_cut() {
        let first = futures_util::stream::iter([Ok(Bytes::from_static(b"{\"name\":"))]);
        // Nothing more ever comes.
        let mut stream = payload(first.chain(futures_util::stream::pending()));
        let chunk = stream.next().await.unwrap().unwrap();
        assert_eq!(&chunk[..], b"{\"name\":");
        match stream.next().await {
            Some(Err(PayloadError::Io(e))) => assert_eq!(e.kind(), std::io::ErrorKind::TimedOut),
            other => panic!("not a timeout: {other:?}"),
        }
        assert!(stream.next().await.is_none());
    }

    #[actix_web::test]
    async fn a_body_complete_in_time_passes_whole() {
        let whole = futures_util::stream::iter([Ok(Bytes::from_static(b"abc"))]);
        let chunks: Vec<_> = payload(whole).collect().await;
        assert_eq!(chunks.len(), 1);
        assert_eq!(&chunks[0].as_ref().unwrap()[..], b"abc");
    }
}
