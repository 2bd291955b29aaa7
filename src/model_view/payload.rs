//! The message a host sends its model for one tool result, in the host's API shape, pure. It
//! repeats the text (and any image data), so it is built only when asked for.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Value, json};

use super::hosts::Shape;
use super::{Block, Blocks, ModelView, Rule};
use crate::mcp::json::{self, Compact};

impl<'a> ModelView<'a> {
    /// The message a host of this profile would send its model. With a size limit at work the
    /// content is the one text the host cut.
    pub fn payload(&self) -> Value {
        serde_json::to_value(self.payload_stream()).unwrap_or(Value::Null)
    }

    /// The same message, serialized block by block as it is written: a reply of a million
    /// blocks is never held as a tree of a million objects.
    pub fn payload_stream(&self) -> Payload<'_, 'a> {
        Payload(self)
    }
}

/// See [`ModelView::payload_stream`].
pub struct Payload<'v, 'a>(&'v ModelView<'a>);

impl Serialize for Payload<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let view = self.0;
        let cut;
        let blocks: &Blocks = if view.truncation.is_some() {
            cut = Blocks::one(Block::Text {
                text: view.text().into(),
            });
            &cut
        } else {
            &view.blocks
        };
        let mut map = serializer.serialize_map(None)?;
        match view.shape {
            Shape::Generic => {
                map.serialize_entry("type", "tool_result")?;
                map.serialize_entry("content", &Each(blocks, generic_block))?;
                if view.error_flag {
                    map.serialize_entry("is_error", &view.is_error)?;
                }
            }
            Shape::AnthropicMessages => {
                map.serialize_entry("type", "tool_result")?;
                map.serialize_entry("tool_use_id", "toolu_sightline")?;
                match blocks.only().as_deref() {
                    _ if view.is_error && view.error_as_string => {
                        map.serialize_entry("content", &view.text())?;
                    }
                    Some(Block::Structured { json }) => {
                        map.serialize_entry("content", &Compact(json).to_string())?;
                    }
                    _ => map.serialize_entry("content", &Each(blocks, anthropic_block))?,
                }
                if view.is_error {
                    map.serialize_entry("is_error", &true)?;
                }
            }
            Shape::OpenaiChat => {
                map.serialize_entry("role", "tool")?;
                map.serialize_entry("tool_call_id", "call_sightline")?;
                if view.content_as_parts {
                    map.serialize_entry("content", &Each(blocks, chat_part))?;
                } else {
                    map.serialize_entry("content", &OpenaiContent(blocks, chat_part))?;
                }
            }
            Shape::OpenaiResponses => {
                map.serialize_entry("type", "function_call_output")?;
                map.serialize_entry("call_id", "call_sightline")?;
                if view.content_as_parts {
                    map.serialize_entry("output", &Each(blocks, responses_part))?;
                } else {
                    map.serialize_entry("output", &OpenaiContent(blocks, responses_part))?;
                }
            }
            Shape::GeminiFunctionResponse => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("parts", &gemini_parts(blocks, view.rule))?;
            }
        }
        map.end()
    }
}

/// Blocks as a list, each made and written in turn.
struct Each<'b, 'a>(&'b Blocks<'a>, fn(&Block) -> Value);

impl Serialize for Each<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for block in self.0 {
            seq.serialize_element(&(self.1)(&block))?;
        }
        seq.end()
    }
}

/// One string when the output is one text; else a list of parts.
struct OpenaiContent<'b, 'a>(&'b Blocks<'a>, fn(&Block) -> Value);

impl Serialize for OpenaiContent<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.only() {
            Some(one) if !matches!(*one, Block::Media { .. }) => {
                serializer.serialize_str(&one.to_string())
            }
            _ => Each(self.0, self.1).serialize(serializer),
        }
    }
}

fn text(block: &Block) -> Value {
    json!({"type": "text", "text": block.to_string()})
}

/// JSON text as a value.
fn parsed(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or(Value::Null)
}

fn field(source: &str, key: &str) -> String {
    json::member(source, key)
        .and_then(json::string)
        .map(std::borrow::Cow::into_owned)
        .unwrap_or_default()
}

fn generic_block(block: &Block) -> Value {
    match block {
        Block::Structured { json } => json!({"type": "json", "json": parsed(json)}),
        Block::Media { source, .. } => parsed(source),
        Block::Text { .. } | Block::Placeholder { .. } | Block::Json { .. } => text(block),
    }
}

/// A block as the Anthropic SDK's MCP helper converts it (`mcpContent`).
fn anthropic_block(block: &Block) -> Value {
    let Block::Media { source, .. } = block else {
        return text(block);
    };
    let base64 = |media_type: &str, data: &str| json!({"type": "base64", "media_type": media_type, "data": data});
    match field(source, "type").as_str() {
        "image" => json!({
            "type": "image",
            "source": base64(&field(source, "mimeType"), &field(source, "data")),
        }),
        "resource" => {
            let resource = json::member(source, "resource").unwrap_or("null");
            let mime = field(resource, "mimeType");
            match (mime.as_str(), json::member(resource, "blob")) {
                ("application/pdf", Some(_)) => json!({
                    "type": "document",
                    "source": base64("application/pdf", &field(resource, "blob")),
                }),
                (mime, Some(_)) if mime.starts_with("image/") => json!({
                    "type": "image",
                    "source": base64(mime, &field(resource, "blob")),
                }),
                _ => json!({
                    "type": "document",
                    "source": {"type": "text", "media_type": "text/plain", "data": field(resource, "text")},
                }),
            }
        }
        _ => text(block),
    }
}

fn data_url(source: &str) -> String {
    format!(
        "data:{};base64,{}",
        field(source, "mimeType"),
        field(source, "data")
    )
}

fn chat_part(block: &Block) -> Value {
    match block {
        Block::Media { source, .. } if field(source, "type") == "image" => {
            json!({"type": "image_url", "image_url": {"url": data_url(source)}})
        }
        _ => text(block),
    }
}

fn responses_part(block: &Block) -> Value {
    match block {
        Block::Media { source, .. } => match field(source, "type").as_str() {
            "image" => json!({"type": "input_image", "image_url": data_url(source)}),
            "audio" => json!({"type": "input_audio", "audio_url": data_url(source)}),
            _ => json!({"type": "input_text", "text": block.to_string()}),
        },
        _ => json!({"type": "input_text", "text": block.to_string()}),
    }
}

/// A Gemini turn's parts for one result: the `functionResponse` (the text in `output`, or in
/// `error` when the call failed), then each image as an `inlineData` part.
fn gemini_parts(blocks: &Blocks, rule: Rule) -> Vec<Value> {
    let text: Vec<String> = blocks
        .iter()
        .filter(|block| !matches!(**block, Block::Media { .. }))
        .map(|block| block.to_string())
        .collect();
    let key = if rule == Rule::Result {
        "output"
    } else {
        "error"
    };
    let response = if text.is_empty() {
        json!({})
    } else {
        json!({key: text.join("\n")})
    };
    let mut parts = vec![json!({"functionResponse": {
        "id": "call_sightline", "name": "mcp_tool", "response": response,
    }})];
    parts.extend(blocks.iter().filter_map(|block| {
        let Block::Media { source, .. } = &*block else {
            return None;
        };
        let (mime, data) = match json::member(source, "resource") {
            Some(resource) => (field(resource, "mimeType"), field(resource, "blob")),
            None => (field(source, "mimeType"), field(source, "data")),
        };
        Some(json!({"inlineData": {"mimeType": mime, "data": data}}))
    }));
    parts
}
