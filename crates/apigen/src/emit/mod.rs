//! Emission: [`Api`] -> formatted Rust source files.
//!
//! Each file is built as tokens with `quote`, parsed with `syn` and printed with
//! `prettyplease`, so the output is formatted and the same IR always gives the
//! same bytes.

mod metadata;
mod models;
mod operations;
mod server;
mod vendor;

use crate::ir::{Api, Number, Shape, Ty, TypeKind};
use crate::{Config, Files};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// Types per rendering job: models are rendered in chunks, on as many threads
/// as the machine has, because parsing and printing dominate generation time.
const TYPES_PER_JOB: usize = 400;
const OPERATIONS_PER_JOB: usize = 100;

pub fn emit(api: &Api, config: &Config) -> Files {
    let defs: Vec<&crate::ir::TypeDef> = api.types.values().collect();
    let chunks: Vec<&[&crate::ir::TypeDef]> = defs.chunks(TYPES_PER_JOB).collect();
    let op_chunks: Vec<&[crate::ir::Operation]> =
        api.operations.chunks(OPERATIONS_PER_JOB).collect();
    let mut jobs: Vec<Box<dyn Fn() -> TokenStream + Sync + '_>> = Vec::new();
    jobs.push(Box::new(|| server::items(api)));
    jobs.push(Box::new(|| metadata::items(api)));
    jobs.push(Box::new(|| operations::shared_items(api)));
    for chunk in &op_chunks {
        jobs.push(Box::new(move || operations::operation_items(api, chunk)));
    }
    for chunk in &chunks {
        jobs.push(Box::new(move || models::items(api, chunk)));
    }
    let mut rendered = render_all(&jobs).into_iter();
    let mut next = || rendered.next().unwrap_or_default();
    let server_rs = next();
    let metadata_rs = next();
    let mut operations_parts = vec![next()];
    operations_parts.extend(op_chunks.iter().map(|_| next()));
    let operations_rs = operations_parts.join("\n");
    let models_rs = chunks.iter().map(|_| next()).collect::<Vec<_>>().join("\n");

    let mut files = Files::new();
    let preamble = preamble(config);
    let mut put = |name: &str, body: String| {
        files.insert(name.to_string(), format!("{preamble}{body}"));
    };
    put("mod.rs", render(mod_rs(api, config)));
    put("models.rs", module(models::HEADER, &[], &models_rs));
    put(
        "operations.rs",
        module(operations::HEADER, &[], &operations_rs),
    );
    let glob: Vec<&str> = server::glob(api).into_iter().collect();
    put("server.rs", module(server::HEADER, &glob, &server_rs));
    put(
        "metadata.rs",
        module((metadata::DOC, &[]), &[], &metadata_rs),
    );
    if config.runtime == crate::Runtime::Vendored {
        for (name, source) in vendor::SOURCES {
            files.insert(format!("runtime/{}", vendor::file_name(name)), source.to_string());
        }
    }
    files
}

/// Builds and renders every job, in order, on all available cores.
fn render_all(jobs: &[Box<dyn Fn() -> TokenStream + Sync + '_>]) -> Vec<String> {
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
                let text = render(job());
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

/// A module file: its doc comment, the imports its body uses, and the body.
fn module((doc, candidates): (&str, &[(&str, &str)]), extra: &[&str], body: &str) -> String {
    let mut out = format!("//! {doc}\n\n");
    for (needle, import) in candidates {
        if mentions(body, needle) {
            out.push_str(import);
            out.push('\n');
        }
    }
    for import in extra {
        out.push_str(import);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(body);
    out
}

/// Whether rendered code uses a name: a module as the head of a path
/// (`models::Pet`, not `super::models::x` nor `get_models::`), anything else
/// as a whole word.
fn mentions(code: &str, needle: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    if needle.starts_with(char::is_lowercase) {
        let path = format!("{needle}::");
        code.match_indices(&path)
            .any(|(i, _)| !code[..i].ends_with(|c: char| is_ident(c) || c == ':'))
    } else {
        code.match_indices(needle).any(|(i, _)| {
            !code[..i].ends_with(is_ident) && !code[i + needle.len()..].starts_with(is_ident)
        })
    }
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

/// prettyplease prints items back to back; put a blank line between top-level
/// items, as a person would.
fn space_items(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + source.len() / 16);
    let mut previous = "";
    for line in source.lines() {
        let ends_item = previous == "}"
            || (previous.ends_with(';')
                && !previous.starts_with(' ')
                && !previous.starts_with("//"));
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
        crate::Runtime::Crate => quote!(pub use apigen_runtime as runtime;),
        crate::Runtime::Vendored => quote!(pub mod runtime;),
    };
    let title = format!(" {} {}", api.title, api.version);
    let description = doc_lines(api.description.as_deref());
    quote! {
        #![doc = #title]
        #![doc = ""]
        #( #![doc = #description] )*
        pub mod metadata;
        pub mod models;
        pub mod operations;
        #runtime
        pub mod server;
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
fn doc_lines(text: Option<&str>) -> Vec<String> {
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

/// Joins paragraphs into one doc block, skipping empty ones.
pub(crate) fn doc_paragraphs(paragraphs: &[Option<String>]) -> TokenStream {
    let text: Vec<&str> = paragraphs
        .iter()
        .filter_map(|p| p.as_deref())
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if text.is_empty() {
        TokenStream::new()
    } else {
        doc(Some(&text.join("\n\n")))
    }
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

/// An expression of type `Result<(), runtime::Violation>` checking the value
/// `value` (an expression of type `&T`) against the shape's bounds, or `None`
/// when there is nothing to check.
pub(crate) fn check_expr(
    value: TokenStream,
    shape: &Shape,
    api: &Api,
    runtime: &TokenStream,
) -> Option<TokenStream> {
    let c = &shape.checks;
    let mut checks: Vec<TokenStream> = Vec::new();
    match &shape.ty {
        Ty::String => {
            if c.min_length.is_some() || c.max_length.is_some() {
                let (min, max) = (opt_usize(c.min_length), opt_usize(c.max_length));
                checks.push(quote!(#runtime check_length(#value, #min, #max)));
            }
            if let Some(pattern) = &c.pattern {
                checks.push(quote! {{
                    static PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                        regex::Regex::new(#pattern).expect("the generator checked the pattern")
                    });
                    #runtime check_pattern(#value, &PATTERN)
                }});
            }
        }
        Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 => {
            let min = bound(c.minimum, c.exclusive_minimum, &shape.ty);
            let max = bound(c.maximum, c.exclusive_maximum, &shape.ty);
            if min.is_some() || max.is_some() {
                let (min, max) = (or_none(min), or_none(max));
                checks.push(quote!(#runtime check_range(#value, #min, #max)));
            }
        }
        Ty::Array(items) => {
            if c.min_items.is_some() || c.max_items.is_some() {
                let (min, max) = (opt_usize(c.min_items), opt_usize(c.max_items));
                checks.push(quote!(#runtime check_items(Vec::len(#value), #min, #max)));
            }
            if let Some(item) = check_fn("item", items, api, runtime) {
                checks.push(quote!(#runtime check_each(#value, #item)));
            }
        }
        Ty::Map(values) => {
            if let Some(item) = check_fn("value", values, api, runtime) {
                checks.push(quote!(#runtime check_values(#value, #item)));
            }
        }
        Ty::Named(name) => match api.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Enum(_)) => {}
            // An alias has no impl of its own: check what it names.
            Some(TypeKind::Alias(_)) => {
                return resolve_alias(name, api)
                    .and_then(|inner| check_expr(value, inner, api, runtime));
            }
            _ => checks.push(quote!(#runtime Validate::validate(#value))),
        },
        Ty::Bool | Ty::DateTime | Ty::Date | Ty::Json | Ty::Bytes => {}
    }
    let mut checks = checks.into_iter();
    let first = checks.next()?;
    Some(checks.fold(first, |acc, next| quote!(#acc.and_then(|()| #next))))
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
pub(crate) fn check_fn(
    var: &str,
    shape: &Shape,
    api: &Api,
    runtime: &TokenStream,
) -> Option<TokenStream> {
    let var = ident(var);
    let body = check_expr(quote!(#var), shape, api, runtime)?;
    let plain = quote!(#runtime Validate::validate(#var));
    if body.to_string() == plain.to_string() {
        Some(quote!(#runtime Validate::validate))
    } else {
        Some(quote!(|#var| #body))
    }
}

fn opt_usize(v: Option<usize>) -> TokenStream {
    match v {
        Some(v) => {
            let v = Literal::usize_unsuffixed(v);
            quote!(Some(#v))
        }
        None => quote!(None),
    }
}

fn or_none(v: Option<TokenStream>) -> TokenStream {
    match v {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    }
}

/// A `(bound, exclusive)` pair for `check_range`, or `None` when the bound
/// cannot be broken by any value of the type (an int32 field with a maximum
/// beyond `i32::MAX`, say).
fn bound(n: Option<Number>, exclusive: bool, ty: &Ty) -> Option<TokenStream> {
    let text = match (n?, ty) {
        // A bound at the type's own limit cannot be broken: no check.
        (Number::Int(i), Ty::I32) if i >= i64::from(i32::MAX) || i <= i64::from(i32::MIN) => {
            return None
        }
        (Number::Int(i), Ty::I64) if i == i64::MAX || i == i64::MIN => return None,
        (Number::Int(i), Ty::I32) => i32::try_from(i).ok()?.to_string(),
        (Number::Int(i), Ty::I64) => i.to_string(),
        // A fractional bound on an integer: the nearest integer that keeps it.
        (Number::Float(f), Ty::I32) => i32::try_from(f.round() as i64).ok()?.to_string(),
        (Number::Float(f), Ty::I64) => (f.round() as i64).to_string(),
        (Number::Int(i), _) => format!("{:?}", i as f64),
        (Number::Float(f), _) => format!("{f:?}"),
    };
    let lit = number(&text);
    Some(quote!((#lit, #exclusive)))
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
