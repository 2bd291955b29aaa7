//! Test builders for exchanges shaped like real servers' answers.

#![allow(clippy::needless_pass_by_value)] // builders read best taking `json!(…)` values directly

use serde_json::{Value, json};

use crate::mcp::Timestamp;
use crate::mcp::jsonrpc::{Frame, Id, Message, parse};
use crate::mcp::messages::Tool;
use crate::mcp::session::{End, Exchange, Failure};

/// The spec versions the tables run over.
pub const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// A request of `method` with `params`, not yet ended.
pub struct Call {
    method: String,
    params: Value,
}

pub fn call(name: &str, arguments: Value) -> Call {
    Call {
        method: "tools/call".into(),
        params: json!({"name": name, "arguments": arguments}),
    }
}

pub fn request(method: &str) -> Call {
    Call {
        method: method.into(),
        params: json!({}),
    }
}

impl Call {
    /// Ended as `end` says.
    pub fn end_with(self, end: End) -> Exchange {
        self.end(end)
    }

    fn end(self, end: End) -> Exchange {
        let request = Frame::encode(Message::Request {
            id: Id::Number(7),
            method: self.method.clone(),
            params: Some(self.params),
        });
        Exchange {
            id: Id::Number(7),
            method: self.method,
            request,
            sent_at: Timestamp(1_000),
            end,
            ended_at: Timestamp(1_012),
            http: None,
            rounds: Vec::new(),
            task: None,
        }
    }

    fn replied(self, body: &Value) -> Exchange {
        let raw = format!(
            r#"{{"jsonrpc":"2.0","id":7,{}}}"#,
            &body.to_string()[1..body.to_string().len() - 1]
        );
        self.end(End::Replied(parse(&raw).expect("fixture reply parses")))
    }

    pub fn result(self, result: Value) -> Exchange {
        self.replied(&json!({"result": result}))
    }

    pub fn text(self, text: &str) -> Exchange {
        self.result(json!({"content": [{"type": "text", "text": text}]}))
    }

    pub fn tool_error(self, text: &str) -> Exchange {
        self.result(json!({"content": [{"type": "text", "text": text}], "isError": true}))
    }

    pub fn error(self, code: i64, message: &str) -> Exchange {
        self.replied(&json!({"error": {"code": code, "message": message}}))
    }

    pub fn error_with_data(self, code: i64, message: &str, data: Value) -> Exchange {
        self.replied(&json!({"error": {"code": code, "message": message, "data": data}}))
    }

    pub fn timeout(self) -> Exchange {
        self.end(End::TimedOut { after_ms: 30_000 })
    }

    pub fn exited(self) -> Exchange {
        self.end(End::Failed(Failure::ServerExited {
            status: "exit code 1".into(),
            stderr_tail: vec!["Traceback (most recent call last):".into()],
        }))
    }
}

/// A catalog listing these tool names.
pub fn catalog(names: &[&str]) -> crate::mcp::catalog::Catalog {
    names
        .iter()
        .map(|name| Tool::from_value(&json!({"name": name})))
        .collect()
}
