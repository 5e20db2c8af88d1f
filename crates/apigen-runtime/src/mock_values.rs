//! Values made from the spec's schemas: the spec's examples where it gives
//! fitting ones, else generated within every bound, pattern, enum and
//! discriminator, the same for the same seed.

use super::mock_schema::*;
use serde_json::{Map, Value};

/// How deep values nest before optional properties are left out and
/// lists left empty (where their bounds allow): recursive schemas end.
const DEPTH: usize = 4;

/// Attempts at a value that the type reads, each with other choices,
/// before the mock gives up.
pub(super) const ATTEMPTS: u64 = 8;

/// A small deterministic generator (SplitMix64): the same seed and request
/// give the same answer.
#[derive(Debug, Clone)]
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

pub(super) fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// Makes JSON values of schemas.
pub(super) struct Maker {
    types: &'static [Type],
    /// Ignore the spec's examples.
    dynamic: bool,
}

impl Maker {
    pub(super) fn new(types: &'static [Type], dynamic: bool) -> Self {
        Maker { types, dynamic }
    }

    /// An example's value when it fits its schema (and examples are
    /// wanted).
    pub(super) fn example(&self, text: Option<&str>, schema: &Schema) -> Option<Value> {
        if self.dynamic {
            return None;
        }
        let mut value: Value = serde_json::from_str(text?).ok()?;
        if !fits(self.types, schema, &value) {
            return None;
        }
        without_write_only(self.types, schema, &mut value, 0);
        Some(value)
    }

    pub(super) fn value(&self, schema: &Schema, rng: &mut Rng, depth: usize) -> Value {
        match schema {
            Schema::Bool => Value::Bool(rng.below(2) == 1),
            Schema::Integer(b) => integer(b, rng).into(),
            Schema::Number(b) => number(b, rng),
            Schema::String(b) => Value::String(string(b, rng)),
            Schema::DateTime => Value::String(format!(
                "2026-{:02}-{:02}T{:02}:{:02}:00Z",
                1 + rng.below(12),
                1 + rng.below(28),
                rng.below(24),
                rng.below(60)
            )),
            Schema::Date => Value::String(format!(
                "2026-{:02}-{:02}",
                1 + rng.below(12),
                1 + rng.below(28)
            )),
            Schema::Uuid => {
                let (a, b) = (rng.next(), rng.next());
                Value::String(format!(
                    "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
                    a >> 32,
                    (a >> 16) & 0xffff,
                    a & 0xfff,
                    b >> 52,
                    b & 0xffff_ffff_ffff
                ))
            }
            Schema::Base64 => Value::String("bW9jaw==".into()),
            Schema::Any => Value::Object(Map::new()),
            Schema::Array(items, b) => {
                let min = b.min_items.unwrap_or(0);
                let max = b.max_items.unwrap_or(usize::MAX).max(min);
                let wanted = if depth >= DEPTH { 0 } else { 1 };
                let n = wanted.clamp(min, max);
                Value::Array((0..n).map(|_| self.value(items, rng, depth + 1)).collect())
            }
            Schema::Map(values) => {
                let mut map = Map::new();
                if depth < DEPTH {
                    map.insert("key".into(), self.value(values, rng, depth + 1));
                }
                Value::Object(map)
            }
            Schema::Named(index) => match self.types.get(*index) {
                Some(t) => self
                    .example(t.example, &t.schema)
                    .unwrap_or_else(|| self.value(&t.schema, rng, depth)),
                None => Value::Null,
            },
            Schema::Object(fields) => {
                let mut map = Map::new();
                for field in *fields {
                    // Write-only properties travel in requests alone.
                    let wanted = !field.write_only && (field.required || depth < DEPTH - 1);
                    if !wanted {
                        continue;
                    }
                    let value = self
                        .example(field.example, &field.schema)
                        .unwrap_or_else(|| self.value(&field.schema, rng, depth + 1));
                    // A property a flattened union sets too (its
                    // discriminator) keeps the union's value, which names
                    // the variant made.
                    match (field.flatten, value) {
                        (true, Value::Object(inner)) => map.extend(inner),
                        (true, _) => {}
                        (false, value) => {
                            map.entry(field.name).or_insert(value);
                        }
                    }
                }
                Value::Object(map)
            }
            Schema::Enum(values) => match values.get(rng.below(values.len())) {
                Some(v) => Value::String((*v).to_string()),
                None => Value::Null,
            },
            Schema::Union(tag, variants) => {
                if variants.is_empty() {
                    return Value::Null;
                }
                // Deep down, the first variant: documents put the plain
                // case first more often than not.
                let index = if depth >= DEPTH {
                    0
                } else {
                    rng.below(variants.len())
                };
                let variant = &variants[index];
                let mut value = self.value(&variant.schema, rng, depth);
                if let (Some(tag), Some(name), Value::Object(map)) =
                    (tag, variant.tags.first(), &mut value)
                {
                    map.insert(tag.to_string(), Value::String((*name).to_string()));
                }
                value
            }
            Schema::Nullable(inner) => self.value(inner, rng, depth),
        }
    }
}

fn low_high(b: &Bounds, step: f64) -> (Option<f64>, Option<f64>) {
    let low = b
        .minimum
        .map(|m| if b.exclusive_minimum { m + step } else { m });
    let high = b
        .maximum
        .map(|m| if b.exclusive_maximum { m - step } else { m });
    (low, high)
}

pub(super) fn integer(b: &Bounds, rng: &mut Rng) -> i64 {
    if !b.one_of.is_empty() {
        return b.one_of[rng.below(b.one_of.len())];
    }
    let (low, high) = low_high(b, 1.0);
    let low = low.map(f64::ceil);
    let high = high.map(f64::floor);
    let (low, high) = match (low, high) {
        (Some(l), Some(h)) => (l, h.max(l)),
        (Some(l), None) => (l, l + 100.0),
        (None, Some(h)) => ((h - 100.0).max(h.min(1.0)), h),
        (None, None) => (1.0, 100.0),
    };
    let span = (high - low).min(1000.0) as usize;
    (low as i64).saturating_add(rng.below(span + 1) as i64)
}

pub(super) fn number(b: &Bounds, rng: &mut Rng) -> Value {
    let (low, high) = low_high(b, 0.0);
    let pick = match (low, high) {
        (Some(l), Some(h)) if h > l => l + (h - l) * (1 + rng.below(9)) as f64 / 10.0,
        (Some(l), Some(_)) => l,
        (Some(l), None) => l + 1.5 + rng.below(100) as f64,
        (None, Some(h)) => h - 1.5 - rng.below(100) as f64,
        (None, None) => 1.5 + rng.below(100) as f64,
    };
    serde_json::Number::from_f64(pick).map_or(Value::Null, Value::Number)
}

pub(super) fn string(b: &Bounds, rng: &mut Rng) -> String {
    let min = b.min_length.unwrap_or(0);
    let max = b.max_length.unwrap_or(usize::MAX).max(min);
    let fits = |s: &str| {
        let n = s.chars().count();
        n >= min && n <= max
    };
    let syntax = b
        .pattern
        .and_then(|p| regex_syntax::Parser::new().parse(p).ok());
    if let (Some(pattern), Some(syntax)) = (b.pattern, syntax) {
        let regex = compiled(pattern);
        for _ in 0..16 {
            let mut made = String::new();
            emit(&syntax, rng, &mut made);
            if fits(&made) && regex.as_ref().is_none_or(|r| r.is_match(&made)) {
                return made;
            }
        }
    }
    let base = match b.format {
        Some("email") => format!("user{}@example.com", rng.below(1000)),
        Some("uri") => format!("https://example.com/{}", rng.below(1000)),
        Some("duration") => format!("P{}D", 1 + rng.below(30)),
        _ => format!("mock-{}", rng.below(1000)),
    };
    let mut text: String = base.chars().take(max).collect();
    while text.chars().count() < min {
        text.push('x');
    }
    text
}

/// Appends a string the pattern `hir` matches, made from its syntax: each
/// alternation's branch and class's character at random, each repetition
/// at least its minimum.
fn emit(hir: &regex_syntax::hir::Hir, rng: &mut Rng, out: &mut String) {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
        HirKind::Class(Class::Unicode(class)) => {
            let ranges: Vec<(char, char)> = class.iter().map(|r| (r.start(), r.end())).collect();
            if let Some(c) = pick_char(&ranges, rng) {
                out.push(c);
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            let ranges: Vec<(char, char)> = class
                .iter()
                .filter(|r| r.start() < 0x80)
                .map(|r| (char::from(r.start()), char::from(r.end().min(0x7f))))
                .collect();
            if let Some(c) = pick_char(&ranges, rng) {
                out.push(c);
            }
        }
        HirKind::Repetition(rep) => {
            let min = rep.min as usize;
            let max = rep.max.map_or(min + 3, |m| m as usize).min(min + 3);
            let n = if min == 0 && max >= 1 {
                1
            } else {
                min + rng.below(max - min + 1)
            };
            for _ in 0..n {
                emit(&rep.sub, rng, out);
            }
        }
        HirKind::Capture(capture) => emit(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().for_each(|p| emit(p, rng, out)),
        HirKind::Alternation(branches) => {
            if let Some(branch) = branches.get(rng.below(branches.len())) {
                emit(branch, rng, out);
            }
        }
    }
}

/// A character of the class: a printable ASCII one where the class has
/// any, else the first of a range.
fn pick_char(ranges: &[(char, char)], rng: &mut Rng) -> Option<char> {
    let ascii: Vec<(u32, u32)> = ranges
        .iter()
        .filter_map(|&(s, e)| {
            let (s, e) = (u32::from(s).max(0x21), u32::from(e).min(0x7e));
            (s <= e).then_some((s, e))
        })
        .collect();
    if !ascii.is_empty() {
        let (s, e) = ascii[rng.below(ascii.len())];
        return char::from_u32(s + rng.below((e - s + 1) as usize) as u32);
    }
    ranges.first().map(|&(s, _)| s)
}
