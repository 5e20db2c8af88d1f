//! Documents split over several files: every `$ref` to another file
//! (`../models/Agent.json`, `common.yaml#/components/schemas/Id`) is followed,
//! relative to the file it appears in, and what it names is copied into the
//! root document's `components`, so that the rest of the pipeline sees one
//! self-contained document.

use crate::diag::{Diagnostic, Location, Pointer};
use serde_yaml::{Mapping, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reads `path` and inlines the files its references name.
pub fn bundle(path: &Path) -> Result<Value, Vec<Diagnostic>> {
    bundle_text(path, &read(path)?).map(|(value, _)| value)
}

/// The text of `path`, or a diagnostic saying why it cannot be read.
pub fn read(path: &Path) -> Result<String, Vec<Diagnostic>> {
    std::fs::read_to_string(path).map_err(|e| {
        vec![Diagnostic {
            location: Location::Document,
            message: format!("cannot read {}: {e}", path.display()),
        }]
    })
}

/// As [`bundle`], for `text` already read from `path`; with the other
/// files its references named, which it read.
pub fn bundle_text(path: &Path, text: &str) -> Result<(Value, Vec<PathBuf>), Vec<Diagnostic>> {
    let mut root = crate::load::syntax(text)?;
    if !has_external_refs(text) {
        return Ok((root, Vec::new()));
    }
    // References to the document by its own URI (3.2's `$self`) are local.
    crate::load::self_references(&mut root);
    let existing = root
        .get("components")
        .and_then(Value::as_mapping)
        .into_iter()
        .flatten()
        .flat_map(|(kind, section)| {
            let kind = kind.as_str().unwrap_or_default().to_string();
            section
                .as_mapping()
                .into_iter()
                .flatten()
                .filter_map(move |(name, _)| {
                    Some(format!("#/components/{kind}/{}", name.as_str()?))
                })
        })
        .collect();
    let mut b = Bundler {
        existing,
        files: BTreeMap::new(),
        grafted: BTreeMap::new(),
        additions: Vec::new(),
        errors: Vec::new(),
    };
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    b.walk(&mut root, &dir, None, &Pointer::root(), &mut Vec::new());
    // Grafted values may hold references of their own.
    let mut i = 0;
    while i < b.additions.len() {
        let (kind, name, mut value, file, at) = b.additions[i].clone();
        let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        b.walk(&mut value, &dir, Some(&file), &at, &mut Vec::new());
        b.additions[i].2 = value;
        let _ = (kind, name);
        i += 1;
    }
    if !b.errors.is_empty() {
        return Err(b.errors);
    }
    if !b.additions.is_empty() {
        let components = root.as_mapping_mut().map(|m| {
            m.entry(Value::from("components"))
                .or_insert_with(|| Value::Mapping(Mapping::new()))
        });
        if let Some(Value::Mapping(components)) = components {
            for (kind, name, value, _, _) in b.additions {
                let section = components
                    .entry(Value::from(kind))
                    .or_insert_with(|| Value::Mapping(Mapping::new()));
                if let Value::Mapping(section) = section {
                    section.insert(Value::from(name), value);
                }
            }
        }
    }
    Ok((root, b.files.into_keys().collect()))
}

/// Whether any `$ref` in the text names another file (cheaper than walking
/// the whole parsed document to find out).
fn has_external_refs(text: &str) -> bool {
    text.match_indices("$ref").any(|(i, _)| {
        let rest = text[i + 4..]
            .trim_start_matches(|c: char| c == '"' || c == '\'' || c == ':' || c.is_whitespace());
        !rest.starts_with('#')
    })
}

type Addition = (&'static str, String, Value, PathBuf, Pointer);

struct Bundler {
    /// The root document's own components, as local references.
    existing: std::collections::BTreeSet<String>,
    /// Parsed files, by canonical path.
    files: BTreeMap<PathBuf, Value>,
    /// (file, fragment) -> the local reference that replaces it.
    grafted: BTreeMap<(PathBuf, String), String>,
    additions: Vec<Addition>,
    errors: Vec<Diagnostic>,
}

/// Whether a reference standing under `keys` stands for something no
/// component section holds, so that what it names is written in place: a
/// whole `properties` map, an operation (`paths/P/get`), a path item
/// (`paths/P`), a callback's path item.
fn in_place(keys: &[String]) -> bool {
    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    match keys {
        [.., last] if last == "properties" => true,
        [paths, _] if paths == "paths" || paths == "webhooks" => true,
        [paths, _, method]
            if (paths == "paths" || paths == "webhooks") && METHODS.contains(&method.as_str()) =>
        {
            true
        }
        [.., callbacks, _, _] if callbacks == "callbacks" => true,
        [.., callbacks, _, _, method]
            if callbacks == "callbacks" && METHODS.contains(&method.as_str()) =>
        {
            true
        }
        _ => false,
    }
}

/// The `components` section a reference belongs in, judged by where it
/// stands: the key of the map or list holding it (`responses/200`,
/// `responses/default`, `headers/X-Rate`, `parameters/0`,
/// `components/responses/NotFound`), unless that key is a property's name.
fn kind_of(keys: &[String]) -> &'static str {
    match keys {
        [.., last] if last == "requestBody" => "requestBodies",
        [.., before, container, _] if before == "properties" => {
            let _ = container;
            "schemas"
        }
        [.., container, _] => match container.as_str() {
            "parameters" => "parameters",
            "responses" => "responses",
            "headers" => "headers",
            "requestBodies" => "requestBodies",
            "securitySchemes" => "securitySchemes",
            "examples" => "examples",
            "links" => "links",
            _ => "schemas",
        },
        _ => "schemas",
    }
}

impl Bundler {
    /// Rewrites the references under `value`. `file` is the file `value` came
    /// from (`None` for the root document): local references in other files
    /// point into those files, not into the root.
    fn walk(
        &mut self,
        value: &mut Value,
        dir: &Path,
        file: Option<&PathBuf>,
        at: &Pointer,
        keys: &mut Vec<String>,
    ) {
        match value {
            Value::Mapping(map) => {
                if let Some(Value::String(reference)) = map.get("$ref").cloned().as_ref() {
                    let external = !reference.starts_with('#');
                    if external || file.is_some() {
                        let (target_file, fragment) = match reference.split_once('#') {
                            Some((f, frag)) => (f, frag.to_string()),
                            None => (reference.as_str(), String::new()),
                        };
                        let target = if target_file.is_empty() {
                            file.cloned().unwrap_or_default()
                        } else {
                            dir.join(target_file)
                        };
                        // A reference standing for what no component can
                        // be (a whole `properties` map, an operation, a
                        // path item) is what it names, in place.
                        let whole_map = in_place(keys);
                        let kind = kind_of(keys);
                        match self.graft(&target, &fragment, kind, &at.join("$ref"), whole_map) {
                            Some(Graft::Local(local)) => {
                                map.insert(Value::from("$ref"), Value::from(local));
                            }
                            // Text (a description kept in a file of its own,
                            // say) stands where it is referenced.
                            Some(Graft::Inline(scalar)) => *value = scalar,
                            Some(Graft::InPlace(tree, from)) => {
                                *value = tree;
                                let dir = from.parent().unwrap_or(Path::new(".")).to_path_buf();
                                self.walk(value, &dir, Some(&from), at, keys);
                            }
                            None => {}
                        }
                        return;
                    }
                }
                for (k, v) in map.iter_mut() {
                    let key = k
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("{k:?}"));
                    // An extension's `$ref` is its own business, not an
                    // OpenAPI reference (a link to a Markdown file, say);
                    // a header or property named `x-...` is not one.
                    if crate::load::is_extension(keys.last().map(String::as_str), &key) {
                        continue;
                    }
                    keys.push(key);
                    self.walk(v, dir, file, at, keys);
                    keys.pop();
                }
            }
            Value::Sequence(items) => {
                for (i, v) in items.iter_mut().enumerate() {
                    keys.push(i.to_string());
                    self.walk(v, dir, file, at, keys);
                    keys.pop();
                }
            }
            _ => {}
        }
    }

    /// Copies what `file#fragment` names into the components (once) and
    /// returns the local reference to it.
    fn graft(
        &mut self,
        file: &Path,
        fragment: &str,
        kind: &'static str,
        at: &Pointer,
        in_place: bool,
    ) -> Option<Graft> {
        let canonical = match file.canonicalize() {
            Ok(p) => p,
            Err(e) => {
                self.errors.push(Diagnostic::at(
                    at,
                    format!("cannot read referenced file {}: {e}", file.display()),
                ));
                return None;
            }
        };
        if let Some(local) = self.grafted.get(&(canonical.clone(), fragment.to_string())) {
            return Some(Graft::Local(local.clone()));
        }
        if !self.files.contains_key(&canonical) {
            let text = match std::fs::read_to_string(&canonical) {
                Ok(t) => t,
                Err(e) => {
                    self.errors.push(Diagnostic::at(
                        at,
                        format!("cannot read referenced file {}: {e}", file.display()),
                    ));
                    return None;
                }
            };
            match crate::load::syntax(&text) {
                Ok(v) => {
                    self.files.insert(canonical.clone(), v);
                }
                Err(errors) => {
                    for e in errors {
                        self.errors.push(Diagnostic::at(
                            at,
                            format!("in {}: {}", file.display(), e.message),
                        ));
                    }
                    return None;
                }
            }
        }
        let mut target = self.files.get(&canonical)?;
        let pointer = Pointer::from_ref(&format!("#{fragment}")).unwrap_or_else(Pointer::root);
        for segment in pointer.segments() {
            let next = match target {
                Value::Mapping(m) => m.get(segment.as_str()),
                Value::Sequence(s) => segment.parse::<usize>().ok().and_then(|i| s.get(i)),
                _ => None,
            };
            match next {
                Some(v) => target = v,
                None => {
                    self.errors.push(Diagnostic::at(
                        at,
                        format!("unresolved reference into {}: #{fragment}", file.display()),
                    ));
                    return None;
                }
            }
        }
        if !matches!(target, Value::Mapping(_) | Value::Sequence(_)) {
            return Some(Graft::Inline(target.clone()));
        }
        if in_place {
            return Some(Graft::InPlace(target.clone(), canonical));
        }
        let base = pointer
            .segments()
            .last()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| {
                canonical
                    .file_stem()
                    .map_or("External".into(), |s| s.to_string_lossy().into_owned())
            });
        let mut name = base.clone();
        let taken = |n: &str, b: &Bundler| {
            let local = format!("#/components/{kind}/{n}");
            b.existing.contains(&local) || b.grafted.values().any(|l| *l == local)
        };
        let mut n = 2;
        while taken(&name, self) {
            name = format!("{base}{n}");
            n += 1;
        }
        let local = format!("#/components/{kind}/{name}");
        self.grafted
            .insert((canonical.clone(), fragment.to_string()), local.clone());
        let value = target.clone();
        let graft_at = Pointer::root().join("components").join(kind).join(&name);
        self.additions
            .push((kind, name, value, canonical, graft_at));
        Some(Graft::Local(local))
    }
}

/// What stands where an external reference stood.
enum Graft {
    /// A local reference to what was grafted into the components.
    Local(String),
    /// A scalar, written in place.
    Inline(Value),
    /// A value written in place, with the file it came from (its own
    /// references are relative to that file).
    InPlace(Value, PathBuf),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_references_are_told_from_local_ones() {
        assert!(!has_external_refs("a:\n  $ref: '#/components/schemas/A'\n"));
        assert!(!has_external_refs(r##"{"$ref": "#/x"}"##));
        assert!(has_external_refs(r#"{"$ref": "../models/Agent.json"}"#));
        assert!(has_external_refs("a:\n  $ref: common.yaml#/A\n"));
    }

    #[test]
    fn referenced_files_are_grafted_into_components() {
        let dir = std::env::temp_dir().join(format!("apigen-bundle-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("models")).unwrap();
        std::fs::write(
            dir.join("api.yaml"),
            "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'models/A.json'}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("models/A.json"),
            r#"{"type": "object", "properties": {"b": {"$ref": "./B.json"}}}"#,
        )
        .unwrap();
        std::fs::write(dir.join("models/B.json"), r#"{"type": "string"}"#).unwrap();
        let doc = bundle(&dir.join("api.yaml")).unwrap();
        let schemas = &doc["components"]["schemas"];
        assert_eq!(
            schemas["A"]["properties"]["b"]["$ref"].as_str(),
            Some("#/components/schemas/B")
        );
        assert_eq!(schemas["B"]["type"].as_str(), Some("string"));
        let response =
            &doc["paths"]["/a"]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
        assert_eq!(response["$ref"].as_str(), Some("#/components/schemas/A"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
