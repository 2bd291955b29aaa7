//! A content block as a Rust host writes it from the `rmcp` SDK's types (Codex, which sends a
//! resource link or an embedded resource to its model as this JSON text): `type` first, then
//! each type's fields in the order of its struct, then any other keys as received.

use serde_json::Value;

use super::ai_sdk_json::in_order;

/// The keys of each block type, in the order of its `rmcp` struct (`RawContent`'s variants).
const TEXT: &[&str] = &["type", "text", "_meta", "annotations"];
const IMAGE: &[&str] = &["type", "data", "mimeType", "_meta", "annotations"];
const AUDIO: &[&str] = &["type", "data", "mimeType", "annotations"];
const LINK: &[&str] = &[
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
];
const EMBEDDED: &[&str] = &["type", "_meta", "resource", "annotations"];
/// `ResourceContents`: text or blob contents.
const CONTENTS: &[&str] = &["uri", "mimeType", "text", "blob", "_meta"];

/// The block's JSON text, compact, its keys in `rmcp`'s order.
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
        Some("audio") => AUDIO,
        Some("resource_link") => LINK,
        Some("resource") => EMBEDDED,
        _ => return block.clone(),
    };
    let mut out = in_order(object, keys);
    if let Some(resource) = out.get_mut("resource")
        && let Some(contents) = resource.as_object()
    {
        *resource = Value::Object(in_order(contents, CONTENTS));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_written_in_the_order_of_rmcps_structs() {
        let embedded: Value = serde_json::from_str(
            r#"{"resource":{"mimeType":"text/plain","text":"t","uri":"file:///x"},"type":"resource"}"#,
        )
        .unwrap();
        assert_eq!(
            dump(&embedded),
            r#"{"type":"resource","resource":{"uri":"file:///x","mimeType":"text/plain","text":"t"}}"#
        );
        let link: Value = serde_json::from_str(
            r#"{"mimeType":"a/b","name":"n","type":"resource_link","uri":"u","zz":1}"#,
        )
        .unwrap();
        assert_eq!(
            dump(&link),
            r#"{"type":"resource_link","uri":"u","name":"n","mimeType":"a/b","zz":1}"#
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
