//! The `OpenAI` Chat Completions API as the mock speaks it (streamed when the request asks):
//! an assistant message with one `tool_calls` entry, then a final message; the host's
//! `role: tool` message is the tool result.

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

pub fn answer(turn: &Turn, body: &Value) -> Answer {
    let (message, reason) = match turn {
        Turn::Call {
            id,
            name,
            arguments,
        } => (
            json!({
                "role": "assistant", "content": null,
                "tool_calls": [{
                    "id": id, "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }],
            }),
            "tool_calls",
        ),
        Turn::Finish | Turn::Other => (json!({"role": "assistant", "content": FINAL_TEXT}), "stop"),
    };
    let usage = json!({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2});
    if body.get("stream").and_then(Value::as_bool) == Some(true) {
        return streamed(message, reason, usage);
    }
    Answer::json(&json!({
        "id": "chatcmpl-sightline", "object": "chat.completion", "created": 0,
        "model": "sightline-mock",
        "choices": [{"index": 0, "message": message, "finish_reason": reason, "logprobs": null}],
        "usage": usage,
    }))
}

/// The same message as chunks: the whole message as one delta (each tool call with its
/// `index`), the finish reason, the usage, then `[DONE]`.
fn streamed(mut message: Value, reason: &str, usage: Value) -> Answer {
    if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for (index, call) in calls.iter_mut().enumerate() {
            call["index"] = json!(index);
        }
    }
    let chunk = |choices: Value, usage: Value| {
        json!({
            "id": "chatcmpl-sightline", "object": "chat.completion.chunk", "created": 0,
            "model": "sightline-mock", "choices": choices, "usage": usage,
        })
    };
    let mut answer = Answer::sse(&[
        (
            None,
            chunk(
                json!([{"index": 0, "delta": message, "finish_reason": null}]),
                Value::Null,
            ),
        ),
        (
            None,
            chunk(
                json!([{"index": 0, "delta": {}, "finish_reason": reason}]),
                Value::Null,
            ),
        ),
        (None, chunk(json!([]), usage)),
    ]);
    answer.body.push_str("data: [DONE]\n\n");
    answer
}
