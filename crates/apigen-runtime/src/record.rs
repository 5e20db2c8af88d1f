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
//! Records are ordinary serde types: JSON (and any self-describing format)
//! reads and writes them as objects; a format that is not self-describing
//! (postcard, bincode, ...) as a sequence of every property in order, each
//! an `Option` (absent or present). A record with properties beyond its
//! named ones, and a union, go in such a format as their JSON text.
//!
//! Reading is tolerant unless [`strictly`] says otherwise: a property a
//! struct does not name is skipped even where the schema says
//! `additionalProperties: false`, and a string enum keeps a value it does
//! not know ([`Unknown`]), so that a client reads what a newer server
//! sends. The server's glue reads requests strictly, as the spec says; and
//! strictly, an [`Unknown`] cannot be written, so a server never sends one.
//!
//! The point is the size of generated code. serde's derive writes a field
//! enum, two visitors and a sequence form for every struct, about four
//! times what a struct's `Record` impl is, and the compiler checks every
//! line of it: for an API of thousands of types that is most of the build.
//! Reading is as direct as the derive's (each property is read straight
//! into its own type, nothing is buffered) except for properties kept for
//! a flattened part, which are buffered as JSON.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::marker::PhantomData;

thread_local! {
    static STRICT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `read` strictly: records refuse properties the schema forbids
/// (`additionalProperties: false`), string enums refuse values they do not
/// know, and an [`Unknown`] value cannot be written. Reading and writing
/// are synchronous, so the mode cannot leak into another task's. The
/// server's glue reads requests and writes answers so; a client reads so
/// when told to (`Core::set_strict`).
pub fn strictly<R>(read: impl FnOnce() -> R) -> R {
    let before = STRICT.with(|flag| flag.replace(true));
    let restore = Restore(before);
    let result = read();
    drop(restore);
    result
}

/// Puts the strict flag back as it was, also when reading panics.
struct Restore(bool);

impl Drop for Restore {
    fn drop(&mut self) {
        STRICT.with(|flag| flag.set(self.0));
    }
}

/// Whether this thread reads strictly now (see [`strictly`]).
pub fn is_strict() -> bool {
    STRICT.with(std::cell::Cell::get)
}

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

/// `Deserialize` for a [`Record`]: from an object (its properties by
/// name) or a sequence (every property in order, each an `Option`). In a
/// format that is not self-describing, a record with properties beyond
/// its named ones is its JSON text.
pub fn read_record<'de, D: Deserializer<'de>, T: Record + de::DeserializeOwned>(
    deserializer: D,
) -> Result<T, D::Error> {
    if T::OTHERS == Others::Keep && !deserializer.is_human_readable() {
        return from_json_text(deserializer);
    }
    let visitor = RecordVisitor {
        positional: !deserializer.is_human_readable(),
        record: PhantomData,
    };
    deserializer.deserialize_struct(T::NAME, T::FIELDS, visitor)
}

/// A value written as its JSON text (see [`Writer::start_open`]), read.
pub(crate) fn from_json_text<'de, D: Deserializer<'de>, T: de::DeserializeOwned>(
    deserializer: D,
) -> Result<T, D::Error> {
    let text = String::deserialize(deserializer)?;
    serde_json::from_str(&text).map_err(de::Error::custom)
}

/// A value written as its JSON text, for a format that cannot carry it
/// otherwise (a union in a format that is not self-describing, which could
/// not tell its variants apart on reading).
pub fn json_text<T: Serialize + ?Sized, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let text = serde_json::to_string(value).map_err(serde::ser::Error::custom)?;
    serializer.serialize_str(&text)
}

/// Reads a record from an object or, in a format that is not
/// self-describing only, from a sequence: in JSON an array is never an
/// object, whatever serde's derive would accept.
struct RecordVisitor<T> {
    positional: bool,
    record: PhantomData<T>,
}

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
                    Others::Deny if is_strict() => {
                        return Err(de::Error::unknown_field(&key, T::FIELDS))
                    }
                    Others::Ignore | Others::Deny => {
                        map.next_value::<de::IgnoredAny>()?;
                    }
                    Others::Keep => T::other(&mut slots, key, &mut map)?,
                },
            }
        }
        T::finish(slots)
    }

    /// Every property in order, each an `Option`: `None` for one absent.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        if !self.positional {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        let mut slots = T::slots();
        for index in 0..T::FIELDS.len() {
            let seed = Positional::<T> {
                slots: &mut slots,
                index,
            };
            if seq.next_element_seed(seed)?.is_none() {
                return Err(de::Error::invalid_length(index, &self));
            }
        }
        T::finish(slots)
    }
}

/// Reads the property at `index` of a record written as a sequence: an
/// `Option`, whose value (if any) goes into its slot.
struct Positional<'s, T: Record> {
    slots: &'s mut T::Slots,
    index: usize,
}

impl<'de, T: Record> DeserializeSeed<'de> for Positional<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: Record> Visitor<'de> for Positional<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` of `{}`, or nothing",
            T::FIELDS[self.index],
            T::NAME
        )
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let name = T::FIELDS[self.index];
        T::fill(
            self.slots,
            self.index,
            name,
            &mut OneValue(Some(deserializer)),
        )
    }
}

/// One value, as a map that [`Record::fill`] reads it from.
struct OneValue<D>(Option<D>);

impl<'de, D: Deserializer<'de>> MapAccess<'de> for OneValue<D> {
    type Error = D::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        _: K,
    ) -> Result<Option<K::Value>, D::Error> {
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, D::Error> {
        match self.0.take() {
            Some(deserializer) => seed.deserialize(deserializer),
            None => Err(de::Error::custom("a property read twice")),
        }
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

/// The error for the first of a record's required properties that is
/// missing: `missing[i]` says whether `names[i]` is. (A generated
/// `finish` binds every required property in one `let ... else`, which is
/// a fraction of the code a check each would be.)
pub fn missing<E: de::Error>(missing: &[bool], names: &[&'static str]) -> E {
    let name = missing
        .iter()
        .zip(names)
        .find_map(|(missing, name)| missing.then_some(*name))
        .unwrap_or("a required property");
    de::Error::missing_field(name)
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

/// Writes a generated struct, property by property: as a struct of the
/// properties present in a self-describing format (JSON), of every
/// property in order, each an `Option`, in one that is not (postcard,
/// bincode); an object with properties beyond its named ones
/// ([`Writer::start_open`]) as a map, or as its JSON text where a format
/// cannot carry a map of unknown keys.
///
/// The first error is kept and every later write skipped; [`Writer::end`]
/// returns it. So a generated `serialize` is a plain list of writes, not a
/// `?` per property: one early return per property made up a twentieth of
/// the memory a large API's crate took to check.
pub struct Writer<S: Serializer> {
    state: State<S>,
}

enum State<S: Serializer> {
    /// The properties present, by name.
    Named(S::SerializeStruct),
    /// Every property, in order, each an `Option`.
    Positional(S::SerializeStruct),
    /// An object with properties beyond its named ones.
    Open(S::SerializeMap),
    /// Written already (as JSON text), or failed.
    Done(Result<S::Ok, S::Error>),
}

impl<S: Serializer> std::fmt::Debug for Writer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            State::Named(_) => "named",
            State::Positional(_) => "positional",
            State::Open(_) => "open",
            State::Done(Ok(_)) => "written",
            State::Done(Err(_)) => "failed",
        };
        f.debug_struct("Writer").field("state", &state).finish()
    }
}

impl<S: Serializer> Writer<S> {
    /// Starts the struct `name`, which has `len` properties.
    pub fn start(serializer: S, name: &'static str, len: usize) -> Self {
        let positional = !serializer.is_human_readable();
        let state = match serializer.serialize_struct(name, len) {
            Ok(out) if positional => State::Positional(out),
            Ok(out) => State::Named(out),
            Err(e) => State::Done(Err(e)),
        };
        Writer { state }
    }

    /// Starts an object that has properties beyond its named ones (the
    /// rest of an `additionalProperties` schema, a flattened part):
    /// `value` is the object itself, written whole as JSON text where the
    /// format is not self-describing.
    pub fn start_open<T: Serialize>(serializer: S, value: &T) -> Self {
        let state = if serializer.is_human_readable() {
            match serializer.serialize_map(None) {
                Ok(out) => State::Open(out),
                Err(e) => State::Done(Err(e)),
            }
        } else {
            State::Done(json_text(value, serializer))
        };
        Writer { state }
    }

    /// Keeps a write's error as the writer's outcome.
    fn keep(&mut self, written: Result<(), S::Error>) {
        if let Err(e) = written {
            self.state = State::Done(Err(e));
        }
    }

    /// A property that is always written.
    pub fn field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) {
        let written = match &mut self.state {
            State::Named(out) => out.serialize_field(name, value),
            State::Positional(out) => out.serialize_field(name, &Some(value)),
            State::Open(out) => out.serialize_entry(name, value),
            State::Done(_) => Ok(()),
        };
        self.keep(written);
    }

    /// An optional property: written when it has a value.
    pub fn optional<T: Serialize>(&mut self, name: &'static str, value: &Option<T>) {
        let written = match (&mut self.state, value) {
            (State::Positional(out), value) => out.serialize_field(name, value),
            (State::Named(out), None) => out.skip_field(name),
            (_, Some(value)) => return self.field(name, value),
            (_, None) => Ok(()),
        };
        self.keep(written);
    }

    /// A property that may be absent or `null`: written unless absent.
    pub fn nullable<T: Serialize>(&mut self, name: &'static str, value: &super::Nullable<T>) {
        let present = (!value.is_absent()).then_some(value);
        let written = match (&mut self.state, present) {
            (State::Positional(out), present) => out.serialize_field(name, &present),
            (State::Named(out), None) => out.skip_field(name),
            (_, Some(value)) => return self.field(name, value),
            (_, None) => Ok(()),
        };
        self.keep(written);
    }

    /// The rest of an open object's properties, from a map.
    pub fn rest<T: Serialize>(&mut self, rest: &std::collections::BTreeMap<String, T>) {
        let written = match &mut self.state {
            State::Open(out) => rest
                .iter()
                .try_for_each(|(name, value)| out.serialize_entry(name, value)),
            State::Done(_) => Ok(()),
            State::Named(_) | State::Positional(_) => Err(not_open()),
        };
        self.keep(written);
    }

    /// A flattened part: its properties, written into this open object. A
    /// part that is not an object is an error.
    pub fn flatten<T: Serialize>(&mut self, part: &T) {
        self.flatten_except(part, &[]);
    }

    /// A flattened part but for the properties the struct writes itself
    /// (those it shares with the part, see [`share`]).
    pub fn flatten_except<T: Serialize>(&mut self, part: &T, written: &[&str]) {
        let out = match &mut self.state {
            State::Open(out) => out,
            State::Done(_) => return,
            State::Named(_) | State::Positional(_) => return self.keep(Err(not_open())),
        };
        let flattened = match serde_json::to_value(part).map_err(serde::ser::Error::custom) {
            Ok(serde_json::Value::Object(properties)) => properties
                .iter()
                .filter(|(name, _)| !written.contains(&name.as_str()))
                .try_for_each(|(name, value)| out.serialize_entry(name, value)),
            Ok(serde_json::Value::Null) => Ok(()),
            Ok(_) => Err(serde::ser::Error::custom(
                "a flattened part must be an object",
            )),
            Err(e) => Err(e),
        };
        self.keep(flattened);
    }

    /// Ends the object, or returns the first write's error.
    pub fn end(self) -> Result<S::Ok, S::Error> {
        match self.state {
            State::Named(out) | State::Positional(out) => out.end(),
            State::Open(out) => out.end(),
            State::Done(result) => result,
        }
    }
}

/// What writing beyond the named properties of a struct started with
/// [`Writer::start`] is.
fn not_open<E: serde::ser::Error>() -> E {
    E::custom("properties beyond the named ones in a struct not started open")
}

/// A generated string enum: its values as the wire writes them, and a
/// variant that keeps a value it does not know ([`Unknown`]).
pub trait StringEnum: Sized + 'static {
    /// The type's name, for errors.
    const NAME: &'static str;
    /// How each known value is written, in the order the spec lists them.
    const WIRE: &'static [&'static str];

    /// The known value at `index` of [`StringEnum::WIRE`].
    fn known(index: usize) -> Self;

    /// A value the spec does not list, kept as it was read.
    fn unknown(value: Unknown) -> Self;

    /// The value as it is written on the wire.
    fn wire(&self) -> &str;

    /// The known value `text` writes, if it is one.
    fn from_wire(text: &str) -> Option<Self> {
        let index = Self::WIRE.iter().position(|w| *w == text)?;
        Some(Self::known(index))
    }

    /// The value `text` writes: a known one, or (unless reading
    /// [`strictly`]) one kept as [`Unknown`].
    fn read(text: &str) -> Option<Self> {
        match Self::from_wire(text) {
            Some(known) => Some(known),
            None if is_strict() => None,
            None => Some(Self::unknown(Unknown(text.into()))),
        }
    }
}

/// A value of a string enum that the spec this code was generated from does
/// not list: a newer server's, say. Only reading makes one (a client reads
/// tolerantly): code cannot, and strictly (as a server writes its answers)
/// one cannot be written, so a server never sends a value its spec does
/// not list.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unknown(Box<str>);

impl Unknown {
    /// The value, as it was read.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `Hash` for a [`StringEnum`]: its wire text (two values are equal when
/// their text is).
pub fn hash_enum<T: StringEnum, H: std::hash::Hasher>(value: &T, state: &mut H) {
    std::hash::Hash::hash(value.wire(), state);
}

/// `Ord` for a [`StringEnum`]: the known values in the spec's order, then
/// unknown ones by their text.
pub fn compare_enums<T: StringEnum>(a: &T, b: &T) -> std::cmp::Ordering {
    let (a, b) = (a.wire(), b.wire());
    let at = |wire: &str| {
        T::WIRE
            .iter()
            .position(|w| *w == wire)
            .unwrap_or(T::WIRE.len())
    };
    at(a).cmp(&at(b)).then_with(|| a.cmp(b))
}

/// `FromStr` for a [`StringEnum`]: a known value, or (unless reading
/// [`strictly`]) one kept as [`Unknown`].
pub fn parse_enum<T: StringEnum>(text: &str) -> Result<T, super::UnknownVariant> {
    T::read(text).ok_or_else(|| super::UnknownVariant {
        type_name: T::NAME,
        value: text.to_string(),
    })
}

/// `Serialize` for a [`StringEnum`]: the value as the wire writes it. An
/// [`Unknown`] one is written back as it was read, except strictly (a
/// server's answer), where it is an error.
pub fn write_enum<T: StringEnum, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let wire = value.wire();
    if is_strict() && !T::WIRE.contains(&wire) {
        return Err(serde::ser::Error::custom(format!(
            "`{wire}` is not a {} the spec lists",
            T::NAME
        )));
    }
    serializer.serialize_str(wire)
}

/// `Deserialize` for a [`StringEnum`]: a string that is one of its values,
/// or (unless reading [`strictly`]) one kept as [`Unknown`].
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
        T::read(text).ok_or_else(|| de::Error::unknown_variant(text, T::WIRE))
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
            (r#"[1]"#, "invalid length 1, expected a `Pet` object"),
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

    #[test]
    fn a_record_reads_a_sequence_of_its_properties_in_order() {
        let read: Closed = serde_json::from_str(r#"[1, "x"]"#).unwrap();
        assert_eq!(
            read,
            Closed {
                id: 1,
                name: Some("x".into())
            }
        );
        let absent: Closed = serde_json::from_str(r#"[1, null]"#).unwrap();
        assert_eq!(absent, Closed { id: 1, name: None });
        let error = serde_json::from_str::<Closed>(r#"[1]"#)
            .unwrap_err()
            .to_string();
        assert!(error.contains("invalid length 1"), "{error}");
        let error = serde_json::from_str::<Closed>(r#"[null, "x"]"#)
            .unwrap_err()
            .to_string();
        assert!(error.contains("missing field `id`"), "{error}");
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
}
