//! The session log's vocabulary, as plain data: what negotiation established, and every frame,
//! stderr line and local decision with its time.

use serde_json::Value;

use super::Timestamp;
use super::era::Era;
use super::jsonrpc::{Frame, Id};
use super::messages::ServerInfo;
use crate::transport::framing::InvalidLine;

/// What negotiation established.
#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    pub era: Era,
    pub protocol_version: String,
    pub server: ServerInfo,
    pub capabilities: Value,
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
    /// A line of the server's stderr.
    Stderr(String),
    /// Our own timeout expired for a request.
    TimedOut {
        id: Id,
        method: String,
        after_ms: u64,
    },
    /// Writing to the server failed.
    WriteFailed(String),
    /// The server's output ended.
    Closed { status: String },
    /// A decision of the client, such as the era probe falling back.
    Note(String),
}

/// A timestamped log line.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub at: Timestamp,
    pub event: LogEvent,
}
