//! Which shape of a union (`oneOf`, `anyOf`) a value has, decided by the
//! schema rather than guessed.
//!
//! serde's `untagged` takes the first variant that parses, so a value that
//! fits two variants silently becomes whichever is listed first. Generated
//! unions decide instead: by their discriminator property when they have
//! one (given by the document, or inferred from a property each variant
//! fixes to one value; a value without it, where a variant's schema leaves
//! it optional, is decided as if there were none), and otherwise by trying
//! every variant: exactly one
//! must accept the value, with its required properties present and, where
//! it refuses other properties, nothing left over. None or several is an
//! error that names the candidates.

use super::form::FormValue;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// How a value arrived, which decides how its scalars read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A JSON body: a number is a number, a string a string.
    Json,
    /// Text from a query, path, header or form, where every scalar is
    /// written as text and reads as the type that asks for it.
    Text,
}

/// A union type: its variant for a value.
///
/// Generated unions decide by their discriminator property when they have
/// one. Without one, a `oneOf` tries every variant, and exactly one must
/// accept the value (none, or several, is an error naming them); an `anyOf`
/// takes the first variant that accepts it. A variant that is an object
/// accepts only a value with its required properties and, where it refuses
/// other properties, nothing else. Variants are tried with arrays after the
/// others and free text last: in text (a query, a header), one value is
/// also an array of one, and any value is a string.
pub trait Decide: Sized {
    /// The variant `value` has, or why it has none.
    fn decide(value: Value, source: Source) -> Result<Self, String>;
}

/// `Deserialize` for a union: the value, buffered as JSON, decided. In a
/// format that is not self-describing, a union is its JSON text (as it is
/// written there, see [`super::json_text`]).
///
/// Read tolerantly (not [`super::strictly`]), a value that fits no variant
/// because it has properties a variant refuses (a newer server's) is
/// decided again as if every variant allowed them.
pub fn decide_json<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Decide,
{
    let value = if deserializer.is_human_readable() {
        <Value as serde::Deserialize>::deserialize(deserializer)?
    } else {
        super::record::from_json_text(deserializer)?
    };
    if super::is_strict() {
        return T::decide(value, Source::Json).map_err(serde::de::Error::custom);
    }
    match T::decide(value.clone(), Source::Json) {
        Ok(decided) => Ok(decided),
        Err(first) => {
            let before = FIT_LOOSELY.with(|loose| loose.replace(true));
            let again = T::decide(value, Source::Json);
            FIT_LOOSELY.with(|loose| loose.set(before));
            again.map_err(|_| serde::de::Error::custom(first))
        }
    }
}

thread_local! {
    /// While set, [`fits_object`] ignores the properties a variant refuses.
    static FIT_LOOSELY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The error when no variant of a union accepts a value.
pub fn none_of(type_name: &str, names: &[&str]) -> String {
    format!(
        "the value is none of the shapes a `{type_name}` may take ({})",
        names.join(", ")
    )
}

/// `value` read as a `T`, as its source writes scalars.
pub fn read_variant<T: DeserializeOwned>(value: &Value, source: Source) -> Result<T, String> {
    match source {
        Source::Json => serde_json::from_value(value.clone()).map_err(|e| e.to_string()),
        Source::Text => T::deserialize(FormValue::new(value.clone())).map_err(|e| e.to_string()),
    }
}

/// Whether `value` is an object holding every `required` property (not
/// null) and, when `known` lists the only properties allowed, no other.
pub fn fits_object(value: &Value, required: &[&str], known: Option<&[&str]>) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    let complete = required
        .iter()
        .all(|name| object.get(*name).is_some_and(|v| !v.is_null()));
    let loosely = FIT_LOOSELY.with(std::cell::Cell::get);
    let nothing_else =
        loosely || known.is_none_or(|known| object.keys().all(|k| known.contains(&k.as_str())));
    complete && nothing_else
}

/// The one variant that accepted the value, from the `(name, value)` pairs
/// of those that did; `names` lists every variant of the union, for the
/// error when none or several did.
pub fn decide<T>(
    type_name: &str,
    names: &[&str],
    mut accepted: Vec<(&str, T)>,
) -> Result<T, String> {
    match accepted.len() {
        1 => Ok(accepted.pop().map(|(_, v)| v).expect("one")),
        0 => Err(none_of(type_name, names)),
        _ => {
            let both: Vec<&str> = accepted.iter().map(|(name, _)| *name).collect();
            Err(format!(
                "the value fits more than one shape of a `{type_name}` ({}): it must fit exactly one",
                both.join(", ")
            ))
        }
    }
}

/// The discriminator's value in `value`, for a union told apart by the
/// property `tag`.
pub fn tag_of<'v>(value: &'v Value, tag: &str) -> Result<&'v str, String> {
    value
        .get(tag)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing field `{tag}`, which tells the shapes apart"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Circle {
        radius: f64,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Square {
        side: f64,
    }

    #[derive(Debug, PartialEq)]
    enum Shape {
        Circle(Circle),
        Square(Square),
    }

    impl Decide for Shape {
        fn decide(value: Value, source: Source) -> Result<Self, String> {
            let mut accepted = Vec::new();
            if fits_object(&value, &["radius"], Some(&["radius"])) {
                if let Ok(v) = read_variant(&value, source) {
                    accepted.push(("Circle", Shape::Circle(v)));
                }
            }
            if fits_object(&value, &["side"], None) {
                if let Ok(v) = read_variant(&value, source) {
                    accepted.push(("Square", Shape::Square(v)));
                }
            }
            decide("Shape", &["Circle", "Square"], accepted)
        }
    }

    #[test]
    fn exactly_one_shape_must_accept() {
        assert_eq!(
            Shape::decide(json!({"radius": 1.0}), Source::Json),
            Ok(Shape::Circle(Circle { radius: 1.0 }))
        );
        assert_eq!(
            Shape::decide(json!({"side": 2.0, "colour": "red"}), Source::Json),
            Ok(Shape::Square(Square { side: 2.0 }))
        );
        // A circle refuses other properties: this is a square only.
        assert_eq!(
            Shape::decide(json!({"radius": 1.0, "side": 2.0}), Source::Json),
            Ok(Shape::Square(Square { side: 2.0 }))
        );
        assert_eq!(
            Shape::decide(json!({"edge": 1}), Source::Json).unwrap_err(),
            "the value is none of the shapes a `Shape` may take (Circle, Square)"
        );
        assert_eq!(
            Shape::decide(json!({"radius": "1"}), Source::Json).unwrap_err(),
            "the value is none of the shapes a `Shape` may take (Circle, Square)",
            "a JSON string is not a number"
        );
    }

    #[test]
    fn text_reads_scalars_as_the_shape_asks() {
        assert_eq!(
            Shape::decide(json!({"side": "2.5"}), Source::Text),
            Ok(Shape::Square(Square { side: 2.5 }))
        );
    }

    #[test]
    fn several_fits_are_refused_by_name() {
        #[derive(Debug, serde::Deserialize)]
        struct Named {
            #[allow(dead_code, reason = "read by serde")]
            name: String,
        }
        let accepted = vec![
            (
                "Dog",
                read_variant::<Named>(&json!({"name": "x"}), Source::Json).unwrap(),
            ),
            (
                "Cat",
                read_variant::<Named>(&json!({"name": "x"}), Source::Json).unwrap(),
            ),
        ];
        assert_eq!(
            decide("Pet", &["Dog", "Cat"], accepted).unwrap_err(),
            "the value fits more than one shape of a `Pet` (Dog, Cat): it must fit exactly one"
        );
        assert_eq!(tag_of(&json!({"kind": "dog"}), "kind"), Ok("dog"));
        assert!(tag_of(&json!({}), "kind").unwrap_err().contains("`kind`"));
    }
}
