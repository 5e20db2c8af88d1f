//! Generated code written as text. Most items are built as token streams
//! and printed by prettyplease, which parses them first: the costliest step
//! of generation. Items of a fixed shape (a struct with its record and
//! serde impls, a string enum with its impls) are written directly
//! instead, already formatted, with the helpers here; [`Pieces`] keeps
//! both kinds in order.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// The width lists are wrapped at, as prettyplease wraps them.
const WIDTH: usize = 100;

/// A part of a file: token streams rendered together, and text written
/// as it is, in the order they were added. Items are separated by a
/// blank line.
#[derive(Default)]
pub(crate) struct Pieces {
    tokens: TokenStream,
    out: String,
}

impl Pieces {
    /// Items built as tokens.
    pub fn tokens(&mut self, tokens: TokenStream) {
        self.tokens.extend(tokens);
    }

    /// Items written as text, each line ending in a newline.
    pub fn text(&mut self, text: &str) {
        self.flush();
        self.push(text);
    }

    /// The rendered part.
    pub fn finish(mut self) -> String {
        self.flush();
        self.out
    }

    fn flush(&mut self) {
        if !self.tokens.is_empty() {
            let rendered = super::render(std::mem::take(&mut self.tokens));
            self.push(&rendered);
        }
    }

    fn push(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        self.out.push_str(text);
    }
}

/// Doc comment lines for `paragraphs` (the empty ones skipped), each
/// indented by `indent`: what `doc_paragraphs` makes as attributes and
/// prettyplease prints. A line a `///` comment cannot hold as it is (a
/// carriage return inside it) is written as the attribute.
pub(crate) fn doc_text(paragraphs: &[Option<String>], indent: &str) -> String {
    let mut out = String::new();
    for line in super::doc_lines(Some(&super::joined_paragraphs(paragraphs))) {
        if line.contains(|c: char| c.is_control()) {
            out.push_str(&format!("{indent}#[doc = {line:?}]\n"));
        } else {
            out.push_str(&format!("{indent}///{line}\n"));
        }
    }
    out
}

/// A `cfg` attribute on a line of its own; nothing for none.
pub(crate) fn cfg_line(cfg: &TokenStream) -> String {
    match compact(cfg) {
        line if line.is_empty() => line,
        line => line + "\n",
    }
}

/// A short token stream (a type, a path, a `cfg` attribute) as a person
/// writes it: `Option<Vec<models::Pet>>`, `#[cfg(feature = "pets")]`.
pub(crate) fn compact(tokens: &TokenStream) -> String {
    let mut out = String::new();
    write_compact(tokens.clone(), &mut out);
    out
}

fn write_compact(tokens: TokenStream, out: &mut String) {
    // Whether the next word needs a space before it.
    let mut space = false;
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                if space {
                    out.push(' ');
                }
                out.push_str(&ident.to_string());
                space = true;
            }
            TokenTree::Literal(literal) => {
                if space {
                    out.push(' ');
                }
                out.push_str(&literal.to_string());
                space = true;
            }
            TokenTree::Punct(punct) => {
                let c = punct.as_char();
                let joint = punct.spacing() == Spacing::Joint;
                match c {
                    ',' => {
                        out.push(',');
                        space = true;
                    }
                    '=' if !joint && !out.ends_with(['=', '!', '<', '>']) => {
                        out.push_str(" = ");
                        space = false;
                    }
                    _ => {
                        // A lone operator between words keeps its spaces
                        // (`a + b`); paths, generics and references do not.
                        let spaced = !joint && space && matches!(c, '+' | '|');
                        if spaced {
                            out.push(' ');
                        }
                        out.push(c);
                        space = spaced;
                    }
                }
            }
            TokenTree::Group(group) => {
                // `&'a [T]`: a slice after a lifetime; else `f(x)`, `a[i]`.
                if space && group.delimiter() == Delimiter::Bracket && after_lifetime(out) {
                    out.push(' ');
                }
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_compact(group.stream(), out);
                out.push_str(close);
                space = true;
            }
        }
    }
}

/// Whether the text ends in a lifetime (`'static`).
fn after_lifetime(out: &str) -> bool {
    let word = out.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    word.len() < out.len() && word.ends_with('\'')
}

/// `head` followed by `items` in `open`/`close`, separated by commas: on
/// one line when it fits at `indent`, else one item per line. `trailing`
/// keeps a comma after a lone item on one line (a one-element tuple).
pub(crate) fn list(
    indent: usize,
    head: &str,
    (open, close): (&str, &str),
    items: &[String],
    tail: &str,
    trailing: bool,
) -> String {
    let pad = " ".repeat(indent);
    let mut one = format!("{pad}{head}{open}{}", items.join(", "));
    if trailing && items.len() == 1 {
        one.push(',');
    }
    one.push_str(close);
    one.push_str(tail);
    if one.len() <= WIDTH && !one.contains('\n') {
        one.push('\n');
        return one;
    }
    let mut out = format!("{pad}{head}{open}\n");
    for item in items {
        out.push_str(&format!("{pad}    {item},\n"));
    }
    out.push_str(&format!("{pad}{close}{tail}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// Every token, spacing aside.
    fn leaves(tokens: TokenStream) -> Vec<String> {
        tokens
            .into_iter()
            .flat_map(|tree| match tree {
                TokenTree::Group(g) => {
                    let mut inner = vec![format!("{:?}", g.delimiter())];
                    inner.extend(leaves(g.stream()));
                    inner
                }
                TokenTree::Punct(p) => vec![p.as_char().to_string()],
                other => vec![other.to_string()],
            })
            .collect()
    }

    #[test]
    fn types_and_attributes_read_as_written() {
        let cases = [
            (
                quote!(Option<Option<models::Pet>>),
                "Option<Option<models::Pet>>",
            ),
            (
                quote!(std::collections::BTreeMap<String, serde_json::Value>),
                "std::collections::BTreeMap<String, serde_json::Value>",
            ),
            (quote!(&'static [&'static str]), "&'static [&'static str]"),
            (
                quote!(#[cfg(any(feature = "a", feature = "b-c"))]),
                "#[cfg(any(feature = \"a\", feature = \"b-c\"))]",
            ),
            (quote!((Option<i64>, Vec<u8>)), "(Option<i64>, Vec<u8>)"),
        ];
        for (tokens, text) in cases {
            assert_eq!(compact(&tokens), text);
            // And it is still the same tokens.
            let reparsed: TokenStream = text.parse().unwrap();
            assert_eq!(leaves(reparsed), leaves(tokens));
        }
    }

    #[test]
    fn lists_wrap_only_when_too_long() {
        let short = list(
            4,
            "type Slots = ",
            ("(", ")"),
            &["Option<i64>".into()],
            ";",
            true,
        );
        assert_eq!(short, "    type Slots = (Option<i64>,);\n");
        let items: Vec<String> = (0..12)
            .map(|i| format!("Option<models::Item{i}>"))
            .collect();
        let long = list(4, "type Slots = ", ("(", ")"), &items, ";", true);
        assert!(long.starts_with("    type Slots = (\n        Option<models::Item0>,\n"));
        assert!(long.ends_with("        Option<models::Item11>,\n    );\n"));
    }
}
