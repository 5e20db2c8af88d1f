//! The guide's command reference (`docs/src/cli.md`), made from the CLI's
//! own definitions: every subcommand, argument and flag, with its help,
//! value, default and choices, and the exit codes. A test compares the page
//! with what this makes, so that the two cannot drift;
//! `UPDATE_REFERENCE=1 cargo test -p apigen-cli --bin apigen reference`
//! writes it.

use clap::{Arg, ArgAction, Command, CommandFactory};
use std::fmt::Write as _;

/// How each command exits, by code: what clap cannot know.
const EXIT_CODES: &[(&str, &[(u8, &str)])] = &[
    (
        "generate",
        &[
            (0, "the crate is written (with `--check`: it is current)"),
            (
                1,
                "the document cannot be generated, or (with `--check`) the crate differs from what would be generated",
            ),
        ],
    ),
    (
        "diff",
        &[
            (0, "nothing is at error level (or `--rules`)"),
            (1, "something is at error level"),
            (2, "a document cannot be read"),
        ],
    ),
    (
        "check",
        &[
            (0, "the document can be generated"),
            (
                1,
                "it cannot (with `--strict`: or something would be left out)",
            ),
        ],
    ),
    (
        "mock",
        &[
            (0, "with `--build-only`: the mock is built, its path printed"),
            (1, "the mock cannot be built or cannot serve"),
        ],
    ),
];

/// The page.
pub fn page() -> String {
    let cli = super::Cli::command();
    let mut out = String::from(
        "# Command reference\n\n\
         <!-- Made from the CLI's definitions by `crates/apigen-cli/src/reference.rs`; \
         `UPDATE_REFERENCE=1 cargo test -p apigen-cli --bin apigen reference` writes it \
         again. Do not edit by hand. -->\n\n",
    );
    if let Some(about) = cli.get_about() {
        let _ = writeln!(out, "{}\n", sentence(&about.to_string()));
    }
    out.push_str("Every command takes `--help` (and `apigen` takes `--version`).\n");
    for command in cli.get_subcommands() {
        subcommand(&mut out, command);
    }
    out
}

fn subcommand(out: &mut String, command: &Command) {
    let name = command.get_name();
    let _ = writeln!(out, "\n## `apigen {name}`\n");
    if let Some(about) = command.get_long_about().or(command.get_about()) {
        let _ = writeln!(out, "{}\n", sentence(about.to_string().trim()));
    }
    let usage = command
        .clone()
        .bin_name(format!("apigen {name}"))
        .render_usage()
        .to_string();
    let usage = usage.trim_start_matches("Usage: ");
    let _ = writeln!(out, "```text\n{usage}\n```\n");
    let args: Vec<&Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !matches!(a.get_id().as_str(), "help" | "version"))
        .collect();
    let _ = writeln!(out, "| Argument | What it is |\n|---|---|");
    for arg in args {
        let _ = writeln!(out, "| {} | {} |", form(arg), help(arg));
    }
    if let Some((_, codes)) = EXIT_CODES.iter().find(|(n, _)| *n == name) {
        let _ = writeln!(out, "\nExit codes:\n");
        for (code, meaning) in *codes {
            let _ = writeln!(out, "- `{code}`: {meaning}");
        }
    }
}

/// How the argument is written: `SPEC`, `--out <OUT>`, `--server`.
fn form(arg: &Arg) -> String {
    let value = arg
        .get_value_names()
        .and_then(|names| names.first())
        .map_or_else(|| arg.get_id().as_str().to_uppercase(), |n| n.to_string());
    let takes_value = !matches!(
        arg.get_action(),
        ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count
    );
    match arg.get_long() {
        Some(long) if takes_value => format!("`--{long} <{value}>`"),
        Some(long) => format!("`--{long}`"),
        None => format!("`{value}`"),
    }
}

/// Its help on one line, with its default, its choices, and whether it
/// may be repeated.
fn help(arg: &Arg) -> String {
    let text = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|");
    let mut text = sentence(&text);
    let choices: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| match v.get_help() {
            Some(help) => {
                let help = help.to_string();
                let mut chars = help.trim_end_matches('.').chars();
                let first = chars.next().map(|c| c.to_lowercase().collect::<String>());
                format!(
                    "`{}` ({}{})",
                    v.get_name(),
                    first.unwrap_or_default(),
                    chars.as_str()
                )
            }
            None => format!("`{}`", v.get_name()),
        })
        .collect();
    if !choices.is_empty() && arg.get_action().takes_values() {
        let _ = write!(text, " One of {}.", choices.join(", "));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() {
        let _ = write!(text, " Default: `{}`.", defaults.join(" "));
    }
    if matches!(arg.get_action(), ArgAction::Append) {
        text.push_str(" Repeatable.");
    }
    if arg.is_required_set() {
        text.push_str(" Required.");
    }
    text.trim().to_string()
}

/// `text` ending as a sentence does (clap drops a help's last period).
fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() || text.ends_with(['.', '?', '!', ':']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The checked-in page is what the CLI's definitions make.
    #[test]
    fn the_reference_page_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/src/cli.md");
        let made = super::page();
        if std::env::var_os("UPDATE_REFERENCE").is_some() {
            std::fs::write(&path, &made).expect("write the page");
            return;
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == made,
            "docs/src/cli.md is not what the CLI's definitions make: run \
             `UPDATE_REFERENCE=1 cargo test -p apigen-cli --bin apigen reference`"
        );
    }
}
