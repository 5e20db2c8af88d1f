//! What a generated `mock` module calls: the spec's schemas as data, values
//! made from them (the spec's examples where it gives fitting ones, else
//! generated within every bound), and the request controls a mock server
//! honours (`Prefer: code=404, example=name, dynamic=true`).
//!
//! A value is made as JSON and then read into the generated type, so that
//! what is sent is always what the type renders: a union's decision, a
//! date's format and a flattened object's fields are the model's own.

use super::{Rejection, RejectionKind, SchemeKind, SecurityScheme, StatusCode};
use actix_web::HttpRequest;
use serde_json::{Map, Value};

/// The bounds a value in a position must keep (the spec's validation
/// keywords), numbers as `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// `minLength`.
    pub min_length: Option<usize>,
    /// `maxLength`.
    pub max_length: Option<usize>,
    /// `pattern`.
    pub pattern: Option<&'static str>,
    /// `minimum` (`exclusiveMinimum` when `exclusive_minimum`).
    pub minimum: Option<f64>,
    /// `maximum` (`exclusiveMaximum` when `exclusive_maximum`).
    pub maximum: Option<f64>,
    /// The minimum excludes itself.
    pub exclusive_minimum: bool,
    /// The maximum excludes itself.
    pub exclusive_maximum: bool,
    /// `minItems`.
    pub min_items: Option<usize>,
    /// `maxItems`.
    pub max_items: Option<usize>,
    /// A checked string format: `email` or `uri`.
    pub format: Option<&'static str>,
    /// The values an integer may be (`enum`), when it lists them.
    pub one_of: &'static [i64],
}

impl Bounds {
    /// No bounds at all.
    pub const NONE: Bounds = Bounds {
        min_length: None,
        max_length: None,
        pattern: None,
        minimum: None,
        maximum: None,
        exclusive_minimum: false,
        exclusive_maximum: false,
        min_items: None,
        max_items: None,
        format: None,
        one_of: &[],
    };

    /// With the values an integer may be.
    pub const fn one_of(mut self, values: &'static [i64]) -> Self {
        self.one_of = values;
        self
    }

    /// With `minLength`.
    pub const fn min_length(mut self, n: usize) -> Self {
        self.min_length = Some(n);
        self
    }

    /// With `maxLength`.
    pub const fn max_length(mut self, n: usize) -> Self {
        self.max_length = Some(n);
        self
    }

    /// With `pattern`.
    pub const fn pattern(mut self, pattern: &'static str) -> Self {
        self.pattern = Some(pattern);
        self
    }

    /// With `minimum`, excluded when `exclusive`.
    pub const fn minimum(mut self, n: f64, exclusive: bool) -> Self {
        self.minimum = Some(n);
        self.exclusive_minimum = exclusive;
        self
    }

    /// With `maximum`, excluded when `exclusive`.
    pub const fn maximum(mut self, n: f64, exclusive: bool) -> Self {
        self.maximum = Some(n);
        self.exclusive_maximum = exclusive;
        self
    }

    /// With `minItems`.
    pub const fn min_items(mut self, n: usize) -> Self {
        self.min_items = Some(n);
        self
    }

    /// With `maxItems`.
    pub const fn max_items(mut self, n: usize) -> Self {
        self.max_items = Some(n);
        self
    }

    /// With a checked string format (`email`, `uri`).
    pub const fn format(mut self, format: &'static str) -> Self {
        self.format = Some(format);
        self
    }
}

/// A schema, as the mock needs it.
#[derive(Debug, Clone, Copy)]
pub enum Schema {
    /// `boolean`.
    Bool,
    /// `integer`.
    Integer(Bounds),
    /// `number`.
    Number(Bounds),
    /// `string`.
    String(Bounds),
    /// `format: date-time`.
    DateTime,
    /// `format: date`.
    Date,
    /// `format: uuid`.
    Uuid,
    /// Bytes as base64 text.
    Base64,
    /// Any JSON value.
    Any,
    /// An array of the inner schema.
    Array(&'static Schema, Bounds),
    /// An object with arbitrary keys, each value of the inner schema.
    Map(&'static Schema),
    /// A named type, by its index in the module's table.
    Named(usize),
    /// An object with named properties.
    Object(&'static [Field]),
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// `oneOf`/`anyOf`: the discriminator's property, when there is one,
    /// and the variants in the document's order.
    Union(Option<&'static str>, &'static [Variant]),
    /// The inner schema, or `null`.
    Nullable(&'static Schema),
}

/// A named type: its schema and its `example` (JSON text).
#[derive(Debug, Clone, Copy)]
pub struct Type {
    /// The schema.
    pub schema: Schema,
    /// The schema's `example`, as JSON text.
    pub example: Option<&'static str>,
}

impl Type {
    /// A type of `schema`, without an example.
    pub const fn of(schema: Schema) -> Self {
        Type {
            schema,
            example: None,
        }
    }

    /// With the schema's `example`, as JSON text.
    pub const fn example(mut self, json: &'static str) -> Self {
        self.example = Some(json);
        self
    }
}

/// One property of an object.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Its name on the wire.
    pub name: &'static str,
    /// Whether the object must have it.
    pub required: bool,
    /// `writeOnly: true`: never in a response unless required.
    pub write_only: bool,
    /// The property holds which of several shapes the object also is: its
    /// value's properties are the object's own.
    pub flatten: bool,
    /// Its schema.
    pub schema: Schema,
    /// Its `example`, else its `default`, as JSON text.
    pub example: Option<&'static str>,
}

impl Field {
    /// A property the object must have.
    pub const fn required(name: &'static str, schema: Schema) -> Self {
        Field {
            name,
            required: true,
            write_only: false,
            flatten: false,
            schema,
            example: None,
        }
    }

    /// A property the object may leave out.
    pub const fn optional(name: &'static str, schema: Schema) -> Self {
        Field {
            required: false,
            ..Field::required(name, schema)
        }
    }

    /// `writeOnly: true`.
    pub const fn write_only(mut self) -> Self {
        self.write_only = true;
        self
    }

    /// Its value's properties are the object's own.
    pub const fn flatten(mut self) -> Self {
        self.flatten = true;
        self
    }

    /// With its `example` (or `default`), as JSON text.
    pub const fn example(mut self, json: &'static str) -> Self {
        self.example = Some(json);
        self
    }
}

/// One variant of a union.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    /// The discriminator's values that name it.
    pub tags: &'static [&'static str],
    /// Its schema.
    pub schema: Schema,
}

impl Variant {
    /// A variant of `schema`, named by `tags`.
    pub const fn new(tags: &'static [&'static str], schema: Schema) -> Self {
        Variant { tags, schema }
    }
}

/// The statuses a declared response stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// One code.
    Code(u16),
    /// A class, `2XX` as `2`.
    Range(u16),
    /// `default`.
    Default,
}

/// A response an operation declares.
#[derive(Debug, Clone, Copy)]
pub struct Response {
    /// Its status.
    pub status: Status,
    /// Its body's schema, when it has one.
    pub body: Option<Schema>,
    /// Its examples by name (`example` is named `example`), JSON text.
    pub examples: &'static [(&'static str, &'static str)],
    /// Its headers: name, whether required, schema.
    pub headers: &'static [(&'static str, bool, Schema)],
    /// The JSON media type of its body when it is not `application/json`.
    pub json_type: Option<&'static str>,
}

impl Response {
    /// A response of `status` without a body.
    pub const fn new(status: Status) -> Self {
        Response {
            status,
            body: None,
            examples: &[],
            headers: &[],
            json_type: None,
        }
    }

    /// Its body sent as another JSON media type (`application/problem+json`).
    pub const fn json_type(mut self, media: &'static str) -> Self {
        self.json_type = Some(media);
        self
    }

    /// With a body of `schema`.
    pub const fn body(mut self, schema: Schema) -> Self {
        self.body = Some(schema);
        self
    }

    /// With examples of the body, by name, as JSON text.
    pub const fn examples(mut self, examples: &'static [(&'static str, &'static str)]) -> Self {
        self.examples = examples;
        self
    }

    /// With headers: name, whether required, schema.
    pub const fn headers(mut self, headers: &'static [(&'static str, bool, Schema)]) -> Self {
        self.headers = headers;
        self
    }
}

/// A document as its generated `mock` module gives it: every named type,
/// the error schema, the headers middleware sets, the security schemes,
/// and each operation's responses.
#[derive(Debug)]
pub struct Spec {
    /// Every named type, in the order of `models`.
    pub types: &'static [Type],
    /// The schema of the body every error carries ([`Schema::Any`] for a
    /// document without one).
    pub error: Schema,
    /// The response headers every response carries: name, whether
    /// required, schema.
    pub common_headers: &'static [(&'static str, bool, Schema)],
    /// The security schemes (`metadata::SECURITY_SCHEMES`).
    pub schemes: &'static [SecurityScheme],
    /// The responses of the operation with an operationId.
    pub responses: fn(&str) -> &'static [Response],
}

/// How deep values nest before optional properties are left out and
/// lists left empty (where their bounds allow): recursive schemas end.
const DEPTH: usize = 4;

/// Attempts at a value that the type reads, each with other choices,
/// before the mock gives up.
const ATTEMPTS: u64 = 8;

/// A small deterministic generator (SplitMix64): the same seed and request
/// give the same answer.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// What `Prefer` asks of the mock.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefer {
    /// `code=404`: answer that status.
    pub code: Option<u16>,
    /// `example=name`: answer that named example.
    pub example: Option<String>,
    /// `dynamic=true`: generate from the schema even where examples exist.
    pub dynamic: bool,
}

impl Prefer {
    /// Reads every `Prefer` header of a request (`code=404, example=a`,
    /// `;` or `,` between preferences, values quoted or not).
    pub fn read(request: &HttpRequest) -> Result<Prefer, Rejection> {
        let mut prefer = Prefer::default();
        for value in request.headers().get_all("prefer") {
            let text = value.to_str().map_err(|_| bad("`Prefer` is not text"))?;
            for item in text.split([',', ';']) {
                let Some((key, value)) = item.split_once('=') else {
                    continue;
                };
                let value = value.trim().trim_matches('"');
                match key.trim().to_ascii_lowercase().as_str() {
                    "code" => {
                        let code = value.parse().map_err(|_| {
                            bad(format!("`Prefer: code={value}` is not a status code"))
                        })?;
                        prefer.code = Some(code);
                    }
                    "example" => prefer.example = Some(value.to_string()),
                    "dynamic" => prefer.dynamic = value.eq_ignore_ascii_case("true"),
                    _ => {}
                }
            }
        }
        Ok(prefer)
    }
}

fn bad(message: impl Into<String>) -> Rejection {
    Rejection::new(RejectionKind::BadRequest, message)
}

fn internal(message: impl Into<String>) -> Rejection {
    Rejection::new(RejectionKind::Internal, message)
}

/// The answer to one request being made: which declared response, and its
/// body and headers as they are asked for.
#[derive(Debug)]
pub struct Mock {
    types: &'static [Type],
    response: &'static Response,
    chosen: usize,
    status: StatusCode,
    prefer: Prefer,
    seed: u64,
    /// Why the request is refused, when the chosen response is the
    /// operation's 400 saying so.
    refused: Option<Rejection>,
}

impl Mock {
    /// Chooses the response to `request` among `responses`: the one
    /// `Prefer: code=` names, else the first success, else the first.
    /// `id` (the operation's) and `seed` make the values.
    pub fn start(
        spec: &'static Spec,
        seed: u64,
        id: &str,
        responses: &'static [Response],
        request: &HttpRequest,
    ) -> Result<Mock, Rejection> {
        let types = spec.types;
        let seed = seed ^ hash(id);
        Mock::choose(seed, types, responses, request).or_else(|refused| {
            // A request the mock cannot answer as asked is refused with
            // the operation's own 400, when it declares one.
            let (chosen, _) = choose(responses, 400).ok_or_else(|| refused.clone())?;
            Ok(Mock {
                types,
                response: &responses[chosen],
                chosen,
                status: StatusCode::BAD_REQUEST,
                prefer: Prefer::default(),
                seed,
                refused: Some(refused),
            })
        })
    }

    fn choose(
        seed: u64,
        types: &'static [Type],
        responses: &'static [Response],
        request: &HttpRequest,
    ) -> Result<Mock, Rejection> {
        let prefer = Prefer::read(request)?;
        let (chosen, status) = match prefer.code {
            Some(code) => choose(responses, code).ok_or_else(|| {
                let declared: Vec<String> =
                    responses.iter().map(|r| r.status.to_string()).collect();
                bad(format!(
                    "`Prefer: code={code}` names no response of this operation; it declares {}",
                    declared.join(", ")
                ))
            })?,
            None => first(responses),
        };
        let response = &responses[chosen];
        if let Some(name) = &prefer.example {
            if !prefer.dynamic && !response.examples.iter().any(|(n, _)| n == name) {
                let names: Vec<&str> = response.examples.iter().map(|(n, _)| *n).collect();
                return Err(bad(if names.is_empty() {
                    format!("`Prefer: example={name}`: the {status} response has no examples")
                } else {
                    format!(
                        "`Prefer: example={name}`: the {status} response's examples are {}",
                        names.join(", ")
                    )
                }));
            }
        }
        let status = StatusCode::from_u16(status).map_err(|_| bad("not a status"))?;
        Ok(Mock {
            types,
            response,
            chosen,
            status,
            seed,
            prefer,
            refused: None,
        })
    }

    /// The index of the chosen response among the operation's.
    pub fn chosen(&self) -> usize {
        self.chosen
    }

    /// The status it is sent with.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// Its body: the named example `Prefer` asks for, else its first
    /// example that the type reads, else a value made from its schema.
    pub fn body<T: serde::de::DeserializeOwned>(&self) -> Result<T, Rejection> {
        let schema = self
            .response
            .body
            .ok_or_else(|| internal("the response has no body"))?;
        if let Some(refused) = &self.refused {
            let code = refused.kind.code();
            let said = error_value(self.types, &schema, self.status, code, &refused.message);
            return serde_json::from_value(said)
                .or_else(|_| made(self.types, &schema, hash(code), false));
        }
        if !self.prefer.dynamic {
            let wanted = self.prefer.example.as_deref();
            for (name, text) in self.response.examples {
                if wanted.is_some_and(|w| w != *name) {
                    continue;
                }
                if let Some(value) = self.example(text, &schema) {
                    return Ok(value);
                }
            }
        }
        self.make(&schema, hash("body"))
    }

    /// A stream of three events whose data is made as a body is.
    pub fn events<T, R>(&self) -> Result<super::EventStream<T, R>, Rejection>
    where
        T: serde::de::DeserializeOwned + Send + 'static,
    {
        let schema = self
            .response
            .body
            .ok_or_else(|| internal("the response has no body"))?;
        let mut events = Vec::new();
        for i in 0..3u64 {
            let mut event = super::Event::new(self.make(&schema, hash("event") ^ i)?);
            event.id = Some((i + 1).to_string());
            events.push(event);
        }
        Ok(super::EventStream::new(futures_util::stream::iter(events)))
    }

    /// A raw body (a media type other than JSON): its first example as
    /// text when it is a string, else a made value as JSON text.
    pub fn raw(&self) -> Result<Vec<u8>, Rejection> {
        let schema = self.response.body.unwrap_or(Schema::Any);
        if !self.prefer.dynamic {
            if let Some((_, text)) = self.response.examples.first() {
                if let Ok(Value::String(text)) = serde_json::from_str::<Value>(text) {
                    return Ok(text.into_bytes());
                }
            }
        }
        let mut rng = Rng(self.seed ^ hash("raw"));
        let value = Maker::new(self.types, self.prefer.dynamic).value(&schema, &mut rng, 0);
        Ok(match value {
            Value::String(text) => text.into_bytes(),
            other => other.to_string().into_bytes(),
        })
    }

    /// The value of the response's header at `index`: made when the
    /// header is required (read into `T`, say `String`), `null` (read
    /// into `Option<T>` as none) when it is optional.
    pub fn header<T: serde::de::DeserializeOwned>(&self, index: usize) -> Result<T, Rejection> {
        let (name, required, schema) = self
            .response
            .headers
            .get(index)
            .ok_or_else(|| internal("no such header"))?;
        if !required {
            return serde_json::from_value(Value::Null)
                .map_err(|e| internal(format!("header {name}: {e}")));
        }
        self.make(schema, hash(name))
    }

    fn example<T: serde::de::DeserializeOwned>(&self, text: &str, schema: &Schema) -> Option<T> {
        let value = Maker::new(self.types, false).example(Some(text), schema)?;
        serde_json::from_value(value).ok()
    }

    /// A value of `schema` that `T` reads (see [`made`]).
    fn make<T: serde::de::DeserializeOwned>(
        &self,
        schema: &Schema,
        salt: u64,
    ) -> Result<T, Rejection> {
        made(self.types, schema, self.seed ^ salt, self.prefer.dynamic)
    }
}

/// A value of `schema` that `T` reads, made with `seed`: with examples
/// (unless `dynamic`), then without, each attempt with other choices.
fn made<T: serde::de::DeserializeOwned>(
    types: &'static [Type],
    schema: &Schema,
    seed: u64,
    dynamic: bool,
) -> Result<T, Rejection> {
    let mut last = String::new();
    for attempt in 0..ATTEMPTS {
        let mut rng = Rng(seed ^ attempt.wrapping_mul(0x5851_F42D_4C95_7F2D));
        let value = Maker::new(types, dynamic || attempt > 0).value(schema, &mut rng, 0);
        match serde_json::from_value(value) {
            Ok(value) => return Ok(value),
            Err(e) => last = e.to_string(),
        }
    }
    Err(internal(format!(
        "no value the schema allows could be made: {last}"
    )))
}

/// The body of a refusal: for a document without an error schema
/// (`spec.error` is [`Schema::Any`]) `{code, message, status}`; else a
/// value of the schema, with `code`, `message` (or `detail`) and `status` where
/// it has such properties and they admit these values.
pub fn error_body<T: serde::de::DeserializeOwned>(
    spec: &'static Spec,
    status: StatusCode,
    code: &str,
    message: &str,
) -> Result<T, Rejection> {
    let said = error_value(spec.types, &spec.error, status, code, message);
    serde_json::from_value(said).or_else(|_| made(spec.types, &spec.error, hash(code), false))
}

/// The JSON of [`error_body`].
fn error_value(
    types: &'static [Type],
    schema: &Schema,
    status: StatusCode,
    code: &str,
    message: &str,
) -> Value {
    let said = serde_json::json!({ "code": code, "message": message, "status": status.as_u16() });
    if matches!(schema, Schema::Any) {
        return said;
    }
    let mut made = Maker::new(types, false).value(schema, &mut Rng(hash(code)), 0);
    // The places are the body's own properties, or those of the one
    // object it wraps them in (`{"error": {"code": .., "message": ..}}`,
    // `{"detail": {"message": ..}}`).
    let wrapper: Option<String> = match &made {
        Value::Object(map) => map
            .iter()
            .find(|(_, v)| v.as_object().is_some_and(has_place))
            .map(|(key, _)| key.clone()),
        _ => None,
    };
    for (key, value) in [
        ("code", &said["code"]),
        ("message", &said["message"]),
        ("detail", &said["message"]),
        ("status", &said["status"]),
    ] {
        // The body's own place first, then the wrapped object's.
        for inner in [None, wrapper.as_deref()] {
            let mut tried = made.clone();
            let target = match inner {
                Some(outer) => tried.get_mut(outer),
                None => Some(&mut tried),
            };
            let Some(Value::Object(map)) = target else {
                continue;
            };
            // `message` or `Message`, as the schema spells it.
            let Some(place) = map.keys().find(|k| k.eq_ignore_ascii_case(key)).cloned() else {
                continue;
            };
            map.insert(place, value.clone());
            if fits(types, schema, &tried) {
                made = tried;
                break;
            }
        }
    }
    made
}

/// Whether an object has a place for a refusal's message.
fn has_place(map: &Map<String, Value>) -> bool {
    map.keys()
        .any(|k| k.eq_ignore_ascii_case("message") || k.eq_ignore_ascii_case("detail"))
}

/// A refusal as its operation declares it: a 422 or 415 the operation
/// does not declare as its declared 400 (see [`refusal_status`]); and when `responses` give the status a body that
/// the one sent does not fit (the glue refuses with the crate's one error
/// body, and an operation may declare another for a status), the body made
/// anew from the declared schema, keeping the refusal's `code` and
/// `message` where it has places for them. Successes, and refusals that
/// fit, go out as they are.
async fn conform<B>(
    response: actix_web::dev::ServiceResponse<B>,
    types: &'static [Type],
    responses: &[Response],
) -> Result<actix_web::dev::ServiceResponse, actix_web::Error>
where
    B: actix_web::body::MessageBody + 'static,
{
    let sent_status = response.status();
    let refused = sent_status.is_client_error() || sent_status.is_server_error();
    // A broken bound (422) or an unread media type (415) is a bad request
    // too, as the glue has it; other statuses are meant as they are.
    let status = match sent_status {
        StatusCode::UNPROCESSABLE_ENTITY | StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            refusal_status(responses, sent_status)
        }
        _ => sent_status,
    };
    let declared = choose(responses, status.as_u16()).map(|(i, _)| &responses[i]);
    let Some(declared) = declared.filter(|_| refused) else {
        return Ok(response.map_into_boxed_body());
    };
    let Some(schema) = declared.body else {
        return Ok(response.map_into_boxed_body());
    };
    let (request, http) = response.into_parts();
    let (mut head, body) = http.into_parts();
    *head.status_mut() = status;
    let content_type = declared.json_type.unwrap_or("application/json");
    head.headers_mut().insert(
        actix_web::http::header::CONTENT_TYPE,
        actix_web::http::header::HeaderValue::from_static(content_type),
    );
    let bytes = actix_web::body::to_bytes(body)
        .await
        .map_err(|e| actix_web::error::ErrorInternalServerError(e.into().to_string()))?;
    let sent: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if fits(types, &schema, &sent) {
        return Ok(actix_web::dev::ServiceResponse::new(
            request,
            head.set_body(bytes).map_into_boxed_body(),
        ));
    }
    let said = |key: &str| {
        sent.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let remade = error_value(types, &schema, status, &said("code"), &said("message"));
    let http = head.set_body(remade.to_string()).map_into_boxed_body();
    Ok(actix_web::dev::ServiceResponse::new(request, http))
}

/// Sets each required header of `common` that the response lacks, with a
/// value made from its schema.
fn set_headers(
    headers: &mut actix_web::http::header::HeaderMap,
    seed: u64,
    types: &'static [Type],
    common: &[(&'static str, bool, Schema)],
) {
    use actix_web::http::header::{HeaderName, HeaderValue};
    for (name, required, schema) in common {
        let Ok(name) = HeaderName::from_bytes(name.as_bytes()) else {
            continue;
        };
        if !required || headers.contains_key(&name) {
            continue;
        }
        let made = Maker::new(types, false).value(schema, &mut Rng(seed ^ hash(name.as_str())), 0);
        let text = match made {
            Value::String(text) => text,
            other => other.to_string(),
        };
        if let Ok(value) = HeaderValue::from_str(&text) {
            headers.insert(name, value);
        }
    }
}

/// The mock's layer around every route (its generated `guard` passes the
/// seed): refuses a request to a secured operation without a credential
/// of one of its schemes, sends every refusal as its operation declares
/// it (see [`conform`]), and sets the headers every response carries.
pub async fn guard<B>(
    request: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<B>,
    spec: &'static Spec,
    seed: u64,
) -> Result<actix_web::dev::ServiceResponse, actix_web::Error>
where
    B: actix_web::body::MessageBody + 'static,
{
    let operation = super::Operation::of(request.request());
    let declared = operation.map_or(&[][..], |o| (spec.responses)(o.id));
    let refusal = operation.and_then(|o| unauthorized(request.request(), o, spec, declared));
    let response = match refusal {
        Some((status, message)) => {
            let body = error_value(spec.types, &spec.error, status, "unauthorized", &message);
            request.into_response(super::error_json(status, &body, &[]))
        }
        None => next.call(request).await?.map_into_boxed_body(),
    };
    let mut response = conform(response, spec.types, declared).await?;
    set_headers(
        response.headers_mut(),
        seed,
        spec.types,
        spec.common_headers,
    );
    Ok(response)
}

/// How a request that lacks the credentials its operation asks for (none
/// of its security requirements has a non-empty credential for each of
/// its schemes) is refused: 401, as HTTP has it for credentials that
/// travel in `Authorization`; for a key elsewhere, the declared 400 where
/// the operation declares no 401. `None` when it has them, or needs none.
fn unauthorized(
    request: &HttpRequest,
    operation: &super::Operation,
    spec: &Spec,
    declared: &[Response],
) -> Option<(StatusCode, String)> {
    if operation.security.is_empty() || operation.security.iter().any(|r| r.schemes.is_empty()) {
        return None;
    }
    // A scheme the document does not define cannot be asked for.
    let scheme = |name: &str| spec.schemes.iter().find(|s| s.name == name);
    let has = |name: &str| scheme(name).is_none_or(|s| credential(request, &s.kind));
    if operation
        .security
        .iter()
        .any(|r| r.schemes.iter().all(|(name, _)| has(name)))
    {
        return None;
    }
    let wanted: Vec<String> = operation
        .security
        .iter()
        .map(|r| {
            r.schemes
                .iter()
                .map(|(name, _)| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        })
        .collect();
    let by_authorization = operation
        .security
        .iter()
        .flat_map(|r| r.schemes.iter())
        .filter_map(|(name, _)| scheme(name))
        .any(|s| {
            matches!(
                s.kind,
                SchemeKind::Http { .. } | SchemeKind::OAuth2 | SchemeKind::OpenIdConnect
            )
        });
    let status = if by_authorization {
        StatusCode::UNAUTHORIZED
    } else {
        refusal_status(declared, StatusCode::UNAUTHORIZED)
    };
    Some((
        status,
        format!("credentials are needed: {}", wanted.join(", or ")),
    ))
}

/// Whether the request carries a non-empty credential of the scheme.
fn credential(request: &HttpRequest, kind: &SchemeKind) -> bool {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let authorization = |scheme: &str| {
        header("authorization").is_some_and(|v| {
            v.split_once(' ')
                .is_some_and(|(s, rest)| s.eq_ignore_ascii_case(scheme) && !rest.trim().is_empty())
        })
    };
    match kind {
        SchemeKind::Http { scheme } => authorization(scheme),
        SchemeKind::ApiKey { location, name } => match location {
            super::ApiKeyLocation::Header => header(name).is_some(),
            super::ApiKeyLocation::Query => {
                form_urlencoded::parse(request.query_string().as_bytes())
                    .any(|(k, v)| k == *name && !v.is_empty())
            }
            super::ApiKeyLocation::Cookie => {
                matches!(super::cookie::<String>(request, name), Ok(Some(v)) if !v.is_empty())
            }
        },
        SchemeKind::OAuth2 | SchemeKind::OpenIdConnect => authorization("bearer"),
        SchemeKind::MutualTls => true,
    }
}

/// The status a refusal of `status` is sent with by an operation that
/// declares `responses`: its own when declared (by code, range or
/// `default`), else 400 when that is, else its own.
fn refusal_status(responses: &[Response], status: StatusCode) -> StatusCode {
    let declared = |code: u16| choose(responses, code).is_some();
    if !declared(status.as_u16()) && declared(400) {
        StatusCode::BAD_REQUEST
    } else {
        status
    }
}

/// The response `Prefer: code=` names: the one of that code, else the
/// range holding it, else `default` (when no other declares it).
fn choose(responses: &[Response], code: u16) -> Option<(usize, u16)> {
    let exact = responses
        .iter()
        .position(|r| r.status == Status::Code(code));
    let range = || {
        responses
            .iter()
            .position(|r| r.status == Status::Range(code / 100))
    };
    let default = || responses.iter().position(|r| r.status == Status::Default);
    let index = exact.or_else(range).or_else(default)?;
    (100..600).contains(&code).then_some((index, code))
}

/// The response a request gets unasked: the first success, else the
/// first response, with the status each stands for.
fn first(responses: &[Response]) -> (usize, u16) {
    let code = |r: &Response| match r.status {
        Status::Code(code) => code,
        Status::Range(class) => class * 100,
        Status::Default => 200,
    };
    let index = responses
        .iter()
        .position(|r| (200..300).contains(&code(r)) && r.status != Status::Default)
        .unwrap_or(0);
    match responses.get(index) {
        Some(r) => (index, code(r)),
        None => (0, 204),
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Code(code) => write!(f, "{code}"),
            Status::Range(class) => write!(f, "{class}XX"),
            Status::Default => f.write_str("default"),
        }
    }
}

/// Makes JSON values of schemas.
struct Maker {
    types: &'static [Type],
    /// Ignore the spec's examples.
    dynamic: bool,
}

impl Maker {
    fn new(types: &'static [Type], dynamic: bool) -> Self {
        Maker { types, dynamic }
    }

    /// An example's value when it fits its schema (and examples are
    /// wanted).
    fn example(&self, text: Option<&str>, schema: &Schema) -> Option<Value> {
        if self.dynamic {
            return None;
        }
        let mut value: Value = serde_json::from_str(text?).ok()?;
        if !fits(self.types, schema, &value) {
            return None;
        }
        without_write_only(self.types, schema, &mut value, 0);
        Some(value)
    }

    fn value(&self, schema: &Schema, rng: &mut Rng, depth: usize) -> Value {
        match schema {
            Schema::Bool => Value::Bool(rng.below(2) == 1),
            Schema::Integer(b) => integer(b, rng).into(),
            Schema::Number(b) => number(b, rng),
            Schema::String(b) => Value::String(string(b, rng)),
            Schema::DateTime => Value::String(format!(
                "2026-{:02}-{:02}T{:02}:{:02}:00Z",
                1 + rng.below(12),
                1 + rng.below(28),
                rng.below(24),
                rng.below(60)
            )),
            Schema::Date => Value::String(format!(
                "2026-{:02}-{:02}",
                1 + rng.below(12),
                1 + rng.below(28)
            )),
            Schema::Uuid => {
                let (a, b) = (rng.next(), rng.next());
                Value::String(format!(
                    "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
                    a >> 32,
                    (a >> 16) & 0xffff,
                    a & 0xfff,
                    b >> 52,
                    b & 0xffff_ffff_ffff
                ))
            }
            Schema::Base64 => Value::String("bW9jaw==".into()),
            Schema::Any => Value::Object(Map::new()),
            Schema::Array(items, b) => {
                let min = b.min_items.unwrap_or(0);
                let max = b.max_items.unwrap_or(usize::MAX).max(min);
                let wanted = if depth >= DEPTH { 0 } else { 1 };
                let n = wanted.clamp(min, max);
                Value::Array((0..n).map(|_| self.value(items, rng, depth + 1)).collect())
            }
            Schema::Map(values) => {
                let mut map = Map::new();
                if depth < DEPTH {
                    map.insert("key".into(), self.value(values, rng, depth + 1));
                }
                Value::Object(map)
            }
            Schema::Named(index) => match self.types.get(*index) {
                Some(t) => self
                    .example(t.example, &t.schema)
                    .unwrap_or_else(|| self.value(&t.schema, rng, depth)),
                None => Value::Null,
            },
            Schema::Object(fields) => {
                let mut map = Map::new();
                for field in *fields {
                    // Write-only properties travel in requests alone.
                    let wanted = !field.write_only && (field.required || depth < DEPTH - 1);
                    if !wanted {
                        continue;
                    }
                    let value = self
                        .example(field.example, &field.schema)
                        .unwrap_or_else(|| self.value(&field.schema, rng, depth + 1));
                    // A property a flattened union sets too (its
                    // discriminator) keeps the union's value, which names
                    // the variant made.
                    match (field.flatten, value) {
                        (true, Value::Object(inner)) => map.extend(inner),
                        (true, _) => {}
                        (false, value) => {
                            map.entry(field.name).or_insert(value);
                        }
                    }
                }
                Value::Object(map)
            }
            Schema::Enum(values) => match values.get(rng.below(values.len())) {
                Some(v) => Value::String((*v).to_string()),
                None => Value::Null,
            },
            Schema::Union(tag, variants) => {
                if variants.is_empty() {
                    return Value::Null;
                }
                // Deep down, the first variant: documents put the plain
                // case first more often than not.
                let index = if depth >= DEPTH {
                    0
                } else {
                    rng.below(variants.len())
                };
                let variant = &variants[index];
                let mut value = self.value(&variant.schema, rng, depth);
                if let (Some(tag), Some(name), Value::Object(map)) =
                    (tag, variant.tags.first(), &mut value)
                {
                    map.insert(tag.to_string(), Value::String((*name).to_string()));
                }
                value
            }
            Schema::Nullable(inner) => self.value(inner, rng, depth),
        }
    }
}

fn low_high(b: &Bounds, step: f64) -> (Option<f64>, Option<f64>) {
    let low = b
        .minimum
        .map(|m| if b.exclusive_minimum { m + step } else { m });
    let high = b
        .maximum
        .map(|m| if b.exclusive_maximum { m - step } else { m });
    (low, high)
}

fn integer(b: &Bounds, rng: &mut Rng) -> i64 {
    if !b.one_of.is_empty() {
        return b.one_of[rng.below(b.one_of.len())];
    }
    let (low, high) = low_high(b, 1.0);
    let low = low.map(f64::ceil);
    let high = high.map(f64::floor);
    let (low, high) = match (low, high) {
        (Some(l), Some(h)) => (l, h.max(l)),
        (Some(l), None) => (l, l + 100.0),
        (None, Some(h)) => ((h - 100.0).max(h.min(1.0)), h),
        (None, None) => (1.0, 100.0),
    };
    let span = (high - low).min(1000.0) as usize;
    (low as i64).saturating_add(rng.below(span + 1) as i64)
}

fn number(b: &Bounds, rng: &mut Rng) -> Value {
    let (low, high) = low_high(b, 0.0);
    let pick = match (low, high) {
        (Some(l), Some(h)) if h > l => l + (h - l) * (1 + rng.below(9)) as f64 / 10.0,
        (Some(l), Some(_)) => l,
        (Some(l), None) => l + 1.5 + rng.below(100) as f64,
        (None, Some(h)) => h - 1.5 - rng.below(100) as f64,
        (None, None) => 1.5 + rng.below(100) as f64,
    };
    serde_json::Number::from_f64(pick).map_or(Value::Null, Value::Number)
}

fn string(b: &Bounds, rng: &mut Rng) -> String {
    let min = b.min_length.unwrap_or(0);
    let max = b.max_length.unwrap_or(usize::MAX).max(min);
    let fits = |s: &str| {
        let n = s.chars().count();
        n >= min && n <= max
    };
    let syntax = b
        .pattern
        .and_then(|p| regex_syntax::Parser::new().parse(p).ok());
    if let (Some(pattern), Some(syntax)) = (b.pattern, syntax) {
        let regex = compiled(pattern);
        for _ in 0..16 {
            let mut made = String::new();
            emit(&syntax, rng, &mut made);
            if fits(&made) && regex.as_ref().is_none_or(|r| r.is_match(&made)) {
                return made;
            }
        }
    }
    let base = match b.format {
        Some("email") => format!("user{}@example.com", rng.below(1000)),
        Some("uri") => format!("https://example.com/{}", rng.below(1000)),
        Some("duration") => format!("P{}D", 1 + rng.below(30)),
        _ => format!("mock-{}", rng.below(1000)),
    };
    let mut text: String = base.chars().take(max).collect();
    while text.chars().count() < min {
        text.push('x');
    }
    text
}

/// A pattern compiled once per process: the mock checks examples and
/// refusals against the same few patterns on every request.
fn compiled(pattern: &'static str) -> Option<regex::Regex> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock, PoisonError};
    static COMPILED: OnceLock<Mutex<HashMap<&'static str, Option<regex::Regex>>>> = OnceLock::new();
    let mut compiled = COMPILED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    compiled
        .entry(pattern)
        .or_insert_with(|| regex::Regex::new(pattern).ok())
        .clone()
}

/// Appends a string the pattern `hir` matches, made from its syntax: each
/// alternation's branch and class's character at random, each repetition
/// at least its minimum.
fn emit(hir: &regex_syntax::hir::Hir, rng: &mut Rng, out: &mut String) {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
        HirKind::Class(Class::Unicode(class)) => {
            let ranges: Vec<(char, char)> = class.iter().map(|r| (r.start(), r.end())).collect();
            if let Some(c) = pick_char(&ranges, rng) {
                out.push(c);
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            let ranges: Vec<(char, char)> = class
                .iter()
                .filter(|r| r.start() < 0x80)
                .map(|r| (char::from(r.start()), char::from(r.end().min(0x7f))))
                .collect();
            if let Some(c) = pick_char(&ranges, rng) {
                out.push(c);
            }
        }
        HirKind::Repetition(rep) => {
            let min = rep.min as usize;
            let max = rep.max.map_or(min + 3, |m| m as usize).min(min + 3);
            let n = if min == 0 && max >= 1 {
                1
            } else {
                min + rng.below(max - min + 1)
            };
            for _ in 0..n {
                emit(&rep.sub, rng, out);
            }
        }
        HirKind::Capture(capture) => emit(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().for_each(|p| emit(p, rng, out)),
        HirKind::Alternation(branches) => {
            if let Some(branch) = branches.get(rng.below(branches.len())) {
                emit(branch, rng, out);
            }
        }
    }
}

/// A character of the class: a printable ASCII one where the class has
/// any, else the first of a range.
fn pick_char(ranges: &[(char, char)], rng: &mut Rng) -> Option<char> {
    let ascii: Vec<(u32, u32)> = ranges
        .iter()
        .filter_map(|&(s, e)| {
            let (s, e) = (u32::from(s).max(0x21), u32::from(e).min(0x7e));
            (s <= e).then_some((s, e))
        })
        .collect();
    if !ascii.is_empty() {
        let (s, e) = ascii[rng.below(ascii.len())];
        return char::from_u32(s + rng.below((e - s + 1) as usize) as u32);
    }
    ranges.first().map(|&(s, _)| s)
}

/// `value` (which fits `schema`) without its write-only properties: an
/// example the spec gives for a response may show them, but they travel in
/// requests alone.
fn without_write_only(types: &[Type], schema: &Schema, value: &mut Value, depth: usize) {
    if depth > 32 {
        return;
    }
    match (schema, value) {
        (Schema::Nullable(inner), value) => without_write_only(types, inner, value, depth),
        (Schema::Named(index), value) => {
            if let Some(t) = types.get(*index) {
                without_write_only(types, &t.schema, value, depth + 1);
            }
        }
        (Schema::Array(items, _), Value::Array(list)) => {
            for item in list {
                without_write_only(types, items, item, depth + 1);
            }
        }
        (Schema::Map(values), Value::Object(map)) => {
            for item in map.values_mut() {
                without_write_only(types, values, item, depth + 1);
            }
        }
        (Schema::Object(fields), value) => {
            for field in *fields {
                if field.flatten {
                    without_write_only(types, &field.schema, value, depth + 1);
                    continue;
                }
                let Value::Object(map) = value else {
                    return;
                };
                if field.write_only {
                    map.remove(field.name);
                } else if let Some(inner) = map.get_mut(field.name) {
                    without_write_only(types, &field.schema, inner, depth + 1);
                }
            }
        }
        (Schema::Union(_, variants), value) => {
            if let Some(v) = variants
                .iter()
                .find(|v| fits_at(types, &v.schema, value, depth + 1))
            {
                without_write_only(types, &v.schema, value, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether `value` fits `schema`: an example the spec gives is used only
/// when it does (documents' examples drift from their schemas).
pub fn fits(types: &[Type], schema: &Schema, value: &Value) -> bool {
    fits_at(types, schema, value, 0)
}

fn fits_at(types: &[Type], schema: &Schema, value: &Value, depth: usize) -> bool {
    if depth > 32 {
        return true;
    }
    let in_range = |b: &Bounds, x: f64| {
        b.minimum
            .is_none_or(|m| if b.exclusive_minimum { x > m } else { x >= m })
            && b.maximum
                .is_none_or(|m| if b.exclusive_maximum { x < m } else { x <= m })
    };
    match (schema, value) {
        (Schema::Nullable(_), Value::Null) => true,
        (Schema::Nullable(inner), _) => fits_at(types, inner, value, depth),
        (Schema::Any, _) => true,
        (Schema::Bool, Value::Bool(_)) => true,
        (Schema::Integer(b), Value::Number(n)) => {
            (n.is_i64() || n.is_u64())
                && n.as_f64().is_some_and(|x| in_range(b, x))
                && (b.one_of.is_empty() || n.as_i64().is_some_and(|i| b.one_of.contains(&i)))
        }
        (Schema::Number(b), Value::Number(n)) => n.as_f64().is_some_and(|x| in_range(b, x)),
        (Schema::String(b), Value::String(s)) => {
            let n = s.chars().count();
            b.min_length.is_none_or(|m| n >= m)
                && b.max_length.is_none_or(|m| n <= m)
                && b.pattern
                    .is_none_or(|p| compiled(p).is_none_or(|r| r.is_match(s)))
        }
        (Schema::DateTime | Schema::Date | Schema::Uuid | Schema::Base64, Value::String(_)) => true,
        (Schema::Enum(values), Value::String(s)) => values.contains(&s.as_str()),
        (Schema::Array(items, b), Value::Array(list)) => {
            b.min_items.is_none_or(|m| list.len() >= m)
                && b.max_items.is_none_or(|m| list.len() <= m)
                && list.iter().all(|v| fits_at(types, items, v, depth + 1))
        }
        (Schema::Map(values), Value::Object(map)) => {
            map.values().all(|v| fits_at(types, values, v, depth + 1))
        }
        (Schema::Named(index), _) => types
            .get(*index)
            .is_some_and(|t| fits_at(types, &t.schema, value, depth + 1)),
        (Schema::Object(fields), Value::Object(map)) => fields.iter().all(|f| {
            if f.flatten {
                return true;
            }
            match map.get(f.name) {
                Some(v) => fits_at(types, &f.schema, v, depth + 1),
                None => !f.required,
            }
        }),
        (Schema::Union(_, variants), _) => variants
            .iter()
            .any(|v| fits_at(types, &v.schema, value, depth + 1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: Bounds = Bounds::NONE
        .min_length(3)
        .max_length(8)
        .pattern("^[a-z]+-[0-9]{2}$");

    #[test]
    fn write_only_properties_are_left_out_of_examples_and_made_values() {
        static SECRET: [Type; 1] = [Type::of(Schema::Object(&[
            Field::required("user", Schema::String(Bounds::NONE)),
            Field::required("password", Schema::String(Bounds::NONE)).write_only(),
        ]))];
        let maker = Maker::new(&SECRET, false);
        let example = maker.example(Some(r#"{"user": "a", "password": "b"}"#), &Schema::Named(0));
        assert_eq!(example, Some(serde_json::json!({"user": "a"})));
        let made = Maker::new(&SECRET, true).value(&Schema::Named(0), &mut Rng(1), 0);
        assert!(
            made.get("user").is_some() && made.get("password").is_none(),
            "{made}"
        );
    }

    #[test]
    fn a_discriminator_the_object_declares_too_names_the_variant_made() {
        static LABELED: [Type; 4] = [
            Type::of(Schema::Object(&[
                Field::required("variant", Schema::Named(1)).flatten(),
                Field::required("kind", Schema::Enum(&["circle", "square"])),
            ])),
            Type::of(Schema::Union(
                Some("kind"),
                &[
                    Variant::new(&["circle"], Schema::Named(2)),
                    Variant::new(&["square"], Schema::Named(3)),
                ],
            )),
            Type::of(Schema::Object(&[Field::required(
                "radius",
                Schema::Integer(Bounds::NONE),
            )])),
            Type::of(Schema::Object(&[Field::required(
                "side",
                Schema::Integer(Bounds::NONE),
            )])),
        ];
        let maker = Maker::new(&LABELED, true);
        let mut kinds = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let made = maker.value(&Schema::Named(0), &mut Rng(seed), 0);
            let kind = made["kind"].as_str().unwrap_or_default().to_string();
            let shape = if kind == "circle" { "radius" } else { "side" };
            assert!(made.get(shape).is_some(), "{made}");
            kinds.insert(kind);
        }
        assert_eq!(kinds.len(), 2, "{kinds:?}");
    }

    #[test]
    fn strings_keep_their_pattern_and_length() {
        for seed in 0..200 {
            let made = string(&NAME, &mut Rng(seed));
            assert!(
                fits(&[], &Schema::String(NAME), &Value::String(made.clone())),
                "{made}"
            );
        }
    }

    #[test]
    fn an_integer_enum_is_kept() {
        let b = Bounds::NONE.one_of(&[2, 4, 8]);
        for seed in 0..50 {
            let i = integer(&b, &mut Rng(seed));
            assert!([2, 4, 8].contains(&i), "{i}");
        }
        assert!(!fits(&[], &Schema::Integer(b), &serde_json::json!(3)));
        assert!(fits(&[], &Schema::Integer(b), &serde_json::json!(4)));
    }

    #[test]
    fn numbers_keep_their_bounds() {
        let b = Bounds::NONE.minimum(1.0, false).maximum(5.0, true);
        for seed in 0..200 {
            let mut rng = Rng(seed);
            let i = integer(&b, &mut rng);
            assert!((1..5).contains(&i), "{i}");
            let x = number(&b, &mut rng).as_f64().unwrap();
            assert!((1.0..5.0).contains(&x), "{x}");
        }
    }

    static TYPES: [Type; 1] = [Type::of(Schema::Object(&[
        Field::required("name", Schema::String(NAME)).example("\"no\""),
        Field::optional("children", Schema::Array(&Schema::Named(0), Bounds::NONE)),
    ]))];

    #[test]
    fn prefer_reads_each_control_in_either_separator() {
        let request = actix_web::test::TestRequest::default()
            .insert_header(("Prefer", "code=404; example=\"dog\", dynamic=TRUE, wait=5"))
            .to_http_request();
        let prefer = Prefer::read(&request).unwrap();
        assert_eq!(prefer.code, Some(404));
        assert_eq!(prefer.example.as_deref(), Some("dog"));
        assert!(prefer.dynamic);
        let bad = actix_web::test::TestRequest::default()
            .insert_header(("Prefer", "code=teapot"))
            .to_http_request();
        assert_eq!(
            Prefer::read(&bad).unwrap_err().kind,
            RejectionKind::BadRequest
        );
    }

    #[test]
    fn a_code_is_answered_by_its_own_response_its_range_or_default() {
        let responses = [
            Response::new(Status::Code(200)),
            Response::new(Status::Range(4)),
            Response::new(Status::Default),
        ];
        assert_eq!(choose(&responses, 200), Some((0, 200)));
        assert_eq!(choose(&responses, 404), Some((1, 404)));
        assert_eq!(choose(&responses, 503), Some((2, 503)));
        assert_eq!(choose(&responses[..2], 503), None);
        assert_eq!(first(&responses[1..]), (0, 400));
    }

    static WRAPPED: [Type; 1] = [Type::of(Schema::Object(&[Field::required(
        "error",
        Schema::Object(&[
            Field::required("code", Schema::Integer(Bounds::NONE)),
            Field::required("message", Schema::String(Bounds::NONE)),
        ]),
    )]))];

    /// A refusal's message goes where the error schema has a place for it,
    /// inside the object it wraps it in too; a code of the wrong type
    /// does not.
    #[test]
    fn refusals_say_why_where_the_schema_lets_them() {
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        let body = error_value(
            &WRAPPED,
            &Schema::Named(0),
            status,
            "bad",
            "`limit` is too big",
        );
        assert_eq!(body["error"]["message"], "`limit` is too big", "{body}");
        assert!(body["error"]["code"].is_i64(), "{body}");
        static DETAILED: [Type; 1] = [Type::of(Schema::Object(&[Field::required(
            "detail",
            Schema::Object(&[
                Field::required("error_code", Schema::String(Bounds::NONE)),
                Field::required("message", Schema::String(Bounds::NONE)),
            ]),
        )]))];
        let body = error_value(&DETAILED, &Schema::Named(0), status, "bad", "why");
        assert_eq!(body["detail"]["message"], "why", "{body}");
        static CAPITALIZED: [Type; 1] = [Type::of(Schema::Object(&[
            Field::optional("ErrorNumber", Schema::Integer(Bounds::NONE)),
            Field::optional("Message", Schema::String(Bounds::NONE)),
        ]))];
        let body = error_value(&CAPITALIZED, &Schema::Named(0), status, "bad", "why");
        assert_eq!(body["Message"], "why", "{body}");
        let plain = error_value(&[], &Schema::Any, status, "bad", "why");
        assert_eq!(
            plain,
            serde_json::json!({"code": "bad", "message": "why", "status": 422})
        );
    }

    /// A recursive type ends, and an example that breaks its field's
    /// bounds is not used.
    #[test]
    fn recursive_types_end_and_bad_examples_are_left_out() {
        let value = Maker::new(&TYPES, false).value(&Schema::Named(0), &mut Rng(7), 0);
        assert!(fits(&TYPES, &Schema::Named(0), &value), "{value}");
        assert_ne!(value["name"], "no");
        let text = value.to_string();
        assert!(text.matches("children").count() >= 2, "{text}");
    }
}
