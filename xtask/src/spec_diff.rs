//! `cargo xtask spec-diff BASE REVISION [--format text|json] [--date YYYY-MM-DD]`:
//! the evolution gate (`apigen::diff`). Exits 0 when nothing is at error
//! level, 1 when something is, 2 when a document cannot be read or the
//! arguments are wrong.

use crate::project_root;
use std::path::{Path, PathBuf};

pub const USAGE: &str =
    "usage: cargo xtask spec-diff BASE REVISION [--format text|json] [--date YYYY-MM-DD]";

/// Runs the gate; the exit code.
pub fn spec_diff(args: &[&str]) -> u8 {
    match parse(args) {
        Ok((base, revision, format, date)) => {
            let outcome = apigen::diff::gate(Path::new(base), Path::new(revision), format, date);
            outcome.print();
            outcome.code
        }
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            2
        }
    }
}

/// The released interface that `spec/openapi.yaml` must keep the promises
/// of: `spec/released/v{MAJOR}.yaml` for the major version of its
/// `info.version`. A new major version has none yet: it may break.
fn baseline() -> Result<(PathBuf, String), String> {
    let spec = project_root().join(crate::codegen::SPEC);
    let text = std::fs::read_to_string(&spec)
        .map_err(|e| format!("cannot read {}: {e}", spec.display()))?;
    let doc = apigen::load::parse(&text).map_err(|errors| {
        apigen::Diagnostics {
            file: crate::codegen::SPEC.into(),
            errors,
        }
        .to_string()
    })?;
    let major = doc
        .doc
        .info
        .version
        .split('.')
        .next()
        .unwrap_or_default()
        .to_string();
    Ok((
        project_root().join(format!("spec/released/v{major}.yaml")),
        major,
    ))
}

/// `cargo xtask ci`'s evolution gate: the spec against the released
/// baseline of its major version.
pub fn gate() -> Result<(), String> {
    let (released, major) = baseline()?;
    if !released.exists() {
        eprintln!(
            "no released baseline for major version {major} ({}): nothing to keep",
            released.display()
        );
        return Ok(());
    }
    let shown = |p: &Path| {
        p.strip_prefix(project_root())
            .unwrap_or(p)
            .display()
            .to_string()
    };
    eprintln!(
        "$ cargo xtask spec-diff {} {}",
        shown(&released),
        crate::codegen::SPEC
    );
    let outcome = apigen::diff::gate(
        &released,
        &project_root().join(crate::codegen::SPEC),
        apigen::diff::Format::Text,
        None,
    );
    match outcome.code {
        0 => {
            eprint!("{}", outcome.output);
            Ok(())
        }
        _ => Err(format!(
            "{}\nThe spec breaks promises of the released interface ({}). Either deprecate first \
             (`deprecated: true` with an `x-deprecated-sunset` date; remove the operation on or \
             after that date), or bump `info.version` to a new major version.",
            outcome.output,
            shown(&released)
        )),
    }
}

/// `cargo xtask release`: records the spec as the released interface of its
/// major version, once it keeps the promises of the one released before.
pub fn release() -> Result<(), String> {
    gate()?;
    let (released, _) = baseline()?;
    if let Some(dir) = released.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::copy(project_root().join(crate::codegen::SPEC), &released)
        .map_err(|e| e.to_string())?;
    eprintln!("released: {}", released.display());
    Ok(())
}

type Parsed<'a> = (&'a str, &'a str, apigen::diff::Format, Option<&'a str>);

fn parse<'a>(args: &[&'a str]) -> Result<Parsed<'a>, String> {
    let mut documents = Vec::new();
    let mut format = apigen::diff::Format::Text;
    let mut date = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--format" => {
                format = match rest.next().copied() {
                    Some("text") => apigen::diff::Format::Text,
                    Some("json") => apigen::diff::Format::Json,
                    other => return Err(format!("--format takes text or json, not {other:?}")),
                }
            }
            "--date" => {
                let value = rest.next().copied().ok_or("--date needs a date")?;
                let valid = value.len() == 10
                    && value.bytes().enumerate().all(|(i, b)| {
                        if i == 4 || i == 7 {
                            b == b'-'
                        } else {
                            b.is_ascii_digit()
                        }
                    });
                if !valid {
                    return Err(format!("--date takes YYYY-MM-DD, not `{value}`"));
                }
                date = Some(value);
            }
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            document => documents.push(document),
        }
    }
    match documents.as_slice() {
        [base, revision] => Ok((base, revision, format, date)),
        _ => Err("spec-diff compares two documents".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let (b, r, f, d) = parse(&[
            "a.yaml",
            "--date",
            "2030-01-01",
            "b.yaml",
            "--format",
            "json",
        ])
        .unwrap();
        assert_eq!(
            (b, r, f, d),
            (
                "a.yaml",
                "b.yaml",
                apigen::diff::Format::Json,
                Some("2030-01-01")
            )
        );
        assert!(parse(&["a.yaml"]).is_err());
        assert!(parse(&["a", "b", "--date", "1.1.2030"]).is_err());
        assert!(parse(&["a", "b", "--format", "xml"]).is_err());
    }
}
