//! A struct's `runtime::Record` impl and its serde impls through it.

use crate::emit::gates::ImplCfg;
use crate::emit::rust_type;
use crate::emit::text;
use crate::ir::{Struct, TypeDef};

/// How a field is read from its slot and written back, as its schema says.
pub(super) enum Reading {
    /// Required: absent is an error.
    Required,
    /// A required list: absent is an error, but in a form or multipart body
    /// (which cannot spell an empty list) the empty list.
    RequiredList,
    /// Optional, not nullable: absent is `None`, `null` is refused; `None`
    /// is not written.
    Optional,
    /// Optional and nullable: absent and `null` are `None`, which is
    /// written as `null`.
    OptionalNullable,
    /// Required and nullable: `null` is `None`, absent is an error.
    RequiredNullable,
    /// Absent and `null` mean different things (`runtime::Nullable`).
    ThreeState,
    /// Absent is the spec's default, made by this function.
    Defaulted(proc_macro2::Ident),
}

impl Reading {
    /// The slot's type for a field whose plain type is `plain`.
    fn slot(&self, plain: &str) -> String {
        match self {
            Reading::OptionalNullable | Reading::RequiredNullable | Reading::ThreeState => {
                format!("Option<Option<{plain}>>")
            }
            _ => format!("Option<{plain}>"),
        }
    }
}

/// What a struct's record holds: per named property its field, wire name,
/// reading and plain type; the flattened parts; and the indices in
/// `named` of the properties the parts read too and of those that admit
/// null and have no text `null`.
#[derive(Clone, Copy)]
pub(super) struct Slots<'a> {
    pub(super) named: &'a [(proc_macro2::Ident, &'a str, Reading, String)],
    pub(super) flattened: &'a [proc_macro2::Ident],
    pub(super) shared: &'a [usize],
    pub(super) null_text: &'a [usize],
}

/// A record's impls ([`record`]).
const TEMPLATE: &str = include_str!("templates/record.rs.in");
/// A record's `OTHERS` and `other` when it keeps the properties it does
/// not name.
const KEEP_OTHERS: &str = include_str!("templates/record_others.rs.in");

/// A struct's `runtime::Record` impl and its serde impls through it: one
/// slot per named property, and what it does with the others (refuses
/// them, keeps them in its additional properties or for its flattened
/// parts, or ignores them). The flattened parts read the other properties
/// and, from their slots, the `shared` ones ([`crate::ir::Field::shared`]).
/// Each impl is under the `cfg` line of its direction (`serde`: writing,
/// reading; [`crate::emit::gates::Gates::serde_cfgs`]).
pub(super) fn record(def: &TypeDef, s: &Struct, slots: &Slots<'_>, serde: &[ImplCfg; 2]) -> String {
    let name = &def.name;
    let [write, read] = serde.each_ref().map(ImplCfg::line);
    let named = slots.named;
    let count = named.len();
    let wires: Vec<String> = named
        .iter()
        .map(|(_, wire, _, _)| format!("{wire:?}"))
        .collect();
    let mut slot_types: Vec<String> = named
        .iter()
        .map(|(_, _, reading, plain)| reading.slot(plain))
        .collect();
    let mut empty: Vec<String> = named.iter().map(|_| "None".to_string()).collect();
    let others = others(s, slots, &mut slot_types, &mut empty);
    let fields = text::list(
        4,
        "const FIELDS: &'static [&'static str] = ",
        ("&[", "]"),
        &wires,
        ";",
        false,
    );
    let slots_ty = text::list(4, "type Slots = ", ("(", ")"), &slot_types, ";", true);
    // No slots: the unit type, which a body written `{}` returns.
    let slots_value = if empty.is_empty() {
        "{}".to_string()
    } else {
        format!(
            "{{\n{}    }}",
            text::list(8, "", ("(", ")"), &empty, "", true)
        )
    };
    let (finish_param, finish_body) = finish(name, s, slots);
    let (writer, start, writes) = writes(name, s, slots);
    let name_literal = format!("{name:?}");
    text::fill(
        TEMPLATE,
        &[
            ("read", read),
            ("write", write),
            ("name", name),
            ("name_literal", &name_literal),
            ("fields", &fields),
            ("others", &others),
            ("slots_ty", &slots_ty),
            ("slots_value", &slots_value),
            ("slots_param", &unread("slots", count > 0)),
            ("index_param", &unread("index", count > 1)),
            ("name_param", &unread("name", count > 0)),
            ("fill_body", &fill_body(slots)),
            ("finish_param", &finish_param),
            ("finish_body", &finish_body),
            ("writer", writer),
            ("start", &start),
            ("writes", &writes),
        ],
    )
}

/// Parameters a body does not read are named with a leading underscore,
/// so the impl needs no lint allowance.
fn unread(name: &str, read: bool) -> String {
    format!("{}{name}", if read { "" } else { "_" })
}

/// What a record does with the properties it does not name: `OTHERS` and
/// `other`, and the slot it keeps them in (added to `slot_types`, with
/// its empty value to `empty`).
fn others(
    s: &Struct,
    slots: &Slots<'_>,
    slot_types: &mut Vec<String>,
    empty: &mut Vec<String>,
) -> String {
    let rest = slots.named.len();
    // The other properties: as JSON when a flattened part reads them, else
    // straight into the additional properties' type.
    let mut keep = |slot: String, keep: &str| {
        slot_types.push(slot);
        empty.push("Default::default()".into());
        text::fill(KEEP_OTHERS, &[("keep", keep), ("rest", &rest.to_string())])
    };
    if !slots.flattened.is_empty() {
        keep(
            "serde_json::Map<String, serde_json::Value>".into(),
            "keep_json",
        )
    } else if let Some(shape) = &s.additional {
        let ty = rust_type(shape, "");
        keep(format!("std::collections::BTreeMap<String, {ty}>"), "keep")
    } else if s.deny_unknown {
        "    const OTHERS: runtime::Others = runtime::Others::Deny;\n".into()
    } else {
        String::new()
    }
}

/// The body of `fill`: the named property at `index` into its slot.
fn fill_body(slots: &Slots<'_>) -> String {
    use std::fmt::Write as _;
    let count = slots.named.len();
    let filler = |i: usize| {
        if slots.null_text.contains(&i) {
            "fill_nullable"
        } else {
            "fill"
        }
    };
    match count {
        0 => "        map.next_value::<serde::de::IgnoredAny>().map(drop)\n".to_string(),
        1 => format!("        runtime::{}(&mut slots.0, name, map)\n", filler(0)),
        _ => {
            let mut arms = String::from("        match index {\n");
            for i in 0..count {
                let pattern = if i + 1 == count {
                    "_".to_string()
                } else {
                    i.to_string()
                };
                let _ = writeln!(
                    arms,
                    "            {pattern} => runtime::{}(&mut slots.{i}, name, map),",
                    filler(i)
                );
            }
            arms + "        }\n"
        }
    }
}

/// `finish`'s parameter and body: the struct from its slots, each field
/// as its reading says, the flattened parts and additional properties
/// from the other properties.
fn finish(name: &str, s: &Struct, slots: &Slots<'_>) -> (String, String) {
    use std::fmt::Write as _;
    let Slots {
        named,
        flattened,
        shared,
        ..
    } = *slots;
    let rest = named.len();
    let mut finished: Vec<String> = named
        .iter()
        .enumerate()
        .map(|(i, (field, wire, reading, _))| {
            let slot = format!("slots.{i}");
            let value = match reading {
                // Bound by the `let ... else` below, which checks them all
                // at once (one early return a record, not one a property).
                Reading::Required | Reading::RequiredNullable => format!("f{i}"),
                Reading::RequiredList => format!("runtime::required_list({slot}, {wire:?})?"),
                Reading::Optional => slot,
                Reading::OptionalNullable => format!("{slot}.flatten()"),
                Reading::ThreeState => format!("runtime::nullable({slot})"),
                Reading::Defaulted(default) => format!("{slot}.unwrap_or_else({default})"),
            };
            format!("{field}: {value},")
        })
        .collect();
    // Every flattened part, and the additional properties beside them,
    // read from the same other properties; the parts, with the shared
    // properties among them.
    let mut sharing = String::new();
    let mut consumers: Vec<(String, String)> = flattened
        .iter()
        .map(|f| (f.to_string(), format!("slots.{rest}")))
        .collect();
    if !shared.is_empty() {
        let clone = if s.additional.is_some() {
            ".clone()"
        } else {
            ""
        };
        let _ = writeln!(sharing, "        let mut shared = slots.{rest}{clone};");
        for i in shared {
            let wire = named[*i].1;
            let _ = writeln!(
                sharing,
                "        runtime::share(&mut shared, {wire:?}, &slots.{i})?;"
            );
        }
        for (_, source) in &mut consumers {
            *source = "shared".into();
        }
    }
    if !flattened.is_empty() && s.additional.is_some() {
        consumers.push(("additional_properties".into(), format!("slots.{rest}")));
    }
    for (i, (field, source)) in consumers.iter().enumerate() {
        let read_later = consumers[i + 1..].iter().any(|(_, later)| later == source);
        let clone = if read_later { ".clone()" } else { "" };
        finished.push(format!("{field}: runtime::flattened({source}{clone})?,"));
    }
    if flattened.is_empty() && s.additional.is_some() {
        finished.push(format!("additional_properties: slots.{rest},"));
    }
    let finish_param = unread("slots", !finished.is_empty());
    let body = if finished.is_empty() {
        format!("        Ok({name} {{}})\n")
    } else {
        let mut body = format!("{sharing}{}        Ok({name} {{\n", present(named));
        for line in &finished {
            let _ = writeln!(body, "            {line}");
        }
        body + "        })\n"
    };
    (finish_param, body)
}

/// The required properties bound from their slots by one `let ... else`,
/// which checks them all at once (one early return a record, not one a
/// property).
fn present(named: &[(proc_macro2::Ident, &str, Reading, String)]) -> String {
    let required: Vec<(usize, &str)> = named
        .iter()
        .enumerate()
        .filter(|(_, (_, _, reading, _))| {
            matches!(reading, Reading::Required | Reading::RequiredNullable)
        })
        .map(|(i, (_, wire, _, _))| (i, *wire))
        .collect();
    match required.as_slice() {
        [] => String::new(),
        [(i, wire)] => format!(
            "        let Some(f{i}) = slots.{i} else {{\n            \
             return Err(serde::de::Error::missing_field({wire:?}));\n        }};\n"
        ),
        _ => {
            let checks: Vec<String> = required
                .iter()
                .map(|(i, _)| format!("slots.{i}.is_none()"))
                .collect();
            let names: Vec<String> = required.iter().map(|(_, w)| format!("{w:?}")).collect();
            let bound: Vec<String> = required
                .iter()
                .map(|(i, _)| format!("Some(f{i})"))
                .collect();
            let moved: Vec<String> = required.iter().map(|(i, _)| format!("slots.{i}")).collect();
            let one_line = format!(
                "        let ({}) = ({}) else {{",
                bound.join(", "),
                moved.join(", ")
            );
            let binding = if one_line.len() <= text::WIDTH {
                one_line + "\n"
            } else {
                let lines = |items: &[String]| {
                    items
                        .iter()
                        .map(|item| format!("            {item},\n"))
                        .collect::<String>()
                };
                format!(
                    "        let (\n{}        ) = (\n{}        ) else {{\n",
                    lines(&bound),
                    lines(&moved)
                )
            };
            format!(
                "{}{binding}{}        }};\n",
                text::list(8, "let missing = ", ("[", "]"), &checks, ";", false),
                text::list(
                    12,
                    "return Err(runtime::missing(&missing, ",
                    ("&[", "]"),
                    &names,
                    "));",
                    false
                ),
            )
        }
    }
}

/// What the `Serialize` impl of the struct `name` writes: the writer's
/// binding (`mut` when it writes anything), how it starts (a struct of the
/// named properties, or a map when there may be others), and a line per
/// named property, flattened part and the additional properties.
fn writes(name: &str, s: &Struct, slots: &Slots<'_>) -> (&'static str, String, String) {
    use std::fmt::Write as _;
    let Slots {
        named,
        flattened,
        shared,
        ..
    } = *slots;
    let count = named.len();
    let mut writes = String::new();
    for (field, wire, reading, _) in named {
        let method = match reading {
            Reading::Optional => "optional",
            Reading::ThreeState => "nullable",
            _ => "field",
        };
        let _ = writeln!(writes, "        out.{method}({wire:?}, &self.{field});");
    }
    // A shared property is the object's to write.
    let written: Vec<String> = shared
        .iter()
        .map(|i| format!("{:?}", named[*i].1))
        .collect();
    for f in flattened {
        if written.is_empty() {
            let _ = writeln!(writes, "        out.flatten(&self.{f});");
        } else {
            let _ = writeln!(
                writes,
                "        out.flatten_except(&self.{f}, &[{}]);",
                written.join(", ")
            );
        }
    }
    if s.additional.is_some() {
        writes.push_str("        out.rest(&self.additional_properties);\n");
    }
    let writer = if writes.is_empty() { "out" } else { "mut out" };
    // An object with properties beyond its named ones is a map; one
    // without, a struct of its named properties.
    let start = if flattened.is_empty() && s.additional.is_none() {
        format!("runtime::Writer::start(serializer, {name:?}, {count})")
    } else {
        "runtime::Writer::start_open(serializer, self)".to_string()
    };
    (writer, start, writes)
}
