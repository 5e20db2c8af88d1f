//! Reading request bodies: size limits, media types, and decoding JSON,
//! forms, multipart and raw bytes.

use super::form::{form_tree, multipart_tree, FormValue};
use super::rejection::{Rejection, RejectionKind};
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut, Payload};
use actix_web::HttpRequest;
use serde::de::DeserializeOwned;

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

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
            Rejection::new(
                RejectionKind::BadRequest,
                format!("the body could not be read: {e}"),
            )
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
        let essence = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
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

/// A required body that was not sent.
pub fn missing_body() -> Rejection {
    Rejection::new(RejectionKind::BadRequest, "a request body is required")
}

/// Decodes a `multipart/form-data` body into its typed struct. An absent body
/// is `None`.
pub async fn multipart_body<T: DeserializeOwned>(
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
    let tree = multipart_tree(content_type, &bytes)?;
    T::deserialize(FormValue(tree)).map(Some).map_err(|e| {
        Rejection::new(
            RejectionKind::ValidationFailed,
            format!("the body does not match the schema: {e}"),
        )
    })
}

/// content types. An absent body is `None`.
/// Decodes a form body (`application/x-www-form-urlencoded`), refusing other
pub async fn form_body<T: DeserializeOwned>(
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
    let essence = content_type
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
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
        Rejection::new(
            RejectionKind::ValidationFailed,
            format!("the body does not match the schema: {e}"),
        )
    })
}

/// Reads a body of any of the declared (non-JSON, non-form) media types as
/// bytes. An absent body is `None`.
pub async fn raw_body(
    request: &HttpRequest,
    payload: Payload,
    media_types: &[&str],
) -> Result<Option<Bytes>, Rejection> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("invalid"));
    let bytes = read_body(request, payload).await?;
    if bytes.is_empty() && content_type.is_none() {
        return Ok(None);
    }
    let essence = content_type
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
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
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;
    use actix_web::FromRequest as _;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Pet {
        name: String,
    }

    /// The request and its body stream, as a handler receives them.
    async fn parts(content_type: Option<&str>, body: &'static [u8]) -> (HttpRequest, Payload) {
        let mut request = TestRequest::post().set_payload(body);
        if let Some(ct) = content_type {
            request = request.insert_header(("content-type", ct));
        }
        let (request, mut payload) = request.to_http_parts();
        let payload = Payload::from_request(&request, &mut payload).await.unwrap();
        (request, payload)
    }

    async fn json(
        content_type: Option<&str>,
        body: &'static [u8],
    ) -> Result<Option<Pet>, Rejection> {
        let (request, payload) = parts(content_type, body).await;
        json_body(&request, payload).await
    }

    #[actix_web::test]
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

    #[actix_web::test]
    async fn bodies_over_the_limit_are_refused() {
        static BIG: [u8; MAX_BODY_BYTES + 1] = [b' '; MAX_BODY_BYTES + 1];
        let (request, payload) = parts(Some("application/json"), &BIG).await;
        let e = read_body(&request, payload).await.unwrap_err();
        assert_eq!(e.kind, RejectionKind::PayloadTooLarge);
    }

    #[actix_web::test]
    async fn forms_and_raw_bodies() {
        let (request, payload) =
            parts(Some("application/x-www-form-urlencoded"), b"name=Rex%20II").await;
        let pet: Option<Pet> = form_body(&request, payload).await.unwrap();
        assert_eq!(pet.unwrap().name, "Rex II");
        let (request, payload) = parts(Some("image/png"), b"\x89PNG").await;
        let raw = raw_body(&request, payload, &["image/*"]).await.unwrap();
        assert_eq!(raw.as_deref(), Some(&b"\x89PNG"[..]));
        let (request, payload) = parts(Some("text/plain"), b"x").await;
        let e = raw_body(&request, payload, &["image/png"])
            .await
            .unwrap_err();
        assert_eq!(e.kind, RejectionKind::UnsupportedMediaType);
        assert_eq!(missing_body().kind, RejectionKind::BadRequest);
    }
}
