//! The intermediate representation: what the emitter needs to know, with every
//! `$ref` resolved, every name already a unique Rust identifier, and nothing
//! OpenAPI-shaped left over.

pub use crate::vocabulary::{Also, Stability, Style};

use std::collections::{BTreeMap, HashSet};

/// One whole API.
#[derive(Debug, Clone, PartialEq)]
pub struct Api {
    pub title: String,
    pub version: String,
    pub description: Option<String>,
    /// The path of the first server URL (`/v1` for `http://localhost:8080/v1`),
    /// under which the operations' paths are served; empty for none.
    pub base_path: String,
    /// The document's servers with absolute URLs.
    pub servers: Vec<Server>,
    /// The declared tags, for the reference page's navigation.
    pub tags: Vec<NavTag>,
    /// Named types, keyed (and so emitted) by their Rust name.
    pub types: BTreeMap<String, TypeDef>,
    /// Operations in document order (path, then method).
    pub operations: Vec<Operation>,
    /// One route trait per group of operations (see [`RouteTrait`]), tags
    /// in the order the document lists them, then path groups.
    pub traits: Vec<RouteTrait>,
    /// Response headers that every response of every operation declares (rate
    /// limits, say). They belong to middleware, so they are listed once in the
    /// metadata instead of in every response variant. Each as the first
    /// response declares it.
    pub common_headers: Vec<ResponseHeader>,
    /// The type every error response carries, when the document uses just one.
    pub error_type: Option<Shape>,
    /// `components.securitySchemes`, in document order.
    pub security_schemes: Vec<SecurityScheme>,
    /// The document's own `security`, which operations without their own
    /// inherit.
    pub default_security: Vec<SecurityRequirement>,
    /// The requests the API sends rather than serves: 3.1 `webhooks` and
    /// 3.0 `callbacks`, which a generated crate receives and sends in its
    /// `webhooks` module.
    pub webhooks: Vec<Webhook>,
    /// `info.x-plans`: the plans callers subscribe to, and their limits.
    pub plans: Vec<Plan>,
    /// The named types a request can carry whose value can break a bound
    /// of the spec (see [`Api::checked_types`]): those get a `Validate`
    /// impl, and only those are validated where they are held.
    pub checked: HashSet<String>,
    /// The response types operations share, by name.
    pub shared_responses: Vec<SharedResponse>,
}

/// A plan (`info.x-plans`): its name, its request limits (none for a plan
/// whose limits are agreed per customer), and what it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub name: String,
    pub per_minute: Option<u32>,
    pub per_day: Option<u32>,
    pub description: Option<String>,
}

/// A request the API sends to its subscribers rather than serves: a 3.1
/// webhook or a 3.0 callback. A generated crate has both ends of it in its
/// `webhooks` module: a receiver (a route trait and glue, as an operation's)
/// and a sender (a client method).
#[derive(Debug, Clone, PartialEq)]
pub struct Webhook {
    /// Its key under `webhooks`, or the callback's name.
    pub name: String,
    /// Where it is declared.
    pub source: HookSource,
    /// The request, as an operation the receiver serves: its path is where
    /// the receiver takes it (see [`HookSource`]), its group `webhooks`,
    /// its security only what it declares itself, and it is
    /// [`Operation::signed`] when the document says so.
    pub operation: Operation,
}

/// Where a webhook is declared, which decides the path it is received at.
#[derive(Debug, Clone, PartialEq)]
pub enum HookSource {
    /// Under the document's `webhooks`: received at `/{name}`.
    Webhook,
    /// In an operation's `callbacks`: received at the literal part of the
    /// URL expression after its runtime expression (`/` for
    /// `{$request.body#/url}`), the subscriber's URL being the base.
    Callback {
        /// The operationId of the operation that declares it.
        operation: String,
        /// The URL expression, as written.
        expression: String,
    },
}

/// A security scheme (`components.securitySchemes`).
#[derive(Debug, Clone, PartialEq)]
pub struct SecurityScheme {
    /// Its name in the document.
    pub name: String,
    pub kind: SchemeKind,
    pub doc: Option<String>,
    /// The document marks it deprecated (3.2): still used, shown so.
    pub deprecated: bool,
    /// An OAuth 2 scheme's device authorization flow (3.2), when it has
    /// one: the client signs in through it.
    pub device: Option<DeviceFlow>,
    /// Where an OAuth 2 scheme's tokens are got and renewed, when the
    /// document says: the client gets them itself.
    pub tokens: Option<TokenEndpoints>,
}

/// Where an OAuth 2 scheme's tokens come from (URLs as written: absolute,
/// or relative to the server).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TokenEndpoints {
    /// The `clientCredentials` flow's `tokenUrl`.
    pub client_credentials: Option<String>,
    /// Where a refresh token is renewed: a flow's `refreshUrl`, else the
    /// `tokenUrl` of a flow that issues refresh tokens.
    pub refresh: Option<String>,
    /// The scheme's `oauth2MetadataUrl` (RFC 8414).
    pub metadata: Option<String>,
}

/// OAuth 2's device authorization flow (RFC 8628): where it asks, and
/// the scopes it offers.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceFlow {
    pub endpoints: DeviceEndpoints,
    /// The scopes it offers.
    pub scopes: Vec<String>,
}

/// Where a device flow asks.
#[derive(Debug, Clone, PartialEq)]
pub enum DeviceEndpoints {
    /// As the document writes them (absolute, or relative to the server).
    Written {
        authorization_url: String,
        token_url: String,
    },
    /// As the authorization server's metadata (RFC 8414) at this URL
    /// (3.2's `oauth2MetadataUrl`) gives them, read at sign-in.
    Metadata(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum SchemeKind {
    /// `type: http`, with its scheme in lower case (`bearer`, `basic`).
    Http(String),
    /// `type: apiKey`: where it travels (`header`, `query`, `cookie`) and as
    /// what name.
    ApiKey {
        location: ParamLocation,
        name: String,
    },
    OAuth2,
    OpenIdConnect,
    /// `type: mutualTLS` (3.1): a client certificate, which the transport
    /// checks; generated code only names it.
    MutualTls,
}

/// One way to satisfy an operation's security: each named scheme, with the
/// scopes it needs. An empty requirement lets anonymous callers in.
pub type SecurityRequirement = Vec<(String, Vec<String>)>;

/// The feature that compiles in the types no operation reaches (a
/// standalone crate with group features).
pub const OTHER_MODELS: &str = "other-models";

/// The feature that turns every group on.
pub const ALL_GROUPS: &str = "all-groups";

/// Feature names a generated crate uses for itself: a group whose name
/// is one of these is `NAME-tag`.
pub const RESERVED_FEATURES: [&str; 8] = [
    "default",
    "server",
    "client",
    "mock",
    "serialize",
    "deserialize",
    OTHER_MODELS,
    ALL_GROUPS,
];

/// A group of operations, served by one route trait and, in a standalone
/// crate, compiled under one Cargo feature: a tag (an operation's first),
/// or for an untagged operation the first segment of its path after the
/// prefix every path shares (`/v1/customers/{id}` is `customers` when
/// every path starts with `/v1`).
#[derive(Debug, Clone, PartialEq)]
pub struct RouteTrait {
    /// The trait's name (`Pets`; `Api` for the group of operations with
    /// neither a tag nor a path segment to go by).
    pub name: String,
    /// The tag or path segment, as written; empty for neither.
    pub group: String,
    /// The Cargo feature that compiles the group in (`pets`,
    /// `default-tag`).
    pub feature: String,
    pub doc: Option<String>,
    /// What its operations are, in words, when the group does not say it
    /// (`webhooks Hooks sends`); else it is said from the tag or path.
    pub summary: Option<String>,
}

/// A named type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDef {
    pub name: String,
    /// The JSON pointer of the schema it comes from.
    pub origin: String,
    pub doc: Option<String>,
    pub deprecated: bool,
    /// The schema's `example`, as the document gives it.
    pub example: Option<serde_json::Value>,
    pub kind: TypeKind,
}

impl TypeDef {
    /// Every shape the type holds: its fields' and the rest of its
    /// properties', its variants', the shape it names.
    pub fn shapes(&self) -> Vec<&Shape> {
        match &self.kind {
            TypeKind::Struct(s) => s
                .fields
                .iter()
                .map(|f| &f.shape)
                .chain(s.additional.iter())
                .collect(),
            TypeKind::Enum(_) => Vec::new(),
            TypeKind::Union(u) => u.variants.iter().map(|v| &v.shape).collect(),
            TypeKind::Alias(shape) | TypeKind::Newtype { shape, .. } => vec![shape],
        }
    }
}

/// Which sides send each named type ([`Api::senders`]).
#[derive(Debug, Default)]
pub struct Senders<'a> {
    /// The types a request reaches: a client sends them.
    pub requests: HashSet<&'a str>,
    /// The types a response, the shared error or a webhook's payload
    /// reaches: a server sends them.
    pub responses: HashSet<&'a str>,
    /// The types that implement both traits whatever the sides.
    pub both_ways: HashSet<&'a str>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypeKind {
    Struct(Struct),
    /// A string enumeration.
    Enum(Vec<EnumVariant>),
    /// `oneOf`/`anyOf`.
    Union(Union),
    /// A name for another shape (`type Id = i64`).
    Alias(Shape),
    /// A name for a shape that leads back to itself (`Tree` is a list of
    /// `Tree`s): a struct wrapping the shape, `struct Tree(Vec<Tree>)`,
    /// since an alias cannot name itself. `boxed` when the shape holds the
    /// cycle directly (a nullable reference), which needs a `Box`.
    Newtype {
        shape: Shape,
        boxed: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Struct {
    pub fields: Vec<Field>,
    /// `additionalProperties: false`: unknown fields are refused.
    pub deny_unknown: bool,
    /// `additionalProperties: <schema>` beside named properties: the rest of the
    /// object, kept in a map.
    pub additional: Option<Shape>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name on the wire.
    pub wire: String,
    /// The JSON pointer of the property's schema.
    pub pointer: String,
    pub rust: String,
    pub shape: Shape,
    pub required: bool,
    pub doc: Option<String>,
    pub default: Option<serde_json::Value>,
    /// The property's `example`, as the document gives it.
    pub example: Option<serde_json::Value>,
    pub read_only: bool,
    pub write_only: bool,
    pub deprecated: bool,
    /// The field's type refers back to the struct itself: it must be boxed.
    pub boxed: bool,
    /// The object is also one of several shapes (`oneOf` beside `properties`
    /// or inside `allOf`): this field holds which, flattened into the object.
    pub flatten: bool,
    /// The flattened union reads this property too: it is the union's
    /// discriminator or a property of one of its variants, and JSON Schema
    /// shows every subschema the whole object.
    pub shared: bool,
}

impl Field {
    /// A required property of `shape` at `pointer`, with nothing else said
    /// of it (its Rust name given when the struct's fields are named).
    pub fn required(wire: impl Into<String>, pointer: impl Into<String>, shape: Shape) -> Self {
        Field {
            wire: wire.into(),
            pointer: pointer.into(),
            rust: String::new(),
            shape,
            required: true,
            doc: None,
            default: None,
            example: None,
            read_only: false,
            write_only: false,
            deprecated: false,
            boxed: false,
            flatten: false,
            shared: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct EnumVariant {
    pub wire: String,
    pub rust: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Union {
    pub variants: Vec<UnionVariant>,
    /// The property that names the variant, when the document gives one.
    pub tag: Option<String>,
    /// `oneOf`: exactly one variant may accept a value. `anyOf` lets
    /// several accept it; the first that does is taken.
    pub exclusive: bool,
    /// The variant read when the tag is absent or names no variant (3.2's
    /// `defaultMapping`), by its Rust name; without one, such a value is
    /// refused.
    pub fallback: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UnionVariant {
    pub rust: String,
    /// The values of the discriminator's property that name this variant:
    /// one as a rule; each of several when the variant's schema allows
    /// several (an `enum` of them); none without a discriminator.
    pub tag_values: Vec<String>,
    /// The name of the component it refers to, which names it too where
    /// its schema allows that value and no variant's value is that name
    /// (OpenAPI's implicit mapping): read, never written or listed.
    pub implicit_tag: Option<String>,
    pub shape: Shape,
    pub boxed: bool,
}

/// A declared tag, as the reference page's navigation shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct NavTag {
    pub name: String,
    /// A short label (3.2's `summary`), shown for the name.
    pub summary: Option<String>,
    /// The tag it is shown under (3.2's `parent`): a declared tag, never
    /// one that leads back to this one.
    pub parent: Option<String>,
    /// What kind of tag it is (3.2's `kind`: `nav`, `badge`, `audience`,
    /// or another): any but `nav` also marks the operations that name it.
    pub kind: Option<String>,
}

impl NavTag {
    /// Whether it marks its operations on the reference page (a `kind`
    /// other than `nav`).
    pub fn marks(&self) -> bool {
        self.kind.as_deref().is_some_and(|kind| kind != "nav")
    }
}

/// A server the document names, by an absolute URL.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    /// `https://api.example.com/v1`: variables replaced by their defaults,
    /// without a trailing slash.
    pub url: String,
    /// What the document says of it (3.2's `name` where it gives no more).
    pub description: Option<String>,
}

/// A type in a position, with the checks that apply to values there.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub ty: Ty,
    pub checks: Checks,
    pub nullable: bool,
}

impl Shape {
    pub fn new(ty: Ty) -> Self {
        Shape {
            ty,
            checks: Checks::default(),
            nullable: false,
        }
    }

    /// Whether the shape names a type of [`Api::types`], at any depth.
    pub fn names_a_type(&self) -> bool {
        self.named().is_some()
    }

    /// The type of [`Api::types`] the shape names, at any depth (a list of
    /// `Pet`s names `Pet`).
    pub fn named(&self) -> Option<&str> {
        match &self.ty {
            Ty::Named(name) => Some(name),
            Ty::Array(inner) | Ty::Map(inner) => inner.named(),
            _ => None,
        }
    }
}

impl Ty {
    /// The Rust type of `type: integer` with this `format`: `int32` is an
    /// `i32`, any other (or none) an `i64`. A value outside its range is
    /// refused as the document's bounds are.
    pub fn integer(format: Option<&str>) -> Ty {
        match format {
            Some("int32") => Ty::I32,
            _ => Ty::I64,
        }
    }

    /// The values an integer type holds.
    pub fn integer_range(&self) -> Option<(i64, i64)> {
        match self {
            Ty::I32 => Some((i32::MIN.into(), i32::MAX.into())),
            Ty::I64 => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Bool,
    I32,
    I64,
    F32,
    F64,
    String,
    DateTime,
    Date,
    /// `format: uuid`.
    Uuid,
    /// `format: byte`, and `format: binary` inside a schema: bytes that
    /// travel as base64 text in JSON (and as a file in a multipart part).
    Base64,
    /// Any JSON value.
    Json,
    /// Raw bytes: a body of a media type other than JSON or a form.
    Bytes,
    Array(Box<Shape>),
    /// A JSON object with arbitrary keys.
    Map(Box<Shape>),
    /// A type in `Api::types`.
    Named(String),
}

/// Validation keywords, checked by generated code.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checks {
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub pattern: Option<String>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: bool,
    pub exclusive_maximum: bool,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    /// `uniqueItems: true`: no two items equal.
    pub unique_items: bool,
    /// A string format that generated code can check (`email`, `uri`),
    /// when the run asks for format checks.
    pub format: Option<TextFormat>,
    /// Values the value may not be (`not: {enum: [...]}`).
    pub not_in: Vec<serde_json::Value>,
    /// The values an integer may be (`enum` of a `type: integer`; a string
    /// enum is a type of its own).
    pub one_of: Vec<i64>,
}

/// String formats checked on request (`Config::check_formats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    Email,
    Uri,
    /// A duration (`P1DT2H`) as RFC 3339 writes one: JSON Schema's `duration`.
    Duration,
}

impl Checks {
    pub fn is_empty(&self) -> bool {
        *self == Checks::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// The operationId as written (or derived from method and path).
    pub id: String,
    /// snake_case: the trait method and handler.
    pub fn_name: String,
    /// PascalCase: prefix of the request and response types.
    pub type_name: String,
    /// Upper-case HTTP method.
    pub method: String,
    pub path: String,
    pub pointer: String,
    /// SCREAMING_SNAKE: its metadata constant, unique among operations.
    pub const_name: String,
    /// Its first tag; empty for none.
    pub tag: String,
    /// Every tag it names, in order (the first is [`Self::tag`]).
    pub tags: Vec<String>,
    /// The group it belongs to ([`RouteTrait::group`]).
    pub group: String,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub deprecated: bool,
    pub deprecated_since: Option<String>,
    pub sunset: Option<String>,
    pub successor: Option<String>,
    pub stability: Stability,
    /// The ways a caller may satisfy its security (its own `security`, else
    /// the document's); any one will do. Empty: no security at all.
    pub security: Vec<SecurityRequirement>,
    pub params: Vec<Param>,
    pub body: Option<Body>,
    pub responses: Vec<Response>,
    /// How the operation pages (`x-pagination`, or inferred), when it does.
    pub paging: Option<Paging>,
    /// `x-hideTryItPanel: true`: the reference page offers no "try it".
    pub hide_try_it: bool,
    /// The `type_name` of an earlier operation whose responses are the
    /// same as this one's (statuses, variants, docs, bodies, headers): its
    /// response enum is an alias of that one's, as an inline type the same
    /// as one already generated is.
    pub same_responses_as: Option<String>,
    /// Its lifecycle annotations that could not be read (a stability, a
    /// sunset, a successor), each at its place: a lenient run drops the
    /// annotation and keeps the operation, and the evolution gate reports
    /// them on it.
    pub lifecycle_problems: Vec<LifecycleProblem>,
    /// Its requests carry a Standard Webhooks signature (a webhook's, by
    /// `x-webhook-signature: standard-webhooks`): the glue verifies it
    /// before the handler runs, and the client signs what it sends.
    pub signed: bool,
}

/// A lifecycle annotation of an operation that could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct LifecycleProblem {
    pub annotation: Annotation,
    /// What is wrong with it, and where.
    pub diagnostic: crate::Diagnostic,
}

/// The lifecycle annotations of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Annotation {
    /// `x-stability` (or `x-stability-level`).
    Stability,
    /// `x-sunset` (or `x-deprecated-sunset`).
    Sunset,
    /// `x-deprecated-since`.
    DeprecatedSince,
    /// `x-successor`.
    Successor,
    /// `deprecated`, which a sunset or a successor needs.
    Deprecated,
}

impl Operation {
    /// Every shape the operation uses: its parameters, its body, and its
    /// responses' bodies and headers.
    pub fn shapes(&self) -> impl Iterator<Item = &Shape> {
        self.request_shapes().chain(self.response_shapes())
    }

    /// The shapes of its responses: their bodies' and headers'.
    pub fn response_shapes(&self) -> impl Iterator<Item = &Shape> {
        self.responses
            .iter()
            .flat_map(|r| r.body.iter().chain(r.headers.iter().map(|h| &h.shape)))
    }

    /// The shapes of its request: its parameters' and its body's.
    pub fn request_shapes(&self) -> impl Iterator<Item = &Shape> {
        let params = self.params.iter().map(|p| &p.shape);
        params.chain(self.body.iter().map(|b| &b.shape))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamLocation {
    Path,
    Query,
    Header,
    Cookie,
}

impl ParamLocation {
    /// As the document spells it (`in: query`).
    pub fn as_str(self) -> &'static str {
        match self {
            ParamLocation::Path => "path",
            ParamLocation::Query => "query",
            ParamLocation::Header => "header",
            ParamLocation::Cookie => "cookie",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub wire: String,
    /// The JSON pointer of the parameter (its declaration, where a `$ref`
    /// points).
    pub pointer: String,
    pub rust: String,
    pub location: ParamLocation,
    pub required: bool,
    pub shape: Shape,
    pub doc: Option<String>,
    pub deprecated: bool,
    /// When a deprecated parameter stops being read (`x-sunset` or
    /// `x-deprecated-sunset`, YYYY-MM-DD): the evolution gate refuses its
    /// removal before.
    pub sunset: Option<String>,
    /// Arrays only: repeated (`id=1&id=2`, true) or comma-separated (false).
    pub explode: bool,
    pub style: Style,
    /// The parameter's named type is an enum (read like a scalar), not an object.
    pub scalar_named: bool,
    /// The parameter's type is a union (`oneOf`/`anyOf`) of scalars or arrays.
    pub union: bool,
    pub default: Option<serde_json::Value>,
}

impl Param {
    /// A path parameter whose text tells one route from another of the
    /// same shape: a plain (`simple`) number, boolean, date or uuid (text
    /// and enums take anything).
    pub fn types_its_segment(&self) -> bool {
        self.location == ParamLocation::Path
            && self.style == Style::Simple
            && !matches!(self.shape.ty, Ty::String | Ty::Named(_) | Ty::Json)
            && !matches!(self.shape.ty, Ty::Array(_) | Ty::Map(_))
    }
}

/// A path template with its parameters' names left out (`/a/{}/b`): what
/// a router sees of it.
pub fn path_shape(path: &str) -> String {
    let mut shape = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        shape.push_str(&rest[..=open]);
        match rest[open..].find('}') {
            Some(close) => rest = &rest[open + close..],
            None => rest = "",
        }
    }
    shape.push_str(rest);
    shape
}

/// How a list operation pages: where its items are, and how the next page
/// is asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Paging {
    pub next: PageNext,
    /// A JSON pointer to the items in the success response's body; empty
    /// when the body is the list.
    pub items: String,
    /// One item's shape.
    pub item: Shape,
    /// A JSON pointer to a boolean in the body saying more pages follow.
    pub has_more: Option<String>,
    /// The query parameter (its wire name) that sets the page size.
    pub limit: Option<String>,
    /// Inferred from the operation's shape, not declared.
    pub inferred: bool,
}

/// How the next page is asked for (query parameters by wire name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageNext {
    /// The `Link` header's `rel="next"` URL.
    Link,
    /// A query parameter fed from a JSON pointer of the body.
    Cursor { param: String, from: String },
    /// A query parameter fed from a JSON pointer of the last item.
    LastItem { param: String, field: String },
    /// A page number, one more each page.
    Page { param: String, start: u64 },
    /// An offset, grown by each page's number of items.
    Offset { param: String },
}

impl Paging {
    /// How the operation pages, to a reader: the next page's scheme, then
    /// where the items are, the flag and the page size when there are
    /// any (`` `after` = the last item's `/id`, page size `limit` ``).
    pub fn describe(&self) -> String {
        let mut text = self.next.describe();
        if !self.items.is_empty() {
            text.push_str(&format!(", items at `{}`", self.items));
        }
        if let Some(flag) = &self.has_more {
            text.push_str(&format!(", `{flag}` says whether more follow"));
        }
        if let Some(limit) = &self.limit {
            text.push_str(&format!(", page size `{limit}`"));
        }
        text
    }
}

impl PageNext {
    /// How the scheme is described to a reader: `the Link header's
    /// rel="next"`, `after = the last item's /id`.
    pub fn describe(&self) -> String {
        match self {
            PageNext::Link => "the `Link` header's `rel=\"next\"` URL".into(),
            PageNext::Cursor { param, from } => format!("`{param}` = the body's `{from}`"),
            PageNext::LastItem { param, field } => {
                format!("`{param}` = the last item's `{field}`")
            }
            PageNext::Page { param, start } => {
                format!("`{param}` = the page number, from {start}")
            }
            PageNext::Offset { param } => format!("`{param}` = the number of items before"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// The JSON pointer of the request body.
    pub pointer: String,
    pub shape: Shape,
    pub required: bool,
    /// The most bytes the server reads (`x-max-body-size`), when the spec
    /// sets it; else the runtime's default.
    pub limit: Option<u64>,
    pub doc: Option<String>,
    pub media: Media,
    /// The other media types a JSON body is offered in that the server
    /// also reads, by `Content-Type`, into the same type (a form, XML);
    /// the client sends JSON.
    pub also: Vec<Also>,
    /// The media type's `example`, or the value of its first `examples`
    /// entry written in place.
    pub example: Option<serde_json::Value>,
}

/// How a body travels.
#[derive(Debug, Clone, PartialEq)]
pub enum Media {
    Json,
    /// `application/x-www-form-urlencoded`, decoded into the body's type.
    Form,
    /// `multipart/form-data`, decoded into the body's type; file parts fill
    /// `format: binary` properties (`Vec<u8>`).
    Multipart,
    /// Any other media type, as bytes: the media types the operation accepts
    /// (requests) or the one it sends (responses).
    Raw(Vec<String>),
    /// `text/event-stream` (responses only): a stream of events whose data
    /// is the body's shape, sent and read as the events come.
    Events,
    /// Another sequential media type (responses only): JSON Lines, a JSON
    /// text sequence, or `multipart/mixed` that 3.2's `itemSchema` makes a
    /// stream of parts; the media type named, whose items are each the
    /// body's shape, sent and read as they come.
    Items(String),
}

impl Media {
    /// The stream a response in the sequential media type `media_type` is:
    /// events, or items of JSON Lines or of a JSON text sequence (the media
    /// type's essence: lower case, parameters aside); `None` for any other
    /// media type.
    pub fn stream_of(media_type: &str) -> Option<Media> {
        let essence = crate::media::essence(media_type);
        let named = [
            "application/jsonl",
            "application/x-jsonl",
            "application/jsonlines",
            "application/x-jsonlines",
            "application/x-ndjson",
            "application/ndjson",
            "application/json-seq",
        ];
        let items = named.contains(&essence.as_str())
            || ["+jsonl", "+ndjson", "+json-seq"]
                .iter()
                .any(|suffix| essence.ends_with(suffix));
        match essence.as_str() {
            "text/event-stream" => Some(Media::Events),
            _ if items => Some(Media::Items(essence)),
            _ => None,
        }
    }

    /// Whether a response in it is a stream, read as it arrives.
    pub fn streams(&self) -> bool {
        matches!(self, Media::Events | Media::Items(_))
    }
}

/// The statuses a response stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// One status code.
    Code(u16),
    /// `1XX` to `5XX`: every status of the class (its first digit).
    Range(u16),
    /// `default`: every status no other response declares.
    Default,
}

impl Status {
    /// The code, for a single status.
    pub fn code(self) -> Option<u16> {
        match self {
            Status::Code(code) => Some(code),
            _ => None,
        }
    }

    /// Whether the response stands for several statuses, so that its value
    /// carries the one it has.
    pub fn carries_status(self) -> bool {
        !matches!(self, Status::Code(_))
    }

    /// The statuses it stands for, for a range: `400..=499` for `4XX`.
    pub fn range(self) -> Option<std::ops::RangeInclusive<u16>> {
        match self {
            Status::Range(class) => Some(class * 100..=class * 100 + 99),
            _ => None,
        }
    }

    /// Whether an error status can stand for it.
    pub fn is_error(self) -> bool {
        match self {
            Status::Code(code) => code >= 400,
            Status::Range(class) => class >= 4,
            Status::Default => true,
        }
    }

    /// Whether it is a success (2xx).
    pub fn is_success(self) -> bool {
        match self {
            Status::Code(code) => (200..300).contains(&code),
            Status::Range(class) => class == 2,
            Status::Default => false,
        }
    }
}

impl std::fmt::Display for Status {
    /// As documents write it: `200`, `4XX`, `default`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Code(code) => write!(f, "{code}"),
            Status::Range(class) => write!(f, "{class}XX"),
            Status::Default => f.write_str("default"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The JSON pointer of the response (`.../responses/200`).
    pub pointer: String,
    pub status: Status,
    pub variant: String,
    pub doc: String,
    pub body: Option<Shape>,
    /// How the body travels (JSON or raw bytes of a media type).
    pub media: Media,
    /// For an event stream whose schema describes each whole event with
    /// an `event` field: the names that field may take (its enum), which
    /// a mock sends; `None` when the schema describes the data alone.
    pub event_names: Option<Vec<String>>,
    /// The JSON media type the body is declared in, when it is not
    /// `application/json` (`application/problem+json`): it is sent as that.
    pub json_type: Option<String>,
    pub headers: Vec<ResponseHeader>,
    /// The examples of its body, by name: the media type's `example` (named
    /// `example`), then its `examples` written in place, in order.
    pub examples: Vec<(String, serde_json::Value)>,
    /// The response component this one is given by (`#/components/responses/
    /// RateLimited`), when it is a reference and of one status: what the
    /// pass that names shared responses groups by. Never an identifier.
    pub referenced: Option<String>,
    /// The name of the type this response shares with the other
    /// operations that reference the same response (a rate limit's 429,
    /// say): set by that pass, through the operations module's `Namer`,
    /// for a referenced response with headers of its own, which would
    /// otherwise be spelled out in every operation.
    pub shared: Option<String>,
}

impl Response {
    /// Whether its variant holds named fields (its status, body and
    /// headers: `Ok { body, link }`) rather than its body alone (`Ok(body)`)
    /// or nothing: a response of several statuses, or with headers.
    pub fn named_fields(&self) -> bool {
        self.status.carries_status() || !self.headers.is_empty()
    }
}

/// A response type several operations share ([`Response::shared`]): its
/// name, and the response as its first use declares it (every use
/// references the same one).
#[derive(Debug, Clone, PartialEq)]
pub struct SharedResponse {
    pub name: String,
    pub response: Response,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResponseHeader {
    pub wire: String,
    /// The JSON pointer of the header.
    pub pointer: String,
    pub rust: String,
    pub required: bool,
    /// The value travels as JSON text (`content: {application/json: ...}`)
    /// rather than in the simple style.
    pub json: bool,
    pub shape: Shape,
    pub doc: Option<String>,
}
