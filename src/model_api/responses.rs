//! The `OpenAI` Responses API, pure: the conversation and the offered tools as a request body
//! (the model's calls as `function_call` items, the host's answers as `function_call_output`),
//! a response body as the model's turn.

use serde_json::{Value, json};

use super::turns::{self, Message, Offered, ToolCall, Turn, Usage};

/// The request body for the model's next turn.
pub fn request(model: &str, conversation: &[Message], offered: &[Offered]) -> Value {
    let mut input: Vec<Value> = Vec::new();
    for message in conversation {
        match message {
            Message::User(text) => input.push(json!({"role": "user", "content": text})),
            Message::Model { text, calls } => {
                if !text.is_empty() {
                    input.push(json!({"role": "assistant", "content": text}));
                }
                input.extend(calls.iter().map(|call| {
                    json!({
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": call.arguments.to_string(),
                    })
                }));
            }
            // The host speaks this API: its own item, for this call.
            Message::ToolResult {
                id,
                payload: Some(item),
                ..
            } => {
                let mut item = item.clone();
                item["call_id"] = Value::from(id.as_str());
                input.push(item);
            }
            Message::ToolResult { id, text, .. } => input.push(json!({
                "type": "function_call_output",
                "call_id": id,
                "output": text,
            })),
        }
    }
    let mut body = json!({"model": model, "input": input});
    if !offered.is_empty() {
        body["tools"] = offered
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.schema,
                })
            })
            .collect();
    }
    body
}

/// The model's turn in a response body, or why there is none (the API's own error included).
pub fn turn(body: &Value) -> Result<Turn, String> {
    if let Some(error) = body.get("error").filter(|error| !error.is_null()) {
        return Err(turns::refusal(error));
    }
    let output = body["output"]
        .as_array()
        .ok_or("the model's response has no output")?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for item in output {
        match item["type"].as_str() {
            Some("message") => {
                for part in item["content"].as_array().into_iter().flatten() {
                    text.push_str(part["text"].as_str().unwrap_or_default());
                }
            }
            Some("function_call") => {
                let raw = item["arguments"].as_str().unwrap_or("{}");
                calls.push(ToolCall {
                    id: item["call_id"].as_str().unwrap_or_default().to_owned(),
                    name: item["name"].as_str().unwrap_or_default().to_owned(),
                    arguments: serde_json::from_str(raw).unwrap_or_else(|_| Value::from(raw)),
                });
            }
            // Reasoning and other items are the model's own.
            _ => {}
        }
    }
    let usage = Usage::at(body, "/usage/input_tokens", "/usage/output_tokens");
    Ok(Turn { text, calls, usage })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_call_and_the_hosts_own_output_item_go_back_as_input_items() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "book_flight".into(),
            arguments: json!({"departureDate": "12/12/2024"}),
        };
        let host_item = json!({"type": "function_call_output", "call_id": "call_sightline",
            "output": "An error occurred while running the tool. Please try again."});
        let conversation = [
            Message::User("Book".into()),
            Message::Model {
                text: String::new(),
                calls: vec![call],
            },
            Message::ToolResult {
                id: "call_1".into(),
                text: String::new(),
                payload: Some(host_item),
            },
        ];
        let body = request("m", &conversation, &[]);
        let input = body["input"].as_array().unwrap();
        assert_eq!(input[1]["type"], "function_call");
        assert_eq!(input[1]["arguments"], r#"{"departureDate":"12/12/2024"}"#);
        assert_eq!(
            input[2]["call_id"], "call_1",
            "the host's item, for this call"
        );
        assert_eq!(
            input[2]["output"],
            "An error occurred while running the tool. Please try again."
        );
    }

    #[test]
    fn a_response_becomes_the_models_turn() {
        let body = json!({"output": [
            {"type": "reasoning", "summary": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "t", "arguments": "{\"a\":1}"}
        ], "usage": {"input_tokens": 7, "output_tokens": 2}, "error": null});
        let turn = turn(&body).unwrap();
        assert_eq!(turn.calls[0].id, "call_1");
        assert_eq!(turn.calls[0].arguments, json!({"a": 1}));
        assert_eq!(
            turn.usage,
            Usage {
                input: 7,
                output: 2
            }
        );
        let said = json!({"output": [{"type": "message", "content": [{"type": "output_text", "text": "Done."}]}]});
        assert_eq!(super::turn(&said).unwrap().text, "Done.");
    }
}
