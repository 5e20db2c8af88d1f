//! `cargo xtask rooms`: the generator's and the runtime's sizes and import
//! loops. A file is a room; no room over [`FILE_LINES`] lines, no function
//! over [`FUNCTION_LINES`], and no loop of imports between rooms (a module
//! and the modules it encloses are one unit: `emit/client.rs` naming
//! `emit/mod.rs` is not a loop, `emit/client.rs` and `emit/operations.rs`
//! naming each other is).
//!
//! It reads the source as rustfmt leaves it: a function's body closes at the
//! indentation its signature opened at. Tests (`#[cfg(test)]` modules) are
//! no part of a room's imports.

use crate::project_root;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The crates whose rooms are held to the limits.
pub const CRATES: [&str; 2] = ["crates/apigen", "crates/apigen-runtime"];
/// The most lines a source file may have.
pub const FILE_LINES: usize = 1000;
/// The most lines a function may have, signature to closing brace.
pub const FUNCTION_LINES: usize = 120;

/// What breaks the limits.
#[derive(Debug, Default)]
pub struct Report {
    /// (file, lines)
    pub long_files: Vec<(String, usize)>,
    /// (file:line, function, lines)
    pub long_functions: Vec<(String, String, usize)>,
    /// Each loop: the files in it, and what ties each to the next.
    pub loops: Vec<Vec<(String, String, BTreeSet<String>)>>,
}

impl Report {
    pub fn is_empty(&self) -> bool {
        self.long_files.is_empty() && self.long_functions.is_empty() && self.loops.is_empty()
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        for (file, lines) in &self.long_files {
            out.push_str(&format!("file over {FILE_LINES} lines: {file} ({lines})\n"));
        }
        for (at, name, lines) in &self.long_functions {
            out.push_str(&format!(
                "function over {FUNCTION_LINES} lines: {at} {name} ({lines})\n"
            ));
        }
        for ties in &self.loops {
            out.push_str("import loop:\n");
            for (from, to, names) in ties {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                out.push_str(&format!("  {from} -> {to}: {}\n", names.join(", ")));
            }
        }
        out
    }
}

/// `cargo xtask rooms`.
pub fn rooms() -> Result<(), String> {
    let report = measure(&project_root())?;
    if report.is_empty() {
        eprintln!(
            "{}: no file over {FILE_LINES} lines, no function over {FUNCTION_LINES}, no import loop",
            CRATES.join(" and ")
        );
        return Ok(());
    }
    eprint!("{}", report.text());
    Err("rooms over their limits, or in a loop".into())
}

/// Measures [`CRATES`] under `root`.
pub fn measure(root: &Path) -> Result<Report, String> {
    let mut report = Report::default();
    for krate in CRATES {
        let src = root.join(krate).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files)?;
        files.sort();
        let mut modules = BTreeMap::new();
        for file in &files {
            let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let shown = file
                .strip_prefix(root)
                .unwrap_or(file)
                .display()
                .to_string();
            let lines = text.lines().count();
            if lines > FILE_LINES {
                report.long_files.push((shown.clone(), lines));
            }
            for (line, name, length) in long_functions(&text) {
                report
                    .long_functions
                    .push((format!("{shown}:{line}"), name, length));
            }
            modules.insert(module_path(&src, file), (shown, text));
        }
        report.loops.extend(loops(&modules));
    }
    Ok(report)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `src/emit/mod.rs` -> `["emit"]`, `src/emit/client.rs` -> `["emit",
/// "client"]`, `src/lib.rs` -> `[]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut path: Vec<String> = relative
        .iter()
        .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// The functions of `text` over [`FUNCTION_LINES`]: (line, name, lines).
fn long_functions(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = function_name(line) else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        // The signature ends at `{` (a body) or `;` (none).
        let Some(open) = (i..lines.len()).find(|&j| {
            let l = lines[j].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        let Some(end) = (open + 1..lines.len()).find(|&j| lines[j].trim_end() == close) else {
            continue;
        };
        let length = end - i + 1;
        if length > FUNCTION_LINES {
            out.push((i + 1, name, length));
        }
    }
    out
}

/// The name of the function a line opens, if it opens one.
fn function_name(line: &str) -> Option<String> {
    let mut words = line.trim_start();
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        words = words.strip_prefix(prefix).unwrap_or(words);
    }
    let rest = words.strip_prefix("fn ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

type Modules = BTreeMap<Vec<String>, (String, String)>;

/// The loops among `modules` (path -> (file, text)).
fn loops(modules: &Modules) -> Vec<Vec<(String, String, BTreeSet<String>)>> {
    // Each module's code, read once: a path's re-exports are looked up in
    // the module it reaches, path after path.
    let code: Modules = modules
        .iter()
        .map(|(m, (file, text))| (m.clone(), (file.clone(), without_tests_and_comments(text))))
        .collect();
    let modules = &code;
    // Edges between modules, with the names that make them, leaving out a
    // module's ties to the modules that enclose it and that it encloses.
    let mut edges: BTreeMap<&Vec<String>, BTreeMap<&Vec<String>, BTreeSet<String>>> =
        BTreeMap::new();
    for (module, (_, text)) in modules {
        for path in imported_paths(text) {
            let Some((target, name)) = resolve(modules, module, &path) else {
                continue;
            };
            if target.starts_with(module) || module.starts_with(target) {
                continue;
            }
            edges
                .entry(module)
                .or_default()
                .entry(target)
                .or_default()
                .insert(name);
        }
    }
    // Strongly connected components (Tarjan's), each of two or more.
    let nodes: Vec<&Vec<String>> = modules.keys().collect();
    let index_of: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let successors: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges
                .get(n)
                .map(|to| to.keys().map(|t| index_of[t]).collect())
                .unwrap_or_default()
        })
        .collect();
    let mut components = Vec::new();
    tarjan(&successors, &mut components);
    components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|component| {
            let members: BTreeSet<usize> = component.iter().copied().collect();
            let mut ties = Vec::new();
            for &from in &members {
                for &to in &successors[from] {
                    if members.contains(&to) {
                        ties.push((
                            modules[nodes[from]].0.clone(),
                            modules[nodes[to]].0.clone(),
                            edges[nodes[from]][nodes[to]].clone(),
                        ));
                    }
                }
            }
            ties
        })
        .collect()
}

fn tarjan(successors: &[Vec<usize>], components: &mut Vec<Vec<usize>>) {
    struct State<'a> {
        successors: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
    }
    fn visit(s: &mut State, v: usize, components: &mut Vec<Vec<usize>>) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for i in 0..s.successors[v].len() {
            let w = s.successors[v][i];
            match s.index[w] {
                None => {
                    visit(s, w, components);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            components.push(component);
        }
    }
    let n = successors.len();
    let mut state = State {
        successors,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
    };
    for v in 0..n {
        if state.index[v].is_none() {
            visit(&mut state, v, components);
        }
    }
}

/// The paths a module's text names through `crate::`, `super::` or
/// `self::`, from its `use` lines (flattened) and its code, leaving out
/// comments and `#[cfg(test)]` modules.
fn imported_paths(text: &str) -> Vec<Vec<String>> {
    let code = without_tests_and_comments(text);
    let mut paths = Vec::new();
    // `use` items, which may span lines.
    let mut rest = code.as_str();
    while let Some(at) = find_word(rest, "use ") {
        let after = &rest[at + 4..];
        let Some(end) = after.find(';') else { break };
        flatten_use(&after[..end], &mut Vec::new(), &mut paths);
        rest = &after[end..];
    }
    // Qualified paths in the code.
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start) {
            let at = from + at;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let segments: Vec<String> = path
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            paths.push(segments);
        }
    }
    paths
}

/// `at` of `word` in `text` where it starts a word.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let at = from + at;
        if at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// `a::{b, c::{d, e}}` -> `a::b`, `a::c::d`, `a::c::e` (under `prefix`).
fn flatten_use(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let depth = prefix.len();
        prefix.extend(head);
        for part in split_top_level(inner) {
            flatten_use(part, prefix, out);
        }
        prefix.truncate(depth);
    } else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        let mut full = prefix.clone();
        full.extend(
            path.split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty() && *s != "self")
                .map(str::to_string),
        );
        if !full.is_empty() {
            out.push(full);
        }
    }
}

fn split_top_level(list: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// The text without comments, string and character literals' contents,
/// and `#[cfg(test)]` modules (rustfmt's layout: the module closes at its
/// opening indentation). A string holding Rust (the emitter's templates:
/// `"use super::models;"`) imports nothing.
fn without_tests_and_comments(text: &str) -> String {
    let code = code_only(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim() == "#[cfg(test)]" {
            if let Some(next) = lines.get(i + 1) {
                let trimmed = next.trim_start();
                if trimmed.starts_with("mod ") && trimmed.ends_with('{') {
                    let indent = &next[..next.len() - trimmed.len()];
                    let close = format!("{indent}}}");
                    match (i + 2..lines.len()).find(|&j| lines[j].trim_end() == close) {
                        Some(end) => {
                            i = end + 1;
                            continue;
                        }
                        None => break,
                    }
                }
            }
        }
        out.push_str(line);
        out.push('\n');
        i += 1;
    }
    out
}

/// `text` with comments removed and the contents of string and character
/// literals (raw ones too) removed, their quotes and every line break kept,
/// so that line numbers stay.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Skips to `end`, keeping only the line breaks on the way.
    let skip = |from: usize, end: usize, out: &mut String| {
        out.extend(chars[from..end].iter().filter(|&&c| c == '\n'));
        end
    };
    let find = |from: usize, needle: &[char]| {
        (from..chars.len())
            .find(|&j| chars[j..].starts_with(needle))
            .unwrap_or(chars.len())
    };
    while i < chars.len() {
        let c = chars[i];
        let rest = &chars[i..];
        let after_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if rest.starts_with(&['/', '/']) {
            i = find(i, &['\n']);
        } else if rest.starts_with(&['/', '*']) {
            let end = find(i + 2, &['*', '/']);
            i = skip(i, (end + 2).min(chars.len()), &mut out);
        } else if c == 'r' && !after_ident && matches!(rest.get(1), Some('"' | '#')) {
            let hashes = rest[1..].iter().take_while(|&&h| h == '#').count();
            if rest.get(1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let end = find(i + 2 + hashes, &close);
            out.push_str("\"\"");
            i = skip(i, (end + close.len()).min(chars.len()), &mut out);
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = skip(i, (j + 1).min(chars.len()), &mut out);
        } else if c == '\'' && rest.get(1) == Some(&'\\') {
            // An escaped character: up to the next quote.
            let end = find(i + 2, &['\'']);
            out.push_str("' '");
            i = (end + 1).min(chars.len());
        } else if c == '\'' && rest.get(2) == Some(&'\'') {
            out.push_str("' '");
            i += 3;
        } else {
            // A lifetime's quote, or code.
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The module a path names from `module`, and the name it takes there: the
/// longest prefix that is a module, following a `pub use` re-export of the
/// next segment.
fn resolve<'m>(
    modules: &'m Modules,
    module: &[String],
    path: &[String],
) -> Option<(&'m Vec<String>, String)> {
    let mut at: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super") => {
            // `super` of a file module is its parent.
            let mut m = module.to_vec();
            m.pop()?;
            m
        }
        Some("self") => module.to_vec(),
        _ => return None,
    };
    let mut rest = &path[1..];
    while let Some(first) = rest.first() {
        if first == "super" {
            at.pop()?;
            rest = &rest[1..];
            continue;
        }
        let mut deeper = at.clone();
        deeper.push(first.clone());
        if modules.contains_key(&deeper) {
            at = deeper;
            rest = &rest[1..];
        } else {
            break;
        }
    }
    let name = rest.first().cloned().unwrap_or_else(|| "*".to_string());
    // A re-export: `pub use x::Name` in the module the path reached.
    if let Some((_, text)) = modules.get(&at) {
        if let Some(target) = reexport(modules, &at, text, &name) {
            return Some((target, name));
        }
    }
    modules.get_key_value(&at).map(|(k, _)| (k, name))
}

/// Where `module` re-exports `name` from, when it does.
fn reexport<'m>(
    modules: &'m Modules,
    module: &[String],
    text: &str,
    name: &str,
) -> Option<&'m Vec<String>> {
    // Each `use` item, which may span lines; a re-export is a public one.
    // `text` is code alone (`loops` strips comments and tests first).
    let mut rest = text;
    while let Some(at) = find_word(rest, "use ") {
        let public = rest[..at].trim_end();
        let public = public.ends_with("pub") || public.ends_with("pub(crate)");
        let after = &rest[at + 4..];
        let Some(end) = after.find(';') else { break };
        let tree = &after[..end];
        rest = &after[end..];
        if !public {
            continue;
        }
        let mut paths = Vec::new();
        flatten_use(tree, &mut Vec::new(), &mut paths);
        for path in paths {
            if path.last().map(String::as_str) != Some(name) {
                continue;
            }
            // `pub use child::Name` is relative to the module itself.
            let mut full = vec!["self".to_string()];
            if matches!(path[0].as_str(), "crate" | "super" | "self") {
                full = path.clone();
            } else {
                full.extend(path.iter().cloned());
            }
            let (target, _) = resolve(modules, module, &full)?;
            return Some(target);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_are_measured_from_signature_to_closing_brace() {
        let body = "    let x = 1;\n".repeat(FUNCTION_LINES);
        let text = format!(
            "fn short() {{\n}}\n\npub(crate) fn long(\n    a: u8,\n) -> u8 {{\n{body}    a\n}}\n\ntrait T {{\n    fn bodiless(&self);\n}}\n"
        );
        assert_eq!(
            long_functions(&text),
            vec![(4, "long".to_string(), FUNCTION_LINES + 5)]
        );
    }

    #[test]
    fn the_generator_and_the_runtime_are_within_the_limits() {
        let report = measure(&project_root()).unwrap();
        assert!(report.is_empty(), "{}", report.text());
    }

    #[test]
    fn strings_characters_and_comments_import_nothing() {
        let text = "use a::b; // use c::d;\nfn f<'x>() { let _ = (\"use e::f;\", r#\"use \"g\"::h;\"#, '\"', '\\'', b'{'); }\n/* use i::j; */ use k::l;\n";
        let code = code_only(text);
        assert_eq!(code.lines().count(), text.lines().count());
        assert_eq!(
            imported_paths(text),
            vec![
                vec!["a".to_string(), "b".into()],
                vec!["k".into(), "l".into()]
            ]
        );
        assert!(code.contains("fn f<'x>()"), "{code}");
    }

    #[test]
    fn use_trees_flatten() {
        let mut out = Vec::new();
        flatten_use(
            "super::{text::{self, Expr}, ident as id, Gates}",
            &mut Vec::new(),
            &mut out,
        );
        let shown: Vec<String> = out.iter().map(|p| p.join("::")).collect();
        assert_eq!(
            shown,
            [
                "super::text",
                "super::text::Expr",
                "super::ident",
                "super::Gates"
            ]
        );
    }

    fn modules(files: &[(&str, &str)]) -> Modules {
        files
            .iter()
            .map(|(path, text)| {
                let module: Vec<String> = if path.is_empty() {
                    Vec::new()
                } else {
                    path.split('/').map(str::to_string).collect()
                };
                (module, (path.to_string(), text.to_string()))
            })
            .collect()
    }

    #[test]
    fn a_loop_between_siblings_is_found_and_one_through_the_parent_is_not() {
        let siblings = modules(&[
            ("", "mod a;\nmod b;\n"),
            ("a", "use crate::b::Bee;\npub struct Ay;\n"),
            ("b", "pub struct Bee;\nfn f() -> crate::a::Ay { todo!() }\n"),
        ]);
        let found = loops(&siblings);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].len(), 2);
        let parent = modules(&[
            ("", "mod a;\npub struct Root;\nfn f() { a::g() }\n"),
            ("a", "use crate::Root;\npub fn g() {}\n"),
        ]);
        assert!(loops(&parent).is_empty());
    }

    #[test]
    fn a_reexport_is_followed_to_the_module_that_defines_the_name() {
        let through = modules(&[
            ("", "mod a;\nmod b;\npub use b::Bee;\n"),
            ("a", "use crate::Bee;\npub struct Ay;\n"),
            (
                "b",
                "pub struct Bee;\n#[cfg(test)]\nmod tests {\n    use crate::a::Ay;\n}\n",
            ),
        ]);
        assert!(loops(&through).is_empty(), "tests are no part of imports");
        let looped = modules(&[
            ("", "mod a;\nmod b;\npub use b::Bee;\n"),
            ("a", "use crate::Bee;\npub struct Ay;\n"),
            (
                "b",
                "pub struct Bee;\n// crate::a::Ay in a comment\nuse super::a::Ay;\n",
            ),
        ]);
        assert_eq!(loops(&looped).len(), 1);
        let across_lines = modules(&[
            ("", "mod a;\nmod b;\npub use b::{\n    Bee,\n    Cee,\n};\n"),
            ("a", "use crate::Cee;\npub struct Ay;\n"),
            ("b", "pub struct Bee;\npub struct Cee;\nuse super::a::Ay;\n"),
        ]);
        assert_eq!(loops(&across_lines).len(), 1, "a re-export over lines");
    }
}
