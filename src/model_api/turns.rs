//! The model in the loop, pure: the conversation as the model API sees it, the tools as a host
//! offers them, and what a run did (its calls, the model's reading of each, how it ended).

use serde::Serialize;
use serde_json::Value;

use crate::classify::Class;

/// One message of the conversation, in no API's shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    User(String),
    /// The model's turn: its words, its tool calls.
    Model {
        text: String,
        calls: Vec<ToolCall>,
    },
    /// What the host sent its model for call `id`: its text, and the host's own message when
    /// the host speaks the API the model is asked in (its error flag, its blocks).
    ToolResult {
        id: String,
        text: String,
        payload: Option<Value>,
    },
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    pub id: String,
    /// The name the model used (the host's name for the tool).
    pub name: String,
    pub arguments: Value,
}

/// The model's answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub text: String,
    pub calls: Vec<ToolCall>,
    pub usage: Usage,
}

/// Tokens the API said it counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
}

impl Usage {
    /// The counts a response body has at these JSON pointers (none counted: 0).
    pub fn at(body: &Value, input: &str, output: &str) -> Self {
        let count = |key: &str| body.pointer(key).and_then(Value::as_u64).unwrap_or(0);
        Usage {
            input: count(input),
            output: count(output),
        }
    }
}

/// The words an API's `error` object says it refused the request with.
pub fn refusal(error: &Value) -> String {
    let said = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_owned);
    format!("the model API refused the request: {said}")
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Self) {
        self.input += other.input;
        self.output += other.output;
    }
}

/// A server tool as the host offers it to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Offered {
    /// The host's name for it, the one the model calls.
    pub name: String,
    /// The server's name for it.
    pub tool: String,
    pub description: String,
    pub schema: Value,
}

/// The server tool the model's `name` stands for, if any.
pub fn tool_for<'a>(offered: &'a [Offered], name: &str) -> Option<&'a Offered> {
    offered.iter().find(|tool| tool.name == name)
}

/// One tool call of a run, as it went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallRecord {
    /// The model request (1-based) whose answer made the call.
    pub turn: u32,
    /// The name the model called.
    pub name: String,
    /// The server's tool, when the name stands for one.
    pub tool: Option<String>,
    pub arguments: Value,
    /// Whether the host called the server (it answers some calls itself).
    pub server_called: bool,
    /// The exchange's class, when the server was called.
    pub class: Option<Class>,
    /// What the host sent its model.
    pub model_read: String,
    /// The same tool with the same arguments was called before in this run.
    pub repeated: bool,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The model answered with text.
    Answered,
    /// `--max-turns` requests, each answered with more tool calls.
    TurnsRanOut,
    /// The host fails its whole run on what a call brought.
    HostEndedRun,
}

/// Whether `name` with `arguments` was called before among `calls`.
pub fn repeats(calls: &[CallRecord], name: &str, arguments: &Value) -> bool {
    calls
        .iter()
        .any(|call| call.name == name && &call.arguments == arguments)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(name: &str, arguments: Value) -> CallRecord {
        CallRecord {
            turn: 1,
            name: name.into(),
            tool: None,
            arguments,
            server_called: true,
            class: None,
            model_read: String::new(),
            repeated: false,
        }
    }

    #[test]
    fn a_call_repeats_only_the_same_tool_with_the_same_arguments() {
        let calls = [record("book", json!({"departureDate": "12/12/2024"}))];
        assert!(repeats(
            &calls,
            "book",
            &json!({"departureDate": "12/12/2024"})
        ));
        assert!(!repeats(
            &calls,
            "book",
            &json!({"departureDate": "12/12/2027"})
        ));
        assert!(!repeats(
            &calls,
            "other",
            &json!({"departureDate": "12/12/2024"})
        ));
    }
}
