//! Operations: parameters, bodies, responses and lifecycle annotations.

use super::pointer::{self, Node};
use super::{resolve, Lowerer};
use crate::diag::Pointer;
use crate::ir::*;
use crate::names::{sanitize, Case, Namer, GLUE_FUNCTIONS};
use openapiv3::{Parameter, ParameterSchemaOrContent, ReferenceOr, StatusCode};
use std::collections::BTreeMap;

/// The stability extensions the generator reads, each with the values it
/// knows: GitBook's `x-stability` and oasdiff's `x-stability-level`.
pub const STABILITY_EXTENSIONS: &[(&str, &[(&str, Stability)])] = &[
    (
        "x-stability",
        &[
            ("experimental", Stability::Experimental),
            ("alpha", Stability::Alpha),
            ("beta", Stability::Beta),
            ("stable", Stability::Stable),
        ],
    ),
    (
        "x-stability-level",
        &[
            ("draft", Stability::Draft),
            ("alpha", Stability::Alpha),
            ("beta", Stability::Beta),
            ("stable", Stability::Stable),
        ],
    ),
];

impl<'a> Lowerer<'a> {
    /// OpenAPI 3.1 webhooks: for each operation of each, its payload's shape
    /// (a model, as a request body's would be) and what metadata lists.
    pub(super) fn webhooks(&mut self, hooks: &'a [(String, openapiv3::PathItem)]) -> Vec<Webhook> {
        let mut out = Vec::new();
        for (name, item) in hooks {
            let at = Pointer::root().join("webhooks").join(name);
            for (method, op) in item.iter() {
                let oat = at.join(method);
                let id = op.operation_id.clone().unwrap_or_else(|| name.clone());
                let type_name = format!("{}Webhook", sanitize(&id, Case::Pascal));
                let mark = self.errors.len();
                let payload = match &op.request_body {
                    Some(body) => self
                        .request_body(body, &oat.join("requestBody"), &type_name)
                        .map(|b| b.shape),
                    None => None,
                };
                if self.skip_since(mark, &format!("webhook `{name}`")) {
                    continue;
                }
                out.push(Webhook {
                    name: name.clone(),
                    method: method.to_ascii_uppercase(),
                    id,
                    pointer: oat.to_string(),
                    summary: op.summary.clone(),
                    deprecated: op.deprecated,
                    payload,
                });
            }
        }
        out
    }

    pub(super) fn operations(&mut self) -> Vec<Operation> {
        let mut ops = Vec::new();
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let mut successors: Vec<(Pointer, String)> = Vec::new();
        let mut names = OperationNames::default();
        for (path, item) in self.doc.paths.iter() {
            let pat = Pointer::root().join("paths").join(path);
            let item = match item {
                ReferenceOr::Item(item) => item,
                // References that name a path item were inlined when the
                // document was read: this one names nothing.
                ReferenceOr::Reference { reference } => {
                    self.error(&pat, format!("unresolved reference `{reference}`"));
                    continue;
                }
            };
            for (method, op) in item.iter() {
                let oat = pat.join(method);
                let mut id = op
                    .operation_id
                    .clone()
                    .unwrap_or_else(|| derived_operation_id(method, path));
                if let Some(first) = seen.get(&id) {
                    // Strictly invalid, and common: the second is served
                    // under a name of its own.
                    let mut n = 2;
                    while seen.contains_key(&format!("{id}{n}")) {
                        n += 1;
                    }
                    let renamed = format!("{id}{n}");
                    self.assume(
                        &oat.join("operationId"),
                        format!("duplicate operationId `{id}`: first used at {first}"),
                        &format!("this operation is generated as `{renamed}`"),
                    );
                    id = renamed;
                }
                seen.insert(id.clone(), oat.to_string());
                if let Some(successor) = op.extensions.get("x-successor").and_then(|v| v.as_str()) {
                    successors.push((oat.join("x-successor"), successor.to_string()));
                }
                if let Some(op) =
                    self.operation(&id, method, path, &item.parameters, op, &oat, &mut names)
                {
                    ops.push(op);
                }
            }
        }
        for (at, successor) in successors {
            if !seen.contains_key(&successor) {
                let mark = self.errors.len();
                self.error(
                    &at,
                    format!("`x-successor` names `{successor}`, which is not an operationId"),
                );
                self.skip_since(mark, "a lifecycle annotation");
            }
        }
        ops
    }

    #[allow(clippy::too_many_arguments)] // reason: one call site, each argument a different part of the document
    fn operation(
        &mut self,
        id: &str,
        method: &str,
        path: &str,
        path_params: &'a [ReferenceOr<Parameter>],
        op: &'a openapiv3::Operation,
        at: &Pointer,
        names: &mut OperationNames,
    ) -> Option<Operation> {
        let errors_before = self.errors.len();
        let type_name = names.types.unique(sanitize(id, Case::Pascal));
        let fn_name = names.fns.unique(sanitize(id, Case::Snake));
        let const_name = names.consts.unique(sanitize(id, Case::ScreamingSnake));
        let tag = op.tags.first().cloned().unwrap_or_default();

        let security = match &op.security {
            Some(own) => self.requirements(own, &at.join("security")),
            None => self.default_security.clone(),
        };

        // Lifecycle annotations. One that cannot be read fails a strict run;
        // a lenient one drops the annotation, not the operation.
        let annotations = self.errors.len();
        let ext = |key: &'static str| op.extensions.get(key).map(|v| (key, v));
        let stability = self.stability(id, &op.extensions, at);
        let sunset =
            self.date_extension(ext("x-deprecated-sunset").or_else(|| ext("x-sunset")), at);
        let deprecated_since = self.date_extension(ext("x-deprecated-since"), at);
        let successor = match ext("x-successor") {
            Some((_, serde_json::Value::String(s))) => Some(s.clone()),
            Some((key, _)) => {
                self.error(&at.join(key), "`x-successor` must be an operationId");
                None
            }
            None => None,
        };
        if (sunset.is_some() || successor.is_some()) && !op.deprecated {
            self.error(
                at,
                format!("operation `{id}` has a sunset or successor but is not `deprecated: true`"),
            );
        }
        if self.lenient {
            self.skip_since(annotations, &format!("a lifecycle annotation of `{id}`"));
        }

        // Parameters: path-level first, overridden by operation-level (name, in).
        let mut params: Vec<Param> = Vec::new();
        let mut rust_names = Namer::new();
        rust_names.reserve("body");
        let path_at = Pointer::root().join("paths").join(path);
        let path_level: Vec<_> = path_params
            .iter()
            .enumerate()
            .map(|(i, p)| (path_at.join("parameters").join(i), p))
            .collect();
        let op_level: Vec<_> = op
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (at.join("parameters").join(i), p))
            .collect();
        let mut resolved: Vec<(Pointer, &Parameter)> = Vec::new();
        for (pat, p) in path_level.into_iter().chain(op_level) {
            let Some(param) = self.resolve_parameter(p, &pat) else {
                continue;
            };
            let data = param.parameter_data_ref();
            if let Some(slot) = resolved.iter_mut().find(|(_, q)| {
                let d = q.parameter_data_ref();
                d.name == data.name && std::mem::discriminant(*q) == std::mem::discriminant(param)
            }) {
                *slot = (pat, param);
            } else {
                resolved.push((pat, param));
            }
        }
        for (pat, param) in resolved {
            if let Some(p) = self.param(param, &pat, &type_name, &mut rust_names) {
                params.push(p);
            }
        }
        for segment in path_template_names(path) {
            if params
                .iter()
                .any(|p| p.location == ParamLocation::Path && p.wire == segment)
            {
                continue;
            }
            // The template names it, so it exists: take it as a string.
            self.assume(
                at,
                format!("path parameter `{segment}` is not declared"),
                "taken from the path as a string",
            );
            if self.lenient {
                params.push(Param {
                    wire: segment.clone(),
                    pointer: at.to_string(),
                    rust: rust_names.unique(sanitize(&segment, Case::Snake)),
                    location: ParamLocation::Path,
                    required: true,
                    shape: Shape::new(Ty::String),
                    doc: Some(
                        "Not declared by the document; taken from the path as a string.".into(),
                    ),
                    deprecated: false,
                    sunset: None,
                    explode: false,
                    style: ParamStyle::Simple,
                    scalar_named: false,
                    union: false,
                    default: None,
                });
            }
        }

        let body = match &op.request_body {
            None => None,
            Some(body) => self.request_body(body, &at.join("requestBody"), &type_name),
        };

        let mut responses = Vec::new();
        let mut variants = Namer::new();
        let rat = at.join("responses");
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
            let variant = variants.unique(status_variant(status));
            if let Some(r) = self.response(status, variant, response, &rat.join(status), &type_name)
            {
                responses.push(r);
            }
        }
        if let Some(default) = &op.responses.default {
            let variant = variants.unique(status_variant(Status::Default));
            if let Some(r) = self.response(
                Status::Default,
                variant,
                default,
                &rat.join("default"),
                &type_name,
            ) {
                responses.push(r);
            }
        }
        if responses.is_empty() && self.errors.len() == errors_before {
            // Nothing is promised: any status, no body read.
            self.note(
                &rat,
                format!("operation `{id}` declares no responses: read as answering any status, with no body"),
            );
            responses.push(Response {
                pointer: rat.join("default").to_string(),
                status: Status::Default,
                variant: variants.unique(status_variant(Status::Default)),
                doc: "Any answer: the spec declares none.".into(),
                body: None,
                media: Media::Json,
                headers: Vec::new(),
            });
        }

        if self.skip_since(errors_before, &format!("operation `{id}`")) {
            return None;
        }
        Some(Operation {
            id: id.to_string(),
            fn_name,
            type_name,
            method: method.to_ascii_uppercase(),
            path: path.to_string(),
            pointer: at.to_string(),
            const_name,
            tag,
            summary: op.summary.clone(),
            description: op.description.clone(),
            deprecated: op.deprecated,
            deprecated_since,
            sunset,
            successor,
            stability,
            security,
            params,
            body,
            responses,
            hide_try_it: op
                .extensions
                .get("x-hideTryItPanel")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        })
    }

    pub(super) fn param(
        &mut self,
        param: &Parameter,
        at: &Pointer,
        op_type: &str,
        names: &mut Namer,
    ) -> Option<Param> {
        let data = param.parameter_data_ref();
        use openapiv3::{PathStyle, QueryStyle};
        let (location, style) = match param {
            Parameter::Path { style, .. } => (
                ParamLocation::Path,
                match style {
                    PathStyle::Simple => ParamStyle::Simple,
                    PathStyle::Label => ParamStyle::Label,
                    PathStyle::Matrix => ParamStyle::Matrix,
                },
            ),
            Parameter::Query { style, .. } => (
                ParamLocation::Query,
                match style {
                    QueryStyle::Form => ParamStyle::Form,
                    QueryStyle::SpaceDelimited => ParamStyle::SpaceDelimited,
                    QueryStyle::PipeDelimited => ParamStyle::PipeDelimited,
                    QueryStyle::DeepObject => ParamStyle::DeepObject,
                },
            ),
            Parameter::Header { .. } => (ParamLocation::Header, ParamStyle::Simple),
            Parameter::Cookie { .. } => (ParamLocation::Cookie, ParamStyle::Form),
        };
        // OpenAPI's default: `form` explodes, every other style does not.
        let explode = data.explode.unwrap_or(style == ParamStyle::Form);
        // A parameter described by `content` is its media type's text: JSON,
        // or (any other media type) the text itself.
        let (schema, schema_at, content) = match &data.format {
            ParameterSchemaOrContent::Schema(s) => (Some(s), at.join("schema"), None),
            ParameterSchemaOrContent::Content(content) => {
                let Some((media, m)) = content.iter().next() else {
                    self.error(
                        &at.join("content"),
                        format!("parameter `{}`: `content` names no media type", data.name),
                    );
                    return None;
                };
                let schema_at = at.join("content").join(media).join("schema");
                (m.schema.as_ref(), schema_at, Some(is_json(media)))
            }
        };
        let hint = format!("{op_type}{}", sanitize(&data.name, Case::Pascal));
        let shape = match (schema, content) {
            (_, Some(false)) => Shape::new(Ty::String),
            (Some(schema), _) => self.shape_of(schema, &schema_at, &hint)?,
            (None, _) => Shape::new(Ty::Json),
        };
        let scalar_ok = |s: &Shape, types: &BTreeMap<String, TypeDef>| match &s.ty {
            Ty::Named(n) => matches!(resolve(types, n).map(|t| &t.kind), Some(TypeKind::Enum(_))),
            Ty::Json | Ty::Bytes | Ty::Map(_) | Ty::Array(_) => false,
            _ => true,
        };
        // An object a style can write: its properties scalars or arrays of
        // them.
        let object_ok = |s: &Shape, types: &BTreeMap<String, TypeDef>| match &s.ty {
            Ty::Named(n) => match resolve(types, n).map(|t| &t.kind) {
                Some(TypeKind::Struct(st)) => st.fields.iter().all(|f| match &f.shape.ty {
                    Ty::Array(items) => scalar_ok(items, types),
                    _ => scalar_ok(&f.shape, types),
                }),
                _ => false,
            },
            Ty::Map(values) => scalar_ok(values, types),
            _ => false,
        };
        let union = matches!(&shape.ty, Ty::Named(n) if matches!(resolve(&self.types, n).map(|t| &t.kind), Some(TypeKind::Union(_))));
        // A deepObject parameter is read as a nested value: any type will do;
        // a union in a form query parameter is read from its value or values.
        let ok = style == ParamStyle::DeepObject
            || (union && location == ParamLocation::Query && style == ParamStyle::Form)
            || match &shape.ty {
                Ty::Array(items) => scalar_ok(items, &self.types),
                _ => scalar_ok(&shape, &self.types) || object_ok(&shape, &self.types),
            };
        // JSON text where the document says so, or where the style cannot
        // carry the shape: never a skipped operation.
        let (style, note) = match content {
            Some(true) => (
                ParamStyle::Json,
                Some("Sent as JSON text, as its `content` says."),
            ),
            Some(false) => (style, None),
            None if ok => (style, None),
            None => (
                ParamStyle::Json,
                Some("Sent as JSON text: its style cannot carry a value of this shape."),
            ),
        };
        let scalar_named = style != ParamStyle::Json && scalar_ok(&shape, &self.types);
        let default = match schema {
            Some(ReferenceOr::Item(s)) => s.schema_data.default.clone(),
            _ => None,
        };
        let doc = match (data.description.clone(), note) {
            (Some(d), Some(note)) => Some(format!("{d}\n\n{note}")),
            (d, note) => d.or(note.map(str::to_string)),
        };
        let ext = |key: &'static str| data.extensions.get(key).map(|v| (key, v));
        let sunset =
            self.date_extension(ext("x-deprecated-sunset").or_else(|| ext("x-sunset")), at);
        Some(Param {
            wire: data.name.clone(),
            pointer: at.to_string(),
            rust: names.unique(sanitize(&data.name, Case::Snake)),
            location,
            required: data.required || location == ParamLocation::Path,
            shape,
            doc,
            deprecated: data.deprecated.unwrap_or(false),
            sunset,
            explode,
            style,
            scalar_named,
            union,
            default,
        })
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
            media,
            example: content.example.clone().or_else(|| {
                content.examples.values().find_map(|e| match e {
                    ReferenceOr::Item(e) => e.value.clone(),
                    ReferenceOr::Reference { .. } => None,
                })
            }),
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
        let essence = |m: &str| {
            m.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        };
        if let Some((m, c)) = content.iter().find(|(m, _)| is_json(m)) {
            return Some((m, c, Media::Json));
        }
        if let Some((m, c)) = content
            .iter()
            .find(|(m, _)| essence(m) == "application/x-www-form-urlencoded")
        {
            return Some((m, c, Media::Form));
        }
        if let Some((m, c)) = content
            .iter()
            .find(|(m, _)| essence(m) == "multipart/form-data")
        {
            return Some((m, c, Media::Multipart));
        }
        let raw: Vec<String> = content.keys().map(|m| essence(m)).collect();
        match content.iter().next() {
            Some((m, c)) => Some((m, c, Media::Raw(raw))),
            None => {
                self.error(at, "a body with no media type");
                None
            }
        }
    }

    pub(super) fn response(
        &mut self,
        status: Status,
        variant: String,
        response: &'a ReferenceOr<openapiv3::Response>,
        at: &Pointer,
        op_type: &str,
    ) -> Option<Response> {
        let (response, response_at) = self.resolve(response, Node::response, at)?;
        let (body, media) = if response.content.is_empty() {
            (None, Media::Json)
        } else {
            let (media_type, content, media) =
                self.body_content(&response.content, &response_at.join("content"))?;
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
            // A response sends one media type: the first listed.
            let media = match media {
                Media::Raw(all) => Media::Raw(all.into_iter().take(1).collect()),
                other => other,
            };
            (Some(shape), media)
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
        Some(Response {
            pointer: at.to_string(),
            status,
            variant,
            doc: response.description.clone(),
            body,
            media,
            headers,
        })
    }

    /// The operation's stability, from whichever stability extension it
    /// carries; both must agree, and an unknown value is an error.
    pub(super) fn stability(
        &mut self,
        id: &str,
        extensions: &indexmap::IndexMap<String, serde_json::Value>,
        at: &Pointer,
    ) -> Stability {
        let mut found: Option<(&str, Stability)> = None;
        for (key, known) in STABILITY_EXTENSIONS {
            let Some(value) = extensions.get(*key) else {
                continue;
            };
            let level = value
                .as_str()
                .and_then(|v| known.iter().find(|(name, _)| *name == v))
                .map(|(_, level)| *level);
            let Some(level) = level else {
                let names: Vec<&str> = known.iter().map(|(n, _)| *n).collect();
                self.error(
                    &at.join(key),
                    format!(
                        "operation `{id}` has unknown `{key}` value {value}: expected one of {}",
                        names.join(", ")
                    ),
                );
                continue;
            };
            match found {
                Some((first, other)) if other != level => self.error(
                    &at.join(key),
                    format!(
                        "operation `{id}` is `{}` by `{first}` but `{}` by `{key}`",
                        other.as_str(),
                        level.as_str()
                    ),
                ),
                _ => found = Some((key, level)),
            }
        }
        found.map_or(Stability::Stable, |(_, level)| level)
    }

    /// `components.securitySchemes`, in document order.
    pub(super) fn security_schemes(&mut self) -> Vec<SecurityScheme> {
        use openapiv3::{APIKeyLocation, SecurityScheme as S};
        let mut out: Vec<SecurityScheme> = self
            .mutual_tls
            .iter()
            .map(|name| SecurityScheme {
                name: name.clone(),
                kind: SchemeKind::MutualTls,
                doc: Some("Enforced by the transport: the client presents a certificate.".into()),
            })
            .collect();
        let declared = self.doc.components.iter().flat_map(|c| &c.security_schemes);
        for (name, scheme) in declared {
            let at = Pointer::root()
                .join("components")
                .join("securitySchemes")
                .join(name);
            let Some((scheme, _)) = self.resolve(scheme, Node::security_scheme, &at) else {
                continue;
            };
            let (kind, doc) = match scheme {
                S::HTTP {
                    scheme,
                    description,
                    ..
                } => (SchemeKind::Http(scheme.to_ascii_lowercase()), description),
                S::APIKey {
                    location,
                    name,
                    description,
                    ..
                } => {
                    let location = match location {
                        APIKeyLocation::Header => ParamLocation::Header,
                        APIKeyLocation::Query => ParamLocation::Query,
                        APIKeyLocation::Cookie => ParamLocation::Cookie,
                    };
                    let name = name.clone();
                    (SchemeKind::ApiKey { location, name }, description)
                }
                S::OAuth2 { description, .. } => (SchemeKind::OAuth2, description),
                S::OpenIDConnect { description, .. } => (SchemeKind::OpenIdConnect, description),
            };
            out.push(SecurityScheme {
                name: name.clone(),
                kind,
                doc: doc.clone(),
            });
        }
        out
    }

    /// Security requirements as the document writes them at `at`; each
    /// scheme named must be declared.
    pub(super) fn requirements(
        &mut self,
        requirements: &[openapiv3::SecurityRequirement],
        at: &Pointer,
    ) -> Vec<SecurityRequirement> {
        let declared = self.doc.components.as_ref().map(|c| &c.security_schemes);
        let mut out = Vec::new();
        'requirements: for (i, requirement) in requirements.iter().enumerate() {
            let mut schemes = Vec::new();
            for (scheme, scopes) in requirement {
                let known = declared.is_some_and(|d| d.contains_key(scheme))
                    || self.mutual_tls.contains(scheme);
                if !known {
                    // Nothing says how to satisfy it: this way in is left
                    // out, the others stay.
                    self.assume(
                        &at.join(i).join(scheme),
                        format!(
                            "security scheme `{scheme}` is not declared in \
                             `components.securitySchemes`"
                        ),
                        "this requirement is left out",
                    );
                    continue 'requirements;
                }
                schemes.push((scheme.clone(), scopes.clone()));
            }
            out.push(schemes);
        }
        out
    }
}

/// The names handed out to operations, each unique in its own namespace.
struct OperationNames {
    /// Request and response type prefixes.
    types: Namer,
    /// Trait methods and handlers.
    fns: Namer,
    /// Metadata constants: `getPet` and `get_pet` must not both be `GET_PET`.
    consts: Namer,
}

impl Default for OperationNames {
    fn default() -> Self {
        OperationNames {
            types: Namer::reserving(&["ErrorResponse"]),
            fns: Namer::reserving(GLUE_FUNCTIONS),
            consts: Namer::new(),
        }
    }
}

pub(super) fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim();
    essence == "application/json" || essence.ends_with("+json") || essence == "*/*"
}

pub(super) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=12).contains(&s[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&s[8..10].parse::<u32>().unwrap_or(0))
}

/// `get /pets/{petId}/photos` -> `getPetsPetIdPhotos`: stable names for
/// documents without operationIds.
pub(super) fn derived_operation_id(method: &str, path: &str) -> String {
    let mut id = method.to_string();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let segment = segment.trim_start_matches('{').trim_end_matches('}');
        id.push_str(&sanitize(segment, Case::Pascal));
    }
    id
}

pub(super) fn path_template_names(path: &str) -> Vec<String> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name.to_string()))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_are_stable_and_readable() {
        assert_eq!(
            derived_operation_id("get", "/pets/{petId}/photos"),
            "getPetsPetIdPhotos"
        );
        assert_eq!(derived_operation_id("post", "/"), "post");
    }

    #[test]
    fn dates_must_be_calendar_like() {
        assert!(is_date("2030-12-05"));
        assert!(!is_date("2030-13-05"));
        assert!(!is_date("05.12.2030"));
    }

    #[test]
    fn json_media_types() {
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/problem+json"));
        assert!(!is_json("text/plain"));
    }

    #[test]
    fn path_templates() {
        assert_eq!(path_template_names("/a/{x}/b/{y}"), ["x", "y"]);
    }
}
