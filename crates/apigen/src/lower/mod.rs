//! Lowering: `openapiv3::OpenAPI` -> [`ir::Api`]. Resolves references, merges
//! `allOf`, names inline schemas after where they stand, and reports everything it
//! cannot express as a diagnostic at the construct's JSON pointer.
//!
//! - [`schemas`]: schemas to types and shapes (references, `allOf`, unions,
//!   inline types named after where they stand);
//! - [`operations`]: operations, parameters, bodies, responses and their
//!   lifecycle annotations;
//! - [`tags`]: the tags as the reference page's navigation (3.2's
//!   `summary` and `parent`);
//! - [`passes`]: what needs the whole API first (route traits, boxing of
//!   recursive fields, headers every response shares, the shared error
//!   type); each takes values and returns values.

mod analyses;
mod hooks;
mod kinds;
mod lifecycle;
mod operations;
mod paging;
mod parameters;
mod passes;
mod pointer;
mod responses;
mod schemas;
mod security;
mod tags;

use crate::diag::{Diagnostic, Pointer};
use crate::ir::*;
use crate::load::Loaded;
use crate::names::{Namer, PRELUDE_TYPES};
use openapiv3::{OpenAPI, ReferenceOr};
use pointer::Node;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use hooks::receiver;
pub use lifecycle::STABILITY_EXTENSIONS;

/// How a document is lowered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Leave out (and report) what cannot be expressed, instead of failing.
    pub lenient: bool,
    /// Check the string formats `email` and `uri` (they stay `String`).
    pub check_formats: bool,
    /// Make an inline struct identical to an earlier one, but for its
    /// properties' descriptions, examples and places, an alias of it: one
    /// type to compile instead of many. The evolution gate keeps each
    /// struct where it stands, so that findings name the right place.
    pub share_structs: bool,
}

/// A lowered document.
#[derive(Debug)]
pub struct Lowered {
    pub api: Api,
    /// What a lenient run left out, each with its location and reason.
    pub skipped: Vec<Diagnostic>,
    /// What was read but is not enforced, or what became of it (a 3.1
    /// keyword with no 3.0 equivalent, a webhook).
    pub notes: Vec<Diagnostic>,
}

/// Lowers a document. In a lenient run, an operation or schema that cannot be
/// expressed is left out (a schema becomes `serde_json::Value`) and reported in
/// [`Lowered::skipped`] instead of failing the run. Every location is in the
/// document as written (a 3.1 document's moved values mapped back).
pub fn lower(loaded: &Loaded, options: Options) -> Result<Lowered, Vec<Diagnostic>> {
    let doc = &loaded.doc;
    let mut l = Lowerer::new(doc, &loaded.other_operations);
    l.mutual_tls = loaded.mutual_tls.clone();
    l.lenient = options.lenient;
    l.check_formats = options.check_formats;
    l.share_structs = options.share_structs;
    if let Some(default) = &doc.security {
        l.default_security = l.requirements(default, &Pointer::root().join("security"));
    }
    l.component_types();
    let operations = l.operations(&loaded.other_operations);
    let webhooks = l.hooks(&loaded.webhooks);
    let plans = l.plans();
    let (operations, traits) = passes::groups(doc, operations);
    let (operations, common_headers) = passes::common_headers(operations);
    let (operations, shared_responses) = passes::shared_responses(operations, &traits);
    let operations = passes::same_responses(operations);
    let error_type = passes::shared_error_type(&operations);
    let security_schemes = l.security_schemes();
    let api = Api {
        title: doc.info.title.clone(),
        version: doc.info.version.clone(),
        description: doc.info.description.clone(),
        base_path: doc
            .servers
            .first()
            .map(|s| base_path(&s.url))
            .unwrap_or_default(),
        servers: doc.servers.iter().filter_map(absolute_url).collect(),
        tags: l.nav_tags(),
        types: passes::mark_boxed(passes::newtype_alias_cycles(passes::shared_with_unions(
            passes::infer_discriminators(std::mem::take(&mut l.types)),
        ))),
        traits,
        operations,
        common_headers,
        error_type,
        security_schemes,
        default_security: l.default_security,
        webhooks,
        plans,
        checked: Default::default(),
        shared_responses,
    };
    let moved = &loaded.provenance;
    if options.lenient {
        l.notes.extend(moved.assumed.iter().cloned());
    } else {
        l.errors.extend(moved.assumed.iter().cloned());
    }
    if !l.errors.is_empty() {
        return Err(l.errors.into_iter().map(|d| moved.locate(d)).collect());
    }
    let mut api = api;
    api.checked = api.checked_types();
    if !moved.moved.is_empty() {
        api.map_pointers(|p| moved.original(p));
    }
    let mut notes: Vec<Diagnostic> = moved
        .notes
        .iter()
        .cloned()
        .map(|d| moved.locate(d))
        .collect();
    notes.extend(l.notes.into_iter().map(|d| moved.locate(d)));
    // What was copied to several places (a media type used by reference)
    // is said once, where it was written.
    let mut said = std::collections::HashSet::new();
    notes.retain(|d| said.insert((d.location.clone(), d.message.clone())));
    Ok(Lowered {
        api,
        skipped: l.skipped.into_iter().map(|d| moved.locate(d)).collect(),
        notes,
    })
}

struct Lowerer<'a> {
    doc: &'a OpenAPI,
    /// The operations that stand where the model has no field (`query`,
    /// `additionalOperations`), for pointers into them.
    others: &'a [crate::load::OtherOperation],
    errors: Vec<Diagnostic>,
    types: BTreeMap<String, TypeDef>,
    namer: Namer,
    /// Component schema name -> Rust type name.
    components: BTreeMap<String, String>,
    /// Inline schemas already given a type, by their pointer, so that a schema
    /// reached twice (through `allOf`, say) is one type.
    inline: HashMap<Pointer, String>,
    /// Aliases being inlined, by pointer, to stop on `$ref` cycles between
    /// aliases.
    resolving: BTreeSet<String>,
    /// The schemas whose properties are being merged (`allOf`), outermost
    /// first, to report cycles.
    merging: Vec<Pointer>,
    lenient: bool,
    /// Whether `email` and `uri` strings get checks.
    check_formats: bool,
    /// See [`Options::share_structs`].
    share_structs: bool,
    /// Inline types by their structure, so that repeats become aliases.
    shared: HashMap<String, String>,
    /// Each `pattern` met, and whether Rust's regex compiles it.
    patterns: HashMap<String, bool>,
    /// What a lenient run left out.
    skipped: Vec<Diagnostic>,
    /// What was assumed of a document that strictly says otherwise (an
    /// enum value of another type, a scheme nobody declared), at its
    /// pointer.
    notes: Vec<Diagnostic>,
    /// The document's `security`, for operations without their own.
    default_security: Vec<SecurityRequirement>,
    /// Security schemes the transport enforces (3.1's `mutualTLS`).
    mutual_tls: Vec<String>,
    /// The callbacks the operations lowered so far declare.
    callbacks: Vec<hooks::DeclaredCallback<'a>>,
}

impl<'a> Lowerer<'a> {
    fn new(doc: &'a OpenAPI, others: &'a [crate::load::OtherOperation]) -> Self {
        Lowerer {
            doc,
            others,
            errors: Vec::new(),
            types: BTreeMap::new(),
            namer: Namer::reserving(PRELUDE_TYPES),
            components: BTreeMap::new(),
            inline: HashMap::new(),
            resolving: BTreeSet::new(),
            merging: Vec::new(),
            lenient: false,
            check_formats: false,
            share_structs: false,
            shared: HashMap::new(),
            patterns: HashMap::new(),
            skipped: Vec::new(),
            notes: Vec::new(),
            default_security: Vec::new(),
            mutual_tls: Vec::new(),
            callbacks: Vec::new(),
        }
    }

    /// In a lenient run, turns the errors since `mark` into skip notes; true
    /// when there were any.
    pub(super) fn skip_since(&mut self, mark: usize, what: &str) -> bool {
        if self.errors.len() == mark {
            return false;
        }
        if self.lenient {
            for mut d in self.errors.drain(mark..) {
                d.message = format!("{what} skipped: {}", d.message);
                self.skipped.push(d);
            }
        }
        true
    }

    pub(super) fn error(&mut self, at: &Pointer, message: impl Into<String>) {
        self.errors.push(Diagnostic::at(at, message));
    }

    /// Says what the generator made of something it reads but does not
    /// express fully, at `at`.
    pub(super) fn note(&mut self, at: &Pointer, message: impl Into<String>) {
        // A schema read twice (as a type and where it is used) says it once.
        let note = Diagnostic::at(at, message);
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Says what was assumed at `at`, where the document is strictly
    /// invalid but every mainstream tool reads it: a note in a lenient run
    /// (the problem, and what was assumed), an error in a strict one (a
    /// project's own spec must be valid).
    pub(super) fn assume(&mut self, at: &Pointer, problem: impl Into<String>, assumption: &str) {
        let problem = problem.into();
        if self.lenient {
            self.note(at, format!("{problem}: {assumption}"));
        } else {
            self.error(at, problem);
        }
    }

    /// What pointers walk: the model and the operations beside it.
    fn tree(&self) -> pointer::Tree<'a> {
        pointer::Tree {
            doc: self.doc,
            others: self.others,
        }
    }

    /// An item standing at `at`, or what a local reference names (a
    /// component, or anything inside a component or a path), after any chain
    /// of references; with the pointer where it stands. `expect` picks the
    /// kind of value wanted; an unresolved reference, or one to another
    /// kind, is reported at `at`.
    pub(super) fn resolve<T>(
        &mut self,
        item: &'a ReferenceOr<T>,
        expect: fn(Node<'a>) -> Option<&'a T>,
        at: &Pointer,
    ) -> Option<(&'a T, Pointer)> {
        let reference = match item {
            ReferenceOr::Item(t) => return Some((t, at.clone())),
            ReferenceOr::Reference { reference } => reference,
        };
        match pointer::find(self.tree(), reference) {
            Some((target, node)) => match expect(node) {
                Some(t) => Some((t, target)),
                None => {
                    self.error(
                        at,
                        format!("`{reference}` names something else than is needed here"),
                    );
                    None
                }
            },
            None => {
                self.error(at, format!("unresolved reference `{reference}`"));
                None
            }
        }
    }

    /// `info.x-plans`: a list of `{name, perMinute, perDay, description}`.
    fn plans(&mut self) -> Vec<Plan> {
        let Some(value) = self.doc.info.extensions.get("x-plans") else {
            return Vec::new();
        };
        let at = Pointer::root().join("info").join("x-plans");
        let Some(items) = value.as_array() else {
            self.error(&at, "`x-plans` must be a list of plans");
            return Vec::new();
        };
        let mut plans = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let limit = |key: &str| {
                item.get(key)
                    .and_then(serde_json::Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok())
            };
            match item.get("name").and_then(serde_json::Value::as_str) {
                Some(name) => plans.push(Plan {
                    name: name.to_string(),
                    per_minute: limit("perMinute"),
                    per_day: limit("perDay"),
                    description: item
                        .get("description")
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_string),
                }),
                None => self.error(&at.join(i), "a plan needs a `name`"),
            }
        }
        plans
    }
}

/// The path part of a server URL, without a trailing slash: `/v1` for
/// `http://localhost:8080/v1/` or `/v1`. Variables (`{version}`) are kept.
fn base_path(url: &str) -> String {
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |i| &rest[i..]),
        None => url,
    };
    path.trim_end_matches('/').to_string()
}

/// A server's URL with its variables at their defaults, when it is
/// absolute (http or https).
fn absolute_url(server: &openapiv3::Server) -> Option<crate::ir::Server> {
    let mut url = server.url.clone();
    for (name, variable) in server.variables.iter().flatten() {
        url = url.replace(&format!("{{{name}}}"), &variable.default);
    }
    let absolute = url.starts_with("https://") || url.starts_with("http://");
    (absolute && !url.contains('{')).then(|| crate::ir::Server {
        url: url.trim_end_matches('/').to_string(),
        description: server.description.clone(),
    })
}

/// The type a name finally stands for, through aliases of named types.
pub fn resolve<'a>(types: &'a BTreeMap<String, TypeDef>, name: &str) -> Option<&'a TypeDef> {
    let mut def = types.get(name)?;
    for _ in 0..64 {
        match &def.kind {
            TypeKind::Alias(Shape {
                ty: Ty::Named(next),
                ..
            }) => def = types.get(next)?,
            _ => return Some(def),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_server_urls() {
        let server = |yaml: &str| serde_yaml::from_str::<openapiv3::Server>(yaml).unwrap();
        let url = |yaml: &str| absolute_url(&server(yaml)).map(|s| s.url);
        assert_eq!(
            url("url: https://api.example.com/v1/").as_deref(),
            Some("https://api.example.com/v1")
        );
        assert_eq!(
            absolute_url(&server("{url: 'https://a.example.com', description: Live}"))
                .and_then(|s| s.description)
                .as_deref(),
            Some("Live")
        );
        assert_eq!(
            url(
                "{url: 'https://{region}.example.com/{v}', variables: {region: {default: eu}, v: {default: v2}}}"
            )
            .as_deref(),
            Some("https://eu.example.com/v2")
        );
        // Relative URLs are the page's own server; a variable without a
        // value cannot be called.
        assert_eq!(url("url: /v1"), None);
        assert_eq!(url("url: 'https://{tenant}.example.com'"), None);
    }

    #[test]
    fn base_paths() {
        assert_eq!(base_path("http://localhost:8080/v1"), "/v1");
        assert_eq!(base_path("https://api.example.com/"), "");
        assert_eq!(base_path("/api/v2/"), "/api/v2");
        assert_eq!(base_path("https://example.com"), "");
    }
}
