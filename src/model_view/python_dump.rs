//! A content block as the MCP Python SDK writes it with `model_dump_json()` (mcp-types 2.3.0):
//! the models' field order, `snake_case` names, every field present (`null` when unset), compact.
//! Hosts built on that SDK (the `OpenAI` Agents SDK) hand non-text blocks to their model so.

use serde_json::{Map, Value};

/// The fields of each model, in declaration order: (Python name, wire name).
const TEXT: &[(&str, &str)] = &[
    ("type", "type"),
    ("text", "text"),
    ("annotations", "annotations"),
    ("meta", "_meta"),
];
const MEDIA: &[(&str, &str)] = &[
    ("type", "type"),
    ("data", "data"),
    ("mime_type", "mimeType"),
    ("annotations", "annotations"),
    ("meta", "_meta"),
];
const LINK: &[(&str, &str)] = &[
    ("name", "name"),
    ("title", "title"),
    ("uri", "uri"),
    ("description", "description"),
    ("mime_type", "mimeType"),
    ("size", "size"),
    ("icons", "icons"),
    ("annotations", "annotations"),
    ("meta", "_meta"),
    ("type", "type"),
];
const EMBEDDED: &[(&str, &str)] = &[
    ("type", "type"),
    ("resource", "resource"),
    ("annotations", "annotations"),
    ("meta", "_meta"),
];
const TEXT_CONTENTS: &[(&str, &str)] = &[
    ("uri", "uri"),
    ("mime_type", "mimeType"),
    ("meta", "_meta"),
    ("text", "text"),
];
const BLOB_CONTENTS: &[(&str, &str)] = &[
    ("uri", "uri"),
    ("mime_type", "mimeType"),
    ("meta", "_meta"),
    ("blob", "blob"),
];
const ANNOTATIONS: &[(&str, &str)] = &[
    ("audience", "audience"),
    ("priority", "priority"),
    ("last_modified", "lastModified"),
];
const ICON: &[(&str, &str)] = &[
    ("src", "src"),
    ("mime_type", "mimeType"),
    ("sizes", "sizes"),
    ("theme", "theme"),
];

/// The block's dump; a block of a type the SDK does not know is written as it came.
pub fn dump(block: &Value) -> String {
    let fields = match block.get("type").and_then(Value::as_str) {
        Some("text") => TEXT,
        Some("image" | "audio") => MEDIA,
        Some("resource_link") => LINK,
        Some("resource") => EMBEDDED,
        _ => return block.to_string(),
    };
    model(block, fields).to_string()
}

fn model(wire: &Value, fields: &[(&str, &str)]) -> Value {
    let mut out = Map::new();
    for (python, key) in fields {
        let value = wire.get(*key).cloned().unwrap_or(Value::Null);
        let value = match (*python, value) {
            ("annotations", value @ Value::Object(_)) => model(&value, ANNOTATIONS),
            ("icons", Value::Array(icons)) => {
                Value::Array(icons.iter().map(|icon| model(icon, ICON)).collect())
            }
            ("resource", value @ Value::Object(_)) => {
                let contents = if value.get("blob").is_some() {
                    BLOB_CONTENTS
                } else {
                    TEXT_CONTENTS
                };
                model(&value, contents)
            }
            (_, value) => value,
        };
        out.insert((*python).to_owned(), value);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::dump;

    #[test]
    fn blocks_come_out_in_the_sdks_order_with_every_field() {
        // As the Agents SDK 0.24.0 sent them, captured (tests/hosts.rs).
        assert_eq!(
            dump(&json!({"type": "audio", "data": "UklG", "mimeType": "audio/wav"})),
            r#"{"type":"audio","data":"UklG","mime_type":"audio/wav","annotations":null,"meta":null}"#
        );
        assert_eq!(
            dump(
                &json!({"uri": "https://x/p", "type": "resource_link", "name": "p", "mimeType": "a/b"})
            ),
            r#"{"name":"p","title":null,"uri":"https://x/p","description":null,"mime_type":"a/b","size":null,"icons":null,"annotations":null,"meta":null,"type":"resource_link"}"#
        );
        assert_eq!(
            dump(
                &json!({"type": "resource", "resource": {"uri": "file:///f", "mimeType": "text/plain", "text": "t"}, "annotations": {"priority": 0.5}})
            ),
            r#"{"type":"resource","resource":{"uri":"file:///f","mime_type":"text/plain","meta":null,"text":"t"},"annotations":{"audience":null,"priority":0.5,"last_modified":null},"meta":null}"#
        );
        assert_eq!(
            dump(&json!({"type": "odd", "x": 1})),
            r#"{"type":"odd","x":1}"#
        );
    }
}
