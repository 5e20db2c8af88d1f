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
    #[cfg(feature = "serving")]
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
mod tests;
