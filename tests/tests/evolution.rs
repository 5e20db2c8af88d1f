//! The evolution gate on this project's own interface: the drills of
//! ARCHITECTURE.md, run against the released baseline.

use apigen::diff::{diff, Document, Level};

fn read(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap()
}

/// The released interface and the spec with `edit` applied, compared on
/// `today`: the rules found, with their levels, beyond what the spec as it
/// is already changes (additions since the release, say).
fn gate(edit: impl FnOnce(String) -> String, today: &str) -> Vec<(String, Level)> {
    let already = findings(|s| s, today);
    let mut found = findings(edit, today);
    for f in &already {
        if let Some(i) = found.iter().position(|g| g == f) {
            found.remove(i);
        }
    }
    found
}

/// Every rule the gate finds between the released interface and the spec
/// with `edit` applied.
fn findings(edit: impl FnOnce(String) -> String, today: &str) -> Vec<(String, Level)> {
    let released =
        Document::parse("spec/released/v1.yaml", &read("spec/released/v1.yaml")).unwrap();
    let spec = Document::parse("spec/openapi.yaml", &edit(read("spec/openapi.yaml"))).unwrap();
    diff(&released, &spec, today)
        .findings
        .into_iter()
        .map(|f| (f.rule.id().to_string(), f.level))
        .collect()
}

/// The spec without the operation whose `operationId` is `id`: its block,
/// from its method line to the next method or path (the operation's own
/// `operationId` line, not a link's that names it).
fn without(spec: String, id: &str) -> String {
    let lines: Vec<&str> = spec.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == format!("      operationId: {id}"))
        .unwrap();
    let start = at - 1; // the method line, `    get:`
    let end = (at..lines.len())
        .find(|&i| {
            let l = lines[i];
            l.starts_with("  /")
                || (l.starts_with("    ") && !l.starts_with("     ") && i > at)
                || !l.starts_with(' ')
        })
        .unwrap();
    let mut kept: Vec<&str> = lines[..start].to_vec();
    kept.extend(&lines[end..]);
    kept.join("\n") + "\n"
}

#[test]
fn the_spec_keeps_the_promises_of_the_released_interface() {
    // Additions since the release (a response) are news, not broken promises.
    let broken: Vec<_> = findings(|s| s, "2026-11-23")
        .into_iter()
        .filter(|(_, level)| *level != Level::Info)
        .collect();
    assert_eq!(broken, []);
}

#[test]
fn drill_removing_a_stable_operation_fails() {
    let found = gate(|s| without(s, "listOrders"), "2026-11-23");
    assert_eq!(
        found,
        [("api-removed-without-deprecation".to_string(), Level::Error)]
    );
}

#[test]
fn drill_removing_get_pet_before_its_sunset_fails_and_after_it_passes() {
    let before = gate(|s| without(s, "getPet"), "2026-11-23");
    assert_eq!(
        before,
        [("api-removed-before-sunset".to_string(), Level::Error)]
    );
    let on_the_day = gate(|s| without(s, "getPet"), "2030-12-05");
    assert_eq!(
        on_the_day,
        [("api-removed-after-sunset".to_string(), Level::Info)]
    );
}

#[test]
fn drill_a_required_parameter_on_experimental_update_inventory_passes() {
    let found = gate(
        |s| {
            s.replacen(
                "      operationId: updateInventory\n",
                "      operationId: updateInventory\n      parameters:\n        - {name: reason, in: query, required: true, schema: {type: string}}\n",
                1,
            )
            .replacen(
                "      x-stability: experimental\n      parameters:\n        - $ref: '#/components/parameters/PetId'\n",
                "      x-stability: experimental\n",
                1,
            )
            .replacen(
                "        - {name: reason, in: query, required: true, schema: {type: string}}\n",
                "        - {name: reason, in: query, required: true, schema: {type: string}}\n        - $ref: '#/components/parameters/PetId'\n",
                1,
            )
        },
        "2026-11-23",
    );
    assert_eq!(
        found,
        [("new-required-request-parameter".to_string(), Level::Info)]
    );
}

/// The spec as it is against the spec with `edit` applied: the
/// deliveries' callback is not in the released interface, so its drills
/// start from the spec itself.
fn against_the_spec(
    edit: impl FnOnce(String) -> String,
    today: &str,
) -> Vec<(String, String, Level)> {
    let spec = read("spec/openapi.yaml");
    let base = Document::parse("spec/openapi.yaml", &spec).unwrap();
    let revision = Document::parse("spec/openapi.yaml", &edit(spec)).unwrap();
    diff(&base, &revision, today)
        .findings
        .into_iter()
        .map(|f| (f.operation, f.rule.id().to_string(), f.level))
        .collect()
}

#[test]
fn drill_a_property_made_optional_in_the_store_events_breaks_readers_and_receivers() {
    // `stock` made optional in an order's event: the stream's readers and
    // the webhook receivers may miss a property they always had. Both are
    // beta (the stream itself; the deliveries' callback promises what the
    // beta subscription does), so each is a warning.
    let found = against_the_spec(
        |s| {
            s.replacen(
                "      required: [id, type, orderId, petId, quantity, stock, occurredAt]",
                "      required: [id, type, orderId, petId, quantity, occurredAt]",
                1,
            )
        },
        "2026-11-23",
    );
    let rule = "response-property-became-optional".to_string();
    assert!(
        found.contains(&("GET /store/events".into(), rule.clone(), Level::Warning)),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "callback storeEvent of POST /webhooks".into(),
            rule,
            Level::Warning
        )),
        "{found:?}"
    );
}
