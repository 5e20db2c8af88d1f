//! Operations whose responses are the same share one response enum: the
//! later ones name it through an alias, and the enum, how the server sends
//! it and how the client reads it are compiled in for every group that
//! uses it, so that each group's feature alone still builds.

fn operations_rs(spec: &str) -> String {
    let config = apigen::Config {
        command: "test".into(),
        source: "spec.yaml".into(),
        lenient: true,
        runtime: apigen::Runtime::Crate,
        group_features: true,
        serde_sides: false,
        check_formats: false,
    };
    let generated = apigen::generate("spec.yaml", spec, &config).unwrap_or_else(|d| panic!("{d}"));
    generated.files["operations.rs"].clone()
}

const SPEC: &str = r##"
openapi: 3.0.3
info: {title: Shared, version: "1"}
tags: [{name: apples}, {name: pears}, {name: plums}]
paths:
  /apples/{id}:
    delete:
      operationId: deleteApple
      tags: [apples]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "204": {description: Gone.}
        "404": {description: No such thing., content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}}
  /pears/{id}:
    delete:
      operationId: deletePear
      tags: [pears]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "204": {description: Gone.}
        "404": {description: No such thing., content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}}
  /plums/{id}:
    delete:
      operationId: deletePlum
      tags: [plums]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "204": {description: Gone for good.}
        "404": {description: No such thing., content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}}
components:
  schemas:
    Problem:
      type: object
      properties: {message: {type: string}}
"##;

/// The attribute and doc lines right above the line starting with `item`.
fn attributes_of<'a>(text: &'a str, item: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(item))
        .unwrap_or_else(|| panic!("no `{item}` in:\n{text}"));
    lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.starts_with('#') || l.starts_with("///"))
        .copied()
        .collect()
}

#[test]
fn the_same_responses_are_one_enum_compiled_for_every_group_using_it() {
    let text = operations_rs(SPEC);
    assert!(
        text.contains("pub type DeletePearResponse = DeleteAppleResponse;"),
        "{text}"
    );
    assert_eq!(text.matches("pub enum DeleteAppleResponse").count(), 1);
    assert!(!text.contains("pub enum DeletePearResponse"), "{text}");
    assert!(
        !text.contains("impl runtime::Response for DeletePearResponse"),
        "{text}"
    );
    // The enum and its server side are in for either group's feature.
    assert!(
        attributes_of(&text, "pub enum DeleteAppleResponse")
            .contains(&r#"#[cfg(any(feature = "apples", feature = "pears"))]"#),
        "{text}"
    );
    assert!(
        attributes_of(&text, "impl runtime::Response for DeleteAppleResponse").contains(
            &r#"#[cfg(all(feature = "serving", any(feature = "apples", feature = "pears")))]"#
        ),
        "{text}"
    );
    assert!(
        attributes_of(&text, "impl runtime::ReadAnswer for DeleteAppleResponse").contains(
            &r#"#[cfg(all(feature = "client", any(feature = "apples", feature = "pears")))]"#
        ),
        "{text}"
    );
    // The alias is its own group's.
    assert!(
        attributes_of(&text, "pub type DeletePearResponse")
            .contains(&r#"#[cfg(feature = "pears")]"#),
        "{text}"
    );
}

#[test]
fn responses_that_differ_in_a_description_keep_their_own_enum() {
    let text = operations_rs(SPEC);
    assert!(text.contains("pub enum DeletePlumResponse"), "{text}");
    assert!(
        attributes_of(&text, "pub enum DeletePlumResponse")
            .contains(&r#"#[cfg(feature = "plums")]"#),
        "{text}"
    );
}
