//! The spec's schemas as data, as a generated `mock` module declares them
//! (the bounds, types, fields, variants and responses of [`Spec`]), and
//! whether a value fits them.

use super::SecurityScheme;
use serde_json::Value;

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
    /// The sequential media type of a stream (`text/event-stream`,
    /// `application/jsonl`), whose items the body's schema describes.
    pub stream: Option<&'static str>,
    /// The names an event stream's events may carry in their `event`
    /// field, when its schema describes whole events with one.
    pub event_names: &'static [&'static str],
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
            stream: None,
            event_names: &[],
        }
    }

    /// Its body a stream in the sequential media type `media`, each item
    /// of the body's schema.
    pub const fn stream(mut self, media: &'static str) -> Self {
        self.stream = Some(media);
        self
    }

    /// Its events named, in turn, by `names` (their `event` field).
    pub const fn event_names(mut self, names: &'static [&'static str]) -> Self {
        self.event_names = names;
        self
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

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Code(code) => write!(f, "{code}"),
            Status::Range(class) => write!(f, "{class}XX"),
            Status::Default => f.write_str("default"),
        }
    }
}

/// `value` (which fits `schema`) without its write-only properties: an
/// example the spec gives for a response may show them, but they travel in
/// requests alone.
pub(super) fn without_write_only(types: &[Type], schema: &Schema, value: &mut Value, depth: usize) {
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

/// A pattern compiled once per process: the mock checks examples and
/// refusals against the same few patterns on every request.
pub(super) fn compiled(pattern: &'static str) -> Option<regex::Regex> {
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
