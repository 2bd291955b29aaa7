//! What crosses the transport's edge, as data: the events a transport reports and the one kind
//! of thing the client hands it to send.

use std::sync::Arc;

use crate::mcp::Timestamp;
use crate::mcp::framing::InvalidLine;
use crate::mcp::http::HttpExchange;
use crate::mcp::jsonrpc::{Frame, Id};
use crate::mcp::oauth::AuthFact;

/// What the client hands the transport: a line, a line with header values of its own (a
/// deliberate mismatch, to see whether the server checks), or the end of one request's stream
/// (the 2026-07-28 cancellation over HTTP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    Line(crate::mcp::SharedText),
    WithHeaders {
        line: crate::mcp::SharedText,
        headers: Vec<(String, String)>,
    },
    CloseStream(Id),
}

/// Something that happened on the transport.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportEvent {
    /// Lines arrived from the server in one read, in order: each a frame, or a line that is not
    /// one and why. (One event per read, not per line: a flood of small frames costs one
    /// hand-over per read.)
    Received {
        lines: Vec<Result<Frame, InvalidLine>>,
        at: Timestamp,
        /// When the read that completed these lines returned, in wire order (`transport::wire_mark`).
        mark: u64,
        /// HTTP: the request whose POST these lines are the body of. An error without an id
        /// there can only be about that request (on stdio it is about no request).
        body_of: Option<Id>,
    },
    /// Lines of the server's stderr from one read, separated by `\n` (informational; never an
    /// error by itself).
    StderrLines { text: String, at: Timestamp },
    /// A line could not be written to the server.
    WriteFailed { reason: String, at: Timestamp },
    /// The request with this id failed on the way (HTTP: a status without a JSON-RPC answer,
    /// a refused connection, a stream that ended before the answer).
    RequestFailed {
        id: Id,
        reason: String,
        at: Timestamp,
    },
    /// The event stream of a 2026-07-28 request ended before its response: the request is
    /// lost, and the client must re-issue it under a new id.
    StreamLost {
        id: Id,
        reason: String,
        at: Timestamp,
    },
    /// Something the transport saw that belongs in the log (an HTTP status beside an answer).
    Note { text: String, at: Timestamp },
    /// A step of an OAuth flow the transport runs, or a problem it met in the server's part.
    Authorization { fact: AuthFact, at: Timestamp },
    /// An HTTP request and its response; for a request that gets an answer, before the answer.
    Http {
        exchange: Arc<HttpExchange>,
        at: Timestamp,
    },
    /// The server opened an HTTP session (legacy era: `Mcp-Session-Id` on `initialize`).
    SessionStarted { id: String, at: Timestamp },
    /// The server ended the HTTP session (legacy era: a 404 to a request that carried its id);
    /// the transport has forgotten the id, and the client must initialize again.
    SessionExpired { at: Timestamp },
    /// The server's output ended; `status` says how the process ended, if it did, and
    /// `stderr_tail` holds the last lines of its stderr (stdio only).
    Closed {
        status: String,
        stderr_tail: Vec<String>,
        at: Timestamp,
    },
}

/// Why a transport could not start.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("could not start '{program}': {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("cannot locate sightline's own executable for the demo server: {0}")]
    NoDemoServer(std::io::Error),
    #[error("'{url}' is not a URL sightline can reach: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("{0}")]
    BadHeader(String),
    #[error("cannot start the HTTP client: {0}")]
    Http(String),
    /// An `--config` file that does not name a usable server.
    #[error("{0}")]
    Config(String),
    /// Several servers selected (`--demo` or `--server` repeated) where one is wanted.
    #[error("{0}")]
    Several(String),
}
