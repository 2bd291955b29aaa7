//! The Anthropic Messages API, pure: the conversation and the offered tools as a request body
//! (a turn's tool results together in one user message, as the API requires), a response body
//! as the model's turn.

use serde_json::{Value, json};

use super::turns::{self, Message, Offered, ToolCall, Turn, Usage};

/// What the API requires every request to say about the answer's length.
const MAX_TOKENS: u64 = 4096;

/// The request body for the model's next turn.
pub fn request(model: &str, conversation: &[Message], offered: &[Offered]) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    for message in conversation {
        match message {
            Message::User(text) => messages.push(json!({"role": "user", "content": text})),
            Message::Model { text, calls } => {
                let mut content = Vec::new();
                if !text.is_empty() {
                    content.push(json!({"type": "text", "text": text}));
                }
                content.extend(calls.iter().map(|call| {
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
                }));
                messages.push(json!({"role": "assistant", "content": content}));
            }
            Message::ToolResult { id, text, payload } => {
                let block = match payload {
                    // The host speaks this API: its own block, for this call.
                    Some(block) => {
                        let mut block = block.clone();
                        block["tool_use_id"] = Value::from(id.as_str());
                        block
                    }
                    None => json!({"type": "tool_result", "tool_use_id": id, "content": text}),
                };
                match messages.last_mut() {
                    Some(last) if is_tool_results(last) => {
                        if let Some(content) = last["content"].as_array_mut() {
                            content.push(block);
                        }
                    }
                    _ => messages.push(json!({"role": "user", "content": [block]})),
                }
            }
        }
    }
    let mut body = json!({"model": model, "max_tokens": MAX_TOKENS, "messages": messages});
    if !offered.is_empty() {
        body["tools"] = offered
            .iter()
            .map(|tool| {
                json!({"name": tool.name, "description": tool.description, "input_schema": tool.schema})
            })
            .collect();
    }
    body
}

/// A user message of tool results (the next result of the same turn joins it).
fn is_tool_results(message: &Value) -> bool {
    message["role"] == "user"
        && message["content"]
            .as_array()
            .and_then(|content| content.first())
            .is_some_and(|block| block["type"] == "tool_result")
}

/// The model's turn in a response body, or why there is none (the API's own error included).
pub fn turn(body: &Value) -> Result<Turn, String> {
    if body["type"] == "error" {
        return Err(turns::refusal(&body["error"]));
    }
    let content = body["content"]
        .as_array()
        .ok_or("the model's response has no content")?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in content {
        match block["type"].as_str() {
            Some("text") => text.push_str(block["text"].as_str().unwrap_or_default()),
            Some("tool_use") => calls.push(ToolCall {
                id: block["id"].as_str().unwrap_or_default().to_owned(),
                name: block["name"].as_str().unwrap_or_default().to_owned(),
                arguments: block.get("input").cloned().unwrap_or_else(|| json!({})),
            }),
            // Thinking and other blocks are the model's own; the host keeps them, not us.
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
    fn a_turns_tool_results_go_back_in_one_user_message_the_hosts_own_block_kept() {
        let calls = ["toolu_1", "toolu_2"].map(|id| ToolCall {
            id: id.into(),
            name: "mcp__srv__book_flight".into(),
            arguments: json!({}),
        });
        let host_block = json!({"type": "tool_result", "tool_use_id": "toolu_sightline",
            "content": [{"type": "text", "text": "Invalid"}], "is_error": true});
        let conversation = [
            Message::User("Book".into()),
            Message::Model {
                text: String::new(),
                calls: calls.to_vec(),
            },
            Message::ToolResult {
                id: "toolu_1".into(),
                text: "Invalid".into(),
                payload: Some(host_block),
            },
            Message::ToolResult {
                id: "toolu_2".into(),
                text: "Booked".into(),
                payload: None,
            },
        ];
        let body = request("m", &conversation, &[]);
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "{body:#}");
        let results = messages[2]["content"].as_array().unwrap();
        assert_eq!(
            results[0]["tool_use_id"], "toolu_1",
            "the host's block, for this call"
        );
        assert_eq!(results[0]["is_error"], true);
        assert_eq!(
            results[1],
            json!({"type": "tool_result", "tool_use_id": "toolu_2", "content": "Booked"})
        );
        assert_eq!(body["max_tokens"], MAX_TOKENS);
    }

    #[test]
    fn a_response_becomes_the_models_turn_and_an_api_error_says_why() {
        let body = json!({"type": "message", "content": [
            {"type": "text", "text": "Booking."},
            {"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"a": 1}}
        ], "usage": {"input_tokens": 10, "output_tokens": 4}});
        let turn = turn(&body).unwrap();
        assert_eq!(turn.text, "Booking.");
        assert_eq!(turn.calls[0].arguments, json!({"a": 1}));
        assert_eq!(
            turn.usage,
            Usage {
                input: 10,
                output: 4
            }
        );
        let refused = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"}});
        assert_eq!(
            super::turn(&refused).unwrap_err(),
            "the model API refused the request: max_tokens: Field required"
        );
    }
}
