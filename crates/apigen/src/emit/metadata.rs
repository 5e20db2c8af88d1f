//! `metadata.rs`: what the spec says about each operation, as data, for
//! middleware (stability, deprecation, sunset, security) and clients.

use super::ident;
use super::text::{self, Expr};
use crate::ir::{Api, ParamLocation, SchemeKind, SecurityRequirement};

pub const DOC: &str = "What the spec says about each operation, as data.";

/// The module's items, as text.
/// A string literal.
fn lit(s: &str) -> Expr {
    Expr::Text(text::string_literal(s))
}

/// `Some("...")` or `None`.
fn opt(v: &Option<String>) -> Expr {
    match v {
        Some(s) => Expr::text(format!("Some({})", text::string_literal(s))),
        None => Expr::text("None"),
    }
}

/// A slice literal, `&[...]`.
fn array(items: Vec<Expr>) -> Expr {
    Expr::Call {
        callee: "&".into(),
        delims: ("[", "]"),
        args: items,
        after: "",
    }
}

/// Security requirements as `runtime::SecurityRequirement`s.
fn requirements(security: &[SecurityRequirement]) -> Expr {
    array(
        security
            .iter()
            .map(|requirement| {
                let schemes = requirement
                    .iter()
                    .map(|(scheme, scopes)| {
                        let scopes: Vec<Expr> = scopes.iter().map(|s| lit(s)).collect();
                        Expr::Call {
                            callee: String::new(),
                            delims: ("(", ")"),
                            args: vec![lit(scheme), array(scopes)],
                            after: "",
                        }
                    })
                    .collect();
                Expr::Struct {
                    path: "runtime::SecurityRequirement".into(),
                    fields: vec![("schemes".into(), array(schemes))],
                }
            })
            .collect(),
    )
}

/// `WEBHOOKS`' value: each webhook as a `runtime::Webhook`.
fn webhooks(api: &Api) -> Expr {
    let entries = api
        .webhooks
        .iter()
        .map(|w| {
            let op = &w.operation;
            let payload = match op.body.as_ref().map(|b| &b.shape.ty) {
                Some(crate::ir::Ty::Named(model)) => {
                    Expr::text(format!("Some({})", text::string_literal(model)))
                }
                _ => Expr::text("None"),
            };
            Expr::Struct {
                path: "runtime::Webhook".into(),
                fields: vec![
                    ("name".into(), lit(&w.name)),
                    ("method".into(), lit(&op.method)),
                    ("id".into(), lit(&op.id)),
                    ("summary".into(), opt(&op.summary)),
                    ("deprecated".into(), Expr::text(op.deprecated.to_string())),
                    ("payload".into(), payload),
                    ("path".into(), lit(&op.path)),
                    ("signed".into(), Expr::text(op.signed.to_string())),
                ],
            }
        })
        .collect();
    array(entries)
}

/// `SECURITY_SCHEMES`' value.
fn schemes(api: &Api) -> Expr {
    let schemes = api
        .security_schemes
        .iter()
        .map(|s| {
            let kind = match &s.kind {
                SchemeKind::Http(scheme) => Expr::Struct {
                    path: "runtime::SchemeKind::Http".into(),
                    fields: vec![("scheme".into(), lit(scheme))],
                },
                SchemeKind::ApiKey { location, name } => {
                    let location = match location {
                        ParamLocation::Header => "Header",
                        ParamLocation::Query => "Query",
                        ParamLocation::Cookie | ParamLocation::Path => "Cookie",
                    };
                    Expr::Struct {
                        path: "runtime::SchemeKind::ApiKey".into(),
                        fields: vec![
                            (
                                "location".into(),
                                Expr::text(format!("runtime::ApiKeyLocation::{location}")),
                            ),
                            ("name".into(), lit(name)),
                        ],
                    }
                }
                SchemeKind::OAuth2 => Expr::text("runtime::SchemeKind::OAuth2"),
                SchemeKind::OpenIdConnect => Expr::text("runtime::SchemeKind::OpenIdConnect"),
                SchemeKind::MutualTls => Expr::text("runtime::SchemeKind::MutualTls"),
            };
            Expr::Struct {
                path: "runtime::SecurityScheme".into(),
                fields: vec![("name".into(), lit(&s.name)), ("kind".into(), kind)],
            }
        })
        .collect();
    array(schemes)
}

/// `OPERATIONS`' value: an array (not a slice) of every operation.
fn operations(api: &Api) -> Expr {
    let entries = api
        .operations
        .iter()
        .map(|op| Expr::Struct {
            path: "runtime::Operation".into(),
            fields: vec![
                ("id".into(), lit(&op.id)),
                ("method".into(), lit(&op.method)),
                ("path".into(), lit(&op.path)),
                ("tag".into(), lit(&op.tag)),
                (
                    "stability".into(),
                    Expr::text(format!("runtime::Stability::{:?}", op.stability)),
                ),
                ("deprecated".into(), Expr::text(op.deprecated.to_string())),
                ("deprecated_since".into(), opt(&op.deprecated_since)),
                ("sunset".into(), opt(&op.sunset)),
                ("successor".into(), opt(&op.successor)),
                ("security".into(), requirements(&op.security)),
            ],
        })
        .collect();
    let mut operations = array(entries);
    if let Expr::Call { callee, .. } = &mut operations {
        callee.clear();
    }
    operations
}

pub fn items(api: &Api) -> String {
    let mut out = String::new();
    let mut item = |doc: &str, before: String, value: Expr| {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&text::doc_line(doc, ""));
        value.write(&mut out, 0, &before, ";");
    };
    if !api.webhooks.is_empty() {
        item(
            "The webhooks the API sends to its subscribers (3.1 `webhooks`,\n\
             3.0 `callbacks`): the `webhooks` module receives and sends them.",
            "pub const WEBHOOKS: &[runtime::Webhook] = ".into(),
            webhooks(api),
        );
    }
    item(
        "The spec's `info.title`.",
        "pub const TITLE: &str = ".into(),
        lit(&api.title),
    );
    item(
        "The spec's `info.version`.",
        "pub const VERSION: &str = ".into(),
        lit(&api.version),
    );
    item(
        "The path of the spec's first server URL: the operations' paths are\n\
         relative to it.",
        "pub const BASE_PATH: &str = ".into(),
        lit(&api.base_path),
    );
    item(
        "Response headers that every response of every operation declares. They\n\
         are not fields of the response enums: middleware sets them.",
        "pub const COMMON_RESPONSE_HEADERS: &[&str] = ".into(),
        array(api.common_headers.iter().map(|h| lit(&h.wire)).collect()),
    );
    item(
        "The spec's security schemes (`components.securitySchemes`).",
        "pub const SECURITY_SCHEMES: &[runtime::SecurityScheme] = ".into(),
        schemes(api),
    );
    item(
        "The document's own `security`: what requests that no operation\n\
         serves (an unknown path, say) are held to.",
        "pub const DEFAULT_SECURITY: &[runtime::SecurityRequirement] = ".into(),
        requirements(&api.default_security),
    );
    item(
        "Every operation, in the order of the spec. The constants below point\n\
         into it, so an operation has one address.",
        format!(
            "pub static OPERATIONS: [runtime::Operation; {}] = ",
            api.operations.len()
        ),
        operations(api),
    );
    for (i, op) in api.operations.iter().enumerate() {
        out.push('\n');
        out.push_str(&text::doc_line(&format!("`{} {}`", op.method, op.path), ""));
        out.push_str(&format!(
            "pub const {}: &runtime::Operation = &OPERATIONS[{i}];\n",
            ident(&op.const_name)
        ));
    }
    out.push_str(
        "\n/// The operation with this operationId.\n\
         pub fn by_id(id: &str) -> Option<&'static runtime::Operation> {\n    \
         OPERATIONS.iter().find(|op| op.id == id)\n}\n",
    );
    out
}
