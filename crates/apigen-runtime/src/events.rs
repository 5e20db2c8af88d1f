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
//! error ([`StreamError::Answered`]). `data: [DONE]`, which several APIs
//! send as the end of a stream, ends it.
//!
//! [`ItemStream`] is the same for the other sequential media types, whose
//! items have no fields beside them: JSON Lines (`application/jsonl`,
//! `application/x-ndjson`), one JSON text a line, and JSON text sequences
//! (`application/json-seq`, RFC 7464), each text after a record separator.
//! The [`Framing`] of what arrives is told by its `Content-Type`, so a
//! client reads a server that frames otherwise than the spec says. Such a
//! stream is not resumed: a dropped connection ends it with the error.

use futures_util::stream::Stream;
use std::fmt;
use std::marker::PhantomData;
use std::pin::Pin;
#[cfg(feature = "client")]
use std::task::{Context, Poll};
use std::time::Duration;

/// One event: its data, with the fields SSE sends beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event<T> {
    /// The event's id (`id:`), which a reconnecting client sends back as
    /// `Last-Event-ID`.
    pub id: Option<String>,
    /// The event's type (`event:`); `message` when absent.
    pub event: Option<String>,
    /// How long a client should wait before reconnecting (`retry:`).
    pub retry: Option<Duration>,
    /// The data, sent as JSON on the `data:` line.
    pub data: T,
}

impl<T> Event<T> {
    /// An event with `data` and no other field.
    pub fn new(data: T) -> Self {
        Event {
            id: None,
            event: None,
            retry: None,
            data,
        }
    }

    /// With the id `id`. Line breaks, which would end the field, are left
    /// out when it is sent.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// With the type `event`. Line breaks are left out when it is sent.
    pub fn with_event(mut self, event: impl Into<String>) -> Self {
        self.event = Some(event.into());
        self
    }

    /// With the reconnection delay `retry`.
    pub fn with_retry(mut self, retry: Duration) -> Self {
        self.retry = Some(retry);
        self
    }
}

/// The text without line breaks and NULs, which would end an SSE field.
#[cfg(feature = "server")]
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['\r', '\n', '\0']) {
        text.replace(['\r', '\n', '\0'], "").into()
    } else {
        text.into()
    }
}

type Boxed<I> = Pin<Box<dyn Stream<Item = I> + Send>>;

/// How the items of a stream are framed on the wire, told by its media
/// type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `text/event-stream`: events, each with its fields (`id`, `event`,
    /// `retry`) and its data.
    Events,
    /// JSON Lines (`application/jsonl`, `application/x-ndjson`): one JSON
    /// text a line.
    Lines,
    /// JSON text sequences (RFC 7464, `application/json-seq` and
    /// `+json-seq`): each JSON text after a record separator (0x1E) and
    /// before a line feed.
    Sequence,
}

impl Framing {
    /// The framing of `media_type` (parameters and case aside), if it is a
    /// sequential media type this runtime reads.
    pub fn of(media_type: &str) -> Option<Framing> {
        let essence = media_type.split(';').next()?.trim().to_ascii_lowercase();
        match essence.as_str() {
            "text/event-stream" => Some(Framing::Events),
            "application/jsonl"
            | "application/x-jsonl"
            | "application/jsonlines"
            | "application/x-jsonlines"
            | "application/x-ndjson"
            | "application/ndjson" => Some(Framing::Lines),
            e if e.ends_with("+jsonl") || e.ends_with("+ndjson") => Some(Framing::Lines),
            e if e == "application/json-seq" || e.ends_with("+json-seq") => Some(Framing::Sequence),
            _ => None,
        }
    }

    /// One item as it goes on the wire: an event's fields and data for
    /// `text/event-stream`, its data alone for the others.
    #[cfg(feature = "server")]
    pub fn frame<T: serde::Serialize>(self, event: &Event<T>) -> Result<String, serde_json::Error> {
        let json = || super::strictly(|| serde_json::to_string(&event.data));
        Ok(match self {
            Framing::Events => return frame(event),
            Framing::Lines => json()? + "\n",
            Framing::Sequence => format!("\u{1e}{}\n", json()?),
        })
    }
}

/// A stream of typed events: the body of a `text/event-stream` response.
///
/// `T` is the type of an event's data; `R` the operation's response enum,
/// which a client's stream yields when a reconnect is answered with
/// something other than a stream. A client reads it as a
/// [`Stream`] of `Result<Event<T>, StreamError<R>>` (`.next().await`).
pub struct EventStream<T, R = ()> {
    source: Source<T, R>,
    /// How long a server's stream stays silent before a comment goes out.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    keep_alive: Duration,
}

enum Source<T, R> {
    /// Events a handler produces (read by the glue and the client side,
    /// when either is built).
    #[cfg_attr(not(any(feature = "server", feature = "client")), allow(dead_code))]
    Local(Boxed<Event<T>>, PhantomData<fn() -> R>),
    /// Events a server sends, read as they arrive.
    #[cfg(feature = "client")]
    Remote(Box<remote::Remote<T, R>>),
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
        }
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

/// The SSE framing of one event: its fields, then its data as JSON on one
/// `data:` line, then a blank line.
#[cfg(feature = "server")]
pub fn frame<T: serde::Serialize>(event: &Event<T>) -> Result<String, serde_json::Error> {
    use std::fmt::Write as _;
    // Strictly, as every answer of a server is written.
    let data = super::strictly(|| serde_json::to_string(&event.data))?;
    let mut text = String::with_capacity(data.len() + 32);
    if let Some(id) = &event.id {
        let _ = writeln!(text, "id: {}", one_line(id));
    }
    if let Some(name) = &event.event {
        let _ = writeln!(text, "event: {}", one_line(name));
    }
    if let Some(retry) = event.retry {
        let _ = writeln!(text, "retry: {}", retry.as_millis());
    }
    let _ = write!(text, "data: {data}\n\n");
    Ok(text)
}

#[cfg(feature = "server")]
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
                    source: Source::Remote(remote),
                    keep_alive: self.keep_alive,
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
    pub fn into_body(
        self,
        framing: Framing,
    ) -> impl Stream<Item = Result<actix_web::web::Bytes, std::convert::Infallible>> + 'static {
        use futures_util::StreamExt as _;
        let keep_alive = (framing == Framing::Events).then_some(self.keep_alive);
        let events = self.events();
        futures_util::stream::unfold(Some(events), move |events| async move {
            let mut events = events?;
            let next = match keep_alive {
                Some(keep_alive) => tokio::time::timeout(keep_alive, events.next()).await,
                None => Ok(events.next().await),
            };
            let chunk = match next {
                Err(_) => ": keep-alive\n\n".to_string(),
                Ok(None) => return None,
                Ok(Some(event)) => match framing.frame(&event) {
                    Ok(text) => text,
                    Err(e) => {
                        tracing::error!(error = %e, "an item of a stream could not be serialized: the stream ends");
                        return None;
                    }
                },
            };
            Some((Ok(actix_web::web::Bytes::from(chunk)), Some(events)))
        })
    }
}

/// Finishes a response whose body is the event stream `events`
/// (`text/event-stream`, not cached, each event sent as it comes).
#[cfg(feature = "server")]
pub fn events<T, R>(
    builder: actix_web::HttpResponseBuilder,
    events: EventStream<T, R>,
) -> actix_web::HttpResponse
where
    T: serde::Serialize + Send + 'static,
    R: Send + 'static,
{
    streamed(builder, "text/event-stream", Framing::Events, events)
}

/// Finishes a response whose body is the item stream `items`, sent as
/// `media_type` (`application/jsonl`, say) and framed as it says (JSON
/// Lines when it names no framing this runtime knows), each item as it
/// comes.
#[cfg(feature = "server")]
pub fn item_stream<T, R>(
    builder: actix_web::HttpResponseBuilder,
    media_type: &'static str,
    items: ItemStream<T, R>,
) -> actix_web::HttpResponse
where
    T: serde::Serialize + Send + 'static,
    R: Send + 'static,
{
    let framing = Framing::of(media_type).unwrap_or(Framing::Lines);
    streamed(builder, media_type, framing, items.0)
}

/// A streamed response: not cached, and not buffered by a proxy.
#[cfg(feature = "server")]
fn streamed<T, R>(
    mut builder: actix_web::HttpResponseBuilder,
    media_type: &'static str,
    framing: Framing,
    events: EventStream<T, R>,
) -> actix_web::HttpResponse
where
    T: serde::Serialize + Send + 'static,
    R: Send + 'static,
{
    builder
        .content_type(media_type)
        .insert_header(("cache-control", "no-cache"))
        // Nginx buffers a proxied response unless told not to.
        .insert_header(("x-accel-buffering", "no"))
        .streaming(events.into_body(framing))
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
pub struct ItemStream<T, R = ()>(EventStream<T, R>);

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
impl<T: serde::de::DeserializeOwned, R> ItemStream<T, R> {
    /// The stream of items `call` answers, asked for as `media_type`
    /// (`Accept`) and opened when it is first polled; `read` types an
    /// answer that is not a stream.
    pub fn connect(
        core: super::Core,
        call: Result<super::Call, super::ClientError>,
        read: remote::Read<R>,
        media_type: &'static str,
    ) -> Self {
        ItemStream(EventStream::connecting(core, call, read, media_type))
    }
}

#[cfg(feature = "client")]
impl<T, R> Stream for ItemStream<T, R>
where
    T: Send + 'static,
    R: Send + 'static,
{
    type Item = Result<T, StreamError<R>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.get_mut().0)
            .poll_next(cx)
            .map(|item| item.map(|event| event.map(|event| event.data)))
    }
}

/// Why a client's event stream yielded an error.
#[cfg(feature = "client")]
#[derive(Debug)]
pub enum StreamError<R> {
    /// The call could not be made or its events not read: a transport
    /// failure once reconnecting gave up, or an event whose data does not
    /// fit the spec (the stream goes on after it).
    Client(super::ClientError),
    /// The server answered with something other than a stream (the first
    /// call, or a reconnect): its typed response, as the operation declares
    /// it. The stream ends.
    Answered(Box<super::Reply<R>>),
}

#[cfg(feature = "client")]
impl<R> From<super::ClientError> for StreamError<R> {
    fn from(error: super::ClientError) -> Self {
        StreamError::Client(error)
    }
}

#[cfg(feature = "client")]
impl<R> fmt::Display for StreamError<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Client(e) => e.fmt(f),
            StreamError::Answered(reply) => {
                write!(
                    f,
                    "the server answered {} instead of a stream",
                    reply.status
                )
            }
        }
    }
}

#[cfg(feature = "client")]
impl<R: fmt::Debug> std::error::Error for StreamError<R> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StreamError::Client(e) => Some(e),
            StreamError::Answered(_) => None,
        }
    }
}

#[cfg(feature = "client")]
impl<T, R> Stream for EventStream<T, R>
where
    T: Send + 'static,
    R: Send + 'static,
{
    type Item = Result<Event<T>, StreamError<R>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match &mut self.get_mut().source {
            Source::Local(events, _) => events.as_mut().poll_next(cx).map(|e| e.map(Ok)),
            Source::Remote(remote) => remote.poll_next(cx),
        }
    }
}

#[cfg(feature = "client")]
impl<T: serde::de::DeserializeOwned, R> EventStream<T, R> {
    /// Whether a dropped connection is resumed (the default for a GET):
    /// `false` ends the stream when the connection ends. Has no effect on
    /// a stream already being read, or on one whose operation is not a GET
    /// (resending a POST would do its work again).
    pub fn resume(mut self, resume: bool) -> Self {
        if let Source::Remote(remote) = &mut self.source {
            remote.resume = resume;
        }
        self
    }

    /// The stream of events `call` answers, opened when it is first polled;
    /// `read` types an answer that is not a stream.
    pub fn connect(
        core: super::Core,
        call: Result<super::Call, super::ClientError>,
        read: remote::Read<R>,
    ) -> Self {
        EventStream::connecting(core, call, read, "text/event-stream")
    }

    /// The stream `call` answers, asked for as `accept`.
    fn connecting(
        core: super::Core,
        call: Result<super::Call, super::ClientError>,
        read: remote::Read<R>,
        accept: &'static str,
    ) -> Self {
        let source = match call {
            Ok(call) => {
                remote::Remote::new(Some((core, call)), read, remote::Start::Connect(accept))
            }
            Err(e) => remote::Remote::failed(e),
        };
        EventStream {
            source: Source::Remote(Box::new(source)),
            keep_alive: DEFAULT_KEEP_ALIVE,
        }
    }

    /// The stream of an answer already received (`Answer::events`), framed
    /// as `framing`. `from` is the core and call that opened it, which a
    /// reconnect repeats; `None` for an answer read whole, which cannot be
    /// resumed.
    pub(crate) fn answered(
        from: Option<(super::Core, super::Call)>,
        read: remote::Read<R>,
        body: remote::Body,
        framing: Framing,
    ) -> Self {
        let start = remote::Start::Read(body, framing);
        EventStream {
            source: Source::Remote(Box::new(remote::Remote::new(from, read, start))),
            keep_alive: DEFAULT_KEEP_ALIVE,
        }
    }
}

#[cfg(feature = "client")]
impl<T: serde::de::DeserializeOwned, R> ItemStream<T, R> {
    /// The stream of an answer already received (`Answer::items`).
    pub(crate) fn answered(
        from: Option<(super::Core, super::Call)>,
        read: remote::Read<R>,
        body: remote::Body,
        framing: Framing,
    ) -> Self {
        ItemStream(EventStream::answered(from, read, body, framing))
    }
}

/// The reading side: the SSE parser and the reconnecting stream.
#[cfg(feature = "client")]
pub(crate) mod remote {
    use super::super::{Answer, Call, ClientError, Core, Explode, Reply, Retry};
    use super::{Boxed, Event, Framing, StreamError};
    use futures_util::stream::{Stream, StreamExt as _};
    use std::collections::VecDeque;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::Duration;

    /// How a generated client types an answer.
    pub type Read<R> = fn(Answer) -> Result<Reply<R>, ClientError>;

    /// A body being read.
    pub type Body = Boxed<Result<Vec<u8>, ClientError>>;

    /// The wait before reconnecting when the server named none (`retry:`).
    const DEFAULT_RETRY: Duration = Duration::from_secs(3);

    /// The most bytes of one event held while it arrives: past this, the
    /// stream is not one this client can read.
    const MAX_EVENT: usize = 16 << 20;

    pub(crate) struct Remote<T, R> {
        /// Whether the caller lets the stream resume (`EventStream::resume`).
        pub(super) resume: bool,
        start: Option<State<T, R>>,
        running: Option<Boxed<Result<Event<T>, StreamError<R>>>>,
    }

    /// How a stream starts: by sending its call, asking for a media type,
    /// or by reading an answer's body, framed as its `Content-Type` says.
    pub(crate) enum Start {
        Connect(&'static str),
        Read(Body, Framing),
    }

    impl<T: serde::de::DeserializeOwned, R> Remote<T, R> {
        pub(super) fn new(from: Option<(Core, Call)>, read: Read<R>, start: Start) -> Self {
            let (phase, accept, framing) = match start {
                Start::Connect(accept) => {
                    let framing = Framing::of(accept).unwrap_or(Framing::Events);
                    let connect = Phase::Connect {
                        wait: Duration::ZERO,
                        attempt: 0,
                    };
                    (connect, accept, framing)
                }
                Start::Read(body, framing) => (Phase::Read(body), "text/event-stream", framing),
            };
            Remote::starting(from, Some(read), phase, accept, framing)
        }

        /// A stream whose call could not be built: `error` is its one item.
        pub(super) fn failed(error: ClientError) -> Self {
            let failed = Phase::Failed(error);
            Remote::starting(None, None, failed, "text/event-stream", Framing::Events)
        }

        /// A stream that starts in `phase`. Only a GET resumes (resending
        /// another method would do its work again).
        fn starting(
            from: Option<(Core, Call)>,
            read: Option<Read<R>>,
            phase: Phase,
            accept: &'static str,
            framing: Framing,
        ) -> Self {
            let resume = from
                .as_ref()
                .is_some_and(|(_, call)| call.operation().method.eq_ignore_ascii_case("GET"));
            let backoff = from
                .as_ref()
                .and_then(|(core, _)| core.retry_policy())
                .unwrap_or_default();
            Remote {
                resume: true,
                start: Some(State {
                    from,
                    decode: Raw::decode::<T>,
                    read,
                    resume,
                    backoff,
                    phase,
                    accept,
                    parser: Parser::new(framing),
                    retry: DEFAULT_RETRY,
                    pending: VecDeque::new(),
                }),
                running: None,
            }
        }
    }

    impl<T: Send + 'static, R: Send + 'static> Remote<T, R> {
        pub(super) fn poll_next(
            &mut self,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Event<T>, StreamError<R>>>> {
            if let Some(mut state) = self.start.take() {
                state.resume &= self.resume;
                self.running = Some(Box::pin(futures_util::stream::unfold(state, step::<T, R>)));
            }
            match &mut self.running {
                Some(running) => Pin::new(running).poll_next(cx),
                None => Poll::Ready(None),
            }
        }
    }

    struct State<T, R> {
        /// The core and the call to repeat when reconnecting; `None` for an
        /// answer read whole, which cannot be resumed.
        from: Option<(Core, Call)>,
        /// How an event's data is typed.
        decode: fn(Raw) -> Result<Event<T>, ClientError>,
        /// How an answer that is not a stream is typed.
        read: Option<Read<R>>,
        resume: bool,
        backoff: Retry,
        phase: Phase,
        /// The media type asked for (`Accept`).
        accept: &'static str,
        parser: Parser,
        /// The server's reconnection delay.
        retry: Duration,
        pending: VecDeque<Raw>,
    }

    impl<T, R> State<T, R> {
        /// Whether a dropped connection is resumed: only an event stream
        /// names where it resumes (`Last-Event-ID`); the other framings
        /// would start again from the first item.
        fn resumes(&self) -> bool {
            self.resume && self.parser.framing == Framing::Events
        }
    }

    enum Phase {
        Connect { wait: Duration, attempt: u32 },
        Read(Body),
        Failed(ClientError),
        Done,
    }

    /// One step: the next event or error, and the state after it.
    async fn step<T, R>(
        mut s: State<T, R>,
    ) -> Option<(Result<Event<T>, StreamError<R>>, State<T, R>)> {
        loop {
            if let Some(raw) = s.pending.pop_front() {
                let decode = s.decode;
                let event = match &s.from {
                    Some((core, _)) => core.reading(|| decode(raw)),
                    None => decode(raw),
                };
                return Some((event.map_err(StreamError::Client), s));
            }
            match std::mem::replace(&mut s.phase, Phase::Done) {
                Phase::Done => return None,
                Phase::Failed(e) => return Some((Err(StreamError::Client(e)), s)),
                Phase::Connect { wait, attempt } => {
                    if !wait.is_zero() {
                        tokio::time::sleep(wait).await;
                    }
                    let Some((core, call)) = &s.from else {
                        return None;
                    };
                    let mut call = call.clone();
                    call.header("Accept", &s.accept, Explode::No);
                    if let Some(id) = s.parser.last_id.as_deref().filter(|id| !id.is_empty()) {
                        call.header("Last-Event-ID", &id, Explode::No);
                    }
                    match core.open_response(&call).await {
                        Ok(response) if is_stream(&response) => {
                            s.parser.restart(framing_of(response.headers()));
                            s.phase = Phase::Read(body_of(response));
                        }
                        Ok(response) => {
                            // Not a stream: the typed answer ends it.
                            let error = match Answer::read(response, core.is_strict()).await {
                                Ok(answer) => match s.read.map(|read| read(answer)) {
                                    Some(Ok(reply)) => StreamError::Answered(Box::new(reply)),
                                    Some(Err(e)) => StreamError::Client(e),
                                    None => return None,
                                },
                                Err(e) => StreamError::Client(e),
                            };
                            return Some((Err(error), s));
                        }
                        Err(e) => {
                            if s.resume && attempt + 1 < s.backoff.attempts {
                                s.phase = Phase::Connect {
                                    wait: s.retry + s.backoff.wait(attempt, None),
                                    attempt: attempt + 1,
                                };
                                continue;
                            }
                            return Some((Err(StreamError::Client(e)), s));
                        }
                    }
                }
                Phase::Read(mut body) => match body.next().await {
                    Some(Ok(bytes)) => match s.parser.push(&bytes) {
                        Ok(events) => {
                            let mut done = false;
                            for raw in events {
                                if let Some(retry) = raw.retry {
                                    s.retry = retry;
                                }
                                let events = s.parser.framing == Framing::Events;
                                if events && raw.data.as_deref() == Some("[DONE]") {
                                    done = true;
                                    break;
                                }
                                if raw.data.is_some() {
                                    s.pending.push_back(raw);
                                }
                            }
                            if !done {
                                s.phase = Phase::Read(body);
                            }
                        }
                        Err(message) => {
                            let error = ClientError::Decode {
                                status: 200,
                                message,
                            };
                            return Some((Err(StreamError::Client(error)), s));
                        }
                    },
                    Some(Err(e)) if s.resumes() => {
                        tracing::debug!(error = %e, "event stream dropped: reconnecting");
                        s.phase = Phase::Connect {
                            wait: s.retry,
                            attempt: 0,
                        };
                    }
                    Some(Err(e)) => return Some((Err(StreamError::Client(e)), s)),
                    None if s.resumes() => {
                        s.phase = Phase::Connect {
                            wait: s.retry,
                            attempt: 0,
                        };
                    }
                    // The end of the body: an item it did not end with a
                    // line feed is whole.
                    None => s.pending.extend(s.parser.finish()),
                },
            }
        }
    }

    /// Whether a response is a stream (a success sent in a sequential
    /// media type: `text/event-stream`, JSON Lines, JSON text sequences).
    pub(crate) fn is_stream(response: &reqwest::Response) -> bool {
        response.status().is_success() && framing(response.headers()).is_some()
    }

    /// The framing headers announce, if a sequential media type.
    pub(crate) fn framing(headers: &reqwest::header::HeaderMap) -> Option<Framing> {
        headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(Framing::of)
    }

    /// The framing headers announce, events when they announce none.
    pub(crate) fn framing_of(headers: &reqwest::header::HeaderMap) -> Framing {
        framing(headers).unwrap_or(Framing::Events)
    }

    /// Whether headers announce `text/event-stream`.
    pub(crate) fn is_event_stream(headers: &reqwest::header::HeaderMap) -> bool {
        headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("text/event-stream"))
    }

    /// A response's body as it arrives.
    pub(crate) fn body_of(response: reqwest::Response) -> Body {
        Box::pin(
            response
                .bytes_stream()
                .map(|chunk| chunk.map(|b| b.to_vec()).map_err(ClientError::Transport)),
        )
    }

    /// An event as parsed, its data not yet decoded.
    #[derive(Debug, Default, Clone, PartialEq)]
    pub(crate) struct Raw {
        pub(crate) id: Option<String>,
        pub(crate) event: Option<String>,
        pub(crate) retry: Option<Duration>,
        pub(crate) data: Option<String>,
    }

    impl Raw {
        fn decode<T: serde::de::DeserializeOwned>(self) -> Result<Event<T>, ClientError> {
            let data = self.data.unwrap_or_default();
            let data = serde_json::from_str(&data).map_err(|e| ClientError::Decode {
                status: 200,
                message: format!(
                    "an event's data does not fit the spec ({e}): {}",
                    &data[..floor_char_boundary(&data, 200)]
                ),
            })?;
            Ok(Event {
                id: self.id,
                event: self.event,
                retry: self.retry,
                data,
            })
        }
    }

    /// The largest character boundary of `text` at or before `at`.
    fn floor_char_boundary(text: &str, at: usize) -> usize {
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// The reader of a stream's framing. Lines end with CR, LF or CRLF;
    /// bytes are held until their line ends, so a chunk may end anywhere,
    /// inside a character too.
    /// - `text/event-stream`, as the HTML standard reads it: `field: value`;
    ///   a blank line dispatches; comments (`:`) and unknown fields ignored.
    /// - JSON Lines: each line that is not blank is an item.
    /// - JSON text sequences: a record separator (0x1E) opens each item,
    ///   which ends with the next separator, or with a line once what is
    ///   held is one JSON text (so that an item is read as soon as it has
    ///   arrived, even written over several lines).
    #[derive(Debug)]
    pub(crate) struct Parser {
        pub(crate) framing: Framing,
        line: Vec<u8>,
        /// The previous chunk ended in CR: an LF opening this one belongs
        /// to it.
        after_cr: bool,
        current: Raw,
        /// Whether the event being read has a field (a lone blank line
        /// dispatches nothing).
        started: bool,
        held: usize,
        /// The last `id:` received: sent back as `Last-Event-ID`.
        pub(crate) last_id: Option<String>,
    }

    impl Parser {
        pub(crate) fn new(framing: Framing) -> Self {
            Parser {
                framing,
                line: Vec::new(),
                after_cr: false,
                current: Raw::default(),
                started: false,
                held: 0,
                last_id: None,
            }
        }

        /// Drops what a dropped connection left half-read, to read what
        /// the new one sends, framed as `framing`; the last id stays.
        pub(crate) fn restart(&mut self, framing: Framing) {
            let last_id = self.last_id.take();
            *self = Parser {
                last_id,
                ..Parser::new(framing)
            };
        }

        /// The item the end of the body completes: a last line with no line
        /// feed after it, or a last JSON text of a sequence. (An event not
        /// ended by a blank line is dropped, as the standard says.)
        pub(crate) fn finish(&mut self) -> Vec<Raw> {
            let mut items = Vec::new();
            if self.framing == Framing::Events {
                return items;
            }
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
            self.line_done(&line, &mut items);
            if let Some(data) = self.current.data.take() {
                if !data.trim().is_empty() {
                    items.push(Raw {
                        data: Some(data),
                        ..Raw::default()
                    });
                }
            }
            items
        }

        /// The events `chunk` completes.
        pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<Vec<Raw>, String> {
            let mut events = Vec::new();
            let mut rest = chunk;
            if self.after_cr {
                self.after_cr = false;
                if let Some(b'\n') = rest.first() {
                    rest = &rest[1..];
                }
            }
            while let Some(end) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
                self.line.extend_from_slice(&rest[..end]);
                let line = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
                self.line_done(&line, &mut events);
                if rest[end] == b'\r' {
                    match rest.get(end + 1) {
                        Some(b'\n') => rest = &rest[end + 2..],
                        Some(_) => rest = &rest[end + 1..],
                        None => {
                            self.after_cr = true;
                            rest = &[];
                        }
                    }
                } else {
                    rest = &rest[end + 1..];
                }
            }
            self.line.extend_from_slice(rest);
            if self.held + self.line.len() > MAX_EVENT {
                return Err(format!("an event is longer than {} bytes", MAX_EVENT));
            }
            Ok(events)
        }

        fn line_done(&mut self, line: &str, events: &mut Vec<Raw>) {
            match self.framing {
                Framing::Events => self.event_line(line, events),
                Framing::Lines => {
                    if !line.trim().is_empty() {
                        events.push(Raw {
                            data: Some(line.to_string()),
                            ..Raw::default()
                        });
                    }
                }
                Framing::Sequence => self.sequence_line(line, events),
            }
        }

        /// A line of a JSON text sequence.
        fn sequence_line(&mut self, line: &str, items: &mut Vec<Raw>) {
            fn add(parser: &mut Parser, text: &str) {
                match &mut parser.current.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(text);
                    }
                    None => parser.current.data = Some(text.to_string()),
                }
            }
            let mut records = line.split('\u{1e}');
            // What comes before a separator belongs to the item being read.
            if let Some(first) = records.next() {
                if self.current.data.is_some() || !first.trim().is_empty() {
                    add(self, first);
                }
            }
            for record in records {
                if let Some(data) = self.current.data.take() {
                    if !data.trim().is_empty() {
                        items.push(Raw {
                            data: Some(data),
                            ..Raw::default()
                        });
                    }
                }
                add(self, record);
            }
            let whole = self.current.data.as_deref().is_some_and(|data| {
                !data.trim().is_empty()
                    && serde_json::from_str::<serde::de::IgnoredAny>(data).is_ok()
            });
            self.held = self.current.data.as_ref().map_or(0, String::len);
            if whole {
                self.held = 0;
                items.push(Raw {
                    data: self.current.data.take(),
                    ..Raw::default()
                });
            }
        }

        /// A line of an event stream.
        fn event_line(&mut self, line: &str, events: &mut Vec<Raw>) {
            if line.is_empty() {
                if self.started {
                    events.push(std::mem::take(&mut self.current));
                }
                self.started = false;
                self.held = 0;
                return;
            }
            if line.starts_with(':') {
                return;
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            self.held += line.len();
            match field {
                "data" => {
                    self.started = true;
                    match &mut self.current.data {
                        Some(data) => {
                            data.push('\n');
                            data.push_str(value);
                        }
                        None => self.current.data = Some(value.to_string()),
                    }
                }
                "event" => {
                    self.started = true;
                    self.current.event = Some(value.to_string());
                }
                "id" if !value.contains('\0') => {
                    self.started = true;
                    self.current.id = Some(value.to_string());
                    self.last_id = Some(value.to_string());
                }
                "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                    self.started = true;
                    if let Ok(ms) = value.parse() {
                        self.current.retry = Some(Duration::from_millis(ms));
                    }
                }
                _ => {}
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn parse(chunks: &[&[u8]]) -> Vec<Raw> {
            let mut parser = Parser::new(Framing::Events);
            chunks
                .iter()
                .flat_map(|c| parser.push(c).unwrap())
                .collect()
        }

        #[test]
        fn events_are_read_across_any_chunking() {
            let text = "id: 1\nevent: order.placed\ndata: {\"a\":1}\n\n: keep-alive\n\nretry: 500\ndata: 2\ndata: 3\n\n";
            let whole = parse(&[text.as_bytes()]);
            assert_eq!(whole.len(), 2);
            assert_eq!(whole[0].id.as_deref(), Some("1"));
            assert_eq!(whole[0].event.as_deref(), Some("order.placed"));
            assert_eq!(whole[0].data.as_deref(), Some("{\"a\":1}"));
            assert_eq!(whole[1].data.as_deref(), Some("2\n3"));
            assert_eq!(whole[1].retry, Some(Duration::from_millis(500)));
            // Byte by byte, and with CRLF and CR line ends, the same events.
            let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
            assert_eq!(parse(&bytes), whole);
            let crlf = text.replace('\n', "\r\n");
            let split: Vec<&[u8]> = crlf.as_bytes().chunks(3).collect();
            assert_eq!(parse(&split), whole);
            let cr = text.replace('\n', "\r");
            assert_eq!(parse(&[cr.as_bytes()]), whole);
        }

        #[test]
        fn a_character_split_between_chunks_is_whole() {
            let text = "data: \"é\"\n\n".as_bytes();
            let at = text.iter().position(|b| *b >= 0x80).unwrap() + 1;
            let events = parse(&[&text[..at], &text[at..]]);
            assert_eq!(events[0].data.as_deref(), Some("\"é\""));
        }

        #[test]
        fn the_last_id_outlives_a_restart_and_half_events_do_not() {
            let mut parser = Parser::new(Framing::Events);
            parser.push(b"id: 7\ndata: 1\n\ndata: half").unwrap();
            parser.restart(Framing::Events);
            assert_eq!(parser.last_id.as_deref(), Some("7"));
            let events = parser.push(b"\n\ndata: 2\n\n").unwrap();
            assert_eq!(events.len(), 1);
            assert_eq!(events[0].data.as_deref(), Some("2"));
        }

        fn items(framing: Framing, chunks: &[&[u8]]) -> Vec<String> {
            let mut parser = Parser::new(framing);
            let mut items: Vec<Raw> = chunks
                .iter()
                .flat_map(|c| parser.push(c).unwrap())
                .collect();
            items.extend(parser.finish());
            items.into_iter().filter_map(|raw| raw.data).collect()
        }

        #[test]
        fn json_lines_are_read_a_line_an_item_across_any_chunking() {
            let text = "{\"a\":1}\n\n[2, 3]\r\n\"é\"\n4";
            let whole = items(Framing::Lines, &[text.as_bytes()]);
            assert_eq!(whole, ["{\"a\":1}", "[2, 3]", "\"é\"", "4"]);
            let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
            assert_eq!(items(Framing::Lines, &bytes), whole);
        }

        #[test]
        fn a_json_sequence_item_is_read_once_it_is_whole() {
            // Compact, pretty over several lines, and with no line feed
            // before the next separator or the end.
            let text = "\u{1e}{\"a\":1}\n\u{1e}{\n  \"b\": [1,\n 2]\n}\n\u{1e}3\u{1e}\"x\"";
            let whole = items(Framing::Sequence, &[text.as_bytes()]);
            assert_eq!(
                whole,
                ["{\"a\":1}", "{\n  \"b\": [1,\n 2]\n}", "3", "\"x\""]
            );
            let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
            assert_eq!(items(Framing::Sequence, &bytes), whole);
            // An item is given as soon as its line completes it.
            let mut parser = Parser::new(Framing::Sequence);
            let first = parser.push(b"\x1e{\"a\":\n").unwrap();
            assert!(first.is_empty());
            let second = parser.push(b"1}\n").unwrap();
            assert_eq!(second[0].data.as_deref(), Some("{\"a\":\n1}"));
        }

        #[test]
        fn framings_are_told_by_media_type() {
            assert_eq!(
                Framing::of("text/event-stream; charset=utf-8"),
                Some(Framing::Events)
            );
            assert_eq!(Framing::of("application/x-ndjson"), Some(Framing::Lines));
            assert_eq!(Framing::of("Application/JSONL"), Some(Framing::Lines));
            assert_eq!(
                Framing::of("application/geo+json-seq"),
                Some(Framing::Sequence)
            );
            assert_eq!(Framing::of("application/json"), None);
        }

        #[test]
        fn an_event_past_the_limit_is_refused() {
            let mut parser = Parser::new(Framing::Events);
            let big = vec![b'x'; MAX_EVENT + 1];
            parser.push(b"data: ").unwrap();
            assert!(parser.push(&big).is_err());
        }
    }
}

#[cfg(all(test, feature = "server"))]
mod tests {
    use super::*;

    #[test]
    fn items_are_framed_as_their_media_type_says() {
        let item = Event::new(serde_json::json!({"orderId": 3})).with_id("dropped");
        let lines = Framing::Lines.frame(&item).unwrap();
        assert_eq!(lines, "{\"orderId\":3}\n");
        let sequence = Framing::Sequence.frame(&item).unwrap();
        assert_eq!(sequence, "\u{1e}{\"orderId\":3}\n");
    }

    #[test]
    fn events_are_framed_one_field_per_line() {
        let event = Event::new(serde_json::json!({"orderId": 3}))
            .with_id("12\r\n")
            .with_event("order.placed")
            .with_retry(Duration::from_millis(1500));
        assert_eq!(
            frame(&event).unwrap(),
            "id: 12\nevent: order.placed\nretry: 1500\ndata: {\"orderId\":3}\n\n"
        );
    }
}
