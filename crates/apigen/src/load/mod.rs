//! Reading a document: YAML (or JSON) text -> `openapiv3::OpenAPI`, with errors
//! located by line and column or by JSON pointer.
//!
//! A line of stages, each a function from the document as a value to the
//! document as a value, none calling back into one before it:
//!
//! 1. [`syntax`]: text -> value;
//! 2. [`paths`]: path items and callbacks given by `$ref` inlined;
//! 3. [`v32`] then [`normalize`]: a 3.2 document read as 3.1 (each
//!    addition rewritten, or noted and taken out), and a 3.1 document
//!    rewritten into the 3.0 shape, its webhooks taken out (3.0 is read as
//!    it is);
//! 4. [`repair`]: what the model cannot hold as written (references into
//!    what it does not read, a reference to another kind of component,
//!    `mutualTLS`) made into what it can;
//! 5. [`resolve`]: the value read as the model, repairing what is strictly
//!    invalid but read by every mainstream tool.
//!
//! What they move and assume is recorded in one [`Provenance`], so that
//! every pointer reported is one into the document as written; the tree
//! they all walk is [`tree`].
//!
//! The 3.0 model after `normalize` is the one stage after it reads, and the one
//! the lowering, the emitters and the gate are written against. Why a
//! normalising pass and not a 3.1 model: `openapiv3` models 3.0 only, and the
//! 3.1 features real documents use (type arrays, `const`, `$ref` beside
//! keywords, numeric exclusive bounds, `$defs`) each have a 3.0 spelling that
//! means the same to a code generator, so one rewrite of the parsed value (one
//! walk, about 8 ms on Stripe's 4 MB translated to 3.1) gives every version one
//! pipeline and the same generated code. What 3.0 cannot say is removed and
//! reported as a note. What 3.2 adds and the model has no field for (a
//! discriminator's `defaultMapping`, a tag's `summary` and `parent`, a security
//! scheme's `deprecated`, its device flow) is carried as an extension that
//! lowering reads ([`DEFAULT_MAPPING`] and its siblings). The `events` stage,
//! between `v32` and `normalize`, types a whole event's `data` by its
//! `contentSchema` (or `x-contentSchema`) in every version. The operations of
//! methods the model has no field for (`query`, `additionalOperations`) are
//! read beside it as [`Loaded::other_operations`], which lowering interleaves
//! by path. References to other files are followed by `bundle.rs` and grafted
//! into the root's `components`.

mod events;
pub mod normalize;
mod paths;
mod provenance;
mod repair;
mod resolve;
mod syntax;
mod tree;
mod v32;

pub use provenance::Provenance;
pub use syntax::syntax;
pub(crate) use tree::is_extension;
pub(crate) use v32::{
    self_references, DEFAULT_MAPPING, DEVICE_FLOW, OAUTH2_METADATA_URL, QUERYSTRING,
    SCHEME_DEPRECATED, SEQUENTIAL, TAG_KIND, TAG_PARENT, TAG_SUMMARY,
};

use crate::diag::{Diagnostic, Location, Pointer};
use openapiv3::{OpenAPI, Operation, PathItem};

/// An operation of a method the 3.0 model has no field for: OpenAPI 3.2's
/// `query`, and each of `additionalOperations` (`LINK`, `COPY`).
#[derive(Debug)]
pub struct OtherOperation {
    /// The path it stands under, as written.
    pub path: String,
    /// The method a request names, as sent (`QUERY`, `LINK`).
    pub method: String,
    /// Where it stands: `.../query`, `.../additionalOperations/LINK`.
    pub at: Pointer,
    pub op: Operation,
}

/// A document read into the 3.0 model, with what reading a 3.1 document
/// took out of it.
#[derive(Debug)]
pub struct Loaded {
    pub doc: OpenAPI,
    /// The version the document declares (`3.0.3`, `3.1.0`, `3.2.0`).
    pub version: String,
    /// 3.1 `webhooks`: each name and path item.
    pub webhooks: Vec<(String, PathItem)>,
    /// Operations of methods the model has no field for, in document
    /// order; each stands in `doc`'s path item of its path, which holds
    /// the parameters they share.
    pub other_operations: Vec<OtherOperation>,
    /// What reading the document moved (inlined path items, 3.1's
    /// `$defs`) and noted (3.1 keywords, repairs of what is strictly
    /// invalid).
    pub provenance: Provenance,
    /// Security schemes of 3.1's `type: mutualTLS`, which the transport
    /// enforces: their names.
    pub mutual_tls: Vec<String>,
}

/// Parses a document. Syntax errors carry a line and column; errors in the
/// document's structure carry the JSON pointer of the offending value.
pub fn parse(text: &str) -> Result<Loaded, Vec<Diagnostic>> {
    from_value(syntax(text)?)
}

/// A whole document, as a value, -> `OpenAPI`: the stages after
/// [`syntax`], in order.
pub fn from_value(value: serde_yaml::Value) -> Result<Loaded, Vec<Diagnostic>> {
    let version = version(&value)?;
    let mut provenance = Provenance::default();
    let value = paths::inline_path_items(value, &mut provenance);
    let value = if version.starts_with("3.2.") {
        v32::to_31(value, &mut provenance)
    } else {
        value
    };
    let value = events::typed_data(value, &mut provenance);
    let (value, webhooks) = if version.starts_with("3.0.") {
        (value, Vec::new())
    } else {
        normalize::normalize(value, &mut provenance)
    };
    let (value, mutual_tls) = repair::repair(value, &mut provenance);
    let resolve::Resolved {
        doc,
        webhooks,
        other_operations,
    } = resolve::resolve(value, webhooks, &version, &mut provenance)?;
    Ok(Loaded {
        doc,
        version,
        webhooks,
        other_operations,
        provenance,
        mutual_tls,
    })
}

/// The version the document declares, if it is one this reads.
fn version(value: &serde_yaml::Value) -> Result<String, Vec<Diagnostic>> {
    let version = value
        .get("openapi")
        .and_then(serde_yaml::Value::as_str)
        .unwrap_or_default()
        .to_string();
    if !["3.0.", "3.1.", "3.2."]
        .iter()
        .any(|v| version.starts_with(v))
    {
        return Err(vec![Diagnostic {
            location: Location::Pointer(Pointer::root().join("openapi").to_string()),
            message: if version.is_empty() {
                "not an OpenAPI document: `openapi` field is missing".to_string()
            } else {
                format!(
                    "unsupported OpenAPI version `{version}`: 3.0.x, 3.1.x and 3.2.x are supported"
                )
            },
        }]);
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::syntax::decode_fragment;
    use super::*;

    #[test]
    fn yaml_syntax_errors_report_line_and_column() {
        let errors = parse("openapi: 3.0.3\ninfo:\n  title: [unclosed\n").unwrap_err();
        assert!(matches!(
            errors[0].location,
            Location::LineColumn { line: 4, .. } | Location::LineColumn { line: 3, .. }
        ));
        assert!(errors[0].message.starts_with("invalid YAML"));
    }

    #[test]
    fn integers_beyond_64_bits_become_floats() {
        let v =
            syntax("minimum: -9223372036854776000\nmaximum: 18446744073709551616\nx: 3\n").unwrap();
        assert_eq!(v["minimum"].as_f64(), Some(-9223372036854776000.0));
        assert_eq!(v["maximum"].as_f64(), Some(18446744073709551616.0));
        assert_eq!(v["x"].as_i64(), Some(3));
    }

    #[test]
    fn keys_that_are_not_strings_are_read_as_names() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\n          content:\n            application/json:\n              examples:\n                0: {value: x}\n                true: {value: y}\n";
        let loaded = parse(text).unwrap();
        let op = loaded.doc.paths.paths["/a"]
            .as_item()
            .unwrap()
            .get
            .as_ref()
            .unwrap();
        let response = op.responses.responses[&openapiv3::StatusCode::Code(200)]
            .as_item()
            .unwrap();
        let examples = &response.content["application/json"].examples;
        assert_eq!(examples.keys().collect::<Vec<_>>(), ["0", "true"]);
    }

    #[test]
    fn json_is_read_as_json_with_what_yaml_forbids_and_positions_of_its_own() {
        // C1 control, NEL and LINE SEPARATOR inside strings: JSON allows
        // them, YAML does not.
        let text = "{\"openapi\": \"3.0.3\",\n \"info\": {\"title\": \"t\u{85}\u{2028}\u{9c}\", \"version\": \"1\"},\n \"paths\": {}}";
        let loaded = parse(text).unwrap();
        assert_eq!(loaded.doc.info.title, "t\u{85}\u{2028}\u{9c}");
        let broken = "{\"openapi\": \"3.0.3\",\n  \"info\": {\"title\": \"t\"\n  \"paths\": {}}";
        let errors = syntax(broken).unwrap_err();
        assert_eq!(
            errors[0].location,
            Location::LineColumn { line: 3, column: 3 }
        );
        assert!(errors[0].message.starts_with("invalid JSON"), "{errors:?}");
    }

    #[test]
    fn references_are_percent_decoded_before_they_are_resolved() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /pets/{petId}:\n    parameters: [{name: petId, in: path, required: true, schema: {type: string}}]\n    get:\n      parameters:\n        - $ref: '#/paths/~1pets~1%7BpetId%7D/parameters/0'\n      responses: {'200': {description: ok}}\n      x-note: {$ref: '#/a%20b'}\n      x-other: '%7B'\n";
        let value = syntax(text).unwrap();
        let op = &value["paths"]["/pets/{petId}"]["get"];
        assert_eq!(
            op["parameters"][0]["$ref"].as_str(),
            Some("#/paths/~1pets~1{petId}/parameters/0")
        );
        assert_eq!(
            op["x-note"]["$ref"].as_str(),
            Some("#/a%20b"),
            "extensions are data"
        );
        assert_eq!(
            decode_fragment("other.yaml#/components/schemas/A%20B").as_deref(),
            Some("other.yaml#/components/schemas/A B")
        );
        assert_eq!(decode_fragment("#/a/100%").as_deref(), Some("#/a/100%"));
        assert_eq!(decode_fragment("#/a/b"), None);
    }

    #[test]
    fn other_versions_are_refused() {
        for version in ["2.0", "3.3.0", "4"] {
            let errors = parse(&format!("openapi: '{version}'\n")).unwrap_err();
            assert_eq!(errors[0].location, Location::Pointer("#/openapi".into()));
            assert!(errors[0].message.contains(version), "{:?}", errors[0]);
        }
        let swagger = parse("swagger: '2.0'\n").unwrap_err();
        assert!(swagger[0].message.contains("`openapi` field is missing"));
    }

    #[test]
    fn versions_3_0_3_1_and_3_2_are_read() {
        for version in ["3.0.0", "3.0.3", "3.1.0", "3.1.1", "3.2.0"] {
            let loaded = parse(&format!(
                "openapi: {version}\ninfo: {{title: t, version: '1'}}\npaths: {{}}\n"
            ))
            .unwrap();
            assert_eq!(loaded.version, version);
        }
    }

    #[test]
    fn structural_errors_carry_a_pointer() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: {'200': {description: ok, content: [1]}}\n";
        let errors = parse(text).unwrap_err();
        assert_eq!(
            errors[0].location,
            Location::Pointer("#/paths/~1a/get/responses/200".into())
        );
        assert!(
            errors[0].message.contains("expected a map"),
            "{}",
            errors[0].message
        );
    }

    /// Strictly invalid documents that every mainstream tool reads are read
    /// too, each assumption a note at its place.
    #[test]
    fn what_tools_read_past_is_read_with_a_note() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: 1.0}\npaths:\n  /a:\n    get:\n      parameters: [{name: q, in: query}]\n    post:\n      responses: {'200': {content: {}}}\n  /b:\n    get:\n      responses: ~\n";
        let loaded = parse(text).unwrap();
        assert_eq!(loaded.doc.info.version, "1.0");
        let notes: Vec<(String, String)> = loaded
            .provenance
            .assumed
            .iter()
            .map(|d| (d.location.to_string(), d.message.clone()))
            .collect();
        let said = |pointer: &str, words: &str| {
            assert!(
                notes
                    .iter()
                    .any(|(at, m)| at == pointer && m.contains(words)),
                "no note at {pointer} saying `{words}`: {notes:?}"
            );
        };
        said(
            "#/info/version",
            "`version` is not a string: read as \"1.0\"",
        );
        said("#/paths/~1a/get", "`responses` is missing");
        said("#/paths/~1a/get/parameters/0", "read as a string");
        said("#/paths/~1a/post/responses/200", "`description` is missing");
        said("#/paths/~1b/get/responses", "`responses` is null");
        let a = loaded.doc.paths.paths["/a"].as_item().unwrap();
        let q = a.get.as_ref().unwrap().parameters[0].as_item().unwrap();
        assert!(matches!(
            q.parameter_data_ref().format,
            openapiv3::ParameterSchemaOrContent::Schema(_)
        ));
    }
}
