//! Emission: [`Api`] -> formatted Rust source files.
//!
//! Every item is written as text ([`text`]). Those that repeat per
//! operation or per type, and those of a fixed shape, are written already
//! formatted: fixed lines with `format!`, and expressions as `text::Expr`
//! (calls, method chains, struct literals, closures, blocks, `match`), which
//! lays itself out as rustfmt would: on one line when it fits 100 columns, else
//! broken at its method chain, then between a call's arguments. Items of a
//! fixed shape (a record's and a string enum's impls, `ErrorResponse`, the
//! client's head, the mock's service, the `mod.rs` files, the server module's
//! `configure`, the standalone crate's mock server and examples) are template
//! files beside their emitter, read with `include_str!` and filled by
//! `text::fill`, so they read as the code they write; those prettyplease once
//! printed keep its layout (its 89-column margin, `text::ITEM_WIDTH`). The few
//! items of an irregular shape (unions, a paging or streaming client method,
//! the axum router, the credential setters, a struct's default functions) are
//! written as unformatted text that prettyplease lays out (`render.rs`,
//! `text::Pieces::printed`). Either way the output is formatted and the same IR
//! always gives the same bytes.
//!
//! Every file that grows with the document is written in parts (a chunk of
//! operations; of types) on every core and joined (`jobs.rs`). Beside this
//! module, by concern: `render.rs` (text laid out by prettyplease), `gates.rs` (the
//! `cfg` of groups and sides), `validation.rs` (the `Validate` impls' checks),
//! `doc_comments.rs` and `literals.rs`. Each generated module's imports are
//! decided from the IR; generated code names runtime items by path
//! (`runtime::Validate`), so a schema called `Validate` or `Result` cannot
//! clash with them.
//!
//! The generated `mod.rs` holds the modules, `DOCS_HTML`, and `runtime`: the
//! runtime's public items and, hidden beside them, its `__private` plumbing,
//! which generated code calls; from the `apigen-runtime` crate, or, for a
//! crate that must build on its own, from the runtime's sources written
//! beside it (`Config::runtime`, `vendor.rs`). The route traits,
//! `into_http` and `server.rs` are behind the generated crate's `server`
//! feature (the default), `client.rs` behind `client`, so a crate that only
//! calls the API does not build actix-web, and one that only serves it does not
//! build reqwest.

mod axum;
mod client;
mod doc_comments;
pub mod docs;
mod gates;
mod glue;
mod jobs;
mod literals;
mod metadata;
mod method_docs;
mod mock;
mod models;
mod operations;
mod reading;
mod render;
mod server;
pub(crate) mod text;
mod validation;
pub mod vendor;

use gates::Gates;

use crate::ir::{Api, Response, Shape, Status, Ty, TypeKind};
use crate::{Config, Files};
use doc_comments::doc_lines;
use jobs::Jobs;
use proc_macro2::Ident;
use quote::format_ident;
use render::{in_block, module, preamble, render, space_items};

/// Types per job: models are written in chunks, on as many threads as the
/// machine has.
const TYPES_PER_JOB: usize = 400;
const OPERATIONS_PER_JOB: usize = 100;

/// Which modules a run of the emitter writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The API's own: models, operations, glue, routers, client, metadata,
    /// mock and reference page.
    Api,
    /// The `webhooks` module ([`crate::lower::receiver`]): the same
    /// modules for the webhooks, as operations that a receiver serves and
    /// a sender calls, but for the models (the API's) and the mock.
    Webhooks,
}

pub fn emit(api: &Api, config: &Config) -> Files {
    let mut files = emit_part(api, config, Part::Api);
    if let Some(receiver) = crate::lower::receiver(api) {
        for (name, text) in emit_part(&receiver, config, Part::Webhooks) {
            files.insert(format!("webhooks/{name}"), text);
        }
    }
    files
}

fn emit_part(api: &Api, config: &Config, part: Part) -> Files {
    let whole = part == Part::Api;
    // The webhooks are one group, compiled in with the models no group
    // reaches (see `mod_rs`).
    let gates = Gates::new(api, whole && config.group_features, config.serde_sides);
    let gates = &gates;
    // The webhooks module uses the API's models.
    let defs: Vec<&crate::ir::TypeDef> = match part {
        Part::Api => api.types.values().collect(),
        Part::Webhooks => Vec::new(),
    };
    let op_chunks: Vec<&[crate::ir::Operation]> =
        api.operations.chunks(OPERATIONS_PER_JOB).collect();
    let generated_by = format!("`{}` from {}", config.command, config.source);
    // Every file that grows with the document is rendered in parts, each
    // a job: parsing and printing a whole file of a large document at once
    // holds gigabytes of tokens, and leaves one core with most of the work.
    let mut jobs = Jobs::default();
    // The reference page first: it is one job, as long as several others.
    let docs_html = jobs.one(move || match part {
        Part::Api => docs::page(api, &generated_by),
        Part::Webhooks => String::new(),
    });
    let server_head = jobs.one(move || server::head(api, gates));
    let axum_rs = jobs.one(move || render(&axum::items(api, gates)));
    let handlers = jobs.each(&op_chunks, |chunk| glue::handlers(api, gates, chunk));
    let client_head = jobs.one(move || client::head(api, whole));
    let methods = jobs.each(&op_chunks, |chunk| client::methods(api, gates, chunk));
    let metadata_rs = jobs.one(move || metadata::items(api));
    let mock_rs = jobs.one(move || match part {
        Part::Api => mock::items(api),
        Part::Webhooks => String::new(),
    });
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
    match part {
        Part::Api => put("mod.rs", mod_rs(api, config), Vec::new()),
        Part::Webhooks => put("mod.rs", webhooks_mod_rs(api), Vec::new()),
    }
    if whole {
        put(
            "models.rs",
            module(models::DOC, &models::imports(api, gates), ""),
            done.take_each(models),
        );
    }
    let mut parts = vec![done.take(shared)];
    parts.extend(done.take_each(per_operation));
    put(
        "operations.rs",
        module(operations::DOC, &operations::imports(api, gates), ""),
        parts,
    );
    let mut parts = vec![format!("{}{}", glue::HEAD, glue::served(api, gates))];
    parts.extend(done.take_each(handlers));
    put(
        "glue.rs",
        module(glue::DOC, &glue::imports(api, gates), ""),
        parts,
    );
    put(
        "server.rs",
        module(server::DOC, &server::imports(api, gates), ""),
        vec![done.take(server_head)],
    );
    put(
        "axum.rs",
        module(axum::DOC, &axum::imports(api, gates), ""),
        vec![done.take(axum_rs)],
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
    let mock_rs = done.take(mock_rs);
    let docs_html = done.take(docs_html);
    if !whole {
        return files;
    }
    put(
        "mock.rs",
        module(mock::DOC, &mock::imports(api), ""),
        vec![mock_rs],
    );
    files.insert("docs.html".to_string(), docs_html);
    if config.runtime == crate::Runtime::Vendored {
        files.extend(vendored_runtime());
    }
    files
}

/// The runtime's sources as the generated `runtime` module's files.
fn vendored_runtime() -> impl Iterator<Item = (String, String)> {
    vendor::SOURCES.iter().map(|(name, source)| {
        (
            format!("runtime/{}", vendor::file_name(name)),
            vendor::text(name, source).into_owned(),
        )
    })
}

/// The generated `mod.rs`: the API's title and description, its modules.
/// The template is written as prettyplease prints items, one after
/// another; [`space_items`] puts the blank lines between them.
fn mod_rs(api: &Api, config: &Config) -> String {
    let runtime = match config.runtime {
        crate::Runtime::Crate => text::fill(
            RUNTIME_CRATE,
            &[("plumbing", &crate::vocabulary::PLUMBING.to_string())],
        ),
        crate::Runtime::Vendored => RUNTIME_VENDORED.to_string(),
    };
    // With group features, the webhooks use what the groups do not
    // reach, which `other-models` compiles in.
    let webhooks = match (api.webhooks.is_empty(), config.group_features) {
        (true, _) => String::new(),
        (false, false) => "pub mod webhooks;\n".to_string(),
        (false, true) => format!(
            "#[cfg(feature = \"{}\")]\npub mod webhooks;\n",
            crate::ir::OTHER_MODELS
        ),
    };
    let title = format!(" {} {}", api.title, api.version);
    let mut docs = vec![title.trim_end().to_string(), String::new()];
    docs.extend(doc_lines(api.description.as_deref()));
    let filled = text::fill(
        MOD_RS,
        &[
            ("docs", &text::doc_comment(&docs, "//!", "")),
            ("runtime", &runtime),
            ("webhooks", &webhooks),
        ],
    );
    space_items(&filled)
}

const MOD_RS: &str = include_str!("templates/mod.rs.in");

/// The `runtime` module of a crate on the `apigen-runtime` crate: the
/// runtime's public items, and beside them (hidden from the docs) the
/// plumbing its code calls, checked at compile time to be what it was
/// generated for.
const RUNTIME_CRATE: &str = include_str!("templates/runtime_crate.rs.in");

/// The `runtime` module of a crate that carries the runtime's sources
/// (`runtime/`, the `vendored` module): the same items as
/// [`RUNTIME_CRATE`]'s.
const RUNTIME_VENDORED: &str = include_str!("templates/runtime_vendored.rs.in");

/// The `webhooks` module's `mod.rs`: the modules of its part, the API's
/// models and runtime under the names they use ([`mod_rs`]'s layout).
fn webhooks_mod_rs(api: &Api) -> String {
    let signing = if api.operations.iter().any(|op| op.signed) {
        "//!\n\
         //! Deliveries are signed as Standard Webhooks say: the receiver's glue\n\
         //! verifies each (`runtime::Signatures` gives it the secrets) before its\n\
         //! handler runs, and the sender signs what it sends\n\
         //! (`client::Client::signed`).\n"
    } else {
        ""
    };
    space_items(&text::fill(WEBHOOKS_MOD_RS, &[("signing", signing)]))
}

const WEBHOOKS_MOD_RS: &str = include_str!("templates/webhooks_mod.rs.in");

/// Which operations a group holds, in words: `operations tagged `Pets``,
/// `untagged operations under `/v1/customers``.
pub fn group_summary(t: &crate::ir::RouteTrait, ops: &[&crate::ir::Operation]) -> String {
    if let Some(summary) = &t.summary {
        return summary.clone();
    }
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

/// The Rust type of a shape, as a person writes it
/// (`Option<Vec<models::Pet>>`). `models` is the path prefix of named
/// types: `"models::"`, `"super::models::"`, or `""` inside `models`.
pub(crate) fn rust_type(shape: &Shape, models: &str) -> String {
    match &shape.ty {
        Ty::Bool => "bool".into(),
        Ty::I32 => "i32".into(),
        Ty::I64 => "i64".into(),
        Ty::F32 => "f32".into(),
        Ty::F64 => "f64".into(),
        Ty::String => "String".into(),
        Ty::DateTime => "chrono::DateTime<chrono::Utc>".into(),
        Ty::Date => "chrono::NaiveDate".into(),
        Ty::Uuid => "uuid::Uuid".into(),
        Ty::Base64 => "runtime::Base64".into(),
        Ty::Json => "serde_json::Value".into(),
        Ty::Bytes => "Vec<u8>".into(),
        Ty::Array(items) => format!("Vec<{}>", rust_type(items, models)),
        Ty::Map(values) => format!(
            "std::collections::BTreeMap<String, {}>",
            rust_type(values, models)
        ),
        Ty::Named(name) => format!("{models}{}", ident(name)),
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
