//! OpenAPI 3.1: a 3.1 document and its faithful 3.0 translation generate the
//! same code, feature by feature, on the pet store's own spec, and on the
//! 3.0 corpus translated to 3.1.

#[path = "support/upgrade.rs"]
mod upgrade;
#[path = "support/versions.rs"]
mod versions;

use versions::config;

use std::path::Path;

fn generate(text: &str) -> apigen::Files {
    apigen::generate("spec.yaml", text, &config())
        .unwrap_or_else(|d| panic!("{d}"))
        .files
}

/// Asserts two documents generate the same files, naming the first that
/// differs and the first line where.
#[track_caller]
fn same_code(v31: &str, v30: &str) {
    let (a, b) = (generate(v31), generate(v30));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "different files"
    );
    for (file, text) in &a {
        if *text != b[file] {
            let line = text
                .lines()
                .zip(b[file].lines())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            panic!(
                "{file} differs at line {}:\n3.1: {}\n3.0: {}",
                line + 1,
                text.lines().nth(line).unwrap_or("(end)"),
                b[file].lines().nth(line).unwrap_or("(end)")
            );
        }
    }
}

fn doc(version: &str, schemas: &str) -> String {
    format!(
        "openapi: {version}\ninfo: {{title: t, version: '1'}}\npaths:\n  /things:\n    post:\n      operationId: postThing\n      requestBody:\n        content: {{application/json: {{schema: {{$ref: '#/components/schemas/Thing'}}}}}}\n      responses:\n        '200':\n          description: ok\n          content: {{application/json: {{schema: {{$ref: '#/components/schemas/Thing'}}}}}}\ncomponents:\n  schemas:\n{schemas}"
    )
}

/// Each 3.1 construct, beside the 3.0 it stands for: the same Rust.
#[test]
fn each_3_1_feature_generates_what_its_3_0_equivalent_does() {
    let pairs = [
        (
            "type arrays with null",
            "    Thing: {type: object, properties: {name: {type: [string, 'null']}}}\n",
            "    Thing: {type: object, properties: {name: {type: string, nullable: true}}}\n",
        ),
        (
            "type arrays of several types",
            "    Thing: {type: object, properties: {id: {type: [string, integer]}}}\n",
            "    Thing: {type: object, properties: {id: {anyOf: [{type: string}, {type: integer}]}}}\n",
        ),
        (
            "a null branch",
            "    Thing: {type: object, properties: {tag: {anyOf: [{$ref: '#/components/schemas/Tag'}, {type: 'null'}]}}}\n    Tag: {type: object, properties: {label: {type: string}}}\n",
            "    Thing: {type: object, properties: {tag: {allOf: [{$ref: '#/components/schemas/Tag'}], nullable: true}}}\n    Tag: {type: object, properties: {label: {type: string}}}\n",
        ),
        (
            "const",
            "    Thing: {type: object, required: [kind], properties: {kind: {type: string, const: thing}}}\n",
            "    Thing: {type: object, required: [kind], properties: {kind: {type: string, enum: [thing]}}}\n",
        ),
        (
            "examples arrays",
            "    Thing: {type: object, properties: {n: {type: integer, examples: [1, 2]}}}\n",
            "    Thing: {type: object, properties: {n: {type: integer, example: 1}}}\n",
        ),
        (
            "$ref beside a description",
            "    Thing: {type: object, properties: {tag: {$ref: '#/components/schemas/Tag', description: The tag.}}}\n    Tag: {type: string, maxLength: 8}\n",
            "    Thing: {type: object, properties: {tag: {allOf: [{$ref: '#/components/schemas/Tag'}], description: The tag.}}}\n    Tag: {type: string, maxLength: 8}\n",
        ),
        (
            "numeric exclusive bounds",
            "    Thing: {type: object, properties: {n: {type: integer, exclusiveMinimum: 0, exclusiveMaximum: 10}}}\n",
            "    Thing: {type: object, properties: {n: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true}}}\n",
        ),
        (
            "$defs",
            "    Thing:\n      type: object\n      properties: {part: {$ref: '#/components/schemas/Thing/$defs/Part'}}\n      $defs:\n        Part: {type: object, properties: {n: {type: integer}}}\n",
            "    Thing: {type: object, properties: {part: {$ref: '#/components/schemas/ThingPart'}}}\n    ThingPart: {type: object, properties: {n: {type: integer}}}\n",
        ),
        (
            "prefixItems",
            "    Thing: {type: object, properties: {pair: {type: array, prefixItems: [{type: string}, {type: integer}]}}}\n",
            "    Thing: {type: object, properties: {pair: {type: array, items: {anyOf: [{type: string}, {type: integer}]}}}}\n",
        ),
        (
            "patternProperties",
            "    Thing: {type: object, patternProperties: {'^x-': {type: integer}}}\n",
            "    Thing: {type: object, additionalProperties: {type: integer}}\n",
        ),
        (
            "contentEncoding and contentMediaType",
            "    Thing: {type: object, properties: {data: {type: string, contentEncoding: base64}, image: {type: string, contentMediaType: image/png}}}\n",
            "    Thing: {type: object, properties: {data: {type: string, format: byte}, image: {type: string, format: binary}}}\n",
        ),
        (
            "unevaluatedProperties false",
            "    Thing: {type: object, properties: {n: {type: integer}}, unevaluatedProperties: false}\n",
            "    Thing: {type: object, properties: {n: {type: integer}}, additionalProperties: false}\n",
        ),
    ];
    for (feature, v31, v30) in pairs {
        let result = std::panic::catch_unwind(|| same_code(&doc("3.1.0", v31), &doc("3.0.3", v30)));
        assert!(result.is_ok(), "{feature}: see the panic above");
    }
}

#[test]
fn document_level_3_1_fields_change_nothing() {
    let v31 = "openapi: 3.1.1\njsonSchemaDialect: https://spec.openapis.org/oas/3.1/dialect/base\ninfo: {title: t, version: '1', description: d, summary: s, license: {name: MIT, identifier: MIT}}\npaths:\n  /a: {$ref: '#/components/pathItems/A'}\ncomponents:\n  pathItems:\n    A:\n      get:\n        operationId: getA\n        responses: {'204': {description: ok}}\n";
    let v30 = "openapi: 3.0.3\ninfo: {title: t, version: '1', description: d, license: {name: MIT}}\npaths:\n  /a:\n    get:\n      operationId: getA\n      responses: {'204': {description: ok}}\n";
    same_code(v31, v30);
}

#[test]
fn webhooks_are_received_and_sent_by_the_webhooks_module_never_served_by_the_api() {
    let text = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nwebhooks:\n  newBooking:\n    post:\n      operationId: bookingCreated\n      summary: A booking was made.\n      requestBody:\n        content: {application/json: {schema: {type: object, required: [id], properties: {id: {type: string}}}}}\n      responses: {'200': {description: Received.}}\n";
    let generated = apigen::generate("spec.yaml", text, &config()).unwrap();
    let models = &generated.files["models.rs"];
    assert!(
        models.contains("pub struct BookingCreatedWebhookBody"),
        "{models}"
    );
    let metadata = &generated.files["metadata.rs"];
    assert!(
        metadata.contains("pub const WEBHOOKS: &[runtime::Webhook]"),
        "{metadata}"
    );
    assert!(
        metadata.contains("payload: Some(\"BookingCreatedWebhookBody\")"),
        "{metadata}"
    );
    assert!(metadata.contains("path: \"/newBooking\""), "{metadata}");
    assert!(metadata.contains("signed: false"), "{metadata}");
    assert!(!generated.files["server.rs"].contains("newBooking"));
    assert_eq!(
        generated.operations(),
        0,
        "a webhook is not the API's operation"
    );
    assert!(generated.files["mod.rs"].contains("pub mod webhooks;"));
    // The receiver serves it at its name; the sender sends it there.
    let receiver = &generated.files["webhooks/server.rs"];
    assert!(
        receiver.contains("web::resource(\"/newBooking\")"),
        "{receiver}"
    );
    let sender = &generated.files["webhooks/client.rs"];
    assert!(sender.contains("pub async fn booking_created("), "{sender}");
    assert!(generated.notes.is_empty(), "{:?}", generated.notes);
}

/// A callback (3.0 and later) is a webhook: received at the literal path of
/// its URL expression, one operation per method; the operation that
/// declares it is generated as ever.
#[test]
fn callbacks_are_received_at_the_path_of_their_url_expression() {
    let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /hooks:\n    post:\n      operationId: registerHook\n      responses: {'204': {description: ok}}\n      callbacks:\n        ping:\n          '{$request.body#/url}/ping':\n            post:\n              responses: {'200': {description: ok}}\n            put:\n              responses: {'200': {description: ok}}\n        pong:\n          '{$request.body#/url}/{$request.body#/id}':\n            post:\n              operationId: pong\n              responses: {'200': {description: ok}}\n";
    let generated = apigen::generate("spec.yaml", text, &config()).unwrap();
    assert_eq!(generated.operations(), 1);
    let metadata = generated.files["webhooks/metadata.rs"]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // The methods of `ping` (in the order a path item lists them) share
    // its path, told apart by method; the second id is made unique.
    for (id, method, path) in [
        ("ping", "PUT", "/ping"),
        ("ping2", "POST", "/ping"),
        ("pong", "POST", "/pong"),
    ] {
        let entry = format!("id: \"{id}\", method: \"{method}\", path: \"{path}\"");
        assert!(metadata.contains(&entry), "{entry} in {metadata}");
    }
    // A path built from the request cannot be served at one place: said.
    let note = generated
        .notes
        .iter()
        .find(|n| n.message.contains("no literal path"))
        .expect("the callback noted");
    assert!(note.message.contains("received at `/pong`"), "{note:?}");
    assert_eq!(
        note.location,
        apigen::Location::Pointer(
            "#/paths/~1hooks/post/callbacks/pong/{$request.body#~1url}~1{$request.body#~1id}"
                .into()
        )
    );
}

/// `x-webhook-signature` takes two values; another is an error at its
/// place, not a webhook left unsigned.
#[test]
fn an_unknown_signature_scheme_is_an_error_at_its_place() {
    let text = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nx-webhook-signature: hmac\nwebhooks:\n  ping:\n    post:\n      responses: {'200': {description: ok}}\n";
    let errors = apigen::generate("spec.yaml", text, &config()).unwrap_err();
    let message = format!("{errors:?}");
    assert!(
        message.contains("`x-webhook-signature` is \\\"hmac\\\""),
        "{message}"
    );
    assert!(message.contains("#/x-webhook-signature"), "{message}");
}

#[test]
fn what_3_0_cannot_say_is_noted_where_it_was_written() {
    let text = doc(
        "3.1.0",
        "    Thing:\n      type: object\n      properties:\n        n: {$ref: '#/components/schemas/Thing/$defs/N'}\n      $defs:\n        N:\n          type: object\n          properties: {k: {type: string}}\n          if: {required: [k]}\n          then: {properties: {k: {minLength: 1}}}\n          propertyNames: {pattern: '^[a-z]+$'}\n",
    );
    let generated = apigen::generate("spec.yaml", &text, &config()).unwrap();
    let notes: Vec<String> = generated
        .notes
        .iter()
        .map(|n| format!("{:?}: {}", n.location, n.message))
        .collect();
    for keyword in ["if", "then", "propertyNames"] {
        let at = format!("#/components/schemas/Thing/$defs/N/{keyword}");
        assert!(notes.iter().any(|n| n.contains(&at)), "{at} in {notes:?}");
    }
    assert!(
        generated.skipped.is_empty(),
        "the schema stands without them"
    );
}

/// The pet store's own spec, translated to 3.1, generates the same code.
#[test]
fn the_pet_store_spec_in_3_1_generates_the_same_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let v30 = std::fs::read_to_string(root.join("spec/openapi.yaml")).unwrap();
    let mut value: serde_yaml::Value = serde_yaml::from_str(&v30).unwrap();
    upgrade::upgrade(&mut value);
    let v31 = serde_yaml::to_string(&value).unwrap();
    assert!(v31.contains("openapi: 3.1.0"));
    same_code(&v31, &v30);
}

/// Every 3.0 document of the corpus under a megabyte, translated to 3.1,
/// generates the same code as the original.
#[test]
fn the_corpus_in_3_1_generates_the_same_code() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let Ok(entries) = std::fs::read_dir(&corpus) else {
        eprintln!("skipped: no corpus at {}", corpus.display());
        return;
    };
    let mut compared = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let small = entry.metadata().is_ok_and(|m| m.len() < 1_000_000);
        if !small || path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let v30 = std::fs::read_to_string(&path).unwrap();
        let Ok(mut value) = serde_yaml::from_str::<serde_yaml::Value>(&v30) else {
            continue;
        };
        upgrade::upgrade(&mut value);
        let v31 = serde_yaml::to_string(&value).unwrap();
        let result = std::panic::catch_unwind(|| same_code(&v31, &v30));
        assert!(result.is_ok(), "{}: see the panic above", path.display());
        compared += 1;
    }
    assert!(compared >= 5, "compared only {compared} documents");
}
