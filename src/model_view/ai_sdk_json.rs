//! A content block as the Vercel AI SDK's MCP client (`@ai-sdk/mcp` 1.0.102) writes it for its
//! model: parsed by its zod schemas, which rebuild each object with their own keys first, in
//! the schema's order, and the other keys after them as received; then `JSON.stringify`'d.

use serde_json::{Map, Value};

/// The keys of each schema, in order (`CallToolResultSchema`'s content union).
const TEXT: &[&str] = &["type", "text"];
const IMAGE: &[&str] = &["type", "data", "mimeType"];
const LINK: &[&str] = &["type", "uri", "name", "description", "mimeType"];
const EMBEDDED: &[&str] = &["type", "resource"];
const TEXT_CONTENTS: &[&str] = &["uri", "name", "title", "mimeType", "text"];
const BLOB_CONTENTS: &[&str] = &["uri", "name", "title", "mimeType", "blob"];

/// The block's JSON text, compact, in the order the SDK's schemas give its keys.
pub fn dump(block: &Value) -> String {
    reordered(block).to_string()
}

fn reordered(block: &Value) -> Value {
    let Some(object) = block.as_object() else {
        return block.clone();
    };
    let keys = match object.get("type").and_then(Value::as_str) {
        Some("text") => TEXT,
        Some("image") => IMAGE,
        Some("resource_link") => LINK,
        Some("resource") => EMBEDDED,
        // No schema of its own (the SDK fails on such a block before it writes it).
        _ => return block.clone(),
    };
    let mut out = in_order(object, keys);
    if let Some(resource) = out.get_mut("resource")
        && let Some(contents) = resource.as_object()
    {
        // The union tries the text contents first.
        let keys = if contents.get("text").is_some_and(Value::is_string) {
            TEXT_CONTENTS
        } else {
            BLOB_CONTENTS
        };
        *resource = Value::Object(in_order(contents, keys));
    }
    Value::Object(out)
}

/// The schema's keys that are present, in its order, then the rest as received.
pub(super) fn in_order(object: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    let mut out = Map::new();
    for key in keys {
        if let Some(value) = object.get(*key) {
            out.insert((*key).to_owned(), value.clone());
        }
    }
    for (key, value) in object {
        if !keys.contains(&key.as_str()) {
            out.insert(key.clone(), value.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_keys_come_first_in_its_order_and_the_rest_as_received() {
        let block: Value = serde_json::from_str(
            r#"{"zz":1,"mimeType":"a/b","name":"n","type":"resource_link","uri":"u","annotations":{"b":1,"a":2}}"#,
        )
        .unwrap();
        assert_eq!(
            dump(&block),
            r#"{"type":"resource_link","uri":"u","name":"n","mimeType":"a/b","zz":1,"annotations":{"b":1,"a":2}}"#
        );
        let embedded: Value = serde_json::from_str(
            r#"{"resource":{"mimeType":"text/plain","text":"t","uri":"file:///x"},"type":"resource"}"#,
        )
        .unwrap();
        assert_eq!(
            dump(&embedded),
            r#"{"type":"resource","resource":{"uri":"file:///x","mimeType":"text/plain","text":"t"}}"#
        );
        let blob: Value =
            serde_json::from_str(r#"{"type":"resource","resource":{"blob":"AA==","uri":"u"}}"#)
                .unwrap();
        assert_eq!(
            dump(&blob),
            r#"{"type":"resource","resource":{"uri":"u","blob":"AA=="}}"#
        );
    }
}
