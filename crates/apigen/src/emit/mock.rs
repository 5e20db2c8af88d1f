//! The mock server (`mock.rs`, behind the `mock` feature): the document's
//! schemas and responses as data for `runtime::mock`, and a `MockService`
//! that implements every route trait by answering from them.
//!
//! The tables and the trait impls are written as text, already formatted
//! (see `text.rs`): they grow with the document, and printing them from
//! tokens would cost a large document's generation a fifth more time.

use super::text::{self, Pieces};
use crate::ir::{
    Api, Checks, Media, Number, Operation, Response, Shape, Status, TextFormat, Ty, TypeKind,
};
use std::collections::HashMap;
use std::fmt::Write as _;

pub const DOC: &str = "A mock server: every operation answered from the spec's examples, or \
     with values made from its schemas (`MockService`).";

pub fn imports(api: &Api) -> Vec<String> {
    // Models are named only by the error body's type.
    let modules = if api.error_type.as_ref().is_some_and(Shape::names_a_type) {
        "use super::{glue, metadata, models, operations, runtime, server};"
    } else {
        "use super::{glue, metadata, operations, runtime, server};"
    };
    // The names of `runtime::mock` the tables use.
    let shapes = || {
        api.types
            .values()
            .flat_map(|t| t.shapes())
            .chain(api.error_type.iter())
            .chain(api.common_headers.iter().map(|h| &h.shape))
            .chain(api.operations.iter().flat_map(|op| {
                op.responses
                    .iter()
                    .flat_map(|r| r.body.iter().chain(r.headers.iter().map(|h| &h.shape)))
            }))
    };
    let kinds = || api.types.values().map(|t| &t.kind);
    let mut names = Vec::new();
    if shapes().any(has_bounds) {
        names.push("Bounds");
    }
    if kinds().any(|k| matches!(k, TypeKind::Struct(s) if !s.fields.is_empty())) {
        names.push("Field");
    }
    names.push("Response");
    names.push("Schema");
    names.push("Spec");
    if !api.operations.is_empty() {
        names.push("Status");
    }
    names.push("Type");
    if kinds().any(|k| matches!(k, TypeKind::Union(_))) {
        names.push("Variant");
    }
    vec![
        modules.to_string(),
        "use actix_web::web;".to_string(),
        format!("use runtime::mock::{{{}}};", names.join(", ")),
    ]
}

/// Whether a shape's schema is written with a `Bounds`.
fn has_bounds(shape: &Shape) -> bool {
    match &shape.ty {
        Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 | Ty::String | Ty::Array(_) => true,
        Ty::Map(values) => has_bounds(values),
        _ => false,
    }
}

/// The module's items.
pub fn items(api: &Api) -> String {
    let index: HashMap<&str, usize> = api
        .types
        .keys()
        .enumerate()
        .map(|(i, name)| (name.as_str(), i))
        .collect();
    let schemas = Schemas { index: &index };
    let mut pieces = Pieces::default();

    let mut tables = format!(
        "/// Every named type's schema, in the order of `models`.\nstatic TYPES: [Type; {}] = [\n",
        api.types.len()
    );
    for (i, t) in api.types.values().enumerate() {
        let _ = writeln!(tables, "    // {i}: {}", t.name);
        let mut line = format!("Type::of({})", schemas.type_schema(&t.kind, 1));
        if let Some(example) = json_text(t.example.as_ref()) {
            let _ = write!(line, ".example({example})");
        }
        let _ = writeln!(tables, "    {line},");
    }
    tables.push_str("];\n\n");
    let error = match &api.error_type {
        Some(shape) => schemas.shape(shape),
        None => "Schema::Any".to_string(),
    };
    let mut common = String::new();
    for h in &api.common_headers {
        let _ = write!(
            common,
            "\n        ({:?}, {}, {}),",
            h.wire,
            h.required,
            schemas.shape(&h.shape)
        );
    }
    if !common.is_empty() {
        common.push_str("\n    ");
    }
    let _ = writeln!(
        tables,
        "/// The document, as `runtime::mock` reads it.\n\
         static SPEC: Spec = Spec {{\n    \
         types: &TYPES,\n    \
         error: {error},\n    \
         common_headers: &[{common}],\n    \
         schemes: metadata::SECURITY_SCHEMES,\n    \
         responses,\n\
         }};"
    );
    for op in &api.operations {
        let _ = write!(
            tables,
            "\n/// The responses of `{}`.\nstatic {}: [Response; {}] = [\n",
            op.id,
            op.const_name,
            op.responses.len()
        );
        for r in &op.responses {
            let _ = writeln!(tables, "    {},", schemas.response(r));
        }
        tables.push_str("];\n");
    }
    // Which responses an operation declares, for the mock's layer.
    tables.push_str("\n/// The responses of the operation `id` names.\n");
    if api.operations.is_empty() {
        tables.push_str("fn responses(_id: &str) -> &'static [Response] {\n    &[]\n}\n");
    } else {
        tables.push_str("fn responses(id: &str) -> &'static [Response] {\n    match id {\n");
        for op in &api.operations {
            let _ = writeln!(tables, "        {:?} => &{},", op.id, op.const_name);
        }
        tables.push_str("        _ => &[],\n    }\n}\n");
    }
    let paths = token_paths(api);
    let _ = write!(
        tables,
        "\n/// Where the spec's token URLs point on this mock (those it writes\n\
         /// relative), for its token endpoint.\n\
         const TOKEN_PATHS: &[&str] = &[{}];\n",
        paths
            .iter()
            .map(|p| format!("{p:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    pieces.text(&tables);
    pieces.text(&service(api));
    for (t, ops) in api.traits.iter().zip(api.operations_by_group()) {
        let mut text = format!("impl operations::{} for MockService {{\n", t.name);
        for (i, op) in ops.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&method(op));
        }
        text.push_str("}\n");
        pieces.text(&text);
    }
    pieces.finish()
}

/// `MockService`: its constructor, how it mounts, how it answers and
/// refuses, and the credentials layer. The same few items for every
/// document.
fn service(api: &Api) -> String {
    // Operations build their answers with `answer`; a document without
    // any has no use for it.
    let answer = if api.operations.is_empty() {
        ""
    } else {
        ANSWER
    };
    let error_type = match &api.error_type {
        Some(shape) => super::rust_type(shape, "models::"),
        None => "serde_json::Value".to_string(),
    };
    text::fill(SERVICE, &[("error_type", &error_type), ("answer", answer)])
}

/// The paths on the API's origin that the document's relative token URLs
/// (client credentials' and refresh's) name, as a client resolves them
/// against the server URL: in document order, once each.
fn token_paths(api: &Api) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let urls = api
        .security_schemes
        .iter()
        .filter_map(|s| s.tokens.as_ref())
        .flat_map(|t| [&t.client_credentials, &t.refresh])
        .flatten();
    for url in urls {
        if let Some(path) = resolve_path(&api.base_path, url) {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

/// `url` resolved against a server whose path is `base` (RFC 3986
/// section 5.2, as the client's URL join does it, the base without its
/// trailing slash): its path, or `None` for an absolute URL, which the
/// mock does not serve.
fn resolve_path(base: &str, url: &str) -> Option<String> {
    if url.contains("://") || url.starts_with("//") {
        return None;
    }
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let joined = if url.starts_with('/') {
        url.to_string()
    } else {
        let base = base.trim_end_matches('/');
        let directory = &base[..base.rfind('/').map_or(0, |i| i + 1)];
        let directory = if directory.is_empty() { "/" } else { directory };
        format!("{directory}{url}")
    };
    let mut segments: Vec<&str> = Vec::new();
    for segment in joined.split('/').skip(1) {
        match segment {
            "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    Some(format!("/{}", segments.join("/")))
}

const SERVICE: &str = include_str!("templates/mock_service.rs.in");
const ANSWER: &str = include_str!("templates/mock_answer.rs.in");

/// A route trait method answering from the mock, indented for an impl.
fn method(op: &Operation) -> String {
    let resp = format!("operations::{}Response", op.type_name);
    let build = match op.responses.as_slice() {
        [only] => {
            let uses = only.body.is_some() || only.named_fields();
            let mock = if uses { "mock" } else { "_" };
            format!("|{mock}| Ok({})", construct(&resp, only))
        }
        responses => {
            let mut arms = String::new();
            for (i, r) in responses.iter().enumerate() {
                let pattern = if i + 1 == responses.len() {
                    "_".to_string()
                } else {
                    i.to_string()
                };
                let _ = writeln!(
                    arms,
                    "                {pattern} => {},",
                    construct(&resp, r)
                );
            }
            format!("|mock| {{\n            Ok(match mock.chosen() {{\n{arms}            }})\n        }}")
        }
    };
    format!(
        "    async fn {name}(\n        &self,\n        _request: operations::{ty}Request,\n        \
         context: runtime::RequestContext,\n    ) -> Result<{resp}, operations::ErrorResponse> {{\n        \
         self.answer(&context, {id:?}, &{table}, {build})\n    }}\n",
        name = op.fn_name,
        ty = op.type_name,
        id = op.id,
        table = op.const_name,
    )
}

/// The variant of `resp` for response `r`, its values made by `mock`.
fn construct(resp: &str, r: &Response) -> String {
    let variant = &r.variant;
    let body = r.body.as_ref().map(|_| match r.media {
        Media::Events => "mock.events()?",
        Media::Items(_) => "mock.items()?",
        Media::Raw(_) => "mock.raw()?",
        _ => "mock.body()?",
    });
    let mut fields: Vec<String> = Vec::new();
    if r.shared.is_none() && r.status.carries_status() {
        fields.push("status: mock.status()".into());
    }
    if let Some(body) = body {
        fields.push(format!("body: {body}"));
    }
    for (i, h) in r.headers.iter().enumerate() {
        fields.push(format!("{}: mock.header({i})?", h.rust));
    }
    if let Some(shared) = &r.shared {
        return format!(
            "{resp}::{variant}(operations::{shared} {{ {} }})",
            fields.join(", ")
        );
    }
    if r.named_fields() {
        format!("{resp}::{variant} {{ {} }}", fields.join(", "))
    } else if let Some(body) = body {
        format!("{resp}::{variant}({body})")
    } else {
        format!("{resp}::{variant}")
    }
}

/// Schemas as `runtime::mock::Schema` expressions, in text.
struct Schemas<'a> {
    index: &'a HashMap<&'a str, usize>,
}

impl Schemas<'_> {
    /// A named type's schema; an object's or a union's members each on a
    /// line of their own, at `depth` levels of indentation.
    fn type_schema(&self, kind: &TypeKind, depth: usize) -> String {
        let indent = "    ".repeat(depth + 1);
        let close = "    ".repeat(depth);
        match kind {
            TypeKind::Struct(s) if s.fields.is_empty() => "Schema::Object(&[])".into(),
            TypeKind::Struct(s) => {
                let mut out = String::from("Schema::Object(&[\n");
                for f in &s.fields {
                    let make = if f.required { "required" } else { "optional" };
                    let _ = write!(
                        out,
                        "{indent}Field::{make}({:?}, {})",
                        f.wire,
                        self.shape(&f.shape)
                    );
                    if f.write_only {
                        out.push_str(".write_only()");
                    }
                    if f.flatten {
                        out.push_str(".flatten()");
                    }
                    if let Some(example) = json_text(f.example.as_ref().or(f.default.as_ref())) {
                        let _ = write!(out, ".example({example})");
                    }
                    out.push_str(",\n");
                }
                let _ = write!(out, "{close}])");
                out
            }
            TypeKind::Enum(variants) => {
                let wire: Vec<String> = variants.iter().map(|v| format!("{:?}", v.wire)).collect();
                format!("Schema::Enum(&[{}])", wire.join(", "))
            }
            TypeKind::Union(u) => {
                let tag = match &u.tag {
                    Some(tag) => format!("Some({tag:?})"),
                    None => "None".into(),
                };
                let mut out = format!("Schema::Union({tag}, &[\n");
                for v in &u.variants {
                    let tags: Vec<String> = v.tag_values.iter().map(|t| format!("{t:?}")).collect();
                    let _ = writeln!(
                        out,
                        "{indent}Variant::new(&[{}], {}),",
                        tags.join(", "),
                        self.shape(&v.shape)
                    );
                }
                let _ = write!(out, "{close}])");
                out
            }
            TypeKind::Alias(shape) | TypeKind::Newtype { shape, .. } => self.shape(shape),
        }
    }

    fn shape(&self, shape: &Shape) -> String {
        let bounds = bounds(&shape.checks);
        let schema = match &shape.ty {
            Ty::Bool => "Schema::Bool".to_string(),
            Ty::I32 | Ty::I64 => format!("Schema::Integer({bounds})"),
            Ty::F32 | Ty::F64 => format!("Schema::Number({bounds})"),
            Ty::String => format!("Schema::String({bounds})"),
            Ty::DateTime => "Schema::DateTime".into(),
            Ty::Date => "Schema::Date".into(),
            Ty::Uuid => "Schema::Uuid".into(),
            Ty::Base64 => "Schema::Base64".into(),
            Ty::Json | Ty::Bytes => "Schema::Any".into(),
            Ty::Array(items) => format!("Schema::Array(&{}, {bounds})", self.shape(items)),
            Ty::Map(values) => format!("Schema::Map(&{})", self.shape(values)),
            Ty::Named(name) => match self.index.get(name.as_str()) {
                Some(i) => format!("Schema::Named({i})"),
                None => "Schema::Any".into(),
            },
        };
        if shape.nullable {
            format!("Schema::Nullable(&{schema})")
        } else {
            schema
        }
    }

    fn response(&self, r: &Response) -> String {
        let status = match r.status {
            Status::Code(code) => format!("Status::Code({code})"),
            Status::Range(class) => format!("Status::Range({class})"),
            Status::Default => "Status::Default".into(),
        };
        let mut builders = Vec::new();
        match (&r.body, &r.media) {
            (None, _) => {}
            (Some(_), Media::Raw(_)) => builders.push(".body(Schema::Any)".to_string()),
            (Some(shape), _) => builders.push(format!(".body({})", self.shape(shape))),
        }
        if let (Some(media), Some(_)) = (&r.json_type, &r.body) {
            builders.push(format!(".json_type({media:?})"));
        }
        match &r.media {
            Media::Events => builders.push(".stream(\"text/event-stream\")".to_string()),
            Media::Items(media) => builders.push(format!(".stream({media:?})")),
            _ => {}
        }
        if let Some(names) = &r.event_names {
            builders.push(format!(".event_names(&{names:?})"));
        }
        let examples: Vec<String> = r
            .examples
            .iter()
            .filter_map(|(name, value)| Some(format!("({name:?}, {})", json_text(Some(value))?)))
            .collect();
        if !examples.is_empty() {
            builders.push(format!(".examples(&[{}])", examples.join(", ")));
        }
        if !r.headers.is_empty() {
            let headers: Vec<String> = r
                .headers
                .iter()
                .map(|h| format!("({:?}, {}, {})", h.wire, h.required, self.shape(&h.shape)))
                .collect();
            builders.push(format!(".headers(&[{}])", headers.join(", ")));
        }
        // A builder a line when there are several.
        let separator = if builders.len() > 1 { "\n        " } else { "" };
        let mut out = format!("Response::new({status})");
        for builder in builders {
            out.push_str(separator);
            out.push_str(&builder);
        }
        out
    }
}

/// The checks as a `Bounds` expression: `Bounds::NONE` and a builder call
/// per check.
fn bounds(checks: &Checks) -> String {
    let mut out = String::from("Bounds::NONE");
    if checks.is_empty() {
        return out;
    }
    let mut call = |name: &str, value: String| {
        let _ = write!(out, ".{name}({value})");
    };
    if let Some(n) = checks.min_length {
        call("min_length", n.to_string());
    }
    if let Some(n) = checks.max_length {
        call("max_length", n.to_string());
    }
    if let Some(pattern) = &checks.pattern {
        call("pattern", format!("{pattern:?}"));
    }
    let float = |n: Number| match n {
        Number::Int(i) => i as f64,
        Number::Float(f) => f,
    };
    if let Some(n) = checks.minimum.map(float).filter(|n| n.is_finite()) {
        call("minimum", format!("{n:?}, {}", checks.exclusive_minimum));
    }
    if let Some(n) = checks.maximum.map(float).filter(|n| n.is_finite()) {
        call("maximum", format!("{n:?}, {}", checks.exclusive_maximum));
    }
    if let Some(n) = checks.min_items {
        call("min_items", n.to_string());
    }
    if let Some(n) = checks.max_items {
        call("max_items", n.to_string());
    }
    if let Some(format) = checks.format {
        let format = match format {
            TextFormat::Email => "email",
            TextFormat::Uri => "uri",
            TextFormat::Duration => "duration",
        };
        call("format", format!("{format:?}"));
    }
    if !checks.one_of.is_empty() {
        let values: Vec<String> = checks.one_of.iter().map(ToString::to_string).collect();
        call("one_of", format!("&[{}]", values.join(", ")));
    }
    out
}

/// A JSON value as a Rust string literal of its text.
fn json_text(value: Option<&serde_json::Value>) -> Option<String> {
    let text = serde_json::to_string(value?).ok()?;
    Some(format!("{text:?}"))
}

#[cfg(test)]
mod tests {
    use super::resolve_path;

    #[test]
    fn a_token_url_resolves_against_the_server_as_a_client_resolves_it() {
        assert_eq!(
            resolve_path("/v1", "/oauth/token").as_deref(),
            Some("/oauth/token")
        );
        // Relative to the base without its trailing slash: beside `v1`.
        assert_eq!(
            resolve_path("/v1", "oauth/token").as_deref(),
            Some("/oauth/token")
        );
        assert_eq!(
            resolve_path("/api/v1/", "token").as_deref(),
            Some("/api/token")
        );
        assert_eq!(resolve_path("", "token").as_deref(), Some("/token"));
        assert_eq!(
            resolve_path("/a/b", "../token?x=1").as_deref(),
            Some("/token")
        );
        assert_eq!(resolve_path("/v1", "https://login.example.com/token"), None);
        assert_eq!(resolve_path("/v1", "//login.example.com/token"), None);
    }
}
