//! The Gemini API (`generateContent`), pure: the conversation and the offered tools as a
//! request body (the model's calls as `functionCall` parts, the host's answers as
//! `functionResponse` parts of one user turn), a response body as the model's turn.

use serde_json::{Value, json};

use super::turns::{self, Message, Offered, ToolCall, Turn, Usage};

/// The request body for the model's next turn.
pub fn request(conversation: &[Message], offered: &[Offered]) -> Value {
    let mut contents: Vec<Value> = Vec::new();
    for message in conversation {
        match message {
            Message::User(text) => {
                contents.push(json!({"role": "user", "parts": [{"text": text}]}));
            }
            Message::Model { text, calls } => {
                let mut parts = Vec::new();
                if !text.is_empty() {
                    parts.push(json!({"text": text}));
                }
                parts.extend(calls.iter().map(|call| {
                    json!({"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}})
                }));
                contents.push(json!({"role": "model", "parts": parts}));
            }
            Message::ToolResult { id, text, payload } => {
                let name = called_name(conversation, id);
                let parts = match payload {
                    // The host speaks this API: its own parts, for this call.
                    Some(content) => content["parts"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|mut part| {
                            if let Some(response) = part.get_mut("functionResponse") {
                                response["id"] = Value::from(id.as_str());
                                response["name"] = Value::from(name);
                            }
                            part
                        })
                        .collect(),
                    None => vec![json!({"functionResponse": {
                        "id": id, "name": name, "response": {"output": text},
                    }})],
                };
                match contents.last_mut() {
                    Some(last) if is_function_responses(last) => {
                        if let Some(all) = last["parts"].as_array_mut() {
                            all.extend(parts);
                        }
                    }
                    _ => contents.push(json!({"role": "user", "parts": parts})),
                }
            }
        }
    }
    let mut body = json!({"contents": contents});
    if !offered.is_empty() {
        let declarations: Vec<Value> = offered
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "parametersJsonSchema": tool.schema,
                })
            })
            .collect();
        body["tools"] = json!([{"functionDeclarations": declarations}]);
    }
    body
}

/// The name of the call `id` answers (a `functionResponse` names its function).
fn called_name<'a>(conversation: &'a [Message], id: &str) -> &'a str {
    conversation
        .iter()
        .rev()
        .find_map(|message| match message {
            Message::Model { calls, .. } => calls.iter().find(|call| call.id == id),
            Message::User(_) | Message::ToolResult { .. } => None,
        })
        .map_or("", |call| call.name.as_str())
}

/// A user turn of function responses (the next response of the same turn joins it).
fn is_function_responses(content: &Value) -> bool {
    content["role"] == "user"
        && content["parts"]
            .as_array()
            .and_then(|parts| parts.first())
            .is_some_and(|part| part.get("functionResponse").is_some())
}

/// The model's turn in a response body, or why there is none (the API's own error included).
pub fn turn(body: &Value) -> Result<Turn, String> {
    if let Some(error) = body.get("error") {
        return Err(turns::refusal(error));
    }
    let parts = body
        .pointer("/candidates/0/content/parts")
        .and_then(Value::as_array)
        .ok_or("the model's response has no candidates[0].content.parts")?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        if let Some(words) = part["text"].as_str() {
            text.push_str(words);
        }
        if let Some(call) = part.get("functionCall") {
            // An id when the model gives one; else one of ours, as Gemini CLI makes.
            let id = call["id"]
                .as_str()
                .map_or_else(|| format!("call_{index}"), str::to_owned);
            calls.push(ToolCall {
                id,
                name: call["name"].as_str().unwrap_or_default().to_owned(),
                arguments: call.get("args").cloned().unwrap_or_else(|| json!({})),
            });
        }
    }
    let usage = Usage::at(
        body,
        "/usageMetadata/promptTokenCount",
        "/usageMetadata/candidatesTokenCount",
    );
    Ok(Turn { text, calls, usage })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_function_response_names_the_call_it_answers_and_a_response_becomes_a_turn() {
        let call = ToolCall {
            id: "c1".into(),
            name: "mcp_srv_book_flight".into(),
            arguments: json!({"departureDate": "12/12/2024"}),
        };
        let host = json!({"role": "user", "parts": [{"functionResponse": {
            "id": "call_sightline", "name": "mcp_tool", "response": {"error": "Invalid"}}}]});
        let conversation = [
            Message::User("Book".into()),
            Message::Model {
                text: String::new(),
                calls: vec![call],
            },
            Message::ToolResult {
                id: "c1".into(),
                text: "Invalid".into(),
                payload: Some(host),
            },
        ];
        let body = request(&conversation, &[]);
        let response = &body["contents"][2]["parts"][0]["functionResponse"];
        assert_eq!(response["name"], "mcp_srv_book_flight");
        assert_eq!(response["id"], "c1");
        assert_eq!(
            response["response"],
            json!({"error": "Invalid"}),
            "the host's own"
        );
        let said = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "t", "args": {"a": 1}}}
        ]}}], "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1}});
        let turn = turn(&said).unwrap();
        assert_eq!(turn.calls[0].id, "call_0");
        assert_eq!(
            turn.usage,
            Usage {
                input: 5,
                output: 1
            }
        );
    }
}
