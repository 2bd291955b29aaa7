//! The session's vocabulary, as plain data: the events of the session stream in the order they
//! happen, what negotiation established, and every frame, stderr line and local decision.

use std::sync::Arc;

use serde::Serialize;

use super::Timestamp;
use super::era::Era;
use super::framing::InvalidLine;
pub use super::http::HttpExchange;
use super::input::{Answer, InputRequest};
use super::json::Json;
use super::jsonrpc::{Frame, Id};
use super::messages::ServerInfo;
use super::oauth::AuthFact;
use crate::mcp::catalog::Catalog;

/// One fact of a session, in the order it happened. A call's `CallFinished` always follows the
/// `Logged` entry of the frame that ended it.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    /// Connecting to the server described here.
    Connecting { transport: String },
    /// A log line: frame in or out, stderr, timeout, note.
    Logged(LogEntry),
    /// Negotiation succeeded. (Boxed: events are moved often, and this one is large and rare.)
    Connected(Box<Connection>),
    /// The server could not be reached or refused negotiation.
    ConnectFailed { stage: Stage, reason: String },
    /// The tools, all pages (again after `notifications/tools/list_changed`).
    ToolsListed(Arc<Catalog>),
    /// `tools/list` failed; calls are still possible.
    ToolsFailed(String),
    /// A `tools/call` ended (answered, timed out, cancelled or failed).
    CallFinished(Box<crate::mcp::verdict::Finished>),
    /// A request other than `tools/call`, asked for by the app (`SessionCommand::Request`),
    /// ended: answered, refused, timed out or failed. Its frames are in the log already.
    Requested(Box<crate::mcp::session::Exchange>),
    /// A request the app holds open as `key` (`SessionCommand::Listen`) ended: the server
    /// ended it, the user cancelled it, or the connection went.
    Listened {
        key: String,
        exchange: Box<crate::mcp::session::Exchange>,
    },
    /// The server is gone; nothing more will happen until a reconnect.
    Disconnected,
    /// The server asks the user something; the answer goes back under `number` (the TUI).
    /// `proposed` is what sightline would answer without the user (from `--elicit`,
    /// `--sample`, `--root` or the config).
    Asked {
        number: u64,
        request: Box<InputRequest>,
        proposed: Box<Answer>,
    },
}

/// Where a run stopped: the step of the session that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Starting the server (or reaching it).
    Spawn,
    /// `server/discover` (the modern era, or `auto`'s probe).
    Discover,
    /// `initialize` (the legacy era).
    Initialize,
    /// `tools/list` (or the listing `resources`, `prompts` ask for).
    List,
    /// `tools/call` (or the one request `read`, `prompt`, `ping`, `request` send).
    Call,
}

impl Stage {
    /// The stage a request of `method` belongs to.
    pub fn of_method(method: &str) -> Stage {
        match method {
            "server/discover" => Stage::Discover,
            "initialize" => Stage::Initialize,
            "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
                Stage::List
            }
            _ => Stage::Call,
        }
    }
}

/// What negotiation established.
#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    pub era: Era,
    pub protocol_version: String,
    pub server: ServerInfo,
    pub capabilities: Option<Json>,
    /// The `Mcp-Session-Id` of a legacy Streamable HTTP session.
    pub http_session: Option<String>,
    /// `auto`'s era probe, when its answer (or silence) sent the negotiation to `initialize`.
    pub probe: Option<Probe>,
}

/// The era probe (`server/discover`) that found a legacy server: its id, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Probe {
    pub id: Id,
    #[serde(flatten)]
    pub answer: ProbeAnswer,
}

/// How the era probe ended, as the negotiation judged it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ProbeAnswer {
    /// A JSON-RPC error; over HTTP a legacy server may send it with id null (`addressed`
    /// false), as the body of the probe's POST.
    Refused { code: i64, addressed: bool },
    /// HTTP 400, 404 or 405 and no JSON-RPC error.
    RefusedOverHttp { status: u16 },
    /// A result that is no `DiscoverResult`.
    NotDiscover,
    /// No answer within the probe timeout.
    Unanswered,
}

/// What a frame we received meant.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// The response to a pending request.
    Reply { method: String },
    /// A response after we stopped waiting (timeout or failure).
    Late { method: String },
    /// A second response to an answered request.
    Duplicate { method: String },
    /// A response to an id we never sent.
    UnknownId,
    /// An error response with a null id.
    Unaddressed,
    /// A request from the server.
    ServerRequest,
    /// A notification from the server.
    Notification,
}

/// One line of the session log.
#[derive(Debug, Clone, PartialEq)]
pub enum LogEvent {
    /// A frame we wrote.
    Sent(Frame),
    /// A frame we read, and what it meant.
    Received { frame: Frame, role: Role },
    /// A line from the server that is not a JSON-RPC message.
    Invalid(InvalidLine),
    /// Lines of the server's stderr, one read's worth, separated by `\n` (one event, not one
    /// per line: a flood of tiny lines costs about its bytes).
    Stderr(String),
    /// Our own timeout expired for a request.
    TimedOut {
        id: Id,
        method: String,
        after_ms: u64,
    },
    /// Writing to the server failed.
    WriteFailed(String),
    /// The server's output ended; `status` says how the process ended, if it did.
    Closed { status: String },
    /// A decision of the client, such as the era probe falling back.
    Note(String),
    /// A fact of an OAuth flow: a step the client took, or a problem of the server's part.
    Authorization(AuthFact),
    /// An HTTP request and its response (Streamable HTTP).
    Http(Arc<HttpExchange>),
}

/// A timestamped log line.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub at: Timestamp,
    pub event: LogEvent,
}
