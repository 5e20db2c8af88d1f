//! Request bodies and responses: media types, shapes, headers.

use super::pointer::{self, Node};
use super::Lowerer;
use crate::diag::Pointer;
use crate::ir::*;
use crate::media::essence;
use crate::names::{sanitize, Case, Namer};
use openapiv3::{ParameterSchemaOrContent, ReferenceOr, StatusCode};

/// The media type of a body declared with `content: {}`: any, with no
/// schema (bytes).
static ANY_MEDIA: std::sync::LazyLock<(String, openapiv3::MediaType)> =
    std::sync::LazyLock::new(|| ("*/*".to_string(), openapiv3::MediaType::default()));

impl<'a> Lowerer<'a> {
    /// An operation's responses, one per status, range and `default`, each
    /// with a variant name of its own. An operation that declares none
    /// answers anything (a note says so).
    pub(super) fn responses(
        &mut self,
        route: &super::operations::Route<'a>,
        type_name: &str,
    ) -> Vec<Response> {
        let op = route.op;
        let errors_before = self.errors.len();
        let mut responses = Vec::new();
        let mut variants = Namer::new();
        let rat = route.at.join("responses");
        for (code, response) in &op.responses.responses {
            let status = match code {
                StatusCode::Code(c) if (100..=599).contains(c) => Status::Code(*c),
                StatusCode::Range(class) if (1..=5).contains(class) => Status::Range(*class),
                StatusCode::Code(c) => {
                    self.error(&rat.join(c), format!("`{c}` is not an HTTP status code"));
                    continue;
                }
                StatusCode::Range(class) => {
                    self.error(
                        &rat.join(format!("{class}XX")),
                        format!("`{class}XX` is not a class of HTTP statuses (1XX to 5XX)"),
                    );
                    continue;
                }
            };
            responses.extend(self.response(
                status,
                &mut variants,
                response,
                &rat.join(status),
                type_name,
            ));
        }
        if let Some(default) = &op.responses.default {
            responses.extend(self.response(
                Status::Default,
                &mut variants,
                default,
                &rat.join("default"),
                type_name,
            ));
        }
        if responses.is_empty() && self.errors.len() == errors_before {
            // Nothing is promised: any status, no body read.
            self.note(
                &rat,
                format!(
                    "operation `{}` declares no responses: read as answering any status, with no body",
                    route.id
                ),
            );
            responses.push(Response {
                pointer: rat.join("default").to_string(),
                status: Status::Default,
                variant: variants.unique(status_variant(Status::Default)),
                doc: "Any answer: the spec declares none.".into(),
                body: None,
                media: Media::Json,
                event_names: None,
                json_type: None,
                headers: Vec::new(),
                examples: Vec::new(),
                referenced: None,
                shared: None,
            });
        }
        responses
    }

    pub(super) fn request_body(
        &mut self,
        body: &'a ReferenceOr<openapiv3::RequestBody>,
        at: &Pointer,
        op_type: &str,
    ) -> Option<Body> {
        let (body, body_at) = self.resolve(body, Node::request_body, at)?;
        let (media_type, content, media) =
            self.body_content(&body.content, &body_at.join("content"))?;
        let schema_at = body_at.join("content").join(media_type).join("schema");
        // A body shared by reference is named from where it stands.
        let hint = if body_at == *at {
            format!("{op_type}Body")
        } else {
            pointer::name_from(&schema_at)
        };
        let shape = match (&media, &content.schema) {
            (Media::Raw(_), _) => Shape::new(Ty::Bytes),
            (_, Some(schema)) => self.shape_of(schema, &schema_at, &hint)?,
            (_, None) => Shape::new(Ty::Json),
        };
        let limit = match body.extensions.get("x-max-body-size") {
            None => None,
            Some(value) => match value.as_u64().filter(|n| *n > 0) {
                Some(n) => Some(n),
                None => {
                    self.error(
                        &body_at.join("x-max-body-size"),
                        format!(
                            "`x-max-body-size` must be a positive number of bytes, not {value}"
                        ),
                    );
                    return None;
                }
            },
        };
        Some(Body {
            pointer: at.to_string(),
            shape,
            required: body.required,
            limit,
            doc: body.description.clone(),
            also: if media == Media::Json {
                also_read(body.content.keys())
            } else {
                Vec::new()
            },
            media,
            example: media_examples(content).into_iter().next().map(|(_, v)| v),
        })
    }

    /// The media type a body travels in: JSON if offered, else a form, else
    /// raw bytes of the other media types. `multipart/form-data` alone is
    /// reported.
    pub(super) fn body_content<'c>(
        &mut self,
        content: &'c indexmap::IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
    ) -> Option<(&'c String, &'c openapiv3::MediaType, Media)> {
        self.body_content_but(content, at, None)
    }

    /// [`Self::body_content`], leaving out the media type `except`.
    fn body_content_but<'c>(
        &mut self,
        content: &'c indexmap::IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
        except: Option<&str>,
    ) -> Option<(&'c String, &'c openapiv3::MediaType, Media)> {
        let entries = || content.iter().filter(|(m, _)| Some(m.as_str()) != except);
        if let Some((m, c)) = entries().find(|(m, _)| is_json(m)) {
            return Some((m, c, Media::Json));
        }
        if let Some((m, c)) =
            entries().find(|(m, _)| essence(m) == "application/x-www-form-urlencoded")
        {
            return Some((m, c, Media::Form));
        }
        if let Some((m, c)) = entries().find(|(m, _)| essence(m) == "multipart/form-data") {
            return Some((m, c, Media::Multipart));
        }
        let raw: Vec<String> = entries().map(|(m, _)| essence(m)).collect();
        match entries().next() {
            Some((m, c)) => Some((m, c, Media::Raw(raw))),
            None if content.is_empty() => {
                // `content: {}`: a body the document says nothing of, which
                // any media type may carry.
                self.note(
                    at,
                    "a body with no media type: read as bytes of any media type",
                );
                let (any, media) = &*ANY_MEDIA;
                Some((any, media, Media::Raw(vec![any.clone()])))
            }
            None => {
                self.error(at, "a body with no media type");
                None
            }
        }
    }

    /// The response declared for `status`: one, or, for a success that
    /// offers a sequential media type (`text/event-stream`, JSON Lines, a
    /// JSON text sequence) beside other media types, two (the other
    /// media's, then the stream's, named `<Variant>Events` or
    /// `<Variant>Stream`); none when it cannot be read (reported).
    pub(super) fn response(
        &mut self,
        status: Status,
        variants: &mut Namer,
        response: &'a ReferenceOr<openapiv3::Response>,
        at: &Pointer,
        op_type: &str,
    ) -> Vec<Response> {
        let Some((resolved, response_at)) = self.resolve(response, Node::response, at) else {
            return Vec::new();
        };
        let variant = variants.unique(status_variant(status));
        // A stream, on a success: its own response. An event stream is
        // preferred to the other sequential media.
        let stream = if status.is_success() {
            let streams = || {
                resolved
                    .content
                    .iter()
                    .filter_map(|(m, c)| Some((m, c, stream_of(m, c)?)))
            };
            let events = streams().find(|(_, _, media)| *media == Media::Events);
            events.or_else(|| streams().next())
        } else {
            None
        };
        let stream = stream.and_then(|(media_type, content, media)| {
            let content_at = response_at.join("content").join(media_type);
            let (data, event_names) = match media {
                Media::Events => {
                    let hint = format!("{op_type}{variant}Event");
                    self.event_data(content, &content_at, &hint)?
                }
                _ => {
                    let hint = format!("{op_type}{variant}Item");
                    (self.item_shape(content, &content_at, &hint)?, None)
                }
            };
            Some((media_type, media, data, event_names))
        });
        let Some((stream_type, media, data, event_names)) = stream else {
            return self
                .response_of(status, variant, (resolved, &response_at), at, op_type, None)
                .into_iter()
                .collect();
        };
        // The response as its other media types give it (no body when the
        // stream is all it offers), headers read once for both.
        let Some(others) = self.response_of(
            status,
            variant.clone(),
            (resolved, &response_at),
            at,
            op_type,
            Some(stream_type),
        ) else {
            return Vec::new();
        };
        let alone = resolved.content.len() == 1;
        let stream_variant = match (&media, alone) {
            (_, true) => variant,
            (Media::Events, false) => variants.unique(format!("{variant}Events")),
            (_, false) => variants.unique(format!("{variant}Stream")),
        };
        let stream = Response {
            variant: stream_variant,
            body: Some(data),
            media,
            event_names,
            json_type: None,
            shared: None,
            examples: Vec::new(),
            ..others.clone()
        };
        // In the order the document lists them: the first is the one a
        // mock sends when a request's `Accept` names neither.
        let stream_first = resolved.content.keys().next() == Some(stream_type);
        match (alone, stream_first) {
            (true, _) => vec![stream],
            (false, true) => vec![stream, others],
            (false, false) => vec![others, stream],
        }
    }

    /// The schema a stream's media type (at `at`) gives, resolved; `Some(None)`
    /// when it gives none (any JSON), `None` when its reference names
    /// nothing (reported).
    fn described(
        &mut self,
        content: &'a openapiv3::MediaType,
        at: &Pointer,
    ) -> Option<Option<Described<'a>>> {
        let Some(written) = &content.schema else {
            return Some(None);
        };
        let at = at.join("schema");
        let (target, resolved) = match written {
            ReferenceOr::Item(item) => (at.clone(), item),
            ReferenceOr::Reference { reference } => self.schema_at(reference, &at)?,
        };
        Some(Some(Described {
            written,
            at,
            target,
            resolved,
        }))
    }

    /// The type of an item of a stream other than events: 3.2 gives the
    /// items' schema (`itemSchema`, which the load stage writes as the
    /// `items` of an array `schema`); earlier documents give either the
    /// whole sequence as an array or one item, told apart by the schema's
    /// shape. `None` for a schema of bytes (`format: binary`), which is no
    /// stream of JSON texts: the body is then read as bytes.
    fn item_shape(
        &mut self,
        content: &'a openapiv3::MediaType,
        at: &Pointer,
        hint: &str,
    ) -> Option<Shape> {
        let Some(Described {
            written: schema,
            at: schema_at,
            target,
            resolved,
        }) = self.described(content, at)?
        else {
            return Some(Shape::new(Ty::Json));
        };
        match &resolved.schema_kind {
            openapiv3::SchemaKind::Type(openapiv3::Type::Array(array)) => match &array.items {
                Some(items) => {
                    let items = items.clone().unbox();
                    let shape = self.shape_of(&items, &target.join("items"), hint)?;
                    Some(shape)
                }
                None => Some(Shape::new(Ty::Json)),
            },
            openapiv3::SchemaKind::Type(openapiv3::Type::String(string))
                if matches!(
                    string.format,
                    openapiv3::VariantOrUnknownOrEmpty::Item(openapiv3::StringFormat::Binary)
                ) =>
            {
                None
            }
            _ => self.shape_of(schema, &schema_at, hint),
        }
    }

    /// The type of an event's data: the schema of `data` where the media
    /// type's schema describes the whole event (an object of `data`, `event`,
    /// `id` and `retry` properties, as 3.2's `itemSchema` does), else the
    /// schema itself.
    fn event_data(
        &mut self,
        content: &'a openapiv3::MediaType,
        at: &Pointer,
        hint: &str,
    ) -> Option<(Shape, Option<Vec<String>>)> {
        let Some(Described {
            written: schema,
            at: schema_at,
            target,
            resolved,
        }) = self.described(content, at)?
        else {
            return Some((Shape::new(Ty::Json), None));
        };
        if let openapiv3::SchemaKind::Type(openapiv3::Type::Object(object)) = &resolved.schema_kind
        {
            let fields = ["data", "event", "id", "retry"];
            let whole_event = object.properties.contains_key("data")
                && object
                    .properties
                    .keys()
                    .all(|k| fields.contains(&k.as_str()));
            if whole_event {
                self.note(
                    &schema_at,
                    "the schema describes each whole event (`data`, `event`, `id`, `retry`): \
                     an event's data is read as `data`'s schema",
                );
                let properties = target.join("properties");
                let data = &object.properties["data"];
                let data = self.shape_of(data, &properties.join("data"), hint)?;
                let event = object
                    .properties
                    .get("event")
                    .map(|event| self.event_names(event, &properties.join("event")));
                return Some((data, event));
            }
        }
        self.note(
            &schema_at,
            "the schema describes each event's data (an object of `data` and of `event`, `id` or \
             `retry` alone would describe each whole event)",
        );
        Some((self.shape_of(schema, &schema_at, hint)?, None))
    }

    /// The names an event's `event` field (at `at`) may take, for a mock
    /// to send: its enum's strings; else `message`, the
    /// name SSE gives an event that names none. (A 3.1 `const` reaches
    /// here as an enum of one.)
    fn event_names(
        &mut self,
        event: &'a ReferenceOr<Box<openapiv3::Schema>>,
        at: &Pointer,
    ) -> Vec<String> {
        let resolved = match event {
            ReferenceOr::Item(item) => Some(&**item),
            ReferenceOr::Reference { reference } => {
                self.schema_at(reference, at).map(|(_, resolved)| resolved)
            }
        };
        let mut names = Vec::new();
        if let Some(resolved) = resolved {
            if let openapiv3::SchemaKind::Type(openapiv3::Type::String(string)) =
                &resolved.schema_kind
            {
                names.extend(string.enumeration.iter().flatten().cloned());
            }
        }
        if names.is_empty() {
            names.push("message".to_string());
        }
        names
    }

    /// The response `response` (standing at `response_at`, declared at
    /// `at`) in the media types other than `except`.
    fn response_of(
        &mut self,
        status: Status,
        variant: String,
        (response, response_at): (&'a openapiv3::Response, &Pointer),
        at: &Pointer,
        op_type: &str,
        except: Option<&str>,
    ) -> Option<Response> {
        let response_at = response_at.clone();
        let offered = response.content.len() - usize::from(except.is_some());
        let (body, media, json_type, examples) = if offered == 0 {
            (None, Media::Json, None, Vec::new())
        } else {
            let (media_type, content, media) =
                self.body_content_but(&response.content, &response_at.join("content"), except)?;
            // A multipart response is passed on as its bytes.
            let media = match media {
                Media::Multipart => Media::Raw(vec!["multipart/form-data".into()]),
                other => other,
            };
            let schema_at = response_at.join("content").join(media_type).join("schema");
            // A response shared by reference is named from where it stands.
            let hint = if response_at == *at {
                format!("{op_type}{variant}Body")
            } else {
                pointer::name_from(&schema_at)
            };
            let shape = match (&media, &content.schema) {
                (Media::Raw(_), _) => Shape::new(Ty::Bytes),
                (_, Some(s)) => self.shape_of(s, &schema_at, &hint)?,
                (_, None) => Shape::new(Ty::Json),
            };
            let declared = essence(media_type);
            let json_type =
                (media == Media::Json && declared != "application/json" && declared != "*/*")
                    .then_some(declared);
            // A response sends one media type: the first listed.
            let media = match media {
                Media::Raw(all) => Media::Raw(all.into_iter().take(1).collect()),
                other => other,
            };
            (Some(shape), media, json_type, media_examples(content))
        };
        let mut headers = Vec::new();
        let mut names = Namer::new();
        names.reserve("body");
        for (name, header) in &response.headers {
            if name.eq_ignore_ascii_case("content-type") {
                continue; // OpenAPI says to ignore it.
            }
            let hat = at.join("headers").join(name);
            let Some((header, header_at)) = self.resolve(header, Node::header, &hat) else {
                continue;
            };
            // A header described by `content` carries its value in that
            // media type: JSON text for a JSON type, the text itself for
            // any other.
            let (schema, sat, json) = match &header.format {
                ParameterSchemaOrContent::Schema(s) => (Some(s), header_at.join("schema"), false),
                ParameterSchemaOrContent::Content(content) => {
                    let Some((media, m)) = content.iter().next() else {
                        self.error(&hat, "a header's `content` names no media type");
                        continue;
                    };
                    let sat = header_at.join("content").join(media).join("schema");
                    (m.schema.as_ref(), sat, is_json(media))
                }
            };
            let hint = match header_at.segments().collect::<Vec<_>>().as_slice() {
                _ if header_at == hat => {
                    format!("{op_type}{variant}{}", sanitize(name, Case::Pascal))
                }
                [components, _, component] if components == "components" => component.clone(),
                _ => pointer::name_from(&header_at),
            };
            let by_schema = matches!(header.format, ParameterSchemaOrContent::Schema(_));
            let shape = match schema {
                Some(schema) if by_schema || json => self.shape_of(schema, &sat, &hint),
                None if json => Some(Shape::new(Ty::Json)),
                // Text of another media type: the text itself.
                _ => Some(Shape::new(Ty::String)),
            };
            let Some(shape) = shape else {
                continue;
            };
            headers.push(ResponseHeader {
                wire: name.clone(),
                pointer: hat.to_string(),
                rust: names.unique(sanitize(name, Case::Snake)),
                required: header.required,
                json,
                shape,
                doc: header.description.clone(),
            });
        }
        // A referenced response of one status may be shared: see
        // `passes::shared_responses`.
        let referenced = (response_at != *at && matches!(status, Status::Code(_)))
            .then(|| response_at.to_string());
        Some(Response {
            pointer: at.to_string(),
            status,
            variant,
            doc: response.description.clone(),
            body,
            media,
            event_names: None,
            json_type,
            headers,
            examples,
            referenced,
            shared: None,
        })
    }
}

/// A media type's examples by name: its `example` (named `example`), then
/// its `examples` written in place, in order.
fn media_examples(content: &openapiv3::MediaType) -> Vec<(String, serde_json::Value)> {
    let named = content.examples.iter().filter_map(|(name, e)| match e {
        ReferenceOr::Item(e) => Some((name.clone(), e.value.clone()?)),
        ReferenceOr::Reference { .. } => None,
    });
    content
        .example
        .clone()
        .map(|v| ("example".to_string(), v))
        .into_iter()
        .chain(named)
        .collect()
}

/// A media type's schema: as written and where, and what it resolves to
/// and where that stands.
struct Described<'a> {
    written: &'a ReferenceOr<openapiv3::Schema>,
    at: Pointer,
    target: Pointer,
    resolved: &'a openapiv3::Schema,
}

/// Whether a body in `media` is read as JSON: a JSON media type, or any.
pub(super) fn is_json(media: &str) -> bool {
    crate::media::is_json(media) || essence(media) == "*/*"
}

/// The variant name for a status: a code's reason phrase, a range's class.
fn status_variant(status: Status) -> String {
    let status = match status {
        Status::Code(code) => code,
        Status::Range(class) => {
            return match class {
                1 => "Informational",
                2 => "Success",
                3 => "Redirection",
                4 => "ClientError",
                _ => "ServerError",
            }
            .to_string()
        }
        Status::Default => return "Default".to_string(),
    };
    let name = match status {
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        203 => "NonAuthoritativeInformation",
        204 => "NoContent",
        206 => "PartialContent",
        301 => "MovedPermanently",
        302 => "Found",
        303 => "SeeOther",
        304 => "NotModified",
        307 => "TemporaryRedirect",
        308 => "PermanentRedirect",
        400 => "BadRequest",
        401 => "Unauthorized",
        402 => "PaymentRequired",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        406 => "NotAcceptable",
        408 => "RequestTimeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "LengthRequired",
        412 => "PreconditionFailed",
        413 => "PayloadTooLarge",
        414 => "UriTooLong",
        415 => "UnsupportedMediaType",
        416 => "RangeNotSatisfiable",
        417 => "ExpectationFailed",
        418 => "ImATeapot",
        422 => "UnprocessableEntity",
        423 => "Locked",
        424 => "FailedDependency",
        425 => "TooEarly",
        426 => "UpgradeRequired",
        428 => "PreconditionRequired",
        429 => "TooManyRequests",
        431 => "RequestHeaderFieldsTooLarge",
        451 => "UnavailableForLegalReasons",
        500 => "InternalServerError",
        501 => "NotImplemented",
        502 => "BadGateway",
        503 => "ServiceUnavailable",
        504 => "GatewayTimeout",
        _ => return format!("Status{status}"),
    };
    name.to_string()
}

/// The media types beside JSON a request body is also read in: a form and
/// XML, where the body offers them.
fn also_read<'m>(media_types: impl Iterator<Item = &'m String>) -> Vec<crate::ir::Also> {
    let mut also = Vec::new();
    for found in media_types.filter_map(|m| crate::ir::Also::of(&essence(m))) {
        if !also.contains(&found) {
            also.push(found);
        }
    }
    also
}

/// The stream a response's media type `media_type` (its object `content`)
/// is, if any: a sequential media type, or `multipart/mixed` where the
/// load stage marked it a stream of parts (3.2's `itemSchema`).
fn stream_of(media_type: &str, content: &openapiv3::MediaType) -> Option<Media> {
    let parts =
        content.extensions.get(crate::load::SEQUENTIAL) == Some(&serde_json::Value::Bool(true));
    match Media::stream_of(media_type) {
        Some(media) => Some(media),
        None if parts => Some(Media::Items(essence(media_type))),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_media_types() {
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/problem+json"));
        assert!(!is_json("text/plain"));
    }
}
