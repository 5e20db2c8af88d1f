//! What a client may take of the server: how long it may take to send a
//! request's head and its body, how long an idle connection stays open, and
//! how large the headers may be. Slow, broken or hostile clients meet these
//! first.
//!
//! - The head deadline and the idle deadline: a connection whose request
//!   head is not complete in time is answered 408 by the HTTP layer and
//!   closed (there is no request yet to answer in the API's terms); an idle
//!   keep-alive connection is closed. On actix-web they are its own
//!   (`client_request_timeout`, `keep_alive`); on axum, the connection's
//!   own (`on_axum::Deadlines`), to the same effect.
//! - Headers over [`ClientLimits::max_header_bytes`] are refused by the gate
//!   with 431 and the Error JSON, after the rate limits (so the request is
//!   counted and the answer carries the headers). A head over the HTTP
//!   layer's own buffer ([`HEAD_BUFFER`]) never becomes a request: it is
//!   refused with a bare 431 and the connection closed.
//! - A request body must arrive within [`ClientLimits::body_timeout`] of the
//!   head ([`Deadline`]): a body still arriving then is cut, and the
//!   generated glue answers 408 `request_timeout`. Its size is bounded by
//!   the operation (`x-max-body-size`, or the runtime's 1 MiB): 413, read no
//!   further.
//! - Every connection costs a file descriptor: at start the server raises
//!   its soft limit on open files to the hard limit the system grants
//!   ([`raise_open_files_limit`]), so that a burst of connections, slow
//!   ones included, is not refused at a soft limit of 1,024 long before
//!   anything else runs out.

use bytes::Bytes;
use futures_util::Stream;
use std::future::Future as _;
use std::pin::Pin;
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

/// The most bytes a request's head may take before the HTTP layer refuses
/// it with a bare 431 (actix-web's own buffer; set alike on axum).
pub const HEAD_BUFFER: usize = 128 * 1024;

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
/// name, `: `, value and line end, from each header's name and value
/// lengths.
pub fn header_bytes(lengths: impl Iterator<Item = (usize, usize)>) -> usize {
    lengths.map(|(name, value)| name + value + 4).sum()
}

/// A body stream that fails with [`std::io::ErrorKind::TimedOut`] (made
/// into the framework's error by `timed_out`) once its timer fires, and
/// ends after that: the body deadline, on either framework, which the
/// generated glue answers with 408 `request_timeout`.
pub struct Deadline<S, E> {
    inner: S,
    timer: Pin<Box<tokio::time::Sleep>>,
    limit: Duration,
    expired: bool,
    timed_out: fn(std::io::Error) -> E,
}

impl<S, E> std::fmt::Debug for Deadline<S, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deadline")
            .field("limit", &self.limit)
            .field("expired", &self.expired)
            .finish_non_exhaustive()
    }
}

impl<S, E> Deadline<S, E> {
    /// `inner`, cut `limit` from now.
    pub fn new(inner: S, limit: Duration, timed_out: fn(std::io::Error) -> E) -> Self {
        Deadline {
            inner,
            timer: Box::pin(tokio::time::sleep(limit)),
            limit,
            expired: false,
            timed_out,
        }
    }
}

impl<S, E> Stream for Deadline<S, E>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    type Item = Result<Bytes, E>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.expired {
            return Poll::Ready(None);
        }
        if let Poll::Ready(item) = Pin::new(&mut this.inner).poll_next(cx) {
            return Poll::Ready(item);
        }
        if this.timer.as_mut().poll(cx).is_ready() {
            this.expired = true;
            let message = format!("the body was not complete within {:?}", this.limit);
            let error = std::io::Error::new(std::io::ErrorKind::TimedOut, message);
            return Poll::Ready(Some(Err((this.timed_out)(error))));
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt as _;

    type Chunk = Result<Bytes, std::io::Error>;

    fn deadline(
        stream: impl Stream<Item = Chunk> + Unpin,
    ) -> Deadline<impl Stream<Item = Chunk> + Unpin, std::io::Error> {
        Deadline::new(stream, Duration::from_millis(20), |e| e)
    }

    #[tokio::test]
    async fn a_body_still_arriving_at_its_deadline_is_cut() {
        let first = futures_util::stream::iter([Ok(Bytes::from_static(b"{\"name\":"))]);
        // Nothing more ever comes.
        let mut stream = deadline(first.chain(futures_util::stream::pending()));
        let chunk = stream.next().await.unwrap().unwrap();
        assert_eq!(&chunk[..], b"{\"name\":");
        match stream.next().await {
            Some(Err(e)) => assert_eq!(e.kind(), std::io::ErrorKind::TimedOut),
            other => panic!("not a timeout: {other:?}"),
        }
        assert!(stream.next().await.is_none());
    }

    #[tokio::test]
    async fn a_body_complete_in_time_passes_whole() {
        let whole = futures_util::stream::iter([Ok(Bytes::from_static(b"abc"))]);
        let chunks: Vec<_> = deadline(whole).collect().await;
        assert_eq!(chunks.len(), 1);
        assert_eq!(&chunks[0].as_ref().unwrap()[..], b"abc");
    }
}
