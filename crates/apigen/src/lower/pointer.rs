//! What a local `$ref` points at, for any JSON pointer into the document:
//! a component (`#/components/schemas/Pet`), or anything inside one or
//! inside a path (`#/components/schemas/Tag/allOf/0`,
//! `#/paths/~1items/get/responses/200/content/application~1json/schema`).
//!
//! The walk goes through the parsed document, so that the lowering gets the
//! same typed values it gets at the place they stand. A reference met on
//! the way is followed (a pointer through `allOf/1` where that part is a
//! `$ref` goes on in its target), so chains of references resolve too.

use crate::diag::Pointer;
use crate::schema_view::flatten;
use openapiv3::{
    AdditionalProperties, Components, Header, MediaType, OpenAPI, Operation, Parameter,
    ParameterSchemaOrContent, PathItem, ReferenceOr, RequestBody, Response, Schema, SecurityScheme,
    StatusCode,
};

/// References followed at most on the way to one value: deeper is a loop.
const MAX_HOPS: usize = 64;

/// What a pointer walks: the document's model, and the operations that
/// stand where the model has no field (`query`, `additionalOperations`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Tree<'a> {
    pub(super) doc: &'a OpenAPI,
    pub(super) others: &'a [crate::load::OtherOperation],
}

/// A value the lowering can use, where a pointer ends.
#[derive(Debug, Clone, Copy)]
pub(super) enum Node<'a> {
    Schema(&'a Schema),
    Parameter(&'a Parameter),
    Response(&'a Response),
    RequestBody(&'a RequestBody),
    Header(&'a Header),
    SecurityScheme(&'a SecurityScheme),
    /// Something else: a path item, an operation, a map of them.
    Other,
}

impl<'a> Node<'a> {
    pub(super) fn parameter(self) -> Option<&'a Parameter> {
        match self {
            Node::Parameter(p) => Some(p),
            _ => None,
        }
    }

    pub(super) fn response(self) -> Option<&'a Response> {
        match self {
            Node::Response(r) => Some(r),
            _ => None,
        }
    }

    pub(super) fn request_body(self) -> Option<&'a RequestBody> {
        match self {
            Node::RequestBody(b) => Some(b),
            _ => None,
        }
    }

    pub(super) fn header(self) -> Option<&'a Header> {
        match self {
            Node::Header(h) => Some(h),
            _ => None,
        }
    }

    pub(super) fn security_scheme(self) -> Option<&'a SecurityScheme> {
        match self {
            Node::SecurityScheme(s) => Some(s),
            _ => None,
        }
    }
}

/// Where the walk stands.
#[derive(Clone, Copy)]
enum At<'a> {
    Doc,
    Components(&'a Components),
    Paths,
    /// A path item, and the path it stands under.
    PathItem(&'a str, &'a PathItem),
    /// A path item's `additionalOperations`, under the path.
    Additional(&'a str),
    Operation(&'a Operation),
    Parameters(&'a [ReferenceOr<Parameter>]),
    Responses(&'a openapiv3::Responses),
    Content(&'a indexmap::IndexMap<String, MediaType>),
    Media(&'a MediaType),
    Headers(&'a indexmap::IndexMap<String, ReferenceOr<Header>>),
    Section(&'a Components, &'a str),
    Schema(&'a Schema),
    Schemas(&'a [ReferenceOr<Schema>]),
    Properties(&'a Schema),
    Parameter(&'a Parameter),
    Response(&'a Response),
    RequestBody(&'a RequestBody),
    Header(&'a Header),
    SecurityScheme(&'a SecurityScheme),
    /// A `$ref` standing here, to follow before going on.
    Ref(&'a str),
}

/// The value a local reference names, after following references, and the
/// pointer where that value stands (the last reference's target). `None`
/// when nothing stands there (or the references loop).
pub(super) fn find<'a>(doc: Tree<'a>, reference: &str) -> Option<(Pointer, Node<'a>)> {
    let mut hops = 0;
    let (pointer, at) = resolve(doc, Pointer::from_ref(reference)?, &mut hops)?;
    Some((pointer, node(at)))
}

/// Whether anything stands where a local reference points (a reference
/// there counts, even one that leads round in a loop).
pub(super) fn names_something(doc: Tree<'_>, reference: &str) -> bool {
    let mut hops = 0;
    Pointer::from_ref(reference).is_some_and(|p| walk(doc, &p, &mut hops).is_some())
}

/// Walks to `pointer` and follows the references standing there, counting
/// every reference followed in `hops`.
fn resolve<'a>(doc: Tree<'a>, pointer: Pointer, hops: &mut usize) -> Option<(Pointer, At<'a>)> {
    let mut pointer = pointer;
    loop {
        match walk(doc, &pointer, hops)? {
            (_, At::Ref(next)) => {
                *hops += 1;
                if *hops > MAX_HOPS {
                    return None;
                }
                pointer = Pointer::from_ref(next)?;
            }
            found => return Some(found),
        }
    }
}

/// Whether a reference names a component itself (`#/components/KIND/NAME`),
/// rather than something inside one or inside a path.
pub(super) fn is_component_root(reference: &str, kind: &str) -> bool {
    reference
        .strip_prefix("#/components/")
        .and_then(|rest| rest.strip_prefix(kind))
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| !name.is_empty() && !name.contains('/'))
}

fn node(at: At<'_>) -> Node<'_> {
    match at {
        At::Schema(s) => Node::Schema(s),
        At::Parameter(p) => Node::Parameter(p),
        At::Response(r) => Node::Response(r),
        At::RequestBody(b) => Node::RequestBody(b),
        At::Header(h) => Node::Header(h),
        At::SecurityScheme(s) => Node::SecurityScheme(s),
        _ => Node::Other,
    }
}

/// The value at `pointer` (or the reference standing there), and where it
/// stands: a reference on the way is followed, and the way goes on from its
/// target.
fn walk<'a>(doc: Tree<'a>, pointer: &Pointer, hops: &mut usize) -> Option<(Pointer, At<'a>)> {
    let mut at = At::Doc;
    let mut here = Pointer::root();
    for segment in pointer.segments() {
        if let At::Ref(reference) = at {
            *hops += 1;
            if *hops > MAX_HOPS {
                return None;
            }
            (here, at) = resolve(doc, Pointer::from_ref(reference)?, hops)?;
        }
        at = step(doc, at, &segment)?;
        here = here.join(&segment);
    }
    Some((here, at))
}

fn item<'a, T>(r: &'a ReferenceOr<T>, wrap: fn(&'a T) -> At<'a>) -> At<'a> {
    match r {
        ReferenceOr::Reference { reference } => At::Ref(reference),
        ReferenceOr::Item(t) => wrap(t),
    }
}

fn boxed(r: &ReferenceOr<Box<Schema>>) -> At<'_> {
    match r {
        ReferenceOr::Reference { reference } => At::Ref(reference),
        ReferenceOr::Item(s) => At::Schema(s),
    }
}

fn operation<'a>(item: &'a PathItem, method: &str) -> Option<&'a Operation> {
    match method {
        "get" => item.get.as_ref(),
        "put" => item.put.as_ref(),
        "post" => item.post.as_ref(),
        "delete" => item.delete.as_ref(),
        "options" => item.options.as_ref(),
        "head" => item.head.as_ref(),
        "patch" => item.patch.as_ref(),
        "trace" => item.trace.as_ref(),
        _ => None,
    }
}

/// The operation taken out of the path item at `path` for `method` (3.2's
/// `query`, or an entry of `additionalOperations`).
fn other<'a>(doc: Tree<'a>, path: &str, method: &str) -> Option<&'a Operation> {
    doc.others
        .iter()
        .find(|o| o.path == path && o.method == method)
        .map(|o| &o.op)
}

fn step<'a>(doc: Tree<'a>, at: At<'a>, segment: &str) -> Option<At<'a>> {
    let index = || segment.parse::<usize>().ok();
    Some(match at {
        At::Doc => match segment {
            "components" => At::Components(doc.doc.components.as_ref()?),
            "paths" => At::Paths,
            _ => return None,
        },
        At::Components(c) => At::Section(c, segment_kind(segment)?),
        At::Section(c, kind) => match kind {
            "schemas" => item(c.schemas.get(segment)?, At::Schema),
            "parameters" => item(c.parameters.get(segment)?, At::Parameter),
            "responses" => item(c.responses.get(segment)?, At::Response),
            "requestBodies" => item(c.request_bodies.get(segment)?, At::RequestBody),
            "headers" => item(c.headers.get(segment)?, At::Header),
            "securitySchemes" => item(c.security_schemes.get(segment)?, At::SecurityScheme),
            _ => return None,
        },
        At::Paths => {
            let (path, item) = doc.doc.paths.paths.get_key_value(segment)?;
            match item {
                ReferenceOr::Reference { reference } => At::Ref(reference),
                ReferenceOr::Item(item) => At::PathItem(path, item),
            }
        }
        At::PathItem(path, p) => match segment {
            "parameters" => At::Parameters(&p.parameters),
            "query" => At::Operation(other(doc, path, "QUERY")?),
            "additionalOperations" => At::Additional(path),
            method => At::Operation(operation(p, method)?),
        },
        At::Additional(path) => At::Operation(other(doc, path, segment)?),
        At::Operation(o) => match segment {
            "parameters" => At::Parameters(&o.parameters),
            "requestBody" => item(o.request_body.as_ref()?, At::RequestBody),
            "responses" => At::Responses(&o.responses),
            _ => return None,
        },
        At::Parameters(list) => item(list.get(index()?)?, At::Parameter),
        At::Responses(r) => {
            let response = if segment == "default" {
                r.default.as_ref()?
            } else {
                r.responses
                    .iter()
                    .find(|(code, _)| status_matches(code, segment))
                    .map(|(_, r)| r)?
            };
            item(response, At::Response)
        }
        At::Response(r) => match segment {
            "content" => At::Content(&r.content),
            "headers" => At::Headers(&r.headers),
            _ => return None,
        },
        At::RequestBody(b) => match segment {
            "content" => At::Content(&b.content),
            _ => return None,
        },
        At::Content(content) => At::Media(content.get(segment)?),
        At::Media(m) => match segment {
            "schema" => item(m.schema.as_ref()?, At::Schema),
            _ => return None,
        },
        At::Headers(headers) => item(headers.get(segment)?, At::Header),
        At::Parameter(p) => described(&p.parameter_data_ref().format, segment)?,
        At::Header(h) => described(&h.format, segment)?,
        At::Schema(s) => {
            let flat = flatten(s);
            match segment {
                "properties" => At::Properties(s),
                "items" => boxed(flat.items?),
                "additionalProperties" => match flat.additional? {
                    AdditionalProperties::Schema(schema) => item(schema, At::Schema),
                    AdditionalProperties::Any(_) => return None,
                },
                "allOf" => At::Schemas(flat.all_of),
                "oneOf" => At::Schemas(flat.one_of),
                "anyOf" => At::Schemas(flat.any_of),
                _ => return None,
            }
        }
        At::Properties(s) => {
            let flat = flatten(s);
            let (_, schema) = flat.properties.iter().find(|(name, _)| *name == segment)?;
            boxed(schema)
        }
        At::Schemas(list) => item(list.get(index()?)?, At::Schema),
        At::Ref(_) | At::SecurityScheme(_) => return None,
    })
}

/// The schema or content of a parameter or header.
fn described<'a>(format: &'a ParameterSchemaOrContent, segment: &str) -> Option<At<'a>> {
    match (format, segment) {
        (ParameterSchemaOrContent::Schema(schema), "schema") => Some(item(schema, At::Schema)),
        (ParameterSchemaOrContent::Content(content), "content") => Some(At::Content(content)),
        _ => None,
    }
}

/// The `components` sections a pointer may go through.
fn segment_kind(segment: &str) -> Option<&'static str> {
    [
        "schemas",
        "parameters",
        "responses",
        "requestBodies",
        "headers",
        "securitySchemes",
    ]
    .into_iter()
    .find(|kind| *kind == segment)
}

/// Whether a response key as written (`200`, `4XX`, `4xx`) is this status.
fn status_matches(code: &StatusCode, segment: &str) -> bool {
    match code {
        StatusCode::Code(n) => segment == n.to_string(),
        StatusCode::Range(n) => segment.eq_ignore_ascii_case(&format!("{n}XX")),
    }
}

/// A type name for what stands at `pointer`, from where it stands: the
/// component's name, the path and method, the property, each part of the
/// way that names something (`#/components/schemas/Field/properties/data_type`
/// gives `FieldDataType`, `#/components/responses/Conflict/content/...`
/// gives `ConflictResponse`, `#/paths/~1items/get/responses/200/...` gives
/// `ItemsGet200`).
pub(super) fn name_from(pointer: &Pointer) -> String {
    let segments: Vec<String> = pointer.segments().collect();
    let mut words: Vec<String> = Vec::new();
    let mut rest = segments.as_slice();
    if let [components, kind, name, tail @ ..] = rest {
        if components == "components" {
            words.push(name.clone());
            let suffix = match kind.as_str() {
                "responses" => "Response",
                "parameters" => "Parameter",
                "requestBodies" => "Body",
                "headers" => "Header",
                _ => "",
            };
            if !suffix.is_empty() {
                words.push(suffix.to_string());
            }
            rest = tail;
        }
    }
    for segment in rest {
        let structural = matches!(
            segment.as_str(),
            "paths" | "properties" | "content" | "schema" | "responses" | "parameters"
        );
        // Media types (`application/json`) say how, not what.
        if !structural && !segment.contains('/') || segment.starts_with('/') {
            words.push(segment.clone());
        }
    }
    let joined = words.join(" ");
    crate::names::sanitize(&joined, crate::names::Case::Pascal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(yaml: &str) -> OpenAPI {
        crate::load::parse(yaml).unwrap().doc
    }

    const DOC: &str = r##"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /items:
    get:
      parameters:
        - { $ref: '#/components/parameters/limit' }
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, properties: { kind: { type: string } } }
        4XX: { $ref: '#/components/responses/Conflict' }
components:
  parameters:
    limit: { name: limit, in: query, schema: { type: integer } }
  responses:
    Conflict:
      description: c
      content: { application/json: { schema: { $ref: '#/components/schemas/Tag/allOf/1' } } }
  schemas:
    Base: { type: object, properties: { id: { type: string } } }
    Tag:
      allOf:
        - { type: object, properties: { label: { type: string } } }
        - { $ref: '#/components/schemas/Base' }
    Alias: { $ref: '#/components/schemas/Tag/allOf/1' }
"##;

    fn tree(doc: &OpenAPI) -> Tree<'_> {
        Tree { doc, others: &[] }
    }

    fn schema_at(doc: &OpenAPI, reference: &str) -> Option<(String, Option<&'static str>)> {
        match find(tree(doc), reference)? {
            (p, Node::Schema(s)) => Some((p.to_string(), flatten(s).typ.map(|_| "typed"))),
            _ => None,
        }
    }

    #[test]
    fn pointers_reach_schemas_at_any_depth() {
        let d = doc(DOC);
        for (reference, stands) in [
            (
                "#/components/schemas/Tag/allOf/0",
                "#/components/schemas/Tag/allOf/0",
            ),
            (
                "#/components/schemas/Tag/allOf/0/properties/label",
                "#/components/schemas/Tag/allOf/0/properties/label",
            ),
            // Through a reference on the way, and references to references.
            (
                "#/components/schemas/Tag/allOf/1/properties/id",
                "#/components/schemas/Base/properties/id",
            ),
            ("#/components/schemas/Alias", "#/components/schemas/Base"),
            (
                "#/components/parameters/limit/schema",
                "#/components/parameters/limit/schema",
            ),
            (
                "#/components/responses/Conflict/content/application~1json/schema",
                "#/components/schemas/Base",
            ),
            (
                "#/paths/~1items/get/responses/200/content/application~1json/schema/properties/kind",
                "#/paths/~1items/get/responses/200/content/application~1json/schema/properties/kind",
            ),
            (
                "#/paths/~1items/get/responses/4xx/content/application~1json/schema",
                "#/components/schemas/Base",
            ),
        ] {
            let found = schema_at(&d, reference);
            assert_eq!(found.map(|f| f.0), Some(stands.to_string()), "{reference}");
        }
        assert!(matches!(
            find(tree(&d), "#/paths/~1items/get/parameters/0"),
            Some((_, Node::Parameter(_)))
        ));
        for missing in [
            "#/components/schemas/Nope",
            "#/components/schemas/Tag/allOf/7",
            "#/paths/~1items/post",
            "#/components/schemas/Tag/properties",
            "not a pointer",
        ] {
            assert!(schema_at(&d, missing).is_none(), "{missing}");
        }
    }

    #[test]
    fn loops_of_references_end() {
        let d = doc(r##"
openapi: 3.0.3
info: { title: t, version: '1' }
paths: {}
components:
  schemas:
    A: { $ref: '#/components/schemas/B' }
    B: { $ref: '#/components/schemas/A/allOf/0' }
"##);
        assert!(find(tree(&d), "#/components/schemas/A").is_none());
    }

    #[test]
    fn names_come_from_where_the_value_stands() {
        let name = |r: &str| name_from(&Pointer::from_ref(r).unwrap());
        assert_eq!(
            name("#/components/schemas/Field/properties/data_type"),
            "FieldDataType"
        );
        assert_eq!(name("#/components/schemas/Tag/allOf/0"), "TagAllOf0");
        assert_eq!(
            name("#/components/responses/Conflict/content/application~1json/schema"),
            "ConflictResponse"
        );
        assert_eq!(
            name("#/paths/~1items/get/responses/200/content/application~1json/schema"),
            "ItemsGet200"
        );
        assert!(is_component_root("#/components/schemas/Pet", "schemas"));
        assert!(!is_component_root(
            "#/components/schemas/Pet/allOf/0",
            "schemas"
        ));
        assert!(!is_component_root(
            "#/components/parameters/limit",
            "schemas"
        ));
    }
}
