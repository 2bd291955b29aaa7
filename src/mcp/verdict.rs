//! The words a judgement is said in, as data: the class of an exchange, its outcome, and a
//! finding about it. `classify` decides them; the session stream carries them with each call.

use serde::Serialize;
use serde_json::{Value, json};

use crate::mcp::jsonrpc::Id;
use crate::mcp::session::Exchange;

/// How an exchange ended, from the client's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// A `result`, with `isError` absent or false.
    Success,
    /// A `tools/call` result with `isError: true`: the content is meant for the model.
    ToolError,
    /// A JSON-RPC `error` object: the client handles it, the model does not see it by default.
    ProtocolError,
    /// No usable reply: the server exited, the reply was unreadable, or our own timeout expired.
    TransportFailure,
}

impl Class {
    /// The class in words, as the log and the headless output label it.
    pub fn label(&self) -> &'static str {
        match self {
            Class::Success => "success",
            Class::ToolError => "tool error",
            Class::ProtocolError => "protocol error",
            Class::TransportFailure => "transport failure",
        }
    }
}

/// The class plus what distinguishes it: the error code, and a one-line detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub class: Class,
    /// The JSON-RPC error code, for protocol errors only.
    pub code: Option<i64>,
    pub detail: String,
}

impl Outcome {
    /// The `outcome` object of `call --json`.
    pub fn to_json(&self) -> Value {
        let mut value = json!({"class": self.class});
        if let Some(code) = self.code {
            value["code"] = code.into();
        }
        value["detail"] = self.detail.clone().into();
        value
    }
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Allowed, but worth knowing (e.g. behaviour a later spec version changed).
    Info,
    /// Against a SHOULD or a MUST of the negotiated version, or blinding the model.
    Warning,
}

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Sent,
    Received,
}

/// A pointer to one frame of the log: its direction and JSON-RPC id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrameRef {
    pub direction: Direction,
    pub id: Id,
}

/// One observation about an exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub id: &'static str,
    pub severity: Severity,
    /// One line naming the spec version and the rule.
    pub message: String,
    /// The frames it is about.
    pub frames: Vec<FrameRef>,
}

/// What an exchange was judged: its outcome and the findings about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub outcome: Outcome,
    pub findings: Vec<Finding>,
}

/// A finished call as the session stream carries it: the exchange, judged once by the session
/// that ran it (a call read back from a transcript comes unjudged, and is judged where shown).
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub exchange: Exchange,
    pub judged: Option<Judgement>,
}

impl Finished {
    pub fn unjudged(exchange: Exchange) -> Self {
        Self {
            exchange,
            judged: None,
        }
    }
}
