//! The wire name of an enum variant that has no `rename`.
//!
//! The generator and the derive both read this file (the generator through
//! a link to it), so the two cannot disagree on which variants need one.

/// `name` in snake case, as serde's `rename_all = "snake_case"` spells a
/// variant: an underscore before each capital but the first, and every
/// letter in lower case (`InStock` is `in_stock`).
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.char_indices() {
        if i > 0 && c.is_uppercase() {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}
