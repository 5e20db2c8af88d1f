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
//!
//! Webhooks and callbacks are compared as their receivers read them
//! (`hooks`): the payload as a response, the receiver's answer as a
//! request.

mod compare;
mod ctx;
mod hooks;
mod lifecycle;
mod matching;
pub mod rules;
mod same;
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
    /// What kind of change (its id: `request-parameter-became-required`).
    pub rule: rules::Rule,
    pub level: Level,
    /// `METHOD /path`, or empty for a change outside any operation.
    pub operation: String,
    /// The operation's stability (the base's, or the revision's for one
    /// that is new), when the finding is about an operation.
    pub stability: Option<Stability>,
    /// The operation's sunset date (the revision's, else the base's), when
    /// it has one.
    pub sunset: Option<String>,
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
        let doc = crate::bundle::bundle_text(path, &text)
            .and_then(|(value, _)| crate::load::from_value(value));
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

/// How a report is printed. The exit status is the same whatever the
/// format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// For a person, grouped by operation.
    #[default]
    Text,
    /// For tools: a versioned document ([`Report::json`]).
    Json,
    /// Release notes: what breaks, what is deprecated, removed, changed
    /// and added, each change once, in Markdown ([`Report::markdown`]).
    Markdown,
    /// GitHub Actions workflow commands (`::error file=...,line=...::...`),
    /// so that a pull request shows each finding at its line
    /// ([`Report::github`]).
    Github,
}

impl Format {
    /// The format a `--format` value names.
    pub fn parse(name: &str) -> Option<Format> {
        Some(match name {
            "text" => Format::Text,
            "json" => Format::Json,
            "markdown" => Format::Markdown,
            "github" => Format::Github,
            _ => return None,
        })
    }

    /// Every format's name, for usage text.
    pub const NAMES: &'static str = "text|json|markdown|github";
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
        Format::Json => report.json(&base, &revision, &today),
        Format::Markdown => report.markdown(&base, &revision),
        Format::Github => report.github(&base, &revision),
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
    findings.extend(hooks::webhooks(&base.api, &revision.api, today));
    findings.extend(unreadable(base, revision));
    Report { findings }
}

/// What either document holds that the gate could not read: a lifecycle
/// annotation it cannot read is an error in the revision (the policy would
/// be guessed) and a warning in the base, reported on the operation that
/// carries it; any other construct left out is a warning, since changes
/// inside it go unseen.
fn unreadable(base: &Document, revision: &Document) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (doc, in_revision) in [(base, false), (revision, true)] {
        let place = |pointer: &str| {
            let pointer = Some(pointer.to_string());
            if in_revision {
                (None, pointer)
            } else {
                (pointer, None)
            }
        };
        let mut lifecycle = std::collections::HashSet::new();
        let hooks = doc.api.webhooks.iter().map(|w| &w.operation);
        for op in doc.api.operations.iter().chain(hooks) {
            for problem in &op.lifecycle_problems {
                let crate::Location::Pointer(pointer) = &problem.diagnostic.location else {
                    continue;
                };
                lifecycle.insert(pointer.as_str());
                let (base_at, revision_at) = place(pointer);
                findings.push(Finding {
                    rule: rules::Rule::LifecycleAnnotationUnreadable,
                    level: if in_revision {
                        Level::Error
                    } else {
                        Level::Warning
                    },
                    operation: format!("{} {}", op.method, op.path),
                    stability: Some(op.stability),
                    sunset: op.sunset.clone(),
                    base: base_at,
                    revision: revision_at,
                    message: problem.diagnostic.message.clone(),
                });
            }
        }
        for skipped in &doc.skipped {
            let crate::Location::Pointer(pointer) = &skipped.location else {
                continue;
            };
            if lifecycle.contains(pointer.as_str()) {
                continue;
            }
            let (base_at, revision_at) = place(pointer);
            findings.push(Finding {
                rule: rules::Rule::ConstructNotCompared,
                // Possibly breaking, whatever it held: a warning.
                level: rules::Rule::ConstructNotCompared
                    .severity()
                    .level(Level::Error),
                operation: String::new(),
                stability: None,
                sunset: None,
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
                let _ = writeln!(
                    out,
                    "  {}[{}]: {}",
                    f.level.as_str(),
                    f.rule.id(),
                    f.message
                );
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

    /// The machine-readable report, version 1 (the shape is stable; a
    /// change to it is a new version):
    ///
    /// ```json
    /// {
    ///   "version": 1,
    ///   "date": "2026-11-27",
    ///   "base": "spec/released/v1.yaml",
    ///   "revision": "spec/openapi.yaml",
    ///   "summary": {"errors": 0, "warnings": 1, "infos": 2},
    ///   "findings": [{
    ///     "rule": "response-property-added",
    ///     "level": "info",
    ///     "message": "property `made` of the 200 response body is new",
    ///     "operation": "GET /things/{id}",
    ///     "stability": "stable",
    ///     "sunset": null,
    ///     "base": {"file": "...", "pointer": "#/...", "line": 21, "column": 9},
    ///     "revision": {"file": "...", "pointer": "#/...", "line": 46, "column": 9}
    ///   }]
    /// }
    /// ```
    ///
    /// `operation`, `stability` and `sunset` are null for a finding about
    /// no operation; `base` or `revision` is null where the finding has no
    /// place in that document, and `line` and `column` are null where the
    /// text does not hold the pointer. The summary counts what the text
    /// report counts.
    pub fn json(&self, base: &Document, revision: &Document, today: &str) -> String {
        use serde_json::{json, Value};
        let (base_at, revision_at) = positions(self, base, revision);
        let place = |doc: &Document, at: &Option<String>, positions: &Positions| -> Value {
            match at {
                None => Value::Null,
                Some(pointer) => {
                    let p = positions.get(pointer);
                    json!({
                        "file": doc.file,
                        "pointer": pointer,
                        "line": p.map(|p| p.line),
                        "column": p.map(|p| p.column),
                    })
                }
            }
        };
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                json!({
                    "rule": f.rule.id(),
                    "level": f.level.as_str(),
                    "message": f.message,
                    "operation": (!f.operation.is_empty()).then_some(&f.operation),
                    "stability": f.stability.map(Stability::as_str),
                    "sunset": f.sunset,
                    "base": place(base, &f.base, &base_at),
                    "revision": place(revision, &f.revision, &revision_at),
                })
            })
            .collect();
        let report = json!({
            "version": 1,
            "date": today,
            "base": base.file,
            "revision": revision.file,
            "summary": {
                "errors": self.count(Level::Error),
                "warnings": self.count(Level::Warning),
                "infos": self.count(Level::Info),
            },
            "findings": findings,
        });
        serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
    }

    /// Release notes in Markdown: a section each for what breaks callers
    /// (errors and warnings), what is deprecated, removed, changed and
    /// added, each change listed once with its operation's method and path,
    /// stability and sunset date. Ready to paste; nothing in it depends on
    /// the day it is written but the levels of the breaking section.
    pub fn markdown(&self, base: &Document, revision: &Document) -> String {
        use rules::{Change, Rule};
        #[derive(Clone, Copy, PartialEq, Eq)]
        enum Section {
            Breaking,
            Deprecated,
            Removed,
            Changed,
            Added,
        }
        let section = |f: &Finding| match f.rule {
            Rule::ApiRemovedWithoutDeprecation
            | Rule::ApiRemovedBeforeSunset
            | Rule::ApiRemovedAfterSunset
            | Rule::ApiRemovedDeprecated
            | Rule::ApiRemovedSunsetUnreadable => Section::Removed,
            _ if f.level != Level::Info => Section::Breaking,
            Rule::ApiDeprecated => Section::Deprecated,
            Rule::ApiAdded
            | Rule::NewOptionalRequestParameter
            | Rule::RequestBodyAddedOptional
            | Rule::NewOptionalRequestProperty
            | Rule::ResponseStatusAdded
            | Rule::ResponseBodyAdded
            | Rule::ResponsePropertyAdded
            | Rule::PagingAdded
            | Rule::ApiSecurityRelaxed
            | Rule::Value(_, Change::EnumValueAdded | Change::OneOfAdded) => Section::Added,
            _ => Section::Changed,
        };
        let mut out = format!("## Changes from `{}` to `{}`\n", base.file, revision.file);
        if self.findings.is_empty() {
            out.push_str("\nNo changes to the interface.\n");
            return out;
        }
        let sections = [
            (Section::Breaking, "Breaking"),
            (Section::Deprecated, "Deprecated"),
            (Section::Removed, "Removed"),
            (Section::Changed, "Changed"),
            (Section::Added, "Added"),
        ];
        for (which, title) in sections {
            let mut lines: Vec<String> = Vec::new();
            for f in self.findings.iter().filter(|f| section(f) == which) {
                let mut about = Vec::new();
                if let Some(stability) = f.stability {
                    about.push(stability.as_str().to_string());
                }
                if let Some(sunset) = &f.sunset {
                    about.push(format!("sunset {sunset}"));
                }
                if which == Section::Breaking && f.level == Level::Warning {
                    about.push("may break".into());
                }
                let operation = if f.operation.is_empty() {
                    String::new()
                } else if about.is_empty() {
                    format!("`{}`: ", f.operation)
                } else {
                    format!("`{}` ({}): ", f.operation, about.join(", "))
                };
                let line = format!("- {operation}{}", markdown_text(&f.message));
                if !lines.contains(&line) {
                    lines.push(line);
                }
            }
            if !lines.is_empty() {
                let _ = write!(out, "\n### {title}\n\n{}\n", lines.join("\n"));
            }
        }
        out
    }

    /// GitHub Actions workflow commands, one a finding: `::error` for an
    /// error, `::warning` for a warning, `::notice` for information, at the
    /// finding's line in the revision (or in the base, for what the
    /// revision no longer has), titled with the rule.
    pub fn github(&self, base: &Document, revision: &Document) -> String {
        let (base_at, revision_at) = positions(self, base, revision);
        let mut out = String::new();
        for f in &self.findings {
            let command = match f.level {
                Level::Error => "error",
                Level::Warning => "warning",
                Level::Info => "notice",
            };
            let (doc, at, positions) = match (&f.revision, &f.base) {
                (Some(at), _) => (revision, at, &revision_at),
                (None, Some(at)) => (base, at, &base_at),
                (None, None) => (revision, &String::new(), &revision_at),
            };
            let mut properties = vec![format!("file={}", github_property(&doc.file))];
            if let Some(p) = positions.get(at) {
                properties.push(format!("line={}", p.line));
                properties.push(format!("col={}", p.column));
            }
            properties.push(format!("title={}", github_property(&f.rule.id())));
            let operation = if f.operation.is_empty() {
                String::new()
            } else {
                format!("{}: ", f.operation)
            };
            let _ = writeln!(
                out,
                "::{command} {}::{}",
                properties.join(","),
                github_data(&format!("{operation}{}", f.message))
            );
        }
        out
    }
}

/// A message as Markdown text: what it quotes in backticks stays code;
/// nothing else in it is Markdown.
fn markdown_text(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for (i, part) in message.split('`').enumerate() {
        if i % 2 == 1 {
            out.push('`');
            out.push_str(part);
            out.push('`');
        } else {
            for c in part.chars() {
                if matches!(c, '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '\\') {
                    out.push('\\');
                }
                out.push(c);
            }
        }
    }
    out
}

/// A workflow command's data, escaped as GitHub reads it.
fn github_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value, escaped as GitHub reads it.
fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
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
