//! `cargo xtask mock-conformance [--build-only | --framework F] [PATH...]`:
//! schemathesis against the mock server of other documents. Each
//! document's mock is built by `apigen mock --build-only` (into
//! `target/mock`, with this workspace's lock file), started on a free port
//! once on actix-web and once on axum (one build serves both; `--framework`
//! names one, `--build-only` only builds them and installs schemathesis),
//! and checked each time with every check, positive and negative data,
//! sending a credential of each security scheme the document defines.
//! Directories are read for `.yaml`, `.yml` and `.json` documents under
//! 1 MB; files are taken as they are.
//! `MOCK_CONFORMANCE_EXAMPLES` (20) and `MOCK_CONFORMANCE_PHASES`
//! (`examples,coverage,fuzzing`) change schemathesis's examples per
//! operation and phases.

use crate::conformance::SCHEMATHESIS;
use crate::launch::launch;
use crate::{project_root, venv_tool};
use apigen::ir::{ParamLocation, SchemeKind, Style, Ty};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Documents larger than this are left out of a directory's run: their
/// crates take minutes to build.
const MAX_BYTES: u64 = 1 << 20;

/// The documents `paths` name: files, and each directory's documents under
/// [`MAX_BYTES`], in name order.
fn documents(paths: &[&str]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for path in paths {
        let path = PathBuf::from(path);
        if path.is_file() {
            found.push(path);
            continue;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or_default();
                matches!(ext, "yaml" | "yml" | "json")
                    && p.metadata().is_ok_and(|m| m.len() < MAX_BYTES)
            })
            .collect();
        entries.sort();
        found.extend(entries);
    }
    Ok(found)
}

/// What `mock-conformance` runs: every document's mock on the frameworks
/// named (both unless one is), or only their builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    On(&'static [&'static str]),
    BuildOnly,
}

impl Run {
    /// `[--build-only | --framework actix|axum] PATH...`: the run and the
    /// paths.
    pub fn parse<'a>(args: &'a [&'a str]) -> Result<(Run, &'a [&'a str]), String> {
        match args {
            ["--build-only", paths @ ..] => Ok((Run::BuildOnly, paths)),
            ["--framework", "actix", paths @ ..] => Ok((Run::On(&["actix"]), paths)),
            ["--framework", "axum", paths @ ..] => Ok((Run::On(&["axum"]), paths)),
            ["--framework", other, ..] => Err(format!(
                "mock-conformance serves on `actix` or `axum`, not `{other}`"
            )),
            paths => Ok((Run::On(&["actix", "axum"]), paths)),
        }
    }
}

/// The mocks' cache, with the workspace's lock file at its root (so that
/// every mock builds with what the workspace builds with).
pub fn prepare_cache() -> Result<PathBuf, String> {
    let root = project_root();
    let cache = root.join("target").join("mock");
    std::fs::create_dir_all(&cache).map_err(|e| e.to_string())?;
    let lock = std::fs::read(root.join("Cargo.lock")).map_err(|e| e.to_string())?;
    // Written only when it differs: another run side by side may be
    // building with it.
    if std::fs::read(cache.join("Cargo.lock")).ok().as_ref() != Some(&lock) {
        write_whole(&cache.join("Cargo.lock"), &lock)?;
    }
    Ok(cache)
}

pub fn mock_conformance(run: Run, paths: &[&str]) -> Result<(), String> {
    let documents = documents(paths)?;
    if documents.is_empty() {
        return Err("mock-conformance needs documents or directories of them".into());
    }
    // Installed first even when only building, so that a run found
    // prepared (`ci` builds beside the tests) starts at once: pip mostly
    // downloads while cargo compiles.
    let schemathesis = venv_tool(SCHEMATHESIS, "schemathesis")?;
    crate::build_binaries()?;
    let cache = prepare_cache()?;
    let mut failed = Vec::new();
    for doc in &documents {
        eprintln!("== {}", doc.display());
        let outcome = match run {
            Run::BuildOnly => build(&cache, doc).map(drop),
            Run::On(frameworks) => check(&schemathesis, &cache, doc, frameworks),
        };
        if let Err(e) = outcome {
            eprintln!("FAILED: {}: {e}", doc.display());
            failed.push(doc.display().to_string());
        }
    }
    let done = if run == Run::BuildOnly {
        "build"
    } else {
        "conform"
    };
    eprintln!(
        "{} of {} mocks {done}",
        documents.len() - failed.len(),
        documents.len()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("mocks that do not conform: {}", failed.join(", ")))
    }
}

/// The credentials the mock is started with (`--accept-credential`), and
/// sends for each scheme: a token or key `mock`, basic's `mock:mock`.
const CREDENTIALS: [&str; 2] = ["mock", "mock:mock"];

/// The checks that no server can pass for this document, off, and why;
/// and the credentials to send, by scheme:
///
/// - `status_code_conformance`, for an operation that declares no 400, no
///   `4XX` and no `default`: a request the schema forbids must be refused
///   (the negative-data check), and any refusal is then a status the
///   operation does not declare; and for one whose credentials travel in
///   `Authorization` but declares no 401: a request without them is a 401
///   (the missing-header check wants it, as HTTP does). Every other
///   operation keeps the check;
/// - `negative_data_rejection`, for an operation whose body is bytes (a
///   media type other than JSON or a form): any bytes are such a body, and
///   schemathesis's "violation" is a JSON array written in it; and for
///   one whose body may come as a form or multipart and has a list
///   property: `photoUrls=AAA` is a list of one, the same bytes as the
///   text schemathesis calls a violation; and for one with a list
///   parameter (in any style but JSON): a list of one item is the item's
///   text alone, so schemathesis's item where the list belongs is a list;
///   and for one whose form or multipart body has a bytes property, where
///   schemathesis skips its check that the data it calls a violation is
///   one; and for one whose XML body may be an object without required
///   properties, whose empty element is an empty list's too; and for one
///   whose body's discriminator names a variant by several values, where
///   schemathesis pins the variant to one of them and calls a body with
///   another a violation; and for one
///   with an object parameter (outside JSON) that allows
///   other properties: schemathesis writes a value of another type there
///   as the object `{"": value}`, which is a valid object;
/// - `positive_data_acceptance`, for an operation whose form body has a
///   list of objects: a form cannot spell one, and what schemathesis
///   writes for it (each object's keys) is no such list; and for one with
///   a pipe- or space-delimited object parameter, which schemathesis has
///   no writing for (it sends the property names alone).
fn schemathesis_settings(api: &apigen::ir::Api) -> String {
    use apigen::ir::Status;
    let mut out = String::from("# Written by `cargo xtask mock-conformance`.\n");
    // What schemathesis sends for each scheme, where it knows how; and
    // `ignored_auth` (a made-up credential must be refused) stays on.
    for scheme in &api.security_schemes {
        let credential = match &scheme.kind {
            SchemeKind::Http(kind) if kind == "basic" => {
                "username = \"mock\"\npassword = \"mock\"\n".to_string()
            }
            SchemeKind::Http(kind) if kind == "bearer" => "bearer = \"mock\"\n".to_string(),
            SchemeKind::OAuth2 | SchemeKind::OpenIdConnect => "bearer = \"mock\"\n".to_string(),
            SchemeKind::ApiKey { .. } => "api_key = \"mock\"\n".to_string(),
            // Another HTTP scheme is sent as a header (`check_on`).
            SchemeKind::Http(_) | SchemeKind::MutualTls => continue,
        };
        out.push_str(&format!(
            "\n[auth.openapi.{}]\n{credential}",
            toml_key(&scheme.name)
        ));
    }
    let declares = |op: &apigen::ir::Operation, code: u16| {
        op.responses.iter().any(|r| {
            r.status == Status::Code(code)
                || r.status == Status::Range(code / 100)
                || r.status == Status::Default
        })
    };
    // Credentials in `Authorization`: a request without them is a 401,
    // as HTTP has it (and schemathesis checks), declared or not.
    let by_authorization = |op: &apigen::ir::Operation| {
        let parameter = op.params.iter().any(|p| {
            p.required
                && p.location == ParamLocation::Header
                && p.wire.eq_ignore_ascii_case("authorization")
        });
        parameter
            || op.security.iter().flatten().any(|(name, _)| {
                api.security_schemes.iter().any(|s| {
                    s.name == *name
                        && matches!(
                            s.kind,
                            SchemeKind::Http(_) | SchemeKind::OAuth2 | SchemeKind::OpenIdConnect
                        )
                })
            })
    };
    for op in &api.operations {
        let mut off: Vec<(&str, &str)> = Vec::new();
        if !declares(op, 400) {
            off.push((
                "status_code_conformance",
                "declares no status for a refused request",
            ));
        } else if by_authorization(op) && !declares(op, 401) {
            off.push((
                "status_code_conformance",
                "is answered 401 without credentials, which it does not declare",
            ));
        }
        let raw = op
            .body
            .as_ref()
            .is_some_and(|b| matches!(b.media, apigen::ir::Media::Raw(_)));
        let text_lists = text_body_with_a_list(api, op);
        // The first reason that applies turns the negative-data check off.
        let negative = [
            (
                raw,
                "takes its body as bytes, which no JSON value schemathesis writes in it violates",
            ),
            (
                text_lists.is_some(),
                "takes a form or multipart body with a list property: one text is a list of one \
                 in a form, so schemathesis's text where a list belongs is a valid list",
            ),
            // In every style but JSON, a list of one item is the text of
            // the item alone, and schemathesis writes a value of another
            // type where an object belongs as the object `{"": value}`.
            (
                op.params
                    .iter()
                    .any(|p| p.style != Style::Json && matches!(p.shape.ty, Ty::Array(_))),
                "takes a list parameter: a list of one item is the text of the item alone, \
                 so schemathesis's item where the list belongs is a valid list",
            ),
            (
                xml_body_may_be_empty(api, op),
                "takes an XML body whose object may be empty: an empty element is an empty \
                 object and an empty list alike, so schemathesis's empty list is a valid object",
            ),
            (
                text_body_with_bytes(api, op),
                "takes a form or multipart body with a bytes property: schemathesis does not \
                 check that such a body breaks the schema before it sends it as a violation",
            ),
            (
                body_names_a_variant_twice(api, op),
                "takes a body whose discriminator maps several values to one variant: \
                 schemathesis pins each variant to one of them (the mapping's last), so a \
                 body with another is called a violation although the mapping names it",
            ),
            (
                op.params.iter().any(|p| {
                    p.style != Style::Json && param_object(api, p) == Some(Openness::Open)
                }),
                "takes an object parameter that allows other properties: schemathesis writes \
                 a value of another type there as the object `{\"\": value}`, which is valid",
            ),
        ];
        if let Some((_, why)) = negative.into_iter().find(|(applies, _)| *applies) {
            off.push(("negative_data_rejection", why));
        }
        if text_lists == Some(true) {
            off.push((
                "positive_data_acceptance",
                "takes a form body with a list of objects, which a form cannot spell \
                 (schemathesis writes each object's keys as the list's texts)",
            ));
        }
        let delimited_object = op.params.iter().any(|p| {
            matches!(p.style, Style::PipeDelimited | Style::SpaceDelimited)
                && param_object(api, p).is_some()
        });
        if delimited_object {
            off.push((
                "positive_data_acceptance",
                "takes a pipe- or space-delimited object, which schemathesis cannot write \
                 (it sends each property's name alone, as a pair of its own)",
            ));
        }
        if off.is_empty() {
            continue;
        }
        let name = format!("{} {}", op.method, op.path);
        for (_, why) in &off {
            out.push_str(&format!("\n# {name} {why}."));
        }
        out.push_str(&format!("\n[[operations]]\ninclude-name = \"{name}\"\n"));
        for (check, _) in &off {
            out.push_str(&format!("checks.{check}.enabled = false\n"));
        }
    }
    out
}

/// A TOML key: bare when it may be, else quoted.
fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

/// An operation's body and the struct it is, when it is one.
fn body_struct<'a>(
    api: &'a apigen::ir::Api,
    op: &'a apigen::ir::Operation,
) -> Option<(&'a apigen::ir::Body, &'a apigen::ir::Struct)> {
    use apigen::ir::TypeKind;
    let body = op.body.as_ref()?;
    let Ty::Named(name) = &body.shape.ty else {
        return None;
    };
    match &apigen::lower::resolve(&api.types, name)?.kind {
        TypeKind::Struct(s) => Some((body, s)),
        _ => None,
    }
}

/// Whether an operation's body is (or holds, flattened beside its
/// properties) a union whose discriminator names one of its variants by
/// several values: a mapping of `oneA` and `oneB` to one schema, or a
/// variant whose schema allows an `enum` of them.
fn body_names_a_variant_twice(api: &apigen::ir::Api, op: &apigen::ir::Operation) -> bool {
    use apigen::ir::TypeKind;
    let twice = |shape: &apigen::ir::Shape| {
        let Ty::Named(name) = &shape.ty else {
            return false;
        };
        match apigen::lower::resolve(&api.types, name).map(|d| &d.kind) {
            Some(TypeKind::Union(u)) => {
                u.tag.is_some() && u.variants.iter().any(|v| v.tag_values.len() > 1)
            }
            _ => false,
        }
    };
    let Some(body) = &op.body else {
        return false;
    };
    twice(&body.shape)
        || body_struct(api, op)
            .is_some_and(|(_, s)| s.fields.iter().any(|f| f.flatten && twice(&f.shape)))
}

/// Whether a body may come as a form (`Some(true)`) or as multipart
/// (`Some(false)`): text, where one item and a list of it are the same.
fn text_body(body: &apigen::ir::Body) -> Option<bool> {
    use apigen::ir::{Also, Media};
    if body.media == Media::Form || body.also.contains(&Also::Form) {
        Some(true)
    } else {
        (body.media == Media::Multipart).then_some(false)
    }
}

/// Whether an operation's body may come as XML and be an object without
/// required properties (whose empty element is also an empty list's).
fn xml_body_may_be_empty(api: &apigen::ir::Api, op: &apigen::ir::Operation) -> bool {
    body_struct(api, op).is_some_and(|(body, s)| {
        body.also.contains(&apigen::ir::Also::Xml) && !s.fields.iter().any(|f| f.required)
    })
}

/// Whether an operation's body may come as a form or multipart and has a
/// bytes property (`format: binary` or `byte`), for which schemathesis
/// skips its check that the negative data it makes is invalid.
fn text_body_with_bytes(api: &apigen::ir::Api, op: &apigen::ir::Operation) -> bool {
    use apigen::ir::TypeKind;
    // Through aliases (`File: {type: string, format: binary}`): `resolve`
    // ends at a shape of no named type.
    let bytes = |shape: &apigen::ir::Shape| match &shape.ty {
        Ty::Named(n) => matches!(
            apigen::lower::resolve(&api.types, n).map(|d| &d.kind),
            Some(TypeKind::Alias(inner)) if inner.ty == Ty::Base64
        ),
        ty => *ty == Ty::Base64,
    };
    body_struct(api, op).is_some_and(|(body, s)| {
        text_body(body).is_some() && s.fields.iter().any(|f| bytes(&f.shape))
    })
}

/// Whether an object allows properties it does not name.
#[derive(Debug, PartialEq)]
enum Openness {
    Open,
    Closed,
}

/// Whether a parameter is an object, and whether it allows properties it
/// does not name (the one named `""` among them).
fn param_object(api: &apigen::ir::Api, p: &apigen::ir::Param) -> Option<Openness> {
    use apigen::ir::TypeKind;
    match &p.shape.ty {
        Ty::Map(_) => Some(Openness::Open),
        Ty::Named(n) => match &apigen::lower::resolve(&api.types, n)?.kind {
            TypeKind::Struct(s) if s.deny_unknown => Some(Openness::Closed),
            TypeKind::Struct(_) => Some(Openness::Open),
            _ => None,
        },
        _ => None,
    }
}

/// Whether an operation's body may come as a form or multipart (where a
/// list of one item and a text are the same bytes) and has a list
/// property: `Some(true)` when a form's list holds objects (which a form
/// cannot spell at all), `Some(false)` otherwise.
fn text_body_with_a_list(api: &apigen::ir::Api, op: &apigen::ir::Operation) -> Option<bool> {
    use apigen::ir::TypeKind;
    let (body, s) = body_struct(api, op)?;
    let form = text_body(body)?;
    let objects = |items: &apigen::ir::Shape| match &items.ty {
        Ty::Named(n) => apigen::lower::resolve(&api.types, n)
            .is_some_and(|d| matches!(d.kind, TypeKind::Struct(_))),
        Ty::Map(_) => true,
        _ => false,
    };
    let lists: Vec<&apigen::ir::Shape> = s
        .fields
        .iter()
        .filter_map(|f| match &f.shape.ty {
            Ty::Array(items) => Some(&**items),
            _ => None,
        })
        .collect();
    (!lists.is_empty()).then(|| form && lists.iter().any(|items| objects(items)))
}

/// The document as the generated code reads it, for schemathesis, where
/// the two readings differ by design:
///
/// - an integer schema the document leaves open is bounded to the range of
///   its Rust type ([`Ty::integer`]): an unbounded `type: integer` is an
///   `i64`, as in every Rust generator, and 10^28 is not a value it holds;
/// - in a 3.1 document, each `format` the glue enforces (`uuid`, `date`,
///   `date-time`, `byte`, `email`, `uri`, `duration`) also gets the pattern
///   it implies,
///   where the schema has none: JSON Schema 2020-12 leaves `format` an
///   annotation, so schemathesis sends `""` for a uuid, which the glue
///   (like the real server) refuses.
///
/// Examples, defaults, enums and extensions are left as they are. (And
/// see [`typed_objects`].)
fn as_generated(value: &mut serde_yaml::Value, formats: bool) {
    use serde_yaml::Value;
    let Value::Mapping(map) = value else {
        if let Value::Sequence(items) = value {
            items.iter_mut().for_each(|v| as_generated(v, formats));
        }
        return;
    };
    let is = |map: &serde_yaml::Mapping, ty: &str| match map.get("type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Sequence(types)) => types.iter().any(|t| t.as_str() == Some(ty)),
        _ => false,
    };
    let format = map
        .get("format")
        .and_then(Value::as_str)
        .map(str::to_string);
    if is(map, "integer") {
        if let Some((low, high)) = Ty::integer(format.as_deref()).integer_range() {
            // 3.1's numeric `exclusiveMinimum` bounds on its own.
            let open = |map: &serde_yaml::Mapping, bound: &str, exclusive: &str| {
                !map.contains_key(bound) && !map.get(exclusive).is_some_and(Value::is_number)
            };
            if open(map, "minimum", "exclusiveMinimum") {
                map.insert("minimum".into(), low.into());
            }
            if open(map, "maximum", "exclusiveMaximum") {
                map.insert("maximum".into(), high.into());
            }
        }
    }
    if formats && is(map, "string") && !map.contains_key("pattern") {
        if let Some(pattern) = format.as_deref().and_then(format_pattern) {
            map.insert("pattern".into(), pattern.into());
        }
    }
    for (key, value) in map.iter_mut() {
        let key = key.as_str().unwrap_or_default();
        let data = matches!(key, "example" | "examples" | "default" | "enum" | "const");
        if !data && !key.starts_with("x-") {
            as_generated(value, formats);
        }
    }
}

/// The pattern of a `format` the glue checks, for schemathesis: the texts
/// the glue takes, as closely as a pattern can say it, since the pattern
/// both makes requests (it must not be wider than the glue) and judges
/// responses (it must not be narrower than the document's own examples).
/// Where it cannot be exact it is narrower: February stops at the 28th, a
/// uuid is hyphenated, base64 is padded; digits are ASCII, as Python's
/// `\d` is any script's.
fn format_pattern(format: &str) -> Option<String> {
    const DATE: &str = "[0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])\
                        |(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))";
    const TIME: &str = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?\
                        (Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])";
    Some(match format {
        "uuid" => "^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$".into(),
        "date" => format!("^{DATE}$"),
        "date-time" => format!("^{DATE}T{TIME}$"),
        "byte" => "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$".into(),
        // Narrower than `runtime::check_duration` (days required, and the
        // seconds after a `T`): a pattern has no lookahead here to say
        // "at least one part".
        "duration" => {
            r"^P([0-9]+Y)?([0-9]+M)?([0-9]+W)?[0-9]+D(T([0-9]+H)?([0-9]+M)?[0-9]+S)?$".into()
        }
        "email" => r"^[^\s@]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$".into(),
        "uri" => {
            r"^[A-Za-z][A-Za-z0-9+.-]*:([A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$"
                .into()
        }
        _ => return None,
    })
}

/// A schema with properties but no `type` as the generated code reads it:
/// an object (JSON Schema would also take any value that is not one). Each
/// schema a `schema` key holds, and each component schema, with the
/// schemas in its properties, items and compositions.
fn typed_objects(value: &mut serde_yaml::Value, schema: bool) {
    use serde_yaml::Value;
    match value {
        Value::Sequence(items) => items.iter_mut().for_each(|v| typed_objects(v, false)),
        Value::Mapping(map) => {
            let composed = ["allOf", "oneOf", "anyOf", "$ref"]
                .iter()
                .any(|k| map.contains_key(*k));
            if schema
                && !composed
                && !map.contains_key("type")
                && map.get("properties").is_some_and(Value::is_mapping)
            {
                map.insert("type".into(), "object".into());
            }
            for (key, value) in map.iter_mut() {
                let key = key.as_str().unwrap_or_default();
                match key {
                    "example" | "examples" | "default" | "enum" | "const" => {}
                    _ if key.starts_with("x-") => {}
                    "properties" if schema => {
                        if let Value::Mapping(props) = value {
                            props.values_mut().for_each(|v| typed_objects(v, true));
                        }
                    }
                    "schemas" if !schema => {
                        if let Value::Mapping(all) = value {
                            all.values_mut().for_each(|v| typed_objects(v, true));
                        }
                    }
                    "items" | "additionalProperties" | "not" | "schema" => {
                        typed_objects(value, true)
                    }
                    "allOf" | "oneOf" | "anyOf" if schema => {
                        if let Value::Sequence(parts) = value {
                            parts.iter_mut().for_each(|v| typed_objects(v, true));
                        }
                    }
                    _ => typed_objects(value, false),
                }
            }
        }
        _ => {}
    }
}

/// Writes `doc` read by [`as_generated`] beside the other files of its
/// run, and returns where.
fn as_generated_document(doc: &Path, cache: &Path) -> Result<PathBuf, String> {
    // Bundled: the copy stands elsewhere, where references to the
    // document's other files would not resolve.
    let mut value = apigen::bundled(doc).map_err(|d| d.to_string())?;
    let v31 = value
        .get("openapi")
        .and_then(serde_yaml::Value::as_str)
        .is_some_and(|v| v.starts_with("3.1"));
    as_generated(&mut value, v31);
    typed_objects(&mut value, false);
    let out = cache.join(format!(
        "{}.as-generated.yaml",
        doc.file_stem().unwrap_or_default().to_string_lossy()
    ));
    let text = serde_yaml::to_string(&value).map_err(|e| e.to_string())?;
    write_whole(&out, text.as_bytes())?;
    Ok(out)
}

/// Writes `path` so that a reader sees the old file or the new one, never
/// part of either: the runs on each framework (side by side in `ci`)
/// write the same document's files, and one may read what the other is
/// writing.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}.partial", std::process::id()));
    std::fs::write(&partial, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::rename(&partial, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The mock of `doc` built (or found built) in `cache`: its binary.
fn build(cache: &Path, doc: &Path) -> Result<String, String> {
    let root = project_root();
    let out = Command::new(root.join("target/debug/apigen"))
        // Built in the workspace's target directory, where the tests built
        // the dependencies already.
        .env("CARGO_TARGET_DIR", root.join("target"))
        .arg("mock")
        .arg(doc)
        .arg("--cache")
        .arg(cache)
        .arg("--build-only")
        // On the runtime crate rather than with its sources: compiled once
        // for every document's mock instead of once in each (the
        // vendored form is built by the corpora and the CLI's tests).
        .arg("--runtime-crate")
        .arg(crate::runtime_crate())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err("apigen mock failed".into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Schemathesis against the mock of `doc` served on each of `frameworks`.
fn check(schemathesis: &Path, cache: &Path, doc: &Path, frameworks: &[&str]) -> Result<(), String> {
    let binary = build(cache, doc)?;
    let config = apigen::Config {
        command: "cargo xtask mock-conformance".into(),
        source: doc.display().to_string(),
        lenient: true,
        check_formats: true,
        runtime: apigen::Runtime::Vendored,
        group_features: true,
        serde_sides: false,
    };
    let api = apigen::generate_file(doc, &config)
        .map_err(|d| d.to_string())?
        .api;
    if api.operations.is_empty() {
        // Webhooks only (3.1): the mock serves nothing to call.
        eprintln!("skipped: {} has no operations to call", doc.display());
        return Ok(());
    }
    // The same checks of the same build, served on each framework.
    let mut failed = Vec::new();
    for &framework in frameworks {
        eprintln!("-- on {framework}");
        if let Err(e) = check_on(schemathesis, cache, doc, &binary, &api, framework) {
            failed.push(format!("on {framework}: {e}"));
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// Schemathesis against the mock `binary` serving on `framework`.
fn check_on(
    schemathesis: &Path,
    cache: &Path,
    doc: &Path,
    binary: &str,
    api: &apigen::ir::Api,
    framework: &str,
) -> Result<(), String> {
    let root = project_root();
    let server = launch(
        Command::new(binary)
            .args(["127.0.0.1:0", "1", framework])
            .args(CREDENTIALS)
            .stderr(Stdio::inherit()),
    )?;
    let url = format!("http://{}{}", server.address, api.base_path);
    let examples = std::env::var("MOCK_CONFORMANCE_EXAMPLES").unwrap_or_else(|_| "20".into());
    // Schemathesis's coverage phase does not finish on some large documents
    // (xero-accounting: over 38 minutes, schemathesis itself at a full core
    // and 6 GB): those are run by hand with fewer phases.
    let phases = std::env::var("MOCK_CONFORMANCE_PHASES")
        .unwrap_or_else(|_| "examples,coverage,fuzzing".into());
    let settings = cache.join(format!(
        "{}.schemathesis.toml",
        doc.file_stem().unwrap_or_default().to_string_lossy()
    ));
    write_whole(&settings, schemathesis_settings(api).as_bytes())?;
    let mut args: Vec<String> = vec![
        "--config-file".into(),
        settings.display().to_string(),
        "run".into(),
        as_generated_document(doc, cache)?.display().to_string(),
        "--url".into(),
        url,
        // Every check is on unless the settings turn it off for an
        // operation (`--checks all` would overrule them).
        "--workers".into(),
        "1".into(),
        "--max-examples".into(),
        examples,
        "--seed".into(),
        "20261126".into(),
        "--mode".into(),
        "all".into(),
        // A mock keeps no state: what one request creates or deletes, the
        // next does not see, so the stateful phase's checks do not apply.
        "--phases".into(),
        phases,
    ];
    // An HTTP scheme schemathesis has no setting for, as its header.
    for scheme in &api.security_schemes {
        if let SchemeKind::Http(kind) = &scheme.kind {
            if kind != "basic" && kind != "bearer" {
                let header = format!("Authorization: {kind} mock");
                if !args.contains(&header) {
                    args.extend(["--header".into(), header]);
                }
            }
        }
    }
    // An event stream does not end for schemathesis to read it whole.
    for op in &api.operations {
        if op
            .responses
            .iter()
            .any(|r| r.media == apigen::ir::Media::Events)
        {
            args.extend(["--exclude-operation-id".into(), op.id.clone()]);
        }
    }
    eprintln!("$ schemathesis {}", args.join(" "));
    let status = Command::new(schemathesis)
        .args(&args)
        .current_dir(&root)
        .status()
        .map_err(|e| e.to_string())?;
    drop(server);
    if status.success() {
        Ok(())
    } else {
        Err(format!("schemathesis: {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::{as_generated, format_pattern};

    #[test]
    fn a_run_names_its_framework_or_only_builds() {
        let docs = ["a.yaml", "b.yaml"];
        let with = |first: &[&'static str]| -> Vec<&'static str> {
            first.iter().chain(docs.iter()).copied().collect()
        };
        let args = with(&["--framework", "axum"]);
        assert_eq!(
            super::Run::parse(&args),
            Ok((super::Run::On(&["axum"]), &docs[..]))
        );
        let args = with(&["--build-only"]);
        assert_eq!(
            super::Run::parse(&args),
            Ok((super::Run::BuildOnly, &docs[..]))
        );
        assert_eq!(
            super::Run::parse(&docs),
            Ok((super::Run::On(&["actix", "axum"]), &docs[..]))
        );
        assert!(super::Run::parse(&["--framework", "rocket", "a.yaml"]).is_err());
    }

    fn read(yaml: &str, formats: bool) -> serde_yaml::Value {
        let mut value = serde_yaml::from_str(yaml).unwrap();
        as_generated(&mut value, formats);
        value
    }

    #[test]
    fn open_integers_get_their_rust_range_and_nothing_else_changes() {
        let doc = read(
            "a: {type: integer}\n\
             b: {type: integer, format: int32, minimum: 1}\n\
             c: {type: [integer, 'null'], exclusiveMaximum: 9}\n\
             d: {type: string, example: {type: integer}}\n\
             e: {type: number}\n",
            false,
        );
        assert_eq!(doc["a"]["minimum"], i64::MIN);
        assert_eq!(doc["a"]["maximum"], i64::MAX);
        assert_eq!(doc["b"]["minimum"], 1);
        assert_eq!(doc["b"]["maximum"], i32::MAX);
        assert_eq!(doc["c"]["minimum"], i64::MIN);
        assert!(doc["c"].get("maximum").is_none());
        assert!(doc["d"]["example"].get("minimum").is_none());
        assert!(doc["e"].get("minimum").is_none());
    }

    #[test]
    fn formats_become_patterns_only_when_asked_and_only_where_none_is() {
        let yaml = "a: {type: string, format: uuid}\n\
                    b: {type: [string, 'null'], format: uri, pattern: '^x'}\n\
                    c: {type: string, format: hostname}\n";
        assert!(read(yaml, false)["a"].get("pattern").is_none());
        let doc = read(yaml, true);
        assert_eq!(
            doc["a"]["pattern"].as_str(),
            format_pattern("uuid").as_deref()
        );
        assert_eq!(doc["b"]["pattern"], "^x");
        assert!(doc["c"].get("pattern").is_none());
    }

    /// Each pattern is one schemathesis can read; it takes texts of its
    /// format, long ones too (responses carry them), and refuses what the
    /// glue refuses.
    #[test]
    fn each_pattern_compiles_and_takes_its_formats_texts() {
        let samples = [
            ("uuid", "0F0E0D0C-0b0a-0908-0706-050403020100", "0f0e"),
            ("date", "2024-12-31", "2024-02-30"),
            (
                "date-time",
                "0000-04-30T23:59:59.123456789-23:59",
                "2024-01-01 00:00:00Z",
            ),
            ("byte", "QUJDRA==", "QUJDRA"),
            ("email", "first.last+tag@mail.example.org", "a@b"),
            (
                "uri",
                "https://api.example.com/bookings/1725ff48-ab45-4bb5-9d02-88745177dedb?x=1",
                "example.com",
            ),
            ("uri", "https://x.org/a%20b?q=[1]#f", "w:\u{1f3fb}"),
            ("duration", "P1Y2M3W4DT5H6M7S", "P1D2Y"),
        ];
        for (format, good, bad) in samples {
            let pattern = regex::Regex::new(&format_pattern(format).unwrap()).unwrap();
            assert!(pattern.is_match(good), "{format}: {good}");
            assert!(!pattern.is_match(bad), "{format}: {bad}");
        }
    }

    #[test]
    fn schemas_with_properties_and_no_type_are_objects() {
        let mut doc: serde_yaml::Value = serde_yaml::from_str(
            "components:\n  schemas:\n\
             \x20   A: {properties: {properties: {properties: {x: {}}}, b: {oneOf: [{}]}}}\n\
             \x20   B: {type: string}\n\
             paths:\n  /a:\n    get:\n      responses:\n        '200':\n\
             \x20         content: {application/json: {schema: {properties: {}}}}\n",
        )
        .unwrap();
        super::typed_objects(&mut doc, false);
        let a = &doc["components"]["schemas"]["A"];
        assert_eq!(a["type"], "object");
        // A property named `properties` is a schema, not a property list.
        assert_eq!(a["properties"]["properties"]["type"], "object");
        assert!(a["properties"].get("type").is_none());
        assert!(a["properties"]["b"].get("type").is_none());
        assert_eq!(doc["components"]["schemas"]["B"]["type"], "string");
        let media = &doc["paths"]["/a"]["get"]["responses"]["200"]["content"]["application/json"];
        assert_eq!(media["schema"]["type"], "object");
    }
}
