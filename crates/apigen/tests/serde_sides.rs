//! Generated with `Config::serde_sides` (`apigen generate --serde-sides`,
//! opt-in), a model's serde impls are compiled for the sides that use
//! them: a client writes requests and reads responses and webhook
//! payloads, a server the other way round; `serialize` and `deserialize`
//! put them on every model, and are the only way to them on a model no
//! operation uses; newtypes and what they hold keep both whatever the
//! sides. By default every model implements both, whatever the features
//! (the last test).

fn models(text: &str) -> String {
    let config = apigen::Config {
        command: "test".into(),
        source: "spec.yaml".into(),
        lenient: true,
        runtime: apigen::Runtime::Crate,
        group_features: false,
        serde_sides: true,
        check_formats: false,
    };
    let generated = apigen::generate("spec.yaml", text, &config).unwrap_or_else(|d| panic!("{d}"));
    generated.files["models.rs"].clone()
}

/// The `cfg` predicates of `name`'s `Serialize` and `Deserialize` impls,
/// as its derives' `#[wire(write_if(...), read_if(...))]` gives them
/// (`None` for an impl compiled with its type); panics when the type
/// does not derive them.
fn sides(models: &str, name: &str) -> [Option<String>; 2] {
    let lines: Vec<&str> = models.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            l.starts_with(&format!("pub struct {name} "))
                || l.starts_with(&format!("pub enum {name} "))
        })
        .unwrap_or_else(|| panic!("no type `{name}` in\n{models}"));
    let attrs: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.starts_with("#[") || l.starts_with("    ") || l.starts_with(")]"))
        .copied()
        .collect();
    assert!(
        attrs.iter().any(|l| l.contains("runtime::Serialize"))
            && attrs.iter().any(|l| l.contains("runtime::Deserialize")),
        "`{name}` derives both: {attrs:?}"
    );
    // The attributes as one text (a long one is laid out a word a line).
    let attrs: String = attrs.iter().rev().map(|l| l.trim()).collect();
    let wire = attrs.find("#[wire(").map_or("", |at| &attrs[at..]);
    ["write_if(", "read_if("].map(|key| {
        let start = wire.find(key)? + key.len();
        // The predicate runs to its own closing parenthesis.
        let mut depth = 1;
        let end = wire[start..].char_indices().find_map(|(i, c)| {
            depth += match c {
                '(' => 1,
                ')' => -1,
                _ => 0,
            };
            (depth == 0).then_some(start + i)
        })?;
        Some(wire[start..end].to_string())
    })
}

/// `sides` as expected: the predicates, each for a set of features.
fn lines(write: &str, read: &str) -> [Option<String>; 2] {
    [write, read].map(|features| Some(features.to_string()))
}

const CLIENT_WRITES: &str = r#"any(feature = "client", feature = "serialize")"#;
const SERVER_READS: &str = r#"any(feature = "serving", feature = "deserialize")"#;
const SERVER_WRITES: &str = r#"any(feature = "serving", feature = "serialize")"#;
const CLIENT_READS: &str = r#"any(feature = "client", feature = "mock", feature = "deserialize")"#;

const DOC: &str = r#"openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /orders:
    post:
      operationId: placeOrder
      requestBody:
        content: {application/json: {schema: {$ref: '#/components/schemas/NewOrder'}}}
      responses:
        '200':
          description: placed
          content: {application/json: {schema: {$ref: '#/components/schemas/Order'}}}
        '400':
          description: refused
          content: {application/json: {schema: {$ref: '#/components/schemas/Problem'}}}
  /notes:
    put:
      operationId: putNote
      requestBody:
        content: {application/json: {schema: {$ref: '#/components/schemas/Note'}}}
      responses:
        '200':
          description: stored
          content: {application/json: {schema: {$ref: '#/components/schemas/Note'}}}
  /held:
    get:
      operationId: getHeld
      responses:
        '200':
          description: a response type an unreached type also holds
          content: {application/json: {schema: {$ref: '#/components/schemas/Held'}}}
  /trees:
    get:
      operationId: getTree
      responses:
        '200':
          description: a tree
          content: {application/json: {schema: {$ref: '#/components/schemas/Tree'}}}
webhooks:
  orderShipped:
    post:
      requestBody:
        content: {application/json: {schema: {$ref: '#/components/schemas/Shipment'}}}
      responses: {'200': {description: received}}
components:
  schemas:
    NewOrder:
      type: object
      properties: {kind: {$ref: '#/components/schemas/Kind'}}
    Kind: {type: string, enum: [small, large]}
    Order:
      type: object
      properties: {id: {type: integer}, status: {$ref: '#/components/schemas/Status'}}
    Status: {type: string, enum: [open, shipped]}
    Problem:
      type: object
      properties: {message: {type: string}}
    Note:
      type: object
      properties: {text: {type: string}}
    Tree: {$ref: '#/components/schemas/Forest'}
    Forest: {type: array, items: {$ref: '#/components/schemas/Tree'}}
    Shipment:
      type: object
      properties: {order: {type: integer}}
    Unused:
      type: object
      properties: {x: {type: integer}, note: {$ref: '#/components/schemas/Held'}}
    Held:
      type: object
      properties: {y: {type: integer}}
"#;

#[test]
fn a_request_type_is_written_by_clients_and_read_by_servers() {
    let m = models(DOC);
    for name in ["NewOrder", "Kind"] {
        assert_eq!(
            sides(&m, name),
            lines(CLIENT_WRITES, SERVER_READS),
            "{name}"
        );
    }
}

#[test]
fn a_response_type_is_written_by_servers_and_read_by_clients_and_mocks() {
    let m = models(DOC);
    for name in ["Order", "Status", "Problem"] {
        assert_eq!(
            sides(&m, name),
            lines(SERVER_WRITES, CLIENT_READS),
            "{name}"
        );
    }
}

#[test]
fn a_type_both_carry_is_on_with_either_side() {
    let m = models(DOC);
    assert_eq!(
        sides(&m, "Note"),
        lines(
            r#"any(feature = "client", feature = "serving", feature = "serialize")"#,
            r#"any(feature = "serving", feature = "client", feature = "deserialize")"#
        )
    );
}

/// A webhook's payload is a request of the `webhooks` module: its sender
/// (a client) writes it, its receiver (served) reads it.
#[test]
fn a_webhook_payload_is_written_by_senders_and_read_by_receivers() {
    let m = models(DOC);
    assert_eq!(sides(&m, "Shipment"), lines(CLIENT_WRITES, SERVER_READS));
}

#[test]
fn what_no_operation_uses_implements_them_when_asked() {
    let m = models(DOC);
    assert_eq!(
        sides(&m, "Unused"),
        lines(r#"feature = "serialize""#, r#"feature = "deserialize""#)
    );
    // What it holds keeps its own sides: every side's impl also answers
    // to `serialize`, so `Unused` never lacks one.
    assert_eq!(sides(&m, "Held")[0], lines(SERVER_WRITES, CLIENT_READS)[0]);
}

#[test]
fn a_newtype_and_what_it_holds_implement_both_always() {
    let m = models(DOC);
    assert!(m.contains(
        "serde::Serialize, serde::Deserialize)]\n#[serde(transparent)]\npub struct Tree("
    ));
}
