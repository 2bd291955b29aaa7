//! How Gemini CLI lays a result's parts out in its `functionResponse` (the
//! `gemini-function-response` shape): what the model reads, in the order it reads it.

use serde_json::{Map, Value};

use super::Block;
use crate::mcp::json;

/// Gemini CLI's `convertToFunctionResponse` (utils/generateContentResponseUtilities.js): the
/// text parts go, joined, into the response's `output`; inline data goes after it as parts of
/// its own, except audio and video, which the function response cannot carry: they are left
/// out, and a notice naming their MIME types comes before all the text.
pub(super) fn lay_out(blocks: &mut Vec<Block<'_>>, notes: &mut Vec<String>) {
    let (media, texts): (Vec<Block>, Vec<Block>) = std::mem::take(blocks)
        .into_iter()
        .partition(|block| matches!(block, Block::Media { .. }));
    let mut stripped: Vec<String> = Vec::new();
    let mut sent = Vec::new();
    for block in media {
        let Block::Media { source, .. } = &block else {
            continue;
        };
        let mime = mime_type(source);
        if mime.starts_with("audio/") || mime.starts_with("video/") {
            if !stripped.contains(&mime) {
                stripped.push(mime);
            }
        } else {
            sent.push(block);
        }
    }
    if !stripped.is_empty() {
        let mimes = stripped.join(", ");
        blocks.push(Block::Placeholder {
            text: format!(
                "[SYSTEM: Binary content ({mimes}) stripped from response due to protocol limitations.]"
            ),
        });
        notes.push(format!(
            "this host leaves {mimes} out of the function response (it cannot carry audio or video) and says so first"
        ));
    }
    if !sent.is_empty() && !texts.is_empty() {
        notes.push(
            "this host sends images after the text, as parts of their own: the model reads them last"
                .to_owned(),
        );
    }
    blocks.extend(texts);
    blocks.extend(sent);
}

/// A passed block's MIME type (an embedded resource's is its `resource`'s).
fn mime_type(source: &str) -> String {
    let fields = json::member(source, "resource").unwrap_or(source);
    json::member(fields, "mimeType")
        .and_then(json::string)
        .map(std::borrow::Cow::into_owned)
        .unwrap_or_default()
}

/// A tool result as Gemini CLI's MCP TypeScript SDK hands it on, compact JSON as
/// `JSON.stringify` writes it: parsed by its `CallToolResultSchema` (zod), so its keys come in
/// the schema's order (`_meta`, `content`, `structuredContent`, `isError`, then any others as
/// they came), `content` is there even when the server left it out, and each block keeps only
/// its schema's fields, in their order. Text that is not a JSON object stays as it is.
pub(super) fn sdk_result_json(text: &str) -> String {
    let Ok(Value::Object(result)) = serde_json::from_str::<Value>(text) else {
        return text.to_owned();
    };
    let mut out = Map::new();
    if let Some(meta) = result.get("_meta") {
        out.insert("_meta".to_owned(), meta.clone());
    }
    let content = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().map(sdk_block).collect())
        .unwrap_or_default();
    out.insert("content".to_owned(), Value::Array(content));
    for key in ["structuredContent", "isError"] {
        if let Some(value) = result.get(key) {
            out.insert(key.to_owned(), value.clone());
        }
    }
    for (key, value) in &result {
        if !out.contains_key(key) {
            out.insert(key.clone(), value.clone());
        }
    }
    Value::Object(out).to_string()
}

/// One content block as the SDK's schema for its type keeps it (a type it does not know, as
/// it came).
fn sdk_block(block: &Value) -> Value {
    let keys: &[&str] = match block.get("type").and_then(Value::as_str) {
        Some("text") => &["type", "text", "_meta"],
        Some("image" | "audio") => &["type", "data", "mimeType", "_meta"],
        Some("resource") => &["type", "resource", "_meta"],
        Some("resource_link") => &[
            "name",
            "title",
            "icons",
            "uri",
            "description",
            "mimeType",
            "_meta",
            "type",
        ],
        _ => return block.clone(),
    };
    let resource_keys: &[&str] = if block.pointer("/resource/text").is_some() {
        &["uri", "mimeType", "_meta", "text"]
    } else {
        &["uri", "mimeType", "_meta", "blob"]
    };
    let kept = |value: &Value, keys: &[&str]| {
        let fields = keys
            .iter()
            .filter_map(|key| Some(((*key).to_owned(), value.get(*key)?.clone())));
        Value::Object(fields.collect())
    };
    let mut out = kept(block, keys);
    if let Some(resource) = block.get("resource")
        && let Some(object) = out.as_object_mut()
    {
        object.insert("resource".to_owned(), kept(resource, resource_keys));
    }
    out
}
