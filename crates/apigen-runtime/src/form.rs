//! Forms, multipart bodies and styled parameters read into a JSON tree, and
//! [`FormValue`], which decodes such a tree into a typed value (reading
//! numbers and booleans from text where the type wants them).

use super::rejection::{Rejection, RejectionKind};
use super::values::BYTES;

/// JSON value: `a[b][c]=1` nests, `a[]=1&a[]=2` and repeated keys make arrays.
/// Every leaf is a string; [`FormValue`] reads numbers and booleans from it.
/// A form (`application/x-www-form-urlencoded`) or query string, read into a
pub fn form_tree<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> serde_json::Value {
    value_tree(pairs.map(|(k, v)| (k, serde_json::Value::String(v.into()))))
}

/// [`form_tree`] with leaves of any JSON value (multipart file parts are
/// arrays of bytes).
fn value_tree<'a>(pairs: impl Iterator<Item = (&'a str, serde_json::Value)>) -> serde_json::Value {
    use serde_json::Value;
    fn push(slot: &mut Value, value: Value) {
        match slot {
            Value::Array(items) => items.push(value),
            other => {
                let previous = other.take();
                *other = Value::Array(vec![previous, value]);
            }
        }
    }
    fn insert(node: &mut Value, path: &[&str], value: Value) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        if !node.is_object() {
            *node = Value::Object(Default::default());
        }
        let Value::Object(map) = node else { return };
        if rest.is_empty() {
            match map.get_mut(*first) {
                Some(existing) => push(existing, value),
                None => {
                    map.insert((*first).into(), value);
                }
            }
        } else if rest == [""] {
            // `a[]=1`: an array item.
            push(
                map.entry(*first)
                    .or_insert_with(|| Value::Array(Vec::new())),
                value,
            );
        } else {
            let child = map
                .entry(*first)
                .or_insert_with(|| Value::Object(Default::default()));
            insert(child, rest, value);
        }
    }
    let mut root = Value::Object(Default::default());
    for (key, value) in pairs {
        let (head, tail) = key.split_once('[').unwrap_or((key, ""));
        let mut path = vec![head];
        path.extend(
            tail.split('[')
                .filter(|s| !s.is_empty() || tail == "]")
                .map(|s| s.trim_end_matches(']')),
        );
        if tail.is_empty() {
            path.truncate(1);
        }
        insert(&mut root, &path, value);
    }
    root
}

/// Reads a `multipart/form-data` body into a tree like [`form_tree`]'s: a
/// part named `a[b]` nests, a text part is a string, a part whose
/// `Content-Type` is JSON its JSON value, a file part (one with a
/// `filename`) an array of its bytes, which decodes into a `Vec<u8>` field;
/// with the names of the parts sent as JSON ([`FormValue::multipart`]
/// reads them strictly).
pub fn multipart_tree(
    content_type: &str,
    body: &[u8],
) -> Result<(serde_json::Value, Vec<String>), Rejection> {
    let bad = |why: &str| {
        Rejection::new(
            RejectionKind::BadRequest,
            format!("the multipart body is malformed: {why}"),
        )
    };
    let boundary =
        super::media::parameter(content_type, "boundary").ok_or_else(|| bad("no boundary"))?;
    let delimiter = format!("--{boundary}");
    let find = |haystack: &[u8], needle: &[u8], from: usize| {
        haystack[from.min(haystack.len())..]
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|i| i + from)
    };
    let mut parts: Vec<(String, serde_json::Value)> = Vec::new();
    let mut json_parts: Vec<String> = Vec::new();
    let mut at = find(body, delimiter.as_bytes(), 0).ok_or_else(|| bad("no opening boundary"))?
        + delimiter.len();
    loop {
        if body[at..].starts_with(b"--") {
            break;
        }
        let start = at + 2; // CRLF after the boundary
        let end = find(body, format!("\r\n{delimiter}").as_bytes(), start)
            .ok_or_else(|| bad("a part is not closed"))?;
        let part = body
            .get(start..end)
            .ok_or_else(|| bad("a part is cut short"))?;
        let split = find(part, b"\r\n\r\n", 0).ok_or_else(|| bad("a part has no headers"))?;
        let headers = String::from_utf8_lossy(&part[..split]);
        let content = &part[split + 4..];
        let disposition = headers
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))
            .ok_or_else(|| bad("a part has no Content-Disposition"))?;
        let param = |name: &str| {
            disposition.split(';').skip(1).find_map(|p| {
                let (k, v) = p.trim().split_once('=')?;
                k.eq_ignore_ascii_case(name)
                    .then(|| v.trim_matches('"').to_string())
            })
        };
        let name = param("name").ok_or_else(|| bad("a part has no name"))?;
        // A file part, or one whose content is no text: its bytes.
        let text = std::str::from_utf8(content).ok();
        let value = if param("filename").is_some() || text.is_none() {
            serde_json::Value::Array(
                content
                    .iter()
                    .map(|b| serde_json::Value::from(*b))
                    .collect(),
            )
        } else {
            let text = text.unwrap_or_default();
            // A part sent as JSON (an object property's default encoding)
            // holds a JSON value, not text.
            let json = headers
                .lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-type"))
                .and_then(|(_, v)| v.split(';').next())
                .map(|essence| essence.trim().to_ascii_lowercase())
                .is_some_and(|e| e == "application/json" || e.ends_with("+json"));
            if json {
                json_parts.push(name.clone());
                serde_json::from_str(text).map_err(|_| bad("a JSON part is not valid JSON"))?
            } else {
                serde_json::Value::String(text.to_string())
            }
        };
        parts.push((name, value));
        at = end + 2 + delimiter.len();
    }
    let tree = value_tree(parts.iter().map(|(k, v)| (k.as_str(), v.clone())));
    Ok((tree, json_parts))
}

#[cfg(feature = "serving")]
/// Elements nested deeper than this are refused: the tree is built by
/// recursion, and a body of a megabyte could nest a quarter of a million.
const XML_DEPTH: usize = 64;

/// An XML document as the tree [`FormValue::xml`] reads: an element with
/// attributes or child elements is an object of them, by local name (a
/// name repeated is an array); any other element is its text. The root
/// element's own name is not read (a schema's `xml.name` renames nothing
/// here). A document type declaration is refused.
#[cfg(feature = "serving")]
pub fn xml_tree(text: &str) -> Result<serde_json::Value, Rejection> {
    let malformed = |why: String| {
        Rejection::new(
            RejectionKind::BadRequest,
            format!("the XML body is malformed: {why}"),
        )
    };
    let document = roxmltree::Document::parse(text).map_err(|e| malformed(e.to_string()))?;
    xml_element(document.root_element(), 0)
        .ok_or_else(|| malformed(format!("elements nest deeper than {XML_DEPTH}")))
}

#[cfg(feature = "serving")]
fn xml_element(node: roxmltree::Node<'_, '_>, depth: usize) -> Option<serde_json::Value> {
    use serde_json::Value;
    if depth > XML_DEPTH {
        return None;
    }
    let mut elements = node.children().filter(|c| c.is_element()).peekable();
    if elements.peek().is_none() && node.attributes().len() == 0 {
        let text: String = node.children().filter_map(|c| c.text()).collect();
        return Some(Value::String(text));
    }
    let mut map = serde_json::Map::new();
    for attribute in node.attributes() {
        map.insert(attribute.name().into(), attribute.value().into());
    }
    for child in elements {
        let value = xml_element(child, depth + 1)?;
        match map.get_mut(child.tag_name().name()) {
            // An element is never an array: one here is of repeats.
            Some(Value::Array(items)) => items.push(value),
            Some(first) => *first = Value::Array(vec![first.take(), value]),
            None => {
                map.insert(child.tag_name().name().into(), value);
            }
        }
    }
    Some(Value::Object(map))
}

/// A value from a form, a query string or an XML document, deserialized as
/// the target type asks: strings become numbers and booleans where the type
/// wants them, a single value becomes a one-item array, an object keyed
/// `0`, `1`, ... an array. Read from XML, an element that holds one kind of
/// element is also an array of them where an array is asked for (a wrapped
/// array, `<tags><tag>..</tag></tags>`).
///
/// A multipart body's parts sent as JSON are read as JSON is, strictly.
#[derive(Debug, Clone)]
pub struct FormValue {
    value: serde_json::Value,
    mode: Mode,
    /// The properties of this object that hold JSON (a multipart body's
    /// JSON parts).
    json_parts: std::rc::Rc<[String]>,
}

/// How a [`FormValue`] reads its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Text,
    /// A multipart body's text: a bytes property's part is its bytes.
    Multipart,
    Xml,
    Json,
}

impl FormValue {
    /// A value of a form, a query or a parameter.
    pub fn new(value: serde_json::Value) -> Self {
        Self::of(value, Mode::Text)
    }

    /// A value of an XML document ([`xml_tree`]).
    pub fn xml(value: serde_json::Value) -> Self {
        Self::of(value, Mode::Xml)
    }

    /// A multipart body's tree ([`multipart_tree`]) whose properties
    /// `json_parts` were sent as JSON.
    pub fn multipart(value: serde_json::Value, json_parts: Vec<String>) -> Self {
        FormValue {
            value,
            mode: Mode::Multipart,
            json_parts: json_parts.into(),
        }
    }

    fn of(value: serde_json::Value, mode: Mode) -> Self {
        FormValue {
            value,
            mode,
            json_parts: std::rc::Rc::from([]),
        }
    }

    fn text(&self) -> Option<&str> {
        self.value.as_str()
    }

    fn invalid(&self, expected: &str) -> serde_json::Error {
        serde::de::Error::custom(format!("invalid value {}, expected {expected}", self.value))
    }
}

/// The name [`NullText`] asks to be read by.
const NULL_TEXT: &str = "$apigen::NullText";

/// A value that admits null and whose type has no text `null` (a number,
/// a boolean, a date): read from text (a form, a multipart part, a query
/// object), `null` is the null that JSON would spell. From JSON, as
/// `Option<T>`.
#[derive(Debug)]
pub struct NullText<T>(pub Option<T>);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for NullText<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Reader<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Reader<T> {
            type Value = NullText<T>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a value or null")
            }

            fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(NullText(None))
            }

            fn visit_newtype_struct<D: serde::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Self::Value, D::Error> {
                <Option<T> as serde::Deserialize>::deserialize(deserializer).map(NullText)
            }
        }
        deserializer.deserialize_newtype_struct(NULL_TEXT, Reader(std::marker::PhantomData))
    }
}

impl<'de> serde::de::IntoDeserializer<'de, serde_json::Error> for FormValue {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

macro_rules! form_number {
    ($($method:ident $visit:ident $ty:ty),*) => {$(
        fn $method<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            if self.mode == Mode::Json {
                return serde::Deserializer::$method(self.value, visitor);
            }
            match self.text() {
                Some(text) => match text.parse::<$ty>() {
                    Ok(n) => visitor.$visit(n),
                    Err(_) => Err(self.invalid(stringify!($ty))),
                },
                None => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for FormValue {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        use serde::de::value::{MapDeserializer, SeqDeserializer};
        let mode = self.mode;
        if mode == Mode::Json {
            return serde::Deserializer::deserialize_any(self.value, visitor);
        }
        let json_parts = self.json_parts;
        match self.value {
            serde_json::Value::Object(map) => {
                visitor.visit_map(MapDeserializer::new(map.into_iter().map(|(k, value)| {
                    let mode = if json_parts.contains(&k) {
                        Mode::Json
                    } else {
                        mode
                    };
                    (k, FormValue::of(value, mode))
                })))
            }
            serde_json::Value::Array(items) => visitor.visit_seq(SeqDeserializer::new(
                items.into_iter().map(|value| FormValue::of(value, mode)),
            )),
            other => serde::Deserializer::deserialize_any(other, visitor),
        }
    }

    fn deserialize_bool<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if self.mode == Mode::Json {
            return serde::Deserializer::deserialize_bool(self.value, visitor);
        }
        match self.text() {
            Some("true") => visitor.visit_bool(true),
            Some("false") => visitor.visit_bool(false),
            Some(_) => Err(self.invalid("true or false")),
            None => self.deserialize_any(visitor),
        }
    }

    form_number!(
        deserialize_i8 visit_i8 i8, deserialize_i16 visit_i16 i16, deserialize_i32 visit_i32 i32,
        deserialize_i64 visit_i64 i64, deserialize_u8 visit_u8 u8, deserialize_u16 visit_u16 u16,
        deserialize_u32 visit_u32 u32, deserialize_u64 visit_u64 u64, deserialize_f32 visit_f32 f32,
        deserialize_f64 visit_f64 f64
    );

    fn deserialize_option<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if self.mode == Mode::Json {
            return serde::Deserializer::deserialize_option(self.value, visitor);
        }
        if self.value.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_seq<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        use serde::de::value::SeqDeserializer;
        let mode = self.mode;
        if mode == Mode::Json {
            return serde::Deserializer::deserialize_seq(self.value, visitor);
        }
        let xml = mode == Mode::Xml;
        let items = match self.value {
            serde_json::Value::Array(items) => items,
            // An empty XML element: an empty (wrapped) array.
            serde_json::Value::String(text) if xml && text.is_empty() => Vec::new(),
            // A wrapped XML array: the one kind of element it holds.
            serde_json::Value::Object(map)
                if xml && map.len() == 1 && map.keys().all(|k| k.parse::<usize>().is_err()) =>
            {
                match map.into_iter().next().map(|(_, v)| v) {
                    Some(serde_json::Value::Array(items)) => items,
                    single => single.into_iter().collect(),
                }
            }
            serde_json::Value::Object(map)
                if !map.is_empty() && map.keys().all(|k| k.parse::<usize>().is_ok()) =>
            {
                let mut indexed: Vec<(usize, serde_json::Value)> = map
                    .into_iter()
                    .filter_map(|(k, v)| Some((k.parse().ok()?, v)))
                    .collect();
                indexed.sort_by_key(|(i, _)| *i);
                indexed.into_iter().map(|(_, v)| v).collect()
            }
            // An object is no one-item array outside XML: text makes
            // objects of named keys only (`a[b]=1`), never of an item.
            serde_json::Value::Object(_) if !xml => return Err(self.invalid("an array")),
            single => vec![single],
        };
        visitor.visit_seq(SeqDeserializer::new(
            items.into_iter().map(|value| FormValue::of(value, mode)),
        ))
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        use serde::de::IntoDeserializer;
        if self.mode == Mode::Json {
            return serde::Deserializer::deserialize_enum(self.value, _name, _variants, visitor);
        }
        match self.value {
            serde_json::Value::String(s) => visitor.visit_enum(s.into_deserializer()),
            other => Err(FormValue::new(other).invalid("a string")),
        }
    }

    fn deserialize_map<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if self.mode == Mode::Json {
            return serde::Deserializer::deserialize_map(self.value, visitor);
        }
        // An empty XML element (`<category/>`) is an empty object.
        if self.mode == Mode::Xml && self.value.as_str() == Some("") {
            let empty = std::iter::empty::<(String, FormValue)>();
            return visitor.visit_map(serde::de::value::MapDeserializer::new(empty));
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if self.mode == Mode::Json {
            return serde::Deserializer::deserialize_newtype_struct(self.value, name, visitor);
        }
        if name == NULL_TEXT && self.text() == Some("null") {
            return visitor.visit_none();
        }
        // In a multipart body a bytes property's part is its bytes, a
        // text part's too (elsewhere bytes are base64 text).
        if let (BYTES, Mode::Multipart, Some(text)) = (name, self.mode, self.text()) {
            return visitor.visit_bytes(text.as_bytes());
        }
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct tuple tuple_struct identifier ignored_any
        i128 u128
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[cfg(feature = "serving")]
    #[test]
    fn xml_elements_are_properties_and_wrapped_arrays_are_arrays() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Tag {
            id: i64,
            name: String,
        }
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Pet {
            id: i64,
            name: String,
            #[serde(rename = "photoUrls")]
            photo_urls: Vec<String>,
            tags: Vec<Tag>,
            status: Option<String>,
            aliases: Vec<String>,
        }
        let text = "<?xml version=\"1.0\"?><pet status=\"sold\"><id>10</id>\
                    <name>Rex &amp; co</name><photoUrls><photoUrl>a</photoUrl></photoUrls>\
                    <tags><tag><id>1</id><name>x</name></tag><tag><id>2</id><name>y</name></tag></tags>\
                    <aliases>r</aliases><aliases>s</aliases></pet>";
        let pet: Pet =
            serde::Deserialize::deserialize(FormValue::xml(xml_tree(text).unwrap())).unwrap();
        assert_eq!(
            pet,
            Pet {
                id: 10,
                name: "Rex & co".into(),
                photo_urls: vec!["a".into()],
                tags: vec![
                    Tag {
                        id: 1,
                        name: "x".into()
                    },
                    Tag {
                        id: 2,
                        name: "y".into()
                    }
                ],
                status: Some("sold".into()),
                aliases: vec!["r".into(), "s".into()],
            }
        );
        // Empty elements: an empty object, an empty array.
        let empty = "<pet><id>1</id><name/><photoUrls></photoUrls><tags/><aliases/></pet>";
        let pet: Pet =
            serde::Deserialize::deserialize(FormValue::xml(xml_tree(empty).unwrap())).unwrap();
        assert_eq!(
            (pet.name.as_str(), pet.photo_urls.len(), pet.tags.len()),
            ("", 0, 0)
        );
        let root: std::collections::BTreeMap<String, String> =
            serde::Deserialize::deserialize(FormValue::xml(xml_tree("<pet></pet>").unwrap()))
                .unwrap();
        assert!(root.is_empty());
        // A form's one-property object is no wrapped array.
        let form = json!({"tags": {"name": "x"}});
        let read: Result<std::collections::BTreeMap<String, Vec<String>>, _> =
            serde::Deserialize::deserialize(FormValue::new(form));
        assert!(read.is_err());
    }

    #[cfg(feature = "serving")]
    #[test]
    fn xml_that_is_malformed_nests_too_deep_or_declares_a_type_is_refused() {
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        for bad in [
            "<a><b></a>",
            deep.as_str(),
            "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>",
        ] {
            let e = xml_tree(bad).unwrap_err();
            assert_eq!(e.kind, RejectionKind::BadRequest, "{bad}");
        }
    }

    #[test]
    fn an_object_is_no_one_item_array_outside_xml() {
        #[derive(Debug, serde::Deserialize)]
        struct Header {
            #[allow(dead_code, reason = "read by serde")]
            value: Option<String>,
        }
        // A multipart part sent as JSON: `{}` where the schema wants a list.
        let part = json!({"x-extra": {}});
        let read: Result<std::collections::BTreeMap<String, Vec<Header>>, _> =
            serde::Deserialize::deserialize(FormValue::new(part));
        assert!(read.is_err());
        // Text is still a one-item array.
        let read: std::collections::BTreeMap<String, Vec<String>> =
            serde::Deserialize::deserialize(FormValue::new(json!({"k": "v"}))).unwrap();
        assert_eq!(read["k"], ["v"]);
    }

    #[test]
    fn forms_nest_and_repeat() {
        let tree = form_tree(
            [
                ("a[b][c]", "1"),
                ("list[]", "x"),
                ("list[]", "y"),
                ("k", "1"),
                ("k", "2"),
            ]
            .into_iter(),
        );
        assert_eq!(
            tree,
            json!({"a": {"b": {"c": "1"}}, "list": ["x", "y"], "k": ["1", "2"]})
        );
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Typed {
        n: i64,
        f: f32,
        flag: bool,
        items: Vec<u8>,
        one: Vec<String>,
    }

    #[test]
    fn form_values_read_numbers_booleans_and_arrays_from_text() {
        let tree = json!({
            "n": "-3", "f": "1.5", "flag": "true",
            "items": {"1": "20", "0": "10"}, "one": "single"
        });
        let typed: Typed = serde::Deserialize::deserialize(FormValue::new(tree)).unwrap();
        assert_eq!(
            typed,
            Typed {
                n: -3,
                f: 1.5,
                flag: true,
                items: vec![10, 20],
                one: vec!["single".into()]
            }
        );
        let wrong = json!({"n": "x", "f": "1", "flag": "true", "items": [], "one": []});
        let e = <Typed as serde::Deserialize>::deserialize(FormValue::new(wrong)).unwrap_err();
        assert!(e.to_string().contains("expected i64"), "{e}");
    }

    #[test]
    fn multipart_parts_become_text_or_bytes() {
        let body = b"--XX\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n\
--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\
Content-Type: application/octet-stream\r\n\r\n\x01\x02\r\n--XX--\r\n";
        let (tree, json_parts) = multipart_tree("multipart/form-data; boundary=XX", body).unwrap();
        assert_eq!(tree, json!({"note": "hello", "file": [1, 2]}));
        assert!(json_parts.is_empty());
        let e = multipart_tree("multipart/form-data", body).unwrap_err();
        assert_eq!(e.message, "the multipart body is malformed: no boundary");
        let e = multipart_tree("multipart/form-data; boundary=XX", b"--XX\r\nx").unwrap_err();
        assert_eq!(e.kind, RejectionKind::BadRequest);
    }

    #[test]
    fn a_bytes_property_takes_its_part_as_it_is() {
        // A part without a filename: text, or bytes that are no text.
        let body = b"--XX\r\nContent-Disposition: form-data; name=\"doc\"\r\n\r\n%PDF-1.4\r\n\
--XX\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\n\x89PNG\r\n--XX--\r\n";
        let (tree, json_parts) = multipart_tree("multipart/form-data; boundary=XX", body).unwrap();
        assert_eq!(
            tree,
            json!({"doc": "%PDF-1.4", "image": [0x89, 80, 78, 71]})
        );
        #[derive(Debug, serde::Deserialize)]
        struct Upload {
            doc: super::super::Base64,
            image: super::super::Base64,
        }
        let read =
            <Upload as serde::Deserialize>::deserialize(FormValue::multipart(tree, json_parts))
                .unwrap();
        assert_eq!(read.doc.0, b"%PDF-1.4");
        assert_eq!(read.image.0, b"\x89PNG");
        // Elsewhere (a form, JSON) bytes are base64 text.
        let form: Upload = serde::Deserialize::deserialize(FormValue::new(
            json!({"doc": "JVBERi0xLjQ=", "image": "iVBORw=="}),
        ))
        .unwrap();
        assert_eq!(form.doc.0, b"%PDF-1.4");
        let json: Upload =
            serde_json::from_str(r#"{"doc": "JVBERi0xLjQ=", "image": "iVBORw=="}"#).unwrap();
        assert_eq!(json.image.0, b"\x89PNG");
    }

    #[test]
    fn a_json_part_holds_its_value() {
        let body = b"--XX\r\nContent-Disposition: form-data; name=\"meta\"\r\n\
Content-Type: application/json; charset=utf-8\r\n\r\n{\"a\": [1, true]}\r\n--XX--\r\n";
        let (tree, json_parts) = multipart_tree("multipart/form-data; boundary=XX", body).unwrap();
        assert_eq!(tree, json!({"meta": {"a": [1, true]}}));
        assert_eq!(json_parts, ["meta"]);
        // Read as JSON is: no text read as a number, no value as a list
        // of one; a text part beside it keeps the form's reading.
        #[derive(Debug, serde::Deserialize)]
        struct Meta {
            #[allow(dead_code, reason = "read by serde")]
            a: Vec<serde_json::Value>,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Body {
            #[allow(dead_code, reason = "read by serde")]
            meta: Meta,
            #[allow(dead_code, reason = "read by serde")]
            n: Option<Vec<i64>>,
        }
        let read = |tree: serde_json::Value| {
            <Body as serde::Deserialize>::deserialize(FormValue::multipart(
                tree,
                json_parts.clone(),
            ))
        };
        assert!(read(json!({"meta": {"a": [1]}, "n": "3"})).is_ok());
        assert!(read(json!({"meta": {"a": "1"}})).is_err());
        let broken = b"--XX\r\nContent-Disposition: form-data; name=\"meta\"\r\n\
Content-Type: application/json\r\n\r\n{\r\n--XX--\r\n";
        let e = multipart_tree("multipart/form-data; boundary=XX", broken).unwrap_err();
        assert_eq!(e.kind, RejectionKind::BadRequest);
    }
}
