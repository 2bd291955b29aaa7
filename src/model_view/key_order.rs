//! A content block written as JSON text with its keys in the order a host's SDK gives them: each
//! block type's keys first, in the order of the SDK's own types, then any other keys as received.
//! One walker, one table per SDK.

use serde_json::{Map, Value};

/// An SDK's key order: for each block type, its keys in order; `None` for a type the SDK does
/// not know (the block is written as received).
pub struct KeyOrder {
    text: &'static [&'static str],
    image: &'static [&'static str],
    audio: Option<&'static [&'static str]>,
    link: &'static [&'static str],
    embedded: &'static [&'static str],
    /// An embedded resource's contents: text, then blob.
    text_contents: &'static [&'static str],
    blob_contents: &'static [&'static str],
}

/// The Vercel AI SDK's MCP client (`@ai-sdk/mcp` 1.0.102): parsed by its zod schemas
/// (`CallToolResultSchema`'s content union), which rebuild each object with their own keys
/// first, in the schema's order, and the other keys after them as received; then
/// `JSON.stringify`'d.
pub const AI_SDK: KeyOrder = KeyOrder {
    text: &["type", "text"],
    image: &["type", "data", "mimeType"],
    audio: None,
    link: &["type", "uri", "name", "description", "mimeType"],
    embedded: &["type", "resource"],
    text_contents: &["uri", "name", "title", "mimeType", "text"],
    blob_contents: &["uri", "name", "title", "mimeType", "blob"],
};

/// A Rust host on the `rmcp` SDK's types (Codex, which sends a resource link or an embedded
/// resource to its model as this JSON text): `type` first, then each type's fields in the order
/// of its struct (`RawContent`'s variants).
pub const RMCP: KeyOrder = KeyOrder {
    text: &["type", "text", "_meta", "annotations"],
    image: &["type", "data", "mimeType", "_meta", "annotations"],
    audio: Some(&["type", "data", "mimeType", "annotations"]),
    link: &[
        "type",
        "uri",
        "name",
        "title",
        "description",
        "mimeType",
        "size",
        "icons",
        "_meta",
        "annotations",
    ],
    embedded: &["type", "_meta", "resource", "annotations"],
    text_contents: &["uri", "mimeType", "text", "blob", "_meta"],
    blob_contents: &["uri", "mimeType", "text", "blob", "_meta"],
};

/// `block` as JSON text, its keys in `order`'s order.
pub fn dump(block: &Value, order: &KeyOrder) -> String {
    reordered(block, order).to_string()
}

fn reordered(block: &Value, order: &KeyOrder) -> Value {
    let Some(object) = block.as_object() else {
        return block.clone();
    };
    let keys = match object.get("type").and_then(Value::as_str) {
        Some("text") => order.text,
        Some("image") => order.image,
        Some("audio") => match order.audio {
            Some(keys) => keys,
            None => return block.clone(),
        },
        Some("resource_link") => order.link,
        Some("resource") => order.embedded,
        _ => return block.clone(),
    };
    let mut out = in_order(object, keys);
    if let Some(resource) = out.get_mut("resource")
        && let Some(contents) = resource.as_object()
    {
        let keys = if contents.get("text").is_some_and(Value::is_string) {
            order.text_contents
        } else {
            order.blob_contents
        };
        *resource = Value::Object(in_order(contents, keys));
    }
    Value::Object(out)
}

/// `object` with `keys` first, in that order, then its other keys as they came.
fn in_order(object: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
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

    fn dumped(json: &str, order: &KeyOrder) -> String {
        dump(&serde_json::from_str(json).unwrap(), order)
    }

    #[test]
    fn the_ai_sdk_s_schema_keys_come_first_in_its_order_and_the_rest_as_received() {
        assert_eq!(
            dumped(
                r#"{"zz":1,"mimeType":"a/b","name":"n","type":"resource_link","uri":"u","annotations":{"b":1,"a":2}}"#,
                &AI_SDK
            ),
            r#"{"type":"resource_link","uri":"u","name":"n","mimeType":"a/b","zz":1,"annotations":{"b":1,"a":2}}"#
        );
        assert_eq!(
            dumped(
                r#"{"resource":{"mimeType":"text/plain","text":"t","uri":"file:///x"},"type":"resource"}"#,
                &AI_SDK
            ),
            r#"{"type":"resource","resource":{"uri":"file:///x","mimeType":"text/plain","text":"t"}}"#
        );
        assert_eq!(
            dumped(
                r#"{"type":"resource","resource":{"blob":"AA==","uri":"u"}}"#,
                &AI_SDK
            ),
            r#"{"type":"resource","resource":{"uri":"u","blob":"AA=="}}"#
        );
        let audio = r#"{"mimeType":"audio/wav","type":"audio","data":"AA=="}"#;
        assert_eq!(dumped(audio, &AI_SDK), audio, "a type it does not know");
    }

    #[test]
    fn rmcp_blocks_are_written_in_the_order_of_its_structs() {
        assert_eq!(
            dumped(
                r#"{"resource":{"mimeType":"text/plain","text":"t","uri":"file:///x"},"type":"resource"}"#,
                &RMCP
            ),
            r#"{"type":"resource","resource":{"uri":"file:///x","mimeType":"text/plain","text":"t"}}"#
        );
        assert_eq!(
            dumped(
                r#"{"mimeType":"a/b","name":"n","type":"resource_link","uri":"u","zz":1}"#,
                &RMCP
            ),
            r#"{"type":"resource_link","uri":"u","name":"n","mimeType":"a/b","zz":1}"#
        );
        assert_eq!(
            dumped(
                r#"{"type":"resource","resource":{"blob":"AA==","uri":"u"}}"#,
                &RMCP
            ),
            r#"{"type":"resource","resource":{"uri":"u","blob":"AA=="}}"#
        );
        assert_eq!(
            dumped(
                r#"{"mimeType":"audio/wav","type":"audio","data":"AA=="}"#,
                &RMCP
            ),
            r#"{"type":"audio","data":"AA==","mimeType":"audio/wav"}"#
        );
    }
}
