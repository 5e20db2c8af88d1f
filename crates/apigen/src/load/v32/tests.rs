//! The 3.2 stage's tests: each addition rewritten, carried or noted.

use super::*;

fn read(text: &str) -> (Value, Vec<String>) {
    let mut out = Provenance::default();
    let doc = to_31(serde_yaml::from_str(text).unwrap(), &mut out);
    // The stage after this one types an event's data, in every version.
    let doc = super::super::events::typed_data(doc, &mut out);
    let notes = out
        .notes
        .iter()
        .map(|n| format!("{:?}", n.location))
        .collect();
    (doc, notes)
}

#[test]
fn each_addition_is_rewritten_or_noted_where_it_was_written() {
    let (doc, notes) = read(
        "openapi: 3.2.0\n$self: https://example.com/api.yaml\ninfo: {title: t, version: '1'}\n\
         tags: [{name: pets, summary: Pets, parent: store, kind: nav}]\n\
         paths:\n  /pets:\n    query:\n      responses: {'200': {description: ok}}\n\
         \x20   additionalOperations:\n      LINK:\n        parameters: [{name: all, in: querystring, content: {text/plain: {schema: {type: string}}}}]\n        responses: {'200': {description: ok}}\n\
         \x20   get:\n      parameters:\n        - {name: q, in: querystring, content: {application/json: {schema: {type: object}}}}\n\
         \x20       - {name: limit, in: query, schema: {type: integer}}\n\
         \x20     responses:\n        '200':\n          summary: The pets\n\
         \x20         content:\n            application/jsonl:\n              itemSchema: {type: object}\n\
         \x20             examples:\n                one: {dataValue: {a: 1}, serializedValue: 'data: 1'}\n\
         webhooks:\n  ping:\n    query:\n      responses: {'200': {description: ok}}\n\
         components:\n  schemas:\n    Pet:\n      oneOf: [{type: object}]\n      discriminator: {propertyName: kind, defaultMapping: '#/components/schemas/Pet'}\n\
         \x20 securitySchemes:\n    key: {type: apiKey, in: header, name: k, deprecated: true}\n",
    );
    for at in [
        "#/$self",
        "#/paths/~1pets/additionalOperations/LINK/parameters/0",
        "#/webhooks/ping/query",
        "#/paths/~1pets/get/responses/200/content/application~1jsonl/examples/one/serializedValue",
        "#/components/securitySchemes/key/deprecated",
    ] {
        assert!(notes.iter().any(|n| n.contains(at)), "{at} in {notes:?}");
    }
    let get = &doc["paths"]["/pets"]["get"];
    let params = get["parameters"].as_sequence().unwrap();
    // A query string of JSON is a query parameter marked whole; the
    // one of plain text (under LINK) is out, noted.
    assert!(
        notes.iter().all(|n| !n.contains("get/parameters/0")),
        "{notes:?}"
    );
    assert_eq!(params.len(), 2);
    assert_eq!(
        (&params[0]["in"], &params[0][QUERYSTRING]),
        (&Value::from("query"), &Value::from(true))
    );
    assert_eq!(params[1]["name"], "limit");
    let ok = &get["responses"]["200"];
    assert_eq!(ok["description"], "The pets", "a summary describes");
    let items = &ok["content"]["application/jsonl"]["schema"];
    assert_eq!(
        items["type"], "array",
        "items are an array's, as 3.1 writes them"
    );
    assert_eq!(items["items"]["type"], "object");
    assert!(notes.iter().all(|n| !n.contains("itemSchema")), "{notes:?}");
    let example = &ok["content"]["application/jsonl"]["examples"]["one"];
    assert_eq!(example["value"]["a"], 1, "dataValue is the value");
    // Under `paths`, the methods 3.2 adds stay for the stages after
    // this one, which read them as operations; under webhooks they go.
    assert!(doc["paths"]["/pets"].get("query").is_some());
    assert!(doc["paths"]["/pets"]["additionalOperations"]
        .get("LINK")
        .is_some());
    assert!(doc["webhooks"]["ping"].get("query").is_none());
    assert!(doc.get("$self").is_none());
    assert_eq!(doc["tags"][0][TAG_SUMMARY], "Pets");
    assert_eq!(doc["tags"][0][TAG_PARENT], "store");
    assert_eq!(doc["tags"][0][TAG_KIND], "nav");
    let discriminator = &doc["components"]["schemas"]["Pet"]["discriminator"];
    assert_eq!(
        discriminator[DEFAULT_MAPPING], "#/components/schemas/Pet",
        "carried to lowering"
    );
}

#[test]
fn a_media_type_given_by_reference_is_read_where_it_is_used() {
    let mut out = Provenance::default();
    let text = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json: {$ref: '#/components/mediaTypes/Page'}\n            text/plain: {$ref: '#/components/mediaTypes/Missing'}\ncomponents:\n  mediaTypes:\n    Page: {$ref: '#/components/mediaTypes/Items'}\n    Items:\n      schema: {type: array, items: {type: string}}\n      examples: {one: {dataValue: [a]}}\n";
    let doc = to_31(serde_yaml::from_str(text).unwrap(), &mut out);
    let content = &doc["paths"]["/a"]["get"]["responses"]["200"]["content"];
    let json = &content["application/json"];
    assert_eq!(json["schema"]["type"], "array");
    assert_eq!(
        json["examples"]["one"]["value"][0], "a",
        "read as 3.2 where it is used"
    );
    assert!(doc["components"].get("mediaTypes").is_none());
    let at = "#/paths/~1a/get/responses/200/content/application~1json";
    assert_eq!(
        out.original(&format!("{at}/schema")),
        "#/components/mediaTypes/Items/schema",
        "what is reported there points where it was written"
    );
    let missing = &out.assumed[0];
    assert_eq!(
        missing.location,
        crate::diag::Location::Pointer("#/paths/~1a/get/responses/200/content/text~1plain".into())
    );
}

#[test]
fn references_to_the_document_by_its_own_uri_are_local() {
    let own = "https://example.com/api/openapi.yaml";
    for (reference, local) in [
        (
            "https://example.com/api/openapi.yaml#/components/schemas/Pet",
            Some("#/components/schemas/Pet"),
        ),
        (
            "openapi.yaml#/components/schemas/Pet",
            Some("#/components/schemas/Pet"),
        ),
        ("./openapi.yaml#/a", Some("#/a")),
        ("/api/openapi.yaml#/a", Some("#/a")),
        ("//example.com/api/openapi.yaml", Some("#")),
        ("other.yaml#/a", None),
        ("https://example.org/api/openapi.yaml#/a", None),
        ("#/a", None),
    ] {
        assert_eq!(
            local_reference(own, reference).as_deref(),
            local,
            "{reference}"
        );
    }
    let text = "openapi: 3.2.0\n$self: https://example.com/api/openapi.yaml\ninfo: {title: t, version: '1'}\ncomponents:\n  schemas:\n    A: {type: string}\n    B: {$ref: 'openapi.yaml#/components/schemas/A'}\n";
    let (doc, _) = read(text);
    assert_eq!(
        doc["components"]["schemas"]["B"]["$ref"],
        "#/components/schemas/A"
    );
}

#[test]
fn a_serialized_value_under_a_media_type_is_its_value() {
    let text = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /e:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              examples:\n                a: {serializedValue: '{\"n\": 1}'}\n                b: {serializedValue: 'not json'}\n                c: {dataValue: 2, serializedValue: '3'}\n            text/csv:\n              examples:\n                d: {serializedValue: \"n\\n1\"}\n";
    let (doc, notes) = read(text);
    let content = &doc["paths"]["/e"]["get"]["responses"]["200"]["content"];
    let json = &content["application/json"]["examples"];
    assert_eq!(json["a"]["value"]["n"], 1, "parsed as its media type says");
    assert_eq!(json["c"]["value"], 2, "the data wins");
    assert_eq!(
        content["text/csv"]["examples"]["d"]["value"], "n\n1",
        "sent as it is"
    );
    let at = "#/paths/~1e/get/responses/200/content/application~1json/examples";
    for noted in [
        format!("{at}/b/serializedValue"),
        format!("{at}/c/serializedValue"),
    ] {
        assert!(
            notes.iter().any(|n| n.contains(&noted)),
            "{noted} in {notes:?}"
        );
    }
    assert_eq!(notes.len(), 2, "{notes:?}");
}

#[test]
fn a_query_string_form_is_an_exploded_query_object() {
    let text = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /e:\n    get:\n      parameters:\n        - name: q\n          in: querystring\n          content:\n            application/x-www-form-urlencoded:\n              schema: {type: object, properties: {a: {type: integer}}}\n              encoding: {a: {style: form}}\n      responses: {'200': {description: ok}}\n";
    let (doc, notes) = read(text);
    let q = &doc["paths"]["/e"]["get"]["parameters"][0];
    assert_eq!(
        (&q["in"], &q["style"], &q["explode"]),
        (&"query".into(), &"form".into(), &true.into())
    );
    assert_eq!(q["schema"]["properties"]["a"]["type"], "integer");
    assert!(q.get("content").is_none());
    let encoding =
        "#/paths/~1e/get/parameters/0/content/application~1x-www-form-urlencoded/encoding";
    assert!(notes.iter().any(|n| n.contains(encoding)), "{notes:?}");
    assert_eq!(notes.len(), 1, "{notes:?}");
}

#[test]
fn item_schemas_are_the_items_of_a_json_sequence_and_of_parts() {
    let text = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /e:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json-seq:\n              schema: {type: array, maxItems: 9}\n              itemSchema: {type: integer}\n            multipart/mixed:\n              itemSchema: {type: string}\n              itemEncoding: {contentType: application/json}\n              prefixEncoding: [{contentType: text/plain}]\n            multipart/related:\n              itemSchema: {type: string}\n";
    let (doc, notes) = read(text);
    let content = &doc["paths"]["/e"]["get"]["responses"]["200"]["content"];
    let sequence = &content["application/json-seq"];
    assert_eq!(sequence["schema"]["items"]["type"], "integer");
    assert!(sequence.get("itemSchema").is_none());
    // Parts of `multipart/mixed` are items too, marked so; an encoding
    // of JSON parts is what they are, positional ones are noted.
    let parts = &content["multipart/mixed"];
    assert_eq!(parts["schema"]["items"]["type"], "string");
    assert_eq!(parts[SEQUENTIAL], true);
    assert!(parts.get("itemEncoding").is_none());
    assert!(content["multipart/related"].get(SEQUENTIAL).is_none());
    let at = "#/paths/~1e/get/responses/200/content";
    for noted in [
        format!("{at}/application~1json-seq/schema"),
        format!("{at}/multipart~1mixed/prefixEncoding"),
        format!("{at}/multipart~1related/itemSchema"),
    ] {
        assert!(
            notes.iter().any(|n| n.contains(&noted)),
            "{noted} in {notes:?}"
        );
    }
    assert_eq!(notes.len(), 3, "{notes:?}");
}

#[test]
fn an_event_streams_item_schema_is_its_schema_and_its_data_typed() {
    let mut out = Provenance::default();
    let text = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /e:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            text/event-stream:\n              itemSchema:\n                properties:\n                  id: {type: string}\n                  data: {type: string, contentMediaType: application/json, contentSchema: {type: integer}}\n";
    let doc = to_31(serde_yaml::from_str(text).unwrap(), &mut out);
    let doc = super::super::events::typed_data(doc, &mut out);
    let at = "#/paths/~1e/get/responses/200/content/text~1event-stream";
    let media = &doc["paths"]["/e"]["get"]["responses"]["200"]["content"]["text/event-stream"];
    assert!(media.get("itemSchema").is_none());
    assert_eq!(media["schema"]["properties"]["data"]["type"], "integer");
    assert_eq!(
        out.original(&format!("{at}/schema/properties/data/minimum")),
        format!("{at}/itemSchema/properties/data/contentSchema/minimum")
    );
    assert_eq!(
        out.original(&format!("{at}/schema/properties/id")),
        format!("{at}/itemSchema/properties/id")
    );
    assert!(out.notes.is_empty(), "{:?}", out.notes);
}

#[test]
fn an_event_schema_given_by_reference_is_read_where_it_is_used() {
    let mut out = Provenance::default();
    let text = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /e:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            'text/event-stream; charset=utf-8':\n              itemSchema: {$ref: '#/components/schemas/Tick'}\ncomponents:\n  schemas:\n    Tick:\n      properties:\n        data: {type: string, contentSchema: {type: integer}}\n";
    let doc = to_31(serde_yaml::from_str(text).unwrap(), &mut out);
    let doc = super::super::events::typed_data(doc, &mut out);
    let media = &doc["paths"]["/e"]["get"]["responses"]["200"]["content"]
        ["text/event-stream; charset=utf-8"];
    assert_eq!(media["schema"]["properties"]["data"]["type"], "integer");
    let at = "#/paths/~1e/get/responses/200/content/text~1event-stream; charset=utf-8";
    assert_eq!(
        out.original(&format!("{at}/schema/properties/data")),
        "#/components/schemas/Tick/properties/data/contentSchema"
    );
    let tick = &doc["components"]["schemas"]["Tick"];
    assert_eq!(
        tick["properties"]["data"]["type"], "string",
        "the component stays"
    );
}

#[test]
fn servers_names_and_xml_node_types_are_said_as_3_1_says_them() {
    let (doc, notes) = read(
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\n\
         servers: [{url: /v1, name: Production}, {url: /v2, name: Next, description: The next one}]\n\
         paths: {}\ncomponents:\n  schemas:\n    Pet:\n      type: object\n      properties:\n\
         \x20       id: {type: integer, xml: {nodeType: attribute}}\n\
         \x20       tags: {type: array, items: {type: string}, xml: {nodeType: element}}\n\
         \x20       note: {type: string, xml: {nodeType: text}}\n\
         \x20       xml: {type: string, nodeType: x}\n",
    );
    assert_eq!(doc["servers"][0]["description"], "Production");
    assert_eq!(doc["servers"][1]["description"], "The next one");
    assert!(doc["servers"][0].get("name").is_none());
    let properties = &doc["components"]["schemas"]["Pet"]["properties"];
    assert_eq!(properties["id"]["xml"]["attribute"], true);
    assert_eq!(properties["tags"]["xml"]["wrapped"], true);
    assert!(properties["note"]["xml"].get("nodeType").is_none());
    assert_eq!(
        properties["xml"]["nodeType"], "x",
        "a property named `xml` is a schema, not a keyword"
    );
    assert_eq!(
        notes,
        [
            "Pointer(\"#/servers/1/name\")",
            "Pointer(\"#/components/schemas/Pet/properties/note/xml/nodeType\")"
        ]
    );
}

#[test]
fn a_3_1_document_is_left_as_it_is() {
    let text = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      parameters: [{name: q, in: query, schema: {type: string}}]\n      responses: {'200': {description: ok, content: {application/json: {schema: {type: string}, examples: {x: {value: a}}}}}}\n";
    let (doc, notes) = read(text);
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(doc, serde_yaml::from_str::<Value>(text).unwrap());
}
