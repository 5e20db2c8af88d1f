//! Server-sent events (`text/event-stream`): a response that is a stream of
//! typed events rather than one body.
//!
//! [`EventStream`] is the value a response enum holds for such a response,
//! on both sides of the wire. A server's handler builds one from any stream
//! of [`Event`]s ([`EventStream::new`]); the glue writes the SSE framing,
//! sends each event as it comes and a comment every 15 seconds so that
//! proxies keep an idle connection open. A client reads one as the answer
//! arrives, never buffering the whole body: each event's `data` is decoded
//! from JSON into the operation's event type, with its `id`, `event` and
//! `retry` beside it. When the connection drops, a client's stream of a
//! safe operation (GET) reconnects after the server's `retry` (plus the
//! client's backoff) and sends `Last-Event-ID`, so that the server resumes
//! after the last event received; a reconnect the server answers with
//! anything but a stream ends the stream with that answer, typed, as the
//! error ([`StreamError::Answered`](super::StreamError::Answered)).
//! `data: [DONE]`, which several APIs send as the end of a stream, ends it.
//!
//! [`ItemStream`] is the same for the other sequential media types, whose
//! items have no fields beside them: JSON Lines (`application/jsonl`,
//! `application/x-ndjson`), one JSON text a line, and JSON text sequences
//! (`application/json-seq`, RFC 7464), each text after a record separator.
//! The [`Framing`] of what arrives is told by its `Content-Type`, so a
//! client reads a server that frames otherwise than the spec says. Such a
//! stream is not resumed: a dropped connection ends it with the error.

#[cfg(feature = "serving")]
use super::framing::Framing;
use super::framing::{Boxed, Event};
use futures_util::stream::Stream;
use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

/// A stream of typed events: the body of a `text/event-stream` response.
///
/// `T` is the type of an event's data; `R` the operation's response enum,
/// which a client's stream yields when a reconnect is answered with
/// something other than a stream. A client reads it as a
/// [`Stream`] of `Result<Event<T>, StreamError<R>>` (`.next().await`).
pub struct EventStream<T, R = ()> {
    pub(crate) source: Source<T, R>,
    /// How long a server's stream stays silent before a comment goes out.
    #[cfg_attr(not(feature = "serving"), allow(dead_code))]
    keep_alive: Duration,
    /// A server's `retry:`, sent alone when its events end.
    #[cfg_attr(not(feature = "serving"), allow(dead_code))]
    retry_at_end: Option<Duration>,
}

pub(crate) enum Source<T, R> {
    /// Events a handler produces (read by the glue and the client side,
    /// when either is built).
    #[cfg_attr(not(any(feature = "serving", feature = "client")), allow(dead_code))]
    Local(Boxed<Event<T>>, PhantomData<fn() -> R>),
    /// Events a server sends, read as they arrive by the client's reader
    /// (`client::reading`), which alone knows its type: this module, which
    /// both sides build, names nothing of the client's.
    #[cfg(feature = "client")]
    Remote(Box<dyn std::any::Any + Send>),
}

impl<T, R> fmt::Debug for EventStream<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.source {
            Source::Local(..) => "local",
            #[cfg(feature = "client")]
            Source::Remote(_) => "remote",
        };
        f.debug_struct("EventStream")
            .field("source", &kind)
            .field("keep_alive", &self.keep_alive)
            .finish()
    }
}

impl<T, R> EventStream<T, R> {
    /// The stream of `events`, sent in order as each is produced; the
    /// response ends when the stream does.
    pub fn new(events: impl Stream<Item = Event<T>> + Send + 'static) -> Self {
        EventStream {
            source: Source::Local(Box::pin(events), PhantomData),
            keep_alive: DEFAULT_KEEP_ALIVE,
            retry_at_end: None,
        }
    }

    /// Sent by a server, the stream ends (its events do: the server is
    /// stopping, say) with `retry:` alone, a field with no data: the
    /// client waits that long before it reconnects, and resumes from the
    /// last id it saw.
    pub fn retry_at_end(mut self, retry: Duration) -> Self {
        self.retry_at_end = Some(retry);
        self
    }

    /// Sent by a server, a comment goes out after `keep_alive` of silence
    /// (instead of [`DEFAULT_KEEP_ALIVE`]): shorter behind a proxy that
    /// closes connections idle for less, and a vanished client is noticed
    /// sooner (a write to its connection fails). Zero is taken as a
    /// millisecond.
    pub fn keep_alive(mut self, keep_alive: Duration) -> Self {
        self.keep_alive = keep_alive.max(Duration::from_millis(1));
        self
    }
}

/// The longest a server's stream stays silent unless told otherwise
/// ([`EventStream::keep_alive`]): a comment goes out after this long
/// without an event, so that proxies and load balancers keep the
/// connection open and a vanished client is noticed.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

#[cfg(feature = "serving")]
impl<T, R> EventStream<T, R>
where
    T: serde::Serialize + Send + 'static,
    R: Send + 'static,
{
    /// The events a server sends: a handler's own, or, for a stream read
    /// from elsewhere (a proxy), its events until the first error.
    fn events(self) -> Boxed<Event<T>> {
        match self.source {
            Source::Local(events, _) => events,
            #[cfg(feature = "client")]
            Source::Remote(remote) => {
                use futures_util::StreamExt as _;
                let stream = EventStream {
                    source: Source::<T, R>::Remote(remote),
                    keep_alive: self.keep_alive,
                    retry_at_end: None,
                };
                Box::pin(
                    stream
                        .take_while(|item| std::future::ready(item.is_ok()))
                        .filter_map(|item| std::future::ready(item.ok())),
                )
            }
        }
    }

    /// The body as it goes on the wire: each event framed as `framing`
    /// says, and, for `text/event-stream`, a comment after its keep-alive
    /// of silence (the other framings have no text that is not an item).
    /// An event whose data cannot be serialized ends the stream (and is
    /// logged).
    pub fn into_body(self, framing: Framing) -> impl Stream<Item = bytes::Bytes> + Send + 'static {
        use futures_util::StreamExt as _;
        let keep_alive = (framing == Framing::Events).then_some(self.keep_alive);
        let retry_at_end = self
            .retry_at_end
            .filter(|_| framing == Framing::Events)
            .map(|retry| bytes::Bytes::from(format!("retry: {}\n\n", retry.as_millis())));
        let events = self.events();
        futures_util::stream::unfold(Some(events), move |events| {
            let framing = framing.clone();
            let retry_at_end = retry_at_end.clone();
            async move {
                let mut events = events?;
                let next = match keep_alive {
                    Some(keep_alive) => tokio::time::timeout(keep_alive, events.next()).await,
                    None => Ok(events.next().await),
                };
                let chunk = match next {
                    Err(_) => ": keep-alive\n\n".to_string(),
                    // What closes the stream, if its framing has it, is its
                    // last chunk; for events, the reconnection delay.
                    Ok(None) => {
                        return framing
                            .close()
                            .map(bytes::Bytes::from)
                            .or(retry_at_end)
                            .map(|close| (close, None))
                    }
                    Ok(Some(event)) => match framing.frame(&event) {
                        Ok(text) => text,
                        Err(e) => {
                            tracing::error!(error = %e, "an item of a stream could not be serialized: the stream ends");
                            return None;
                        }
                    },
                };
                Some((bytes::Bytes::from(chunk), Some(events)))
            }
        })
    }
}

/// Finishes a response whose body is the event stream `events`
/// (`text/event-stream`, not cached, each event sent as it comes).
#[cfg(feature = "serving")]
pub fn events<T, R>(builder: http::response::Builder, events: EventStream<T, R>) -> super::Outgoing
where
    T: serde::Serialize + Send + 'static,
    R: Send + 'static,
{
    streamed(builder, "text/event-stream", Framing::Events, events)
}

/// Finishes a response whose body is the item stream `items`, sent as
/// `media_type` (`application/jsonl`, say) and framed as it says (JSON
/// Lines when it names no framing this runtime knows; `multipart/mixed`
/// with a fresh boundary), each item as it comes.
#[cfg(feature = "serving")]
pub fn item_stream<T, R>(
    builder: http::response::Builder,
    media_type: &'static str,
    items: ItemStream<T, R>,
) -> super::Outgoing
where
    T: serde::Serialize + Send + 'static,
    R: Send + 'static,
{
    let framing = Framing::of(media_type).unwrap_or(Framing::Lines);
    streamed(builder, media_type, framing, items.0)
}

/// A streamed response: not cached, and not buffered by a proxy.
#[cfg(feature = "serving")]
fn streamed<T, R>(
    mut builder: http::response::Builder,
    media_type: &'static str,
    framing: Framing,
    events: EventStream<T, R>,
) -> super::Outgoing
where
    T: serde::Serialize + Send + 'static,
    R: Send + 'static,
{
    super::set_header(
        &mut builder,
        "content-type",
        framing.content_type(media_type),
    );
    super::set_header(&mut builder, "cache-control", "no-cache");
    // Nginx buffers a proxied response unless told not to.
    super::set_header(&mut builder, "x-accel-buffering", "no");
    let body = super::OutgoingBody::Stream(Box::pin(events.into_body(framing)));
    super::response::finish(builder, body)
}

/// A stream of typed items: the body of a response in a sequential media
/// type other than `text/event-stream` (JSON Lines, JSON text sequences).
///
/// `T` is the type of an item; `R` the operation's response enum, which a
/// client's stream yields when the server answers with something other
/// than a stream. A client reads it as a [`Stream`] of
/// `Result<T, StreamError<R>>` (`.next().await`), each item as its bytes
/// arrive; a server's handler builds one from any stream of items
/// ([`ItemStream::new`]).
pub struct ItemStream<T, R = ()>(pub(crate) EventStream<T, R>);

impl<T, R> fmt::Debug for ItemStream<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ItemStream").field(&self.0).finish()
    }
}

impl<T: Send + 'static, R> ItemStream<T, R> {
    /// The stream of `items`, sent in order as each is produced; the
    /// response ends when the stream does.
    pub fn new(items: impl Stream<Item = T> + Send + 'static) -> Self {
        use futures_util::StreamExt as _;
        ItemStream(EventStream::new(items.map(Event::new)))
    }
}

#[cfg(feature = "client")]
impl<T, R> EventStream<T, R> {
    /// The stream of the events `source` reads from a server (the client's
    /// `connect` and `Answer::events`).
    pub(crate) fn received(source: Box<dyn std::any::Any + Send>) -> Self {
        EventStream {
            source: Source::Remote(source),
            keep_alive: DEFAULT_KEEP_ALIVE,
            retry_at_end: None,
        }
    }
}

#[cfg(all(test, feature = "serving"))]
mod tests {
    use super::*;
    use futures_util::StreamExt as _;

    #[tokio::test]
    async fn a_stream_that_ends_says_when_to_reconnect() {
        let events = futures_util::stream::iter([Event::new(1).with_id("7")]);
        let stream: EventStream<i32> =
            EventStream::new(events).retry_at_end(Duration::from_secs(3));
        let chunks: Vec<bytes::Bytes> = stream.into_body(Framing::Events).collect().await;
        assert_eq!(chunks, ["id: 7\ndata: 1\n\n", "retry: 3000\n\n"]);
        // Without it, the stream just ends; and no other framing has it.
        let events = futures_util::stream::iter([Event::new(1)]);
        let chunks: Vec<bytes::Bytes> = EventStream::<i32>::new(events)
            .into_body(Framing::Events)
            .collect()
            .await;
        assert_eq!(chunks, ["data: 1\n\n"]);
        let events = futures_util::stream::iter([Event::new(1)]);
        let chunks: Vec<bytes::Bytes> = EventStream::<i32>::new(events)
            .retry_at_end(Duration::from_secs(3))
            .into_body(Framing::Lines)
            .collect()
            .await;
        assert_eq!(chunks, ["1\n"]);
    }
}
