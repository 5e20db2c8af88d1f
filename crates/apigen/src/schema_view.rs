//! A flat view of an `openapiv3::Schema`. openapiv3 splits schemas into typed
//! variants and falls back to `AnySchema` for mixed ones; lowering wants one shape
//! whatever the parse chose.

use crate::ir::Number;
use openapiv3::{
    AdditionalProperties, ReferenceOr, Schema, SchemaKind, Type, VariantOrUnknownOrEmpty,
};

#[derive(Debug, Default)]
pub struct Flat<'a> {
    pub typ: Option<&'a str>,
    pub format: Option<String>,
    pub properties: Vec<(&'a String, &'a ReferenceOr<Box<Schema>>)>,
    pub required: Vec<&'a String>,
    pub additional: Option<&'a AdditionalProperties>,
    pub items: Option<&'a ReferenceOr<Box<Schema>>>,
    pub enumeration: Vec<serde_json::Value>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: bool,
    pub exclusive_maximum: bool,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub pattern: Option<&'a str>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    /// `uniqueItems: true`.
    pub unique_items: bool,
    pub one_of: &'a [ReferenceOr<Schema>],
    pub any_of: &'a [ReferenceOr<Schema>],
    pub all_of: &'a [ReferenceOr<Schema>],
    /// The `not` schema, if any.
    pub not: Option<&'a ReferenceOr<Schema>>,
    /// Whether `not` is all the schema says.
    pub not_alone: bool,
}

fn format_of<T: std::fmt::Debug>(f: &VariantOrUnknownOrEmpty<T>) -> Option<String> {
    match f {
        VariantOrUnknownOrEmpty::Item(item) => {
            // `DateTime` -> `date-time`, `Int64` -> `int64`.
            let debug = format!("{item:?}");
            let mut out = String::new();
            for (i, c) in debug.char_indices() {
                if c.is_uppercase() && i > 0 && !debug[..i].ends_with(|p: char| p.is_ascii_digit())
                {
                    out.push('-');
                }
                out.extend(c.to_lowercase());
            }
            Some(out)
        }
        VariantOrUnknownOrEmpty::Unknown(s) => Some(s.clone()),
        VariantOrUnknownOrEmpty::Empty => None,
    }
}

fn float(v: Option<f64>) -> Option<Number> {
    v.map(|f| {
        if f.fract() == 0.0 && f.abs() < 9.0e15 {
            Number::Int(f as i64)
        } else {
            Number::Float(f)
        }
    })
}

pub fn flatten(schema: &Schema) -> Flat<'_> {
    let mut flat = Flat::default();
    match &schema.schema_kind {
        SchemaKind::Type(Type::String(s)) => {
            flat.typ = Some("string");
            flat.format = format_of(&s.format);
            flat.pattern = s.pattern.as_deref();
            flat.min_length = s.min_length;
            flat.max_length = s.max_length;
            flat.enumeration = s
                .enumeration
                .iter()
                .map(|v| v.clone().map_or(serde_json::Value::Null, Into::into))
                .collect();
        }
        SchemaKind::Type(Type::Integer(i)) => {
            flat.typ = Some("integer");
            flat.format = format_of(&i.format);
            flat.minimum = i.minimum.map(Number::Int);
            flat.maximum = i.maximum.map(Number::Int);
            flat.exclusive_minimum = i.exclusive_minimum;
            flat.exclusive_maximum = i.exclusive_maximum;
            flat.enumeration = i
                .enumeration
                .iter()
                .map(|v| v.map_or(serde_json::Value::Null, Into::into))
                .collect();
        }
        SchemaKind::Type(Type::Number(n)) => {
            flat.typ = Some("number");
            flat.format = format_of(&n.format);
            flat.minimum = float(n.minimum);
            flat.maximum = float(n.maximum);
            flat.exclusive_minimum = n.exclusive_minimum;
            flat.exclusive_maximum = n.exclusive_maximum;
        }
        SchemaKind::Type(Type::Boolean(_)) => flat.typ = Some("boolean"),
        SchemaKind::Type(Type::Object(o)) => {
            flat.typ = Some("object");
            flat.properties = o.properties.iter().collect();
            flat.required = o.required.iter().collect();
            flat.additional = o.additional_properties.as_ref();
        }
        SchemaKind::Type(Type::Array(a)) => {
            flat.typ = Some("array");
            flat.items = a.items.as_ref();
            flat.min_items = a.min_items;
            flat.max_items = a.max_items;
            flat.unique_items = a.unique_items;
        }
        SchemaKind::OneOf { one_of } => flat.one_of = one_of,
        SchemaKind::AnyOf { any_of } => flat.any_of = any_of,
        SchemaKind::AllOf { all_of } => flat.all_of = all_of,
        SchemaKind::Not { not } => {
            flat.not = Some(not);
            flat.not_alone = true;
        }
        SchemaKind::Any(a) => {
            flat.typ = a.typ.as_deref();
            flat.format = a.format.clone();
            flat.properties = a.properties.iter().collect();
            flat.required = a.required.iter().collect();
            flat.additional = a.additional_properties.as_ref();
            flat.items = a.items.as_ref();
            flat.enumeration = a.enumeration.clone();
            flat.minimum = float(a.minimum);
            flat.maximum = float(a.maximum);
            flat.exclusive_minimum = a.exclusive_minimum.unwrap_or(false);
            flat.exclusive_maximum = a.exclusive_maximum.unwrap_or(false);
            flat.min_length = a.min_length;
            flat.max_length = a.max_length;
            flat.pattern = a.pattern.as_deref();
            flat.min_items = a.min_items;
            flat.max_items = a.max_items;
            flat.unique_items = a.unique_items.unwrap_or(false);
            flat.one_of = &a.one_of;
            flat.any_of = &a.any_of;
            flat.all_of = &a.all_of;
            flat.not = a.not.as_deref();
            if flat.typ.is_none() && !flat.properties.is_empty() {
                flat.typ = Some("object");
            }
        }
    }
    flat
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_spelled_as_in_documents() {
        let s: Schema =
            serde_yaml::from_str("type: string\nformat: date-time\nmaxLength: 3").unwrap();
        let f = flatten(&s);
        assert_eq!(f.format.as_deref(), Some("date-time"));
        assert_eq!(f.max_length, Some(3));
        let i: Schema = serde_yaml::from_str("type: integer\nformat: int64").unwrap();
        assert_eq!(flatten(&i).format.as_deref(), Some("int64"));
    }

    #[test]
    fn mixed_schemas_are_flattened_too() {
        let s: Schema = serde_yaml::from_str(
            "type: object\nproperties: {a: {type: string}}\nallOf: [{type: object}]",
        )
        .unwrap();
        let f = flatten(&s);
        assert_eq!(f.typ, Some("object"));
        assert_eq!(f.properties.len(), 1);
        assert_eq!(f.all_of.len(), 1);
    }
}
