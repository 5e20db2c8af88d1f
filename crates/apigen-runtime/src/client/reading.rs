//! The reading side of a client's streams ([`EventStream`],
//! [`ItemStream`]): the parser of each framing (server-sent events, JSON
//! Lines, JSON text sequences), the stream that reads a body as it arrives,
//! reconnecting an event stream with `Last-Event-ID`, and the streams'
//! constructors on the client's side.

use super::super::events::Source;
use super::super::framing::{Boxed, Event, Framing};
use super::super::{EventStream, Explode, ItemStream, Retry};
use super::{Answer, Call, ClientError, Core, Reply};
use futures_util::stream::{Stream, StreamExt as _};
use serde::de::DeserializeOwned;
use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// A stream as received, and the call that opened it (which a reconnect
/// repeats), held by its [`Answer`] until read.
pub(crate) struct Live {
    pub(crate) core: Core,
    pub(crate) call: Call,
    pub(crate) body: Body,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("operation", &self.call.operation().id)
            .finish_non_exhaustive()
    }
}

/// How a generated client types an answer.
pub type Read<R> = fn(Answer) -> Result<Reply<R>, ClientError>;

/// A body being read.
pub type Body = Boxed<Result<Vec<u8>, ClientError>>;

/// The wait before reconnecting when the server named none (`retry:`).
const DEFAULT_RETRY: Duration = Duration::from_secs(3);

/// The most bytes of one event held while it arrives: past this, the
/// stream is not one this client can read.
const MAX_EVENT: usize = 16 << 20;

/// The events of a stream received, read as they arrive.
struct Remote<T, R> {
    /// Whether the caller lets the stream resume (`EventStream::resume`).
    resume: bool,
    start: Option<State<T, R>>,
    running: Option<Boxed<Result<Event<T>, StreamError<R>>>>,
}

/// How a stream starts: by sending its call, asking for a media type,
/// or by reading an answer's body, framed as its `Content-Type` says.
enum Start {
    Connect(&'static str),
    Read(Body, Framing),
}

impl<T: DeserializeOwned, R> Remote<T, R> {
    fn new(from: Option<(Core, Call)>, read: Read<R>, start: Start) -> Self {
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
    fn failed(error: ClientError) -> Self {
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
    /// The stream whose events this reads: the one place a reader goes
    /// into an [`EventStream`], which holds it untyped and which
    /// [`Remote::of`] gives back.
    fn stream(self) -> EventStream<T, R> {
        EventStream::received(Box::new(self))
    }

    /// The reader `source` holds, which only [`Remote::stream`] put
    /// there: of these types, always.
    fn of(source: &mut (dyn std::any::Any + Send)) -> &mut Self {
        source
            .downcast_mut()
            .expect("a stream's reader is made for its own types")
    }

    fn poll_event(
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

impl<T: DeserializeOwned + Send + 'static, R: Send + 'static> EventStream<T, R> {
    /// The stream of events `call` answers, opened when it is first polled;
    /// `read` types an answer that is not a stream.
    pub fn connect(core: Core, call: Result<Call, ClientError>, read: Read<R>) -> Self {
        EventStream::connecting(core, call, read, "text/event-stream")
    }

    /// The stream `call` answers, asked for as `accept`.
    fn connecting(
        core: Core,
        call: Result<Call, ClientError>,
        read: Read<R>,
        accept: &'static str,
    ) -> Self {
        Remote::stream(match call {
            Ok(call) => Remote::new(Some((core, call)), read, Start::Connect(accept)),
            Err(e) => Remote::failed(e),
        })
    }

    /// The stream of an answer already received (`Answer::events`), framed
    /// as `framing`. `from` is the core and call that opened it, which a
    /// reconnect repeats; `None` for an answer read whole, which cannot be
    /// resumed.
    pub(crate) fn answered(
        from: Option<(Core, Call)>,
        read: Read<R>,
        body: Body,
        framing: Framing,
    ) -> Self {
        let start = Start::Read(body, framing);
        Remote::stream(Remote::new(from, read, start))
    }
}

impl<T: DeserializeOwned + Send + 'static, R: Send + 'static> ItemStream<T, R> {
    /// The stream of items `call` answers, asked for as `media_type`
    /// (`Accept`) and opened when it is first polled; `read` types an
    /// answer that is not a stream.
    pub fn connect(
        core: Core,
        call: Result<Call, ClientError>,
        read: Read<R>,
        media_type: &'static str,
    ) -> Self {
        ItemStream(EventStream::connecting(core, call, read, media_type))
    }
}

/// Why a client's event stream yielded an error.
#[derive(Debug)]
pub enum StreamError<R> {
    /// The call could not be made or its events not read: a transport
    /// failure once reconnecting gave up, or an event whose data does not
    /// fit the spec (the stream goes on after it).
    Client(ClientError),
    /// The server answered with something other than a stream (the first
    /// call, or a reconnect): its typed response, as the operation declares
    /// it. The stream ends.
    Answered(Box<Reply<R>>),
}

impl<R> From<ClientError> for StreamError<R> {
    fn from(error: ClientError) -> Self {
        StreamError::Client(error)
    }
}

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

impl<R: fmt::Debug> std::error::Error for StreamError<R> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StreamError::Client(e) => Some(e),
            StreamError::Answered(_) => None,
        }
    }
}

impl<T, R> Stream for EventStream<T, R>
where
    T: Send + 'static,
    R: Send + 'static,
{
    type Item = Result<Event<T>, StreamError<R>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match &mut self.get_mut().source {
            Source::Local(events, _) => events.as_mut().poll_next(cx).map(|e| e.map(Ok)),
            Source::Remote(remote) => Remote::<T, R>::of(remote.as_mut()).poll_event(cx),
        }
    }
}

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

impl<T: Send + 'static, R: Send + 'static> EventStream<T, R> {
    /// Whether a dropped connection is resumed (the default for a GET):
    /// `false` ends the stream when the connection ends. Has no effect on
    /// a stream already being read, or on one whose operation is not a GET
    /// (resending a POST would do its work again).
    pub fn resume(mut self, resume: bool) -> Self {
        if let Source::Remote(remote) = &mut self.source {
            Remote::<T, R>::of(remote.as_mut()).resume = resume;
        }
        self
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
async fn step<T, R>(mut s: State<T, R>) -> Option<(Result<Event<T>, StreamError<R>>, State<T, R>)> {
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
                        let error =
                            match Answer::read(response, core.is_strict(), core.answer_limit())
                                .await
                            {
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
fn framing_of(headers: &reqwest::header::HeaderMap) -> Framing {
    framing(headers).unwrap_or(Framing::Events)
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
    /// Where the reading of a multipart body is.
    part: PartState,
}

/// Where the reading of a multipart body is.
#[derive(Debug, Default)]
struct PartState {
    /// Past the first delimiter (before it is the preamble, ignored).
    opened: bool,
    /// Reading a part's headers, up to the blank line.
    headers: bool,
    /// The part's `Content-Type` names other than JSON: its text is the
    /// item, as a JSON string.
    text: bool,
    /// Past the closing delimiter (after it is the epilogue, ignored).
    closed: bool,
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
            part: PartState::default(),
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
        if matches!(self.framing, Framing::Parts(_)) {
            // A body cut before its closing delimiter: its last part is
            // read as far as it came.
            self.end_part(&mut items);
            return items;
        }
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
        match &self.framing {
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
            Framing::Parts(boundary) => {
                let boundary = boundary.clone();
                self.part_line(line, &boundary, events);
            }
        }
    }

    /// A line of a multipart body: a delimiter (`--` and the boundary,
    /// with `--` after it for the last) ends the part before it; then come
    /// the part's headers, a blank line, and its body.
    fn part_line(
        &mut self,
        line: &str,
        boundary: &super::super::framing::Boundary,
        items: &mut Vec<Raw>,
    ) {
        let after = line
            .strip_prefix("--")
            .and_then(|rest| rest.strip_prefix(boundary.as_str()))
            // Transport padding may follow a delimiter.
            .map(str::trim_end);
        if let Some(after @ ("" | "--")) = after {
            self.end_part(items);
            self.part = PartState {
                opened: true,
                headers: true,
                text: false,
                closed: after == "--",
            };
            return;
        }
        if !self.part.opened || self.part.closed {
            return;
        }
        if self.part.headers {
            if line.is_empty() {
                self.part.headers = false;
                self.current.data = Some(String::new());
            } else if let Some((name, value)) = line.split_once(':') {
                if name.trim().eq_ignore_ascii_case("content-type") {
                    self.part.text = !super::super::media::is_json(value);
                }
            }
            return;
        }
        self.held += line.len() + 1;
        let data = self.current.data.get_or_insert_with(String::new);
        if self.started {
            data.push('\n');
        }
        data.push_str(line);
        self.started = true;
    }

    /// The item the part being read makes, if its body has begun: its
    /// text, as a JSON string when its media type is not JSON.
    fn end_part(&mut self, items: &mut Vec<Raw>) {
        self.started = false;
        self.held = 0;
        let Some(data) = self.current.data.take() else {
            return;
        };
        let data = match self.part.text {
            true => serde_json::Value::String(data).to_string(),
            false => data,
        };
        items.push(Raw {
            data: Some(data),
            ..Raw::default()
        });
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
            !data.trim().is_empty() && serde_json::from_str::<serde::de::IgnoredAny>(data).is_ok()
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
    fn parts_are_read_one_item_each_across_any_chunking() {
        let body = "preamble, ignored\r\n--b7\r\ncontent-type: application/json\r\n\r\n\
                    {\"id\": 1,\r\n \"name\": \"R\u{e9}x\"}\r\n--b7  \r\nContent-Type: text/plain\r\n\r\n\
                    two \"lines\"\r\nof text\r\n--b7--\r\nepilogue, ignored\r\n";
        let framing = Framing::of("multipart/mixed; boundary=b7").unwrap();
        let expected = [
            "{\"id\": 1,\n \"name\": \"R\u{e9}x\"}".to_string(),
            serde_json::Value::from("two \"lines\"\nof text").to_string(),
        ];
        for size in [1, 2, 3, 7, body.len()] {
            let chunks: Vec<&[u8]> = body.as_bytes().chunks(size).collect();
            assert_eq!(
                items(framing.clone(), &chunks),
                expected,
                "chunks of {size}"
            );
        }
        // A body cut short: the part it was in is read as far as it came,
        // and a delimiter of another boundary is text of the part.
        let cut = b"--b7\r\n\r\n[1,\r\n--b8\r\n2]";
        assert_eq!(items(framing, &[cut]), ["[1,\n--b8\n2]"]);
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
