//! Emission: [`Api`] -> formatted Rust source files.
//!
//! Items that repeat per operation or per type are written as formatted
//! text ([`text`]); the few of irregular shape are built as tokens with
//! `quote`, parsed with `syn` and printed with `prettyplease`. Either way
//! the output is formatted and the same IR always gives the same bytes.

mod client;
pub mod docs;
mod metadata;
mod method_docs;
mod mock;
mod models;
mod operations;
mod reading;
mod server;
mod text;
pub mod vendor;

use crate::ir::{Api, Number, Response, Shape, Status, Ty, TypeKind, OTHER_MODELS};
use crate::{Config, Files};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeSet, HashMap};
use text::Expr;

/// Types per job: models are written in chunks, on as many threads as the
/// machine has.
const TYPES_PER_JOB: usize = 400;
const OPERATIONS_PER_JOB: usize = 100;

pub fn emit(api: &Api, config: &Config) -> Files {
    let gates = Gates::new(api, config.group_features, config.serde_sides);
    let gates = &gates;
    let defs: Vec<&crate::ir::TypeDef> = api.types.values().collect();
    let op_chunks: Vec<&[crate::ir::Operation]> =
        api.operations.chunks(OPERATIONS_PER_JOB).collect();
    let generated_by = format!("`{}` from {}", config.command, config.source);
    // Every file that grows with the document is rendered in parts, each
    // a job: parsing and printing a whole file of a large document at once
    // holds gigabytes of tokens, and leaves one core with most of the work.
    let mut jobs = Jobs::default();
    // The reference page first: it is one job, as long as several others.
    let docs_html = jobs.one(move || docs::page(api, &generated_by));
    let server_head = jobs.one(move || server::head(api, gates));
    let handlers = jobs.each(&op_chunks, |chunk| server::handlers(api, gates, chunk));
    let client_head = jobs.one(move || render(client::head(api)));
    let methods = jobs.each(&op_chunks, |chunk| client::methods(api, gates, chunk));
    let metadata_rs = jobs.one(move || metadata::items(api));
    let mock_rs = jobs.one(move || mock::items(api));
    let shared = jobs.one(move || operations::shared_items(api, gates));
    let per_operation = jobs.each(&op_chunks, |chunk| {
        operations::operation_items(api, gates, chunk)
    });
    let models = jobs.each(&defs.chunks(TYPES_PER_JOB).collect::<Vec<_>>(), |chunk| {
        models::items(api, gates, chunk)
    });
    let mut done = jobs.run();

    let mut files = Files::new();
    let preamble = preamble(config);
    // Each file written once, its parts moved in and dropped as they go:
    // a large document's files are hundreds of MB.
    let mut put = |name: &str, head: String, parts: Vec<String>| {
        let len = parts.iter().map(|p| p.len() + 1).sum::<usize>();
        let mut text = String::with_capacity(preamble.len() + head.len() + len);
        text.push_str(&preamble);
        text.push_str(&head);
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&part);
        }
        files.insert(name.to_string(), text);
    };
    put("mod.rs", render(mod_rs(api, config)), Vec::new());
    put(
        "models.rs",
        module(models::DOC, &models::imports(api), ""),
        done.take_each(models),
    );
    let mut parts = vec![done.take(shared)];
    parts.extend(done.take_each(per_operation));
    put(
        "operations.rs",
        module(operations::DOC, &operations::imports(api), ""),
        parts,
    );
    let mut parts = vec![done.take(server_head)];
    parts.extend(done.take_each(handlers));
    put(
        "server.rs",
        module(server::DOC, &server::imports(api, gates), ""),
        parts,
    );
    put(
        "client.rs",
        module(client::DOC, &client::imports(api, gates), ""),
        vec![in_block(done.take(client_head), done.take_each(methods))],
    );
    put(
        "metadata.rs",
        module(metadata::DOC, &["use super::runtime;"], ""),
        vec![done.take(metadata_rs)],
    );
    put(
        "mock.rs",
        module(mock::DOC, &mock::imports(api), ""),
        vec![done.take(mock_rs)],
    );
    files.insert("docs.html".to_string(), done.take(docs_html));
    if config.runtime == crate::Runtime::Vendored {
        for (name, source) in vendor::SOURCES {
            files.insert(
                format!("runtime/{}", vendor::file_name(name)),
                vendor::text(name, source).into_owned(),
            );
        }
    }
    files
}

/// The jobs that build and render the files or their parts, run on all
/// available cores.
#[derive(Default)]
struct Jobs<'a> {
    jobs: Vec<Box<dyn Fn() -> String + Sync + 'a>>,
}

impl<'a> Jobs<'a> {
    /// One job; its index among the results.
    fn one(&mut self, job: impl Fn() -> String + Sync + 'a) -> usize {
        self.jobs.push(Box::new(job));
        self.jobs.len() - 1
    }

    /// A job for each part; the range of their results.
    fn each<T: Sync + 'a>(
        &mut self,
        parts: &[&'a [T]],
        job: impl Fn(&'a [T]) -> String + Sync + Copy + 'a,
    ) -> std::ops::Range<usize> {
        let start = self.jobs.len();
        for &part in parts {
            self.jobs.push(Box::new(move || job(part)));
        }
        start..self.jobs.len()
    }

    fn run(self) -> Done {
        Done(run_all(&self.jobs))
    }
}

/// The jobs' results, taken by index.
struct Done(Vec<String>);

impl Done {
    fn take(&mut self, index: usize) -> String {
        std::mem::take(&mut self.0[index])
    }

    fn take_each(&mut self, range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|i| self.take(i)).collect()
    }
}

/// Runs every job, in order, on all available cores.
fn run_all(jobs: &[Box<dyn Fn() -> String + Sync + '_>]) -> Vec<String> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<String>> = jobs.iter().map(|_| Default::default()).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let text = job();
                *results[i]
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = text;
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
        .collect()
}

/// A module file: its doc comment, its imports (decided from the IR by
/// each emitter, never by reading the rendered text), and the body.
fn module(doc: &str, imports: &[impl AsRef<str>], body: &str) -> String {
    let mut out = format!("//! {doc}\n\n");
    for import in imports {
        out.push_str(import.as_ref());
        out.push('\n');
    }
    if !imports.is_empty() {
        out.push('\n');
    }
    out.push_str(body);
    out
}

fn preamble(config: &Config) -> String {
    format!(
        "// @generated by `{}` from {}.\n// Do not edit by hand: edit the spec and run the command again.\n\n",
        config.command, config.source
    )
}

fn render(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens) {
        Ok(file) => space_items(&prettyplease::unparse(&file)),
        // Reaching this is a bug in the emitter, not in the document: make
        // the generated crate fail to build, saying why.
        Err(e) => format!("compile_error!({:?});\n", e.to_string()),
    }
}

/// Items of a block (the methods of an `impl`), rendered on their own:
/// the lines prettyplease prints between the block's braces.
fn render_in_block(items: TokenStream) -> String {
    let block = render(quote!(impl Block { #items }));
    match block.strip_prefix("impl Block {\n") {
        Some(inside) => inside.strip_suffix("}\n").unwrap_or(inside).to_string(),
        // An empty block is printed on one line.
        None => String::new(),
    }
}

/// A rendered block (`impl Client { ... }`, last in `head`) with more
/// items rendered apart ([`render_in_block`]) put before its closing brace,
/// a blank line between items as [`space_items`] puts them.
fn in_block(head: String, parts: Vec<String>) -> String {
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return head;
    }
    let Some(open) = head.strip_suffix("}\n") else {
        // Reaching this is a bug in the emitter: make the crate fail to
        // build rather than lose the items.
        return format!("{head}compile_error!(\"a block's items were rendered apart from a head that does not end in one\");\n");
    };
    let mut out = String::with_capacity(
        head.len() + parts.iter().map(String::len).sum::<usize>() + parts.len(),
    );
    out.push_str(open);
    for part in &parts {
        out.push('\n');
        out.push_str(part);
    }
    out.push_str("}\n");
    out
}

/// prettyplease prints items back to back; put a blank line between items,
/// as a person would: top-level ones, and those inside `impl` and `trait`
/// blocks (a closing brace followed, at its own indentation, by what starts
/// an item).
fn space_items(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + source.len() / 16);
    let mut previous = "";
    for line in source.lines() {
        let indent = |l: &str| l.len() - l.trim_start().len();
        let starts_item = |l: &str| {
            let l = l.trim_start();
            ["///", "#[", "pub ", "fn ", "async fn ", "const ", "type "]
                .iter()
                .any(|start| l.starts_with(start))
        };
        let ends_nested_item = matches!(previous.trim_start(), "}" | "};")
            && indent(previous) > 0
            && indent(line) == indent(previous)
            && starts_item(line);
        let top_level = !previous.starts_with(' ') && !previous.starts_with("//");
        let ends_item = previous == "}"
            || (top_level && previous.ends_with("{}"))
            || ends_nested_item
            || (top_level && previous.ends_with(';'));
        let ends_header = previous.starts_with("//!") && !line.starts_with("//!");
        let same_group = previous.starts_with("use ") && line.starts_with("use ")
            || previous.starts_with("pub mod ") && line.starts_with("pub mod ");
        if (ends_item || ends_header) && !line.is_empty() && !same_group {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        previous = line;
    }
    out
}

fn mod_rs(api: &Api, config: &Config) -> TokenStream {
    let runtime = match config.runtime {
        crate::Runtime::Crate => quote!(
            pub use apigen_runtime as runtime;
        ),
        crate::Runtime::Vendored => quote!(
            pub mod runtime;
        ),
    };
    let title = format!(" {} {}", api.title, api.version);
    let description = doc_lines(api.description.as_deref());
    quote! {
        #![doc = #title]
        #![doc = ""]
        #( #![doc = #description] )*
        #[cfg(feature = "client")]
        pub mod client;
        pub mod metadata;
        #[cfg(feature = "mock")]
        pub mod mock;
        pub mod models;
        pub mod operations;
        #runtime
        #[cfg(feature = "server")]
        pub mod server;

        /// The API's reference page: one self-contained HTML file, `docs.html`
        /// beside this module, generated from the same spec.
        pub const DOCS_HTML: &str = include_str!("docs.html");
    }
}

/// Which operations a group holds, in words: `operations tagged `Pets``,
/// `untagged operations under `/v1/customers``.
pub fn group_summary(t: &crate::ir::RouteTrait, ops: &[&crate::ir::Operation]) -> String {
    if t.group.is_empty() {
        return "operations with neither a tag nor a path segment to group them by".into();
    }
    if ops.iter().any(|o| o.tag == t.group) {
        return format!("operations tagged `{}`", t.group);
    }
    let under = ops
        .first()
        .and_then(|op| {
            let end = op.path.find(&format!("/{}", t.group))? + t.group.len() + 1;
            Some(op.path[..end].to_string())
        })
        .unwrap_or_else(|| t.group.clone());
    format!("untagged operations under `{under}`")
}

/// The features that write and read a type only requests carry
/// ([`Gates::serde_lines`]).
const CLIENT_SENDS: [&str; 2] = [
    r#"any(feature = "client", feature = "serialize")"#,
    r#"any(feature = "server", feature = "deserialize")"#,
];

/// The same for a type only responses carry: a mock reads its answers from
/// examples and made values.
const SERVER_SENDS: [&str; 2] = [
    r#"any(feature = "server", feature = "serialize")"#,
    r#"any(feature = "client", feature = "mock", feature = "deserialize")"#,
];

/// The same for a type neither carries: a model no operation uses.
const NEITHER_SENDS: [&str; 2] = [r#"feature = "serialize""#, r#"feature = "deserialize""#];

/// The same for a type both carry.
const BOTH_SEND: [&str; 2] = [
    r#"any(feature = "client", feature = "server", feature = "serialize")"#,
    r#"any(feature = "server", feature = "client", feature = "deserialize")"#,
];

/// Which Cargo features compile an item in ([`Config::group_features`]): a
/// group's operations (their types, handlers and client methods) under its
/// feature; a named type under the features of the groups that reach it,
/// or none when every group does; a type no group reaches, and what it
/// uses, also under [`OTHER_MODELS`](crate::ir::OTHER_MODELS). Without
/// group features every item is always in.
#[derive(Debug)]
pub struct Gates<'a> {
    api: &'a Api,
    /// The groups that reach each type, when groups are features.
    reach: Option<HashMap<&'a str, Vec<usize>>>,
    /// Each group's index in `api.traits`, by the group's name.
    traits: HashMap<&'a str, usize>,
    /// The groups of the operations whose response enum is defined by an
    /// operation ([`crate::ir::Operation::same_responses_as`]), by that
    /// operation's `type_name`, when groups are features: its own, and
    /// those of the operations whose enums are aliases of it.
    responses: HashMap<&'a str, BTreeSet<&'a str>>,
    /// Which sides send each type, for its serde impls, when they are
    /// compiled for those sides only ([`crate::Config::serde_sides`]).
    senders: Option<crate::ir::Senders<'a>>,
}

impl<'a> Gates<'a> {
    pub fn new(api: &'a Api, group_features: bool, serde_sides: bool) -> Self {
        let mut responses: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        if group_features {
            for op in &api.operations {
                let owner = op.same_responses_as.as_deref().unwrap_or(&op.type_name);
                responses.entry(owner).or_default().insert(&op.group);
            }
        }
        Gates {
            api,
            reach: group_features.then(|| api.reach()),
            traits: api.trait_index(),
            responses,
            senders: serde_sides.then(|| api.senders()),
        }
    }

    /// The `cfg` attributes of an operation's response enum, of its server
    /// side (`impl runtime::Response`) and of its client side (`impl
    /// runtime::ReadAnswer`): those of its group, or of every group using
    /// it when other operations' enums are aliases of it.
    pub fn response_attrs(&self, op: &crate::ir::Operation) -> [TokenStream; 3] {
        let predicate = match self.responses.get(op.type_name.as_str()) {
            Some(groups) if groups.len() > 1 => self.groups(groups.iter().copied()),
            _ => self.group(&op.group),
        };
        [
            Self::side_attr("server", predicate.as_ref()),
            Self::side_attr("client", predicate.as_ref()),
            Self::attr(predicate),
        ]
    }

    /// The route trait of a group.
    pub fn route_trait(&self, group: &str) -> Option<&'a crate::ir::RouteTrait> {
        self.traits.get(group).map(|&i| &self.api.traits[i])
    }

    /// Whether groups are features.
    pub fn on(&self) -> bool {
        self.reach.is_some()
    }

    /// The `cfg` predicate of a group's items.
    pub fn group(&self, group: &str) -> Option<TokenStream> {
        self.reach.as_ref()?;
        let feature = &self.route_trait(group)?.feature;
        Some(quote!(feature = #feature))
    }

    /// The `cfg` predicate of a named type's items: `None` when it is
    /// always in.
    pub fn of_type(&self, name: &str) -> Option<TokenStream> {
        let reach = self.reach.as_ref()?;
        let groups = reach.get(name)?;
        let all = self.api.traits.len();
        // Groups are distinct: every group's index below `all` is there.
        if groups.iter().filter(|&&g| g < all).count() == all {
            return None;
        }
        let mut features = groups.iter().map(|&i| match self.api.traits.get(i) {
            Some(t) => t.feature.as_str(),
            None => OTHER_MODELS,
        });
        Some(if groups.len() == 1 {
            let feature = features.next();
            quote!(feature = #feature)
        } else {
            quote!(any(#(feature = #features),*))
        })
    }

    /// The `cfg` lines of a named type's `Serialize` and `Deserialize`
    /// impls, as text: `own`, the predicate of its items ([`Gates::of_type`],
    /// written compactly), and the features of the sides that write and
    /// read it ([`crate::ir::Api::senders`]) or of `serialize` and
    /// `deserialize`, which implement them on every type. A client never
    /// writes a response, a server never reads one: the impls neither side
    /// uses are compiled out unless asked for, and a type no operation uses
    /// has them only when asked for. Empty for no `cfg`.
    pub fn serde_lines(&self, name: &str, own: Option<&str>) -> [String; 2] {
        let sides = self.senders.as_ref().and_then(|s| {
            match (s.requests.contains(name), s.responses.contains(name)) {
                _ if s.both_ways.contains(name) => None,
                (true, false) => Some(CLIENT_SENDS),
                (false, true) => Some(SERVER_SENDS),
                (true, true) => Some(BOTH_SEND),
                (false, false) => Some(NEITHER_SENDS),
            }
        });
        let line = |sides: Option<&str>| match (own, sides) {
            (None, None) => String::new(),
            (Some(one), None) | (None, Some(one)) => format!("#[cfg({one})]\n"),
            (Some(own), Some(sides)) => format!("#[cfg(all({own}, {sides}))]\n"),
        };
        match sides {
            Some([write, read]) => [line(Some(write)), line(Some(read))],
            None => [line(None), line(None)],
        }
    }

    /// The `cfg` predicate of items the operations of `groups` use:
    /// `None` when every group does, or groups are not features.
    pub fn groups<'g>(&self, groups: impl IntoIterator<Item = &'g str>) -> Option<TokenStream> {
        self.reach.as_ref()?;
        let features = self.features_of(groups);
        match features.as_slice() {
            _ if features.len() == self.api.traits.len() => None,
            [one] => Some(quote!(feature = #one)),
            _ => Some(quote!(any(#(feature = #features),*))),
        }
    }

    /// The `cfg` predicate of items some group's operations use (a helper
    /// of every handler, an import), when groups are features.
    pub fn any_group(&self) -> Option<TokenStream> {
        self.reach.as_ref()?;
        let features = self.api.traits.iter().map(|t| &t.feature);
        Some(quote!(any(#(feature = #features),*)))
    }

    /// An import that only the operations of `groups` use: under the
    /// `any(...)` of their features when groups are features.
    pub fn group_import<'g>(
        &self,
        import: &str,
        groups: impl IntoIterator<Item = &'g str>,
    ) -> String {
        if self.reach.is_none() {
            return import.to_string();
        }
        let features: Vec<String> = self
            .features_of(groups)
            .iter()
            .map(|f| format!("feature = {f:?}"))
            .collect();
        format!("#[cfg(any({}))]\n{import}", features.join(", "))
    }

    /// The features of `groups`, in the order of the traits.
    fn features_of<'g>(&self, groups: impl IntoIterator<Item = &'g str>) -> Vec<&'a str> {
        let groups: BTreeSet<&str> = groups.into_iter().collect();
        self.api
            .traits
            .iter()
            .filter(|t| groups.contains(t.group.as_str()))
            .map(|t| t.feature.as_str())
            .collect()
    }

    /// `#[cfg(predicate)]`, or nothing for no predicate.
    pub fn attr(predicate: Option<TokenStream>) -> TokenStream {
        predicate.map(|p| quote!(#[cfg(#p)])).unwrap_or_default()
    }

    /// The `cfg` attribute of a group's server-side items: the `server`
    /// feature, and the group's own when it has one.
    pub fn server_attr(&self, group: &str) -> TokenStream {
        Self::side_attr("server", self.group(group).as_ref())
    }

    /// The `cfg` attribute of items on one side (`server`, `client`): its
    /// feature, and `predicate` when there is one.
    fn side_attr(side: &str, predicate: Option<&TokenStream>) -> TokenStream {
        match predicate {
            Some(p) => quote!(#[cfg(all(feature = #side, #p))]),
            None => quote!(#[cfg(feature = #side)]),
        }
    }
}

/// `runtime::Explode::Yes` or `No`: how a parameter's `explode` is spelled
/// in a call to the runtime.
pub(crate) fn explode(explode: bool) -> &'static str {
    if explode {
        "runtime::Explode::Yes"
    } else {
        "runtime::Explode::No"
    }
}

pub(crate) fn ident(name: &str) -> Ident {
    format_ident!("{}", name)
}

/// `///` lines from a description. Fenced code blocks become `text` blocks so
/// that rustdoc does not try to compile examples written in other languages.
pub(crate) fn doc(text: Option<&str>) -> TokenStream {
    let lines = doc_lines(text);
    quote! { #( #[doc = #lines] )* }
}

/// The lines of a doc comment, each with the space that follows `///`.
pub(crate) fn doc_lines(text: Option<&str>) -> Vec<String> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Vec::new();
    };
    let mut in_fence = false;
    let lines = text.lines().map(|line| {
        let trimmed = line.trim_start();
        let line = if trimmed.starts_with("```") {
            in_fence = !in_fence;
            if in_fence {
                "```text".to_string()
            } else {
                "```".to_string()
            }
        } else {
            line.trim_end().to_string()
        };
        if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        }
    });
    lines.collect()
}

/// Paragraphs as one text, a blank line between them, empty ones skipped.
pub(crate) fn joined_paragraphs(paragraphs: &[Option<String>]) -> String {
    let text: Vec<&str> = paragraphs
        .iter()
        .filter_map(|p| p.as_deref())
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    text.join("\n\n")
}

/// Joins paragraphs into one doc block, skipping empty ones.
pub(crate) fn doc_paragraphs(paragraphs: &[Option<String>]) -> TokenStream {
    doc(Some(&joined_paragraphs(paragraphs)))
}

/// The Rust type of a shape. `models` is the path prefix of named types.
pub(crate) fn rust_type(shape: &Shape, models: &TokenStream) -> TokenStream {
    match &shape.ty {
        Ty::Bool => quote!(bool),
        Ty::I32 => quote!(i32),
        Ty::I64 => quote!(i64),
        Ty::F32 => quote!(f32),
        Ty::F64 => quote!(f64),
        Ty::String => quote!(String),
        Ty::DateTime => quote!(chrono::DateTime<chrono::Utc>),
        Ty::Date => quote!(chrono::NaiveDate),
        Ty::Uuid => quote!(uuid::Uuid),
        Ty::Base64 => quote!(runtime::Base64),
        Ty::Json => quote!(serde_json::Value),
        Ty::Bytes => quote!(Vec<u8>),
        Ty::Array(items) => {
            let items = rust_type(items, models);
            quote!(Vec<#items>)
        }
        Ty::Map(values) => {
            let values = rust_type(values, models);
            quote!(std::collections::BTreeMap<String, #values>)
        }
        Ty::Named(name) => {
            let name = ident(name);
            quote!(#models #name)
        }
    }
}

/// The responses in the order their statuses are matched: single codes,
/// then ranges (a code wins over its range), then `default`.
pub(crate) fn by_precedence(responses: &[Response]) -> Vec<&Response> {
    let mut ordered: Vec<&Response> = responses.iter().collect();
    ordered.sort_by_key(|r| match r.status {
        Status::Code(_) => 0,
        Status::Range(_) => 1,
        Status::Default => 2,
    });
    ordered
}

/// The match pattern for the statuses of a response (`404`, `400..=499`);
/// `None` for `default`, which takes what no pattern does.
pub(crate) fn status_pattern(status: Status) -> Option<String> {
    match status {
        Status::Code(code) => Some(code.to_string()),
        Status::Range(_) => {
            let range = status.range()?;
            Some(format!("{}..={}", range.start(), range.end()))
        }
        Status::Default => None,
    }
}

/// Whether the Rust type of a shape names a type of the runtime.
pub(crate) fn uses_runtime(shape: &Shape) -> bool {
    match &shape.ty {
        Ty::Base64 => true,
        Ty::Array(inner) | Ty::Map(inner) => uses_runtime(inner),
        _ => false,
    }
}

/// An expression of type `Result<(), runtime::Violation>` checking the value
/// `value` (an expression of type `&T`) against the shape's bounds, or `None`
/// when there is nothing to check.
pub(crate) fn check_expr(value: &str, shape: &Shape, api: &Api) -> Option<Expr> {
    let c = &shape.checks;
    let call = |callee: &str, args: Vec<String>| {
        Expr::call(callee, args.into_iter().map(Expr::Text).collect(), "")
    };
    let mut checks: Vec<Expr> = Vec::new();
    match &shape.ty {
        Ty::String => {
            if c.min_length.is_some() || c.max_length.is_some() {
                let (min, max) = (opt_usize(c.min_length), opt_usize(c.max_length));
                checks.push(call("runtime::check_length", vec![value.into(), min, max]));
            }
            if let Some(pattern) = &c.pattern {
                let regex = format!(
                    "|| regex::Regex::new({}).expect(\"the generator checked the pattern\")",
                    text::string_literal(pattern)
                );
                let lazy = Expr::Stmt(
                    "static PATTERN: std::sync::LazyLock<regex::Regex> = ".into(),
                    Box::new(call("std::sync::LazyLock::new", vec![regex])),
                    ";",
                );
                checks.push(Expr::Block(
                    vec![lazy],
                    Box::new(call(
                        "runtime::check_pattern",
                        vec![value.into(), "&PATTERN".into()],
                    )),
                ));
            }
            if let Some(excluded) = excluded(&c.not_in, |v| v.as_str().map(text::string_literal)) {
                checks.push(call(
                    "runtime::check_not_one_of::<str>",
                    vec![value.into(), format!("&[{}]", excluded.join(", "))],
                ));
            }
            match c.format {
                Some(crate::ir::TextFormat::Email) => {
                    checks.push(call("runtime::check_email", vec![value.into()]));
                }
                Some(crate::ir::TextFormat::Uri) => {
                    checks.push(call("runtime::check_uri", vec![value.into()]));
                }
                Some(crate::ir::TextFormat::Duration) => {
                    checks.push(call("runtime::check_duration", vec![value.into()]));
                }
                None => {}
            }
        }
        Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 => {
            let min = bound(c.minimum, c.exclusive_minimum, &shape.ty, Side::Min);
            let max = bound(c.maximum, c.exclusive_maximum, &shape.ty, Side::Max);
            if min.is_some() || max.is_some() {
                let unbounded = || "runtime::Bound::Unbounded".to_string();
                let (min, max) = (min.unwrap_or_else(unbounded), max.unwrap_or_else(unbounded));
                checks.push(call("runtime::check_range", vec![value.into(), min, max]));
            }
            let integer = matches!(shape.ty, Ty::I32 | Ty::I64);
            let number = |v: &serde_json::Value| {
                let n = v.as_i64().filter(|_| integer)?;
                let n = match shape.ty {
                    Ty::I32 => i32::try_from(n).ok()?.to_string(),
                    _ => n.to_string(),
                };
                Some(format!("&{n}"))
            };
            if let Some(excluded) = excluded(&c.not_in, number) {
                checks.push(call(
                    "runtime::check_not_one_of",
                    vec![value.into(), format!("&[{}]", excluded.join(", "))],
                ));
            }
            let allowed: Vec<String> = c
                .one_of
                .iter()
                .filter_map(|n| number(&serde_json::Value::from(*n)))
                .collect();
            if !allowed.is_empty() {
                checks.push(call(
                    "runtime::check_one_of",
                    vec![value.into(), format!("&[{}]", allowed.join(", "))],
                ));
            }
        }
        Ty::Array(items) => {
            if c.min_items.is_some() || c.max_items.is_some() {
                let (min, max) = (opt_usize(c.min_items), opt_usize(c.max_items));
                checks.push(call(
                    "runtime::check_items",
                    vec![format!("Vec::len({value})"), min, max],
                ));
            }
            if let Some(item) = check_fn("item", items, api) {
                checks.push(Expr::call(
                    "runtime::check_each",
                    vec![Expr::text(value), item],
                    "",
                ));
            }
        }
        Ty::Map(values) => {
            if let Some(item) = check_fn("value", values, api) {
                checks.push(Expr::call(
                    "runtime::check_values",
                    vec![Expr::text(value), item],
                    "",
                ));
            }
        }
        Ty::Named(name) => match api.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Enum(_)) => {}
            // An alias has no impl of its own: check what it names.
            Some(TypeKind::Alias(_)) => {
                return resolve_alias(name, api).and_then(|inner| check_expr(value, inner, api));
            }
            _ if api.checked.contains(name) => {
                checks.push(call("runtime::Validate::validate", vec![value.into()]));
            }
            _ => {}
        },
        Ty::Bool | Ty::DateTime | Ty::Date | Ty::Uuid | Ty::Base64 | Ty::Json | Ty::Bytes => {}
    }
    let mut checks = checks.into_iter();
    let first = checks.next()?;
    Some(checks.fold(first, |acc, next| {
        acc.then_expr(Expr::call(
            ".and_then",
            vec![Expr::Closure("|()|".into(), Box::new(next))],
            "",
        ))
    }))
}

/// A `Validate` impl for `name` under `cfg` running `checks` (statements
/// returning a violation), as text.
pub(crate) fn validate_impl(name: &str, cfg: &TokenStream, checks: &[Expr]) -> String {
    let mut out = format!(
        "{}impl runtime::Validate for {name} {{\n    \
         fn validate(&self) -> Result<(), runtime::Violation> {{\n",
        text::cfg_line(cfg)
    );
    for check in checks {
        check.write(&mut out, 8, "", "");
    }
    out.push_str("        Ok(())\n    }\n}\n");
    out
}

/// The excluded values as literals, when every one of them has the
/// value's type (`None` when there are none, or one does not).
fn excluded(
    values: &[serde_json::Value],
    literal: impl Fn(&serde_json::Value) -> Option<String>,
) -> Option<Vec<String>> {
    let literals: Option<Vec<String>> = values.iter().map(literal).collect();
    literals.filter(|l| !l.is_empty())
}

/// What a chain of aliases finally names; `None` for a cycle of aliases.
fn resolve_alias<'a>(name: &str, api: &'a Api) -> Option<&'a Shape> {
    let mut current = name;
    for _ in 0..64 {
        match &api.types.get(current)?.kind {
            TypeKind::Alias(shape) => match &shape.ty {
                Ty::Named(next)
                    if matches!(
                        api.types.get(next).map(|t| &t.kind),
                        Some(TypeKind::Alias(_))
                    ) =>
                {
                    current = next;
                }
                _ => return Some(shape),
            },
            _ => return None,
        }
    }
    None
}

/// A function checking one value of the shape, for `check_each`, `check_values`
/// and `check_some`: `Validate::validate` itself when that is all there is to
/// check, else a closure over `var`.
pub(crate) fn check_fn(var: &str, shape: &Shape, api: &Api) -> Option<Expr> {
    let body = check_expr(var, shape, api)?;
    if body.flat().as_deref() == Some(&format!("runtime::Validate::validate({var})")) {
        Some(Expr::text("runtime::Validate::validate"))
    } else {
        Some(Expr::Closure(format!("|{var}|"), Box::new(body)))
    }
}

fn opt_usize(v: Option<usize>) -> String {
    match v {
        Some(v) => format!("Some({v})"),
        None => "None".to_string(),
    }
}

/// Which end of a range a bound closes.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Min,
    Max,
}

/// A `runtime::Bound` for `check_range`, or `None` when the bound cannot be
/// broken by any value of the type (an int32 field with a maximum beyond
/// `i32::MAX`, say).
fn bound(n: Option<Number>, exclusive: bool, ty: &Ty, side: Side) -> Option<String> {
    let integer = matches!(ty, Ty::I32 | Ty::I64);
    let (text, exclusive) = match (n?, ty) {
        // A bound at the type's own limit cannot be broken: no check.
        (Number::Int(i), Ty::I32) if i >= i64::from(i32::MAX) || i <= i64::from(i32::MIN) => {
            return None
        }
        (Number::Int(i), Ty::I64) if i == i64::MAX || i == i64::MIN => return None,
        (Number::Int(i), Ty::I32) => (i32::try_from(i).ok()?.to_string(), exclusive),
        (Number::Int(i), Ty::I64) => (i.to_string(), exclusive),
        // A fractional bound on an integer: the nearest integer inside it,
        // included whether the bound was or not (`> 1.5` is `>= 2`).
        (Number::Float(f), _) if integer && f.fract() != 0.0 => {
            let inside = if side == Side::Min {
                f.ceil()
            } else {
                f.floor()
            } as i64;
            let inside = match ty {
                Ty::I32 => i32::try_from(inside).ok()?.to_string(),
                _ => inside.to_string(),
            };
            (inside, false)
        }
        (Number::Float(f), Ty::I32) => (i32::try_from(f as i64).ok()?.to_string(), exclusive),
        (Number::Float(f), Ty::I64) => ((f as i64).to_string(), exclusive),
        (Number::Int(i), _) => (format!("{:?}", i as f64), exclusive),
        (Number::Float(f), _) => (format!("{f:?}"), exclusive),
    };
    Some(if exclusive {
        format!("runtime::Bound::Excluded({text})")
    } else {
        format!("runtime::Bound::Included({text})")
    })
}

/// A numeric literal, negative ones included.
fn number(text: &str) -> TokenStream {
    text.parse()
        .expect("a formatted number is a valid token stream")
}

/// An expression for a JSON default value in a position of the given shape,
/// when the value is a literal Rust can write directly.
pub(crate) fn default_expr(
    value: &serde_json::Value,
    shape: &Shape,
    api: &Api,
    models: &TokenStream,
) -> Option<TokenStream> {
    use serde_json::Value;
    Some(match (&shape.ty, value) {
        (Ty::Bool, Value::Bool(b)) => quote!(#b),
        (Ty::I32, Value::Number(n)) => number(&i32::try_from(n.as_i64()?).ok()?.to_string()),
        (Ty::I64, Value::Number(n)) => number(&n.as_i64()?.to_string()),
        (Ty::F32 | Ty::F64, Value::Number(n)) => number(&format!("{:?}", n.as_f64()?)),
        (Ty::String, Value::String(s)) => quote!(#s.to_string()),
        (Ty::Named(name), Value::String(s)) => {
            let def = crate::lower::resolve(&api.types, name)?;
            match &def.kind {
                TypeKind::Enum(variants) => {
                    let variant = ident(&variants.iter().find(|v| &v.wire == s)?.rust);
                    let name = ident(&def.name);
                    quote!(#models #name::#variant)
                }
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Whether a header's type reads from text with `FromStr` (scalars and
/// string enums), rather than in a style.
pub(crate) fn scalar_header(api: &Api, shape: &Shape) -> bool {
    match &shape.ty {
        Ty::Array(_) | Ty::Map(_) | Ty::Json | Ty::Bytes => false,
        Ty::Named(n) => matches!(
            crate::lower::resolve(&api.types, n).map(|t| &t.kind),
            Some(TypeKind::Enum(_))
        ),
        _ => true,
    }
}
