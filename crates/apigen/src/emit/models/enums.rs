//! A string enum, with an `Unknown` variant for values the spec does not
//! list, and its `runtime::StringEnum` impl.

use super::type_docs_text;
use crate::emit::gates::ImplCfg;
use crate::emit::text::{self};
use crate::ir::TypeDef;

/// The impls of every string enum: its values, `runtime::StringEnum`,
/// the standard traits and serde, through the runtime.
const TEMPLATE: &str = include_str!("templates/enum.rs.in");

/// A string enum: a variant per value the spec lists and one for the
/// values it does not, and [`TEMPLATE`]'s impls.
pub(super) fn enumeration(
    def: &TypeDef,
    variants: &[crate::ir::EnumVariant],
    cfg: &str,
    serde: &[ImplCfg; 2],
) -> String {
    let [write, read] = serde.each_ref().map(ImplCfg::line);
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
    let name_literal = format!("{name:?}");
    out.push('\n');
    out.push_str(&text::fill(
        TEMPLATE,
        &[
            ("cfg", &cfg),
            ("name", name),
            ("name_literal", &name_literal),
            ("all", &all),
            ("wires", &wires),
            ("unknown", &unknown),
            ("arms", &arms),
            ("write", write),
            ("read", read),
        ],
    ));
    out
}
