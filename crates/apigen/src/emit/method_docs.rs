//! The doc comment and deprecation note of an operation's method, the same
//! on the route trait and on the client.

use super::text;
use crate::ir::{Operation, Stability};

/// The doc comment's paragraphs and the deprecation note of an
/// operation's method, on the route trait and the client alike.
pub(crate) struct MethodDocs {
    paragraphs: Vec<Option<String>>,
    deprecated: Option<String>,
}

impl MethodDocs {
    pub fn new(op: &Operation) -> MethodDocs {
        let mut paragraphs = vec![
            op.summary.clone(),
            op.description.clone(),
            Some(format!(
                "`{} {}` (operationId `{}`)",
                op.method, op.path, op.id
            )),
        ];
        if op.stability != Stability::Stable {
            paragraphs.push(Some(format!(
                "**Stability: {}.** The operation may change without a new API version.",
                op.stability.as_str()
            )));
        }
        let deprecated = op.deprecated.then(|| {
            // `since` must be a semver version, so the date goes into the note.
            let mut note = match &op.deprecated_since {
                Some(since) => format!("deprecated since {since}"),
                None => "deprecated".to_string(),
            };
            if let Some(sunset) = &op.sunset {
                note.push_str(&format!(
                    "; sunset on {sunset}, after which it answers 410 Gone"
                ));
            }
            if let Some(successor) = &op.successor {
                note.push_str(&format!("; use `{successor}` instead"));
            }
            note
        });
        MethodDocs {
            paragraphs,
            deprecated,
        }
    }

    /// The doc attributes, as text for prettyplease to lay out.
    pub fn doc_attrs(&self) -> String {
        text::doc_attrs(&self.paragraphs)
    }

    /// `#[deprecated(note = ...)]`, or nothing, as text for prettyplease
    /// to lay out.
    pub fn deprecated_attr(&self) -> String {
        self.deprecated
            .as_ref()
            .map(|note| format!("#[deprecated(note = {})]", text::string_literal(note)))
            .unwrap_or_default()
    }

    /// The doc comment, then `cfg` (an attribute's line, or nothing),
    /// then `#[deprecated]`, as lines of text at `indent`.
    pub fn text(&self, cfg: &str, indent: &str) -> String {
        let mut out = text::doc_text(&self.paragraphs, indent);
        if !cfg.is_empty() {
            out.push_str(indent);
            out.push_str(cfg);
        }
        if let Some(note) = &self.deprecated {
            let note = text::string_literal(note);
            let line = format!("{indent}#[deprecated(note = {note})]\n");
            if line.len() <= text::WIDTH + 1 {
                out.push_str(&line);
            } else {
                out.push_str(&format!(
                    "{indent}#[deprecated(\n{indent}    note = {note}\n{indent})]\n"
                ));
            }
        }
        out
    }
}
