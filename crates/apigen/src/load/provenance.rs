//! Where what the stages moved stood, and what they noted and assumed:
//! every pointer the pipeline reports is mapped back into the document as
//! the user wrote it.

use crate::diag::{Diagnostic, Location, Pointer};
use std::collections::BTreeMap;

/// What the stages did beside rewriting the document.
#[derive(Debug, Default)]
pub struct Provenance {
    /// Keywords read but not enforced, each at its pointer.
    pub notes: Vec<Diagnostic>,
    /// What was assumed of a strictly invalid document that other tools
    /// read (a missing `description`, `version: 1.0`): notes in a lenient
    /// run, errors in a strict one.
    pub assumed: Vec<Diagnostic>,
    /// Where moved values stood: pointer prefix in the rewritten document ->
    /// pointer prefix in the document as written.
    pub moved: BTreeMap<String, String>,
}

impl Provenance {
    /// `pointer` (`#/...`) as it was in the document the user wrote.
    pub fn original(&self, pointer: &str) -> String {
        if self.moved.is_empty() {
            return pointer.to_string();
        }
        // The longest moved prefix that `pointer` starts with, segment-wise.
        let mut end = pointer.len();
        loop {
            let prefix = &pointer[..end];
            if let Some(original) = self.moved.get(prefix) {
                return format!("{original}{}", &pointer[end..]);
            }
            match prefix.rfind('/') {
                Some(i) if i > 1 => end = i,
                _ => return pointer.to_string(),
            }
        }
    }

    /// A diagnostic located in the document as written.
    pub fn locate(&self, mut d: Diagnostic) -> Diagnostic {
        if let Location::Pointer(p) = &d.location {
            d.location = Location::Pointer(self.original(p));
        }
        d
    }

    /// Records that what is now at `now` was written at `written` (itself
    /// perhaps moved by an earlier stage: the move is composed).
    pub(super) fn record(&mut self, now: &Pointer, written: &Pointer) {
        let written = self.original(&written.to_string());
        self.moved.insert(now.to_string(), written);
    }

    pub(super) fn note(&mut self, at: &Pointer, message: impl Into<String>) {
        self.notes.push(Diagnostic::at(at, message));
    }
}
