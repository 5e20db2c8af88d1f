//! A crate of its own for any document: what `apigen generate` writes, and
//! what `apigen generate --check` compares a directory with.
//!
//! The crate builds without this repository: the runtime's sources are
//! written beside the generated code (`src/generated/runtime/`), or it
//! depends on the `apigen-runtime` crate at this generator's version
//! ([`RuntimeSource`]); its manifest names every dependency, and its crate
//! docs show, as doc tests that compile, how to implement the route traits
//! and mount them in an actix-web `App`, and how to call an operation with
//! the client.

use crate::emit::text;
use crate::ir::{Api, Operation};
use crate::ir::{ALL_GROUPS, OTHER_MODELS};
use crate::{Config, Diagnostics, Files, Generated};
use std::fmt::Write as _;
use std::path::Path;

/// What goes into a standalone crate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The crate's name; `None` for one made from `info.title`.
    pub name: Option<String>,
    /// Features on by default: the server glue, the client. Neither given:
    /// the server, as for any generated crate.
    pub server: bool,
    pub client: bool,
    /// Report constructs the generator cannot express instead of leaving
    /// them out.
    pub strict: bool,
    /// Check `format: email` and `format: uri`.
    pub check_formats: bool,
    /// Serde impls only for the sides that use them
    /// ([`crate::Config::serde_sides`]).
    pub serde_sides: bool,
    /// Where the crate finds the runtime: its own copy (the default), or
    /// the `apigen-runtime` crate.
    pub runtime: RuntimeSource,
}

/// Where a generated crate finds the runtime. On the `apigen-runtime`
/// crate, crates generated side by side compile the runtime once between
/// them, not once each, and a fix to the runtime reaches them without
/// generating them again. The generated code is the same either way but
/// for the module that names the runtime; the manifest adds the
/// dependency, with each of the runtime's features turning on the
/// runtime's own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RuntimeSource {
    /// The runtime's sources carried in the crate (`src/generated/runtime/`):
    /// it builds with nothing but crates.io.
    #[default]
    Vendored,
    /// `apigen-runtime` from crates.io at this generator's version, as a
    /// caret requirement ([`runtime_requirement`]): any later release of
    /// the same minor version (`0.1.x` for `0.1.0`), which keeps the
    /// plumbing generated code calls.
    Registry,
    /// The `apigen-runtime` crate at this path (of this generator's
    /// version).
    Path(std::path::PathBuf),
}

/// The version requirement on `apigen-runtime` of a crate generated on it:
/// this generator's own version, read as a caret requirement. The runtime
/// and the generator are released together at one version; the runtime's
/// plumbing changes only with its minor version (see
/// [`crate::vocabulary::PLUMBING`], which the crate also checks at compile
/// time), so every runtime this admits has what the crate calls.
pub fn runtime_requirement() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// A crate: its files by path relative to its directory, and what the
/// generator said.
#[derive(Debug, Clone)]
pub struct Crate {
    pub name: String,
    pub files: Files,
    /// What the generator said; its files are moved into [`Crate::files`].
    pub generated: Generated,
}

impl Crate {
    /// The line a tool prints once the crate is written to `out`.
    pub fn summary(&self, out: &Path) -> String {
        let g = &self.generated;
        format!(
            "wrote crate `{}` to {}: {} operations, {} types, {} skipped",
            self.name,
            out.display(),
            g.operations(),
            g.types(),
            g.skipped.len()
        )
    }
}

/// A crate name made from a title: lower case, words joined by `-`,
/// starting with a letter (`Swagger Petstore - OpenAPI 3.0` gives
/// `swagger-petstore-openapi-3-0`).
pub fn crate_name(title: &str) -> String {
    let mut name = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_end_matches('-').to_string();
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => name,
        Some(_) => format!("api-{name}"),
        None => "api".to_string(),
    }
}

/// Generates the crate for the document at `spec`. `command` is the
/// command that regenerates it, named in every file's preamble.
pub fn generate(spec: &Path, options: &Options, command: &str) -> Result<Crate, Diagnostics> {
    let config = Config {
        command: command.to_string(),
        source: spec.display().to_string(),
        lenient: !options.strict,
        check_formats: options.check_formats,
        runtime: match options.runtime {
            RuntimeSource::Vendored => crate::Runtime::Vendored,
            RuntimeSource::Registry | RuntimeSource::Path(_) => crate::Runtime::Crate,
        },
        group_features: true,
        serde_sides: options.serde_sides,
    };
    let mut generated = crate::generate_file(spec, &config)?;
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| crate_name(&generated.api.title));
    // Decided once (it walks every type from every group): the manifest
    // declares these features and the crate docs list them.
    let features = group_features(&generated.api);
    let mut files = Files::new();
    files.insert("Cargo.toml".into(), manifest(&name, options, &features));
    let source = &config.source;
    let lib = lib_rs(&generated.api, &features, &name, options, command, source);
    files.insert("src/lib.rs".into(), lib);
    // Moved, not copied: a large document's crate is hundreds of MB.
    for (path, contents) in std::mem::take(&mut generated.files) {
        files.insert(format!("src/generated/{path}"), contents);
    }
    if options.runtime == RuntimeSource::Vendored {
        files.insert("macros/Cargo.toml".into(), macros_manifest(&name));
        for (file, source) in crate::emit::vendor::MACRO_SOURCES {
            let text = crate::emit::vendor::text(file, source);
            files.insert(format!("macros/src/{file}"), text.into_owned());
        }
    }
    Ok(Crate {
        name,
        files,
        generated,
    })
}

/// The features of a group of operations: each group's, the one for the
/// types no operation reaches when there are any, and the one that turns
/// them all on.
pub(crate) fn group_features(api: &Api) -> Vec<(String, Vec<String>)> {
    let mut features: Vec<(String, Vec<String>)> = api
        .traits
        .iter()
        .map(|t| (t.feature.clone(), Vec::new()))
        .collect();
    if api.has_other_models() {
        features.push((OTHER_MODELS.to_string(), Vec::new()));
    }
    let all = features.iter().map(|(name, _)| name.clone()).collect();
    features.push((ALL_GROUPS.to_string(), all));
    features
}

/// The end of the server example in the crate docs: the rejections and a
/// `main` serving the routes and the reference page.
const SERVER_EXAMPLE_MAIN: &str = include_str!("templates/server_example_main.rs.in");
/// The crate docs' account of serving on axum.
const AXUM_EXAMPLE: &str = include_str!("templates/axum_example.md.in");
/// The crate docs' section on the mock server.
const MOCK_EXAMPLE: &str = include_str!("templates/mock_example.md.in");
/// The manifest of `apigen mock`'s server.
const MOCK_SERVER_MANIFEST: &str = include_str!("templates/mock_server_Cargo.toml.in");
/// `apigen mock`'s server: the mock of the crate, on the address and with
/// the seed it is given.
const MOCK_SERVER_MAIN: &str = include_str!("templates/mock_server_main.rs.in");

/// The manifest's `serialize` and `deserialize` features of a crate whose
/// models implement serde's traits only where a side uses them
/// (`--serde-sides`), with the comment that says what they do
/// ([`crate::ir::Api::senders`]). A crate generated without that option
/// implements both on every model and has no such features.
const SERDE_FEATURES: &str = "\
# Without these, a model implements `Serialize` only where an enabled side
# writes it (a client its requests, a server its responses) and
# `Deserialize` only where one reads it, and a model no operation uses
# neither: to store or log a client's responses, say, turn on `serialize`.
serialize = []
deserialize = []
";

fn manifest(name: &str, options: &Options, features: &[(String, Vec<String>)]) -> String {
    let macros = format!("{{ path = \"macros\", package = \"{name}-macros\" }}");
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n{}",
        manifest_sections(options, features, &macros)
    )
}

/// The derives' crate as a crate that vendors the runtime without a copy
/// of them depends on it (one generated at build time, whose `OUT_DIR`
/// cannot hold a package): from the registry, at this generator's
/// version, as the runtime it vendors expands them.
pub(crate) fn macros_on_registry() -> String {
    format!("{{ version = \"={}\" }}", env!("CARGO_PKG_VERSION"))
}

/// The manifest of the derives' crate a vendoring crate carries at
/// `macros/`, named after it (a workspace of several such crates holds
/// one of each).
fn macros_manifest(name: &str) -> String {
    format!(
        "[package]\nname = \"{name}-macros\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\
         description = \"The derives of {name}'s models: a copy of apigen-macros {}\"\n\n\
         [lib]\nproc-macro = true\n\n{}",
        env!("CARGO_PKG_VERSION"),
        crate::emit::vendor::macro_dependencies()
    )
}

/// The `[features]` and `[dependencies]` of a crate holding the generated
/// code ([`crate::build`] asks a build script's crate for them): the
/// runtime's, the default ones, one per group of operations
/// ([`group_features`]). A crate that vendors the runtime depends on the
/// derives' crate as `macros` says (a crate on the runtime gets them
/// through it).
pub(crate) fn manifest_sections(
    options: &Options,
    features: &[(String, Vec<String>)],
    macros: &str,
) -> String {
    let mut defaults: Vec<&str> = match (options.server, options.client) {
        (false, false) | (true, false) => vec!["server"],
        (false, true) => vec!["client"],
        (true, true) => vec!["server", "client"],
    };
    defaults.push(ALL_GROUPS);
    let quoted = |names: &mut dyn Iterator<Item = &str>| {
        names
            .map(|f| format!("\"{f}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let default = format!("default = [{}]\n", quoted(&mut defaults.iter().copied()));
    let mut groups = String::new();
    if options.serde_sides {
        groups.push_str(SERDE_FEATURES);
    }
    groups.push_str("# One feature per group of operations; see the crate docs.\n");
    for (feature, enables) in features {
        let _ = writeln!(
            groups,
            "{feature} = [{}]",
            quoted(&mut enables.iter().map(String::as_str))
        );
    }
    let vendored = crate::emit::vendor::manifest_dependencies();
    let dependencies = match &options.runtime {
        RuntimeSource::Vendored => vendored.replacen(
            "[dependencies]\n",
            &format!("[dependencies]\napigen-macros = {macros}\n"),
            1,
        ),
        RuntimeSource::Registry => on_runtime_crate(
            vendored,
            &format!("version = {}", toml_string(runtime_requirement())),
        ),
        RuntimeSource::Path(path) => on_runtime_crate(
            vendored,
            &format!("path = {}", toml_string(&path.display().to_string())),
        ),
    };
    // The mock implements every route trait, so it needs every group.
    dependencies
        .replacen("default = [\"server\"]\n", &default, 1)
        .replacen("mock = [", &format!("mock = [\"{ALL_GROUPS}\", "), 1)
        .replacen("\n[dependencies]", &format!("{groups}\n[dependencies]"), 1)
}

/// The vendoring manifest's features and dependencies (`vendored`) for a
/// crate that depends on the runtime crate instead, found at `source` (a
/// `version = ...` or a `path = ...`): the dependency added, and each of
/// the runtime's features (every feature but `default` there) turning on
/// the runtime's own as well. The runtime's dependencies stay declared, as
/// the generated code uses some of them directly, with the same features,
/// so they are built once.
fn on_runtime_crate(vendored: &str, source: &str) -> String {
    let mut out = String::new();
    let mut in_features = false;
    for line in vendored.lines() {
        if line.starts_with('[') {
            in_features = line == "[features]";
        }
        match line.split_once(" = [") {
            Some((feature, rest)) if in_features && feature != "default" => {
                let others = if rest == "]" { "" } else { ", " };
                let _ = writeln!(
                    out,
                    "{feature} = [\"apigen-runtime/{feature}\"{others}{rest}"
                );
            }
            _ if line == "[dependencies]" => {
                let _ = writeln!(
                    out,
                    "{line}\napigen-runtime = {{ {source}, default-features = false }}"
                );
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// `text` as a TOML basic string: quoted, with backslashes, quotes and
/// control characters escaped (Rust's `{:?}` would write `\u{301}`,
/// which TOML does not read).
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The crate root: docs that say what the crate is and how to use it, with
/// examples that compile, and the generated modules.
fn lib_rs(
    api: &Api,
    features: &[(String, Vec<String>)],
    name: &str,
    options: &Options,
    command: &str,
    source: &str,
) -> String {
    let path = name.replace('-', "_");
    let mut docs = format!("{} {}\n\n", api.title, api.version);
    if let Some(description) = api.description.as_deref().map(str::trim) {
        if let Some(first) = description.split("\n\n").next() {
            docs.push_str(first);
            docs.push_str("\n\n");
        }
    }
    let _ = writeln!(
        docs,
        "Generated from `{source}` by `{command}`; regenerate it the same way, \
         and check it is current with `--check` (in CI, say). `DOCS_HTML` is the API's \
         reference page (`src/generated/docs.html`), one self-contained HTML file."
    );
    docs.push_str(&features_section(api, features, options.serde_sides));
    let server = options.server || !options.client;
    if server && !api.operations.is_empty() {
        docs.push_str(&server_example(api, &path));
    }
    if options.client && !api.operations.is_empty() {
        docs.push_str(&client_example(api, &path));
        docs.push_str(&paging_example(api, &path));
        docs.push_str(&events_example(api, &path));
    }
    if !api.operations.is_empty() {
        docs.push_str(&mock_example(&path));
    }
    if !api.webhooks.is_empty() {
        docs.push_str(
            "\nThe API also sends webhooks: the `webhooks` module has a receiver (its \
             route trait `webhooks::operations::Receiver`, served as the API is) and a \
             sender (`webhooks::client::Client`, whose base URL is the subscriber's); \
             `metadata::WEBHOOKS` lists them.\n",
        );
    }
    let mut out = String::new();
    for line in docs.lines() {
        if line.is_empty() {
            out.push_str("//!\n");
        } else {
            let _ = writeln!(out, "//! {line}");
        }
    }
    out.push_str("\n#[rustfmt::skip]\nmod generated;\n\npub use generated::*;\n");
    out
}

/// The crate docs' account of its features: `server`, `client`, and one
/// per group of operations with the operations it compiles in.
fn features_section(api: &Api, features: &[(String, Vec<String>)], serde_sides: bool) -> String {
    let mut out = String::from(
        "\n# Features\n\n`server` compiles the actix-web glue, `axum` the axum glue (both serve \
         one framework-neutral glue, `serving`), `client` a typed client. Each \
         group of operations (a route trait) is a feature of its own, compiling in its \
         operations and the types they use; `all-groups` (on by default) turns every one \
         on. A build that needs a few groups turns the default features off and names \
         them, `features = [\"client\", \"GROUP\"]`, and compiles nothing else.\n\n",
    );
    out.push_str(if serde_sides {
        "A model implements `Serialize` where an enabled side writes it (a client its \
         requests, a server its responses) and `Deserialize` where one reads it; \
         `serialize` and `deserialize` implement them on every model (to store or log \
         a client's responses, say), and are what implements them on the models no \
         operation uses. Webhook payloads go as responses do.\n\n"
    } else {
        "Every model implements `Serialize` and `Deserialize` whichever features are on, \
         so a program can store, log or forward what it reads.\n\n"
    });
    for (t, ops) in api.traits.iter().zip(api.operations_by_group()) {
        let summary = crate::emit::group_summary(t, &ops);
        let names: Vec<String> = ops.iter().map(|op| format!("`{}`", op.fn_name)).collect();
        let _ = writeln!(
            out,
            "- `{}` ({summary}, trait `{}`): {}",
            t.feature,
            t.name,
            names.join(", ")
        );
    }
    if features.iter().any(|(f, _)| f == OTHER_MODELS) {
        let _ = writeln!(
            out,
            "- `{OTHER_MODELS}`: the models no operation uses (the document's other schemas)"
        );
    }
    out
}

/// The signature of a route trait method, as an implementation spells it.
fn method(op: &Operation) -> String {
    format!(
        "    async fn {}(&self, _request: operations::{}Request, _context: runtime::RequestContext) -> Result<operations::{}Response, operations::ErrorResponse> {{ todo!() }}",
        op.fn_name, op.type_name, op.type_name
    )
}

fn server_example(api: &Api, path: &str) -> String {
    let mut out = String::from(
        "\n# Serving it\n\nImplement each route trait (one per tag) for your service, say how \
         refusals look (`server::Rejections`), and mount the routes in an actix-web `App`:\n\n\
         ```no_run\n",
    );
    let _ = writeln!(
        out,
        "use {path}::{{operations, runtime, server, DOCS_HTML}};"
    );
    out.push_str("use actix_web::{web, App, HttpServer};\n\nstruct Service;\n");
    for t in &api.traits {
        if api.operations.iter().any(|op| op.group == t.group) {
            if t.name != api.traits[0].name {
                out.push('\n');
            }
            let _ = writeln!(out, "\nimpl operations::{} for Service {{", t.name);
            for op in api.operations.iter().filter(|op| op.group == t.group) {
                if op.deprecated {
                    out.push_str("    #[allow(deprecated)]\n");
                }
                let _ = writeln!(out, "{}", method(op));
            }
            out.push_str("}\n");
        }
    }
    out.push_str(SERVER_EXAMPLE_MAIN);
    out.push_str(&axum_example(api, path));
    out
}

/// The crate docs' account of serving on axum: the same implementation
/// as a router (compiled where the `axum` feature is on).
fn axum_example(api: &Api, path: &str) -> String {
    let mut bounds: Vec<String> = api
        .traits
        .iter()
        .map(|t| format!("operations::{}", t.name))
        .collect();
    bounds.push("axum_glue::Rejections".into());
    text::fill(
        AXUM_EXAMPLE,
        &[("path", path), ("bounds", &bounds.join(" + "))],
    )
}

/// Whether an operation's request can be made with `Default::default()`.
fn defaultable(op: &Operation) -> bool {
    op.params.iter().all(|p| !p.required) && op.body.as_ref().is_none_or(|b| !b.required)
}

/// The request an example sends to `op`: the default one, or a `todo!`
/// where the request needs values only the reader knows.
fn example_request(op: &Operation) -> String {
    if defaultable(op) {
        format!("operations::{}Request::default()", op.type_name)
    } else {
        format!("todo!(\"a {}Request\")", op.type_name)
    }
}

fn client_example(api: &Api, path: &str) -> String {
    // An operation whose request needs nothing, when there is one.
    let op = api
        .operations
        .iter()
        .find(|op| defaultable(op))
        .unwrap_or(&api.operations[0]);
    let request = example_request(op);
    let mut out = String::from(
        "\n# Calling it\n\nThe client has a method per operation, taking its request and \
         answering its response enum:\n\n```no_run\n",
    );
    let _ = writeln!(out, "use {path}::{{client, operations}};\n");
    out.push_str("# async fn example() -> Result<(), Box<dyn std::error::Error>> {\n");
    out.push_str("let client = client::Client::new(\"https://api.example.com\")?;\n");
    if op.deprecated {
        out.push_str("#[allow(deprecated)]\n");
    }
    let _ = writeln!(
        out,
        "let reply = client.{}({request}).await?;\nprintln!(\"{{:?}}\", reply.into_inner());\n# Ok(())\n# }}\n```",
        op.fn_name
    );
    out
}

/// The example of a paging operation's item stream, when the API has one.
fn paging_example(api: &Api, path: &str) -> String {
    let Some(op) = api.operations.iter().find(|op| op.paging.is_some()) else {
        return String::new();
    };
    let mut out = String::from(
        "\n# Paging\n\nAn operation that pages has two more methods: `<op>_items`, a stream \
         of every item, fetching the next page when it needs it, and `<op>_pages`, of every \
         page as its typed response:\n\n```no_run\n",
    );
    let _ = writeln!(
        out,
        "use {path}::{{client, operations, runtime::StreamExt as _}};\n"
    );
    out.push_str("# async fn example() -> Result<(), Box<dyn std::error::Error>> {\n");
    out.push_str("let client = client::Client::new(\"https://api.example.com\")?;\n");
    if op.deprecated {
        out.push_str("#[allow(deprecated)]\n");
    }
    let _ = writeln!(
        out,
        "let mut items = std::pin::pin!(client.{}_items({}));\n\
         while let Some(item) = items.next().await {{\n    println!(\"{{:?}}\", item?);\n}}\n\
         # Ok(())\n# }}\n```",
        op.fn_name,
        example_request(op)
    );
    out
}

/// The example of a stream (of events, or of items), when the API has an
/// operation that streams.
fn events_example(api: &Api, path: &str) -> String {
    let stream = api.operations.iter().find_map(|op| {
        op.responses
            .iter()
            .find(|r| r.media.streams())
            .map(|r| (op, r))
    });
    let Some((op, r)) = stream else {
        return String::new();
    };
    let (intro, method, (all, one), print) = match &r.media {
        crate::ir::Media::Items(media) => (
            format!(
                "\n# Item streams\n\nAn operation answering `{media}` (or another \
                 sequential media type but `text/event-stream`) has `<op>_stream`, a \
                 stream of typed items, each read as soon as its bytes arrive:\n\n```no_run\n"
            ),
            "stream",
            ("items", "item"),
            "Ok(item) => println!(\"{item:?}\"),",
        ),
        _ => (
            "\n# Event streams\n\nAn operation answering `text/event-stream` has \
             `<op>_events`, a stream of typed events read as they arrive (a `GET` \
             reconnects with `Last-Event-ID` when the connection drops):\n\n```no_run\n"
                .to_string(),
            "events",
            ("events", "event"),
            "Ok(event) => println!(\"{:?}: {:?}\", event.id, event.data),",
        ),
    };
    let mut out = intro;
    let _ = writeln!(
        out,
        "use {path}::{{client, operations, runtime::StreamExt as _}};\n"
    );
    out.push_str("# async fn example() -> Result<(), Box<dyn std::error::Error>> {\n");
    out.push_str("let client = client::Client::new(\"https://api.example.com\")?;\n");
    if op.deprecated {
        out.push_str("#[allow(deprecated)]\n");
    }
    let _ = writeln!(
        out,
        "let mut {all} = std::pin::pin!(client.{}_{method}({}));\n\
         while let Some({one}) = {all}.next().await {{\n    \
         match {one} {{\n        \
         {print}\n        \
         Err(e) => {{\n            eprintln!(\"{{e}}\");\n            break;\n        }}\n    \
         }}\n}}\n\
         # Ok(())\n# }}\n```",
        op.fn_name,
        example_request(op)
    );
    out
}

fn mock_example(path: &str) -> String {
    text::fill(MOCK_EXAMPLE, &[("path", path)])
}

/// The workspace `apigen mock` builds: the crate at `api/`, and at
/// `server/` a binary serving its `mock` feature on the address, with the
/// seed and on the framework (actix-web or axum) it is given; built once,
/// run as it is (no debug info, no incremental state).
pub fn mock_workspace(api: &Crate) -> Files {
    let krate = &api.name;
    let path = krate.replace('-', "_");
    let mut files: Files = api
        .files
        .iter()
        .map(|(name, text)| (format!("api/{name}"), text.clone()))
        .collect();
    files.insert(
        "Cargo.toml".into(),
        "[workspace]\nresolver = \"2\"\nmembers = [\"api\", \"server\"]\n\n\
         [profile.dev]\ndebug = false\nincremental = false\n"
            .into(),
    );
    files.insert(
        "server/Cargo.toml".into(),
        text::fill(MOCK_SERVER_MANIFEST, &[("krate", krate)]),
    );
    files.insert(
        "server/src/main.rs".into(),
        text::fill(MOCK_SERVER_MAIN, &[("krate", krate), ("path", &path)]),
    );
    files
}

/// Writes the crate into `dir`: every file, and the removal of generated
/// files no longer generated (see [`crate::sync`]).
pub fn write(dir: &Path, files: &Files) -> Result<(), String> {
    crate::sync::sync(dir, files, "src/generated", crate::sync::Mode::Write).map(drop)
}

/// Compares `dir` with the crate: every file that differs, is missing, or
/// is a generated file no longer generated.
pub fn check(dir: &Path, files: &Files) -> Result<Vec<crate::sync::Stale>, String> {
    crate::sync::sync(dir, files, "src/generated", crate::sync::Mode::Check)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crate_on_the_runtime_crate_turns_on_the_runtimes_features() {
        let vendored: toml::Table = crate::emit::vendor::manifest_dependencies()
            .parse()
            .unwrap();
        let text = on_runtime_crate(
            crate::emit::vendor::manifest_dependencies(),
            "path = \"/src/apigen-runtime\"",
        );
        let on_crate: toml::Table = text.parse().unwrap();
        let runtime = &on_crate["dependencies"]["apigen-runtime"];
        assert_eq!(runtime["path"].as_str(), Some("/src/apigen-runtime"));
        assert_eq!(runtime["default-features"].as_bool(), Some(false));
        // Every dependency stays as it was, beside the runtime crate.
        for (name, dep) in vendored["dependencies"].as_table().unwrap() {
            assert_eq!(on_crate["dependencies"].get(name), Some(dep), "{name}");
        }
        let features = on_crate["features"].as_table().unwrap();
        let before = vendored["features"].as_table().unwrap();
        assert_eq!(features.len(), before.len());
        for (name, enables) in before {
            let enables = enables.as_array().unwrap();
            let now = features[name].as_array().unwrap();
            if name == "default" {
                assert_eq!(now, enables);
            } else {
                let runtime = toml::Value::String(format!("apigen-runtime/{name}"));
                assert_eq!(now[0], runtime, "{name}");
                assert_eq!(&now[1..], &enables[..], "{name}");
            }
        }
    }

    /// `--runtime crate` asks crates.io for the runtime at the generator's
    /// version, which is the runtime's own: the two are released together.
    #[test]
    fn a_crate_on_the_registry_asks_for_the_runtime_of_its_generator() {
        let options = Options {
            runtime: RuntimeSource::Registry,
            ..Options::default()
        };
        let on_crate: toml::Table = manifest("api", &options, &[]).parse().unwrap();
        let runtime = &on_crate["dependencies"]["apigen-runtime"];
        assert_eq!(runtime["version"].as_str(), Some(runtime_requirement()));
        assert!(runtime.get("path").is_none());
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../apigen-runtime/Cargo.toml");
        let manifest: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
        assert_eq!(
            manifest["package"]["version"].as_str(),
            Some(env!("CARGO_PKG_VERSION")),
            "apigen-runtime's version is apigen's"
        );
    }

    #[test]
    fn a_runtime_path_is_written_as_toml_reads_it() {
        for path in [
            "/src/apigen-runtime",
            r"C:\src\apigen-runtime",
            "/a \"b\"/c\u{301}\t",
        ] {
            let options = Options {
                runtime: RuntimeSource::Path(path.into()),
                ..Options::default()
            };
            let text = manifest("api", &options, &[]);
            let on_crate: toml::Table = text.parse().unwrap();
            let runtime = &on_crate["dependencies"]["apigen-runtime"];
            assert_eq!(runtime["path"].as_str(), Some(path));
        }
    }

    #[test]
    fn crate_names_come_from_titles() {
        assert_eq!(
            crate_name("Swagger Petstore - OpenAPI 3.0"),
            "swagger-petstore-openapi-3-0"
        );
        assert_eq!(crate_name("Pet store"), "pet-store");
        assert_eq!(crate_name("3D Printing"), "api-3d-printing");
        assert_eq!(crate_name("  ¡Olé!  "), "ol");
        assert_eq!(crate_name("***"), "api");
    }

    /// The `serialize` and `deserialize` features, and the docs' words on
    /// serde, are a `--serde-sides` crate's alone: by default every model
    /// implements both, and the crate says so.
    #[test]
    fn only_a_side_only_crate_has_serde_features() {
        let spec = std::env::temp_dir().join(format!("apigen-serde-{}.yaml", std::process::id()));
        std::fs::write(
            &spec,
            "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      \
             operationId: getA\n      responses:\n        '200':\n          description: ok\n          \
             content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}\n\
             components:\n  schemas:\n    A: {type: object, properties: {b: {type: string}}}\n",
        )
        .unwrap();
        for serde_sides in [false, true] {
            let options = Options {
                server: true,
                client: true,
                serde_sides,
                ..Options::default()
            };
            let generated = generate(&spec, &options, "test").unwrap();
            let manifest = &generated.files["Cargo.toml"];
            let docs = &generated.files["src/lib.rs"];
            assert_eq!(
                manifest.contains("\nserialize = []\n"),
                serde_sides,
                "{manifest}"
            );
            assert_eq!(
                manifest.contains("\ndeserialize = []\n"),
                serde_sides,
                "{manifest}"
            );
            assert_eq!(
                docs.contains("Every model implements `Serialize` and `Deserialize`"),
                !serde_sides,
                "{docs}"
            );
            assert_eq!(
                docs.contains("where an enabled side writes it"),
                serde_sides
            );
        }
        std::fs::remove_file(spec).unwrap();
    }
}
