//! The `OpenAI` Chat Completions API as the mock speaks it (non-streaming): an assistant
//! message with one `tool_calls` entry, then a final message; the host's `role: tool` message
//! is the tool result.

use serde_json::{Value, json};

use super::{Answer, CALL_ID, FINAL_TEXT, ToolResult, Turn, output_text};

pub fn tool_name(definition: &Value) -> Option<&str> {
    definition.get("function")?.get("name")?.as_str()
}

/// The host's `role: tool` message for the mock's call (Chat Completions has no error flag).
pub fn tool_result(body: &Value) -> Option<ToolResult> {
    let message = body.get("messages")?.as_array()?.iter().find(|message| {
        message.get("role").and_then(Value::as_str) == Some("tool")
            && message.get("tool_call_id").and_then(Value::as_str) == Some(CALL_ID)
    })?;
    let content = message.get("content")?;
    Some(ToolResult {
        verbatim: message.clone(),
        text: output_text(content),
        error_flag: None,
    })
}

pub fn answer(turn: &Turn, _body: &Value) -> Answer {
    let (message, reason) = match turn {
        Turn::Call { name, arguments } => (
            json!({
                "role": "assistant", "content": null,
                "tool_calls": [{
                    "id": CALL_ID, "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }],
            }),
            "tool_calls",
        ),
        Turn::Finish | Turn::Other => (json!({"role": "assistant", "content": FINAL_TEXT}), "stop"),
    };
    Answer::json(&json!({
        "id": "chatcmpl-sightline", "object": "chat.completion", "created": 0,
        "model": "sightline-mock",
        "choices": [{"index": 0, "message": message, "finish_reason": reason, "logprobs": null}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }))
}
