//! Reading request bodies: size limits, media types, and decoding JSON,
//! forms, multipart and raw bytes.

use super::form::{form_tree, multipart_tree, xml_tree, FormValue};
use super::record::TextBody;
use super::rejection::{Rejection, RejectionKind};
use super::vocabulary::Also;
use super::RequestContext;
use bytes::{Bytes, BytesMut};
use futures_util::Stream;
use http::header;
use serde::de::DeserializeOwned;
use std::fmt;

/// A request's body as it arrives: chunks of bytes, or the failure to read
/// the next. Each framework's adapter gives its own body stream this shape.
pub trait Payload: Stream<Item = Result<Bytes, BodyError>> {}

impl<S: Stream<Item = Result<Bytes, BodyError>>> Payload for S {}

/// Why a body could not be read to its end.
#[derive(Debug, Clone)]
pub struct BodyError {
    /// A layer gave the body a deadline, and it passed.
    pub timed_out: bool,
    /// What went wrong, for the rejection's message.
    pub message: String,
}

impl BodyError {
    /// A failure to read, from an error of the framework's body stream: a
    /// timeout when it is (or is caused by) an I/O error of kind
    /// `TimedOut`.
    pub fn of(error: &(dyn std::error::Error + 'static)) -> Self {
        let mut cause = Some(error);
        let mut timed_out = false;
        while let Some(e) = cause {
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
            {
                timed_out = true;
            }
            cause = e.source();
        }
        BodyError {
            timed_out,
            message: error.to_string(),
        }
    }
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The largest request body an operation accepts unless its spec says
/// otherwise (`x-max-body-size` on the request body), in bytes: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// Reads the body, refusing more than `limit` bytes: at once when the
/// declared `Content-Length` says so, before anything is read; else as soon
/// as the bytes read pass it, reading no further. A body stream that fails
/// with a timeout (a layer gave the body a deadline) is 408, any other
/// failure to read it 400.
pub async fn read_body(
    request: &RequestContext,
    payload: impl Payload,
    limit: usize,
) -> Result<Bytes, Rejection> {
    use futures_util::StreamExt as _;
    let too_large = || {
        Rejection::new(
            RejectionKind::PayloadTooLarge,
            format!("the body is larger than {limit} bytes"),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|len| len > limit) {
        return Err(too_large());
    }
    let mut payload = std::pin::pin!(payload);
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| match e.timed_out {
            true => Rejection::new(
                RejectionKind::RequestTimeout,
                format!("the body did not arrive in time: {e}"),
            ),
            false => Rejection::new(
                RejectionKind::BadRequest,
                format!("the body could not be read: {e}"),
            ),
        })?;
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// Decodes a JSON body of at most `limit` bytes. An absent body is `None`.
pub async fn json_body<T: DeserializeOwned>(
    request: &RequestContext,
    payload: impl Payload,
    limit: usize,
) -> Result<Option<T>, Rejection> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload, limit).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    if !super::media::is_json(content_type.unwrap_or("")) {
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
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).map_err(json_rejection)?;
    integral_floats(&mut value);
    super::strictly(|| T::deserialize(value))
        .map(Some)
        .map_err(json_rejection)
}

/// Numbers written with a fraction of zero (`3.0`) as the integers they
/// are: JSON Schema's `integer` takes them, and a float field still reads
/// an integer. Floats of 2^53 or more stay as they are.
fn integral_floats(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64() {
                // Whole, and below 2^53: a float that large may be an
                // integer literal rounded on parsing (-2^63 - 1 reads as
                // -2^63), which must not pass for an i64.
                let limit = 2f64.powi(53);
                if x.fract() == 0.0 && (-limit..=limit).contains(&x) {
                    *value = serde_json::Value::from(x as i64);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(integral_floats),
        serde_json::Value::Object(map) => map.values_mut().for_each(integral_floats),
        _ => {}
    }
}

fn json_rejection(e: serde_json::Error) -> Rejection {
    use serde_json::error::Category;
    match e.classify() {
        Category::Data => Rejection::new(
            RejectionKind::ValidationFailed,
            format!("the body does not match the schema: {e}"),
        ),
        Category::Syntax | Category::Eof | Category::Io => Rejection::new(
            RejectionKind::BadRequest,
            format!("the body is not valid JSON: {e}"),
        ),
    }
}

/// A `Content-Type`'s media type, lower case, without its parameters
/// (empty when there is none).
fn essence(content_type: Option<&str>) -> String {
    super::media::essence(content_type.unwrap_or(""))
}

/// A required body that was not sent.
pub fn missing_body() -> Rejection {
    Rejection::new(RejectionKind::BadRequest, "a request body is required")
}

/// Decodes a `multipart/form-data` body of at most `limit` bytes into its
/// typed struct. An absent body is `None`.
pub async fn multipart_body<T: DeserializeOwned>(
    request: &RequestContext,
    payload: impl Payload,
    limit: usize,
) -> Result<Option<T>, Rejection> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload, limit).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    let content_type = content_type.unwrap_or("(none)");
    if !content_type
        .to_ascii_lowercase()
        .starts_with("multipart/form-data")
    {
        return Err(Rejection::new(
            RejectionKind::UnsupportedMediaType,
            format!("the body must be `multipart/form-data`, not `{content_type}`"),
        ));
    }
    let (tree, json_parts) = multipart_tree(content_type, &bytes)?;
    let _text = TextBody::begin();
    super::strictly(|| T::deserialize(FormValue::multipart(tree, json_parts)))
        .map(Some)
        .map_err(|e| {
            Rejection::new(
                RejectionKind::ValidationFailed,
                format!("the body does not match the schema: {e}"),
            )
        })
}

/// Decodes a form body (`application/x-www-form-urlencoded`) of at most
/// `limit` bytes, refusing other content types. An absent body is `None`.
pub async fn form_body<T: DeserializeOwned>(
    request: &RequestContext,
    payload: impl Payload,
    limit: usize,
) -> Result<Option<T>, Rejection> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload, limit).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    let essence = essence(content_type);
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
    let _text = TextBody::begin();
    super::strictly(|| T::deserialize(FormValue::new(tree)))
        .map(Some)
        .map_err(|e| {
            Rejection::new(
                RejectionKind::ValidationFailed,
                format!("the body does not match the schema: {e}"),
            )
        })
}

/// Decodes a body the operation reads as JSON and in the media types of
/// `also`, by its `Content-Type`: JSON unless it names one of them (and
/// JSON's reader refuses any other media type).
pub async fn json_body_or<T: DeserializeOwned>(
    request: &RequestContext,
    payload: impl Payload,
    limit: usize,
    also: &[Also],
) -> Result<Option<T>, Rejection> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    match Also::of(&essence(content_type)).filter(|a| also.contains(a)) {
        Some(Also::Form) => form_body(request, payload, limit).await,
        Some(Also::Xml) => xml_body(request, payload, limit).await,
        None => json_body(request, payload, limit).await,
    }
}

/// Decodes an XML body of at most `limit` bytes (its `Content-Type` already
/// known to be XML) into its typed struct, as [`xml_tree`] reads it. An
/// empty body is `None`.
async fn xml_body<T: DeserializeOwned>(
    request: &RequestContext,
    payload: impl Payload,
    limit: usize,
) -> Result<Option<T>, Rejection> {
    let bytes = read_body(request, payload, limit).await?;
    if bytes.is_empty() {
        return Ok(None);
    }
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| Rejection::new(RejectionKind::BadRequest, "the XML body is not UTF-8"))?;
    let tree = xml_tree(text)?;
    super::strictly(|| T::deserialize(FormValue::xml(tree)))
        .map(Some)
        .map_err(|e| {
            Rejection::new(
                RejectionKind::ValidationFailed,
                format!("the body does not match the schema: {e}"),
            )
        })
}

/// Reads a body of at most `limit` bytes, of any of the declared (non-JSON,
/// non-form) media types, as bytes. An absent body is `None`. An XML body
/// must be a well-formed document (400 otherwise), as [`xml_tree`] reads
/// one; an empty one is absent, since no XML document is empty.
pub async fn raw_body(
    request: &RequestContext,
    payload: impl Payload,
    limit: usize,
    media_types: &[&str],
) -> Result<Option<Bytes>, Rejection> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload, limit).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    let essence = essence(content_type);
    let accepted = media_types.iter().any(|m| {
        *m == "*/*"
            || *m == essence
            || m.strip_suffix("/*")
                .is_some_and(|prefix| essence.starts_with(&format!("{prefix}/")))
    });
    if !accepted {
        return Err(Rejection::new(
            RejectionKind::UnsupportedMediaType,
            format!(
                "the body must be one of {}, not `{}`",
                media_types.join(", "),
                content_type.unwrap_or("(none)")
            ),
        ));
    }
    if Also::of(&essence) == Some(Also::Xml) {
        if bytes.is_empty() {
            return Ok(None);
        }
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| Rejection::new(RejectionKind::BadRequest, "the XML body is not UTF-8"))?;
        xml_tree(text)?;
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Pet {
        name: String,
    }

    /// The request and its body stream, as a handler receives them.
    async fn parts(
        content_type: Option<&str>,
        body: &'static [u8],
    ) -> (RequestContext, impl Payload) {
        let mut request = http::Request::post("/");
        if let Some(ct) = content_type {
            request = request.header("content-type", ct);
        }
        let (parts, ()) = request.body(()).unwrap().into_parts();
        let payload = futures_util::stream::iter([Ok(Bytes::from_static(body))]);
        (RequestContext::new(parts, Vec::new()), payload)
    }

    async fn json(
        content_type: Option<&str>,
        body: &'static [u8],
    ) -> Result<Option<Pet>, Rejection> {
        let (request, payload) = parts(content_type, body).await;
        json_body(&request, payload, DEFAULT_BODY_LIMIT).await
    }

    #[tokio::test]
    async fn an_integer_written_with_a_zero_fraction_is_an_integer() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Page {
            size: i64,
            ratio: f64,
            sizes: Vec<i32>,
        }
        let body = br#"{"size": -7011989.0, "ratio": 2.0, "sizes": [1.0, 2]}"#;
        let (request, payload) = parts(Some("application/json"), body).await;
        let page: Page = json_body(&request, payload, DEFAULT_BODY_LIMIT)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            page,
            Page {
                size: -7011989,
                ratio: 2.0,
                sizes: vec![1, 2]
            }
        );
        // A fraction, or a number beyond i64, is still refused.
        for body in [
            &br#"{"size": 1.5, "ratio": 1, "sizes": []}"#[..],
            br#"{"size": 1e19, "ratio": 1, "sizes": []}"#,
            // Below i64::MIN: it parses as the float -2^63.
            br#"{"size": -9223372036854775809, "ratio": 1, "sizes": []}"#,
        ] {
            let (request, payload) = parts(Some("application/json"), body).await;
            let refused = json_body::<Page>(&request, payload, DEFAULT_BODY_LIMIT).await;
            assert_eq!(refused.unwrap_err().kind, RejectionKind::ValidationFailed);
        }
    }

    #[tokio::test]
    async fn json_bodies_are_checked_for_media_type_syntax_and_shape() {
        let ok = json(Some("application/json"), br#"{"name": "Rex"}"#).await;
        assert_eq!(ok.unwrap(), Some(Pet { name: "Rex".into() }));
        let vendor = json(Some("application/merge-patch+json"), br#"{"name": "Rex"}"#).await;
        assert!(vendor.unwrap().is_some());
        assert_eq!(json(None, b"").await.unwrap(), None);
        let kind = |r: Result<Option<Pet>, Rejection>| r.unwrap_err().kind;
        assert_eq!(
            kind(json(Some("text/plain"), b"{}").await),
            RejectionKind::UnsupportedMediaType
        );
        assert_eq!(
            kind(json(Some("application/json"), b"{\"name\": ").await),
            RejectionKind::BadRequest
        );
        assert_eq!(
            kind(json(Some("application/json"), br#"{"name": 3}"#).await),
            RejectionKind::ValidationFailed
        );
    }

    #[tokio::test]
    async fn bodies_over_the_limit_are_refused() {
        static BIG: [u8; 1001] = [b' '; 1001];
        let (request, payload) = parts(Some("application/json"), &BIG).await;
        let e = read_body(&request, payload, 1000).await.unwrap_err();
        assert_eq!(e.kind, RejectionKind::PayloadTooLarge);
        let (request, payload) = parts(Some("application/json"), &BIG[1..]).await;
        assert_eq!(
            read_body(&request, payload, 1000).await.unwrap().len(),
            1000
        );
    }

    #[tokio::test]
    async fn a_body_stream_that_times_out_is_408() {
        let io = std::io::Error::new(std::io::ErrorKind::TimedOut, "no more within 10 s");
        let payload =
            futures_util::stream::iter([Ok(Bytes::from_static(b"{")), Err(BodyError::of(&io))]);
        let request = RequestContext::of(http::Method::POST, "/");
        let e = read_body(&request, payload, 1000).await.unwrap_err();
        assert_eq!(e.kind, RejectionKind::RequestTimeout);
        assert_eq!(e.status().as_u16(), 408);
    }

    #[tokio::test]
    async fn forms_and_raw_bodies() {
        let (request, payload) =
            parts(Some("application/x-www-form-urlencoded"), b"name=Rex%20II").await;
        let pet: Option<Pet> = form_body(&request, payload, DEFAULT_BODY_LIMIT)
            .await
            .unwrap();
        assert_eq!(pet.unwrap().name, "Rex II");
        let (request, payload) = parts(Some("image/png"), b"\x89PNG").await;
        let raw = raw_body(&request, payload, 10, &["image/*"]).await.unwrap();
        assert_eq!(raw.as_deref(), Some(&b"\x89PNG"[..]));
        let (request, payload) = parts(Some("text/plain"), b"x").await;
        let e = raw_body(&request, payload, 10, &["image/png"])
            .await
            .unwrap_err();
        assert_eq!(e.kind, RejectionKind::UnsupportedMediaType);
        assert_eq!(missing_body().kind, RejectionKind::BadRequest);
    }

    #[tokio::test]
    async fn an_xml_body_is_a_well_formed_document_or_absent() {
        let xml = ["application/xml"];
        let raw = |content_type, body| async move {
            let (request, payload) = parts(Some(content_type), body).await;
            raw_body(&request, payload, 100, &xml).await
        };
        let ok = raw("application/xml", b"<pet><id>1</id></pet>")
            .await
            .unwrap();
        assert_eq!(ok.as_deref(), Some(&b"<pet><id>1</id></pet>"[..]));
        // No XML document is empty: the body is absent, and a required
        // one is then refused as missing.
        assert_eq!(raw("application/xml", b"").await.unwrap(), None);
        for bad in [&b"<pet>"[..], b"not xml", b"\xff\xfe<a/>"] {
            let e = raw("application/xml", bad).await.unwrap_err();
            assert_eq!(e.kind, RejectionKind::BadRequest, "{bad:?}");
        }
    }
}
