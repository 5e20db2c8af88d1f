//! Support code for the generated glue: reading requests, checking bounds and
//! refusing what does not fit. The same for every document.

use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::web::{Bytes, BytesMut, Payload};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Why a request was refused before it reached a handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionKind {
    /// Unreadable: a malformed parameter, truncated or invalid JSON.
    BadRequest,
    /// No route matches the path.
    NotFound,
    /// The path exists, but not with this method.
    MethodNotAllowed,
    /// The body is larger than [`MAX_BODY_BYTES`].
    PayloadTooLarge,
    /// The body is not JSON.
    UnsupportedMediaType,
    /// Well-formed, but a field is missing or unknown, has the wrong type or
    /// breaks a bound of the spec.
    ValidationFailed,
}

impl RejectionKind {
    pub fn status(self) -> StatusCode {
        match self {
            RejectionKind::BadRequest => StatusCode::BAD_REQUEST,
            RejectionKind::NotFound => StatusCode::NOT_FOUND,
            RejectionKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RejectionKind::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            RejectionKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RejectionKind::ValidationFailed => StatusCode::UNPROCESSABLE_ENTITY,
        }
    }

    /// A machine-readable code: `bad_request`, `validation_failed`, ...
    pub fn code(self) -> &'static str {
        match self {
            RejectionKind::BadRequest => "bad_request",
            RejectionKind::NotFound => "not_found",
            RejectionKind::MethodNotAllowed => "method_not_allowed",
            RejectionKind::PayloadTooLarge => "payload_too_large",
            RejectionKind::UnsupportedMediaType => "unsupported_media_type",
            RejectionKind::ValidationFailed => "validation_failed",
        }
    }
}

/// A request refused before it reached a handler, with a message for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub kind: RejectionKind,
    pub message: String,
}

impl Rejection {
    pub fn new(kind: RejectionKind, message: impl Into<String>) -> Self {
        Rejection {
            kind,
            message: message.into(),
        }
    }

    pub fn status(&self) -> StatusCode {
        self.kind.status()
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.code(), self.message)
    }
}

impl From<Violation> for Rejection {
    fn from(v: Violation) -> Self {
        Rejection::new(RejectionKind::ValidationFailed, v.to_string())
    }
}

/// A value that breaks a bound of the spec, and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Dotted path to the value (`body.name`, `limit`, `items.3`); empty for the
    /// value itself.
    pub path: String,
    pub message: String,
}

impl Violation {
    pub fn new(message: impl Into<String>) -> Self {
        Violation {
            path: String::new(),
            message: message.into(),
        }
    }

    /// The same violation, seen from the value that contains it.
    pub fn within(mut self, parent: impl fmt::Display) -> Self {
        self.path = if self.path.is_empty() {
            parent.to_string()
        } else {
            format!("{parent}.{}", self.path)
        };
        self
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "`{}` {}", self.path, self.message)
        }
    }
}

/// Checks a value against the bounds its schema declares.
pub trait Validate {
    fn validate(&self) -> Result<(), Violation>;
}

impl<T: Validate> Validate for Option<T> {
    fn validate(&self) -> Result<(), Violation> {
        self.as_ref().map_or(Ok(()), Validate::validate)
    }
}

impl<T: Validate> Validate for Box<T> {
    fn validate(&self) -> Result<(), Violation> {
        T::validate(self)
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate(&self) -> Result<(), Violation> {
        for (i, item) in self.iter().enumerate() {
            item.validate().map_err(|v| v.within(i))?;
        }
        Ok(())
    }
}

impl<T: Validate> Validate for BTreeMap<String, T> {
    fn validate(&self) -> Result<(), Violation> {
        for (key, item) in self {
            item.validate().map_err(|v| v.within(key))?;
        }
        Ok(())
    }
}

/// `minLength`/`maxLength`, counted in characters.
pub fn check_length(value: &str, min: Option<usize>, max: Option<usize>) -> Result<(), Violation> {
    let len = value.chars().count();
    if let Some(min) = min.filter(|&min| len < min) {
        return Err(Violation::new(format!("must be at least {} long", count(min, "character"))));
    }
    if let Some(max) = max.filter(|&max| len > max) {
        return Err(Violation::new(format!("must be at most {} long", count(max, "character"))));
    }
    Ok(())
}

/// `minimum`/`maximum`, inclusive unless `exclusive`.
pub fn check_range<T: PartialOrd + fmt::Display>(
    value: &T,
    min: Option<(T, bool)>,
    max: Option<(T, bool)>,
) -> Result<(), Violation> {
    if let Some((min, exclusive)) = min {
        if *value < min || (exclusive && *value == min) {
            let bound = if exclusive { "greater than" } else { "at least" };
            return Err(Violation::new(format!("must be {bound} {min}")));
        }
    }
    if let Some((max, exclusive)) = max {
        if *value > max || (exclusive && *value == max) {
            let bound = if exclusive { "less than" } else { "at most" };
            return Err(Violation::new(format!("must be {bound} {max}")));
        }
    }
    Ok(())
}

/// `minItems`/`maxItems`.
pub fn check_items(len: usize, min: Option<usize>, max: Option<usize>) -> Result<(), Violation> {
    if let Some(min) = min.filter(|&min| len < min) {
        return Err(Violation::new(format!("must have at least {}", count(min, "item"))));
    }
    if let Some(max) = max.filter(|&max| len > max) {
        return Err(Violation::new(format!("must have at most {}", count(max, "item"))));
    }
    Ok(())
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The error `FromStr` gives for a string that names no variant of an enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant {
    pub type_name: &'static str,
    pub value: String,
}

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a {}", self.value, self.type_name)
    }
}

impl std::error::Error for UnknownVariant {}

/// A query string, decoded once.
#[derive(Debug, Clone, Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    pub fn parse(query: &str) -> Self {
        Query(
            form_urlencoded::parse(query.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    fn values<'q>(&'q self, name: &'q str) -> impl Iterator<Item = &'q str> + 'q {
        self.0
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A parameter given at most once.
    pub fn one<T: FromStr>(&self, name: &str) -> Result<Option<T>, Rejection> {
        let mut values = self.values(name);
        let Some(value) = values.next() else {
            return Ok(None);
        };
        if values.next().is_some() {
            return Err(Rejection::new(
                RejectionKind::BadRequest,
                format!("query parameter `{name}` is given more than once"),
            ));
        }
        parse(value, || format!("query parameter `{name}`")).map(Some)
    }

    /// An array parameter: repeated (`id=1&id=2`) when `explode`, else
    /// comma-separated (`id=1,2`).
    pub fn many<T: FromStr>(&self, name: &str, explode: bool) -> Result<Option<Vec<T>>, Rejection> {
        let raw: Vec<&str> = if explode {
            self.values(name).collect()
        } else {
            self.values(name).flat_map(|v| v.split(',')).collect()
        };
        if raw.is_empty() {
            return Ok(None);
        }
        raw.into_iter()
            .map(|v| parse(v, || format!("query parameter `{name}`")))
            .collect::<Result<_, _>>()
            .map(Some)
    }
}

fn parse<T: FromStr>(raw: &str, what: impl FnOnce() -> String) -> Result<T, Rejection> {
    raw.parse().map_err(|_| {
        let mut shown: String = raw.chars().take(64).collect();
        if shown.len() < raw.len() {
            shown.push('…');
        }
        Rejection::new(RejectionKind::BadRequest, format!("{} has an invalid value `{shown}`", what()))
    })
}

/// A path parameter, by its name in the route template.
pub fn path<T: FromStr>(request: &HttpRequest, name: &str) -> Result<T, Rejection> {
    let raw = request.match_info().get(name).unwrap_or_default();
    parse(raw, || format!("path parameter `{name}`"))
}

/// A header parameter.
pub fn header<T: FromStr>(request: &HttpRequest, name: &str) -> Result<Option<T>, Rejection> {
    let Some(value) = request.headers().get(name) else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| {
        Rejection::new(RejectionKind::BadRequest, format!("header `{name}` is not visible ASCII"))
    })?;
    parse(value, || format!("header `{name}`")).map(Some)
}

/// A cookie parameter.
pub fn cookie<T: FromStr>(request: &HttpRequest, name: &str) -> Result<Option<T>, Rejection> {
    let found = request
        .headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name);
    match found {
        Some((_, value)) => parse(value, || format!("cookie `{name}`")).map(Some),
        None => Ok(None),
    }
}

/// Reads the body, refusing more than [`MAX_BODY_BYTES`].
pub async fn read_body(request: &HttpRequest, mut payload: Payload) -> Result<Bytes, Rejection> {
    use futures_util::StreamExt as _;
    let too_large = || {
        Rejection::new(
            RejectionKind::PayloadTooLarge,
            format!("the body is larger than {MAX_BODY_BYTES} bytes"),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|len| len > MAX_BODY_BYTES) {
        return Err(too_large());
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            Rejection::new(RejectionKind::BadRequest, format!("the body could not be read: {e}"))
        })?;
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// Decodes a JSON body. An absent body is `None`; a body that is not declared
/// as JSON is refused before it is read.
pub async fn json_body<T: DeserializeOwned>(
    request: &HttpRequest,
    payload: Payload,
) -> Result<Option<T>, Rejection> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    let is_json = content_type.is_some_and(|ct| {
        let essence = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        essence == "application/json" || essence.ends_with("+json")
    });
    if !is_json {
        return Err(Rejection::new(
            RejectionKind::UnsupportedMediaType,
            format!(
                "the body must be `application/json`, not `{}`",
                content_type.unwrap_or("(none)")
            ),
        ));
    }
    if bytes.is_empty() {
        return Ok(None);
    }
    // Syntax first, then shape: a body that is not JSON at all is a bad
    // request even when its readable part also misses a field.
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(json_rejection)?;
    T::deserialize(value).map(Some).map_err(json_rejection)
}

fn json_rejection(e: serde_json::Error) -> Rejection {
    use serde_json::error::Category;
    match e.classify() {
        Category::Data => Rejection::new(RejectionKind::ValidationFailed, format!("the body does not match the schema: {e}")),
        Category::Syntax | Category::Eof | Category::Io => {
            Rejection::new(RejectionKind::BadRequest, format!("the body is not valid JSON: {e}"))
        }
    }
}

/// A required body that was not sent.
pub fn missing_body() -> Rejection {
    Rejection::new(RejectionKind::BadRequest, "a request body is required")
}

/// Starts a response with the given status.
pub fn respond(status: StatusCode) -> HttpResponseBuilder {
    HttpResponse::build(status)
}

/// Sets a header from any displayable value; values that are not valid header
/// text are left out rather than sent broken.
pub fn set_header(builder: &mut HttpResponseBuilder, name: &'static str, value: impl fmt::Display) {
    if let (Ok(name), Ok(value)) = (
        HeaderName::from_bytes(name.as_bytes()),
        HeaderValue::from_str(&value.to_string()),
    ) {
        builder.insert_header((name, value));
    }
}

/// Finishes a response with a JSON body.
pub fn json(mut builder: HttpResponseBuilder, body: &impl Serialize) -> HttpResponse {
    match to_json(body) {
        Ok(bytes) => builder.content_type("application/json").body(bytes),
        Err(_) => HttpResponse::InternalServerError().finish(),
    }
}

/// A buffer bigger than this is not kept for the next body.
const KEPT_BUFFER: usize = 64 * 1024;

/// Serializes a body into a buffer kept by each thread, then copies it out at
/// its final size: one allocation per body instead of a growing vector's
/// chain of reallocations and copies.
fn to_json(body: &impl Serialize) -> serde_json::Result<Bytes> {
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    BUFFER.with(|buffer| {
        let Ok(mut buffer) = buffer.try_borrow_mut() else {
            // Only if a body's own serialization renders another body.
            return serde_json::to_vec(body).map(Bytes::from);
        };
        buffer.clear();
        let written = serde_json::to_writer(&mut *buffer, body).map(|()| Bytes::copy_from_slice(&buffer));
        if buffer.capacity() > KEPT_BUFFER {
            *buffer = Vec::new();
        }
        written
    })
}

/// Checks each item of an array, naming the index of the first that fails.
pub fn check_each<T>(items: &[T], check: impl Fn(&T) -> Result<(), Violation>) -> Result<(), Violation> {
    for (i, item) in items.iter().enumerate() {
        check(item).map_err(|v| v.within(i))?;
    }
    Ok(())
}

/// Checks each value of a map, naming the key of the first that fails.
pub fn check_values<T>(
    map: &BTreeMap<String, T>,
    check: impl Fn(&T) -> Result<(), Violation>,
) -> Result<(), Violation> {
    for (key, value) in map {
        check(value).map_err(|v| v.within(key))?;
    }
    Ok(())
}

/// Checks an optional value when it is present.
pub fn check_some<T>(value: &Option<T>, check: impl FnOnce(&T) -> Result<(), Violation>) -> Result<(), Violation> {
    value.as_ref().map_or(Ok(()), check)
}

/// `pattern`.
pub fn check_pattern(value: &str, pattern: &regex::Regex) -> Result<(), Violation> {
    if pattern.is_match(value) {
        Ok(())
    } else {
        Err(Violation::new(format!("must match the pattern `{}`", pattern.as_str())))
    }
}

/// The status code for a number the generator checked to be in 100..=599.
pub fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A required parameter, or the rejection naming it.
pub fn required<T>(value: Option<T>, what: &str) -> Result<T, Rejection> {
    value.ok_or_else(|| Rejection::new(RejectionKind::BadRequest, format!("{what} is required")))
}

/// What a handler may need beyond the typed request: the HTTP request itself,
/// and what middleware attached to it (the authenticated caller, say).
#[derive(Clone)]
pub struct RequestContext {
    request: HttpRequest,
}

impl RequestContext {
    pub fn new(request: HttpRequest) -> Self {
        RequestContext { request }
    }

    /// The underlying request: headers, peer address, matched route.
    pub fn http(&self) -> &HttpRequest {
        &self.request
    }

    /// A value middleware stored in the request's extensions.
    pub fn extension<T: Clone + 'static>(&self) -> Option<T> {
        use actix_web::HttpMessage as _;
        self.request.extensions().get::<T>().cloned()
    }
}

impl fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestContext")
            .field("method", self.request.method())
            .field("path", &self.request.path())
            .finish()
    }
}

/// `deserialize_with` for optional properties that are not `nullable`: absent
/// is `None` (through `#[serde(default)]`), but an explicit `null` is refused
/// like any other value of the wrong type.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// A form (`application/x-www-form-urlencoded`) or query string, read into a
/// JSON value: `a[b][c]=1` nests, `a[]=1&a[]=2` and repeated keys make arrays.
/// Every leaf is a string; [`FormValue`] reads numbers and booleans from it.
pub fn form_tree<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> serde_json::Value {
    value_tree(pairs.map(|(k, v)| (k, serde_json::Value::String(v.into()))))
}

/// [`form_tree`] with leaves of any JSON value (multipart file parts are
/// arrays of bytes).
fn value_tree<'a>(pairs: impl Iterator<Item = (&'a str, serde_json::Value)>) -> serde_json::Value {
    use serde_json::Value;
    fn push(slot: &mut Value, value: Value) {
        match slot {
            Value::Array(items) => items.push(value),
            other => {
                let previous = other.take();
                *other = Value::Array(vec![previous, value]);
            }
        }
    }
    fn insert(node: &mut Value, path: &[&str], value: Value) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        if !node.is_object() {
            *node = Value::Object(Default::default());
        }
        let Value::Object(map) = node else { return };
        if rest.is_empty() {
            match map.get_mut(*first) {
                Some(existing) => push(existing, value),
                None => {
                    map.insert((*first).into(), value);
                }
            }
        } else if rest == [""] {
            // `a[]=1`: an array item.
            push(map.entry(*first).or_insert_with(|| Value::Array(Vec::new())), value);
        } else {
            let child = map.entry(*first).or_insert_with(|| Value::Object(Default::default()));
            insert(child, rest, value);
        }
    }
    let mut root = Value::Object(Default::default());
    for (key, value) in pairs {
        let (head, tail) = key.split_once('[').unwrap_or((key, ""));
        let mut path = vec![head];
        path.extend(tail.split('[').filter(|s| !s.is_empty() || tail == "]").map(|s| s.trim_end_matches(']')));
        if tail.is_empty() {
            path.truncate(1);
        }
        insert(&mut root, &path, value);
    }
    root
}

/// Reads a `multipart/form-data` body into a tree like [`form_tree`]'s: a
/// part named `a[b]` nests, a text part is a string, a file part (one with a
/// `filename`) an array of its bytes, which decodes into a `Vec<u8>` field.
pub fn multipart_tree(content_type: &str, body: &[u8]) -> Result<serde_json::Value, Rejection> {
    let bad = |why: &str| Rejection::new(RejectionKind::BadRequest, format!("the multipart body is malformed: {why}"));
    let boundary = content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.trim().split_once('='))
        .find(|(k, _)| k.eq_ignore_ascii_case("boundary"))
        .map(|(_, v)| v.trim_matches('"').to_string())
        .filter(|b| !b.is_empty())
        .ok_or_else(|| bad("no boundary"))?;
    let delimiter = format!("--{boundary}");
    let find = |haystack: &[u8], needle: &[u8], from: usize| {
        haystack[from.min(haystack.len())..]
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|i| i + from)
    };
    let mut parts: Vec<(String, serde_json::Value)> = Vec::new();
    let mut at = find(body, delimiter.as_bytes(), 0).ok_or_else(|| bad("no opening boundary"))? + delimiter.len();
    loop {
        if body[at..].starts_with(b"--") {
            break;
        }
        let start = at + 2; // CRLF after the boundary
        let end = find(body, format!("\r\n{delimiter}").as_bytes(), start).ok_or_else(|| bad("a part is not closed"))?;
        let part = body.get(start..end).ok_or_else(|| bad("a part is cut short"))?;
        let split = find(part, b"\r\n\r\n", 0).ok_or_else(|| bad("a part has no headers"))?;
        let headers = String::from_utf8_lossy(&part[..split]);
        let content = &part[split + 4..];
        let disposition = headers
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))
            .ok_or_else(|| bad("a part has no Content-Disposition"))?;
        let param = |name: &str| {
            disposition.split(';').skip(1).find_map(|p| {
                let (k, v) = p.trim().split_once('=')?;
                k.eq_ignore_ascii_case(name).then(|| v.trim_matches('"').to_string())
            })
        };
        let name = param("name").ok_or_else(|| bad("a part has no name"))?;
        let value = if param("filename").is_some() {
            serde_json::Value::Array(content.iter().map(|b| serde_json::Value::from(*b)).collect())
        } else {
            let text = std::str::from_utf8(content).map_err(|_| bad("a text part is not UTF-8"))?;
            serde_json::Value::String(text.to_string())
        };
        parts.push((name, value));
        at = end + 2 + delimiter.len();
    }
    Ok(value_tree(parts.iter().map(|(k, v)| (k.as_str(), v.clone()))))
}

/// Decodes a `multipart/form-data` body into its typed struct. An absent body
/// is `None`.
pub async fn multipart_body<T: DeserializeOwned>(request: &HttpRequest, payload: Payload) -> Result<Option<T>, Rejection> {
    let content_type = request.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    let content_type = content_type.unwrap_or("(none)");
    if !content_type.to_ascii_lowercase().starts_with("multipart/form-data") {
        return Err(Rejection::new(
            RejectionKind::UnsupportedMediaType,
            format!("the body must be `multipart/form-data`, not `{content_type}`"),
        ));
    }
    let tree = multipart_tree(content_type, &bytes)?;
    T::deserialize(FormValue(tree)).map(Some).map_err(|e| {
        Rejection::new(RejectionKind::ValidationFailed, format!("the body does not match the schema: {e}"))
    })
}

/// A value from a form or query string, deserialized as the target type asks:
/// strings become numbers and booleans where the type wants them, a single
/// value becomes a one-item array, an object keyed `0`, `1`, ... an array.
#[derive(Debug, Clone)]
pub struct FormValue(pub serde_json::Value);

impl FormValue {
    fn text(&self) -> Option<&str> {
        self.0.as_str()
    }

    fn invalid(&self, expected: &str) -> serde_json::Error {
        serde::de::Error::custom(format!("invalid value {}, expected {expected}", self.0))
    }
}

impl<'de> serde::de::IntoDeserializer<'de, serde_json::Error> for FormValue {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

macro_rules! form_number {
    ($($method:ident $visit:ident $ty:ty),*) => {$(
        fn $method<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            match self.text() {
                Some(text) => match text.parse::<$ty>() {
                    Ok(n) => visitor.$visit(n),
                    Err(_) => Err(self.invalid(stringify!($ty))),
                },
                None => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for FormValue {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        use serde::de::value::{MapDeserializer, SeqDeserializer};
        match self.0 {
            serde_json::Value::Object(map) => {
                visitor.visit_map(MapDeserializer::new(map.into_iter().map(|(k, v)| (k, FormValue(v)))))
            }
            serde_json::Value::Array(items) => {
                visitor.visit_seq(SeqDeserializer::new(items.into_iter().map(FormValue)))
            }
            other => serde::Deserializer::deserialize_any(other, visitor),
        }
    }

    fn deserialize_bool<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.text() {
            Some("true") => visitor.visit_bool(true),
            Some("false") => visitor.visit_bool(false),
            Some(_) => Err(self.invalid("true or false")),
            None => self.deserialize_any(visitor),
        }
    }

    form_number!(
        deserialize_i8 visit_i8 i8, deserialize_i16 visit_i16 i16, deserialize_i32 visit_i32 i32,
        deserialize_i64 visit_i64 i64, deserialize_u8 visit_u8 u8, deserialize_u16 visit_u16 u16,
        deserialize_u32 visit_u32 u32, deserialize_u64 visit_u64 u64, deserialize_f32 visit_f32 f32,
        deserialize_f64 visit_f64 f64
    );

    fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if self.0.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_seq<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        use serde::de::value::SeqDeserializer;
        let items = match self.0 {
            serde_json::Value::Array(items) => items,
            serde_json::Value::Object(map) if map.keys().all(|k| k.parse::<usize>().is_ok()) => {
                let mut indexed: Vec<(usize, serde_json::Value)> =
                    map.into_iter().filter_map(|(k, v)| Some((k.parse().ok()?, v))).collect();
                indexed.sort_by_key(|(i, _)| *i);
                indexed.into_iter().map(|(_, v)| v).collect()
            }
            single => vec![single],
        };
        visitor.visit_seq(SeqDeserializer::new(items.into_iter().map(FormValue)))
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        use serde::de::IntoDeserializer;
        match self.0 {
            serde_json::Value::String(s) => visitor.visit_enum(s.into_deserializer()),
            other => Err(FormValue(other).invalid("a string")),
        }
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct tuple tuple_struct map struct identifier
        ignored_any i128 u128
    }
}

/// Decodes a form body (`application/x-www-form-urlencoded`), refusing other
/// content types. An absent body is `None`.
pub async fn form_body<T: DeserializeOwned>(request: &HttpRequest, payload: Payload) -> Result<Option<T>, Rejection> {
    let content_type = request.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    let essence = content_type.unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if essence != "application/x-www-form-urlencoded" {
        return Err(Rejection::new(
            RejectionKind::UnsupportedMediaType,
            format!(
                "the body must be `application/x-www-form-urlencoded`, not `{}`",
                content_type.unwrap_or("(none)")
            ),
        ));
    }
    let pairs: Vec<(String, String)> = form_urlencoded::parse(&bytes).into_owned().collect();
    let tree = form_tree(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    T::deserialize(FormValue(tree)).map(Some).map_err(|e| {
        Rejection::new(RejectionKind::ValidationFailed, format!("the body does not match the schema: {e}"))
    })
}

/// Reads a body of any of the declared (non-JSON, non-form) media types as
/// bytes. An absent body is `None`.
pub async fn raw_body(request: &HttpRequest, payload: Payload, media_types: &[&str]) -> Result<Option<Bytes>, Rejection> {
    let content_type = request.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    let essence = content_type.unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let accepted = media_types.iter().any(|m| {
        *m == "*/*" || *m == essence || m.strip_suffix("/*").is_some_and(|prefix| essence.starts_with(&format!("{prefix}/")))
    });
    if !accepted {
        return Err(Rejection::new(
            RejectionKind::UnsupportedMediaType,
            format!("the body must be one of {}, not `{}`", media_types.join(", "), content_type.unwrap_or("(none)")),
        ));
    }
    Ok(Some(bytes))
}

impl Query {
    /// A parameter in `deepObject` style (`filter[status]=open`), or any
    /// parameter that is an object: the keys under `name[...]`, read as the
    /// target type asks.
    pub fn deep<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, Rejection> {
        let prefix = format!("{name}[");
        let pairs: Vec<(&str, &str)> = self
            .0
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if pairs.is_empty() {
            return Ok(None);
        }
        let tree = form_tree(pairs.into_iter());
        let value = tree.get(name).cloned().unwrap_or_default();
        T::deserialize(FormValue(value)).map(Some).map_err(|e| {
            Rejection::new(RejectionKind::BadRequest, format!("query parameter `{name}` is invalid: {e}"))
        })
    }
}

/// Finishes a response with a body of bytes and its media type.
pub fn bytes(mut builder: HttpResponseBuilder, media_type: &'static str, body: Vec<u8>) -> HttpResponse {
    builder.content_type(media_type).body(body)
}

/// How a parameter value is spelled (OpenAPI's `style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Simple,
    Label,
    Matrix,
    Form,
    SpaceDelimited,
    PipeDelimited,
}

/// What a styled parameter holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Scalar,
    Array,
    Object,
}

/// Reads a parameter written in any style but `deepObject`: `a,b,c`,
/// `.a.b`, `;id=1;id=2`, `k1,v1,k2,v2`, `k1=v1,k2=v2`, `a b c`, `a|b|c`, into
/// the target type.
pub fn styled<T: DeserializeOwned>(
    raw: &str,
    name: &str,
    kind: ValueKind,
    style: Style,
    explode: bool,
    what: &str,
) -> Result<T, Rejection> {
    use serde_json::Value;
    let items: Vec<String> = match style {
        Style::Matrix => {
            let fields = raw.split(';').filter(|f| !f.is_empty());
            match (kind, explode) {
                (ValueKind::Object, true) => fields.map(str::to_string).collect(),
                (ValueKind::Array, true) => fields
                    .filter_map(|f| f.strip_prefix(&format!("{name}=")).map(str::to_string))
                    .collect(),
                _ => fields
                    .filter_map(|f| f.strip_prefix(&format!("{name}=")))
                    .flat_map(|v| v.split(','))
                    .map(str::to_string)
                    .collect(),
            }
        }
        _ => {
            let raw = if style == Style::Label { raw.strip_prefix('.').unwrap_or(raw) } else { raw };
            let separator = match (style, explode) {
                (Style::Label, true) => '.',
                (Style::SpaceDelimited, _) => ' ',
                (Style::PipeDelimited, _) => '|',
                _ => ',',
            };
            if kind == ValueKind::Scalar {
                vec![raw.to_string()]
            } else {
                raw.split(separator).map(str::to_string).collect()
            }
        }
    };
    let value = match kind {
        ValueKind::Scalar => Value::String(items.into_iter().next().unwrap_or_default()),
        ValueKind::Array => Value::Array(items.into_iter().map(Value::String).collect()),
        ValueKind::Object if explode => Value::Object(
            items
                .iter()
                .filter_map(|i| i.split_once('='))
                .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                .collect(),
        ),
        ValueKind::Object => Value::Object(
            items
                .chunks(2)
                .filter_map(|pair| match pair {
                    [k, v] => Some((k.clone(), Value::String(v.clone()))),
                    _ => None,
                })
                .collect(),
        ),
    };
    T::deserialize(FormValue(value)).map_err(|e| {
        Rejection::new(RejectionKind::BadRequest, format!("{what} has an invalid value: {e}"))
    })
}

/// A path parameter in a style other than `simple`, or holding an array or object.
pub fn path_styled<T: DeserializeOwned>(
    request: &HttpRequest,
    name: &str,
    kind: ValueKind,
    style: Style,
    explode: bool,
) -> Result<T, Rejection> {
    let raw = request.match_info().get(name).unwrap_or_default();
    styled(raw, name, kind, style, explode, &format!("path parameter `{name}`"))
}

/// A header holding an array or object (`simple` style).
pub fn header_styled<T: DeserializeOwned>(
    request: &HttpRequest,
    name: &str,
    kind: ValueKind,
    explode: bool,
) -> Result<Option<T>, Rejection> {
    let Some(value) = request.headers().get(name) else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| {
        Rejection::new(RejectionKind::BadRequest, format!("header `{name}` is not visible ASCII"))
    })?;
    styled(value, name, kind, Style::Simple, explode, &format!("header `{name}`")).map(Some)
}

/// A cookie holding an array or object (`form` style).
pub fn cookie_styled<T: DeserializeOwned>(
    request: &HttpRequest,
    name: &str,
    kind: ValueKind,
) -> Result<Option<T>, Rejection> {
    match cookie::<String>(request, name)? {
        Some(raw) => styled(&raw, name, kind, Style::Form, false, &format!("cookie `{name}`")).map(Some),
        None => Ok(None),
    }
}

impl Query {
    /// A query parameter in a style other than exploded `form`, or a
    /// non-exploded object.
    pub fn styled<T: DeserializeOwned>(&self, name: &str, kind: ValueKind, style: Style) -> Result<Option<T>, Rejection> {
        match self.one::<String>(name)? {
            Some(raw) => styled(&raw, name, kind, style, false, &format!("query parameter `{name}`")).map(Some),
            None => Ok(None),
        }
    }

    /// A parameter whose type is a union: one value is read as a string, a
    /// repeated one as an array, and the union picks the shape that fits.
    pub fn any<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, Rejection> {
        let values: Vec<serde_json::Value> = self.values(name).map(|v| serde_json::Value::String(v.into())).collect();
        let value = match values.len() {
            0 => return Ok(None),
            1 => values.into_iter().next().unwrap_or_default(),
            _ => serde_json::Value::Array(values),
        };
        T::deserialize(FormValue(value)).map(Some).map_err(|e| {
            Rejection::new(RejectionKind::BadRequest, format!("query parameter `{name}` is invalid: {e}"))
        })
    }

    /// An exploded `form` object: its properties are query parameters of
    /// their own.
    pub fn exploded_object<T: DeserializeOwned>(&self) -> Result<Option<T>, Rejection> {
        let tree = form_tree(self.0.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        T::deserialize(FormValue(tree)).map(Some).map_err(|e| {
            Rejection::new(RejectionKind::BadRequest, format!("the query is invalid: {e}"))
        })
    }
}
