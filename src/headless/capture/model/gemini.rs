//! The Gemini API as the mock speaks it (`generateContent`, and `streamGenerateContent` as
//! SSE): a `functionCall` part, then a final text; the host's `functionResponse` part is the
//! tool result. A request without tools (a routing question) gets a JSON text answer.

use serde_json::{Value, json};

use super::{Answer, CALL_ID, FINAL_TEXT, ToolResult, Turn};

pub fn serves(path: &str) -> bool {
    path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent")
}

pub fn tools(body: &Value) -> Vec<&Value> {
    body.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tool| tool.get("functionDeclarations")?.as_array())
        .flatten()
        .collect()
}

pub fn tool_name(definition: &Value) -> Option<&str> {
    definition.get("name").and_then(Value::as_str)
}

/// The host's `functionResponse` for the mock's call: its `response` object is what the model
/// reads (Gemini's message has no error flag; an `error` key is the host's convention).
pub fn tool_result(body: &Value) -> Option<ToolResult> {
    let part = body
        .get("contents")?
        .as_array()?
        .iter()
        .filter_map(|content| content.get("parts")?.as_array())
        .flatten()
        .find(|part| {
            part.get("functionResponse").is_some_and(|response| {
                response.get("id").and_then(Value::as_str).is_none_or(|id| id == CALL_ID)
            })
        })?;
    let response = part.get("functionResponse")?.get("response")?;
    let text = match response.get("output").or_else(|| response.get("error")) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => response.to_string(),
    };
    Some(ToolResult {
        verbatim: part.clone(),
        text,
        error_flag: None,
    })
}

pub fn answer(turn: &Turn, path: &str, body: &Value) -> Answer {
    let part = match turn {
        Turn::Call { name, arguments } => {
            let args: Value = serde_json::from_str(arguments).unwrap_or_else(|_| json!({}));
            json!({"functionCall": {"id": CALL_ID, "name": name, "args": args}})
        }
        Turn::Finish => json!({"text": FINAL_TEXT}),
        // A question that wants JSON back (the CLI's model router) gets a JSON object.
        Turn::Other if wants_json(body) => json!({"text": routing_answer()}),
        Turn::Other => json!({"text": FINAL_TEXT}),
    };
    let response = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [part]},
            "finishReason": "STOP", "index": 0,
        }],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "sightline-mock",
    });
    if path.ends_with(":streamGenerateContent") {
        Answer::sse(&[(None, response)])
    } else {
        Answer::json(&response)
    }
}

fn wants_json(body: &Value) -> bool {
    body.get("generationConfig")
        .and_then(|config| config.get("responseMimeType"))
        .and_then(Value::as_str)
        == Some("application/json")
}

fn routing_answer() -> String {
    json!({"reasoning": "sightline mock", "model_choice": "flash"}).to_string()
}
