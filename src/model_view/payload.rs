//! The message a host sends its model for one tool result, in the host's API shape, pure. It
//! repeats the text (and any image data), so it is built only when asked for.

use serde_json::{Value, json};

use super::hosts::Shape;
use super::{Block, ModelView};
use crate::mcp::json::{self, Compact};

impl ModelView<'_> {
    /// The message a host of this profile would send its model. With a size limit at work the
    /// content is the one text the host cut.
    pub fn payload(&self) -> Value {
        let cut;
        let blocks: &[Block] = if self.truncation.is_some() {
            cut = [Block::Text {
                text: self.text().into(),
            }];
            &cut
        } else {
            &self.blocks
        };
        match self.shape {
            Shape::Generic => {
                let content: Vec<Value> = blocks.iter().map(generic_block).collect();
                let mut message = json!({"type": "tool_result", "content": content});
                if self.error_flag {
                    message["is_error"] = json!(self.is_error);
                }
                message
            }
            Shape::AnthropicMessages => {
                let content = match blocks {
                    [Block::Structured { json }] => json!(Compact(json).to_string()),
                    _ => Value::Array(blocks.iter().map(anthropic_block).collect()),
                };
                let mut message = json!({
                    "type": "tool_result",
                    "tool_use_id": "toolu_sightline",
                    "content": content,
                });
                if self.is_error {
                    message["is_error"] = json!(true);
                }
                message
            }
            Shape::OpenaiChat => json!({
                "role": "tool",
                "tool_call_id": "call_sightline",
                "content": openai_content(blocks, chat_part),
            }),
            Shape::OpenaiResponses => json!({
                "type": "function_call_output",
                "call_id": "call_sightline",
                "output": openai_content(blocks, responses_part),
            }),
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

/// One string when the output is one text; else a list of parts.
fn openai_content(blocks: &[Block], part: fn(&Block) -> Value) -> Value {
    match blocks {
        [one] if !matches!(one, Block::Media { .. }) => json!(one.to_string()),
        _ => Value::Array(blocks.iter().map(part).collect()),
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
