//! The `OpenAI` Responses API as the mock speaks it (non-streaming): a `function_call` item,
//! then a final message; the host's `function_call_output` is the tool result.

use serde_json::{Value, json};

use super::{Answer, CALL_ID, FINAL_TEXT, ToolResult, Turn, output_text};

pub fn tools(body: &Value) -> Vec<&Value> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|tools| tools.iter().collect())
        .unwrap_or_default()
}

pub fn tool_name(definition: &Value) -> Option<&str> {
    definition.get("name").and_then(Value::as_str)
}

/// The `output` of the host's `function_call_output` for the mock's call (it has no flag).
pub fn tool_result(body: &Value) -> Option<ToolResult> {
    let item = body.get("input")?.as_array()?.iter().find(|item| {
        item.get("type").and_then(Value::as_str) == Some("function_call_output")
            && item.get("call_id").and_then(Value::as_str) == Some(CALL_ID)
    })?;
    let output = item.get("output")?;
    Some(ToolResult {
        verbatim: item.clone(),
        text: output_text(output),
        error_flag: None,
    })
}

pub fn answer(turn: &Turn, _body: &Value) -> Answer {
    let output = match turn {
        Turn::Call { name, arguments } => json!([{
            "type": "function_call", "id": "fc_sightline", "call_id": CALL_ID,
            "name": name, "arguments": arguments, "status": "completed",
        }]),
        Turn::Finish | Turn::Other => json!([{
            "type": "message", "id": "msg_sightline", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
        }]),
    };
    Answer::json(&json!({
        "id": "resp_sightline", "object": "response", "created_at": 0, "model": "sightline-mock",
        "status": "completed", "output": output, "parallel_tool_calls": false,
        "tool_choice": "auto", "tools": [],
        "usage": {
            "input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }))
}
