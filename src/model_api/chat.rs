//! The `OpenAI` Chat Completions API, pure: the conversation and the offered tools as a request
//! body, a response body as the model's turn. Any OpenAI-compatible endpoint speaks it (a local
//! llama.cpp, vLLM or Ollama server, a gateway).

use serde_json::{Value, json};

use super::turns::{self, Message, Offered, ToolCall, Turn, Usage};

/// The request body for the model's next turn.
pub fn request(model: &str, conversation: &[Message], offered: &[Offered]) -> Value {
    let messages: Vec<Value> = conversation.iter().map(message).collect();
    let mut body = json!({"model": model, "messages": messages});
    if !offered.is_empty() {
        body["tools"] = offered
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.schema,
                    }
                })
            })
            .collect();
    }
    body
}

fn message(message: &Message) -> Value {
    match message {
        Message::User(text) => json!({"role": "user", "content": text}),
        Message::Model { text, calls } if calls.is_empty() => {
            json!({"role": "assistant", "content": text})
        }
        Message::Model { text, calls } => {
            let calls: Vec<Value> = calls
                .iter()
                .map(|call| {
                    json!({
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments.to_string()},
                    })
                })
                .collect();
            let content = if text.is_empty() {
                Value::Null
            } else {
                Value::from(text.as_str())
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        // The host speaks this API: its own message, for this call.
        Message::ToolResult {
            id,
            payload: Some(message),
            ..
        } => {
            let mut message = message.clone();
            message["tool_call_id"] = Value::from(id.as_str());
            message
        }
        Message::ToolResult { id, text, .. } => {
            json!({"role": "tool", "tool_call_id": id, "content": text})
        }
    }
}

/// The model's turn in a response body, or why there is none (the API's own error included).
pub fn turn(body: &Value) -> Result<Turn, String> {
    if let Some(error) = body.get("error") {
        return Err(turns::refusal(error));
    }
    let message = body
        .pointer("/choices/0/message")
        .ok_or("the model's response has no choices[0].message")?;
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| calls.iter().map(tool_call).collect::<Result<Vec<_>, _>>())
        .transpose()?
        .unwrap_or_default();
    let usage = Usage::at(body, "/usage/prompt_tokens", "/usage/completion_tokens");
    Ok(Turn { text, calls, usage })
}

fn tool_call(call: &Value) -> Result<ToolCall, String> {
    let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
    let function = call
        .get("function")
        .ok_or("a tool call without a function")?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .ok_or("a tool call without a name")?;
    // The API sends the arguments as a JSON text; a model may write one that does not parse,
    // and the host then has it as it is.
    let raw = function
        .get("arguments")
        .and_then(Value::as_str)
        .unwrap_or("{}");
    let arguments = serde_json::from_str(raw).unwrap_or_else(|_| Value::from(raw));
    Ok(ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_tool_result_answers_the_call_of_the_turn_before_it() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "mcp__srv__book_flight".into(),
            arguments: json!({"departureDate": "12/12/2024"}),
        };
        let conversation = [
            Message::User("Book a flight".into()),
            Message::Model {
                text: String::new(),
                calls: vec![call],
            },
            Message::ToolResult {
                id: "call_1".into(),
                text: "Invalid departure date".into(),
                payload: None,
            },
        ];
        let offered = [Offered {
            name: "mcp__srv__book_flight".into(),
            tool: "book_flight".into(),
            description: "Book".into(),
            schema: json!({"type": "object"}),
        }];
        let body = request("m", &conversation, &offered);
        assert_eq!(body["messages"][1]["content"], Value::Null);
        assert_eq!(
            body["messages"][1]["tool_calls"][0]["function"]["arguments"],
            r#"{"departureDate":"12/12/2024"}"#
        );
        assert_eq!(body["messages"][2]["role"], "tool");
        assert_eq!(body["messages"][2]["tool_call_id"], "call_1");
        assert_eq!(
            body["tools"][0]["function"]["name"],
            "mcp__srv__book_flight"
        );
    }

    #[test]
    fn a_response_becomes_the_models_turn_and_an_api_error_says_why() {
        let body = json!({
            "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "t", "arguments": "{\"a\":1}"}}
            ]}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3}
        });
        let turn = turn(&body).unwrap();
        assert_eq!(turn.calls[0].arguments, json!({"a": 1}));
        assert_eq!(
            turn.usage,
            Usage {
                input: 12,
                output: 3
            }
        );
        let refused = json!({"error": {"message": "you must provide a model parameter"}});
        assert_eq!(
            super::turn(&refused).unwrap_err(),
            "the model API refused the request: you must provide a model parameter"
        );
    }
}
