//! What goes on the wire of a stream: an [`Event`] with its fields, and how
//! a media type frames items ([`Framing`]). The streams themselves are in
//! `events.rs`, their reading side in `client/reading.rs`.

use futures_util::stream::Stream;
use std::pin::Pin;
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
#[cfg(feature = "serving")]
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['\r', '\n', '\0']) {
        text.replace(['\r', '\n', '\0'], "").into()
    } else {
        text.into()
    }
}

pub(crate) type Boxed<I> = Pin<Box<dyn Stream<Item = I> + Send>>;

/// How the items of a stream are framed on the wire, told by its media
/// type.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// `multipart/mixed` (RFC 2046): each item a part, after a delimiter
    /// line of the boundary, with its own `Content-Type` (JSON, as this
    /// runtime writes them); the stream ends with the closing delimiter.
    Parts(Boundary),
}

/// A multipart body's boundary: what its `Content-Type` names, or, for a
/// body being written, one made at random, which no JSON part will hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Boundary(std::sync::Arc<str>);

impl Boundary {
    /// A fresh boundary: 32 hexadecimal digits from the process's random
    /// hash keys, after a fixed prefix.
    pub fn fresh() -> Self {
        use std::hash::{BuildHasher as _, Hasher as _};
        let random = || {
            std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish()
        };
        Boundary(format!("part-{:016x}{:016x}", random(), random()).into())
    }

    /// The boundary as written after `--`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `boundary` parameter of a media type.
    fn of(media_type: &str) -> Option<Self> {
        super::media::parameter(media_type, "boundary").map(|b| Boundary(b.into()))
    }
}

impl Framing {
    /// The framing of `media_type` (parameters and case aside), if it is a
    /// sequential media type this runtime reads. A `multipart/mixed` one
    /// has the boundary its parameter names, else a fresh one (to write).
    pub fn of(media_type: &str) -> Option<Framing> {
        let essence = super::media::essence(media_type);
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
            "multipart/mixed" => Some(Framing::Parts(
                Boundary::of(media_type).unwrap_or_else(Boundary::fresh),
            )),
            _ => None,
        }
    }

    /// The `Content-Type` a stream so framed is sent with: `media_type`,
    /// and for parts the boundary.
    #[cfg(feature = "serving")]
    pub fn content_type(&self, media_type: &str) -> String {
        match self {
            Framing::Parts(boundary) => {
                let essence = super::media::essence(media_type);
                format!("{essence}; boundary={}", boundary.as_str())
            }
            _ => media_type.to_string(),
        }
    }

    /// One item as it goes on the wire: an event's fields and data for
    /// `text/event-stream`, its data alone for the others.
    #[cfg(feature = "serving")]
    pub fn frame<T: serde::Serialize>(
        &self,
        event: &Event<T>,
    ) -> Result<String, serde_json::Error> {
        let json = || super::strictly(|| serde_json::to_string(&event.data));
        Ok(match self {
            Framing::Events => return frame(event),
            Framing::Lines => json()? + "\n",
            Framing::Sequence => format!("\u{1e}{}\n", json()?),
            Framing::Parts(boundary) => format!(
                "--{}\r\ncontent-type: application/json\r\n\r\n{}\r\n",
                boundary.as_str(),
                json()?
            ),
        })
    }

    /// What ends a stream so framed, after its last item: the closing
    /// delimiter of parts; nothing for the others.
    #[cfg(feature = "serving")]
    pub fn close(&self) -> Option<String> {
        match self {
            Framing::Parts(boundary) => Some(format!("--{}--\r\n", boundary.as_str())),
            _ => None,
        }
    }
}

/// The SSE framing of one event: its fields, then its data as JSON on one
/// `data:` line, then a blank line.
#[cfg(feature = "serving")]
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

#[cfg(all(test, feature = "serving"))]
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
    fn parts_are_framed_between_delimiters_of_their_boundary() {
        let framing = Framing::of("multipart/mixed; boundary=\"b-1\"").unwrap();
        assert_eq!(framing, Framing::Parts(Boundary("b-1".into())));
        let item = Event::new(serde_json::json!({"orderId": 3}));
        assert_eq!(
            framing.frame(&item).unwrap(),
            "--b-1\r\ncontent-type: application/json\r\n\r\n{\"orderId\":3}\r\n"
        );
        assert_eq!(framing.close().as_deref(), Some("--b-1--\r\n"));
        assert_eq!(
            framing.content_type("multipart/mixed"),
            "multipart/mixed; boundary=b-1"
        );
        // A body to write gets a boundary of its own, a fresh one each.
        let (Some(Framing::Parts(one)), Some(Framing::Parts(two))) = (
            Framing::of("multipart/mixed"),
            Framing::of("Multipart/Mixed"),
        ) else {
            panic!("parts");
        };
        assert_ne!(one, two);
        assert_eq!(Framing::Lines.close(), None);
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
