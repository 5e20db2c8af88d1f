//! Generated code written as text, the emitter's one way to write Rust.
//! Parsing and printing token streams (`syn` and `prettyplease`) was most
//! of generation's time, so every item that repeats per operation or per
//! type is written already formatted: fixed lines with `format!` and
//! templates ([`fill`]), expressions as [`Expr`], which lays itself out as
//! rustfmt would. The few items of an irregular shape are written as
//! unformatted text that prettyplease lays out ([`Pieces::printed`]);
//! [`Pieces`] keeps both in order.

/// The width lines are kept within where they can be broken, as rustfmt keeps them.
pub(crate) const WIDTH: usize = 100;

/// The width within which the items that were once printed by
/// prettyplease, now templates, keep their lines: its margin.
pub(crate) const ITEM_WIDTH: usize = 89;

/// A part of a file: items of an irregular shape laid out together by
/// prettyplease, and formatted text written as it is, in the order they
/// were added. Items are separated by a blank line.
#[derive(Default)]
pub(crate) struct Pieces {
    /// Items not yet laid out ([`Pieces::printed`]).
    printed: String,
    out: String,
    /// Whether the items are inside a block (`impl Client { ... }`), laid
    /// out as its items.
    in_block: bool,
}

impl Pieces {
    /// Pieces of a block's items: the lines between its braces.
    pub fn in_block() -> Pieces {
        Pieces {
            in_block: true,
            ..Pieces::default()
        }
    }

    /// Items written as text of an irregular shape (unformatted), laid out
    /// by prettyplease with those added next to them.
    pub fn printed(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.printed.push_str(text);
        self.printed.push('\n');
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
        if !self.printed.is_empty() {
            let items = std::mem::take(&mut self.printed);
            let rendered = if self.in_block {
                super::render::render_in_block(&items)
            } else {
                super::render::render(&items)
            };
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

/// Doc comment lines for `paragraphs` (the empty ones skipped, a blank
/// `///` between them), each indented by `indent`. A line with a control
/// character, which a reader would not see in a comment, is written as the
/// attribute.
pub(crate) fn doc_text(paragraphs: &[Option<String>], indent: &str) -> String {
    let text = super::doc_comments::joined_paragraphs(paragraphs);
    let lines = super::doc_comments::doc_lines(Some(&text));
    doc_lines_as(&lines, "///", indent, |c| c.is_control())
}

/// Doc comment lines (each with the space after its marker, as
/// `doc_lines` makes them) after `marker`, `///` for an item or `//!` for
/// the module, as prettyplease prints doc attributes: a line is written
/// as the attribute only when a comment cannot hold it (a carriage
/// return or a line break inside it).
pub(crate) fn doc_comment(lines: &[String], marker: &str, indent: &str) -> String {
    doc_lines_as(lines, marker, indent, |c| c == '\r' || c == '\n')
}

fn doc_lines_as(
    lines: &[String],
    marker: &str,
    indent: &str,
    attribute: fn(char) -> bool,
) -> String {
    let mut out = String::new();
    for line in lines {
        if line.contains(attribute) {
            let bang = if marker == "//!" { "!" } else { "" };
            out.push_str(&format!("{indent}#{bang}[doc = {line:?}]\n"));
        } else {
            out.push_str(&format!("{indent}{marker}{line}\n"));
        }
    }
    out
}

/// Doc attributes (`#[doc = " ..."]`) for `paragraphs`, for items laid
/// out by prettyplease, which prints them as comments.
pub(crate) fn doc_attrs(paragraphs: &[Option<String>]) -> String {
    let text = super::doc_comments::joined_paragraphs(paragraphs);
    super::doc_comments::doc_lines(Some(&text))
        .iter()
        .map(|line| format!("#[doc = {}]\n", string_literal(line)))
        .collect()
}

/// A `cfg` attribute on a line of its own; nothing for none.
pub(crate) fn cfg_line(cfg: &str) -> String {
    if cfg.is_empty() {
        String::new()
    } else {
        format!("{cfg}\n")
    }
}

/// An expression written as text and laid out as a person would: on
/// one line when it fits, else broken at its method chain, then between
/// its call's arguments or its struct's fields, one per line.
pub(crate) enum Expr {
    /// Text that is never broken: a path, a literal, a short call.
    Text(String),
    /// `callee(args)` followed by `after` (`?`); the delimiters may be
    /// angle brackets for a type's arguments.
    Call {
        callee: String,
        delims: (&'static str, &'static str),
        args: Vec<Expr>,
        after: &'static str,
    },
    /// An expression followed by method calls (`.await?`,
    /// `.unwrap_or(20)`), each on its own line when broken.
    Chain(Box<Expr>, Vec<Expr>),
    /// `if cond { then } else { otherwise }`.
    IfElse {
        cond: String,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    /// `path { field: value, ... }`.
    Struct {
        path: String,
        fields: Vec<(String, Expr)>,
    },
    /// Statements ending in a value: `{ ... }`, or the value alone
    /// without any.
    Block(Vec<Expr>, Box<Expr>),
    /// A statement: `before`, the expression, `after` (`let x = `, `;`).
    Stmt(String, Box<Expr>, &'static str),
    /// `head {`, statements, `}` and `tail`: an `if let`, a `let ... else`.
    Scope {
        head: String,
        body: Vec<Expr>,
        tail: &'static str,
    },
    /// `match scrutinee { pattern => value, ... }`, never on one line.
    Match {
        scrutinee: String,
        arms: Vec<(String, Expr)>,
    },
}

impl Expr {
    pub fn text(text: impl Into<String>) -> Expr {
        Expr::Text(text.into())
    }

    /// `callee(args...)after`.
    pub fn call(callee: impl Into<String>, args: Vec<Expr>, after: &'static str) -> Expr {
        Expr::Call {
            callee: callee.into(),
            delims: ("(", ")"),
            args,
            after,
        }
    }

    /// A generic type, `callee<args...>`, broken between its arguments
    /// like a call's.
    pub fn generic(callee: impl Into<String>, args: Vec<Expr>) -> Expr {
        Expr::Call {
            callee: callee.into(),
            delims: ("<", ">"),
            args,
            after: "",
        }
    }

    /// The expression followed by one more method call.
    pub fn then(self, link: impl Into<String>) -> Expr {
        self.then_expr(Expr::Text(link.into()))
    }

    /// The expression followed by one more method call, itself an
    /// expression (`.and_then(|()| ...)`).
    pub fn then_expr(self, link: Expr) -> Expr {
        match self {
            Expr::Chain(head, mut links) => {
                links.push(link);
                Expr::Chain(head, links)
            }
            other => Expr::Chain(Box::new(other), vec![link]),
        }
    }

    /// The expression on one line; `None` for one that is never written
    /// so (a `match`, a block of statements).
    pub fn flat(&self) -> Option<String> {
        let mut out = String::new();
        self.write_flat(&mut out).then_some(out)
    }

    fn write_flat(&self, out: &mut String) -> bool {
        match self {
            Expr::Text(text) => out.push_str(text),
            Expr::Call {
                callee,
                delims: (open, close),
                args,
                after,
            } => {
                out.push_str(callee);
                out.push_str(open);
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if !arg.write_flat(out) {
                        return false;
                    }
                }
                out.push_str(close);
                out.push_str(after);
            }
            Expr::Chain(head, links) => {
                if !head.write_flat(out) {
                    return false;
                }
                for link in links {
                    if !link.write_flat(out) {
                        return false;
                    }
                }
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                out.push_str("if ");
                out.push_str(cond);
                out.push_str(" { ");
                if !then.write_flat(out) {
                    return false;
                }
                out.push_str(" } else { ");
                if !otherwise.write_flat(out) {
                    return false;
                }
                out.push_str(" }");
            }
            // A struct with fields has one per line, as prettyplease
            // prints it.
            Expr::Struct { path, fields } => {
                if !fields.is_empty() {
                    return false;
                }
                out.push_str(path);
                out.push_str(" {}");
            }
            Expr::Block(statements, value) => {
                return statements.is_empty() && value.write_flat(out);
            }
            Expr::Stmt(before, expr, after) => {
                out.push_str(before);
                if !expr.write_flat(out) {
                    return false;
                }
                out.push_str(after);
            }
            Expr::Match { .. } | Expr::Scope { .. } => return false,
        }
        true
    }

    /// Writes `before`, the expression and `after` at `indent`, as lines
    /// ending in a newline, broken where the line would pass the width.
    pub fn write(&self, out: &mut String, indent: usize, before: &str, after: &str) {
        let pad = " ".repeat(indent);
        if let Some(flat) = self.flat() {
            if indent + before.len() + flat.len() + after.len() <= WIDTH {
                out.push_str(&format!("{pad}{before}{flat}{after}\n"));
                return;
            }
        }
        match self {
            Expr::Text(text) => out.push_str(&format!("{pad}{before}{text}{after}\n")),
            // A lone struct or block argument hugs the parentheses:
            // `Ok(Self {` ... `})`.
            Expr::Call {
                callee,
                delims: (open, close),
                args,
                after: own,
            } if matches!(args.as_slice(), [Expr::Struct { .. } | Expr::Block(..)]) => {
                args[0].write(
                    out,
                    indent,
                    &format!("{before}{callee}{open}"),
                    &format!("{close}{own}{after}"),
                );
            }
            Expr::Call {
                callee,
                delims: (open, close),
                args,
                after: own,
            } => {
                out.push_str(&format!("{pad}{before}{callee}{open}\n"));
                for arg in args {
                    arg.write(out, indent + 4, "", ",");
                }
                out.push_str(&format!("{pad}{close}{own}{after}\n"));
            }
            Expr::Chain(head, links) => {
                // The links under the head, indented; under its closing
                // line when the head itself is broken, as rustfmt does.
                let start = out.len();
                head.write(out, indent, before, "");
                let links_pad = if out[start..].matches('\n').count() > 1 {
                    pad.clone()
                } else {
                    format!("{pad}    ")
                };
                let last = links.len().saturating_sub(1);
                for (i, link) in links.iter().enumerate() {
                    let end = if i == last { after } else { "" };
                    link.write(out, links_pad.len(), "", end);
                }
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                out.push_str(&format!("{pad}{before}if {cond} {{\n"));
                then.write(out, indent + 4, "", "");
                out.push_str(&format!("{pad}}} else {{\n"));
                otherwise.write(out, indent + 4, "", "");
                out.push_str(&format!("{pad}}}{after}\n"));
            }
            Expr::Struct { path, fields } => {
                out.push_str(&format!("{pad}{before}{path} {{\n"));
                for (name, value) in fields {
                    match value {
                        Expr::Text(text) if text == name => {
                            out.push_str(&format!("{pad}    {name},\n"));
                        }
                        _ => value.write(out, indent + 4, &format!("{name}: "), ","),
                    }
                }
                out.push_str(&format!("{pad}}}{after}\n"));
            }
            Expr::Block(statements, value) => {
                if statements.is_empty() {
                    return value.write(out, indent, before, after);
                }
                out.push_str(&format!("{pad}{before}{{\n"));
                for statement in statements {
                    statement.write(out, indent + 4, "", "");
                }
                value.write(out, indent + 4, "", "");
                out.push_str(&format!("{pad}}}{after}\n"));
            }
            Expr::Stmt(own_before, expr, own_after) => {
                expr.write(
                    out,
                    indent,
                    &format!("{before}{own_before}"),
                    &format!("{own_after}{after}"),
                );
            }
            Expr::Scope { head, body, tail } => {
                out.push_str(&format!("{pad}{before}{head} {{\n"));
                for statement in body {
                    statement.write(out, indent + 4, "", "");
                }
                out.push_str(&format!("{pad}}}{tail}{after}\n"));
            }
            Expr::Match { scrutinee, arms } => {
                out.push_str(&format!("{pad}{before}match {scrutinee} {{\n"));
                for (pattern, value) in arms {
                    value.write_arm(out, indent + 4, pattern);
                }
                out.push_str(&format!("{pad}}}{after}\n"));
            }
        }
    }

    /// Writes the expression as a function's body at `indent`: a block's
    /// statements and value without its braces.
    pub fn write_body(&self, out: &mut String, indent: usize) {
        match self {
            Expr::Block(statements, value) => {
                for statement in statements {
                    statement.write(out, indent, "", "");
                }
                value.write(out, indent, "", "");
            }
            other => other.write(out, indent, "", ""),
        }
    }

    /// Writes `pattern => value` as a match arm at `indent`: on one line
    /// when it fits, else the value in a block.
    pub fn write_arm(&self, out: &mut String, indent: usize, pattern: &str) {
        let before = format!("{pattern} => ");
        if let Some(flat) = self.flat() {
            if indent + before.len() + flat.len() < WIDTH {
                out.push_str(&format!("{}{before}{flat},\n", " ".repeat(indent)));
                return;
            }
        }
        match self {
            Expr::Block(statements, _) if !statements.is_empty() => {
                self.write(out, indent, &before, "")
            }
            Expr::Match { .. } => self.write(out, indent, &before, ","),
            _ => {
                let pad = " ".repeat(indent);
                out.push_str(&format!("{pad}{before}{{\n"));
                self.write(out, indent + 4, "", "");
                out.push_str(&format!("{pad}}}\n"));
            }
        }
    }

    /// The expression written at no indentation, for items laid out by
    /// prettyplease ([`Pieces::printed`]).
    pub fn written(&self) -> String {
        let mut text = String::new();
        self.write(&mut text, 0, "", "");
        text
    }
}

/// `pub type name = ty;`, the type on a line of its own when the whole
/// does not fit on one, as rustfmt writes it.
pub(crate) fn type_alias(name: &str, ty: &str) -> String {
    let line = format!("pub type {name} = {ty};\n");
    if line.len() <= WIDTH + 1 {
        line
    } else {
        format!("pub type {name} =\n    {ty};\n")
    }
}

/// A string literal for `text`, escaped as Rust reads it.
pub(crate) fn string_literal(text: &str) -> String {
    proc_macro2::Literal::string(text).to_string()
}

/// A doc comment of one paragraph at `indent` ([`doc_text`]).
pub(crate) fn doc_line(line: &str, indent: &str) -> String {
    doc_text(&[Some(line.to_string())], indent)
}

/// A template's text (a file beside the emitter that uses it, read with
/// `include_str!`) with each `${key}` replaced by its value, in one pass:
/// code of a fixed shape reads as the code it writes, indentation and all.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let extra: usize = values.iter().map(|(_, v)| v.len()).sum();
    let mut out = String::with_capacity(template.len() + extra);
    let mut rest = template;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('}').expect("a template's `${` closes");
        let key = &after[..end];
        let value = values
            .iter()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("the template's `${{{key}}}` has no value"));
        out.push_str(value.1);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_is_filled_in_one_pass() {
        let filled = fill(
            "impl ${trait} for ${name} {}\n${name}",
            &[("name", "Pet"), ("trait", "Marker")],
        );
        assert_eq!(filled, "impl Marker for Pet {}\nPet");
        // A value is never read as a template itself.
        assert_eq!(fill("${a}", &[("a", "${b}")]), "${b}");
    }
    #[test]
    fn expressions_break_at_their_chain_then_between_arguments() {
        let read = |limit: &str| {
            Expr::call(
                "runtime::json_body",
                vec![
                    Expr::text("request"),
                    Expr::text("payload"),
                    Expr::text(limit),
                ],
                "",
            )
            .then(".await?")
            .then(".ok_or_else(runtime::missing_body)?")
        };
        let mut out = String::new();
        read("1024").write(&mut out, 12, "body: ", ",");
        assert_eq!(
            out,
            "            body: runtime::json_body(request, payload, 1024)\n                \
             .await?\n                .ok_or_else(runtime::missing_body)?,\n"
        );
        let mut out = String::new();
        read("1024").write(&mut out, 0, "", "");
        assert_eq!(out.lines().count(), 1, "{out}");
        // A head too long for its line is broken too; the links then
        // follow its closing line.
        let mut out = String::new();
        read(&"a".repeat(90)).write(&mut out, 4, "", ";");
        let expected = format!(
            "    runtime::json_body(\n        request,\n        payload,\n        {},\n    )\n    \
             .await?\n    .ok_or_else(runtime::missing_body)?;\n",
            "a".repeat(90)
        );
        assert_eq!(out, expected);
        let choice = Expr::IfElse {
            cond: "query.null(\"n\")".into(),
            then: Box::new(Expr::text("None")),
            otherwise: Box::new(Expr::text("x".repeat(100))),
        };
        let mut out = String::new();
        choice.write(&mut out, 0, "n: ", ",");
        assert_eq!(
            out,
            format!(
                "n: if query.null(\"n\") {{\n    None\n}} else {{\n    {}\n}},\n",
                "x".repeat(100)
            )
        );
    }

    #[test]
    fn struct_literals_blocks_and_closures_take_lines_as_rustfmt_does() {
        let fields = |value: &str| Expr::Struct {
            path: "Self".into(),
            fields: vec![
                ("body".into(), Expr::text("error.body")),
                ("retry_after".into(), Expr::text(value)),
            ],
        };
        // A struct literal has a field per line; a lone one hugs the call,
        // and a field named as its value is written once.
        let mut out = String::new();
        Expr::call("Ok", vec![fields("retry_after")], "").write(&mut out, 4, "", "");
        assert_eq!(
            out,
            "    Ok(Self {\n        body: error.body,\n        retry_after,\n    })\n"
        );
        // A match arm on one line when it fits, else in a block; a block
        // with statements keeps its braces.
        let arms = Expr::Match {
            scrutinee: "answer.status".into(),
            arms: vec![
                ("200".into(), Expr::text("Self::Ok(answer.json()?)")),
                ("201".into(), fields("x")),
                (
                    "_".into(),
                    Expr::Block(
                        vec![Expr::text("let value = 1;")],
                        Box::new(Expr::text("value")),
                    ),
                ),
            ],
        };
        let mut out = String::new();
        arms.write(&mut out, 0, "let value = ", ";");
        assert_eq!(
            out,
            "let value = match answer.status {\n    200 => Self::Ok(answer.json()?),\n    \
             201 => {\n        Self {\n            body: error.body,\n            retry_after: x,\n        }\n    }\n    \
             _ => {\n        let value = 1;\n        value\n    }\n};\n"
        );
    }
}
