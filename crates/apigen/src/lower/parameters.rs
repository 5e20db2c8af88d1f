//! Parameters: an operation's own and its path item's, by name and place,
//! each lowered to its shape, style and checks.

use super::pointer;
use super::responses::is_json;
use super::{resolve, Lowerer};
use crate::diag::Pointer;
use crate::ir::*;
use crate::names::{sanitize, Case, Namer};
use openapiv3::{Parameter, ParameterSchemaOrContent, ReferenceOr};
use std::collections::BTreeMap;

impl<'a> Lowerer<'a> {
    /// The parameters of an operation: the path item's first, overridden by
    /// the operation's own of the same name and place; a path segment the
    /// template names and nothing declares is taken as a string (an
    /// assumption, noted). `names` hands out field names (`body` is taken).
    pub(super) fn parameters(
        &mut self,
        route: &super::operations::Route<'a>,
        type_name: &str,
        names: &mut Namer,
    ) -> Vec<Param> {
        let at = &route.at;
        let path_at = &route.item_at;
        let path_level = route
            .path_params
            .iter()
            .enumerate()
            .map(|(i, p)| (path_at.join("parameters").join(i), p));
        let op_level = route
            .op
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (at.join("parameters").join(i), p));
        let mut resolved: Vec<(Pointer, &Parameter)> = Vec::new();
        for (pat, p) in path_level.chain(op_level) {
            let Some(param) = self.resolve_parameter(p, &pat) else {
                continue;
            };
            let data = param.parameter_data_ref();
            if let Some(slot) = resolved.iter_mut().find(|(_, q)| {
                let d = q.parameter_data_ref();
                d.name == data.name && std::mem::discriminant(*q) == std::mem::discriminant(param)
            }) {
                *slot = (pat, param);
            } else {
                resolved.push((pat, param));
            }
        }
        let mut params: Vec<Param> = resolved
            .into_iter()
            .filter_map(|(pat, param)| self.param(param, &pat, type_name, names))
            .collect();
        for segment in path_template_names(&route.path) {
            if params
                .iter()
                .any(|p| p.location == ParamLocation::Path && p.wire == segment)
            {
                continue;
            }
            // The template names it, so it exists: take it as a string.
            self.assume(
                at,
                format!("path parameter `{segment}` is not declared"),
                "taken from the path as a string",
            );
            if self.lenient {
                params.push(Param {
                    wire: segment.clone(),
                    pointer: at.to_string(),
                    rust: names.unique(sanitize(&segment, Case::Snake)),
                    location: ParamLocation::Path,
                    required: true,
                    shape: Shape::new(Ty::String),
                    doc: Some(
                        "Not declared by the document; taken from the path as a string.".into(),
                    ),
                    deprecated: false,
                    sunset: None,
                    explode: false,
                    style: Style::Simple,
                    scalar_named: false,
                    union: false,
                    default: None,
                });
            }
        }
        params
    }

    pub(super) fn resolve_parameter(
        &mut self,
        p: &'a ReferenceOr<Parameter>,
        at: &Pointer,
    ) -> Option<&'a Parameter> {
        self.resolve(p, pointer::Node::parameter, at)
            .map(|(p, _)| p)
    }

    pub(super) fn param(
        &mut self,
        param: &Parameter,
        at: &Pointer,
        op_type: &str,
        names: &mut Namer,
    ) -> Option<Param> {
        let data = param.parameter_data_ref();
        let (location, style) = location_and_style(param);
        // OpenAPI's default: `form` explodes, every other style does not.
        let explode = data.explode.unwrap_or(style == Style::Form);
        // A parameter described by `content` is its media type's text: JSON,
        // or (any other media type) the text itself.
        let (schema, schema_at, content) = match &data.format {
            ParameterSchemaOrContent::Schema(s) => (Some(s), at.join("schema"), None),
            ParameterSchemaOrContent::Content(content) => {
                let Some((media, m)) = content.iter().next() else {
                    self.error(
                        &at.join("content"),
                        format!("parameter `{}`: `content` names no media type", data.name),
                    );
                    return None;
                };
                let schema_at = at.join("content").join(media).join("schema");
                (m.schema.as_ref(), schema_at, Some(is_json(media)))
            }
        };
        let hint = format!("{op_type}{}", sanitize(&data.name, Case::Pascal));
        let shape = match (schema, content) {
            (_, Some(false)) => Shape::new(Ty::String),
            (Some(schema), _) => self.shape_of(schema, &schema_at, &hint)?,
            (None, _) => Shape::new(Ty::Json),
        };
        let union = matches!(&shape.ty, Ty::Named(n) if matches!(resolve(&self.types, n).map(|t| &t.kind), Some(TypeKind::Union(_))));
        // A deepObject parameter is read as a nested value: any type will do;
        // a union in a form query parameter is read from its value or values.
        let ok = style == Style::DeepObject
            || (union && location == ParamLocation::Query && style == Style::Form)
            || match &shape.ty {
                Ty::Array(items) => scalar_ok(items, &self.types),
                _ => scalar_ok(&shape, &self.types) || object_ok(&shape, &self.types),
            };
        // JSON text where the document says so, or where the style cannot
        // carry the shape: never a skipped operation.
        let whole =
            data.extensions.get(crate::load::QUERYSTRING) == Some(&serde_json::Value::Bool(true));
        let (style, note) = match content {
            Some(true) if whole => (
                Style::QueryString,
                Some("The whole query string, as JSON text (`in: querystring`)."),
            ),
            Some(true) => (
                Style::Json,
                Some("Sent as JSON text, as its `content` says."),
            ),
            Some(false) => (style, None),
            None if ok => (style, None),
            None => (
                Style::Json,
                Some("Sent as JSON text: its style cannot carry a value of this shape."),
            ),
        };
        let scalar_named =
            !matches!(style, Style::Json | Style::QueryString) && scalar_ok(&shape, &self.types);
        let default = match schema {
            Some(ReferenceOr::Item(s)) => s.schema_data.default.clone(),
            _ => None,
        };
        let doc = match (data.description.clone(), note) {
            (Some(d), Some(note)) => Some(format!("{d}\n\n{note}")),
            (d, note) => d.or(note.map(str::to_string)),
        };
        let ext = |key: &'static str| data.extensions.get(key).map(|v| (key, v));
        let sunset =
            self.date_extension(ext("x-deprecated-sunset").or_else(|| ext("x-sunset")), at);
        Some(Param {
            wire: data.name.clone(),
            pointer: at.to_string(),
            rust: names.unique(sanitize(&data.name, Case::Snake)),
            location,
            required: data.required || location == ParamLocation::Path,
            shape,
            doc,
            deprecated: data.deprecated.unwrap_or(false),
            sunset,
            explode,
            style,
            scalar_named,
            union,
            default,
        })
    }
}

pub(super) fn path_template_names(path: &str) -> Vec<String> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name.to_string()))
        .collect()
}

/// Where a parameter goes and in which style, as the document says.
fn location_and_style(param: &Parameter) -> (ParamLocation, Style) {
    use openapiv3::{PathStyle, QueryStyle};
    match param {
        Parameter::Path { style, .. } => (
            ParamLocation::Path,
            match style {
                PathStyle::Simple => Style::Simple,
                PathStyle::Label => Style::Label,
                PathStyle::Matrix => Style::Matrix,
            },
        ),
        Parameter::Query { style, .. } => (
            ParamLocation::Query,
            match style {
                QueryStyle::Form => Style::Form,
                QueryStyle::SpaceDelimited => Style::SpaceDelimited,
                QueryStyle::PipeDelimited => Style::PipeDelimited,
                QueryStyle::DeepObject => Style::DeepObject,
            },
        ),
        Parameter::Header { .. } => (ParamLocation::Header, Style::Simple),
        Parameter::Cookie { .. } => (ParamLocation::Cookie, Style::Form),
    }
}

/// Whether a style can write a value of `s` as one text: no object, list
/// or JSON.
fn scalar_ok(s: &Shape, types: &BTreeMap<String, TypeDef>) -> bool {
    match &s.ty {
        Ty::Named(n) => matches!(resolve(types, n).map(|t| &t.kind), Some(TypeKind::Enum(_))),
        Ty::Json | Ty::Bytes | Ty::Map(_) | Ty::Array(_) => false,
        _ => true,
    }
}

/// An object a style can write: its properties scalars or arrays of them.
fn object_ok(s: &Shape, types: &BTreeMap<String, TypeDef>) -> bool {
    match &s.ty {
        Ty::Named(n) => match resolve(types, n).map(|t| &t.kind) {
            Some(TypeKind::Struct(st)) => st.fields.iter().all(|f| match &f.shape.ty {
                Ty::Array(items) => scalar_ok(items, types),
                _ => scalar_ok(&f.shape, types),
            }),
            _ => false,
        },
        Ty::Map(values) => scalar_ok(values, types),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_templates() {
        assert_eq!(path_template_names("/a/{x}/b/{y}"), ["x", "y"]);
    }
}
