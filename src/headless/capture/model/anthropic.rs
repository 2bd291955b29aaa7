//! The Anthropic Messages API as the mock speaks it, streamed (SSE) when the request asks: a
//! `tool_use` block, then a final text; the host's `tool_result` block is the tool result.

use serde_json::{Value, json};

use super::{Answer, CALL_ID, FINAL_TEXT, ToolResult, Turn, output_text};

/// The host's `tool_result` block for the mock's `tool_use` (its `is_error` is the flag;
/// absent means false).
pub fn tool_result(body: &Value) -> Option<ToolResult> {
    let block = body
        .get("messages")?
        .as_array()?
        .iter()
        .filter_map(|message| message.get("content")?.as_array())
        .flatten()
        .find(|block| {
            block.get("type").and_then(Value::as_str) == Some("tool_result")
                && block.get("tool_use_id").and_then(Value::as_str) == Some(CALL_ID)
        })?;
    let text = block.get("content").map(output_text).unwrap_or_default();
    Some(ToolResult {
        verbatim: block.clone(),
        text,
        error_flag: Some(block.get("is_error").and_then(Value::as_bool) == Some(true)),
    })
}

pub fn answer(turn: &Turn, body: &Value) -> Answer {
    let (content, stop) = match turn {
        Turn::Call {
            id,
            name,
            arguments,
        } => {
            let input: Value = serde_json::from_str(arguments).unwrap_or_else(|_| json!({}));
            (
                json!({"type": "tool_use", "id": id, "name": name, "input": input}),
                "tool_use",
            )
        }
        Turn::Finish | Turn::Other => (json!({"type": "text", "text": FINAL_TEXT}), "end_turn"),
    };
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("sightline-mock");
    let usage = json!({"input_tokens": 1, "output_tokens": 1});
    if body.get("stream").and_then(Value::as_bool) != Some(true) {
        return Answer::json(&json!({
            "id": "msg_sightline", "type": "message", "role": "assistant", "model": model,
            "content": [content], "stop_reason": stop, "stop_sequence": null, "usage": usage,
        }));
    }
    let (start, delta) = match turn {
        Turn::Call { arguments, .. } => {
            let mut start = content.clone();
            start["input"] = json!({});
            (
                start,
                json!({"type": "input_json_delta", "partial_json": arguments}),
            )
        }
        Turn::Finish | Turn::Other => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": FINAL_TEXT}),
        ),
    };
    Answer::sse(&[
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {
                "id": "msg_sightline", "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage,
            }}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta",
                   "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"output_tokens": 1}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ])
}
