//! The spec's validation keywords as checks: `minLength`, `maximum`,
//! `maxItems`, `pattern` and the rest. Generated `Validate` impls call them.

use std::collections::BTreeMap;
use std::fmt;
pub use std::ops::Bound;

/// A value that breaks a bound of the spec, and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Dotted path to the value (`body.name`, `limit`, `items.3`); empty for the
    /// value itself.
    pub path: String,
    /// What is wrong with the value (`must be at most 100`).
    pub message: String,
}

impl Violation {
    /// A violation of the value itself; [`Violation::within`] places it.
    pub fn new(message: impl Into<String>) -> Self {
        Violation {
            path: String::new(),
            message: message.into(),
        }
    }

    /// The same violation, seen from the value that contains it.
    pub fn within(mut self, parent: impl fmt::Display) -> Self {
        self.path = if self.path.is_empty() {
            parent.to_string()
        } else {
            format!("{parent}.{}", self.path)
        };
        self
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "`{}` {}", self.path, self.message)
        }
    }
}

/// Checks a value against the bounds its schema declares. Generated code
/// implements it for what a request can carry, which is all that is
/// validated: the glue checks requests as they arrive, the client before it
/// sends them; responses are not checked.
pub trait Validate {
    /// Checks the value and everything it holds; the first violation found.
    fn validate(&self) -> Result<(), Violation>;
}

impl<T: Validate> Validate for Option<T> {
    fn validate(&self) -> Result<(), Violation> {
        self.as_ref().map_or(Ok(()), Validate::validate)
    }
}

impl<T: Validate> Validate for Box<T> {
    fn validate(&self) -> Result<(), Violation> {
        T::validate(self)
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate(&self) -> Result<(), Violation> {
        for (i, item) in self.iter().enumerate() {
            item.validate().map_err(|v| v.within(i))?;
        }
        Ok(())
    }
}

impl<T: Validate> Validate for BTreeMap<String, T> {
    fn validate(&self) -> Result<(), Violation> {
        for (key, item) in self {
            item.validate().map_err(|v| v.within(key))?;
        }
        Ok(())
    }
}

/// `minLength`/`maxLength`, counted in characters.
pub fn check_length(value: &str, min: Option<usize>, max: Option<usize>) -> Result<(), Violation> {
    let len = value.chars().count();
    if let Some(min) = min.filter(|&min| len < min) {
        return Err(Violation::new(format!(
            "must be at least {} long",
            count(min, "character")
        )));
    }
    if let Some(max) = max.filter(|&max| len > max) {
        return Err(Violation::new(format!(
            "must be at most {} long",
            count(max, "character")
        )));
    }
    Ok(())
}

/// `minimum`/`maximum` (`exclusiveMinimum`/`exclusiveMaximum` make a bound
/// [`Bound::Excluded`]).
pub fn check_range<T: PartialOrd + fmt::Display>(
    value: &T,
    min: Bound<T>,
    max: Bound<T>,
) -> Result<(), Violation> {
    match min {
        Bound::Included(min) if *value < min => {
            return Err(Violation::new(format!("must be at least {min}")))
        }
        Bound::Excluded(min) if *value <= min => {
            return Err(Violation::new(format!("must be greater than {min}")))
        }
        _ => {}
    }
    match max {
        Bound::Included(max) if *value > max => {
            Err(Violation::new(format!("must be at most {max}")))
        }
        Bound::Excluded(max) if *value >= max => {
            Err(Violation::new(format!("must be less than {max}")))
        }
        _ => Ok(()),
    }
}

/// `minItems`/`maxItems`.
pub fn check_items(len: usize, min: Option<usize>, max: Option<usize>) -> Result<(), Violation> {
    if let Some(min) = min.filter(|&min| len < min) {
        return Err(Violation::new(format!(
            "must have at least {}",
            count(min, "item")
        )));
    }
    if let Some(max) = max.filter(|&max| len > max) {
        return Err(Violation::new(format!(
            "must have at most {}",
            count(max, "item")
        )));
    }
    Ok(())
}

/// `uniqueItems: true`: no two items are equal. Items are grouped by their
/// `Debug` text, which every generated type derives and which equal values
/// share, and only items of one group are compared with `==`: the check is
/// linear in the items for any values that print apart (a pairwise `==`
/// would let a large body cost quadratic time).
pub fn check_unique<T: std::fmt::Debug + PartialEq>(items: &[T]) -> Result<(), Violation> {
    let mut groups: std::collections::HashMap<String, Vec<usize>> =
        std::collections::HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let group = groups.entry(format!("{item:?}")).or_default();
        if let Some(first) = group.iter().find(|&&j| items[j] == *item) {
            return Err(Violation::new(format!(
                "must not repeat an item: items {first} and {i} are the same"
            )));
        }
        group.push(i);
    }
    Ok(())
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Checks each item of an array, naming the index of the first that fails.
pub fn check_each<T>(
    items: &[T],
    check: impl Fn(&T) -> Result<(), Violation>,
) -> Result<(), Violation> {
    for (i, item) in items.iter().enumerate() {
        check(item).map_err(|v| v.within(i))?;
    }
    Ok(())
}

/// Checks each value of a map, naming the key of the first that fails.
pub fn check_values<T>(
    map: &BTreeMap<String, T>,
    check: impl Fn(&T) -> Result<(), Violation>,
) -> Result<(), Violation> {
    for (key, value) in map {
        check(value).map_err(|v| v.within(key))?;
    }
    Ok(())
}

/// Checks an optional value when it is present.
pub fn check_some<T>(
    value: &Option<T>,
    check: impl FnOnce(&T) -> Result<(), Violation>,
) -> Result<(), Violation> {
    value.as_ref().map_or(Ok(()), check)
}

/// A check's violation placed within `parent` (a property, a parameter):
/// what generated `Validate` impls write for each part of a value. A
/// function rather than `map_err` with a closure, so that a type with many
/// checked properties costs the compiler one call each, not one closure.
pub fn within(parent: &'static str, check: Result<(), Violation>) -> Result<(), Violation> {
    check.map_err(|v| v.within(parent))
}

/// As [`check_some`], for a property that may also be `null`.
pub fn check_nullable<T>(
    value: &super::values::Nullable<T>,
    check: impl FnOnce(&T) -> Result<(), Violation>,
) -> Result<(), Violation> {
    value.value().map_or(Ok(()), check)
}

/// `format: email`, when the generator is asked to check formats: a local
/// part and a domain of dot-separated labels, without spaces (RFC 5321's
/// shape, not every corner of its grammar).
pub fn check_email(value: &str) -> Result<(), Violation> {
    let valid = value.rsplit_once('@').is_some_and(|(local, domain)| {
        !local.is_empty()
            && local.len() <= 64
            && !local.contains(char::is_whitespace)
            && domain.split('.').count() >= 2
            && domain.split('.').all(|label| {
                !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || c == '-')
            })
    });
    if valid {
        Ok(())
    } else {
        Err(Violation::new("must be an email address"))
    }
}

/// `format: uri`, when the generator is asked to check formats: an absolute
/// URI (RFC 3986): a scheme (a letter, then letters, digits, `+`, `-` or
/// `.`), `:`, and a rest of the characters a URI may hold, `%` starting an
/// escape of two hex digits (an IRI's other characters are refused: they
/// travel escaped). Brackets enclose an IP literal host (`http://[::1]/`)
/// and appear nowhere else; one `#` starts the fragment.
pub fn check_uri(value: &str) -> Result<(), Violation> {
    let valid = value.split_once(':').is_some_and(|(scheme, rest)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && uri_rest(rest)
    });
    if valid {
        Ok(())
    } else {
        Err(Violation::new("must be an absolute URI"))
    }
}

/// What follows a URI's scheme: an authority (after `//`, up to a `/` or
/// a `?`) whose host may be an IP literal in brackets, a path and query,
/// and a fragment, of a URI's characters and `%XX` escapes.
fn uri_rest(rest: &str) -> bool {
    let (before, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (authority, path) = match before.strip_prefix("//") {
        Some(after) => after.split_at(after.find(['/', '?']).unwrap_or(after.len())),
        None => ("", before),
    };
    let (userinfo_and_host, host) = match authority.rsplit_once('@') {
        Some((userinfo, host)) => (userinfo, host),
        None => ("", authority),
    };
    let host_ok = match host.strip_prefix('[') {
        Some(literal) => literal.split_once(']').is_some_and(|(address, port)| {
            ip_literal(address)
                && port
                    .strip_prefix(':')
                    .map_or(port.is_empty(), |p| p.bytes().all(|b| b.is_ascii_digit()))
        }),
        None => uri_text(host),
    };
    host_ok && uri_text(userinfo_and_host) && uri_text(path) && uri_text(fragment)
}

/// An IP literal's address: IPv6 (hex digits, `:` and `.`, with a `:`), or
/// a future version (`v1.x`).
fn ip_literal(address: &str) -> bool {
    match address.strip_prefix(['v', 'V']) {
        Some(future) => future.split_once('.').is_some_and(|(version, text)| {
            !version.is_empty()
                && version.bytes().all(|b| b.is_ascii_hexdigit())
                && !text.is_empty()
                && text
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:".contains(&b))
        }),
        None => {
            address.contains(':')
                && address
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
        }
    }
}

/// Text of a URI's characters other than brackets and `#`, with `%XX`
/// escapes.
fn uri_text(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if !bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
        } else if bytes[i].is_ascii_alphanumeric() || b"-._~:/?@!$&'()*+,;=".contains(&bytes[i]) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// `format: duration`, when the generator is asked to check formats: a
/// duration as RFC 3339 (appendix A) writes one, which JSON Schema's
/// `duration` names: `P`, then weeks alone (`1W`), or date parts (`3Y`,
/// `2M`, `4D`: each leading down to the next without a gap, as `1Y2M`,
/// `2M4D`, `4D`), then optionally `T` and time parts alike (`5H6M7S`,
/// `6M7S`, `7S`); or the time parts alone. Whole numbers only.
pub fn check_duration(value: &str) -> Result<(), Violation> {
    static DURATION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let date = r"(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)";
        let time = r"T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)";
        regex::Regex::new(&format!("^P(?:{date}(?:{time})?|{time}|[0-9]+W)$"))
            .expect("the duration pattern compiles")
    });
    if DURATION.is_match(value) {
        Ok(())
    } else {
        Err(Violation::new("must be an RFC 3339 duration"))
    }
}

/// `not: {enum: [...]}`: the value is none of `excluded`.
pub fn check_not_one_of<T: PartialEq + fmt::Display + ?Sized>(
    value: &T,
    excluded: &[&T],
) -> Result<(), Violation> {
    if excluded.contains(&value) {
        Err(Violation::new(format!("must not be `{value}`")))
    } else {
        Ok(())
    }
}

/// `enum` of an integer: the value is one of `allowed`.
pub fn check_one_of<T: PartialEq + fmt::Display + ?Sized>(
    value: &T,
    allowed: &[&T],
) -> Result<(), Violation> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        let allowed: Vec<String> = allowed.iter().map(ToString::to_string).collect();
        Err(Violation::new(format!(
            "must be one of {}, not {value}",
            allowed.join(", ")
        )))
    }
}

/// `pattern`.
pub fn check_pattern(value: &str, pattern: &regex::Regex) -> Result<(), Violation> {
    if pattern.is_match(value) {
        Ok(())
    } else {
        Err(Violation::new(format!(
            "must match the pattern `{}`",
            pattern.as_str()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_items_are_told_apart_as_equality_does() {
        assert!(check_unique::<i64>(&[]).is_ok());
        assert!(check_unique(&[1, 2, 3]).is_ok());
        let repeated = check_unique(&["a", "b", "a"]).unwrap_err();
        assert!(repeated.to_string().contains("items 0 and 2"), "{repeated}");
        // Values that print alike only when equal: text and numbers.
        assert!(check_unique(&["1", "01"]).is_ok());
        assert!(check_unique(&[1.0, 1.5]).is_ok());
        assert!(check_unique(&[Some(1), None]).is_ok());
        assert!(check_unique(&[Some(1), Some(1)]).is_err());
        // Values that print alike and differ (base64 prints its length).
        let bytes = [
            super::super::Base64(vec![1, 2]),
            super::super::Base64(vec![2, 1]),
        ];
        assert!(check_unique(&bytes).is_ok());
        assert!(check_unique(&[bytes[0].clone(), bytes[0].clone()]).is_err());
    }

    #[test]
    fn a_number_just_inside_a_bound_is_read_inside_it() {
        // Correctly rounded (serde_json's `float_roundtrip`): the default
        // parser reads this as 1e9 itself.
        let value: f64 = serde_json::from_str("999999999.9999999").unwrap();
        assert!(check_range(&value, Bound::Unbounded, Bound::Excluded(1e9)).is_ok());
    }

    #[test]
    fn durations_are_rfc_3339() {
        for good in [
            "P1D",
            "PT2H30M",
            "P1Y2M3DT4H5M6S",
            "PT0S",
            "P3W",
            "P1MT1S",
            "P1DT1H",
        ] {
            assert_eq!(check_duration(good), Ok(()), "{good}");
        }
        // Weeks alone, no gap between parts, whole numbers (RFC 3339's
        // grammar, which JSON Schema's `duration` is).
        for bad in [
            "",
            "P",
            "PT",
            "1D",
            "P1DT",
            "AAA",
            "P1.5D",
            "PT4.5H3M",
            "PT1M2M",
            "P1D2Y",
            "P1W2D",
            "P4Y7318M1W75840051385D",
            "PT1H1S",
            "P1Y1D",
            "PT7.5S",
            "p1d",
        ] {
            assert!(check_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn formats_checked_on_request() {
        for good in ["a@example.com", "first.last+tag@mail.example.org"] {
            assert_eq!(check_email(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "a",
            "a@b",
            "@example.com",
            "a b@example.com",
            "a@exa mple.com",
        ] {
            assert!(check_email(bad).is_err(), "{bad}");
        }
        for good in [
            "https://example.com/x?y=1",
            "urn:isbn:0451450523",
            "mailto:a@b.c",
            "https://x.org/a%20b?q=%5B1%5D#f",
            "http://[::1]:80/a",
            "http://u@[::1]:8/",
            "http://[v1.x]/",
            "http://a/#b?c/d",
            "a:",
        ] {
            assert_eq!(check_uri(good), Ok(()), "{good}");
        }
        // Brackets only around an IP literal host, one `#`.
        for bad in [
            "r:%03%7cG%44[L:",
            "http://[::1]/a[b]",
            "http://a/b?c=[1]",
            "http://a#b#c",
            "http://[zz]/",
            "http://a]/",
            "http://[::1]x/",
        ] {
            assert!(check_uri(bad).is_err(), "{bad}");
        }
        for bad in [
            "",
            "example.com",
            "/relative/path",
            "1http://x",
            "http://a b",
            "w:\u{1f3fb}",
            "http://a/%zz",
        ] {
            assert!(check_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        assert!(check_length("héllo", Some(5), Some(5)).is_ok());
        assert_eq!(
            check_length("", Some(1), None).unwrap_err().message,
            "must be at least 1 character long"
        );
        assert_eq!(
            check_length("abcd", None, Some(3)).unwrap_err().message,
            "must be at most 3 characters long"
        );
    }

    #[test]
    fn ranges_are_inclusive_unless_exclusive() {
        assert!(check_range(&5, Bound::Included(5), Bound::Included(5)).is_ok());
        assert_eq!(
            check_range(&5, Bound::Excluded(5), Bound::Unbounded)
                .unwrap_err()
                .message,
            "must be greater than 5"
        );
        assert_eq!(
            check_range(&5.5, Bound::Unbounded, Bound::Excluded(5.5))
                .unwrap_err()
                .message,
            "must be less than 5.5"
        );
        assert_eq!(
            check_range(&0, Bound::Included(1), Bound::Unbounded)
                .unwrap_err()
                .message,
            "must be at least 1"
        );
    }

    #[test]
    fn item_counts_and_patterns() {
        assert_eq!(
            check_items(0, Some(1), None).unwrap_err().message,
            "must have at least 1 item"
        );
        assert_eq!(
            check_items(3, None, Some(2)).unwrap_err().message,
            "must have at most 2 items"
        );
        let pattern = regex::Regex::new("^[a-z]+$").unwrap();
        assert!(check_pattern("abc", &pattern).is_ok());
        assert_eq!(
            check_pattern("ab1", &pattern).unwrap_err().message,
            "must match the pattern `^[a-z]+$`"
        );
    }

    struct Short(&'static str);

    impl Validate for Short {
        fn validate(&self) -> Result<(), Violation> {
            check_length(self.0, None, Some(2))
        }
    }

    #[test]
    fn violations_say_where_they_stand() {
        let items = vec![Short("ok"), Short("long")];
        assert_eq!(
            items.validate().unwrap_err().within("body").to_string(),
            "`body.1` must be at most 2 characters long"
        );
        let map: BTreeMap<String, Short> = [("k".to_string(), Short("xyz"))].into();
        assert_eq!(map.validate().unwrap_err().path, "k");
        assert!(Some(Short("ok")).validate().is_ok());
        assert!(None::<Short>.validate().is_ok());
        assert!(Box::new(Short("abc")).validate().is_err());
        let each = check_each(&[1, 5, 9], |n| {
            check_range(n, Bound::Unbounded, Bound::Included(6))
        });
        assert_eq!(each.unwrap_err().to_string(), "`2` must be at most 6");
        let values: BTreeMap<String, i32> = [("a".to_string(), 0)].into();
        let checked = check_values(&values, |n| {
            check_range(n, Bound::Included(1), Bound::Unbounded)
        });
        assert_eq!(checked.unwrap_err().path, "a");
        assert!(check_some(&None::<i32>, |_| Err(Violation::new("never"))).is_ok());
    }
}
