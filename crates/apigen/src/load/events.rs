//! Event streams whose schema describes each whole event, in every version.
//!
//! A `text/event-stream` schema may describe either each event's data (as
//! most documents written before 3.2 do) or each whole event: an object of
//! `data`, `event`, `id` and `retry`, as 3.2's `itemSchema` does and as
//! schemathesis reads it. The generator tells the two apart by the
//! schema's shape (`lower/responses.rs`). In the second form `data` is
//! text; where it says that the text is JSON of a schema (`contentSchema`,
//! or `x-contentSchema` in a 3.0 document, which has no such keyword, with
//! `contentMediaType`/`x-contentMediaType` JSON or absent), `data` is read
//! as that schema, which is what the stream carries. A whole event given by
//! `$ref` is written in place first, so that its data is typed where it is
//! used. Each move is recorded.

use super::provenance::Provenance;
use super::tree::{at, at_mut, operations, target};
use crate::diag::Pointer;
use serde_yaml::{Mapping, Value};

/// The keywords that type an event's data, and the extensions a 3.0
/// document spells them with.
const CONTENT_SCHEMA: &str = "contentSchema";
const CONTENT_MEDIA_TYPE: &str = "contentMediaType";
const X_CONTENT_SCHEMA: &str = "x-contentSchema";
const X_CONTENT_MEDIA_TYPE: &str = "x-contentMediaType";

/// The document with every event stream's whole-event schema's `data`
/// typed by its content schema.
pub(super) fn typed_data(mut doc: Value, out: &mut Provenance) -> Value {
    type_streams(&mut doc, out);
    doc
}

fn type_streams(doc: &mut Value, out: &mut Provenance) {
    for media in event_streams(doc) {
        let schema_at = media.join("schema");
        // A whole event given by `$ref`, written in place when its data
        // has a content schema to read.
        let found = at(doc, &schema_at).and_then(|schema| target(doc, schema));
        if let Some((there, event)) = found.filter(|(_, event)| has_typed_data(event)) {
            if let Some(schema) = at_mut(doc, &schema_at) {
                *schema = event;
                out.record(&schema_at, &there);
            }
        }
        if let Some(schema) = at_mut(doc, &schema_at) {
            type_data(schema, &schema_at, out);
        }
    }
}

/// The pointers of the `text/event-stream` media types of every response:
/// the operations' under `paths` and `webhooks`, and the shared ones.
fn event_streams(doc: &Value) -> Vec<Pointer> {
    let mut found = Vec::new();
    let root = Pointer::root();
    for section in ["paths", "webhooks"] {
        let Some(Value::Mapping(items)) = doc.get(section) else {
            continue;
        };
        for (path, item) in items {
            let (Some(path), Value::Mapping(item)) = (path.as_str(), item) else {
                continue;
            };
            let item_at = root.join(section).join(path);
            for place in operations(item) {
                let Some(op) = place.get(item) else { continue };
                let op_at = place.at(&item_at);
                responses(op.get("responses"), &op_at.join("responses"), &mut found);
            }
        }
    }
    let shared = doc.get("components").and_then(|c| c.get("responses"));
    responses(
        shared,
        &root.join("components").join("responses"),
        &mut found,
    );
    found
}

/// The event streams of the responses `responses` (at `at`).
fn responses(responses: Option<&Value>, at: &Pointer, found: &mut Vec<Pointer>) {
    let Some(Value::Mapping(responses)) = responses else {
        return;
    };
    for (status, response) in responses {
        // The syntax stage made every key text (`200:` is "200").
        let (Some(status), Some(Value::Mapping(content))) =
            (status.as_str(), response.get("content"))
        else {
            continue;
        };
        for media in content.keys().filter_map(Value::as_str) {
            if crate::media::essence(media) == "text/event-stream" {
                found.push(at.join(status).join("content").join(media));
            }
        }
    }
}

/// Whether a whole event's `data` says its text is JSON of a schema.
fn has_typed_data(event: &Value) -> bool {
    let Some(data) = event.get("properties").and_then(|p| p.get("data")) else {
        return false;
    };
    let media = [CONTENT_MEDIA_TYPE, X_CONTENT_MEDIA_TYPE]
        .iter()
        .find_map(|k| data.get(*k))
        .and_then(Value::as_str);
    let json = media.is_none_or(|m| m.contains("json"));
    json && [CONTENT_SCHEMA, X_CONTENT_SCHEMA]
        .iter()
        .any(|k| data.get(*k).is_some())
}

/// An event's schema written in place (`at`) whose `data` is text holding
/// JSON of a content schema: the data read as that schema, its move
/// recorded. A `data` given otherwise is left as it is written (text,
/// unless its schema says more).
fn type_data(event: &mut Value, at: &Pointer, out: &mut Provenance) {
    if !has_typed_data(event) {
        return;
    }
    let Some(Value::Mapping(data)) = event.get_mut("properties").and_then(|p| p.get_mut("data"))
    else {
        return;
    };
    let Some((keyword, typed)) = [CONTENT_SCHEMA, X_CONTENT_SCHEMA]
        .iter()
        .find_map(|k| Some((*k, data.remove(*k)?)))
    else {
        return;
    };
    *data = match typed {
        Value::Mapping(typed) => typed,
        other => Mapping::from_iter([("allOf".into(), Value::Sequence(vec![other]))]),
    };
    let here = at.join("properties").join("data");
    out.record(&here, &here.join(keyword));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(text: &str) -> (Value, Provenance) {
        let mut out = Provenance::default();
        let doc = typed_data(serde_yaml::from_str(text).unwrap(), &mut out);
        (doc, out)
    }

    #[test]
    fn a_whole_events_data_is_typed_by_its_content_schema_in_every_spelling() {
        for keyword in ["contentSchema", "x-contentSchema"] {
            let text = format!(
                "paths:\n  /e:\n    get:\n      responses:\n        '200':\n          content:\n            text/event-stream:\n              schema: {{$ref: '#/components/schemas/Frame'}}\n\
                 components:\n  schemas:\n    Frame:\n      properties:\n        id: {{type: string}}\n        data: {{type: string, x-contentMediaType: application/json, {keyword}: {{$ref: '#/components/schemas/Tick'}}}}\n"
            );
            let (doc, out) = typed(&text);
            let at = "#/paths/~1e/get/responses/200/content/text~1event-stream/schema";
            let media =
                &doc["paths"]["/e"]["get"]["responses"]["200"]["content"]["text/event-stream"];
            let data = &media["schema"]["properties"]["data"];
            assert_eq!(data["$ref"], "#/components/schemas/Tick", "{keyword}");
            let moved = out.original(&format!("{at}/properties/data/$ref"));
            assert_eq!(
                moved,
                format!("#/components/schemas/Frame/properties/data/{keyword}/$ref"),
                "each move is recorded"
            );
        }
    }

    #[test]
    fn data_of_another_media_type_or_another_body_stays_text() {
        let text = "paths:\n  /e:\n    get:\n      responses:\n        '200':\n          content:\n            text/event-stream:\n              schema:\n                properties:\n                  data: {type: string, contentMediaType: text/csv, contentSchema: {type: array}}\n            application/json:\n              schema:\n                properties:\n                  data: {type: string, contentSchema: {type: integer}}\n";
        let (doc, _) = typed(text);
        let content = &doc["paths"]["/e"]["get"]["responses"]["200"]["content"];
        for media in ["text/event-stream", "application/json"] {
            assert_eq!(
                content[media]["schema"]["properties"]["data"]["type"],
                "string"
            );
        }
    }
}
