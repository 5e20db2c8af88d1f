//! Walking an operation's pages: the loop every caller of a list writes by
//! hand, written once. An operation's [`Paging`] (from the spec's
//! `x-pagination`, or inferred) says where the items are and how the next
//! page is asked for; [`pages`] yields each page's typed response and
//! [`items`] each item, fetching the next page only when the consumer asks
//! for it. Both stop at the end, and stop with an error rather than loop
//! when the server hands back a cursor it already gave.

use super::client::{Answer, Call, ClientError, Core, Reply};
use futures_util::stream::{self, Stream};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashSet;

/// How an operation pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    /// How the next page is asked for.
    pub next: Next,
    /// Where the items are in a page's body: a JSON pointer (`/data`), or
    /// empty when the body is the list itself.
    pub items: &'static str,
    /// A boolean in the body saying whether more pages follow
    /// (`/has_more`), when the API sends one.
    pub has_more: Option<&'static str>,
    /// The query parameter that sets the page size (`limit`), when there
    /// is one: a page with fewer items than it asked for is the last.
    pub limit: Option<&'static str>,
}

/// How the next page is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// The URL of the `Link` header's `rel="next"`; no such link, no more
    /// pages.
    Link,
    /// The query parameter `param`, set to the value at the JSON pointer
    /// `from` of the body (`/next_cursor`, `/meta/next`); absent, null or
    /// empty, no more pages.
    Cursor {
        /// The query parameter.
        param: &'static str,
        /// Where the cursor is in the body.
        from: &'static str,
    },
    /// The query parameter `param`, set to the value at the JSON pointer
    /// `field` of the page's last item (`after` = the last `id`); an empty
    /// page is the last.
    LastItem {
        /// The query parameter.
        param: &'static str,
        /// Where the cursor is in an item.
        field: &'static str,
    },
    /// A page number in `param`, one more each page, from the request's
    /// (or `start`, when the request sets none).
    Page {
        /// The query parameter.
        param: &'static str,
        /// The first page's number.
        start: u64,
    },
    /// An offset in `param`, grown by each page's number of items, from
    /// the request's (or 0).
    Offset {
        /// The query parameter.
        param: &'static str,
    },
}

/// One answer of a walk, and its body as JSON when it is a page (a
/// success), read once for the next page's cursor and for the items.
struct Page {
    answer: Answer,
    body: Option<Value>,
}

/// What the walk keeps between pages.
struct Walk<'a> {
    core: &'a Core,
    paging: &'static Paging,
    /// The next page's call; `None` once the last page was fetched.
    next: Option<Call>,
    /// Every cursor or URL asked for, to stop rather than loop.
    seen: HashSet<String>,
}

impl Walk<'_> {
    /// Fetches the next page and decides the one after it.
    async fn step(&mut self) -> Option<Result<Page, ClientError>> {
        let call = self.next.take()?;
        let answer = match self.core.send(call.clone()).await {
            Ok(answer) => answer,
            Err(e) => return Some(Err(e)),
        };
        if !(200..300).contains(&answer.status) {
            return Some(Ok(Page { answer, body: None }));
        }
        let body = if answer.body.is_empty() {
            Ok(Value::Null)
        } else {
            answer.json::<Value>()
        };
        let step = body.and_then(|body| {
            self.next = self.after(call, &answer, &body)?;
            Ok(Page {
                answer,
                body: Some(body),
            })
        });
        Some(step)
    }

    /// The call for the page after `answer` (asked for by `call`, its body
    /// read as `body`), or `None` when it was the last.
    fn after(
        &mut self,
        mut call: Call,
        answer: &Answer,
        body: &Value,
    ) -> Result<Option<Call>, ClientError> {
        let paging = self.paging;
        call.renew_idempotency_key();
        let items = page_items(body, paging.items).map_or(0, Vec::len);
        if let Some(flag) = paging.has_more {
            if body.pointer(flag) == Some(&Value::Bool(false)) {
                return Ok(None);
            }
        }
        let short = paging
            .limit
            .and_then(|limit| call.query_value(limit)?.parse::<usize>().ok())
            .is_some_and(|limit| items < limit);
        let (param, cursor) = match paging.next {
            Next::Link => match next_link(answer) {
                Some(url) => {
                    self.check_new(&url)?;
                    call.follow(url);
                    return Ok(Some(call));
                }
                None => return Ok(None),
            },
            Next::Cursor { param, from } => match body.pointer(from).and_then(text) {
                Some(cursor) if !cursor.is_empty() => (param, cursor),
                _ => return Ok(None),
            },
            Next::LastItem { param, field } => {
                let last = page_items(body, paging.items).and_then(|items| items.last());
                match last.and_then(|item| item.pointer(field)).and_then(text) {
                    Some(cursor) if !short => (param, cursor),
                    _ => return Ok(None),
                }
            }
            Next::Page { param, start } => {
                if items == 0 || short {
                    return Ok(None);
                }
                let current = call.query_value(param).and_then(|v| v.parse().ok());
                (param, (current.unwrap_or(start) + 1).to_string())
            }
            Next::Offset { param } => {
                if items == 0 || short {
                    return Ok(None);
                }
                let current: u64 = call
                    .query_value(param)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                (param, (current + items as u64).to_string())
            }
        };
        self.check_new(&format!("{param}={cursor}"))?;
        call.set_query(param, cursor);
        Ok(Some(call))
    }

    /// Refuses a cursor or URL the walk already asked for.
    fn check_new(&mut self, next: &str) -> Result<(), ClientError> {
        if self.seen.insert(next.to_string()) {
            Ok(())
        } else {
            Err(ClientError::Paging(format!(
                "the server asked for `{next}` again: stopping rather than walking the same pages twice"
            )))
        }
    }
}

/// The items of a page: the array at `pointer` (the body itself when
/// empty).
fn page_items<'v>(body: &'v Value, pointer: &str) -> Option<&'v Vec<Value>> {
    body.pointer(pointer)?.as_array()
}

/// A cursor as query text: a string as it is, a number or boolean written.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The URL of the `Link` header's `rel="next"` entry.
fn next_link(answer: &Answer) -> Option<String> {
    answer
        .headers
        .get_all("link")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|entry| {
            let (target, params) = entry.trim().split_once(';')?;
            let url = target.trim().strip_prefix('<')?.strip_suffix('>')?;
            params
                .split(';')
                .filter_map(|p| p.trim().split_once('='))
                .any(|(k, v)| {
                    k.trim().eq_ignore_ascii_case("rel")
                        && v.trim()
                            .trim_matches('"')
                            .split_whitespace()
                            .any(|rel| rel.eq_ignore_ascii_case("next"))
                })
                .then(|| url.to_string())
        })
}

fn walk<'a>(
    core: &'a Core,
    first: Result<Call, ClientError>,
    paging: &'static Paging,
) -> impl Stream<Item = Result<Page, ClientError>> + 'a {
    let start = first.map(|call| Walk {
        core,
        paging,
        next: Some(call),
        seen: HashSet::new(),
    });
    stream::unfold(Some(start), |state| async move {
        match state? {
            Err(e) => Some((Err(e), None)),
            Ok(mut walk) => {
                let step = walk.step().await?;
                // An error ends the walk after it is told.
                let more = step.is_ok().then_some(Ok(walk));
                Some((step, more))
            }
        }
    })
}

/// Every page of an operation, as its typed response (`read` decodes an
/// answer), the next fetched only when the consumer asks. A response that
/// is not a page (an error status) is yielded and ends the walk.
pub fn pages<'a, T: 'a>(
    core: &'a Core,
    first: Result<Call, ClientError>,
    paging: &'static Paging,
    read: fn(Answer) -> Result<Reply<T>, ClientError>,
) -> impl Stream<Item = Result<Reply<T>, ClientError>> + 'a {
    use futures_util::StreamExt as _;
    walk(core, first, paging).map(move |page| page.and_then(|page| read(page.answer)))
}

/// Every item of every page of an operation, the next page fetched only
/// when the consumer has taken the last item. An answer that is not a page
/// (an error status, after the client's retries) ends the walk with
/// [`ClientError::NotAPage`].
pub fn items<'a, T: DeserializeOwned + 'a>(
    core: &'a Core,
    first: Result<Call, ClientError>,
    paging: &'static Paging,
) -> impl Stream<Item = Result<T, ClientError>> + 'a {
    use futures_util::StreamExt as _;
    walk(core, first, paging).flat_map(move |page| {
        let items: Vec<Result<T, ClientError>> = match page {
            Err(e) => vec![Err(e)],
            Ok(Page { answer, body: None }) => vec![Err(ClientError::NotAPage(Box::new(answer)))],
            Ok(Page {
                answer,
                body: Some(body),
            }) => match page_items(&body, paging.items) {
                Some(items) => items
                    .iter()
                    .map(|item| {
                        core.reading(|| T::deserialize(item))
                            .map_err(|e| ClientError::Decode {
                                status: answer.status,
                                message: format!("an item does not fit the spec: {e}"),
                            })
                    })
                    .collect(),
                None => vec![Err(ClientError::Decode {
                    status: answer.status,
                    message: format!("no list of items at `{}`", paging.items),
                })],
            },
        };
        stream::iter(items)
    })
}
