//! The transcript format, pure: the header, the line types and their (de)serialization.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mcp::catalog::Catalog;
use crate::mcp::era::Era;
use crate::mcp::jsonrpc::{ErrorObject, FrameError, Id};
use crate::mcp::log::{HttpExchange, Stage};
use crate::mcp::messages::Tool;
use crate::mcp::session::TaskForm;

/// The format this sightline writes, and the newest it reads.
pub const VERSION: u32 = 1;

/// The first line of a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The format version: always the first member, so any reader can tell.
    pub sightline_transcript: u32,
    /// The sightline that wrote it.
    pub sightline: String,
    /// When recording started, RFC 3339 UTC, and the same in Unix milliseconds.
    pub started: String,
    pub started_ms: u64,
    /// `tui`, `call` or `tools`.
    pub command: String,
    /// The server as the status line names it (secrets masked).
    pub transport: String,
    /// Whether secrets were masked (`false` with `--no-redact`).
    pub redacted: bool,
}

/// One line after the header: one event of the session stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record<'a> {
    Connecting {
        #[serde(borrow)]
        transport: Cow<'a, str>,
    },
    /// A frame written to the server, exactly as sent.
    Sent {
        at: u64,
        #[serde(borrow)]
        raw: Cow<'a, str>,
    },
    /// A frame read from the server, exactly as received, and what it meant.
    Received {
        at: u64,
        #[serde(borrow)]
        raw: Cow<'a, str>,
        role: RoleRecord,
    },
    /// A line from the server that is not a JSON-RPC message.
    Invalid {
        at: u64,
        #[serde(borrow)]
        raw: Cow<'a, str>,
        error: FrameError,
    },
    Stderr {
        at: u64,
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    /// sightline's own timeout for a request.
    TimedOut {
        at: u64,
        id: Id,
        method: String,
        after_ms: u64,
    },
    WriteFailed {
        at: u64,
        reason: String,
    },
    /// The server's output ended (the process exit, when it exited).
    Closed {
        at: u64,
        status: String,
    },
    /// A note in the log's words. For a fact of an OAuth flow, `authorization` holds it as
    /// data (`text` keeps its words, for a reader that knows no such member).
    Note {
        at: u64,
        #[serde(borrow)]
        text: Cow<'a, str>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        authorization: Option<Value>,
    },
    Http {
        at: u64,
        exchange: HttpExchange,
    },
    Connected {
        era: Era,
        protocol_version: String,
        server: ServerRecord,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        capabilities: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http_session: Option<String>,
        /// Since 0.1.0 of December 2026; earlier transcripts' probes are read from their frames.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        probe: Option<crate::mcp::log::Probe>,
    },
    ConnectFailed {
        stage: Stage,
        reason: String,
    },
    Tools {
        tools: Vec<ToolRecord<'a>>,
    },
    ToolsFailed {
        reason: String,
    },
    /// A finished call: the frames again (so a call reads on its own), how it ended, and the
    /// class and findings sightline gave it when it was recorded.
    Call(Box<CallRecord<'a>>),
    Disconnected,
    /// A turn of `sightline agent`'s model: the body sent to its API and the body it answered
    /// (never a header: no key), beside the wire it led to.
    Model(Box<ModelTurn>),
}

/// One request to a model API and its answer, as `sightline agent` recorded them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelTurn {
    pub at: u64,
    /// `chat`, `responses`, `messages` or `gemini`.
    pub api: String,
    pub request: Value,
    pub response: Value,
}

/// What a received frame meant: `reply`, `late`, `duplicate` (with the request's method),
/// `unknown_id`, `unaddressed`, `server_request` or `notification`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleRecord {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRecord {
    pub name: String,
    pub version: String,
}

/// A listed tool: written as the text it was listed in (borrowed, never parsed into a tree:
/// a listing of 200,000 tools would cost ten times its bytes), read back as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRecord<'a> {
    pub tool: ToolText<'a>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<Cow<'a, str>>,
}

/// A tool object: the listed text when written, a value when read back (serde cannot read a
/// raw value inside a tagged enum). Written as its value (one tool's tree at a time), so a
/// listing reads back and is written again byte for byte.
#[derive(Debug, Clone)]
pub enum ToolText<'a> {
    Listed(&'a serde_json::value::RawValue),
    Read(Value),
}

impl ToolText<'_> {
    pub fn value(&self) -> Value {
        match self {
            ToolText::Listed(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
            ToolText::Read(value) => value.clone(),
        }
    }
}

impl PartialEq for ToolText<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl Serialize for ToolText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolText::Listed(raw) => match serde_json::from_str::<Value>(raw.get()) {
                Ok(value) => value.serialize(serializer),
                Err(_) => raw.serialize(serializer),
            },
            ToolText::Read(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ToolText<'_> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ToolText::Read)
    }
}

impl<'a> ToolRecord<'a> {
    /// A listed tool's record, borrowing its text (checked JSON, so this only borrows it).
    pub fn of(tool: &'a Tool) -> Option<Self> {
        Some(ToolRecord {
            tool: ToolText::Listed(serde_json::from_str(tool.raw.text()).ok()?),
            rejected: tool.rejected.as_deref().map(Cow::Borrowed),
        })
    }

    /// The same record, owning what it holds (a tool read from a listing as it is walked).
    pub fn owned(tool: &Tool) -> Option<ToolRecord<'static>> {
        Some(ToolRecord {
            tool: ToolText::Read(serde_json::from_str(tool.raw.text()).ok()?),
            rejected: tool
                .rejected
                .as_deref()
                .map(|reason| Cow::Owned(reason.to_owned())),
        })
    }
}

/// A `tools` line written straight from the listing, tool by tool: the same line as
/// [`Record::Tools`], without a record per tool held at once.
#[derive(Serialize)]
pub struct ToolsLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    tools: Listed<'a>,
}

impl<'a> ToolsLine<'a> {
    pub fn new(tools: &'a Catalog) -> Self {
        Self {
            kind: "tools",
            tools: Listed(tools),
        }
    }
}

struct Listed<'a>(&'a Catalog);

impl Serialize for Listed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(None)?;
        for tool in self.0 {
            if let Some(record) = ToolRecord::of(&tool) {
                seq.serialize_element(&record)?;
            }
        }
        seq.end()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord<'a> {
    pub id: Id,
    pub method: String,
    pub sent_at: u64,
    pub ended_at: u64,
    #[serde(borrow)]
    pub request: Cow<'a, str>,
    #[serde(borrow)]
    pub end: EndRecord<'a>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpExchange>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<RoundRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRecord>,
    /// What sightline made of it then; a replay computes it again with today's rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Judged>,
}

/// A call's class and findings as judged when it was recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    pub class: String,
    pub detail: String,
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EndRecord<'a> {
    Replied {
        #[serde(borrow)]
        raw: Cow<'a, str>,
    },
    /// Replied with the transcript's last `received` frame, the line just before: a large
    /// answer is written once.
    RepliedAbove,
    TimedOut {
        after_ms: u64,
    },
    ServerExited {
        status: String,
        stderr_tail: Vec<String>,
    },
    MalformedReply {
        raw: String,
        reason: String,
    },
    SendFailed {
        reason: String,
    },
    Rejected {
        reason: String,
    },
    CancelledByUser,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<Id>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub method: String,
    pub params: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub id: String,
    /// Absent in transcripts written before 2025-11-25 tasks were followed.
    #[serde(default)]
    pub form: TaskForm,
    pub status: String,
    pub polls: u32,
    /// When sightline stopped following it, in milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<u64>,
    /// The task's `result`, as JSON text, or its `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::mcp::log::SessionEvent;
    use crate::transcript::Redactor;

    #[test]
    fn the_recorder_writes_a_listing_as_the_record_would_without_holding_one_per_tool() {
        let mut rejected =
            Tool::from_value(&json!({"name": "bad", "inputSchema": {"type": "object"}}));
        rejected.rejected = Some("an x-mcp-header on an object".into());
        let tools: Vec<Tool> = vec![
            Tool::from_value(
                &json!({"name": "a", "description": "é \u{1b}", "inputSchema": {"type": "object"}}),
            ),
            rejected,
        ];
        let tools: crate::mcp::catalog::Catalog = tools.into();
        let event = SessionEvent::ToolsListed(std::sync::Arc::new(tools.clone()));
        let record = Record::of(&event, &Redactor::default(), None).unwrap();
        assert_eq!(
            serde_json::to_string(&ToolsLine::new(&tools)).unwrap(),
            serde_json::to_string(&record).unwrap()
        );
    }
}
