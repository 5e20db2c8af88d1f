//! What the generator says about bad documents: every error located like a
//! compiler's (line and column, or JSON pointer), all errors of a run at once,
//! and never a panic.

fn errors(text: &str) -> String {
    let config = apigen::Config {
        command: "test".into(),
        source: "spec.yaml".into(),
        lenient: false,
        check_formats: false,
        runtime: apigen::Runtime::Crate,
        group_features: false,
        serde_sides: false,
    };
    match apigen::generate("spec.yaml", text, &config) {
        Ok(_) => panic!("expected the document to be refused"),
        Err(d) => d.to_string(),
    }
}

const HEAD: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n";

fn doc(rest: &str) -> String {
    format!("{HEAD}{rest}")
}

#[test]
fn invalid_yaml_gives_line_and_column() {
    let out = errors("openapi: 3.0.3\ninfo:\n  title: t\n  version: [1, 2\npaths: {}\n");
    assert!(out.starts_with("error: invalid YAML"), "{out}");
    assert!(out.contains("--> spec.yaml:5:"), "{out}");
}

#[test]
fn unresolved_refs_name_the_pointer() {
    let out = errors(&doc(
        "paths:\n  /pets:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Missing'}\n",
    ));
    assert_eq!(
        out,
        "error: unresolved reference `#/components/schemas/Missing`\n  \
         --> spec.yaml#/paths/~1pets/get/responses/200/content/application~1json/schema\n\n\
         1 error in spec.yaml"
    );
}

#[test]
fn duplicate_operation_ids_point_at_the_second_and_name_the_first() {
    let out = errors(&doc(
        "paths:\n  /a:\n    get:\n      operationId: same\n      responses: {'204': {description: x}}\n  /b:\n    get:\n      operationId: same\n      responses: {'204': {description: x}}\n",
    ));
    assert!(
        out.contains("error: duplicate operationId `same`: first used at #/paths/~1a/get\n  --> spec.yaml#/paths/~1b/get/operationId"),
        "{out}"
    );
}

#[test]
fn unknown_stability_values_name_the_operation() {
    let out = errors(&doc(
        "paths:\n  /a:\n    get:\n      operationId: getA\n      x-stability: shaky\n      responses: {'204': {description: x}}\n",
    ));
    assert!(
        out.contains("error: operation `getA` has unknown `x-stability` value \"shaky\": expected one of experimental, alpha, beta, stable\n  --> spec.yaml#/paths/~1a/get/x-stability"),
        "{out}"
    );
    let out = errors(&doc(
        "paths:\n  /a:\n    get:\n      operationId: getA\n      x-stability-level: experimental\n      responses: {'204': {description: x}}\n",
    ));
    assert!(
        out.contains("error: operation `getA` has unknown `x-stability-level` value \"experimental\": expected one of draft, alpha, beta, stable\n  --> spec.yaml#/paths/~1a/get/x-stability-level"),
        "{out}"
    );
}

#[test]
fn stability_extensions_must_agree() {
    let out = errors(&doc(
        "paths:\n  /a:\n    get:\n      operationId: getA\n      x-stability: beta\n      x-stability-level: stable\n      responses: {'204': {description: x}}\n",
    ));
    assert!(
        out.contains("error: operation `getA` is `beta` by `x-stability` but `stable` by `x-stability-level`\n  --> spec.yaml#/paths/~1a/get/x-stability-level"),
        "{out}"
    );
}

#[test]
fn security_must_name_declared_schemes() {
    let out = errors(&doc(
        "security: [{apiKey: []}]\npaths:\n  /a:\n    get:\n      operationId: getA\n      security: [{oauth: [read]}]\n      responses: {'204': {description: x}}\n",
    ));
    assert!(
        out.contains("error: security scheme `apiKey` is not declared in `components.securitySchemes`\n  --> spec.yaml#/security/0/apiKey"),
        "{out}"
    );
    assert!(
        out.contains("error: security scheme `oauth` is not declared in `components.securitySchemes`\n  --> spec.yaml#/paths/~1a/get/security/0/oauth"),
        "{out}"
    );
}

/// What the generator reads but cannot express fully is said, at its
/// place, never dropped in silence.
#[test]
fn constructs_read_in_part_are_noted_not_dropped() {
    let lenient = apigen::Config {
        command: "test".into(),
        source: "spec.yaml".into(),
        lenient: true,
        check_formats: false,
        runtime: apigen::Runtime::Crate,
        group_features: false,
        serde_sides: false,
    };
    let generated = apigen::generate(
        "spec.yaml",
        &doc("paths:\n  /a:\n    get:\n      responses:\n        '204':\n          description: x\n          headers:\n            X-Trace: {content: {application/json: {schema: {type: object}}}}\ncomponents:\n  schemas:\n    NotA:\n      not: {type: string}\n    Named:\n      type: string\n      not: {pattern: '^x'}\n    Sink:\n      type: string\n      pattern: '^(?!sink_)[a-z_]+$'\n"),
        &lenient,
    )
    .unwrap();
    let notes: Vec<String> = generated.remarks().collect();
    // A pattern the generated code's regex cannot compile would fail at
    // run time: said and left unchecked.
    assert!(notes.contains(&"note: `pattern` `^(?!sink_)[a-z_]+$` is not checked: Rust's regex cannot compile it (look-around and backreferences are not supported) (#/components/schemas/Sink/pattern)".to_string()), "{notes:?}");
    assert!(!generated.files["models.rs"].contains("sink_"));
    assert!(notes.contains(&"note: a schema that says only what a value is not is read as any value (#/components/schemas/NotA/not)".to_string()), "{notes:?}");
    assert!(notes.contains(&"note: `not` is not checked (only `not: {enum: [...]}` is) (#/components/schemas/Named/not)".to_string()), "{notes:?}");
    assert!(generated.skipped.is_empty(), "{:?}", generated.skipped);
    assert!(generated.files["operations.rs"].contains("x_trace"));
}

#[test]
fn allof_cycles_are_reported_not_looped_on() {
    let out = errors(&doc(
        "paths: {}\ncomponents:\n  schemas:\n    X:\n      allOf:\n        - $ref: '#/components/schemas/Y'\n        - {type: object, properties: {x: {type: string}}}\n    Y:\n      allOf:\n        - $ref: '#/components/schemas/Z'\n    Z:\n      allOf:\n        - $ref: '#/components/schemas/X'\n        - {type: object, properties: {z: {type: string}}}\n",
    ));
    assert!(
        out.contains(
            "error: `allOf` goes round in a cycle (#/components/schemas/X -> #/components/schemas/Y -> #/components/schemas/Z -> #/components/schemas/X)"
        ),
        "{out}"
    );
    assert!(
        out.contains("--> spec.yaml#/components/schemas/Z/allOf/0"),
        "{out}"
    );
}

#[test]
fn bad_dates_and_successors() {
    let out = errors(&doc(
        "paths:\n  /a:\n    get:\n      operationId: old\n      deprecated: true\n      x-deprecated-sunset: 'next year'\n      x-successor: nowhere\n      responses: {'204': {description: x}}\n",
    ));
    assert!(out.contains("error: `x-deprecated-sunset` must be a date written YYYY-MM-DD, found \"next year\"\n  --> spec.yaml#/paths/~1a/get/x-deprecated-sunset"), "{out}");
    assert!(out.contains("error: `x-successor` names `nowhere`, which is not an operationId\n  --> spec.yaml#/paths/~1a/get/x-successor"), "{out}");
}

#[test]
fn one_run_reports_every_error() {
    let out = errors(&doc(
        "paths:\n  /a/{id}:\n    get:\n      operationId: one\n      x-stability: gamma\n      responses: {'200': {description: x, content: {application/json: {schema: {$ref: '#/components/schemas/Nope'}}}}}\n  /b:\n    get:\n      operationId: one\n      responses: {'204': {description: x}}\n",
    ));
    assert!(out.ends_with("4 errors in spec.yaml"), "{out}");
    assert!(out.contains("x-stability"), "{out}");
    assert!(out.contains("path parameter `id` is not declared"), "{out}");
    assert!(out.contains("unresolved reference"), "{out}");
    assert!(out.contains("duplicate operationId"), "{out}");
}

#[test]
fn other_versions_and_non_documents_are_refused() {
    assert!(
        errors("openapi: 3.3.0\ninfo: {title: t, version: '1'}\npaths: {}\n")
            .contains("unsupported OpenAPI version `3.3.0`: 3.0.x, 3.1.x and 3.2.x are supported")
    );
    assert!(errors("just: text\n").contains("`openapi` field is missing"));
    assert!(errors("").contains("`openapi` field is missing"));
}

/// Odd but valid documents generate without a panic.
/// Documents at the edges: each has an expected outcome, strict and lenient.
#[test]
fn odd_documents_give_errors_or_output_never_a_panic() {
    let strict = apigen::Config {
        command: "test".into(),
        source: "spec.yaml".into(),
        lenient: false,
        check_formats: false,
        runtime: apigen::Runtime::Crate,
        group_features: false,
        serde_sides: false,
    };
    let lenient = apigen::Config {
        lenient: true,
        check_formats: false,
        ..strict.clone()
    };
    let generate =
        |rest: &str, config: &apigen::Config| apigen::generate("spec.yaml", &doc(rest), config);

    // Nothing at all: an empty crate.
    let empty = generate("paths: {}\n", &strict).unwrap();
    assert_eq!((empty.operations(), empty.types()), (0, 0));

    // A component that is only a reference to itself.
    let looped = "paths: {}\ncomponents: {schemas: {Empty: {}, Loop: {$ref: '#/components/schemas/Loop'}}}\n";
    let out = generate(looped, &strict).unwrap_err().to_string();
    assert!(
        out.contains("error: `Loop` refers back to itself through references only (Loop -> Loop): one of them needs a schema\n  --> spec.yaml#/components/schemas/Loop"),
        "{out}"
    );
    let skipped = generate(looped, &lenient).unwrap();
    assert_eq!(skipped.skipped.len(), 1, "{:?}", skipped.skipped);
    assert!(skipped.files["models.rs"].contains("pub type Loop = serde_json::Value;"));

    // A struct that holds itself: boxed.
    let recursive = "paths: {}\ncomponents: {schemas: {A: {type: object, properties: {self: {$ref: '#/components/schemas/A'}}}}}\n";
    let models = &generate(recursive, &strict).unwrap().files["models.rs"];
    assert!(models.contains("pub self_: Option<Box<A>>"), "{models}");

    // Two references to each other, and a struct using them.
    let pair = "paths: {}\ncomponents: {schemas: {A: {$ref: '#/components/schemas/B'}, B: {$ref: '#/components/schemas/A'}, C: {type: object, properties: {a: {$ref: '#/components/schemas/A'}}}}}\n";
    let out = generate(pair, &strict).unwrap_err().to_string();
    assert!(
        out.contains("(A -> B -> A)") && out.contains("(B -> A -> B)"),
        "{out}"
    );
    let skipped = generate(pair, &lenient).unwrap();
    assert_eq!(skipped.skipped.len(), 2);
    assert!(skipped.files["models.rs"].contains("pub a: Option<A>"));
}

/// Every name and pointer of `x-pagination` must stand for something in the
/// operation; each mistake is reported at its place, all in one run.
#[test]
fn paging_that_does_not_fit_its_operation_is_located() {
    let list = |op: &str, paging: &str| {
        format!(
            "  /{op}:\n    get:\n      operationId: {op}\n      x-pagination: {paging}\n      parameters:\n        - {{name: after, in: query, schema: {{type: integer}}}}\n      responses:\n        '200':\n          description: A page.\n          content: {{application/json: {{schema: {{type: object, properties: {{data: {{type: array, items: {{type: object, properties: {{id: {{type: integer}}}}}}}}}}}}}}}}\n"
        )
    };
    let out = errors(&doc(&format!(
        "paths:\n{}{}{}",
        list(
            "a",
            "{next: {cursor: before, fromLastItem: /id}, items: /data}"
        ),
        list(
            "b",
            "{next: {cursor: after, fromLastItem: /id}, items: /rows}"
        ),
        list("c", "{next: sideways, items: /data}")
    )));
    assert!(
        out.contains("error: the operation has no query parameter `before`\n  --> spec.yaml#/paths/~1a/get/x-pagination/next"),
        "{out}"
    );
    assert!(
        out.contains("error: `/rows` is not a list in the success response's body\n  --> spec.yaml#/paths/~1b/get/x-pagination/items"),
        "{out}"
    );
    assert!(
        out.contains("error: `next` is `link`, or an object naming a `cursor`, `page` or `offset` parameter\n  --> spec.yaml#/paths/~1c/get/x-pagination/next"),
        "{out}"
    );
}
