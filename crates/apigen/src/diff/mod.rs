//! The evolution gate: what changed between two versions of an API, and
//! whether it breaks the callers each operation made promises to.
//!
//! Both documents are read by the generator's own loader and lowered into
//! its IR, so references are resolved, `allOf` is merged, and renaming a
//! component or moving a schema into `components` changes nothing. Each
//! change becomes a [`Finding`] with a rule id, and its level comes from the
//! documents themselves:
//!
//! - a change that breaks callers is an error on a stable operation, a
//!   warning on a beta one, information on an experimental, alpha or draft
//!   one (the stability of the base document: what callers relied on);
//! - lowering an operation's stability is an error;
//! - removing an operation that was not deprecated is breaking; removing a
//!   deprecated one before its sunset date is an error, on or after it (or
//!   with no date) information;
//! - moving a sunset date earlier, or deprecating a stable operation without
//!   one, is an error;
//! - a new security requirement is at least a warning.
//!
//! What is only added (an operation, an optional parameter, a response
//! property) is information; descriptions and the order of keys are not
//! compared at all.

mod compare;
mod lifecycle;
mod matching;
pub mod rules;
mod schema;

use crate::ir::{Api, Stability};
use crate::source::Positions;
use crate::Diagnostic;
use std::fmt::Write as _;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Information: not breaking.
    Info,
    /// Breaking, for an operation that promises little (beta), or possibly
    /// breaking.
    Warning,
    /// Breaking a promise: fails the gate.
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// The level of a breaking change to an operation of this stability.
    pub fn of_breaking(stability: Stability) -> Level {
        match stability {
            Stability::Stable => Level::Error,
            Stability::Beta => Level::Warning,
            Stability::Alpha | Stability::Experimental | Stability::Draft => Level::Info,
        }
    }
}

/// One change between the two documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What kind of change (`request-parameter-became-required`).
    pub rule: String,
    pub level: Level,
    /// `METHOD /path`, or empty for a change outside any operation.
    pub operation: String,
    /// Where it stands in the base document, if it is there.
    pub base: Option<String>,
    /// Where it stands in the revision, if it is there.
    pub revision: Option<String>,
    /// One line for a person.
    pub message: String,
}

/// A document as the gate reads it: its API lowered by the generator (a
/// lenient run: what it cannot express is listed, not fatal), and its text,
/// for positions.
#[derive(Debug)]
pub struct Document {
    /// As messages name it.
    pub file: String,
    pub api: Api,
    pub skipped: Vec<Diagnostic>,
    pub text: String,
}

impl Document {
    /// A self-contained document from its text; `file` names it in messages.
    pub fn parse(file: &str, text: &str) -> Result<Document, crate::Diagnostics> {
        let doc = crate::load::parse(text);
        Document::lowered(file.to_string(), doc, text.to_string())
    }

    /// Reads a document from disk (YAML or JSON; references to other files
    /// followed) and lowers it leniently.
    pub fn read(path: &std::path::Path) -> Result<Document, crate::Diagnostics> {
        let file = path.display().to_string();
        let text = match crate::bundle::read(path) {
            Ok(text) => text,
            Err(errors) => return Err(crate::Diagnostics { file, errors }),
        };
        let doc = crate::bundle::bundle_text(path, &text).and_then(crate::load::from_value);
        Document::lowered(file, doc, text)
    }

    /// The document `doc` (or why it could not be read), lowered leniently.
    fn lowered(
        file: String,
        doc: Result<crate::load::Loaded, Vec<Diagnostic>>,
        text: String,
    ) -> Result<Document, crate::Diagnostics> {
        let lowered = doc.and_then(|doc| {
            crate::lower::lower(
                &doc,
                crate::lower::Options {
                    lenient: true,
                    check_formats: false,
                    share_structs: false,
                },
            )
        });
        match lowered {
            Ok(crate::lower::Lowered { api, skipped, .. }) => Ok(Document {
                file,
                api,
                skipped,
                text,
            }),
            Err(errors) => Err(crate::Diagnostics { file, errors }),
        }
    }
}

/// How a report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// For a person, grouped by operation.
    #[default]
    Text,
    /// For tools: `{"findings": [...]}`.
    Json,
}

/// What the gate prints, and the exit code it ends with: 0 when nothing is
/// at error level, 1 when something is, 2 when a document cannot be read
/// (then the output is the generator's diagnostics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub output: String,
    pub code: u8,
}

impl Outcome {
    /// Prints the output where a command line would: the report on
    /// stdout, the diagnostics of an unreadable document on stderr.
    pub fn print(&self) {
        if self.code == 2 {
            eprintln!("{}", self.output);
        } else {
            print!("{}", self.output);
        }
    }
}

/// Compares the documents at `base` and `revision` and renders the report.
/// `today` (`YYYY-MM-DD`) defaults to the system clock's date.
pub fn gate(
    base: &std::path::Path,
    revision: &std::path::Path,
    format: Format,
    today: Option<&str>,
) -> Outcome {
    let read = |path| Document::read(path).map_err(|d| d.to_string());
    // Each document is read on a core of its own.
    let (base, revision) = std::thread::scope(|scope| {
        let base = scope.spawn(|| read(base));
        let revision = read(revision);
        let base = base
            .join()
            .unwrap_or_else(|_| Err("reading the base document failed".into()));
        (base, revision)
    });
    let (base, revision) = match (base, revision) {
        (Ok(b), Ok(r)) => (b, r),
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => return Outcome { output: e, code: 2 },
        (Err(a), Err(b)) => {
            return Outcome {
                output: format!("{a}\n\n{b}"),
                code: 2,
            }
        }
    };
    let today = today.map_or_else(self::today, str::to_string);
    let report = diff(&base, &revision, &today);
    let output = match format {
        Format::Text => report.text(&base, &revision),
        Format::Json => report.json(&base, &revision),
    };
    Outcome {
        output,
        code: u8::from(report.has_errors()),
    }
}

/// Every finding, in the order of the base document's operations (then the
/// revision's new ones).
#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
}

/// Compares two documents. `today` (`YYYY-MM-DD`) decides whether a sunset
/// has passed.
pub fn diff(base: &Document, revision: &Document, today: &str) -> Report {
    let mut findings = matching::operations(&base.api, &revision.api, today);
    findings.extend(unreadable(base, revision));
    Report { findings }
}

/// What either document holds that the gate could not read: a lifecycle
/// annotation it cannot read is an error in the revision (the policy would
/// be guessed) and a warning in the base; any other construct left out is a
/// warning, since changes inside it go unseen.
fn unreadable(base: &Document, revision: &Document) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (doc, in_revision) in [(base, false), (revision, true)] {
        for skipped in &doc.skipped {
            let crate::Location::Pointer(pointer) = &skipped.location else {
                continue;
            };
            let annotation = skipped.message.starts_with("a lifecycle annotation");
            let (rule, level) = match (annotation, in_revision) {
                (true, true) => (rules::Rule::LifecycleAnnotationUnreadable, Level::Error),
                (true, false) => (rules::Rule::LifecycleAnnotationUnreadable, Level::Warning),
                (false, _) => (rules::Rule::ConstructNotCompared, Level::Warning),
            };
            let (base_at, revision_at) = if in_revision {
                (None, Some(pointer.clone()))
            } else {
                (Some(pointer.clone()), None)
            };
            findings.push(Finding {
                rule: rule.id(),
                level,
                operation: String::new(),
                base: base_at,
                revision: revision_at,
                message: skipped.message.clone(),
            });
        }
    }
    findings
}

impl Report {
    /// Whether any finding fails the gate.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.level == Level::Error)
    }

    fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|f| f.level == level).count()
    }

    /// For a person: findings grouped by operation, each with where it
    /// stands in both documents, and a summary line.
    pub fn text(&self, base: &Document, revision: &Document) -> String {
        let (base_at, revision_at) = positions(self, base, revision);
        let mut out = String::new();
        let mut operations: Vec<&str> = Vec::new();
        for f in &self.findings {
            if !operations.contains(&f.operation.as_str()) {
                operations.push(&f.operation);
            }
        }
        for operation in operations {
            let heading = if operation.is_empty() {
                "the documents"
            } else {
                operation
            };
            let _ = writeln!(out, "{heading}");
            for f in self.findings.iter().filter(|f| f.operation == operation) {
                let _ = writeln!(out, "  {}[{}]: {}", f.level.as_str(), f.rule, f.message);
                let place = |doc: &Document, at: &Option<String>, positions: &Positions| match at {
                    Some(pointer) => match positions.get(pointer) {
                        Some(p) => format!("{}:{}:{} {pointer}", doc.file, p.line, p.column),
                        None => format!("{} {pointer}", doc.file),
                    },
                    None => format!("{} (absent)", doc.file),
                };
                let _ = writeln!(out, "    --> base:     {}", place(base, &f.base, &base_at));
                let _ = writeln!(
                    out,
                    "    --> revision: {}",
                    place(revision, &f.revision, &revision_at)
                );
            }
            out.push('\n');
        }
        let (errors, warnings, infos) = (
            self.count(Level::Error),
            self.count(Level::Warning),
            self.count(Level::Info),
        );
        let verdict = if errors > 0 {
            "the revision breaks promises the base made"
        } else {
            "nothing the base promised is broken"
        };
        let _ = writeln!(
            out,
            "{errors} error{}, {warnings} warning{}, {infos} info: {verdict}",
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" },
        );
        out
    }

    /// `{"findings": [{"rule", "level", "operation", "base", "revision",
    /// "message"}, ...]}`, where `base` and `revision` are `{"pointer",
    /// "line", "column"}` (line and column when the text holds the pointer)
    /// or `null` when the finding has no place there.
    pub fn json<'a>(&'a self, base: &Document, revision: &Document) -> String {
        let (base_at, revision_at) = positions(self, base, revision);
        #[derive(serde::Serialize)]
        struct Place<'a> {
            pointer: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            line: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            column: Option<usize>,
        }
        #[derive(serde::Serialize)]
        struct Json<'a> {
            rule: &'a str,
            level: &'a str,
            operation: &'a str,
            base: Option<Place<'a>>,
            revision: Option<Place<'a>>,
            message: &'a str,
        }
        #[derive(serde::Serialize)]
        struct Findings<'a> {
            findings: Vec<Json<'a>>,
        }
        let place = |at: &'a Option<String>, positions: &Positions| {
            at.as_deref().map(|pointer| {
                let p = positions.get(pointer);
                Place {
                    pointer,
                    line: p.map(|p| p.line),
                    column: p.map(|p| p.column),
                }
            })
        };
        let findings = self
            .findings
            .iter()
            .map(|f| Json {
                rule: &f.rule,
                level: f.level.as_str(),
                operation: &f.operation,
                base: place(&f.base, &base_at),
                revision: place(&f.revision, &revision_at),
                message: &f.message,
            })
            .collect();
        serde_json::to_string_pretty(&Findings { findings }).unwrap_or_default() + "\n"
    }
}

/// The positions of every pointer the report names, in each document.
fn positions(report: &Report, base: &Document, revision: &Document) -> (Positions, Positions) {
    let pointers = |pick: fn(&Finding) -> &Option<String>| -> Vec<&str> {
        report
            .findings
            .iter()
            .filter_map(|f| pick(f).as_deref())
            .collect()
    };
    (
        Positions::find(&base.text, pointers(|f| &f.base)),
        Positions::find(&revision.text, pointers(|f| &f.revision)),
    )
}

/// Today's date in UTC, `YYYY-MM-DD`, from the system clock.
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    civil_date(i64::try_from(days).unwrap_or(0))
}

/// The calendar date `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(20_415), "2025-11-23");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(-1), "1969-12-31");
    }

    #[test]
    fn levels_follow_stability() {
        assert_eq!(Level::of_breaking(Stability::Stable), Level::Error);
        assert_eq!(Level::of_breaking(Stability::Beta), Level::Warning);
        assert_eq!(Level::of_breaking(Stability::Experimental), Level::Info);
        assert_eq!(Level::of_breaking(Stability::Draft), Level::Info);
    }
}
