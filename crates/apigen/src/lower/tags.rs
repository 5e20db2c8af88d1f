//! The document's tags as the reference page's navigation: each tag's
//! label (3.2's `summary`), parent (3.2's `parent`), the parents made a
//! forest, and kind (3.2's `kind`).

use super::Lowerer;
use crate::diag::Pointer;
use crate::ir::NavTag;
use crate::load::{TAG_KIND, TAG_PARENT, TAG_SUMMARY};

impl Lowerer<'_> {
    /// Every declared tag, with its summary and parent. A parent that names
    /// no declared tag, or that leads back to the tag, is noted and not
    /// kept: the tag stands at the top.
    pub(super) fn nav_tags(&mut self) -> Vec<NavTag> {
        let text = |tag: &openapiv3::Tag, key: &str| {
            tag.extensions
                .get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        };
        let mut tags: Vec<NavTag> = self
            .doc
            .tags
            .iter()
            .map(|t| NavTag {
                name: t.name.clone(),
                summary: text(t, TAG_SUMMARY),
                parent: text(t, TAG_PARENT),
                kind: text(t, TAG_KIND),
            })
            .collect();
        for i in 0..tags.len() {
            let Some(parent) = tags[i].parent.clone() else {
                continue;
            };
            let at = Pointer::root().join("tags").join(i).join(TAG_PARENT);
            let why = if !tags.iter().any(|t| t.name == parent) {
                format!("`parent` names `{parent}`, which is not a declared tag")
            } else if leads_back(&tags, i) {
                format!("`parent` `{parent}` leads back to this tag")
            } else {
                continue;
            };
            self.note(&at, format!("{why}: the tag stands at the top"));
            tags[i].parent = None;
        }
        tags
    }
}

/// Whether following parents from `tags[start]` comes back to it.
fn leads_back(tags: &[NavTag], start: usize) -> bool {
    let mut here = start;
    for _ in 0..tags.len() {
        let Some(parent) = &tags[here].parent else {
            return false;
        };
        match tags.iter().position(|t| &t.name == parent) {
            Some(next) if next == start => return true,
            Some(next) => here = next,
            None => return false,
        }
    }
    false
}
