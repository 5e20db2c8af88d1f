//! How generated structs and string enums are read and written: what
//! serde's derive would write again for every type, written once.
//!
//! A generated struct implements [`Record`]: its name, its properties' wire
//! names, a slot per property, and two small functions, `fill` (read one
//! property's value into its slot) and `finish` (the struct from its
//! slots, each property taken as the schema says: required, optional,
//! nullable, defaulted). Its `Deserialize` is [`read_record`], its
//! `Serialize` a few calls on [`Writer`]. A string enum implements
//! [`StringEnum`] and reads and writes itself through it.
//!
//! The point is the size of generated code. serde's derive writes a field
//! enum, two visitors and a sequence form for every struct, about four
//! times what a struct's `Record` impl is, and the compiler checks every
//! line of it: for an API of thousands of types that is most of the build.
//! Reading is as direct as the derive's (each property is read straight
//! into its own type, nothing is buffered) except for properties kept for
//! a flattened part, which are buffered as JSON.

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::marker::PhantomData;

/// What a struct does with properties it does not name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Others {
    /// Skipped, as JSON Schema allows by default.
    Ignore,
    /// Refused (`additionalProperties: false`).
    Deny,
    /// Kept, by [`Record::other`]: the rest of an object whose schema
    /// allows more (`additionalProperties: <schema>`), or a flattened part.
    Keep,
}

/// A generated struct, read from a JSON object property by property.
pub trait Record: Sized {
    /// The type's name, for errors.
    const NAME: &'static str;
    /// Its properties' names on the wire; a property's index here is its
    /// slot's.
    const FIELDS: &'static [&'static str];
    /// What it does with other properties.
    const OTHERS: Others = Others::Ignore;
    /// The value of each property as read so far: one `Option` per
    /// property, in order, and what [`Record::other`] keeps.
    type Slots;

    /// Slots with nothing read.
    fn slots() -> Self::Slots;

    /// Reads the value of property `index` (named `name`) from `map` into
    /// its slot (with [`fill`]).
    fn fill<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        name: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error>;

    /// Reads the value of a property not in [`Record::FIELDS`], when
    /// [`Record::OTHERS`] is [`Others::Keep`].
    fn other<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        key: String,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let _ = (slots, key);
        map.next_value::<de::IgnoredAny>().map(drop)
    }

    /// The struct from what was read: an error when a required property
    /// is missing.
    fn finish<E: de::Error>(slots: Self::Slots) -> Result<Self, E>;
}

/// `Deserialize` for a [`Record`].
pub fn read_record<'de, D: Deserializer<'de>, T: Record>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_struct(T::NAME, T::FIELDS, RecordVisitor(PhantomData))
}

struct RecordVisitor<T>(PhantomData<T>);

impl<'de, T: Record> Visitor<'de> for RecordVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a `{}` object", T::NAME)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut slots = T::slots();
        while let Some(key) = map.next_key_seed(Key(T::FIELDS))? {
            match key {
                Named(index) => T::fill(&mut slots, index, T::FIELDS[index], &mut map)?,
                Other(key) => match T::OTHERS {
                    Others::Ignore => {
                        map.next_value::<de::IgnoredAny>()?;
                    }
                    Others::Deny => return Err(de::Error::unknown_field(&key, T::FIELDS)),
                    Others::Keep => T::other(&mut slots, key, &mut map)?,
                },
            }
        }
        T::finish(slots)
    }
}

/// A property's name: the index of one of the names, or another.
enum Property {
    Named(usize),
    Other(String),
}
use Property::{Named, Other};

/// Reads a property name as the index of one of `.0`.
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Property;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Property, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Key {
    type Value = Property;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a property name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Property, E> {
        Ok(match self.0.iter().position(|name| *name == key) {
            Some(index) => Named(index),
            None => Other(key.to_string()),
        })
    }
}

/// Reads a property's value into its slot; a property given twice is an
/// error.
pub fn fill<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Reads the value of a property that admits null and has no text `null`
/// (see [`super::NullText`]) into its slot; a property given twice
/// is an error.
pub fn fill_nullable<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut Option<Option<T>>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    let mut read = slot.take().map(super::NullText);
    let filled = fill(&mut read, name, map);
    *slot = read.map(|text| text.0);
    filled
}

/// A required property's value; its absence is an error.
pub fn required_field<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| de::Error::missing_field(name))
}

/// A required property that is a list: its absence is an error, except
/// in a form or multipart body, which cannot spell an empty list and
/// leaves it out (so that a required list may be empty there too).
pub fn required_list<T, E: de::Error>(
    slot: Option<Vec<T>>,
    name: &'static str,
) -> Result<Vec<T>, E> {
    match slot {
        Some(list) => Ok(list),
        None if TextBody::reading() => Ok(Vec::new()),
        None => Err(de::Error::missing_field(name)),
    }
}

thread_local! {
    static TEXT_BODY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While one is held, the records read on this thread come from a form or
/// multipart body (see [`required_list`]). Reading is synchronous, so the
/// flag cannot leak into another request's reading.
pub(crate) struct TextBody(bool);

impl TextBody {
    #[cfg(feature = "server")]
    pub(crate) fn begin() -> Self {
        TextBody(TEXT_BODY.with(|flag| flag.replace(true)))
    }

    fn reading() -> bool {
        TEXT_BODY.with(std::cell::Cell::get)
    }
}

impl Drop for TextBody {
    fn drop(&mut self) {
        TEXT_BODY.with(|flag| flag.set(self.0));
    }
}

/// A property that may be absent and may be `null`, where the two mean
/// different things.
pub fn nullable<T>(slot: Option<Option<T>>) -> super::Nullable<T> {
    match slot {
        None => super::Nullable::Absent,
        Some(None) => super::Nullable::Null,
        Some(Some(value)) => super::Nullable::Value(value),
    }
}

/// Keeps a property a [`Record`] does not name, in a map of the rest
/// (`additionalProperties: <schema>`).
pub fn keep<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    rest: &mut std::collections::BTreeMap<String, T>,
    key: String,
    map: &mut A,
) -> Result<(), A::Error> {
    let value = map.next_value()?;
    rest.insert(key, value);
    Ok(())
}

/// Keeps a property a [`Record`] does not name, as JSON, for a flattened
/// part read from them all ([`flattened`]).
pub fn keep_json<'de, A: MapAccess<'de>>(
    rest: &mut serde_json::Map<String, serde_json::Value>,
    key: String,
    map: &mut A,
) -> Result<(), A::Error> {
    let value = map.next_value()?;
    rest.insert(key, value);
    Ok(())
}

/// Gives the flattened parts a property the struct reads itself (a
/// union's discriminator declared beside `oneOf`): its value, when the
/// object had one, as JSON among the others.
pub fn share<T: Serialize, E: de::Error>(
    rest: &mut serde_json::Map<String, serde_json::Value>,
    name: &str,
    slot: &Option<T>,
) -> Result<(), E> {
    if let Some(value) = slot {
        let value = serde_json::to_value(value).map_err(de::Error::custom)?;
        rest.insert(name.to_string(), value);
    }
    Ok(())
}

/// A flattened part (the shape an object also has: `oneOf` beside its
/// properties), read from the properties its struct does not name.
pub fn flattened<T: serde::de::DeserializeOwned, E: de::Error>(
    rest: serde_json::Map<String, serde_json::Value>,
) -> Result<T, E> {
    T::deserialize(serde_json::Value::Object(rest)).map_err(de::Error::custom)
}

/// Writes a generated struct as a JSON object, property by property.
///
/// The first error is kept and every later write skipped; [`Writer::end`]
/// returns it. So a generated `serialize` is a plain list of writes, not a
/// `?` per property: one early return per property made up a twentieth of
/// the memory a large API's crate took to check.
pub struct Writer<M: SerializeMap> {
    map: Result<M, M::Error>,
}

impl<M: SerializeMap> std::fmt::Debug for Writer<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("failed", &self.map.is_err())
            .finish()
    }
}

impl<M: SerializeMap> Writer<M> {
    /// Starts the object.
    pub fn start<S: Serializer<SerializeMap = M, Error = M::Error>>(serializer: S) -> Self {
        Writer {
            map: serializer.serialize_map(None),
        }
    }

    /// Runs one write unless an earlier one failed, and keeps its error.
    fn write(&mut self, write: impl FnOnce(&mut M) -> Result<(), M::Error>) {
        if let Ok(map) = &mut self.map {
            if let Err(error) = write(map) {
                self.map = Err(error);
            }
        }
    }

    /// A property that is always written.
    pub fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        self.write(|map| map.serialize_entry(name, value));
    }

    /// An optional property: written when it has a value.
    pub fn optional<T: Serialize>(&mut self, name: &str, value: &Option<T>) {
        if let Some(value) = value {
            self.field(name, value);
        }
    }

    /// A property that may be absent or `null`: written unless absent.
    pub fn nullable<T: Serialize>(&mut self, name: &str, value: &super::Nullable<T>) {
        if !value.is_absent() {
            self.field(name, value);
        }
    }

    /// The rest of the object's properties, from a map.
    pub fn rest<T: Serialize>(&mut self, rest: &std::collections::BTreeMap<String, T>) {
        self.write(|map| {
            rest.iter()
                .try_for_each(|(name, value)| map.serialize_entry(name, value))
        });
    }

    /// A flattened part: its properties, written into this object. A part
    /// that is not an object is an error.
    pub fn flatten<T: Serialize>(&mut self, part: &T) {
        self.flatten_except(part, &[]);
    }

    /// A flattened part but for the properties the struct writes itself
    /// (those it shares with the part, see [`share`]).
    pub fn flatten_except<T: Serialize>(&mut self, part: &T, written: &[&str]) {
        self.write(
            |map| match serde_json::to_value(part).map_err(serde::ser::Error::custom)? {
                serde_json::Value::Object(properties) => properties
                    .iter()
                    .filter(|(name, _)| !written.contains(&name.as_str()))
                    .try_for_each(|(name, value)| map.serialize_entry(name, value)),
                serde_json::Value::Null => Ok(()),
                _ => Err(serde::ser::Error::custom(
                    "a flattened part must be an object",
                )),
            },
        );
    }

    /// Ends the object, or returns the first write's error.
    pub fn end(self) -> Result<M::Ok, M::Error> {
        self.map?.end()
    }
}

/// A generated string enum: its values as the wire writes them.
pub trait StringEnum: Sized + Copy + 'static {
    /// The type's name, for errors.
    const NAME: &'static str;
    /// Every value, in the order the spec lists them.
    const ALL: &'static [Self];
    /// How each value of [`StringEnum::ALL`] is written, in the same order.
    const WIRE: &'static [&'static str];

    /// The value's index in [`StringEnum::ALL`].
    fn index(self) -> usize;

    /// The value as it is written on the wire.
    fn wire(self) -> &'static str {
        Self::WIRE[self.index()]
    }

    /// The value `text` writes, if it is one.
    fn from_wire(text: &str) -> Option<Self> {
        let index = Self::WIRE.iter().position(|w| *w == text)?;
        Some(Self::ALL[index])
    }
}

/// `FromStr` for a [`StringEnum`].
pub fn parse_enum<T: StringEnum>(text: &str) -> Result<T, super::UnknownVariant> {
    T::from_wire(text).ok_or_else(|| super::UnknownVariant {
        type_name: T::NAME,
        value: text.to_string(),
    })
}

/// `Deserialize` for a [`StringEnum`]: a string that is one of its values.
pub fn read_enum<'de, D: Deserializer<'de>, T: StringEnum>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_str(EnumVisitor(PhantomData))
}

struct EnumVisitor<T>(PhantomData<T>);

impl<T: StringEnum> Visitor<'_> for EnumVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "one of `{}`", T::WIRE.join("`, `"))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        T::from_wire(text).ok_or_else(|| de::Error::unknown_variant(text, T::WIRE))
    }
}

#[cfg(test)]
mod tests {
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
            let mut out = Writer::start(serializer);
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
            (r#"[1]"#, "a `Pet` object"),
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
            let mut out = Writer::start(serializer);
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

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Status {
        Available,
        Sold,
    }

    impl StringEnum for Status {
        const NAME: &'static str = "Status";
        const ALL: &'static [Self] = &[Status::Available, Status::Sold];
        const WIRE: &'static [&'static str] = &["available", "sold"];

        fn index(self) -> usize {
            self as usize
        }
    }

    #[test]
    fn a_string_enum_reads_its_values_and_refuses_others() {
        let read = |text: &str| read_enum::<_, Status>(serde_json::Value::String(text.into()));
        assert_eq!(read("sold").unwrap(), Status::Sold);
        let error = read("gone").unwrap_err().to_string();
        assert!(
            error.contains("unknown variant `gone`, expected `available` or `sold`"),
            "{error}"
        );
        assert_eq!(Status::Sold.wire(), "sold");
        assert_eq!(
            parse_enum::<Status>("available").unwrap(),
            Status::Available
        );
        assert!(parse_enum::<Status>("x").is_err());
    }
}
