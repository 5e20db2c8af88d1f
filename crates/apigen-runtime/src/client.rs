//! What a generated client calls: a request built from typed parameters in
//! the styles the spec declares ([`Call`]), credentials applied from the
//! spec's security schemes, retries that honour `Retry-After` and resend one
//! `Idempotency-Key` ([`Retry`]), and the answer ([`Answer`]) decoded by the
//! generated code into the operation's response enum ([`Reply`]).

use super::credentials::Credential;
use super::operation::{Operation, SecurityScheme};
#[cfg(test)]
use super::operation::{SecurityRequirement, Stability};
use super::retry::Retry;
use super::style::{query_pairs, write, Style};
use super::validate::Violation;
use super::vocabulary::Explode;
use oauth::{Lease, Managed};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod error;
pub(super) mod oauth;
pub(super) mod reading;

pub use error::ClientError;

/// A fresh `Idempotency-Key`: a random UUID, for a call that may be resent.
pub fn new_idempotency_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// What every call of a generated client shares: the HTTP client, the base
/// URL, default headers, credentials and the retry policy. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Core {
    http: reqwest::Client,
    base: reqwest::Url,
    headers: HeaderMap,
    schemes: &'static [SecurityScheme],
    credentials: HashMap<&'static str, Credential>,
    /// Schemes whose tokens the client gets and renews itself.
    sessions: HashMap<&'static str, Arc<Managed>>,
    retry: Option<Retry>,
    /// Whether answers are read strictly (see [`Core::set_strict`]).
    strict: bool,
    /// Operations already warned about as deprecated.
    warned: Arc<Mutex<HashSet<&'static str>>>,
    /// How requests are signed, when they are (a webhook sender's).
    signing: Option<Arc<Signing>>,
    /// The most of an answer's body read (see [`Core::set_answer_limit`]).
    answer_limit: Option<usize>,
}

/// A webhook sender's signing: the endpoint's secret, and the message id
/// every try of the delivery carries.
#[derive(Debug)]
struct Signing {
    secret: super::WebhookSecret,
    id: String,
}

impl Core {
    /// A core for the API served at `base_url` (`http://localhost:8080/v1`),
    /// whose security schemes are `schemes`.
    pub fn new(base_url: &str, schemes: &'static [SecurityScheme]) -> Result<Core, ClientError> {
        let base = reqwest::Url::parse(base_url.trim_end_matches('/'))
            .map_err(|e| ClientError::Url(format!("{base_url}: {e}")))?;
        if base.cannot_be_a_base() {
            return Err(ClientError::Url(base_url.to_string()));
        }
        Ok(Core {
            http: reqwest::Client::new(),
            base,
            headers: HeaderMap::new(),
            schemes,
            credentials: HashMap::new(),
            sessions: HashMap::new(),
            retry: None,
            strict: false,
            warned: Arc::default(),
            signing: None,
            answer_limit: None,
        })
    }

    /// Reads answers strictly (see [`super::strictly`]): a property the
    /// schema forbids (`additionalProperties: false`), or a value of an
    /// enum it does not list, fails the call instead of being skipped or
    /// kept as [`super::Unknown`]. Off by default, so that a client reads
    /// what a newer server sends; on in a test that holds a server to its
    /// spec.
    pub fn set_strict(&mut self, strict: bool) {
        self.strict = strict;
    }

    /// Whether answers are read strictly.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// Runs `read` as this core reads answers: strictly or not.
    pub(crate) fn reading<R>(&self, read: impl FnOnce() -> R) -> R {
        reading(self.strict, read)
    }

    /// The HTTP client calls are sent through.
    pub fn http_client(&self) -> &reqwest::Client {
        &self.http
    }

    /// `url` as written in the spec: absolute, or relative to the base URL
    /// (`/oauth/token` on `https://api.example.com/v1` is
    /// `https://api.example.com/oauth/token`).
    pub fn resolve(&self, url: &str) -> Result<reqwest::Url, ClientError> {
        self.base
            .join(url)
            .map_err(|e| ClientError::Url(format!("{url}: {e}")))
    }

    /// Reads at most `limit` bytes of an answer's body; the rest is left
    /// unread and the connection closed. For a sender to a URL it does
    /// not trust (a webhook's): its answer's status is what counts.
    pub fn set_answer_limit(&mut self, limit: Option<usize>) {
        self.answer_limit = limit;
    }

    /// The limit [`Core::set_answer_limit`] set.
    pub(crate) fn answer_limit(&self) -> Option<usize> {
        self.answer_limit
    }

    /// Signs every request as Standard Webhooks say: `webhook-id` is
    /// `message_id` (the same on every try, for the receiver to drop
    /// repeats by), `webhook-timestamp` the try's time, and
    /// `webhook-signature` the HMAC of both and the body with `secret`.
    /// `None` stops signing.
    pub fn set_signing(&mut self, signing: Option<(super::WebhookSecret, String)>) {
        self.signing = signing.map(|(secret, id)| Arc::new(Signing { secret, id }));
    }

    /// Sends through `http` (timeouts, proxies, TLS roots are its own).
    pub fn set_http_client(&mut self, http: reqwest::Client) {
        self.http = http;
    }

    /// Headers sent with every call (before the call's own).
    pub fn set_default_headers(&mut self, headers: HeaderMap) {
        self.headers = headers;
    }

    /// Turns retries on with `retry`, or off with `None`.
    pub fn set_retry(&mut self, retry: Option<Retry>) {
        self.retry = retry;
    }

    /// Whether retries are on.
    pub fn retries(&self) -> bool {
        self.retry.is_some()
    }

    /// The credentials for the security scheme named `scheme` (in place
    /// of a session set before).
    pub fn set_credential(&mut self, scheme: &'static str, credential: Credential) {
        self.sessions.remove(scheme);
        self.credentials.insert(scheme, credential);
    }

    /// Sends a call, retrying as the policy allows, and returns the answer,
    /// whatever its status.
    pub async fn send(&self, call: Call) -> Result<Answer, ClientError> {
        Answer::read(
            self.open_response(&call).await?,
            self.strict,
            self.answer_limit,
        )
        .await
    }

    /// Sends a call as [`Core::send`] does; a stream (a success sent as
    /// `text/event-stream`, JSON Lines or a JSON text sequence) is left
    /// unread, for [`Answer::events`] or [`Answer::items`] to read as it
    /// arrives.
    pub async fn open(&self, call: Call) -> Result<Answer, ClientError> {
        let response = self.open_response(&call).await?;
        if !reading::is_stream(&response) {
            return Answer::read(response, self.strict, self.answer_limit).await;
        }
        let (status, headers) = (response.status().as_u16(), response.headers().clone());
        let live = reading::Live {
            core: self.clone(),
            call,
            body: reading::body_of(response),
        };
        Ok(Answer {
            status,
            headers,
            body: Vec::new(),
            live: Some(Arc::new(Mutex::new(Some(live)))),
            strict: self.strict,
        })
    }

    /// The retry policy, if retries are on.
    pub(crate) fn retry_policy(&self) -> Option<Retry> {
        self.retry
    }

    /// Sends a call, retrying as the policy allows; the response, its body
    /// unread.
    pub(crate) async fn open_response(
        &self,
        call: &Call,
    ) -> Result<reqwest::Response, ClientError> {
        let leases = self.leases(call).await?;
        let response = self.tries(call, &leases).await?;
        if response.status() != reqwest::StatusCode::UNAUTHORIZED
            || leases.is_empty()
            || !oauth::token_refused(response.headers())
        {
            return Ok(response);
        }
        // A token refused before it was due (revoked, say): renewed once,
        // and the call sent once more (its body is held whole). A second
        // 401 is the answer.
        for (name, lease) in &leases {
            if let Some(session) = self.sessions.get(name) {
                session.refused(lease).await;
            }
        }
        tracing::debug!(
            operation = call.operation.id,
            "the token was refused: renewing it"
        );
        let leases = self.leases(call).await?;
        self.tries(call, &leases).await
    }

    /// Sends a call with the tokens leased for it, retrying as the policy
    /// allows.
    async fn tries(
        &self,
        call: &Call,
        leases: &[(&'static str, Lease)],
    ) -> Result<reqwest::Response, ClientError> {
        let leased: Vec<(&'static str, Credential)> = leases
            .iter()
            .map(|(name, lease)| (*name, Credential::Token(lease.token.clone())))
            .collect();
        let response = self
            .execute(call.operation.id, call.resendable, || {
                self.request(call, &leased)
            })
            .await?;
        self.warn_if_deprecated(call.operation, response.headers());
        Ok(response)
    }

    /// Sends the request `build` makes, and again as the retry policy
    /// allows: after a 429 or 503 (waiting what `Retry-After` says), after
    /// a connection refused before anything was sent, and, when
    /// `resendable` (resending cannot do the work twice), after a 502, a
    /// 504 or another transport failure. `what` names it in the logs.
    pub(crate) async fn execute(
        &self,
        what: &str,
        resendable: bool,
        build: impl Fn() -> Result<reqwest::Request, ClientError>,
    ) -> Result<reqwest::Response, ClientError> {
        let started = Instant::now();
        let mut attempt = 0;
        loop {
            let outcome = self.http.execute(build()?).await;
            let retry = self.retry.filter(|r| attempt + 1 < r.attempts);
            let wait = match (&outcome, retry) {
                (_, None) => None,
                (Ok(response), Some(policy)) => {
                    let status = response.status().as_u16();
                    let not_done = matches!(status, 429 | 503);
                    let gateway = matches!(status, 502 | 504) && resendable;
                    (not_done || gateway)
                        .then(|| policy.wait(attempt, retry_after(response.headers())))
                }
                (Err(e), Some(policy)) => {
                    // Refused before anything was sent, or resending is safe.
                    (e.is_connect() || resendable).then(|| policy.wait(attempt, None))
                }
            };
            let within = |wait: Duration| {
                self.retry
                    .is_some_and(|r| started.elapsed() + wait <= r.max_elapsed)
            };
            match wait {
                Some(wait) if within(wait) => {
                    tracing::debug!(request = what, attempt, ?wait, "retrying");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                _ => return outcome.map_err(ClientError::Transport),
            }
        }
    }

    /// The request for one try.
    fn request(
        &self,
        call: &Call,
        leased: &[(&'static str, Credential)],
    ) -> Result<reqwest::Request, ClientError> {
        let mut url = match &call.follow {
            // A URL the server gave (the next page's): resolved against the
            // base, and only ever on its origin, where the credentials go.
            Some(next) => {
                let url = self
                    .base
                    .join(next)
                    .map_err(|e| ClientError::Url(format!("{next}: {e}")))?;
                if url.origin() != self.base.origin() {
                    return Err(ClientError::Url(format!(
                        "{url} is not on the API's origin ({}): not followed",
                        self.base.origin().ascii_serialization()
                    )));
                }
                url
            }
            None => self.base.clone(),
        };
        if call.follow.is_none() {
            let mut segments = url
                .path_segments_mut()
                .map_err(|()| ClientError::Url(self.base.to_string()))?;
            segments.pop_if_empty();
            for segment in &call.segments {
                segments.push(segment);
            }
        }
        let mut query = call.query.clone();
        let mut headers = self.headers.clone();
        let mut cookies = call.cookies.clone();
        let mut sent = super::credentials::Sent {
            headers: &mut headers,
            query: &mut query,
            cookies: &mut cookies,
        };
        super::credentials::authorize(
            self.schemes,
            &self.credentials,
            leased,
            call.operation,
            &mut sent,
        );
        if let Some(whole) = &call.whole_query {
            // Every byte but the unreserved ones percent-encoded, so that
            // no `+` reads as a space and no `&` as a pair's end.
            let encoded: String = form_urlencoded::byte_serialize(whole.as_bytes())
                .collect::<String>()
                .replace('+', "%20");
            url.set_query(Some(&encoded));
        }
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(&query);
        }
        for (name, value) in &call.headers {
            headers.insert(name.clone(), value.clone());
        }
        if !cookies.is_empty() {
            let cookie = cookies
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; ");
            if let Ok(value) = HeaderValue::from_str(&cookie) {
                headers.insert(reqwest::header::COOKIE, value);
            }
        }
        let method = reqwest::Method::from_bytes(call.operation.method.as_bytes())
            .map_err(|e| ClientError::Url(e.to_string()))?;
        if let Some(signing) = &self.signing {
            let body = match &call.body {
                None => &[][..],
                Some(Body::Bytes { bytes, .. }) => bytes.as_slice(),
                Some(Body::Multipart(_)) => {
                    return Err(ClientError::Url(
                        "a multipart body cannot be signed as a webhook".into(),
                    ))
                }
            };
            let timestamp = super::webhooks::unix_now();
            let signature = signing.secret.sign(&signing.id, timestamp, body);
            for (name, value) in [
                (super::WEBHOOK_ID, signing.id.clone()),
                (super::WEBHOOK_TIMESTAMP, timestamp.to_string()),
                (super::WEBHOOK_SIGNATURE, signature),
            ] {
                let value = HeaderValue::from_str(&value)
                    .map_err(|_| ClientError::Url(format!("`{value}` is not a header value")))?;
                headers.insert(HeaderName::from_static(name), value);
            }
        }
        let mut builder = self.http.request(method, url).headers(headers);
        builder = match &call.body {
            None => builder,
            Some(Body::Bytes { media, bytes }) => builder
                .header(reqwest::header::CONTENT_TYPE, media.as_str())
                .body(bytes.clone()),
            Some(Body::Multipart(parts)) => {
                let mut form = reqwest::multipart::Form::new();
                for part in parts {
                    form = match part {
                        Part::Text(name, text) => form.text(name.clone(), text.clone()),
                        Part::File(name, bytes) => form.part(
                            name.clone(),
                            reqwest::multipart::Part::bytes(bytes.clone()).file_name(name.clone()),
                        ),
                    };
                }
                builder.multipart(form)
            }
        };
        builder.build().map_err(ClientError::Transport)
    }

    /// Logs once per operation when an answer says the operation is
    /// deprecated or will be sunset.
    fn warn_if_deprecated(&self, operation: &'static Operation, headers: &HeaderMap) {
        let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
        let (deprecation, sunset) = (header("deprecation"), header("sunset"));
        if deprecation.is_none() && sunset.is_none() {
            return;
        }
        let first = self
            .warned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(operation.id);
        if first {
            tracing::warn!(
                operation = operation.id,
                deprecation,
                sunset,
                successor = operation.successor,
                link = header("link"),
                "the server says this operation is deprecated"
            );
        }
    }
}

/// `Retry-After` in seconds (the HTTP-date form is not read).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds: u64 = headers
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

/// A body as it is sent.
#[derive(Debug, Clone)]
enum Body {
    Bytes { media: String, bytes: Vec<u8> },
    Multipart(Vec<Part>),
}

#[derive(Debug, Clone)]
enum Part {
    Text(String, String),
    File(String, Vec<u8>),
}

/// One request being built by generated code.
#[derive(Debug, Clone)]
pub struct Call {
    operation: &'static Operation,
    /// The path's segments, parameters filled in (each encoded when the URL
    /// is built).
    segments: Vec<String>,
    query: Vec<(String, String)>,
    /// The whole query string, for a parameter that is all of it
    /// (encoded when the URL is built); pairs follow it.
    whole_query: Option<String>,
    headers: Vec<(HeaderName, HeaderValue)>,
    cookies: Vec<(String, String)>,
    body: Option<Body>,
    /// Resending after an unknown outcome cannot do the work twice.
    resendable: bool,
    /// A URL to send to instead of the operation's path and query (the
    /// next page's, as the server gave it).
    follow: Option<String>,
}

impl Call {
    /// A call of `operation`, its path template not yet filled in.
    pub fn new(operation: &'static Operation) -> Call {
        // QUERY is safe and idempotent by its definition (the HTTP QUERY
        // method draft, which OpenAPI 3.2's `query` names).
        let idempotent = matches!(
            operation.method,
            "GET" | "HEAD" | "OPTIONS" | "PUT" | "DELETE" | "TRACE" | "QUERY"
        );
        Call {
            operation,
            segments: operation
                .path
                .split('/')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            query: Vec::new(),
            whole_query: None,
            headers: Vec::new(),
            cookies: Vec::new(),
            body: None,
            resendable: idempotent,
            follow: None,
        }
    }

    /// The operation called.
    pub(crate) fn operation(&self) -> &'static Operation {
        self.operation
    }

    /// The value of the query parameter `name`, as it will be sent.
    pub fn query_value(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets the query parameter `name` to `value` alone.
    pub fn set_query(&mut self, name: &str, value: String) {
        self.query.retain(|(k, _)| k != name);
        self.query.push((name.to_string(), value));
    }

    /// A new `Idempotency-Key` for a call that carries one: the next page
    /// of a walk is another request, which the server must not answer with
    /// the first one's replay.
    pub fn renew_idempotency_key(&mut self) {
        for (name, value) in &mut self.headers {
            if name.as_str().eq_ignore_ascii_case("idempotency-key") {
                if let Ok(key) = HeaderValue::from_str(&new_idempotency_key()) {
                    *value = key;
                }
            }
        }
    }

    /// Sends the call to `url` (relative to the base URL, or absolute on
    /// its origin) with its query, in place of the operation's path and
    /// query parameters; headers and credentials stay.
    pub fn follow(&mut self, url: String) {
        self.query.clear();
        self.whole_query = None;
        self.follow = Some(url);
    }

    /// The call carries an `Idempotency-Key`: resending it cannot do the work
    /// twice.
    pub fn resendable(&mut self) {
        self.resendable = true;
    }

    /// Fills in the path parameter `{name}`.
    pub fn path(&mut self, name: &str, value: &impl Serialize, style: Style, explode: Explode) {
        let text = json(value)
            .and_then(|v| write(&v, name, style, explode.on()))
            .unwrap_or_default();
        let placeholder = format!("{{{name}}}");
        for segment in &mut self.segments {
            if segment.contains(&placeholder) {
                *segment = segment.replace(&placeholder, &text);
            }
        }
    }

    /// A query parameter (left out when `None` or null).
    pub fn query(&mut self, name: &str, value: &impl Serialize, style: Style, explode: Explode) {
        if let Some(v) = json(value) {
            self.query
                .extend(query_pairs(&v, name, style, explode.on()));
        }
    }

    /// A parameter that is the whole query string, sent as JSON text
    /// (OpenAPI 3.2's `in: querystring`; left out when `None` or null).
    pub fn query_string(&mut self, value: &impl Serialize) {
        self.whole_query = json(value).map(|v| v.to_string());
    }

    /// A header parameter (left out when `None` or null).
    pub fn header(&mut self, name: &str, value: &impl Serialize, explode: Explode) {
        let text = json(value).and_then(|v| write(&v, name, Style::Simple, explode.on()));
        if let (Some(text), Ok(name)) = (text, HeaderName::from_bytes(name.as_bytes())) {
            if let Ok(value) = HeaderValue::from_str(&text) {
                self.headers.push((name, value));
            }
        }
    }

    /// A header parameter sent as JSON text (left out when `None` or null).
    pub fn header_json(&mut self, name: &str, value: &impl Serialize) {
        let text = json(value).and_then(|v| write(&v, name, Style::Json, false));
        if let (Some(text), Ok(name)) = (text, HeaderName::from_bytes(name.as_bytes())) {
            if let Ok(value) = HeaderValue::from_str(&text) {
                self.headers.push((name, value));
            }
        }
    }

    /// A cookie parameter sent as JSON text (left out when `None` or null).
    pub fn cookie_json(&mut self, name: &str, value: &impl Serialize) {
        if let Some(text) = json(value).and_then(|v| write(&v, name, Style::Json, false)) {
            self.cookies.push((name.to_string(), text));
        }
    }

    /// A cookie parameter (left out when `None` or null).
    pub fn cookie(&mut self, name: &str, value: &impl Serialize, explode: Explode) {
        if let Some(text) = json(value).and_then(|v| write(&v, name, Style::Form, explode.on())) {
            self.cookies.push((name.to_string(), text));
        }
    }

    /// A JSON body (none for `None`).
    pub fn json_body(&mut self, body: &impl Serialize) -> Result<(), ClientError> {
        let value = serde_json::to_value(body).map_err(|e| invalid(e.to_string()))?;
        if !value.is_null() {
            let bytes = serde_json::to_vec(&value).map_err(|e| invalid(e.to_string()))?;
            self.bytes_body("application/json", bytes);
        }
        Ok(())
    }

    /// An `application/x-www-form-urlencoded` body: the object's properties,
    /// nested ones as `a[b]`, as the server's form reader reads them.
    pub fn form_body(&mut self, body: &impl Serialize) -> Result<(), ClientError> {
        let value = serde_json::to_value(body).map_err(|e| invalid(e.to_string()))?;
        let mut form = form_urlencoded::Serializer::new(String::new());
        if let serde_json::Value::Object(map) = &value {
            for (k, v) in map {
                for (name, text) in query_pairs(v, k, Style::DeepObject, true) {
                    form.append_pair(&name, &text);
                }
            }
        }
        if !value.is_null() {
            self.bytes_body(
                "application/x-www-form-urlencoded",
                form.finish().into_bytes(),
            );
        }
        Ok(())
    }

    /// A `multipart/form-data` body: a part per property; those named in
    /// `files` (`format: binary`) as file parts of their bytes.
    pub fn multipart_body(
        &mut self,
        body: &impl Serialize,
        files: &[&str],
    ) -> Result<(), ClientError> {
        let value = serde_json::to_value(body).map_err(|e| invalid(e.to_string()))?;
        let serde_json::Value::Object(map) = value else {
            return Ok(());
        };
        let mut parts = Vec::new();
        for (k, v) in map {
            if files.contains(&k.as_str()) {
                // A file property travels as base64 text in JSON.
                let bytes: super::values::Base64 =
                    serde_json::from_value(v).map_err(|e| invalid(e.to_string()))?;
                parts.push(Part::File(k, bytes.0));
            } else {
                for (name, text) in query_pairs(&v, &k, Style::DeepObject, true) {
                    parts.push(Part::Text(name, text));
                }
            }
        }
        self.body = Some(Body::Multipart(parts));
        Ok(())
    }

    /// A body of bytes in the given media type.
    pub fn bytes_body(&mut self, media: &str, bytes: Vec<u8>) {
        self.body = Some(Body::Bytes {
            media: media.to_string(),
            bytes,
        });
    }
}

fn json(value: &impl Serialize) -> Option<serde_json::Value> {
    serde_json::to_value(value).ok().filter(|v| !v.is_null())
}

fn invalid(message: String) -> ClientError {
    ClientError::Invalid(Violation::new(message))
}

/// An answer as received: status, headers and the whole body (or, for a
/// stream of events received by [`Core::open`], the stream unread).
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status.
    pub status: u16,
    /// The headers.
    pub headers: HeaderMap,
    /// The body; empty for a stream of events left unread.
    pub body: Vec<u8>,
    /// A stream of events being received, until [`Answer::events`] takes it.
    live: Option<Arc<Mutex<Option<reading::Live>>>>,
    /// Whether it is read strictly (its core's [`Core::set_strict`]).
    strict: bool,
}

/// Runs `read` strictly, or not.
fn reading<R>(strict: bool, read: impl FnOnce() -> R) -> R {
    if strict {
        super::strictly(read)
    } else {
        read()
    }
}

impl Answer {
    /// Whether the answer is a stream: a success in a sequential media type
    /// (`text/event-stream`, JSON Lines, a JSON text sequence).
    pub fn is_stream(&self) -> bool {
        (200..300).contains(&self.status) && reading::framing(&self.headers).is_some()
    }

    /// The answer's events, read as they arrive (or from the body, for an
    /// answer read whole); `read` types a reconnect's answer that is not a
    /// stream.
    pub fn events<T: DeserializeOwned + Send + 'static, R: Send + 'static>(
        &self,
        read: reading::Read<R>,
    ) -> super::EventStream<T, R> {
        self.stream(read, super::Framing::Events)
    }

    /// The answer's items (JSON Lines, a JSON text sequence), each read as
    /// its bytes arrive (or from the body, for an answer read whole);
    /// `read` types an answer that is not a stream.
    pub fn items<T: DeserializeOwned + Send + 'static, R: Send + 'static>(
        &self,
        read: reading::Read<R>,
    ) -> super::ItemStream<T, R> {
        super::ItemStream(self.stream(read, super::Framing::Lines))
    }

    /// The answer's stream, framed as its `Content-Type` says (`otherwise`
    /// when it names no sequential media type): as it arrives, with the
    /// call that opened it, or from the body read whole.
    fn stream<T: DeserializeOwned + Send + 'static, R: Send + 'static>(
        &self,
        read: reading::Read<R>,
        otherwise: super::Framing,
    ) -> super::EventStream<T, R> {
        let framing = reading::framing(&self.headers).unwrap_or(otherwise);
        let live = self.live.as_ref().and_then(|live| {
            live.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
        });
        let (from, body): (_, reading::Body) = match live {
            Some(live) => (Some((live.core, live.call)), live.body),
            None => (
                None,
                Box::pin(futures_util::stream::iter([Ok(self.body.clone())])),
            ),
        };
        super::EventStream::answered(from, read, body, framing)
    }

    /// The answer of `response`, its body read whole, or its first
    /// `limit` bytes.
    pub(crate) async fn read(
        mut response: reqwest::Response,
        strict: bool,
        limit: Option<usize>,
    ) -> Result<Answer, ClientError> {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = match limit {
            None => response
                .bytes()
                .await
                .map_err(ClientError::Transport)?
                .to_vec(),
            Some(limit) => {
                let mut body = Vec::new();
                while body.len() < limit {
                    match response.chunk().await.map_err(ClientError::Transport)? {
                        Some(chunk) => body.extend_from_slice(&chunk),
                        None => break,
                    }
                }
                body.truncate(limit);
                body
            }
        };
        Ok(Answer {
            status,
            headers,
            body,
            live: None,
            strict,
        })
    }

    fn decode(&self, message: impl fmt::Display) -> ClientError {
        ClientError::Decode {
            status: self.status,
            message: message.to_string(),
        }
    }

    /// The status, as the response enums carry it.
    pub fn status_code(&self) -> super::StatusCode {
        super::StatusCode::from_u16(self.status).unwrap_or(super::StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// The body decoded from JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, ClientError> {
        reading(self.strict, || serde_json::from_slice(&self.body)).map_err(|e| self.decode(e))
    }

    /// The body's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.body.clone()
    }

    /// A header read as its type, if sent.
    pub fn header<T: FromStr>(&self, name: &str) -> Result<Option<T>, ClientError>
    where
        T::Err: fmt::Display,
    {
        let Some(value) = self.headers.get(name) else {
            return Ok(None);
        };
        let text = value
            .to_str()
            .map_err(|_| self.decode(format!("header `{name}` is not visible ASCII")))?;
        reading(self.strict, || text.parse())
            .map(Some)
            .map_err(|e| self.decode(format!("header `{name}`: {e}")))
    }

    /// A header the spec says is always sent.
    pub fn required_header<T: FromStr>(&self, name: &str) -> Result<T, ClientError>
    where
        T::Err: fmt::Display,
    {
        self.header(name)?
            .ok_or_else(|| self.decode(format!("header `{name}` is missing")))
    }

    /// A header holding an array or object in `style` (`simple`, or JSON
    /// text for a header described by `content`), if sent.
    pub fn header_styled<T: DeserializeOwned>(
        &self,
        name: &str,
        kind: super::style::ValueKind,
        style: Style,
    ) -> Result<Option<T>, ClientError> {
        let Some(value) = self.headers.get(name) else {
            return Ok(None);
        };
        let text = value
            .to_str()
            .map_err(|_| self.decode(format!("header `{name}` is not visible ASCII")))?;
        let what = format!("header `{name}`");
        reading(self.strict, || {
            super::style::styled(text, name, kind, style, false, &what)
        })
        .map(Some)
        .map_err(|e| self.decode(e.message))
    }

    /// A header holding an array or object that the spec says is always sent.
    pub fn required_header_styled<T: DeserializeOwned>(
        &self,
        name: &str,
        kind: super::style::ValueKind,
        style: Style,
    ) -> Result<T, ClientError> {
        self.header_styled(name, kind, style)?
            .ok_or_else(|| self.decode(format!("header `{name}` is missing")))
    }

    /// The error for a status the operation does not declare.
    pub fn undeclared(self) -> ClientError {
        ClientError::Undeclared(Box::new(self))
    }

    /// The answer as the response enum `T`, with its status and headers;
    /// a status the operation does not declare is an error.
    pub fn typed<T: ReadAnswer>(self) -> Result<Reply<T>, ClientError> {
        match T::read(&self)? {
            Some(value) => Ok(self.reply(value)),
            None => Err(self.undeclared()),
        }
    }

    /// The typed answer, with this answer's status and headers.
    pub fn reply<T>(self, value: T) -> Reply<T> {
        Reply {
            value,
            status: self.status,
            headers: self.headers,
        }
    }
}

/// A response enum, read from an answer: written once for each enum,
/// which the operations whose responses are the same share.
pub trait ReadAnswer: Sized {
    /// The response the answer is, by its status (and, where the body is
    /// decoded, its body and headers); `None` for a status the operation
    /// does not declare.
    fn read(answer: &Answer) -> Result<Option<Self>, ClientError>;
}

/// An operation's typed response, and the status and headers it came with
/// (the rate-limit headers every response carries among them).
#[derive(Debug, Clone)]
pub struct Reply<T> {
    /// The operation's response enum.
    pub value: T,
    /// The status.
    pub status: u16,
    /// Every header, declared or not.
    pub headers: HeaderMap,
}

/// The `X-RateLimit-*` headers of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed in the window closest to exhaustion.
    pub limit: u64,
    /// Requests left in it.
    pub remaining: u64,
    /// When it resets, in Unix seconds.
    pub reset: i64,
}

impl<T> Reply<T> {
    /// The response enum.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// The rate-limit headers, when all three came.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        let number = |name| self.headers.get(name)?.to_str().ok()?.trim().parse().ok();
        Some(RateLimit {
            limit: number("x-ratelimit-limit")?,
            remaining: number("x-ratelimit-remaining")?,
            reset: number("x-ratelimit-reset").and_then(|n: u64| i64::try_from(n).ok())?,
        })
    }
}

impl<T> std::ops::Deref for Reply<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

#[cfg(test)]
mod tests;
