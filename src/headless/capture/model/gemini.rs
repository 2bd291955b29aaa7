//! The Gemini API as the mock speaks it (`generateContent`, and `streamGenerateContent` as
//! SSE): a `functionCall` part, then a final text; the host's `functionResponse` part is the
//! tool result. A request without tools (a routing question) gets a JSON text answer.

use serde_json::{Value, json};

use super::{Answer, CALL_ID, FINAL_TEXT, ToolResult, Turn, output_text};

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

/// The host's `functionResponse` for the mock's call, and what the model reads of it.
///
/// Measured on Gemini CLI 0.61.0 (`convertToFunctionResponse`,
/// generateContentResponseUtilities.js): the `response` object is `{output: TEXT}` for a
/// result (its text parts joined by newlines), `{error: TEXT}` when the call failed (a tool
/// error, a protocol error, arguments it refused, a tool it does not know), `{}` when nothing
/// was left, and both keys for a cancelled call. Images travel apart from that text: in the
/// `functionResponse`'s own `parts` (models that take multimodal function responses) or as
/// the parts after it in the same turn; either way the model reads them after the text. So
/// the text is the lone `output` or `error` string as it is, else the `response` object's
/// JSON (the model reads the whole object), then a line for each such part (an image by
/// sightline's label). Gemini's message has no error flag; its `error` key is the mark.
pub fn tool_result(body: &Value) -> Option<ToolResult> {
    let (parts, at) = body
        .get("contents")?
        .as_array()?
        .iter()
        .filter_map(|content| content.get("parts")?.as_array())
        .find_map(|parts| {
            let at = parts.iter().position(|part| {
                part.get("functionResponse").is_some_and(|response| {
                    response
                        .get("id")
                        .and_then(Value::as_str)
                        .is_none_or(|id| id == CALL_ID)
                })
            })?;
            Some((parts, at))
        })?;
    let part = &parts[at];
    let function_response = part.get("functionResponse")?;
    let response = function_response.get("response")?;
    // The key is the mark the model reads: `error` for a failed call, `output` for a result.
    let error_flag = response.as_object().and_then(|object| {
        if object.contains_key("error") {
            Some(true)
        } else if object.contains_key("output") {
            Some(false)
        } else {
            None
        }
    });
    let mut text = match response.as_object() {
        Some(object) if object.len() == 1 => {
            match object.get("output").or_else(|| object.get("error")) {
                Some(Value::String(text)) => text.clone(),
                _ => response.to_string(),
            }
        }
        _ => response.to_string(),
    };
    // The parts that belong to this result: the functionResponse's own, then those after it
    // up to the next functionResponse.
    let siblings: Vec<Value> = parts[at + 1..]
        .iter()
        .take_while(|sibling| sibling.get("functionResponse").is_none())
        .cloned()
        .collect();
    let media: Vec<Value> = function_response
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(&siblings)
        .cloned()
        .collect();
    if !media.is_empty() {
        text.push('\n');
        text.push_str(&output_text(&Value::Array(media)));
    }
    let verbatim = if siblings.is_empty() {
        part.clone()
    } else {
        Value::Array(std::iter::once(part.clone()).chain(siblings).collect())
    };
    Some(ToolResult {
        verbatim,
        text,
        error_flag,
    })
}

pub fn answer(turn: &Turn, path: &str, body: &Value) -> Answer {
    let part = match turn {
        Turn::Call {
            id,
            name,
            arguments,
        } => {
            let args: Value = serde_json::from_str(arguments).unwrap_or_else(|_| json!({}));
            json!({"functionCall": {"id": id, "name": name, "args": args}})
        }
        // A question that wants JSON back (the CLI's model router) gets a JSON object.
        Turn::Other if wants_json(body) => json!({"text": routing_answer()}),
        Turn::Finish | Turn::Other => json!({"text": FINAL_TEXT}),
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
