//! `models.rs`: one Rust type per named schema, with doc comments from the
//! spec, serde impls through the runtime's record and enum readers, and a
//! `Validate` impl where a request can carry the type and the schema bounds
//! something ([`Api::checked`]).

use super::doc_comments::doc_paragraphs;
use super::gates::Gates;
use super::literals::default_expr;
use super::text::{self, compact, Expr, Pieces};
use super::validation::{check_expr, check_fn};
use super::{ident, rust_type};
use crate::ir::{Api, Field, Struct, Ty, TypeDef, TypeKind, Union};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The module's doc comment.
pub const DOC: &str = "Models: one type per schema of the spec.";

/// What the module imports: the runtime, when a type has an impl calling
/// it (every struct, enum and union, and a checked newtype) or an alias
/// names a runtime type.
pub fn imports(api: &Api) -> Vec<&'static str> {
    let uses_runtime = api.types.values().any(|t| match &t.kind {
        TypeKind::Alias(shape) => super::uses_runtime(shape),
        TypeKind::Newtype { shape, .. } => {
            api.checked.contains(&t.name) || super::uses_runtime(shape)
        }
        _ => true,
    });
    if uses_runtime {
        vec!["use super::runtime;"]
    } else {
        Vec::new()
    }
}

/// The items for some of the named types (the file is rendered in chunks),
/// each under the `cfg` of the features that compile it in. Structs and
/// enums, whose items have a fixed shape, are written as text.
pub fn items(api: &Api, gates: &Gates, defs: &[&TypeDef]) -> String {
    let mut pieces = Pieces::default();
    for def in defs {
        let own = gates.of_type(&def.name);
        let serde = gates.serde_lines(&def.name, own.as_ref().map(compact).as_deref());
        let cfg = Gates::attr(own);
        match &def.kind {
            TypeKind::Struct(s) => structure(api, def, s, &cfg, &serde, &mut pieces),
            TypeKind::Enum(variants) => pieces.text(&enumeration(def, variants, &cfg, &serde)),
            TypeKind::Union(u) => {
                pieces.tokens(union(api, def, u, type_docs(def, &cfg), &cfg, &serde));
            }
            TypeKind::Alias(shape) => {
                let ty = compact(&rust_type(shape, &quote!()));
                let name = ident(&def.name).to_string();
                pieces.text(&(type_docs_text(def, &cfg) + &text::type_alias(&name, &ty)));
            }
            TypeKind::Newtype { shape, boxed } => {
                pieces.text(&newtype(api, def, shape, *boxed, &cfg));
            }
        }
    }
    pieces.finish()
}

/// A type's doc paragraphs: its description, and whether it is deprecated.
fn type_paragraphs(def: &TypeDef) -> [Option<String>; 2] {
    let deprecated = def.deprecated.then(|| "**Deprecated.**".to_string());
    [def.doc.clone(), deprecated]
}

/// A type's doc comment and `cfg` attribute.
fn type_docs(def: &TypeDef, cfg: &TokenStream) -> TokenStream {
    let docs = doc_paragraphs(&type_paragraphs(def));
    quote!(#docs #cfg)
}

/// A type's doc comment and `cfg` attribute, as text.
fn type_docs_text(def: &TypeDef, cfg: &TokenStream) -> String {
    text::doc_text(&type_paragraphs(def), "") + &text::cfg_line(cfg)
}

/// A struct wrapping a shape that leads back to itself.
fn newtype(
    api: &Api,
    def: &TypeDef,
    shape: &crate::ir::Shape,
    boxed: bool,
    cfg: &TokenStream,
) -> String {
    let ty = compact(&rust_type(shape, &quote!()));
    let ty = if boxed { format!("Box<{ty}>") } else { ty };
    let mut out = format!(
        "{}#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]\n\
         #[serde(transparent)]\npub struct {}(pub {ty});\n",
        type_docs_text(def, cfg),
        ident(&def.name)
    );
    let check =
        check_expr("&self.0", shape, api).map(|c| Expr::Stmt(String::new(), Box::new(c), "?;"));
    if let Some(validate) = validate_impl(api, def, cfg, check.into_iter().collect()) {
        out.push('\n');
        out.push_str(&validate);
    }
    out
}

fn field_type(f: &Field) -> TokenStream {
    let ty = rust_type(&f.shape, &quote!());
    let ty = if f.boxed { quote!(Box<#ty>) } else { ty };
    if three_state(f) {
        quote!(runtime::Nullable<#ty>)
    } else if is_optional(f) {
        quote!(Option<#ty>)
    } else {
        ty
    }
}

/// A field is an `Option` when it may be absent or null, and when it is
/// read-only or write-only (clients never send the one, servers never send
/// the other back, whatever `required` says; a required write-only field
/// is checked present in requests).
fn is_optional(f: &Field) -> bool {
    !f.required || f.shape.nullable || f.read_only || f.write_only
}

/// A field that may be absent and may be `null`, and where the two mean
/// different things (PATCH-style bodies): `runtime::Nullable`, not `Option`.
fn three_state(f: &Field) -> bool {
    !f.required && f.shape.nullable && !f.read_only && !f.write_only && !f.flatten
}

/// How a field is read from its slot and written back, as its schema says.
enum Reading {
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
    fn slot(&self, plain: &TokenStream) -> TokenStream {
        match self {
            Reading::OptionalNullable | Reading::RequiredNullable | Reading::ThreeState => {
                quote!(Option<Option<#plain>>)
            }
            _ => quote!(Option<#plain>),
        }
    }
}

/// What a struct's record holds: per named property its field, wire name,
/// reading and plain type; the flattened parts; and the indices in
/// `named` of the properties the parts read too and of those that admit
/// null and have no text `null`.
#[derive(Clone, Copy)]
struct Slots<'a> {
    named: &'a [(proc_macro2::Ident, &'a str, Reading, TokenStream)],
    flattened: &'a [proc_macro2::Ident],
    shared: &'a [usize],
    null_text: &'a [usize],
}

/// Whether the text `null` may be a value of the shape itself (a string
/// without a format, an enum that lists it, any JSON), so that a form's
/// `null` cannot mean null.
fn text_may_be_null(api: &Api, shape: &crate::ir::Shape) -> bool {
    match &shape.ty {
        Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 | Ty::DateTime | Ty::Date | Ty::Uuid => {
            false
        }
        // No format's text (a URI, an email address, a duration) is `null`;
        // other checks may refuse it too.
        Ty::String => {
            let c = &shape.checks;
            c.format.is_none()
                && c.min_length.is_none_or(|min| min <= 4)
                && c.max_length.is_none_or(|max| max >= 4)
                && c.pattern.as_deref().is_none_or(|p| {
                    regex::Regex::new(p).is_ok_and(|pattern| pattern.is_match("null"))
                })
                && !c.not_in.iter().any(|v| v.as_str() == Some("null"))
        }
        Ty::Named(name) => match crate::lower::resolve(&api.types, name).map(|d| &d.kind) {
            Some(TypeKind::Enum(variants)) => variants.iter().any(|v| v.wire == "null"),
            // `resolve` ends at a shape of no named type.
            Some(TypeKind::Alias(inner)) => text_may_be_null(api, inner),
            _ => true,
        },
        _ => true,
    }
}

/// A struct, its defaults, its record and serde impls (written as text)
/// and its `Validate` impl.
fn structure(
    api: &Api,
    def: &TypeDef,
    s: &Struct,
    cfg: &TokenStream,
    serde: &[String; 2],
    pieces: &mut Pieces,
) {
    let docs = type_docs_text(def, cfg);
    let mut defaults = Vec::new();
    // Per named property: its field, wire name, reading and plain type.
    let mut named: Vec<(proc_macro2::Ident, &str, Reading, TokenStream)> = Vec::new();
    let mut flattened: Vec<proc_macro2::Ident> = Vec::new();
    // The indices in `named` of the properties the flattened parts read too.
    let mut shared: Vec<usize> = Vec::new();
    // Those that admit null and have no text `null` (`runtime::NullText`).
    let mut null_text: Vec<usize> = Vec::new();
    let mut fields: Vec<String> = s
        .fields
        .iter()
        .map(|f| {
            let fname = ident(&f.rust);
            let notes = [
                f.read_only
                    .then(|| "Read-only: sent by the server, refused in requests.".to_string()),
                f.write_only
                    .then(|| "Write-only: accepted in requests, never sent back.".to_string()),
                f.deprecated.then(|| "**Deprecated.**".to_string()),
            ];
            let mut paragraphs = vec![f.doc.clone()];
            paragraphs.extend(notes);
            let plain = rust_type(&f.shape, &quote!());
            let plain = if f.boxed { quote!(Box<#plain>) } else { plain };
            if f.flatten {
                let ty = compact(&field_type(f));
                let docs = text::doc_text(std::slice::from_ref(&f.doc), "    ");
                flattened.push(fname.clone());
                return format!("{docs}    pub {fname}: {ty},\n");
            }
            let (reading, ty) = if let Some(expr) = spelled_default(api, f) {
                let value = f.default.as_ref().expect("a spelled default has a value");
                let fn_name = format_ident!(
                    "default_{}_{}",
                    to_snake(&def.name),
                    f.rust.trim_end_matches('_')
                );
                // Only reading fills a default in.
                let read: TokenStream = serde[1].parse().expect("a `cfg` line is Rust");
                defaults.push(quote! {
                    #read
                    fn #fn_name() -> #plain {
                        #expr
                    }
                });
                paragraphs.push(Some(format!("Defaults to `{value}`.")));
                (Reading::Defaulted(fn_name), plain.clone())
            } else {
                if let Some(value) = &f.default {
                    paragraphs.push(Some(format!("Defaults to `{value}` when absent.")));
                }
                let reading = if three_state(f) {
                    Reading::ThreeState
                } else if f.required && f.shape.nullable && !f.read_only && !f.write_only {
                    Reading::RequiredNullable
                } else if is_optional(f) && f.shape.nullable {
                    Reading::OptionalNullable
                } else if is_optional(f) {
                    Reading::Optional
                } else if matches!(f.shape.ty, Ty::Array(_)) && !f.boxed {
                    Reading::RequiredList
                } else {
                    Reading::Required
                };
                (reading, field_type(f))
            };
            if f.shared {
                shared.push(named.len());
            }
            let nullable_slot = matches!(
                reading,
                Reading::OptionalNullable | Reading::RequiredNullable | Reading::ThreeState
            );
            if nullable_slot && !text_may_be_null(api, &f.shape) {
                null_text.push(named.len());
            }
            named.push((fname.clone(), f.wire.as_str(), reading, plain));
            let docs = text::doc_text(&paragraphs, "    ");
            format!("{docs}    pub {fname}: {},\n", compact(&ty))
        })
        .collect();
    if let Some(shape) = &s.additional {
        let ty = compact(&rust_type(shape, &quote!()));
        fields.push(format!(
            "    /// Properties beyond the named ones.\n    \
             pub additional_properties: std::collections::BTreeMap<String, {ty}>,\n"
        ));
    }
    let checks = s.fields.iter().map(|f| field_check(api, f));
    let additional_check = s.additional.as_ref().and_then(|shape| {
        let wrapped = crate::ir::Shape::new(Ty::Map(Box::new(shape.clone())));
        check_expr("&self.additional_properties", &wrapped, api)
            .map(|c| Expr::Stmt(String::new(), Box::new(c), "?;"))
    });
    let checks: Vec<Expr> = checks.flatten().chain(additional_check).collect();
    let validate = validate_impl(api, def, cfg, checks);
    let body = if fields.is_empty() {
        "{}\n".to_string()
    } else {
        format!("{{\n{}}}\n", fields.concat())
    };
    pieces.text(&format!(
        "{docs}#[derive(Debug, Clone, PartialEq)]\npub struct {} {body}",
        def.name
    ));
    pieces.tokens(quote!(#(#defaults)*));
    let slots = Slots {
        named: &named,
        flattened: &flattened,
        shared: &shared,
        null_text: &null_text,
    };
    let mut record = record(def, s, &slots, serde);
    if let Some(validate) = validate {
        record.push('\n');
        record.push_str(&validate);
    }
    pieces.text(&record);
}

/// A checked type's `Validate` impl, running `checks` (statements that
/// return a violation), as text; nothing for a type no value of which can
/// break a bound ([`Api::checked`]).
fn validate_impl(api: &Api, def: &TypeDef, cfg: &TokenStream, checks: Vec<Expr>) -> Option<String> {
    api.checked
        .contains(&def.name)
        .then(|| super::validation::validate_impl(&ident(&def.name).to_string(), cfg, &checks))
}

/// A struct's `runtime::Record` impl and its serde impls through it: one
/// slot per named property, and what it does with the others (refuses
/// them, keeps them in its additional properties or for its flattened
/// parts, or ignores them). The flattened parts read the other properties
/// and, from their slots, the `shared` ones ([`crate::ir::Field::shared`]).
/// A struct's `runtime::Record` and serde impls, each under the `cfg` line
/// of its direction (`serde`: writing, reading; [`Gates::serde_lines`]).
fn record(def: &TypeDef, s: &Struct, slots: &Slots<'_>, serde: &[String; 2]) -> String {
    use std::fmt::Write as _;
    let Slots {
        named,
        flattened,
        shared,
        null_text,
    } = *slots;
    let name = &def.name;
    let [write, read] = serde;
    let wires: Vec<String> = named
        .iter()
        .map(|(_, wire, _, _)| format!("{wire:?}"))
        .collect();
    let mut slot_types: Vec<String> = named
        .iter()
        .map(|(_, _, reading, plain)| compact(&reading.slot(plain)))
        .collect();
    let mut empty: Vec<String> = named.iter().map(|_| "None".to_string()).collect();
    let rest = named.len();
    // The other properties: as JSON when a flattened part reads them, else
    // straight into the additional properties' type.
    let mut keep = |slot: String, keep: &str| {
        slot_types.push(slot);
        empty.push("Default::default()".into());
        format!(
            "    const OTHERS: runtime::Others = runtime::Others::Keep;\n\
             \n    fn other<'de, A: serde::de::MapAccess<'de>>(\n\
             \x20       slots: &mut Self::Slots,\n\
             \x20       key: String,\n\
             \x20       map: &mut A,\n\
             \x20   ) -> Result<(), A::Error> {{\n\
             \x20       runtime::{keep}(&mut slots.{rest}, key, map)\n\
             \x20   }}\n"
        )
    };
    let others = if !flattened.is_empty() {
        keep(
            "serde_json::Map<String, serde_json::Value>".into(),
            "keep_json",
        )
    } else if let Some(shape) = &s.additional {
        let ty = compact(&rust_type(shape, &quote!()));
        keep(format!("std::collections::BTreeMap<String, {ty}>"), "keep")
    } else if s.deny_unknown {
        "    const OTHERS: runtime::Others = runtime::Others::Deny;\n".into()
    } else {
        String::new()
    };
    let count = named.len();
    // Parameters a body does not read are named with a leading underscore,
    // so the impl needs no lint allowance.
    let unread = |name: &str, read: bool| format!("{}{name}", if read { "" } else { "_" });
    let filler = |i: usize| {
        if null_text.contains(&i) {
            "fill_nullable"
        } else {
            "fill"
        }
    };
    let fill_body = match count {
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
    };
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
    let (slots_param, index_param, name_param) = (
        unread("slots", count > 0),
        unread("index", count > 1),
        unread("name", count > 0),
    );
    let finish_param = unread("slots", !finished.is_empty());
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
    let required: Vec<(usize, &str)> = named
        .iter()
        .enumerate()
        .filter(|(_, (_, _, reading, _))| {
            matches!(reading, Reading::Required | Reading::RequiredNullable)
        })
        .map(|(i, (_, wire, _, _))| (i, *wire))
        .collect();
    let present = match required.as_slice() {
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
    };
    let finish_body = if finished.is_empty() {
        format!("        Ok({name} {{}})\n")
    } else {
        let mut body = format!("{sharing}{present}        Ok({name} {{\n");
        for line in &finished {
            let _ = writeln!(body, "            {line}");
        }
        body + "        })\n"
    };
    format!(
        "{read}impl runtime::Record for {name} {{\n\
         \x20   const NAME: &'static str = {name:?};\n\
         {fields}\
         {others}\
         {slots_ty}\
         \n    fn slots() -> Self::Slots {slots_value}\n\
         \n    fn fill<'de, A: serde::de::MapAccess<'de>>(\n\
         \x20       {slots_param}: &mut Self::Slots,\n\
         \x20       {index_param}: usize,\n\
         \x20       {name_param}: &'static str,\n\
         \x20       map: &mut A,\n\
         \x20   ) -> Result<(), A::Error> {{\n\
         {fill_body}\
         \x20   }}\n\
         \n    fn finish<E: serde::de::Error>({finish_param}: Self::Slots) -> Result<Self, E> {{\n\
         {finish_body}\
         \x20   }}\n\
         }}\n\
         \n{read}impl<'de> serde::Deserialize<'de> for {name} {{\n\
         \x20   fn deserialize<D: serde::Deserializer<'de>>(\n\
         \x20       deserializer: D,\n\
         \x20   ) -> Result<Self, D::Error> {{\n\
         \x20       runtime::read_record(deserializer)\n\
         \x20   }}\n\
         }}\n\
         \n{write}impl serde::Serialize for {name} {{\n\
         \x20   fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{\n\
         \x20       let {writer} = {start};\n\
         {writes}\
         \x20       out.end()\n\
         \x20   }}\n\
         }}\n"
    )
}

/// The default of an optional field, when Rust can spell it: the field is then
/// the plain type, filled in by serde when absent.
fn spelled_default(api: &Api, f: &Field) -> Option<TokenStream> {
    if f.required || f.shape.nullable || f.read_only || f.write_only || f.boxed {
        return None;
    }
    default_expr(f.default.as_ref()?, &f.shape, api, &quote!())
}

/// The statements that check one field, with the field's wire name in
/// errors.
fn field_check(api: &Api, f: &Field) -> Vec<Expr> {
    let name = ident(&f.rust);
    let wire = text::string_literal(&f.wire);
    let refuse = |test: &str, message: &str| Expr::Scope {
        head: format!("if self.{name}.{test}()"),
        body: vec![Expr::text(format!(
            "return Err(runtime::Violation::new(\"{message}\").within({wire}));"
        ))],
        tail: "",
    };
    if f.read_only {
        return vec![refuse("is_some", "is read-only")];
    }
    let mut statements = Vec::new();
    // Required in requests, the one place it travels.
    if f.write_only && f.required && !f.shape.nullable {
        statements.push(refuse("is_none", "is required"));
    }
    let field = format!("&self.{name}");
    let check = if three_state(f) {
        check_fn("value", &f.shape, api).map(|inner| {
            Expr::call(
                "runtime::check_nullable",
                vec![Expr::text(field), inner],
                "",
            )
        })
    } else if is_optional(f) && spelled_default(api, f).is_none() {
        check_fn("value", &f.shape, api)
            .map(|inner| Expr::call("runtime::check_some", vec![Expr::text(field), inner], ""))
    } else {
        check_expr(&field, &f.shape, api)
    };
    if let Some(check) = check {
        statements.push(Expr::Stmt(
            String::new(),
            Box::new(Expr::call(
                "runtime::within",
                vec![Expr::Text(wire), check],
                "?",
            )),
            ";",
        ));
    }
    statements
}

fn enumeration(
    def: &TypeDef,
    variants: &[crate::ir::EnumVariant],
    cfg: &TokenStream,
    [write, read]: &[String; 2],
) -> String {
    let name = &def.name;
    let docs = type_docs_text(def, cfg);
    let cfg = text::cfg_line(cfg);
    // The variant that keeps a value the spec does not list: `Unknown`,
    // unless a listed value took that name.
    let taken = |candidate: &str| variants.iter().any(|v| v.rust == candidate);
    let unknown = ["Unknown", "Unlisted", "OtherValue"]
        .into_iter()
        .map(str::to_string)
        .chain((2..).map(|n| format!("Unknown{n}")))
        .find(|candidate| !taken(candidate))
        .expect("a free name");
    let mut out = format!("{docs}#[derive(Debug, Clone, PartialEq, Eq)]\npub enum {name} {{\n");
    for v in variants {
        let doc = text::doc_text(&[Some(format!("`{}`", v.wire))], "    ");
        out.push_str(&format!("{doc}    {},\n", v.rust));
    }
    out.push_str(&format!(
        "    /// A value the spec does not list, as it was read: a newer server's,\n    \
         /// which a client keeps. A server refuses one in a request and cannot\n    \
         /// send one.\n    {unknown}(runtime::Unknown),\n}}\n"
    ));
    let all: Vec<String> = variants
        .iter()
        .map(|v| format!("Self::{}", v.rust))
        .collect();
    let wires: Vec<String> = variants.iter().map(|v| format!("{:?}", v.wire)).collect();
    let count = variants.len();
    let all = text::list(
        4,
        &format!("pub const ALL: [Self; {count}] = "),
        ("[", "]"),
        &all,
        ";",
        false,
    );
    let wires = text::list(
        4,
        "const WIRE: &'static [&'static str] = ",
        ("&[", "]"),
        &wires,
        ";",
        false,
    );
    let mut arms: String = variants
        .iter()
        .map(|v| format!("            Self::{} => {:?},\n", v.rust, v.wire))
        .collect();
    arms.push_str(&format!(
        "            Self::{unknown}(value) => value.as_str(),\n"
    ));
    out.push_str(&format!(
        "\n{cfg}impl {name} {{\n\
         \x20   /// Every value the spec lists, in its order.\n\
         {all}\
         \n    /// The value as it is written on the wire.\n\
         \x20   pub fn as_str(&self) -> &str {{\n\
         \x20       runtime::StringEnum::wire(self)\n\
         \x20   }}\n\
         }}\n\
         \n{cfg}impl runtime::StringEnum for {name} {{\n\
         \x20   const NAME: &'static str = {name:?};\n\
         {wires}\
         \n    fn known(index: usize) -> Self {{\n\
         \x20       Self::ALL[index].clone()\n\
         \x20   }}\n\
         \n    fn unknown(value: runtime::Unknown) -> Self {{\n\
         \x20       Self::{unknown}(value)\n\
         \x20   }}\n\
         \n    fn wire(&self) -> &str {{\n\
         \x20       match self {{\n\
         {arms}\
         \x20       }}\n\
         \x20   }}\n\
         }}\n\
         \n{cfg}impl std::hash::Hash for {name} {{\n\
         \x20   fn hash<H: std::hash::Hasher>(&self, state: &mut H) {{\n\
         \x20       runtime::hash_enum(self, state);\n\
         \x20   }}\n\
         }}\n\
         \n{cfg}impl PartialOrd for {name} {{\n\
         \x20   fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {{\n\
         \x20       Some(self.cmp(other))\n\
         \x20   }}\n\
         }}\n\
         \n{cfg}impl Ord for {name} {{\n\
         \x20   /// The values in the spec's order, then unknown ones by their text.\n\
         \x20   fn cmp(&self, other: &Self) -> std::cmp::Ordering {{\n\
         \x20       runtime::compare_enums(self, other)\n\
         \x20   }}\n\
         }}\n\
         \n{cfg}impl std::fmt::Display for {name} {{\n\
         \x20   fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{\n\
         \x20       f.write_str(self.as_str())\n\
         \x20   }}\n\
         }}\n\
         \n{cfg}impl std::str::FromStr for {name} {{\n\
         \x20   type Err = runtime::UnknownVariant;\n\
         \n    fn from_str(s: &str) -> Result<Self, Self::Err> {{\n\
         \x20       runtime::parse_enum(s)\n\
         \x20   }}\n\
         }}\n\
         \n{write}impl serde::Serialize for {name} {{\n\
         \x20   fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{\n\
         \x20       runtime::write_enum(self, serializer)\n\
         \x20   }}\n\
         }}\n\
         \n{read}impl<'de> serde::Deserialize<'de> for {name} {{\n\
         \x20   fn deserialize<D: serde::Deserializer<'de>>(\n\
         \x20       deserializer: D,\n\
         \x20   ) -> Result<Self, D::Error> {{\n\
         \x20       runtime::read_enum(deserializer)\n\
         \x20   }}\n\
         }}\n"
    ));
    out
}

fn union(
    api: &Api,
    def: &TypeDef,
    u: &Union,
    docs: TokenStream,
    cfg: &TokenStream,
    serde: &[String; 2],
) -> TokenStream {
    let [write, read] = serde
        .each_ref()
        .map(|line| line.parse::<TokenStream>().expect("a `cfg` line is Rust"));
    let name = ident(&def.name);
    let variants = u.variants.iter().map(|v| {
        let variant = ident(&v.rust);
        let ty = rust_type(&v.shape, &quote!());
        let ty = if v.boxed { quote!(Box<#ty>) } else { ty };
        let doc = (!v.tag_values.is_empty()).then(|| {
            let t = format!(" `{}`", v.tag_values.join("`, `"));
            quote!(#[doc = #t])
        });
        quote!(#doc #variant(#ty),)
    });
    let checks = u.variants.iter().map(|v| {
        let variant = ident(&v.rust);
        match check_expr("value", &v.shape, api).map(|check| check.tokens()) {
            Some(check) => quote!(Self::#variant(value) => #check,),
            None => quote!(Self::#variant(_) => Ok(()),),
        }
    });
    let validate = api.checked.contains(&def.name).then(|| {
        quote! {
            #cfg
            impl runtime::Validate for #name {
                fn validate(&self) -> Result<(), runtime::Violation> {
                    match self {
                        #(#checks)*
                    }
                }
            }
        }
    });
    let type_name = &def.name;
    // Without a tag: every variant tried, by its structure.
    let structural = || {
        let names: Vec<&str> = u.variants.iter().map(|v| v.rust.as_str()).collect();
        // In text (a query, a header) every value is a string, and one
        // value is also an array of one: array variants come after the
        // others, free-text ones last.
        let tier = |v: &crate::ir::UnionVariant| {
            if free_text(api, &v.shape) {
                2
            } else if matches!(v.shape.ty, Ty::Array(_)) {
                1
            } else {
                0
            }
        };
        let mut ordered: Vec<&crate::ir::UnionVariant> = u.variants.iter().collect();
        ordered.sort_by_key(|v| tier(v));
        let attempt = |v: &crate::ir::UnionVariant, then: TokenStream| {
            let read = quote!(if let Ok(v) = runtime::read_variant(&value, source) { #then });
            match object_fit(api, &v.shape) {
                Some(fits) => quote!(if #fits { #read }),
                None => read,
            }
        };
        let wrap = |v: &crate::ir::UnionVariant| {
            let variant = ident(&v.rust);
            if v.boxed {
                quote!(Self::#variant(Box::new(v)))
            } else {
                quote!(Self::#variant(v))
            }
        };
        if u.exclusive {
            // `oneOf`: every variant is tried, and exactly one must
            // accept. In text, later tiers only when earlier ones took
            // nothing.
            let mut blocks = Vec::new();
            for level in 0..3 {
                let tries: Vec<TokenStream> = ordered
                    .iter()
                    .filter(|v| tier(v) == level)
                    .map(|v| {
                        let (name, value) = (&v.rust, wrap(v));
                        attempt(v, quote!(accepted.push((#name, #value));))
                    })
                    .collect();
                if tries.is_empty() {
                    continue;
                }
                blocks.push(if level == 0 {
                    quote!(#(#tries)*)
                } else {
                    quote! {
                        if source == runtime::Source::Json || accepted.is_empty() {
                            #(#tries)*
                        }
                    }
                });
            }
            quote! {
                let mut accepted = Vec::new();
                #(#blocks)*
                runtime::decide(#type_name, &[#(#names),*], accepted)
            }
        } else {
            // `anyOf`: the first variant, in tier order, that accepts.
            let tries = ordered.iter().map(|v| {
                let value = wrap(v);
                attempt(v, quote!(return Ok(#value);))
            });
            quote! {
                #(#tries)*
                Err(runtime::none_of(#type_name, &[#(#names),*]))
            }
        }
    };
    let decide_body = match &u.tag {
        Some(tag) => {
            // Each tag value, with the variants it names in order (a value
            // two variants allow tries them in turn); values naming the
            // same variants share an arm.
            let mut named: Vec<(&str, Vec<&crate::ir::UnionVariant>)> = Vec::new();
            for v in &u.variants {
                for value in v.tag_values.iter().chain(&v.implicit_tag) {
                    match named.iter_mut().find(|(t, _)| t == value) {
                        Some((_, variants)) => variants.push(v),
                        None => named.push((value, vec![v])),
                    }
                }
            }
            let mut arms: Vec<(Vec<&str>, Vec<&crate::ir::UnionVariant>)> = Vec::new();
            for (value, variants) in named {
                let same = |(_, vs): &&mut (Vec<&str>, Vec<&crate::ir::UnionVariant>)| {
                    vs.len() == variants.len()
                        && vs.iter().zip(&variants).all(|(a, b)| a.rust == b.rust)
                };
                match arms.iter_mut().find(same) {
                    Some((values, _)) => values.push(value),
                    None => arms.push((vec![value], variants)),
                }
            }
            let read = |v: &crate::ir::UnionVariant| {
                let variant = ident(&v.rust);
                if v.boxed {
                    quote!(runtime::read_variant(&value, source).map(|v| Self::#variant(Box::new(v))))
                } else {
                    quote!(runtime::read_variant(&value, source).map(Self::#variant))
                }
            };
            // The values the document names (an implicit name is taken,
            // not offered).
            let values = arms
                .iter()
                .flat_map(|(values, _)| values.iter().copied())
                .filter(|value| {
                    u.variants
                        .iter()
                        .any(|v| v.tag_values.iter().any(|t| t == value))
                })
                .collect::<Vec<_>>()
                .join("`, `");
            let arms = arms.iter().map(|(values, variants)| {
                let mut tries = variants.iter().map(|v| read(v));
                let first = tries.next().expect("a value names a variant");
                let rest = tries.map(|t| quote!(.or_else(|_| #t)));
                quote!(#(#values)|* => #first #(#rest)*,)
            });
            let unknown = format!("unknown `{tag}` value `{{other}}`: expected `{values}`");
            let by_tag = quote! {
                match runtime::tag_of(&value, #tag)? {
                    #(#arms)*
                    other => Err(format!(#unknown)),
                }
            };
            // A variant that may omit the tag (the discriminator is a hint
            // where the schemas leave it optional) is found by its
            // structure when the tag is absent.
            if u.variants.iter().all(|v| requires(api, &v.shape, tag)) {
                by_tag
            } else {
                let structural = structural();
                quote! {
                    if value.get(#tag).is_none() {
                        #structural
                    } else {
                        #by_tag
                    }
                }
            }
        }
        None => structural(),
    };
    // A value is written as its variant's value (serde's `untagged`,
    // written out: the derive's expansion is several times the size).
    let writes = u.variants.iter().map(|v| {
        let variant = ident(&v.rust);
        quote!(Self::#variant(value) => serde::Serialize::serialize(value, serializer),)
    });
    quote! {
        #docs
        #[derive(Debug, Clone, PartialEq)]
        pub enum #name {
            #(#variants)*
        }

        #write
        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                // A format that is not self-describing could not tell the
                // variants apart on reading: there, the JSON text.
                if !serializer.is_human_readable() {
                    return runtime::json_text(self, serializer);
                }
                match self {
                    #(#writes)*
                }
            }
        }

        #read
        impl runtime::Decide for #name {
            fn decide(value: serde_json::Value, source: runtime::Source) -> Result<Self, String> {
                #decide_body
            }
        }

        #read
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                runtime::decide_json(deserializer)
            }
        }

        #validate
    }
}

/// Whether a shape is any text: every value written as text reads as it.
fn free_text(api: &Api, shape: &crate::ir::Shape) -> bool {
    match &shape.ty {
        Ty::String => true,
        Ty::Named(name) => matches!(
            crate::lower::resolve(&api.types, name).map(|t| &t.kind),
            Some(TypeKind::Alias(crate::ir::Shape { ty: Ty::String, .. }))
        ),
        _ => false,
    }
}

/// Whether a union variant of this shape always carries the property
/// `tag` (an object whose schema requires it).
fn requires(api: &Api, shape: &crate::ir::Shape, tag: &str) -> bool {
    let Ty::Named(name) = &shape.ty else {
        return false;
    };
    crate::lower::resolve(&api.types, name).is_some_and(|def| match &def.kind {
        TypeKind::Struct(s) => s
            .fields
            .iter()
            .any(|f| f.wire == tag && f.required && !f.flatten),
        _ => false,
    })
}

/// The test an object variant's value must pass before it is tried: its
/// required properties present and, when it refuses others, nothing else.
/// `None` for a variant that is not an object.
fn object_fit(api: &Api, shape: &crate::ir::Shape) -> Option<TokenStream> {
    let Ty::Named(name) = &shape.ty else {
        return None;
    };
    let TypeKind::Struct(s) = &crate::lower::resolve(&api.types, name)?.kind else {
        return None;
    };
    // Read-only properties are the server's to send: a request may lack them.
    let required: Vec<&str> = s
        .fields
        .iter()
        // A required property that admits null is present when null: its
        // reading checks it (the pre-check wants a value).
        .filter(|f| f.required && !f.read_only && !f.write_only && !f.flatten)
        .filter(|f| !f.shape.nullable)
        .map(|f| f.wire.as_str())
        .collect();
    if required.is_empty() && !s.deny_unknown {
        return Some(quote!(value.is_object()));
    }
    let known = if s.deny_unknown {
        let names = s.fields.iter().map(|f| f.wire.as_str());
        quote!(Some(&[#(#names),*]))
    } else {
        quote!(None)
    };
    Some(quote!(runtime::fits_object(&value, &[#(#required),*], #known)))
}

fn to_snake(name: &str) -> String {
    crate::names::sanitize(name, crate::names::Case::Snake)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Shape;

    #[test]
    fn read_only_fields_are_optional_even_when_required() {
        let f = Field {
            wire: "id".into(),
            pointer: "#/components/schemas/Pet/properties/id".into(),
            rust: "id".into(),
            shape: Shape::new(Ty::I64),
            required: true,
            doc: None,
            default: None,
            example: None,
            read_only: true,
            write_only: false,
            deprecated: false,
            boxed: false,
            flatten: false,
            shared: false,
        };
        assert!(is_optional(&f));
        assert_eq!(field_type(&f).to_string(), "Option < i64 >");
    }
}
