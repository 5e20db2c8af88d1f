//! What a generated `mock` module calls: the spec's schemas as data, values
//! made from them (the spec's examples where it gives fitting ones, else
//! generated within every bound), and the request controls a mock server
//! honours (`Prefer: code=404, example=name, dynamic=true`).
//!
//! A value is made as JSON and then read into the generated type, so that
//! what is sent is always what the type renders: a union's decision, a
//! date's format and a flattened object's fields are the model's own.

pub use super::mock_schema::{fits, Bounds, Field, Response, Schema, Spec, Status, Type, Variant};
use super::mock_values::{hash, Maker, Rng, ATTEMPTS};
use super::RequestContext;
use super::{Rejection, RejectionKind, SchemeKind, StatusCode};
use serde_json::{Map, Value};

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
    pub fn read(request: &RequestContext) -> Result<Prefer, Rejection> {
        let mut prefer = Prefer::default();
        for value in request.headers().get_all("prefer").iter() {
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

/// The credentials a mock takes: by default any non-empty credential of
/// one of an operation's schemes; [`Credentials::only`] takes only the
/// values given (`apigen mock --accept-credential VALUE`), whatever the
/// scheme carries them: a bearer token, an API key in a header, query or
/// cookie, HTTP basic's `user:password` (or its base64 as sent), an OAuth
/// 2 or OpenID Connect access token. Mutual TLS cannot be checked here and
/// is taken.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    only: Option<std::sync::Arc<[String]>>,
}

impl Credentials {
    /// Any non-empty credential.
    pub fn any() -> Self {
        Credentials::default()
    }

    /// Only these values; none at all when `values` is empty.
    pub fn only<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Self {
        Credentials {
            only: Some(values.into_iter().map(Into::into).collect()),
        }
    }

    /// Whether a credential sent as `sent` is taken (`decoded` is how
    /// basic's base64 reads, when it does).
    fn take(&self, sent: &str, decoded: Option<&str>) -> bool {
        !sent.is_empty()
            && self.only.as_ref().is_none_or(|values| {
                values
                    .iter()
                    .any(|v| v == sent || Some(v.as_str()) == decoded)
            })
    }

    /// Whether only given values are taken.
    fn restricted(&self) -> bool {
        self.only.is_some()
    }
}

/// A mock's OAuth 2 token endpoint: it issues the credentials its mock
/// takes, so that a client's whole OAuth path (token request, caching,
/// renewal) can be tested against the mock alone. It serves the client
/// credentials and refresh token grants (RFC 6749 sections 4.4 and 6) to
/// any client; a refresh answers with a new refresh token (rotation), and
/// any non-empty refresh token is taken. Another grant is
/// `unsupported_grant_type`.
///
/// Its access token is the first credential the mock takes
/// ([`Credentials::only`]), or `mock-access-token` when it takes any.
#[derive(Debug, Clone)]
pub struct TokenEndpoint {
    paths: Vec<String>,
    token: String,
    issued: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl TokenEndpoint {
    /// The endpoint at `paths` (the spec's relative `tokenUrl`s, resolved
    /// against its server's path), issuing what `credentials` takes.
    pub fn new(paths: &[&str], credentials: &Credentials) -> TokenEndpoint {
        let token = credentials
            .only
            .as_ref()
            .and_then(|values| values.first().cloned())
            .unwrap_or_else(|| "mock-access-token".into());
        TokenEndpoint {
            paths: paths.iter().map(|p| p.to_string()).collect(),
            token,
            issued: std::sync::Arc::default(),
        }
    }

    /// The endpoint served at `path` too (`apigen mock --token-path`): for
    /// a spec whose `tokenUrl` is absolute, with the client pointed here.
    pub fn at(mut self, path: impl Into<String>) -> TokenEndpoint {
        let path = path.into();
        if !self.paths.contains(&path) {
            self.paths.push(path);
        }
        self
    }

    /// The paths it is served at.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The answer to a token request whose form is `form`: its status and
    /// JSON body.
    pub fn answer(&self, form: &[u8]) -> (StatusCode, Value) {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(form).into_owned().collect();
        let field = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let refusal = |error: &str, description: &str| {
            let body = serde_json::json!({"error": error, "error_description": description});
            (StatusCode::BAD_REQUEST, body)
        };
        let refresh = match field("grant_type") {
            Some("client_credentials") => false,
            Some("refresh_token") if field("refresh_token").is_some_and(|t| !t.is_empty()) => true,
            Some("refresh_token") => return refusal("invalid_request", "no `refresh_token`"),
            Some(other) => {
                return refusal(
                    "unsupported_grant_type",
                    &format!(
                    "this mock issues tokens by client_credentials and refresh_token, not {other}"
                ),
                )
            }
            None => return refusal("invalid_request", "no `grant_type`"),
        };
        let mut body = serde_json::json!({
            "access_token": self.token,
            "token_type": "Bearer",
            "expires_in": 3600,
        });
        if refresh {
            let n = self
                .issued
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                + 1;
            body["refresh_token"] = format!("mock-refresh-token-{n}").into();
        }
        if let Some(scope) = field("scope") {
            body["scope"] = scope.into();
        }
        (StatusCode::OK, body)
    }

    /// Serves the endpoint on actix-web, in `cfg` (an `App`'s, before the
    /// mock's own scope).
    pub fn configure(&self, cfg: &mut actix_web::web::ServiceConfig) {
        for path in &self.paths {
            let endpoint = self.clone();
            cfg.route(
                path,
                actix_web::web::post().to(move |form: actix_web::web::Bytes| {
                    let (status, body) = endpoint.answer(&form);
                    async move { super::actix::respond(super::error_json(status, &body, &no_store())) }
                }),
            );
        }
    }

    /// The endpoint as an axum router, to merge beside the mock's.
    #[cfg(feature = "axum")]
    pub fn router(&self) -> ::axum::Router {
        let mut router = ::axum::Router::new();
        for path in &self.paths {
            let endpoint = self.clone();
            router =
                router.route(
                    path,
                    ::axum::routing::post(move |form: bytes::Bytes| {
                        let (status, body) = endpoint.answer(&form);
                        async move {
                            super::axum::respond(super::error_json(status, &body, &no_store()))
                        }
                    }),
                );
        }
        router
    }
}

/// A token answer is not to be cached (RFC 6749 section 5.1).
fn no_store() -> [(String, String); 1] {
    [("cache-control".into(), "no-store".into())]
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
        request: &RequestContext,
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
        request: &RequestContext,
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
        let chosen = negotiated(responses, chosen, request);
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
        let schema = self.body_schema()?;
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

    /// The schema of the response's body.
    fn body_schema(&self) -> Result<Schema, Rejection> {
        self.response
            .body
            .ok_or_else(|| internal("the response has no body"))
    }

    /// A stream of three events whose data is made as a body is, each
    /// named in turn by the names its schema allows, when it names them.
    pub fn events<T, R>(&self) -> Result<super::EventStream<T, R>, Rejection>
    where
        T: serde::de::DeserializeOwned + Send + 'static,
    {
        let schema = self.body_schema()?;
        let names = self.response.event_names;
        let mut events = Vec::new();
        for i in 0..3u64 {
            let mut event = super::Event::new(self.make(&schema, hash("event") ^ i)?);
            event.id = Some((i + 1).to_string());
            if !names.is_empty() {
                let index = usize::try_from(i).unwrap_or_default() % names.len();
                event.event = Some(names[index].to_string());
            }
            events.push(event);
        }
        Ok(super::EventStream::new(futures_util::stream::iter(events)))
    }

    /// A stream of three items (JSON Lines, a JSON text sequence), each
    /// made as a body is.
    pub fn items<T, R>(&self) -> Result<super::ItemStream<T, R>, Rejection>
    where
        T: serde::de::DeserializeOwned + Send + 'static,
    {
        let schema = self.body_schema()?;
        let items = (0..3u64)
            .map(|i| self.make(&schema, hash("item") ^ i))
            .collect::<Result<Vec<T>, _>>()?;
        Ok(super::ItemStream::new(futures_util::stream::iter(items)))
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

/// The schema a refusal sent as `sent` must fit, as its operation
/// declares it: for a 422 or 415 the operation does not declare, its
/// declared 400 (see [`refusal_status`]); with the status it goes out
/// with and its media type. `None` for successes, and for statuses the
/// operation declares no body for: those go out as they are.
fn refusal_schema(
    sent: StatusCode,
    responses: &[Response],
) -> Option<(StatusCode, &'static str, Schema)> {
    if !(sent.is_client_error() || sent.is_server_error()) {
        return None;
    }
    // A broken bound (422) or an unread media type (415) is a bad request
    // too, as the glue has it; other statuses are meant as they are.
    let status = match sent {
        StatusCode::UNPROCESSABLE_ENTITY | StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            refusal_status(responses, sent)
        }
        _ => sent,
    };
    let (index, _) = choose(responses, status.as_u16())?;
    let declared = &responses[index];
    let schema = declared.body?;
    Some((
        status,
        declared.json_type.unwrap_or("application/json"),
        schema,
    ))
}

/// A refusal's body as `schema` declares it: the body sent when it fits
/// (the glue refuses with the crate's one error body, and an operation may
/// declare another for a status), else one made anew from the schema,
/// keeping the refusal's `code` and `message` where it has places for them.
fn conformed_body(
    types: &'static [Type],
    schema: &Schema,
    status: StatusCode,
    sent: &[u8],
) -> Vec<u8> {
    let value: Value = serde_json::from_slice(sent).unwrap_or(Value::Null);
    if fits(types, schema, &value) {
        return sent.to_vec();
    }
    let said = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    error_value(types, schema, status, &said("code"), &said("message"))
        .to_string()
        .into_bytes()
}

/// The headers every response carries (`common`) that `has` says the
/// response lacks, each with a value made from its schema.
fn made_headers(
    seed: u64,
    types: &'static [Type],
    common: &[(&'static str, bool, Schema)],
    has: impl Fn(&str) -> bool,
) -> Vec<(&'static str, String)> {
    let mut made = Vec::new();
    for (name, required, schema) in common {
        if !required || has(name) {
            continue;
        }
        let value = Maker::new(types, false).value(
            schema,
            &mut Rng(seed ^ hash(&name.to_ascii_lowercase())),
            0,
        );
        let text = match value {
            Value::String(text) => text,
            other => other.to_string(),
        };
        made.push((*name, text));
    }
    made
}

/// The mock's layer around every route (its generated `guard` passes the
/// seed), on actix-web: refuses a request to a secured operation without
/// a credential of one of its schemes, sends every refusal as its
/// operation declares it, and sets the headers every response carries.
#[cfg(feature = "server")]
pub async fn guard<B>(
    request: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<B>,
    spec: &'static Spec,
    seed: u64,
    credentials: &Credentials,
) -> Result<actix_web::dev::ServiceResponse, actix_web::Error>
where
    B: actix_web::body::MessageBody + 'static,
{
    use actix_web::http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
    let operation = super::Operation::of(request.request());
    let declared = operation.map_or(&[][..], |o| (spec.responses)(o.id));
    let refusal = operation.and_then(|o| {
        let context = super::actix::context(request.request());
        unauthorized(&context, o, spec, declared, credentials)
    });
    let response = match refusal {
        Some((status, message)) => {
            let body = error_value(spec.types, &spec.error, status, "unauthorized", &message);
            request.into_response(super::actix::respond(super::error_json(status, &body, &[])))
        }
        None => next.call(request).await?.map_into_boxed_body(),
    };
    let sent = StatusCode::from_u16(response.status().as_u16())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = match refusal_schema(sent, declared) {
        None => response,
        Some((status, content_type, schema)) => {
            let (request, http) = response.into_parts();
            let (mut head, body) = http.into_parts();
            *head.status_mut() = actix_web::http::StatusCode::from_u16(status.as_u16())
                .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR);
            head.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
            let bytes = actix_web::body::to_bytes(body)
                .await
                .map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()))?;
            let body = conformed_body(spec.types, &schema, status, &bytes);
            actix_web::dev::ServiceResponse::new(request, head.set_body(body).map_into_boxed_body())
        }
    };
    let headers = response.headers_mut();
    for (name, value) in made_headers(seed, spec.types, spec.common_headers, |n| {
        headers.contains_key(n)
    }) {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            headers.insert(name, value);
        }
    }
    Ok(response)
}

/// The mock's layer around every route, on axum (its generated router
/// passes the seed): what [`guard`] does on actix-web.
#[cfg(feature = "axum")]
pub async fn axum_guard(
    request: ::axum::extract::Request,
    next: ::axum::middleware::Next,
    spec: &'static Spec,
    seed: u64,
    credentials: &Credentials,
) -> ::axum::response::Response {
    use http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
    let operation = super::axum::operation_of(&request);
    let declared = operation.map_or(&[][..], |o| (spec.responses)(o.id));
    // The request's parts are copied for the credentials check only where
    // the operation asks for credentials.
    let (parts, body) = request.into_parts();
    let refusal = operation.filter(|o| !o.security.is_empty()).and_then(|o| {
        unauthorized(
            &RequestContext::new(parts.clone(), Vec::new()),
            o,
            spec,
            declared,
            credentials,
        )
    });
    let request = ::axum::extract::Request::from_parts(parts, body);
    let response = match refusal {
        Some((status, message)) => {
            let body = error_value(spec.types, &spec.error, status, "unauthorized", &message);
            super::axum::respond(super::error_json(status, &body, &[]))
        }
        None => next.run(request).await,
    };
    let mut response = match refusal_schema(response.status(), declared) {
        None => response,
        Some((status, content_type, schema)) => {
            let (mut parts, body) = response.into_parts();
            let bytes = match ::axum::body::to_bytes(body, usize::MAX).await {
                Ok(bytes) => bytes,
                Err(e) => {
                    let message = format!("the refusal's body could not be read: {e}");
                    let body = error_value(
                        spec.types,
                        &spec.error,
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "internal",
                        &message,
                    );
                    return super::axum::respond(super::error_json(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        &body,
                        &[],
                    ));
                }
            };
            parts.status = status;
            parts
                .headers
                .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
            parts.headers.remove(http::header::CONTENT_LENGTH);
            let body = conformed_body(spec.types, &schema, status, &bytes);
            ::axum::response::Response::from_parts(parts, ::axum::body::Body::from(body))
        }
    };
    let headers = response.headers_mut();
    for (name, value) in made_headers(seed, spec.types, spec.common_headers, |n| {
        headers.contains_key(n)
    }) {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            headers.insert(name, value);
        }
    }
    response
}

/// How a request that lacks the credentials its operation asks for (none
/// of its security requirements has a credential `credentials` takes for
/// each of its schemes) is refused: 401, as HTTP has it for credentials
/// that travel in `Authorization`; for a key elsewhere, the declared 400
/// where the operation declares no 401. `None` when it has them, or needs
/// none.
fn unauthorized(
    request: &RequestContext,
    operation: &super::Operation,
    spec: &Spec,
    declared: &[Response],
    credentials: &Credentials,
) -> Option<(StatusCode, String)> {
    if operation.security.is_empty() || operation.security.iter().any(|r| r.schemes.is_empty()) {
        return None;
    }
    // A scheme the document does not define cannot be asked for.
    let scheme = |name: &str| spec.schemes.iter().find(|s| s.name == name);
    let has = |name: &str| scheme(name).is_none_or(|s| credential(request, &s.kind, credentials));
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
    let taken = if credentials.restricted() {
        " (this mock takes only the credentials it was given)"
    } else {
        ""
    };
    Some((
        status,
        format!("credentials are needed: {}{taken}", wanted.join(", or ")),
    ))
}

/// Whether the request carries a credential of the scheme that
/// `credentials` takes.
fn credential(request: &RequestContext, kind: &SchemeKind, credentials: &Credentials) -> bool {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    // The credential after `Authorization: <scheme> `, if it names `scheme`.
    let authorization = |scheme: &str| {
        header("authorization").and_then(|v| {
            v.split_once(' ')
                .filter(|(s, _)| s.eq_ignore_ascii_case(scheme))
                .map(|(_, rest)| rest.trim())
        })
    };
    let take = |sent: Option<&str>| sent.is_some_and(|sent| credentials.take(sent, None));
    match kind {
        SchemeKind::Http { scheme } if scheme.eq_ignore_ascii_case("basic") => {
            authorization(scheme).is_some_and(|sent| {
                use base64::Engine as _;
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(sent)
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok());
                credentials.take(sent, decoded.as_deref())
            })
        }
        SchemeKind::Http { scheme } => take(authorization(scheme)),
        SchemeKind::ApiKey { location, name } => match location {
            super::ApiKeyLocation::Header => take(header(name)),
            super::ApiKeyLocation::Query => {
                form_urlencoded::parse(request.query_string().as_bytes())
                    .any(|(k, v)| k == *name && credentials.take(&v, None))
            }
            super::ApiKeyLocation::Cookie => {
                matches!(super::cookie::<String>(request, name), Ok(Some(v)) if credentials.take(&v, None))
            }
        },
        SchemeKind::OAuth2 | SchemeKind::OpenIdConnect => take(authorization("bearer")),
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
/// Among the responses of `chosen`'s status (a stream, an event stream or
/// JSON Lines, beside JSON), the one whose media type the request's
/// `Accept` names; else `chosen`, the first the document lists.
fn negotiated(responses: &[Response], chosen: usize, request: &RequestContext) -> usize {
    let status = responses[chosen].status;
    let accept = request
        .headers()
        .get_all(http::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|m| m.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .collect::<Vec<_>>();
    let media = |r: &Response| match (r.stream, r.json_type) {
        (Some(stream), _) => stream,
        (None, Some(json)) => json,
        (None, None) => "application/json",
    };
    let mut same = responses
        .iter()
        .enumerate()
        .filter(|(_, r)| r.status == status);
    let siblings = same.clone().count() > 1;
    let asked = same.find(|(_, r)| accept.iter().any(|a| a.eq_ignore_ascii_case(media(r))));
    match asked {
        Some((index, _)) if siblings => index,
        _ => chosen,
    }
}

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

#[cfg(test)]
mod tests;
