//! A string enum, with an `Unknown` variant for values the spec does not
//! list, deriving `runtime::StringEnum`.

use super::case::snake_case;
use super::structs::{attribute_line, derive_line, sided};
use super::type_docs_text;
use crate::emit::text;
use crate::ir::TypeDef;

/// A string enum: a variant per value the spec lists, named on the wire
/// by a `rename` where its name in snake case is not the value, and one
/// for the values it does not list; its impls are derived
/// (`apigen-macros`).
pub(super) fn enumeration(
    def: &TypeDef,
    variants: &[crate::ir::EnumVariant],
    cfg: &str,
    sides: &[Option<String>; 2],
) -> String {
    let name = &def.name;
    let docs = type_docs_text(def, cfg);
    // The variant that keeps a value the spec does not list: `Unknown`,
    // unless a listed value took that name.
    let taken = |candidate: &str| variants.iter().any(|v| v.rust == candidate);
    let unknown = ["Unknown", "Unlisted", "OtherValue"]
        .into_iter()
        .map(str::to_string)
        .chain((2..).map(|n| format!("Unknown{n}")))
        .find(|candidate| !taken(candidate))
        .expect("a free name");
    let derives = [
        "Debug",
        "Clone",
        "PartialEq",
        "Eq",
        "runtime::StringEnum",
        "runtime::Serialize",
        "runtime::Deserialize",
    ];
    let mut out = format!(
        "{docs}{}{}pub enum {name} {{\n",
        derive_line(&derives),
        attribute_line("wire", &sided(sides), "")
    );
    for v in variants {
        if snake_case(&v.rust) != v.wire {
            let wire = text::string_literal(&v.wire);
            out.push_str(&format!("    #[wire(rename = {wire})]\n"));
        }
        out.push_str(&format!("    {},\n", v.rust));
    }
    out.push_str(&format!(
        "    /// A value the spec does not list, as it was read: a newer server's,\n    \
         /// which a client keeps. A server refuses one in a request and cannot\n    \
         /// send one.\n    #[wire(unknown)]\n    {unknown}(runtime::Unknown),\n}}\n"
    ));
    out
}
