//! OpenAPI 3.2: read through the 3.1 pipeline. A 3.1 document relabelled
//! 3.2.0 generates the same crate; what 3.2 adds is rewritten where 3.1
//! can say it, and otherwise left out with a note at its place, never
//! dropped silently.

#[path = "support/upgrade.rs"]
mod upgrade;
#[path = "support/versions.rs"]
mod versions;

use versions::config;

use std::path::Path;

fn generate(text: &str) -> apigen::Generated {
    apigen::generate("spec.yaml", text, &config()).unwrap_or_else(|d| panic!("{d}"))
}

/// The pet store's spec, in 3.1 and relabelled 3.2.0, and each 3.0
/// document of the corpus under a megabyte the same way: the same files.
#[test]
fn a_3_1_document_relabelled_3_2_generates_the_same_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut documents = vec![root.join("spec/openapi.yaml")];
    let corpus = root.join("../shared/corpus");
    if let Ok(entries) = std::fs::read_dir(&corpus) {
        documents.extend(entries.flatten().map(|e| e.path()).filter(|p| {
            p.extension().is_some_and(|e| e == "yaml")
                && p.metadata().is_ok_and(|m| m.len() < 1_000_000)
        }));
    }
    for path in &documents {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(mut value) = serde_yaml::from_str::<serde_yaml::Value>(&text) else {
            continue;
        };
        upgrade::upgrade(&mut value);
        let v31 = serde_yaml::to_string(&value).unwrap();
        let v32 = v31.replacen("openapi: 3.1.0", "openapi: 3.2.0", 1);
        assert_ne!(v31, v32, "{}", path.display());
        let (a, b) = (generate(&v31), generate(&v32));
        assert_eq!(a.files, b.files, "{}", path.display());
        assert_eq!(a.notes.len(), b.notes.len(), "{}", path.display());
    }
    assert!(!documents.is_empty());
}

/// What 3.2 adds is generated, said in 3.1's terms, or noted: never
/// dropped silently.
#[test]
fn what_3_2_adds_is_generated_as_3_1_says_it_or_noted() {
    let text = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\n\
        paths:\n  /pets:\n    query:\n      operationId: searchPets\n      responses: {'200': {description: ok}}\n\
        \x20   get:\n      operationId: listPets\n      parameters:\n\
        \x20       - {name: q, in: querystring, content: {text/plain: {schema: {type: string}}}}\n\
        \x20       - {name: limit, in: query, schema: {type: integer, maximum: 10}}\n\
        \x20     responses:\n        '200':\n          summary: The pets\n\
        \x20         content: {application/json: {schema: {type: array, items: {type: string}}}}\n";
    let generated = generate(text);
    let notes: Vec<String> = generated
        .notes
        .iter()
        .map(|n| format!("{:?}: {}", n.location, n.message))
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("#/paths/~1pets/get/parameters/0")),
        "a query string of plain text is noted: {notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains("#/paths/~1pets/query")),
        "{notes:?}"
    );
    let operations = &generated.files["operations.rs"];
    assert!(operations.contains("fn list_pets("), "the GET is generated");
    assert!(operations.contains("pub limit:"), "its query parameter too");
    assert!(
        operations.contains("`QUERY /pets` (operationId `searchPets`)"),
        "and the QUERY beside it"
    );
    assert!(operations.contains("The pets"), "the summary describes");
    assert!(generated.skipped.is_empty(), "{:?}", generated.skipped);
}

/// Every public 3.2 document in `tests/corpus32` generates, with nothing
/// skipped, except the one whose security scheme is a reference to a
/// remote document, which is never fetched.
#[test]
fn every_public_3_2_document_generates_with_nothing_skipped() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus32");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        read += 1;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        match apigen::generate(&name, &text, &config()) {
            Ok(generated) => assert!(
                generated.skipped.is_empty(),
                "{name}: {:?}",
                generated.skipped
            ),
            Err(d) if name == "oai-security-scheme-object-examples.yaml" => {
                assert!(
                    d.to_string()
                        .contains("https://example.com/api/openapi.json"),
                    "{d}"
                );
            }
            Err(d) => panic!("{name}: {d}"),
        }
    }
    assert_eq!(read, 38, "the corpus's documents");
}

/// 3.2's tag `kind`: the learning site's example nests its `nav` tags under
/// their parent and marks the operation of its `badge` tag with it.
#[test]
fn a_badge_tag_marks_its_operations_and_nav_tags_nest() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus32");
    let text = std::fs::read_to_string(dir.join("learn-3.2-tags-example.yaml")).unwrap();
    let generated = generate(&text);
    let page = &generated.files["docs.html"];
    let delayed = page
        .find("id=\"operation/get_flights_delayed\"")
        .or_else(|| page.find("/flights/delayed</code>"))
        .expect("the delayed flights' operation");
    let heading = &page[delayed..delayed + page[delayed..].find("</h2>").unwrap()];
    assert!(
        heading.contains("class=\"badge tag\" data-kind=\"badge\"") && heading.contains(">Delays<"),
        "{heading}"
    );
    // A `nav` tag marks nothing; its children nest under it.
    assert_eq!(page.matches("class=\"badge tag\"").count(), 1);
    let flights = page.find("<h2>Flights</h2>").expect("the parent's heading");
    let international = page
        .find("<h3>International</h3>")
        .expect("a child's heading");
    assert!(flights < international);
    assert!(
        !generated.notes.iter().any(|n| n.message.contains("kind")),
        "kind is read, not noted"
    );
}

/// A `$ref` may point into an operation that stands where 3.1 has no
/// field (`query`, `additionalOperations`): it names what stands there,
/// as a pointer into a GET's does, and the two uses share one type.
#[test]
fn references_into_query_and_additional_operations_resolve() {
    let text = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n\
        \x20 /pets:\n    query:\n      operationId: searchPets\n      requestBody:\n        content:\n\
        \x20         application/json:\n            schema: {type: object, properties: {name: {type: string}}}\n\
        \x20     responses: {'200': {description: ok}}\n\
        \x20   additionalOperations:\n      LINK:\n        operationId: linkPets\n\
        \x20       parameters: [{name: Link, in: header, required: true, schema: {type: string}}]\n\
        \x20       responses: {'204': {description: linked}}\n\
        \x20 /other:\n    post:\n      operationId: other\n\
        \x20     parameters: [{$ref: '#/paths/~1pets/additionalOperations/LINK/parameters/0'}]\n\
        \x20     requestBody: {$ref: '#/paths/~1pets/query/requestBody'}\n\
        \x20     responses: {'200': {description: ok}}\n";
    let generated = generate(text);
    let unresolved: Vec<String> = generated
        .notes
        .iter()
        .map(|n| n.message.clone())
        .filter(|m| m.contains("unresolved"))
        .collect();
    assert!(unresolved.is_empty(), "{unresolved:?}");
    let operations = &generated.files["operations.rs"];
    assert!(
        operations.contains("pub struct OtherRequest"),
        "{operations}"
    );
    let other = &operations[operations.find("pub struct OtherRequest").unwrap()..];
    let other = &other[..other.find("\n}\n").unwrap()];
    assert!(other.contains("pub link: String"), "{other}");
    assert!(other.contains("models::SearchPetsBody"), "{other}");
}
