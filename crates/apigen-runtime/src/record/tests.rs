use super::super::{FormValue, Nullable};
use super::*;

/// What the generator writes for `{id: integer (required), name:
/// string, note: string nullable (three states), tags: map of
/// strings}`, by hand.
#[derive(Debug, PartialEq)]
struct Pet {
    id: i64,
    name: Option<String>,
    note: Nullable<String>,
    rest: std::collections::BTreeMap<String, String>,
}

impl Record for Pet {
    const NAME: &'static str = "Pet";
    const FIELDS: &'static [&'static str] = &["id", "name", "note"];
    const OTHERS: Others = Others::Keep;
    type Slots = (
        Option<i64>,
        Option<String>,
        Option<Option<String>>,
        std::collections::BTreeMap<String, String>,
    );

    fn slots() -> Self::Slots {
        (None, None, None, Default::default())
    }

    fn fill<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        name: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match index {
            0 => fill(&mut slots.0, name, map),
            1 => fill(&mut slots.1, name, map),
            _ => fill(&mut slots.2, name, map),
        }
    }

    fn other<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        key: String,
        map: &mut A,
    ) -> Result<(), A::Error> {
        keep(&mut slots.3, key, map)
    }

    fn finish<E: de::Error>(slots: Self::Slots) -> Result<Self, E> {
        Ok(Pet {
            id: required_field(slots.0, "id")?,
            name: slots.1,
            note: nullable(slots.2),
            rest: slots.3,
        })
    }
}

impl<'de> Deserialize<'de> for Pet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read_record(deserializer)
    }
}

impl Serialize for Pet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = Writer::start_open(serializer, self);
        out.field("id", &self.id);
        out.optional("name", &self.name);
        out.nullable("note", &self.note);
        out.rest(&self.rest);
        out.end()
    }
}

#[test]
fn a_record_reads_each_property_as_its_schema_says() {
    let pet: Pet = serde_json::from_str(r#"{"id": 1, "note": null, "color": "red"}"#).unwrap();
    assert_eq!(pet.id, 1);
    assert_eq!(pet.name, None);
    assert_eq!(pet.note, Nullable::Null);
    assert_eq!(pet.rest["color"], "red");
    let absent: Pet = serde_json::from_str(r#"{"id": 1}"#).unwrap();
    assert_eq!(absent.note, Nullable::Absent);
    for (text, wanted) in [
        (r#"{"name": "x"}"#, "missing field `id`"),
        (r#"{"id": 1, "name": null}"#, "invalid type: null"),
        (r#"{"id": 1, "id": 2}"#, "duplicate field `id`"),
        (r#"{"id": "1"}"#, "invalid type: string"),
        (r#"[1]"#, "invalid type: sequence, expected a `Pet` object"),
    ] {
        let error = serde_json::from_str::<Pet>(text).unwrap_err().to_string();
        assert!(error.contains(wanted), "{text}: {error}");
    }
}

#[test]
fn a_record_writes_what_it_read() {
    for text in [
        r#"{"id":1,"note":null,"color":"red"}"#,
        r#"{"id":1,"name":"x"}"#,
        r#"{"id":1,"name":"x","note":"n"}"#,
    ] {
        let pet: Pet = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&pet).unwrap(), text);
    }
}

/// A value that cannot be written, saying which it is.
struct Refuses(&'static str);

impl Serialize for Refuses {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(self.0))
    }
}

struct Failing;

impl Serialize for Failing {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = Writer::start(serializer, "Failing", 3);
        out.field("id", &1);
        out.field("first", &Refuses("the first failure"));
        out.optional("second", &Some(Refuses("a later failure")));
        out.end()
    }
}

#[test]
fn a_writer_stops_at_its_first_error_and_returns_it() {
    let error = serde_json::to_string(&Failing).unwrap_err().to_string();
    assert_eq!(error, "the first failure");
}

#[test]
fn a_record_reads_text_as_its_fields_ask() {
    // A form or a deepObject query: every scalar is text.
    let tree = serde_json::json!({"id": "7", "name": "x"});
    let pet = Pet::deserialize(FormValue::new(tree)).unwrap();
    assert_eq!(pet.id, 7);
}

#[derive(Debug, Clone, PartialEq)]
enum Status {
    Available,
    Sold,
    Unknown(Unknown),
}

impl StringEnum for Status {
    const NAME: &'static str = "Status";
    const WIRE: &'static [&'static str] = &["available", "sold"];

    fn known(index: usize) -> Self {
        [Status::Available, Status::Sold][index].clone()
    }

    fn unknown(value: Unknown) -> Self {
        Status::Unknown(value)
    }

    fn wire(&self) -> &str {
        match self {
            Status::Available => "available",
            Status::Sold => "sold",
            Status::Unknown(value) => value.as_str(),
        }
    }
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        write_enum(self, serializer)
    }
}

#[test]
fn a_string_enum_keeps_a_value_it_does_not_know_unless_strict() {
    let read = |text: &str| read_enum::<_, Status>(serde_json::Value::String(text.into()));
    assert_eq!(read("sold").unwrap(), Status::Sold);
    let kept = read("gone").unwrap();
    assert_eq!(kept.wire(), "gone");
    assert!(matches!(kept, Status::Unknown(_)));
    // Written back as it was read; strictly (a server's answer), not.
    assert_eq!(serde_json::to_string(&kept).unwrap(), r#""gone""#);
    let refused = strictly(|| serde_json::to_string(&kept)).unwrap_err();
    assert!(
        refused.to_string().contains("`gone` is not a Status"),
        "{refused}"
    );
    let error = strictly(|| read("gone")).unwrap_err().to_string();
    assert!(
        error.contains("unknown variant `gone`, expected `available` or `sold`"),
        "{error}"
    );
    assert_eq!(Status::Sold.wire(), "sold");
    assert_eq!(
        parse_enum::<Status>("available").unwrap(),
        Status::Available
    );
    assert!(matches!(parse_enum::<Status>("x"), Ok(Status::Unknown(_))));
    assert!(strictly(|| parse_enum::<Status>("x")).is_err());
    assert!(!is_strict(), "the mode is put back");
}

/// `{id: integer (required), name: string}`, `additionalProperties: false`.
#[derive(Debug, PartialEq)]
struct Closed {
    id: i64,
    name: Option<String>,
}

impl Record for Closed {
    const NAME: &'static str = "Closed";
    const FIELDS: &'static [&'static str] = &["id", "name"];
    const OTHERS: Others = Others::Deny;
    type Slots = (Option<i64>, Option<String>);

    fn slots() -> Self::Slots {
        (None, None)
    }

    fn fill<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        name: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match index {
            0 => fill(&mut slots.0, name, map),
            _ => fill(&mut slots.1, name, map),
        }
    }

    fn finish<E: de::Error>(slots: Self::Slots) -> Result<Self, E> {
        Ok(Closed {
            id: required_field(slots.0, "id")?,
            name: slots.1,
        })
    }
}

impl<'de> Deserialize<'de> for Closed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read_record(deserializer)
    }
}

impl Serialize for Closed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = Writer::start(serializer, "Closed", 2);
        out.field("id", &self.id);
        out.optional("name", &self.name);
        out.end()
    }
}

#[test]
fn a_property_the_schema_forbids_is_skipped_unless_strict() {
    let text = r#"{"id": 1, "added": true}"#;
    let read: Closed = serde_json::from_str(text).unwrap();
    assert_eq!(read, Closed { id: 1, name: None });
    let refused = strictly(|| serde_json::from_str::<Closed>(text)).unwrap_err();
    assert!(
        refused.to_string().contains("unknown field `added`"),
        "{refused}"
    );
}

/// JSON read as a format that is not self-describing reads it (postcard,
/// MessagePack), so that a sequence's errors show as such a format's do.
struct Compact(serde_json::Value);

impl<'de> Deserializer<'de> for Compact {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.0.deserialize_any(visitor)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

fn compact<T: de::DeserializeOwned>(json: &str) -> Result<T, serde_json::Error> {
    T::deserialize(Compact(serde_json::from_str(json)?))
}

#[test]
fn a_record_reads_a_sequence_of_its_properties_in_order() {
    let read: Closed = compact(r#"[1, "x"]"#).unwrap();
    assert_eq!(
        read,
        Closed {
            id: 1,
            name: Some("x".into())
        }
    );
    let absent: Closed = compact(r#"[1, null]"#).unwrap();
    assert_eq!(absent, Closed { id: 1, name: None });
    let error = compact::<Closed>(r#"[1]"#).unwrap_err().to_string();
    assert!(error.contains("invalid length 1"), "{error}");
    let error = compact::<Closed>(r#"[null, "x"]"#).unwrap_err().to_string();
    assert!(error.contains("missing field `id`"), "{error}");
    // In JSON an array is never an object.
    let error = serde_json::from_str::<Closed>(r#"[1, "x"]"#)
        .unwrap_err()
        .to_string();
    assert!(error.contains("invalid type: sequence"), "{error}");
}

#[test]
fn formats_that_are_not_self_describing_carry_every_property_in_order() {
    for closed in [
        Closed { id: 1, name: None },
        Closed {
            id: -7,
            name: Some("x".into()),
        },
    ] {
        let bytes = postcard::to_allocvec(&closed).unwrap();
        assert_eq!(postcard::from_bytes::<Closed>(&bytes).unwrap(), closed);
    }
    // A record with more properties than it names goes as JSON text.
    let pet: Pet = serde_json::from_str(r#"{"id": 1, "note": null, "color": "red"}"#).unwrap();
    let bytes = postcard::to_allocvec(&pet).unwrap();
    assert_eq!(postcard::from_bytes::<Pet>(&bytes).unwrap(), pet);
    // As a struct in JSON too: the properties present, in order.
    let closed = Closed { id: 2, name: None };
    assert_eq!(serde_json::to_string(&closed).unwrap(), r#"{"id":2}"#);
}
