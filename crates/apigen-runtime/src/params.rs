//! Reading parameters from the path, the query string, headers and cookies,
//! in every style OpenAPI defines.

use super::decide::{Decide, Source};
use super::form::{form_tree, FormValue};
use super::rejection::{Rejection, RejectionKind};
use super::style::{styled, Style, ValueKind};
use super::vocabulary::Explode;
use super::RequestContext;
use http::header;
use serde::de::DeserializeOwned;
use std::str::FromStr;

/// A query string, decoded once.
#[derive(Debug, Clone, Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// Decodes a query string (`a=1&b=x%20y`).
    pub fn parse(query: &str) -> Self {
        Query(
            form_urlencoded::parse(query.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    fn values<'q>(&'q self, name: &'q str) -> impl Iterator<Item = &'q str> + 'q {
        self.0
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the parameter is given once, as `null`: what a client
    /// writes for a parameter whose schema admits null and that holds no
    /// value, where `null` is no text the parameter's type could mean.
    pub fn null(&self, name: &str) -> bool {
        let mut values = self.values(name);
        values.next() == Some("null") && values.next().is_none()
    }

    /// A parameter given at most once.
    pub fn one<T: FromStr>(&self, name: &str) -> Result<Option<T>, Rejection> {
        let mut values = self.values(name);
        let Some(value) = values.next() else {
            return Ok(None);
        };
        if values.next().is_some() {
            return Err(Rejection::new(
                RejectionKind::BadRequest,
                format!("query parameter `{name}` is given more than once"),
            ));
        }
        parse(value, || format!("query parameter `{name}`")).map(Some)
    }

    /// An array parameter: repeated (`id=1&id=2`) when `explode`, else
    /// comma-separated (`id=1,2`).
    pub fn many<T: FromStr>(
        &self,
        name: &str,
        explode: Explode,
    ) -> Result<Option<Vec<T>>, Rejection> {
        if self.values(name).next().is_none() {
            return Ok(None);
        }
        let raw: Vec<&str> = if explode.on() {
            self.values(name).collect()
        } else {
            // `name=` is the empty list (as `form` writes `[]`), not a
            // list of one empty item.
            self.values(name)
                .filter(|v| !v.is_empty())
                .flat_map(|v| v.split(','))
                .collect()
        };
        raw.into_iter()
            .map(|v| parse(v, || format!("query parameter `{name}`")))
            .collect::<Result<_, _>>()
            .map(Some)
    }
    /// A query parameter in a style other than exploded `form`, or a
    /// non-exploded object.
    pub fn styled<T: DeserializeOwned>(
        &self,
        name: &str,
        kind: ValueKind,
        style: Style,
    ) -> Result<Option<T>, Rejection> {
        match self.one::<String>(name)? {
            Some(raw) => super::strictly(|| {
                styled(
                    &raw,
                    name,
                    kind,
                    style,
                    false,
                    &format!("query parameter `{name}`"),
                )
            })
            .map(Some),
            None => Ok(None),
        }
    }

    /// A parameter whose type is a union: one value is read as text, a
    /// repeated one as an array, and the union decides the shape it fits.
    pub fn any<T: Decide>(&self, name: &str) -> Result<Option<T>, Rejection> {
        let values: Vec<serde_json::Value> = self
            .values(name)
            .map(|v| serde_json::Value::String(v.into()))
            .collect();
        let value = match values.len() {
            0 => return Ok(None),
            1 => values.into_iter().next().unwrap_or_default(),
            _ => serde_json::Value::Array(values),
        };
        super::strictly(|| T::decide(value, Source::Text))
            .map(Some)
            .map_err(|e| {
                Rejection::new(
                    RejectionKind::BadRequest,
                    format!("query parameter `{name}` is invalid: {e}"),
                )
            })
    }

    /// An exploded `form` object: its properties are query parameters of
    /// their own. An empty query is the object without properties when
    /// its type allows that, else no object (absent, when optional).
    pub fn exploded_object<T: DeserializeOwned>(&self) -> Result<Option<T>, Rejection> {
        if self.0.is_empty() {
            let empty = FormValue::new(serde_json::Value::Object(Default::default()));
            return Ok(super::strictly(|| T::deserialize(empty)).ok());
        }
        let tree = form_tree(self.0.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        super::strictly(|| T::deserialize(FormValue::new(tree)))
            .map(Some)
            .map_err(|e| {
                Rejection::new(
                    RejectionKind::BadRequest,
                    format!("the query is invalid: {e}"),
                )
            })
    }
    /// A union parameter in `deepObject` style (`shape[radius]=2`): the keys
    /// under `name[...]`, and the one variant of the union they fit.
    pub fn deep_union<T: Decide>(&self, name: &str) -> Result<Option<T>, Rejection> {
        let prefix = format!("{name}[");
        let pairs = self
            .0
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(k, v)| (k.as_str(), v.as_str()));
        let tree = form_tree(pairs);
        let Some(value) = tree.get(name).cloned() else {
            return Ok(None);
        };
        super::strictly(|| T::decide(value, Source::Text))
            .map(Some)
            .map_err(|e| {
                Rejection::new(
                    RejectionKind::BadRequest,
                    format!("query parameter `{name}` is invalid: {e}"),
                )
            })
    }

    /// A parameter in `deepObject` style (`filter[status]=open`), or any
    /// parameter that is an object: the keys under `name[...]`, read as the
    /// target type asks.
    pub fn deep<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, Rejection> {
        let prefix = format!("{name}[");
        let pairs: Vec<(&str, &str)> = self
            .0
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if pairs.is_empty() {
            return Ok(None);
        }
        let tree = form_tree(pairs.into_iter());
        let value = match tree.get(name).cloned().unwrap_or_default() {
            // `name[]=v` is a list's item to the tree, and the property
            // named `""` to `deepObject`: the parameter is an object.
            serde_json::Value::Array(mut items) => {
                let value = if items.len() == 1 {
                    items.remove(0)
                } else {
                    serde_json::Value::Array(items)
                };
                serde_json::Value::Object([(String::new(), value)].into_iter().collect())
            }
            value => value,
        };
        super::strictly(|| T::deserialize(FormValue::new(value)))
            .map(Some)
            .map_err(|e| {
                Rejection::new(
                    RejectionKind::BadRequest,
                    format!("query parameter `{name}` is invalid: {e}"),
                )
            })
    }
}

fn parse<T: FromStr>(raw: &str, what: impl FnOnce() -> String) -> Result<T, Rejection> {
    super::strictly(|| raw.parse()).map_err(|_| {
        let mut shown: String = raw.chars().take(64).collect();
        if shown.len() < raw.len() {
            shown.push('…');
        }
        Rejection::new(
            RejectionKind::BadRequest,
            format!("{} has an invalid value `{shown}`", what()),
        )
    })
}

/// A path parameter, by its name in the route template.
pub fn path<T: FromStr>(request: &RequestContext, name: &str) -> Result<T, Rejection> {
    let raw = request.path_parameter(name).unwrap_or_default();
    parse(raw, || format!("path parameter `{name}`"))
}

/// A header parameter.
pub fn header<T: FromStr>(request: &RequestContext, name: &str) -> Result<Option<T>, Rejection> {
    let Some(value) = request.headers().get(name) else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| {
        Rejection::new(
            RejectionKind::BadRequest,
            format!("header `{name}` is not visible ASCII"),
        )
    })?;
    parse(value, || format!("header `{name}`")).map(Some)
}

/// A cookie parameter.
pub fn cookie<T: FromStr>(request: &RequestContext, name: &str) -> Result<Option<T>, Rejection> {
    let found = request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name);
    match found {
        Some((_, value)) => parse(value, || format!("cookie `{name}`")).map(Some),
        None => Ok(None),
    }
}

/// A required parameter, or the rejection naming it.
pub fn required<T>(value: Option<T>, what: &str) -> Result<T, Rejection> {
    value.ok_or_else(|| Rejection::new(RejectionKind::BadRequest, format!("{what} is required")))
}

/// A required `Authorization` header parameter: without it the request
/// carries no credentials, a 401.
pub fn credentials<T>(value: Option<T>) -> Result<T, Rejection> {
    value.ok_or_else(|| {
        Rejection::new(
            RejectionKind::Unauthorized,
            "the request carries no credentials: header `Authorization` is required",
        )
    })
}

/// A path parameter in a style other than `simple`, or holding an array or object.
pub fn path_styled<T: DeserializeOwned>(
    request: &RequestContext,
    name: &str,
    kind: ValueKind,
    style: Style,
    explode: Explode,
) -> Result<T, Rejection> {
    let raw = request.path_parameter(name).unwrap_or_default();
    super::strictly(|| {
        styled(
            raw,
            name,
            kind,
            style,
            explode.on(),
            &format!("path parameter `{name}`"),
        )
    })
}

/// A header whose value is JSON text (described by `content`, or of a
/// shape no style carries).
pub fn header_json<T: DeserializeOwned>(
    request: &RequestContext,
    name: &str,
) -> Result<Option<T>, Rejection> {
    json_text(header::<String>(request, name)?, name, "header")
}

/// The whole query string read as JSON text, percent-decoded (OpenAPI
/// 3.2's `in: querystring` parameter `name`, with JSON content); `None`
/// when there is none.
pub fn query_string_json<T: DeserializeOwned>(
    request: &RequestContext,
    name: &str,
) -> Result<Option<T>, Rejection> {
    let whole = request.query_string();
    if whole.is_empty() {
        return Ok(None);
    }
    let text = percent_encoding::percent_decode_str(whole)
        .decode_utf8()
        .map_err(|e| {
            Rejection::new(
                RejectionKind::BadRequest,
                format!("the query string (`{name}`) is not UTF-8: {e}"),
            )
        })?;
    json_text(Some(text.into_owned()), name, "query string")
}

/// A cookie whose value is JSON text.
pub fn cookie_json<T: DeserializeOwned>(
    request: &RequestContext,
    name: &str,
) -> Result<Option<T>, Rejection> {
    json_text(cookie::<String>(request, name)?, name, "cookie")
}

/// The value of the `place` parameter `name`, if sent, read as JSON text.
fn json_text<T: DeserializeOwned>(
    raw: Option<String>,
    name: &str,
    place: &str,
) -> Result<Option<T>, Rejection> {
    raw.map(|raw| {
        let what = format!("{place} `{name}`");
        super::strictly(|| styled(&raw, name, ValueKind::Object, Style::Json, false, &what))
    })
    .transpose()
}

/// A header holding an array or object (`simple` style).
pub fn header_styled<T: DeserializeOwned>(
    request: &RequestContext,
    name: &str,
    kind: ValueKind,
    explode: Explode,
) -> Result<Option<T>, Rejection> {
    let Some(value) = request.headers().get(name) else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| {
        Rejection::new(
            RejectionKind::BadRequest,
            format!("header `{name}` is not visible ASCII"),
        )
    })?;
    super::strictly(|| {
        styled(
            value,
            name,
            kind,
            Style::Simple,
            explode.on(),
            &format!("header `{name}`"),
        )
    })
    .map(Some)
}

/// A cookie holding an array or object (`form` style).
pub fn cookie_styled<T: DeserializeOwned>(
    request: &RequestContext,
    name: &str,
    kind: ValueKind,
) -> Result<Option<T>, Rejection> {
    match cookie::<String>(request, name)? {
        Some(raw) => super::strictly(|| {
            styled(
                &raw,
                name,
                kind,
                Style::Form,
                false,
                &format!("cookie `{name}`"),
            )
        })
        .map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn query_parameters_once_or_many() {
        let q = Query::parse("id=1&id=2&tags=a,b&name=x%20y&limit=7");
        assert_eq!(q.one::<i32>("limit").unwrap(), Some(7));
        assert_eq!(q.one::<String>("name").unwrap().as_deref(), Some("x y"));
        assert_eq!(q.one::<i32>("absent").unwrap(), None);
        let twice = q.one::<i64>("id").unwrap_err();
        assert_eq!(twice.kind, RejectionKind::BadRequest);
        assert!(
            twice.message.contains("more than once"),
            "{}",
            twice.message
        );
        assert_eq!(q.many::<i64>("id", Explode::Yes).unwrap(), Some(vec![1, 2]));
        assert_eq!(
            q.many::<String>("tags", Explode::No).unwrap(),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        // `ids=` is the empty list, as `form` writes one; absent is none.
        let q = Query::parse("ids=");
        assert_eq!(q.many::<i64>("ids", Explode::No).unwrap(), Some(vec![]));
        assert_eq!(q.many::<i64>("other", Explode::No).unwrap(), None);
    }

    #[test]
    fn unreadable_values_are_bad_requests_quoting_a_bounded_excerpt() {
        let long = "x".repeat(100);
        let q = Query::parse(&format!("limit={long}"));
        let e = q.one::<i32>("limit").unwrap_err();
        assert_eq!(e.kind, RejectionKind::BadRequest);
        assert!(
            e.message.contains(&format!("`{}…`", "x".repeat(64))),
            "{}",
            e.message
        );
    }

    #[test]
    fn every_style_of_array_and_object() {
        let array = |raw, style, explode| {
            styled::<Vec<i32>>(raw, "id", ValueKind::Array, style, explode, "it").unwrap()
        };
        assert_eq!(array("3,4,5", Style::Simple, false), [3, 4, 5]);
        assert_eq!(array(".3.4.5", Style::Label, true), [3, 4, 5]);
        assert_eq!(array(".3,4,5", Style::Label, false), [3, 4, 5]);
        assert_eq!(array(";id=3;id=4", Style::Matrix, true), [3, 4]);
        assert_eq!(array(";id=3,4", Style::Matrix, false), [3, 4]);
        assert_eq!(array("3 4", Style::SpaceDelimited, false), [3, 4]);
        assert_eq!(array("3|4", Style::PipeDelimited, false), [3, 4]);
        let object = |raw, style, explode| {
            styled::<BTreeMap<String, i32>>(raw, "o", ValueKind::Object, style, explode, "it")
                .unwrap()
        };
        let expected: BTreeMap<String, i32> = [("a".into(), 1), ("b".into(), 2)].into();
        assert_eq!(object("a,1,b,2", Style::Simple, false), expected);
        assert_eq!(object("a=1,b=2", Style::Simple, true), expected);
        assert_eq!(object(";a=1;b=2", Style::Matrix, true), expected);
        let wrong = styled::<Vec<i32>>("1,x", "id", ValueKind::Array, Style::Simple, false, "id");
        assert_eq!(wrong.unwrap_err().kind, RejectionKind::BadRequest);
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Filter {
        status: String,
        min: Option<i32>,
    }

    #[test]
    fn deep_and_exploded_objects() {
        // `object[]=v` is the property named "" (as `deepObject` writes
        // `{"": "v"}`).
        let q = Query::parse("object[]=null");
        let unnamed: std::collections::BTreeMap<String, String> =
            q.deep("object").unwrap().unwrap();
        assert_eq!(unnamed, [(String::new(), "null".to_string())].into());
        let q = Query::parse("filter[status]=open&filter[min]=3&other=1");
        let deep: Filter = q.deep("filter").unwrap().unwrap();
        assert_eq!(
            deep,
            Filter {
                status: "open".into(),
                min: Some(3)
            }
        );
        assert_eq!(q.deep::<Filter>("absent").unwrap(), None);
        let q = Query::parse("status=open&min=4");
        let flat: Filter = q.exploded_object().unwrap().unwrap();
        assert_eq!(flat.min, Some(4));
        // No query at all: an object that is absent when it requires a
        // property, and one without properties when it requires none.
        assert_eq!(Query::parse("").exploded_object::<Filter>().unwrap(), None);
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Page {
            size: Option<u32>,
        }
        let page = Query::parse("").exploded_object::<Page>().unwrap();
        assert_eq!(page, Some(Page { size: None }));
        #[derive(Debug, PartialEq)]
        enum OneOrMany {
            One(i32),
            Many(Vec<i32>),
        }
        impl Decide for OneOrMany {
            fn decide(value: serde_json::Value, source: Source) -> Result<Self, String> {
                use super::super::decide::{decide, read_variant};
                let mut accepted = Vec::new();
                if let Ok(v) = read_variant(&value, source) {
                    accepted.push(("One", OneOrMany::One(v)));
                }
                // In text, one value is also an array of one: the array
                // takes it only when nothing else does, as generated unions do.
                if source == Source::Json || accepted.is_empty() {
                    if let Ok(v) = read_variant(&value, source) {
                        accepted.push(("Many", OneOrMany::Many(v)));
                    }
                }
                decide("OneOrMany", &["One", "Many"], accepted)
            }
        }
        let q = Query::parse("v=1&v=2&w=3");
        assert_eq!(
            q.any::<OneOrMany>("v").unwrap(),
            Some(OneOrMany::Many(vec![1, 2]))
        );
        assert_eq!(q.any::<OneOrMany>("w").unwrap(), Some(OneOrMany::One(3)));
    }

    #[test]
    fn path_header_and_cookie_parameters() {
        let (parts, ()) = http::Request::get("/pets/42")
            .header("X-Count", "5")
            .header("Cookie", "session=abc; ids=1,2")
            .body(())
            .unwrap()
            .into_parts();
        let request = RequestContext::new(parts, vec![("petId".into(), "42".into())]);
        assert_eq!(path::<i64>(&request, "petId").unwrap(), 42);
        assert_eq!(header::<u8>(&request, "x-count").unwrap(), Some(5));
        assert_eq!(header::<u8>(&request, "x-absent").unwrap(), None);
        assert_eq!(
            cookie::<String>(&request, "session").unwrap().as_deref(),
            Some("abc")
        );
        let ids: Option<Vec<i32>> = cookie_styled(&request, "ids", ValueKind::Array).unwrap();
        assert_eq!(ids, Some(vec![1, 2]));
        assert_eq!(
            path::<i64>(&request, "missing").unwrap_err().kind,
            RejectionKind::BadRequest
        );
        assert_eq!(
            credentials::<String>(None).unwrap_err().status(),
            http::StatusCode::UNAUTHORIZED
        );
        let e = required::<i32>(None, "query parameter `x`").unwrap_err();
        assert_eq!(e.message, "query parameter `x` is required");
    }
}
