//! The evolution gate, rule by rule: each case is a base document, a
//! revision, and the findings expected (rule and level), nothing more.

use apigen::diff::{diff, Document, Level};

/// A small API: one read (`getItem`), one write (`createItem`), their
/// parameters, bodies, responses and headers. `{stability}` and `{lifecycle}`
/// are spliced into `getItem`; edits are textual replacements on this.
const BASE: &str = r#"
openapi: 3.0.3
info: {title: Items, version: '1'}
security: [{key: []}]
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer, format: int32}}
        - {name: expand, in: query, schema: {type: string, enum: [owner, tags]}}
        - {name: q, in: query, schema: {type: string, maxLength: 10}}
      responses:
        '200':
          description: The item.
          headers:
            ETag: {required: true, schema: {type: string}}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
        '404': {description: Not found.}
  /items:
    post:
      operationId: createItem
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/NewItem'}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
components:
  securitySchemes:
    key: {type: http, scheme: bearer}
  schemas:
    NewItem:
      type: object
      required: [name]
      properties:
        name: {type: string, maxLength: 100}
        color: {type: string, enum: [red, green]}
        size: {type: integer, minimum: 1, maximum: 10}
    Item:
      type: object
      required: [id, name]
      properties:
        id: {type: integer}
        name: {type: string}
        note: {type: string}
"#;

/// The findings of `base` -> `revision`, as (rule, level), in order.
fn findings(base: &str, revision: &str) -> Vec<(String, Level)> {
    let base = Document::parse("base.yaml", base).unwrap_or_else(|d| panic!("{d}"));
    let revision = Document::parse("revision.yaml", revision).unwrap_or_else(|d| panic!("{d}"));
    diff(&base, &revision, "2026-11-23")
        .findings
        .into_iter()
        .map(|f| (f.rule.id().to_string(), f.level))
        .collect()
}

/// `BASE` with each `(from, to)` replaced, every replacement required to
/// change something.
fn edit(base: &str, edits: &[(&str, &str)]) -> String {
    let mut text = base.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "`{from}` is not in the document");
        text = text.replacen(from, to, 1);
    }
    text
}

const GET: &str = "      operationId: getItem\n";

fn with_get(extra: &str) -> String {
    edit(BASE, &[(GET, &format!("{GET}{extra}"))])
}

#[track_caller]
fn check(base: &str, revision: &str, expected: &[(&str, Level)]) {
    let got = findings(base, revision);
    let expected: Vec<(String, Level)> =
        expected.iter().map(|(r, l)| (r.to_string(), *l)).collect();
    assert_eq!(got, expected);
}

use Level::{Error, Info, Warning};

#[test]
fn identical_documents_and_reordered_keys_report_nothing() {
    check(BASE, BASE, &[]);
    let reordered = edit(
        BASE,
        &[(
            "        name: {type: string, maxLength: 100}\n        color: {type: string, enum: [red, green]}\n",
            "        color: {enum: [red, green], type: string}\n        name: {maxLength: 100, type: string}\n",
        )],
    );
    check(BASE, &reordered, &[]);
}

#[test]
fn descriptions_and_refactors_that_keep_the_meaning_report_nothing() {
    let described = edit(
        BASE,
        &[("description: The item.", "description: The item, whole.")],
    );
    check(BASE, &described, &[]);
    // A schema moved inline from components, and a component renamed.
    let inlined = edit(
        BASE,
        &[(
            "            schema: {$ref: '#/components/schemas/NewItem'}",
            "            schema: {type: object, required: [name], properties: {name: {type: string, maxLength: 100}, color: {type: string, enum: [red, green]}, size: {type: integer, minimum: 1, maximum: 10}}}",
        )],
    );
    check(BASE, &inlined, &[]);
    let renamed = BASE
        .replace("schemas/Item'", "schemas/Thing'")
        .replace("    Item:\n", "    Thing:\n");
    check(BASE, &renamed, &[]);
    // A path parameter renamed: the same URLs.
    let param = BASE
        .replace("/items/{id}:", "/items/{itemId}:")
        .replace("{name: id, in: path", "{name: itemId, in: path");
    check(BASE, &param, &[]);
}

#[test]
fn removing_operations_follows_stability_deprecation_and_sunset() {
    let without_get = |doc: &str| {
        let start = doc.find("  /items/{id}:").unwrap();
        let end = doc.find("  /items:\n").unwrap();
        format!("{}{}", &doc[..start], &doc[end..])
    };
    check(
        BASE,
        &without_get(BASE),
        &[("api-removed-without-deprecation", Error)],
    );
    let beta = with_get("      x-stability: beta\n");
    check(
        &beta,
        &without_get(&beta),
        &[("api-removed-without-deprecation", Warning)],
    );
    let experimental = with_get("      x-stability-level: draft\n");
    check(
        &experimental,
        &without_get(&experimental),
        &[("api-removed-without-deprecation", Info)],
    );
    let sunset_ahead =
        with_get("      deprecated: true\n      x-deprecated-sunset: '2030-12-05'\n");
    check(
        &sunset_ahead,
        &without_get(&sunset_ahead),
        &[("api-removed-before-sunset", Error)],
    );
    let sunset_past = with_get("      deprecated: true\n      x-sunset: '2026-11-23'\n");
    check(
        &sunset_past,
        &without_get(&sunset_past),
        &[("api-removed-after-sunset", Info)],
    );
    let no_date = with_get("      deprecated: true\n");
    check(
        &no_date,
        &without_get(&no_date),
        &[("api-removed-deprecated", Info)],
    );
    // A sunset that cannot be read: whether it passed is unknown, so the
    // removal fails the gate, and the base's bad date is named as well.
    let unreadable = with_get("      deprecated: true\n      x-sunset: 'next spring'\n");
    check(
        &unreadable,
        &without_get(&unreadable),
        &[
            ("api-removed-sunset-unreadable", Error),
            ("lifecycle-annotation-unreadable", Warning),
        ],
    );
}

#[test]
fn lifecycle_annotations_change_under_rules_of_their_own() {
    let beta = with_get("      x-stability: beta\n");
    check(BASE, &beta, &[("api-stability-decreased", Error)]);
    check(&beta, BASE, &[("api-stability-increased", Info)]);
    check(
        BASE,
        &with_get("      deprecated: true\n"),
        &[("api-deprecated-without-sunset", Error)],
    );
    check(
        BASE,
        &with_get("      deprecated: true\n      x-deprecated-sunset: '2031-01-01'\n"),
        &[("api-deprecated", Info)],
    );
    check(
        &beta,
        &with_get("      x-stability: beta\n      deprecated: true\n"),
        &[("api-deprecated", Info)],
    );
    let later = with_get("      deprecated: true\n      x-deprecated-sunset: '2031-01-01'\n");
    let earlier = with_get("      deprecated: true\n      x-deprecated-sunset: '2030-06-01'\n");
    check(
        &later,
        &earlier,
        &[("api-sunset-date-changed-too-small", Error)],
    );
    check(&earlier, &later, &[("api-sunset-date-extended", Info)]);
}

#[test]
fn unreadable_annotations_are_errors_in_the_revision() {
    check(
        BASE,
        &with_get("      deprecated: true\n      x-deprecated-sunset: 'next year'\n"),
        &[
            ("api-deprecated-without-sunset", Error),
            ("lifecycle-annotation-unreadable", Error),
        ],
    );
    check(
        BASE,
        &with_get("      x-stability: shaky\n"),
        &[("lifecycle-annotation-unreadable", Error)],
    );
}

#[test]
fn request_parameters_may_not_tighten() {
    let expand = "        - {name: expand, in: query, schema: {type: string, enum: [owner, tags]}}";
    let q = "        - {name: q, in: query, schema: {type: string, maxLength: 10}}";
    check(
        BASE,
        &edit(BASE, &[(expand, "        - {name: expand, in: query, required: true, schema: {type: string, enum: [owner, tags]}}")]),
        &[("request-parameter-became-required", Error)],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                expand,
                "        - {name: expand, in: query, schema: {type: integer}}",
            )],
        ),
        &[("request-parameter-type-changed", Error)],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                expand,
                "        - {name: expand, in: query, schema: {type: string, enum: [owner]}}",
            )],
        ),
        &[("request-parameter-enum-value-removed", Error)],
    );
    check(
        BASE,
        &edit(BASE, &[(q, "        - {name: q, in: query, schema: {type: string, maxLength: 5, pattern: '^[a-z]+$'}}")]),
        &[("request-parameter-max-length-decreased", Error), ("request-parameter-pattern-added", Error)],
    );
    // Loosening is not reported.
    check(
        BASE,
        &edit(
            BASE,
            &[
                (expand, "        - {name: expand, in: query, schema: {type: string, enum: [owner, tags, all]}}"),
                (q, "        - {name: q, in: query, schema: {type: string, maxLength: 20}}"),
            ],
        ),
        &[],
    );
    // A new optional parameter is information, a new required one breaks
    // callers, a parameter no longer read is information.
    let page = |required: bool| {
        edit(BASE, &[(q, &format!("{q}\n        - {{name: page, in: query, required: {required}, schema: {{type: integer}}}}"))])
    };
    check(
        BASE,
        &page(false),
        &[("new-optional-request-parameter", Info)],
    );
    check(
        BASE,
        &page(true),
        &[("new-required-request-parameter", Error)],
    );
    check(&page(false), BASE, &[("request-parameter-removed", Info)]);
    // Widening a path parameter's format is not breaking; narrowing is.
    let int32 = "schema: {type: integer, format: int32}}";
    let int64 = "schema: {type: integer, format: int64}}";
    check(BASE, &edit(BASE, &[(int32, int64)]), &[]);
    check(
        &edit(BASE, &[(int32, int64)]),
        BASE,
        &[("request-parameter-type-changed", Error)],
    );
}

#[test]
fn breaking_changes_to_beta_operations_are_warnings_and_to_experimental_ones_information() {
    let optional =
        "        - {name: expand, in: query, schema: {type: string, enum: [owner, tags]}}";
    let required = "        - {name: expand, in: query, required: true, schema: {type: string, enum: [owner, tags]}}";
    let beta = with_get("      x-stability: beta\n");
    check(
        &beta,
        &edit(&beta, &[(optional, required)]),
        &[("request-parameter-became-required", Warning)],
    );
    let experimental = with_get("      x-stability: experimental\n");
    check(
        &experimental,
        &edit(&experimental, &[(optional, required)]),
        &[("request-parameter-became-required", Info)],
    );
}

#[test]
fn request_bodies_may_not_tighten() {
    check(
        BASE,
        &edit(BASE, &[("      required: [name]\n      properties:\n        name: {type: string, maxLength: 100}", "      required: [name, color]\n      properties:\n        name: {type: string, maxLength: 100}")]),
        &[("request-property-became-required", Error)],
    );
    check(
        BASE,
        &edit(BASE, &[("        size: {type: integer, minimum: 1, maximum: 10}", "        size: {type: integer, minimum: 1, maximum: 10}\n        sku: {type: string}")]).replacen("required: [name]", "required: [name, sku]", 1),
        &[("new-required-request-property", Error)],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "name: {type: string, maxLength: 100}",
                "name: {type: string, maxLength: 50}",
            )],
        ),
        &[("request-property-max-length-decreased", Error)],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "size: {type: integer, minimum: 1, maximum: 10}",
                "size: {type: integer, minimum: 2, maximum: 10}",
            )],
        ),
        &[("request-property-min-increased", Error)],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "size: {type: integer, minimum: 1, maximum: 10}",
                "size: {type: string}",
            )],
        ),
        &[("request-property-type-changed", Error)],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "color: {type: string, enum: [red, green]}",
                "color: {type: string, enum: [red]}",
            )],
        ),
        &[("request-property-enum-value-removed", Error)],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "    NewItem:\n      type: object\n",
                "    NewItem:\n      type: object\n      additionalProperties: false\n",
            )],
        ),
        &[("request-additional-properties-refused", Error)],
    );
    let optional_body = edit(
        BASE,
        &[(
            "      requestBody:\n        required: true\n",
            "      requestBody:\n",
        )],
    );
    check(
        &optional_body,
        BASE,
        &[("request-body-became-required", Error)],
    );
    check(
        BASE,
        &edit(BASE, &[("          application/json:\n            schema: {$ref: '#/components/schemas/NewItem'}", "          application/x-www-form-urlencoded:\n            schema: {$ref: '#/components/schemas/NewItem'}")]),
        &[("request-body-media-type-changed", Error)],
    );
}

#[test]
fn responses_may_not_loosen() {
    check(
        BASE,
        &edit(
            BASE,
            &[("      required: [id, name]\n", "      required: [id]\n")],
        ),
        &[
            ("response-property-became-optional", Error),
            ("response-property-became-optional", Error),
        ],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[
                (
                    "        name: {type: string}\n        note:",
                    "        note:",
                ),
                // A name still listed as required would stay required, as
                // any value.
                ("      required: [id, name]\n", "      required: [id]\n"),
            ],
        ),
        &[
            ("response-required-property-removed", Error),
            ("response-required-property-removed", Error),
        ],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "        note: {type: string}",
                "        note: {type: string, nullable: true}",
            )],
        ),
        &[
            ("response-property-became-nullable", Error),
            ("response-property-became-nullable", Error),
        ],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[("        id: {type: integer}", "        id: {type: string}")],
        ),
        &[
            ("response-property-type-changed", Error),
            ("response-property-type-changed", Error),
        ],
    );
    // A new optional response property is information.
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "        note: {type: string}",
                "        note: {type: string}\n        tags: {type: array, items: {type: string}}",
            )],
        ),
        &[
            ("response-property-added", Info),
            ("response-property-added", Info),
        ],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "          headers:\n            ETag: {required: true, schema: {type: string}}\n",
                "",
            )],
        ),
        &[("response-required-header-removed", Error)],
    );
    check(
        BASE,
        &edit(BASE, &[("        '404': {description: Not found.}\n", "")]),
        &[("response-non-success-status-removed", Info)],
    );
    check(
        BASE,
        &edit(
            BASE,
            &[(
                "        '201':\n          description: Created.",
                "        '202':\n          description: Created.",
            )],
        ),
        &[
            ("response-success-status-removed", Error),
            ("response-status-added", Info),
        ],
    );
    check(
        BASE,
        &edit(BASE, &[("          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Item'}\n        '404'", "          content:\n            text/csv:\n              schema: {type: string}\n        '404'")]),
        &[("response-media-type-changed", Error)],
    );
}

#[test]
fn security_may_not_grow_and_new_operations_are_information() {
    check(
        &with_get("      security: []\n"),
        BASE,
        &[("api-security-added", Error)],
    );
    check(
        &with_get("      x-stability: experimental\n      security: []\n"),
        &with_get("      x-stability: experimental\n"),
        &[("api-security-added", Warning)],
    );
    check(
        BASE,
        &with_get("      security: []\n"),
        &[("api-security-relaxed", Info)],
    );
    let added = BASE.replace(
        "components:\n",
        "  /health:\n    get:\n      operationId: health\n      responses: {'204': {description: ok}}\ncomponents:\n",
    );
    check(BASE, &added, &[("api-added", Info)]);
}

#[test]
fn findings_name_both_places_with_lines() {
    let base = Document::parse("base.yaml", BASE).unwrap();
    let revision = Document::parse(
        "revision.yaml",
        &edit(
            BASE,
            &[(
                "name: {type: string, maxLength: 100}",
                "name: {type: string, maxLength: 50}",
            )],
        ),
    )
    .unwrap();
    let report = diff(&base, &revision, "2026-11-23");
    let text = report.text(&base, &revision);
    assert!(
        text.contains("POST /items\n  error[request-property-max-length-decreased]: property `name` of the request body: maxLength is now 50\n    --> base:     base.yaml:44:9 #/components/schemas/NewItem/properties/name\n    --> revision: revision.yaml:44:9 #/components/schemas/NewItem/properties/name\n"),
        "{text}"
    );
    assert!(
        text.ends_with("1 error, 0 warnings, 0 info: the revision breaks promises the base made\n"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&report.json(&base, &revision, "2026-11-23")).unwrap();
    let finding = &json["findings"][0];
    assert_eq!(finding["rule"], "request-property-max-length-decreased");
    assert_eq!(finding["operation"], "POST /items");
    assert_eq!(finding["base"]["line"], 44);
    assert_eq!(
        finding["revision"]["pointer"],
        "#/components/schemas/NewItem/properties/name"
    );
}

#[test]
fn a_parameter_with_a_sunset_is_removed_only_after_it() {
    let q = "        - {name: q, in: query, schema: {type: string, maxLength: 10}}\n";
    let without_q = edit(BASE, &[(q, "")]);
    check(BASE, &without_q, &[("request-parameter-removed", Info)]);
    let sunset = |date: &str, key: &str| {
        edit(
            BASE,
            &[(
                q,
                &format!(
                    "        - {{name: q, in: query, deprecated: true, {key}: '{date}', schema: {{type: string, maxLength: 10}}}}\n"
                ),
            )],
        )
    };
    // Before its sunset: an error, whatever the operation's stability.
    check(
        &sunset("2030-12-05", "x-sunset"),
        &without_q,
        &[("request-parameter-removed-before-sunset", Error)],
    );
    check(
        &sunset("2030-12-05", "x-deprecated-sunset"),
        &without_q,
        &[("request-parameter-removed-before-sunset", Error)],
    );
    // On or after it: what any removed parameter is.
    check(
        &sunset("2026-11-23", "x-sunset"),
        &without_q,
        &[("request-parameter-removed", Info)],
    );
}

#[test]
fn bodies_and_headers_come_and_go_under_rules_of_their_own() {
    let post_body = "      requestBody:\n        required: true\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/NewItem'}\n";
    let without_body = edit(BASE, &[(post_body, "")]);
    check(BASE, &without_body, &[("request-body-removed", Info)]);
    check(
        &without_body,
        BASE,
        &[("request-body-added-required", Error)],
    );
    let optional = edit(
        BASE,
        &[(
            post_body,
            &post_body.replace("required: true", "required: false"),
        )],
    );
    check(
        &without_body,
        &optional,
        &[("request-body-added-optional", Info)],
    );
    // A response body goes, and comes.
    let item_body = "          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Item'}\n        '404'";
    let no_item_body = edit(BASE, &[(item_body, "        '404'")]);
    check(BASE, &no_item_body, &[("response-body-removed", Error)]);
    check(&no_item_body, BASE, &[("response-body-added", Info)]);
    // Headers: one that was always sent may not become optional; an
    // optional one may go.
    let etag = "ETag: {required: true, schema: {type: string}}";
    let optional_etag = edit(BASE, &[(etag, "ETag: {schema: {type: string}}")]);
    check(
        BASE,
        &optional_etag,
        &[("response-header-became-optional", Error)],
    );
    let no_etag = edit(
        BASE,
        &[(
            "          headers:\n            ETag: {required: true, schema: {type: string}}\n",
            "",
        )],
    );
    check(
        &optional_etag,
        &no_etag,
        &[("response-optional-header-removed", Info)],
    );
}

#[test]
fn properties_come_and_go_under_rules_of_their_own() {
    // A request property added as optional is information; removed, it is
    // information too unless the body refuses unknown properties.
    let with_note = edit(
        BASE,
        &[("        size: {type: integer, minimum: 1, maximum: 10}\n", "        size: {type: integer, minimum: 1, maximum: 10}\n        note: {type: string}\n")],
    );
    check(BASE, &with_note, &[("new-optional-request-property", Info)]);
    check(&with_note, BASE, &[("request-property-removed", Info)]);
    let strict = |doc: &str| {
        edit(
            doc,
            &[(
                "    NewItem:\n      type: object\n",
                "    NewItem:\n      type: object\n      additionalProperties: false\n",
            )],
        )
    };
    check(
        &strict(&with_note),
        &strict(BASE),
        &[("request-property-removed", Error)],
    );
    // An optional response property removed.
    let without_response_note = edit(BASE, &[("        note: {type: string}\n", "")]);
    // Both operations answer an `Item`.
    check(
        BASE,
        &without_response_note,
        &[
            ("response-optional-property-removed", Info),
            ("response-optional-property-removed", Info),
        ],
    );
}

#[test]
fn parameter_styles_deprecation_withdrawn_and_constructs_not_compared() {
    // An array parameter sent another way.
    let tags = |style: &str| {
        with_get(&format!(
            "      parameters:\n        - {{name: id, in: path, required: true, schema: {{type: integer, format: int32}}}}\n        - {{name: tags, in: query, {style}schema: {{type: array, items: {{type: string}}}}}}\n"
        ))
        .replacen("      parameters:\n        - {name: id, in: path, required: true, schema: {type: integer, format: int32}}\n        - {name: expand, in: query, schema: {type: string, enum: [owner, tags]}}\n        - {name: q, in: query, schema: {type: string, maxLength: 10}}\n", "", 1)
    };
    check(
        &tags(""),
        &tags("style: pipeDelimited, "),
        &[("request-parameter-style-changed", Error)],
    );
    // Deprecation withdrawn.
    let deprecated = with_get("      deprecated: true\n      x-deprecated-sunset: '2031-01-01'\n");
    check(&deprecated, BASE, &[("api-deprecation-withdrawn", Info)]);
    // A construct the generator leaves out is not compared, and says so: a
    // property of a type no version of OpenAPI has.
    let untold = edit(
        BASE,
        &[(
            "        note: {type: string}\n",
            "        note: {type: string}\n        shape: {type: shape}\n",
        )],
    );
    check(
        &untold,
        &untold,
        &[
            ("construct-not-compared", Warning),
            ("construct-not-compared", Warning),
        ],
    );
}

/// Every value rule, at every place it applies: a schema before and after
/// for each kind of change, written where the place puts a value.
#[test]
fn every_value_rule_reports_at_every_place() {
    use apigen::diff::rules::{Change, Place, Rule};
    let schemas = |change: Change| -> (&str, &str) {
        match change {
            Change::TypeChanged => ("{type: string}", "{type: boolean}"),
            Change::BecameNotNullable => ("{type: string, nullable: true}", "{type: string}"),
            Change::BecameNullable => ("{type: string}", "{type: string, nullable: true}"),
            Change::MaxLengthDecreased => (
                "{type: string, maxLength: 10}",
                "{type: string, maxLength: 5}",
            ),
            Change::MinLengthIncreased => ("{type: string}", "{type: string, minLength: 2}"),
            Change::MaxItemsDecreased => (
                "{type: array, items: {type: string}, maxItems: 5}",
                "{type: array, items: {type: string}, maxItems: 2}",
            ),
            Change::MinItemsIncreased => (
                "{type: array, items: {type: string}}",
                "{type: array, items: {type: string}, minItems: 1}",
            ),
            Change::MaxDecreased => (
                "{type: integer, maximum: 10}",
                "{type: integer, maximum: 5}",
            ),
            Change::MinIncreased => ("{type: integer}", "{type: integer, minimum: 1}"),
            Change::PatternAdded => ("{type: string}", "{type: string, pattern: '^a'}"),
            Change::PatternChanged => (
                "{type: string, pattern: '^a'}",
                "{type: string, pattern: '^b'}",
            ),
            Change::EnumValueRemoved => {
                ("{type: string, enum: [a, b]}", "{type: string, enum: [a]}")
            }
            Change::EnumValueAdded => ("{type: string, enum: [a]}", "{type: string, enum: [a, b]}"),
            Change::OneOfRemoved => (
                "{oneOf: [{type: string}, {type: integer}]}",
                "{oneOf: [{type: string}]}",
            ),
            Change::OneOfAdded => (
                "{oneOf: [{type: string}]}",
                "{oneOf: [{type: string}, {type: integer}]}",
            ),
        }
    };
    let document = |place: Place, schema: &str| -> String {
        let (parameters, request, response, headers) = match place {
            Place::RequestParameter => (
                format!("      parameters: [{{name: v, in: query, schema: {schema}}}]\n"),
                String::new(),
                String::new(),
                String::new(),
            ),
            Place::RequestBody => (
                String::new(),
                schema.to_string(),
                String::new(),
                String::new(),
            ),
            Place::RequestProperty => (
                String::new(),
                format!("{{type: object, properties: {{v: {schema}}}}}"),
                String::new(),
                String::new(),
            ),
            Place::ResponseBody => (
                String::new(),
                String::new(),
                schema.to_string(),
                String::new(),
            ),
            Place::ResponseProperty => (
                String::new(),
                String::new(),
                format!("{{type: object, properties: {{v: {schema}}}}}"),
                String::new(),
            ),
            Place::ResponseHeader => (
                String::new(),
                String::new(),
                String::new(),
                format!("          headers: {{X-V: {{required: true, schema: {schema}}}}}\n"),
            ),
        };
        let body = if request.is_empty() {
            String::new()
        } else {
            format!("      requestBody:\n        required: true\n        content: {{application/json: {{schema: {request}}}}}\n")
        };
        let content = if response.is_empty() {
            String::new()
        } else {
            format!("          content: {{application/json: {{schema: {response}}}}}\n")
        };
        format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /v:\n    post:\n      operationId: v\n{parameters}{body}      responses:\n        '200':\n          description: ok\n{headers}{content}"
        )
    };
    let mut failures = Vec::new();
    for rule in Rule::all() {
        let Rule::Value(place, change) = rule else {
            continue;
        };
        let (before, after) = schemas(change);
        let got = findings(&document(place, before), &document(place, after));
        let expected = if matches!(
            change,
            Change::PatternChanged | Change::EnumValueAdded | Change::OneOfAdded
        ) {
            Warning
        } else {
            Error
        };
        if !got.contains(&(rule.id(), expected)) {
            failures.push(format!(
                "{}: expected at {expected:?}, found {got:?}",
                rule.id()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every rule of the gate has a base/revision case in this file: a rule
/// nobody exercised could report anything, or nothing.
#[test]
fn every_rule_has_a_case() {
    let source = include_str!("spec_diff.rs");
    // Value rules are each exercised by `every_value_rule_reports_at_every_place`.
    let missing: Vec<String> = apigen::diff::rules::Rule::all()
        .into_iter()
        .filter(|rule| !matches!(rule, apigen::diff::rules::Rule::Value(..)))
        .map(|rule| rule.id())
        .filter(|id| !source.contains(&format!("(\"{id}\", ")))
        .collect();
    assert!(missing.is_empty(), "rules without a case: {missing:?}");
}

/// Generation shares an inline struct identical to an earlier one; the
/// gate does not, so a finding in the second names the second's place.
#[test]
fn findings_in_repeated_inline_bodies_name_their_own_place() {
    let body = |name: &str, max: u32| {
        format!(
            "  /{name}:\n    post:\n      operationId: create_{name}\n      requestBody:\n        required: true\n        content:\n          application/json:\n            schema:\n              type: object\n              properties:\n                title: {{type: string, maxLength: {max}, description: The {name} title.}}\n      responses:\n        '204': {{description: Done.}}\n"
        )
    };
    let doc = |second: u32| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: Twins, version: '1'}}\npaths:\n{}{}",
            body("first", 10),
            body("second", second)
        )
    };
    let base = Document::parse("base.yaml", &doc(10)).unwrap();
    let revision = Document::parse("revision.yaml", &doc(5)).unwrap();
    let json: serde_json::Value = serde_json::from_str(&diff(&base, &revision, "2026-11-25").json(
        &base,
        &revision,
        "2026-11-25",
    ))
    .unwrap();
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{json}");
    assert_eq!(findings[0]["operation"], "POST /second", "{json}");
    let pointer =
        "#/paths/~1second/post/requestBody/content/application~1json/schema/properties/title";
    assert_eq!(findings[0]["base"]["pointer"], pointer, "{json}");
    assert_eq!(findings[0]["revision"]["pointer"], pointer, "{json}");
}

/// A change of how an operation pages breaks the client's page walks; a
/// new way to page is information.
#[test]
fn a_change_of_paging_is_breaking() {
    let list = |paging: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /items:\n    get:\n      operationId: listItems\n{paging}      parameters:\n        - {{name: after, in: query, schema: {{type: integer}}}}\n        - {{name: page, in: query, schema: {{type: integer}}}}\n      responses:\n        '200':\n          description: A page.\n          content: {{application/json: {{schema: {{type: array, items: {{type: object, properties: {{id: {{type: integer}}}}}}}}}}}}\n"
        )
    };
    let by_cursor = list("      x-pagination: {next: {cursor: after, fromLastItem: /id}}\n");
    let by_page = list("      x-pagination: {next: {page: page}}\n");
    let none = list("");
    check(&by_cursor, &by_cursor, &[]);
    check(&by_cursor, &by_page, &[("paging-changed", Error)]);
    check(&by_cursor, &none, &[("paging-changed", Error)]);
    check(&none, &by_cursor, &[("paging-added", Info)]);
}

/// A feed that streams events of two kinds, and a read that answers JSON.
const STREAMS: &str = r#"
openapi: 3.0.3
info: {title: Feed, version: '1'}
paths:
  /feed:
    get:
      operationId: watch
      responses:
        '200':
          description: Events.
          content:
            text/event-stream:
              schema:
                oneOf:
                  - {$ref: '#/components/schemas/Placed'}
                  - {$ref: '#/components/schemas/Restocked'}
                discriminator: {propertyName: type}
  /now:
    get:
      operationId: now
      responses:
        '200':
          description: The state.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Placed'}
components:
  schemas:
    Placed:
      type: object
      required: [type, orderId]
      properties:
        type: {type: string}
        orderId: {type: integer}
    Restocked:
      type: object
      required: [type, petId]
      properties:
        type: {type: string}
        petId: {type: integer}
"#;

#[test]
fn event_streams_follow_the_rules_of_response_bodies() {
    check(STREAMS, STREAMS, &[]);
    // An event kind removed, and one added: the data's union changed.
    let fewer = edit(
        STREAMS,
        &[(
            "                  - {$ref: '#/components/schemas/Restocked'}\n",
            "",
        )],
    );
    check(STREAMS, &fewer, &[("response-event-kind-removed", Warning)]);
    check(
        fewer.as_str(),
        STREAMS,
        &[("response-body-one-of-added", Warning)],
    );
    // A property an event promised is gone.
    let thinner = edit(
        STREAMS,
        &[("      required: [type, petId]", "      required: [type]")],
    );
    check(
        STREAMS,
        &thinner,
        &[("response-property-became-optional", Error)],
    );
    // The stream became a JSON body: a client reading events breaks.
    let json = edit(
        STREAMS,
        &[(
            "            text/event-stream:\n",
            "            application/json:\n",
        )],
    );
    check(STREAMS, &json, &[("response-media-type-changed", Error)]);
    // A JSON answer that may now also stream: the old answer stays.
    let both = edit(
        STREAMS,
        &[(
            "              schema: {$ref: '#/components/schemas/Placed'}\n",
            "              schema: {$ref: '#/components/schemas/Placed'}\n            text/event-stream:\n              schema: {$ref: '#/components/schemas/Placed'}\n",
        )],
    );
    check(STREAMS, &both, &[("response-status-added", Info)]);
    // And no longer streams: a client reading events breaks.
    check(&both, STREAMS, &[("response-media-type-changed", Error)]);
}

/// An integer's `enum` is a bound: a request may not lose a value it took
/// (nor gain a list), a response may not gain a value it could not hold
/// (`Item` answers two operations: two findings).
#[test]
fn integer_enums_narrow_requests_and_widen_responses() {
    let size = "        size: {type: integer, minimum: 1, maximum: 10}";
    let listed = |values: &str| {
        format!("        size: {{type: integer, minimum: 1, maximum: 10, enum: [{values}]}}")
    };
    check(
        BASE,
        &edit(BASE, &[(size, &listed("1, 2, 3"))]),
        &[("request-property-enum-value-removed", Error)],
    );
    let base = edit(BASE, &[(size, &listed("1, 2, 3"))]);
    check(
        &base,
        &edit(&base, &[(&listed("1, 2, 3"), &listed("1, 2"))]),
        &[("request-property-enum-value-removed", Error)],
    );
    check(
        &base,
        &edit(&base, &[(&listed("1, 2, 3"), &listed("1, 2, 3, 4"))]),
        &[],
    );
    let id = "        id: {type: integer}";
    let ids = |values: &str| format!("        id: {{type: integer, enum: [{values}]}}");
    let base = edit(BASE, &[(id, &ids("1, 2"))]);
    check(
        &base,
        &edit(&base, &[(&ids("1, 2"), &ids("1, 2, 3"))]),
        &[
            ("response-property-enum-value-added", Warning),
            ("response-property-enum-value-added", Warning),
        ],
    );
    check(&base, &edit(&base, &[(&ids("1, 2"), &ids("1"))]), &[]);
}

/// One revision with a change of every section: the getter deprecated
/// with a sunset, a property's bound tightened (breaking), a new optional
/// parameter (added) and a property's description reworded (nothing).
fn every_section() -> (Document, Document) {
    let base = Document::parse("base.yaml", BASE).unwrap();
    let revised = edit(
        &with_get("      deprecated: true\n      x-sunset: '2031-01-01'\n"),
        &[
            (
                "name: {type: string, maxLength: 100}",
                "name: {type: string, maxLength: 50}",
            ),
            (
                "        - {name: q, in: query, schema: {type: string, maxLength: 10}}\n",
                "        - {name: q, in: query, schema: {type: string, maxLength: 10}}\n        - {name: 'lang%2C', in: query, schema: {type: string}}\n",
            ),
        ],
    );
    let revision = Document::parse("revision.yaml", &revised).unwrap();
    (base, revision)
}

#[test]
fn the_report_prints_as_a_markdown_changelog() {
    let (base, revision) = every_section();
    let markdown = diff(&base, &revision, "2026-11-23").markdown(&base, &revision);
    assert_eq!(
        markdown,
        "## Changes from `base.yaml` to `revision.yaml`\n\
         \n### Breaking\n\n\
         - `POST /items` (stable): property `name` of the request body: maxLength is now 50\n\
         \n### Deprecated\n\n\
         - `GET /items/{id}` (stable, sunset 2031-01-01): deprecated, with sunset on 2031-01-01\n\
         \n### Added\n\n\
         - `GET /items/{id}` (stable, sunset 2031-01-01): new optional query parameter `lang%2C`\n"
    );
    let same = diff(&base, &base, "2026-11-23").markdown(&base, &base);
    assert!(same.ends_with("\nNo changes to the interface.\n"), "{same}");
}

/// GitHub's workflow commands: a command per finding at its line in the
/// file that has it, the data's `%` escaped so the runner reads it as text.
#[test]
fn the_report_prints_as_github_workflow_commands() {
    let (base, revision) = every_section();
    let github = diff(&base, &revision, "2026-11-23").github(&base, &revision);
    assert_eq!(
        github,
        "::notice file=revision.yaml,line=7,col=5,title=api-deprecated::GET /items/{id}: deprecated, with sunset on 2031-01-01\n\
         ::notice file=revision.yaml,line=15,col=12,title=new-optional-request-parameter::GET /items/{id}: new optional query parameter `lang%252C`\n\
         ::error file=revision.yaml,line=47,col=9,title=request-property-max-length-decreased::POST /items: property `name` of the request body: maxLength is now 50\n"
    );
    // A removal is only in the base: its command points there.
    let without = {
        let start = BASE.find("  /items/{id}:").unwrap();
        let end = BASE.find("  /items:\n").unwrap();
        format!("{}{}", &BASE[..start], &BASE[end..])
    };
    let revision = Document::parse("revision.yaml", &without).unwrap();
    let github = diff(&base, &revision, "2026-11-23").github(&base, &revision);
    assert!(
        github.starts_with("::error file=base.yaml,line=7,col=5,title=api-removed-without-deprecation::GET /items/{id}: "),
        "{github}"
    );
}

/// The JSON report, version 1: what CI tools read, one object per finding
/// with the operation's stability and sunset, and both places.
#[test]
fn the_report_prints_as_versioned_json() {
    let (base, revision) = every_section();
    let json: serde_json::Value = serde_json::from_str(&diff(&base, &revision, "2026-11-23").json(
        &base,
        &revision,
        "2026-11-23",
    ))
    .unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["date"], "2026-11-23");
    assert_eq!(json["base"], "base.yaml");
    assert_eq!(json["revision"], "revision.yaml");
    assert_eq!(
        json["summary"],
        serde_json::json!({"errors": 1, "warnings": 0, "infos": 2})
    );
    let findings = json["findings"].as_array().unwrap();
    let rules: Vec<&str> = findings
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "api-deprecated",
            "new-optional-request-parameter",
            "request-property-max-length-decreased"
        ]
    );
    let deprecated = &findings[0];
    assert_eq!(deprecated["level"], "info");
    assert_eq!(deprecated["operation"], "GET /items/{id}");
    assert_eq!(deprecated["stability"], "stable");
    assert_eq!(deprecated["sunset"], "2031-01-01");
    let added = &findings[1];
    assert!(added["base"].is_null(), "{added}");
    assert_eq!(
        added["revision"],
        serde_json::json!({"file": "revision.yaml", "pointer": "#/paths/~1items~1{id}/get/parameters/3", "line": 15, "column": 12})
    );
    assert!(findings[2]["sunset"].is_null());
    // The text's count of errors is the JSON's.
    let text = diff(&base, &revision, "2026-11-23").text(&base, &revision);
    assert!(
        text.ends_with("1 error, 0 warnings, 2 info: the revision breaks promises the base made\n"),
        "{text}"
    );
}

/// A lifecycle annotation that cannot be read is named on its operation,
/// an error in the revision (it would ship) and a warning in the base.
#[test]
fn an_unreadable_lifecycle_annotation_is_named_on_its_operation() {
    let bad = with_get("      x-stability: maybe\n");
    check(BASE, &bad, &[("lifecycle-annotation-unreadable", Error)]);
    check(&bad, BASE, &[("lifecycle-annotation-unreadable", Warning)]);
    let base = Document::parse("base.yaml", BASE).unwrap();
    let revision = Document::parse("revision.yaml", &bad).unwrap();
    let text = diff(&base, &revision, "2026-11-23").text(&base, &revision);
    assert!(
        text.starts_with("GET /items/{id}\n  error[lifecycle-annotation-unreadable]: "),
        "{text}"
    );
}

/// A body declared with no media type (`content: {}`) is still a body:
/// its becoming required is compared like any other's.
#[test]
fn a_body_without_a_media_type_is_compared() {
    let post = |required: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /items:\n    post:\n      operationId: createItem\n      requestBody:\n{required}        content: {{}}\n      responses:\n        '204': {{description: Done.}}\n"
        )
    };
    let optional = post("");
    let required = post("        required: true\n");
    check(&optional, &optional, &[]);
    check(
        &optional,
        &required,
        &[("request-body-became-required", Error)],
    );
    check(&required, &optional, &[]);
}

/// OpenAPI 3.2's `query` and `additionalOperations` are compared like any
/// operation: removed, added, or with a body that tightens.
#[test]
fn query_and_additional_operations_are_compared_like_any_other() {
    let base = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /items:\n    query:\n      operationId: searchItems\n      requestBody:\n        content:\n          application/json:\n            schema:\n              type: object\n              properties:\n                name: {type: string}\n      responses: {'200': {description: ok}}\n    additionalOperations:\n      PURGE:\n        operationId: purgeItems\n        responses: {'204': {description: purged}}\n";
    let without_purge = base.replace(
        "    additionalOperations:\n      PURGE:\n        operationId: purgeItems\n        responses: {'204': {description: purged}}\n",
        "",
    );
    check(
        base,
        &without_purge,
        &[("api-removed-without-deprecation", Error)],
    );
    check(&without_purge, base, &[("api-added", Info)]);
    let required = base.replace(
        "              type: object\n",
        "              type: object\n              required: [name]\n",
    );
    check(
        base,
        &required,
        &[("request-property-became-required", Error)],
    );
    let report = diff(
        &Document::parse("base.yaml", base).unwrap(),
        &Document::parse("revision.yaml", &without_purge).unwrap(),
        "2026-11-27",
    );
    assert_eq!(report.findings[0].operation, "PURGE /items");
}

/// OpenAPI 3.2's item schemas are compared like any response body: an item
/// property that stops being sent breaks a client, and a JSON Lines body
/// that becomes bytes is another media type.
#[test]
fn item_schemas_are_compared_like_any_response_body() {
    let base = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /items:\n    get:\n      operationId: exportItems\n      responses:\n        '200':\n          description: ok\n          content:\n            application/jsonl:\n              itemSchema:\n                type: object\n                required: [id]\n                properties:\n                  id: {type: integer}\n";
    let optional = base.replace("                required: [id]\n", "");
    check(
        base,
        &optional,
        &[("response-property-became-optional", Error)],
    );
    let bytes = base.replace("application/jsonl", "application/octet-stream");
    check(base, &bytes, &[("response-media-type-changed", Error)]);
}

/// A document with a webhook (3.1) and a callback of `subscribe`, whose
/// payloads are `Event`; `{hook}` is spliced into the webhook's operation.
const HOOKS: &str = r#"
openapi: 3.1.0
info: {title: Hooks, version: '1'}
paths:
  /subscriptions:
    post:
      operationId: subscribe
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [url], properties: {url: {type: string}}}
      responses:
        '201': {description: Subscribed.}
      callbacks:
        onEvent:
          '{$request.body#/url}':
            post:
              operationId: deliverEvent
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Event'}
              responses:
                '200': {description: Taken.}
webhooks:
  orderPlaced:
    post:
      operationId: orderPlaced
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Event'}
      responses:
        '200':
          description: Taken.
          content:
            application/json:
              schema:
                type: object
                properties:
                  received: {type: boolean}
components:
  schemas:
    Event:
      type: object
      required: [id, kind]
      properties:
        id: {type: integer}
        kind: {type: string, enum: [placed, paid]}
        note: {type: string}
"#;

#[test]
fn webhook_payloads_are_read_by_receivers_as_responses_are_read_by_clients() {
    check(HOOKS, HOOKS, &[]);
    // A payload property removed: every receiver that reads it breaks,
    // the webhook's and the callback's (each reported on its own).
    let removed = edit(
        HOOKS,
        &[
            ("      required: [id, kind]\n", "      required: [kind]\n"),
            ("        id: {type: integer}\n", ""),
        ],
    );
    check(
        HOOKS,
        &removed,
        &[
            ("response-required-property-removed", Error),
            ("response-required-property-removed", Error),
        ],
    );
    // A type changed, a property made optional, an enum value added.
    let changed = edit(
        HOOKS,
        &[
            ("        id: {type: integer}", "        id: {type: string}"),
            ("      required: [id, kind]\n", "      required: [id]\n"),
            ("enum: [placed, paid]", "enum: [placed, paid, refunded]"),
        ],
    );
    let expected = [
        ("response-property-type-changed", Error),
        ("response-property-became-optional", Error),
        ("response-property-enum-value-added", Warning),
    ];
    let found = findings(HOOKS, &changed);
    for rule in expected {
        assert_eq!(
            found
                .iter()
                .filter(|(r, l)| r == rule.0 && *l == rule.1)
                .count(),
            2,
            "{rule:?} for the webhook and the callback: {found:?}"
        );
    }
    // What is only added to a payload breaks no receiver.
    let added = edit(
        HOOKS,
        &[(
            "        note: {type: string}\n",
            "        note: {type: string}\n        extra: {type: string}\n",
        )],
    );
    check(
        HOOKS,
        &added,
        &[
            ("response-property-added", Info),
            ("response-property-added", Info),
        ],
    );
}

#[test]
fn what_receivers_answer_is_read_as_a_request_and_webhooks_keep_their_lifecycle() {
    // The API now requires a property in the receiver's answer: receivers
    // that do not send it break.
    let required = edit(
        HOOKS,
        &[(
            "                type: object\n                properties:",
            "                type: object\n                required: [received]\n                properties:",
        )],
    );
    check(
        HOOKS,
        &required,
        &[("request-property-became-required", Error)],
    );
    // A webhook removed without deprecation breaks its receivers; a beta
    // one is a warning; deprecated with a sunset ahead, an error.
    let without_webhook = |doc: &str| {
        let start = doc.find("webhooks:\n").unwrap();
        let end = doc.find("components:\n").unwrap();
        format!("{}{}", &doc[..start], &doc[end..])
    };
    check(
        HOOKS,
        &without_webhook(HOOKS),
        &[("api-removed-without-deprecation", Error)],
    );
    let webhook_op = "      operationId: orderPlaced\n";
    let beta = edit(
        HOOKS,
        &[(
            webhook_op,
            &format!("{webhook_op}      x-stability: beta\n"),
        )],
    );
    check(
        &beta,
        &without_webhook(&beta),
        &[("api-removed-without-deprecation", Warning)],
    );
    let sunset = edit(
        HOOKS,
        &[(
            webhook_op,
            &format!(
                "{webhook_op}      deprecated: true\n      x-deprecated-sunset: '2030-12-05'\n"
            ),
        )],
    );
    check(
        &sunset,
        &without_webhook(&sunset),
        &[("api-removed-before-sunset", Error)],
    );
    check(HOOKS, &sunset, &[("api-deprecated", Info)]);
    // A callback promises no more than the operation that subscribes.
    let beta_subscription = edit(
        HOOKS,
        &[(
            "      operationId: subscribe\n",
            "      operationId: subscribe\n      x-stability: beta\n",
        )],
    );
    let removed_id = |doc: &str| {
        doc.replace("      required: [id, kind]\n", "      required: [kind]\n")
            .replace("        id: {type: integer}\n", "")
    };
    let found = findings(&beta_subscription, &removed_id(&beta_subscription));
    assert!(
        found.contains(&("response-required-property-removed".into(), Warning)),
        "the callback's finding is a warning: {found:?}"
    );
    assert!(
        found.contains(&("response-required-property-removed".into(), Error)),
        "the webhook's is an error: {found:?}"
    );
}

#[test]
fn webhook_findings_name_the_webhook_in_every_format() {
    let base = Document::parse("base.yaml", HOOKS).unwrap();
    let removed = edit(
        HOOKS,
        &[
            ("      required: [id, kind]\n", "      required: [kind]\n"),
            ("        id: {type: integer}\n", ""),
        ],
    );
    let revision = Document::parse("revision.yaml", &removed).unwrap();
    let report = diff(&base, &revision, "2026-11-23");
    let operations: Vec<&str> = report
        .findings
        .iter()
        .map(|f| f.operation.as_str())
        .collect();
    assert_eq!(
        operations,
        [
            "webhook orderPlaced",
            "callback onEvent of POST /subscriptions"
        ]
    );
    let notes = report.markdown(&base, &revision);
    assert!(
        notes.contains("`webhook orderPlaced`") && notes.contains("property `id` of the payload"),
        "{notes}"
    );
}
