//! Where things stand in a document's text: JSON pointers to line and
//! column, for messages a person reads. The index is built only when
//! something is reported, and only for the pointers asked for, in one pass
//! over the text's YAML events (JSON is read the same way).

use crate::diag::Pointer;
use std::collections::{HashMap, HashSet};
use yaml_rust2::parser::{Event, Parser};

/// A line and column, both 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// Positions of some pointers in one text.
#[derive(Debug, Default)]
pub struct Positions {
    found: HashMap<String, Position>,
}

impl Positions {
    /// Finds where each of `pointers` (`#/paths/~1pets/get`) stands in
    /// `text`: a mapping entry at its key, an array item at its value. Text
    /// that does not parse as YAML gives no positions.
    pub fn find<'p>(text: &str, pointers: impl IntoIterator<Item = &'p str>) -> Positions {
        let mut wanted: HashSet<String> = HashSet::new();
        for pointer in pointers {
            // Every ancestor too, so that a pointer into something the text
            // does not hold (a grafted file, a default) still gets the
            // nearest place that exists.
            let mut p = pointer.trim_start_matches('#');
            loop {
                wanted.insert(format!("#{p}"));
                match p.rfind('/') {
                    Some(i) => p = &p[..i],
                    None => break,
                }
            }
        }
        let mut found = HashMap::new();
        let _ = walk(&printable(text), &wanted, &mut found);
        Positions { found }
    }

    /// Where `pointer` stands, or the nearest ancestor that the text holds.
    pub fn get(&self, pointer: &str) -> Option<Position> {
        let mut p = pointer;
        loop {
            if let Some(position) = self.found.get(p) {
                return Some(*position);
            }
            p = &p[..p.rfind('/')?];
        }
    }
}

/// The text with each character YAML forbids (C0 and C1 controls but tab
/// and line ends, which JSON strings may carry) replaced by `?`: one
/// character for one, so every position stays where it was.
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let forbidden = |c: char| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{85}')) || c == '\u{feff}'
    };
    if text.chars().any(forbidden) {
        text.chars()
            .map(|c| if forbidden(c) { '?' } else { c })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

enum Frame {
    Mapping {
        at: Pointer,
        /// The key whose value comes next; `None` while a key is expected.
        key: Option<String>,
    },
    Sequence {
        at: Pointer,
        next: usize,
    },
}

fn walk(
    text: &str,
    wanted: &HashSet<String>,
    found: &mut HashMap<String, Position>,
) -> Result<(), yaml_rust2::ScanError> {
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut note = |pointer: &Pointer, marker: yaml_rust2::scanner::Marker| {
        let key = pointer.to_string();
        if wanted.contains(&key) {
            found.entry(key).or_insert(Position {
                line: marker.line(),
                column: marker.col() + 1,
            });
        }
    };
    loop {
        let (event, marker) = parser.next_token()?;
        // The pointer of the value this event starts, if it is a value.
        let value_at = match (stack.last_mut(), &event) {
            (_, Event::StreamEnd) => return Ok(()),
            (
                _,
                Event::StreamStart | Event::DocumentStart | Event::DocumentEnd | Event::Nothing,
            ) => continue,
            (Some(Frame::Mapping { .. }), Event::MappingEnd)
            | (Some(Frame::Sequence { .. }), Event::SequenceEnd) => {
                stack.pop();
                finish_value(&mut stack);
                continue;
            }
            (
                Some(Frame::Mapping {
                    at,
                    key: key @ None,
                }),
                Event::Scalar(name, ..),
            ) => {
                // A mapping stands where its first key does (its own start
                // event is reported at the first value).
                note(at, marker);
                let child = at.join(name);
                note(&child, marker);
                *key = Some(name.clone());
                continue;
            }
            // A key that is itself a mapping or a sequence: no pointer can
            // name what follows, and no OpenAPI document has one.
            (Some(Frame::Mapping { key: None, .. }), _) => return Ok(()),
            (
                Some(Frame::Mapping {
                    at,
                    key: Some(name),
                }),
                _,
            ) => at.join(&*name),
            (Some(Frame::Sequence { at, next }), _) => {
                let child = at.join(*next);
                *next += 1;
                if !matches!(event, Event::MappingStart(..)) {
                    note(&child, marker);
                }
                child
            }
            (None, _) => Pointer::root(),
        };
        match event {
            Event::MappingStart(..) => stack.push(Frame::Mapping {
                at: value_at,
                key: None,
            }),
            Event::SequenceStart(..) => stack.push(Frame::Sequence {
                at: value_at,
                next: 0,
            }),
            _ => finish_value(&mut stack),
        }
    }
}

/// A mapping's value is complete: the next event is a key.
fn finish_value(stack: &mut [Frame]) {
    if let Some(Frame::Mapping { key, .. }) = stack.last_mut() {
        *key = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_find_their_lines_in_yaml_and_json() {
        let yaml = "openapi: 3.0.3\npaths:\n  /pets/{id}:\n    get:\n      parameters:\n        - name: id\n          in: path\n        - $ref: '#/x'\n";
        let positions = Positions::find(
            yaml,
            [
                "#/paths/~1pets~1{id}/get",
                "#/paths/~1pets~1{id}/get/parameters/1",
                "#/paths/~1pets~1{id}/get/parameters/0/in",
                "#/paths/~1pets~1{id}/get/responses/200",
            ],
        );
        let at = |p| positions.get(p).map(|p| (p.line, p.column));
        assert_eq!(at("#/paths/~1pets~1{id}/get"), Some((4, 5)));
        assert_eq!(at("#/paths/~1pets~1{id}/get/parameters/1"), Some((8, 11)));
        assert_eq!(
            at("#/paths/~1pets~1{id}/get/parameters/0/in"),
            Some((7, 11))
        );
        // Not in the text: the nearest ancestor that is.
        assert_eq!(at("#/paths/~1pets~1{id}/get/responses/200"), Some((4, 5)));

        let json = "{\n  \"paths\": {\n    \"/a\": {\"get\": {\"tags\": [\"x\", \"y\"]}}\n  }\n}\n";
        let positions = Positions::find(json, ["#/paths/~1a/get/tags/1"]);
        assert_eq!(
            positions.get("#/paths/~1a/get/tags/1"),
            Some(Position {
                line: 3,
                column: 34
            })
        );
    }

    #[test]
    fn text_that_stops_parsing_keeps_what_came_before() {
        let positions = Positions::find("a: 1\nb: [unclosed", ["#/a", "#/b/0"]);
        assert_eq!(positions.get("#/a"), Some(Position { line: 1, column: 1 }));
        assert_eq!(
            positions.get("#/b/0"),
            Some(Position { line: 2, column: 5 })
        );
        assert_eq!(Positions::find("[", ["#/x"]).get("#/x"), None);
    }

    #[test]
    fn json_with_characters_yaml_forbids_keeps_its_positions() {
        let json = "{\"info\": {\"title\": \"a\u{9c}\u{2028}b\"},\n \"paths\": {\"/a\": {}}}";
        let positions = Positions::find(json, ["#/paths/~1a"]);
        assert_eq!(
            positions.get("#/paths/~1a"),
            Some(Position {
                line: 2,
                column: 12
            })
        );
    }
}
