//! How an answer is read as an operation's response enum, the client side
//! of the responses: `impl runtime::ReadAnswer` on each response enum, and
//! the expressions a client method reads a stream's answers with.

use super::text::{self, Expr};
use super::{ident, rust_type};
use crate::ir::{Api, Media, Operation, Response, Status, Ty};

/// Where an answer is read into a response enum: the enum (`Self`, or
/// `operations::XResponse`), the path of the shared responses, the answer
/// as a reference, what a status no response declares gives, and the
/// operation's read function, which a stream of events needs.
pub(crate) struct Reading<'a> {
    pub owner: &'a str,
    pub shared: &'a str,
    pub answer: &'a str,
    pub undeclared: &'a str,
    pub read_fn: Option<&'a str>,
}

/// The expression reading an answer as one of the operation's responses:
/// a `match` on the status, the more specific statuses first.
pub(crate) fn match_status(api: &Api, op: &Operation, reading: &Reading<'_>) -> Expr {
    // A stream of events is told from the other media of its status by
    // its `Content-Type`: its arm comes first.
    let mut ordered = super::by_precedence(&op.responses);
    ordered.sort_by_key(|r| !r.media.streams());
    let mut arms = ordered
        .into_iter()
        .filter_map(|r| {
            let pattern = super::status_pattern(r.status)?;
            let guard = if r.media.streams() {
                " if answer.is_stream()"
            } else {
                ""
            };
            Some((format!("{pattern}{guard}"), variant(api, r, reading)))
        })
        .collect::<Vec<_>>();
    let otherwise = match op.responses.iter().find(|r| r.status == Status::Default) {
        Some(default) => variant(api, default, reading),
        None => Expr::text(reading.undeclared),
    };
    // Only a `default` answer: every status is it, no match needed.
    if arms.is_empty() {
        otherwise
    } else {
        arms.push(("_".to_string(), otherwise));
        Expr::Match {
            scrutinee: "answer.status".into(),
            arms,
        }
    }
}

/// `impl runtime::ReadAnswer` for an operation's response enum `name`,
/// under `cfg`, as text; `None` for one holding a stream of events, which
/// its client method reads.
pub(crate) fn read_impl(api: &Api, op: &Operation, name: &str, cfg: &str) -> Option<String> {
    if op.responses.iter().any(|r| r.media.streams()) {
        return None;
    }
    let value = match_status(
        api,
        op,
        &Reading {
            owner: "Self",
            shared: "",
            answer: "answer",
            undeclared: "return Ok(None)",
            read_fn: None,
        },
    );
    let mut out = format!(
        "{}impl runtime::ReadAnswer for {name} {{\n    \
         fn read(answer: &runtime::Answer) -> Result<Option<Self>, runtime::ClientError> {{\n",
        text::cfg_line(cfg)
    );
    value.write(&mut out, 8, "let value = ", ";");
    out.push_str("        Ok(Some(value))\n    }\n}\n");
    Some(out)
}

/// The expression building the response variant `r` from the answer.
fn variant(api: &Api, r: &Response, reading: &Reading<'_>) -> Expr {
    let Reading {
        owner,
        shared: path,
        answer,
        read_fn,
        ..
    } = reading;
    let variant = ident(&r.variant);
    match &r.shared {
        Some(shared) => Expr::text(format!(
            "{owner}::{variant}({path}{}::read({answer})?)",
            ident(shared)
        )),
        None => read_answer(api, r, &format!("{owner}::{variant}"), *read_fn),
    }
}

/// The expression building `r` with the constructor `ctor` (a variant, or
/// a shared response's `Self`) from the `answer`'s body and headers. A
/// stream of events is read as it arrives, its reconnects' other answers
/// typed by the operation's `read_fn` (which every streaming operation has).
pub(crate) fn read_answer(api: &Api, r: &Response, ctor: &str, read_fn: Option<&str>) -> Expr {
    let body = r.body.as_ref().map(|_| match (&r.media, read_fn) {
        (Media::Raw(_), _) => "answer.bytes()".to_string(),
        (Media::Events, Some(read_fn)) => format!("answer.events(Self::{read_fn})"),
        (Media::Items(_), Some(read_fn)) => format!("answer.items(Self::{read_fn})"),
        _ => "answer.json()?".to_string(),
    });
    if r.named_fields() {
        let mut fields = Vec::new();
        if r.status.carries_status() {
            fields.push(("status".to_string(), Expr::text("answer.status_code()")));
        }
        if let Some(b) = body {
            fields.push(("body".to_string(), Expr::Text(b)));
        }
        for h in &r.headers {
            let wire = text::string_literal(&h.wire);
            let read = if super::scalar_header(api, &h.shape) && !h.json {
                let method = if h.required {
                    "answer.required_header"
                } else {
                    "answer.header"
                };
                Expr::call(method, vec![Expr::Text(wire)], "?")
            } else {
                let ty = rust_type(&h.shape, "super::models::");
                let kind = match &h.shape.ty {
                    Ty::Array(_) => "runtime::ValueKind::Array",
                    Ty::Map(_) | Ty::Named(_) => "runtime::ValueKind::Object",
                    _ => "runtime::ValueKind::Scalar",
                };
                let style = if h.json {
                    "runtime::Style::Json"
                } else {
                    "runtime::Style::Simple"
                };
                let method = if h.required {
                    "required_header_styled"
                } else {
                    "header_styled"
                };
                let args = vec![Expr::Text(wire), Expr::text(kind), Expr::text(style)];
                Expr::call(format!("answer.{method}::<{ty}>"), args, "?")
            };
            fields.push((ident(&h.rust).to_string(), read));
        }
        Expr::Struct {
            path: ctor.to_string(),
            fields,
        }
    } else if let Some(body) = body {
        Expr::text(format!("{ctor}({body})"))
    } else {
        Expr::text(ctor)
    }
}
