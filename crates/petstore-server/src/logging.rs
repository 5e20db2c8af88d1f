//! The log line format:
//!
//! ```text
//! 2026-11-22T18:32:43.994423Z  INFO petstore::http: request method=GET path=/v1/pets status=200 latency_us=36 key_id=1
//! ```
//!
//! The layout is tracing-subscriber's default one, without colours, written by
//! a formatter that does only what the layout needs: the request log writes a
//! line per request, and the general formatter cost about 7% of the server's
//! instructions on a page of pets (see BENCHMARKS.md).
//!
//! Spans are not shown, and this layer does not ask for them: the request
//! span (OpenTelemetry's HTTP fields) costs nothing unless a layer that
//! wants spans is added to [`init`]'s subscriber. Control characters in messages
//! and values are written escaped (`\u{1b}`), so a client cannot forge lines
//! or terminal escapes through what is logged about its request.

use chrono::DateTime;
use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::time::{SystemTime, UNIX_EPOCH};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// Installs the process's subscriber: [`Lines`] on stderr, at the level
/// `RUST_LOG` asks for (`info` by default). The log layer sees events only.
pub fn init() {
    use tracing_subscriber::filter::FilterExt as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::Layer as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .event_format(Lines)
                .with_writer(std::io::stderr)
                .with_filter(filter.and(EventsOnly)),
        )
        .init();
}

/// A per-layer filter that lets events through and no span, decided once
/// per callsite: a filter that cannot say so up front (`filter_fn`) is asked
/// again at every disabled `trace!` in the libraries below, which measured
/// at 6k instructions per request.
struct EventsOnly;

impl<S> tracing_subscriber::layer::Filter<S> for EventsOnly {
    fn enabled(
        &self,
        metadata: &tracing::Metadata<'_>,
        _: &tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        metadata.is_event()
    }

    fn callsite_enabled(
        &self,
        metadata: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        if metadata.is_event() {
            tracing::subscriber::Interest::always()
        } else {
            tracing::subscriber::Interest::never()
        }
    }
}

/// The event formatter: `tracing_subscriber::fmt().event_format(Lines)`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Lines;

impl<S, N> FormatEvent<S, N> for Lines
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _context: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        timestamp(&mut writer, SystemTime::now())?;
        let metadata = event.metadata();
        writer.write_str(level(metadata.level()))?;
        writer.write_str(metadata.target())?;
        writer.write_char(':')?;
        let mut fields = Fields {
            out: Escaped(&mut writer),
            result: Ok(()),
        };
        event.record(&mut fields);
        fields.result?;
        writer.write_char('\n')
    }
}

/// The level between the timestamp and the target, padded as the default
/// layout pads it.
fn level(level: &Level) -> &'static str {
    match *level {
        Level::TRACE => " TRACE ",
        Level::DEBUG => " DEBUG ",
        Level::INFO => "  INFO ",
        Level::WARN => "  WARN ",
        Level::ERROR => " ERROR ",
    }
}

/// `2026-11-22T18:32:43.994423Z` in UTC. The part up to the second is
/// formatted once per second on each thread.
fn timestamp(out: &mut impl fmt::Write, now: SystemTime) -> fmt::Result {
    thread_local! {
        static SECOND: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
    }
    let since_epoch = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since_epoch.as_secs();
    SECOND.with_borrow_mut(|(cached, text)| {
        if *cached != seconds {
            let Some(time) = i64::try_from(seconds)
                .ok()
                .and_then(|s| DateTime::from_timestamp(s, 0))
            else {
                return out.write_str("<unknown time>");
            };
            text.clear();
            write!(text, "{}", time.format("%Y-%m-%dT%H:%M:%S"))?;
            *cached = seconds;
        }
        out.write_str(text)
    })?;
    let mut micros = since_epoch.subsec_micros();
    let mut digits = *b".000000Z";
    for digit in digits[1..7].iter_mut().rev() {
        *digit = b'0' + (micros % 10) as u8;
        micros /= 10;
    }
    out.write_str(std::str::from_utf8(&digits).map_err(|_| fmt::Error)?)
}

/// Writes an event's fields: the message as it is, the others as
/// `name=value`, each after a space.
struct Fields<'w, W: fmt::Write> {
    out: Escaped<'w, W>,
    result: fmt::Result,
}

impl<W: fmt::Write> Fields<'_, W> {
    /// Writes the field's value escaped.
    fn escaped(&mut self, field: &Field, value: fmt::Arguments<'_>) {
        if self.result.is_ok() {
            self.result = self.name(field).and_then(|()| self.out.write_fmt(value));
        }
    }

    /// Writes a value that cannot hold control characters (a number, or
    /// text already escaped by its `Debug` form).
    fn plain(&mut self, field: &Field, value: fmt::Arguments<'_>) {
        if self.result.is_ok() {
            self.result = self.name(field).and_then(|()| self.out.0.write_fmt(value));
        }
    }

    fn name(&mut self, field: &Field) -> fmt::Result {
        let out = &mut *self.out.0;
        out.write_char(' ')?;
        match field.name() {
            "message" => Ok(()),
            name => {
                out.write_str(name)?;
                out.write_char('=')
            }
        }
    }
}

impl<W: fmt::Write> Visit for Fields<'_, W> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.escaped(field, format_args!("{value}"));
        } else {
            self.plain(field, format_args!("{value:?}"));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.plain(field, format_args!("{value}"));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.plain(field, format_args!("{value}"));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.plain(field, format_args!("{value}"));
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.escaped(field, format_args!("{value}"));
        let mut source = value.source();
        if source.is_some() && self.result.is_ok() {
            self.result = write!(self.out.0, " {}.sources=[", field.name());
            let mut first = true;
            while let (Some(error), Ok(())) = (source, self.result) {
                let separator = if first { "" } else { ", " };
                self.result = write!(self.out, "{separator}{error}");
                first = false;
                source = error.source();
            }
            if self.result.is_ok() {
                self.result = self.out.0.write_char(']');
            }
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.escaped(field, format_args!("{value:?}"));
    }
}

/// A writer that writes control characters escaped.
struct Escaped<'w, W: fmt::Write>(&'w mut W);

impl<W: fmt::Write> fmt::Write for Escaped<'_, W> {
    fn write_str(&mut self, mut text: &str) -> fmt::Result {
        // Control characters are ASCII or start with the byte 0xC2 (U+0080 to
        // U+009F); text without those bytes, nearly all of it, goes through as
        // it is.
        if !text.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2) {
            return self.0.write_str(text);
        }
        while let Some((at, control)) = text.char_indices().find(|(_, c)| c.is_control()) {
            self.0.write_str(&text[..at])?;
            write!(self.0, "{}", control.escape_unicode())?;
            text = &text[at + control.len_utf8()..];
        }
        self.0.write_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// The lines written while `emit` runs.
    fn lines(emit: impl FnOnce()) -> String {
        let written = Arc::new(Mutex::new(Vec::<u8>::new()));
        let sink = written.clone();
        let subscriber = tracing_subscriber::fmt()
            .event_format(Lines)
            .with_writer(move || Sink(sink.clone()))
            .finish();
        tracing::subscriber::with_default(subscriber, emit);
        let bytes = written.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_line_has_time_level_target_message_and_fields() {
        let method = actix_web::http::Method::GET;
        let line = lines(|| {
            tracing::info!(
                target: "petstore::http",
                %method,
                path = "/v1/pets",
                status = 200u16,
                latency_us = 36u64,
                key_id = Some(-4i64),
                missing = None::<i64>,
                "request"
            );
        });
        let (time, rest) = line.split_at(27);
        assert_eq!(
            rest,
            "  INFO petstore::http: request method=GET path=\"/v1/pets\" status=200 \
             latency_us=36 key_id=-4\n"
        );
        assert!(
            DateTime::parse_from_rfc3339(time).is_ok() && time.ends_with('Z'),
            "{time}"
        );
    }

    #[test]
    fn levels_are_padded_like_the_default_layout() {
        let line = lines(|| {
            tracing::warn!(target: "t", "w");
            tracing::error!(target: "t", "e");
        });
        let levels: Vec<&str> = line.lines().map(|l| &l[27..34]).collect();
        assert_eq!(levels, ["  WARN ", " ERROR "]);
    }

    #[test]
    fn timestamps_are_utc_with_microseconds() {
        let mut out = String::new();
        let t = UNIX_EPOCH + Duration::new(1_795_371_540, 7_000);
        timestamp(&mut out, t).unwrap();
        timestamp(&mut out, t + Duration::from_micros(999_993)).unwrap();
        timestamp(&mut out, t + Duration::from_secs(86_400)).unwrap();
        assert_eq!(
            out,
            "2026-11-22T18:19:00.000007Z2026-11-22T18:19:01.000000Z2026-11-23T18:19:00.000007Z"
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        let line = lines(|| {
            tracing::info!(
                target: "t",
                path = %"/a\nforged\u{1b}[31m\u{85}é¢",
                quoted = "b\nc",
                "x\ty"
            );
        });
        assert!(
            line.ends_with(": x\\u{9}y path=/a\\u{a}forged\\u{1b}[31m\\u{85}é¢ quoted=\"b\\nc\"\n"),
            "{line}"
        );
        assert_eq!(line.matches('\n').count(), 1);
    }

    #[test]
    fn errors_list_their_sources() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("outer")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let error = Outer(std::io::Error::other("inner"));
        let line = lines(|| {
            tracing::error!(target: "t", error = &error as &(dyn std::error::Error + 'static), "failed");
        });
        assert!(
            line.ends_with(": failed error=outer error.sources=[inner]\n"),
            "{line}"
        );
    }
}
