//! The I/O edge: reaches a server named by a [`Target`], moves lines between it and the client,
//! reports what happened as [`TransportEvent`]s and owns the server's shutdown. One task per
//! resource; events carry their own timestamps.

mod holders;
pub mod http;
mod stderr_lines;
pub mod stdio;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::sync::{mpsc, oneshot};

use crate::mcp::Timestamp;
use crate::mcp::framing::InvalidLine;
use crate::mcp::jsonrpc::{Frame, Id};
use crate::mcp::log::HttpExchange;
use crate::mcp::oauth::AuthFact;

pub use http::HttpTarget;
pub use stdio::StdioCommand;

/// Capacity of the event channel: a slow consumer slows the readers instead of growing memory.
/// An event holds one read (up to 64 KiB of lines), so this bounds what is in flight to ~1 MiB.
pub const EVENT_CAPACITY: usize = 16;

/// The order of what crosses the wire, within this process: taken when a read returns and
/// when a line is handed over to be written, so that a reply read before its request went out
/// is never matched to it (the wall clock's milliseconds cannot tell).
static WIRE_ORDER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The next mark in wire order.
pub fn wire_mark() -> u64 {
    WIRE_ORDER.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
}

/// The wall clock, read only at the I/O edge.
pub fn now() -> Timestamp {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    Timestamp(u64::try_from(ms).unwrap_or(u64::MAX))
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
        /// When the read that completed these lines returned, in [`wire_mark`] order.
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

/// Where a server is and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A child process speaking newline-delimited JSON-RPC on stdin and stdout.
    Stdio(StdioCommand),
    /// A Streamable HTTP endpoint.
    Http(HttpTarget),
}

impl Target {
    /// How the status line names it (`stdio: node server.js`, `http: localhost:8080`).
    pub fn describe(&self) -> String {
        match self {
            Target::Stdio(command) => format!("stdio: {}", command.display()),
            Target::Http(target) => target.display(),
        }
    }
}

/// Reaches the server `target` names.
pub fn open(target: &Target, max_frame_bytes: usize) -> Result<Transport, TransportError> {
    match target {
        Target::Stdio(command) => stdio::spawn(command, max_frame_bytes),
        Target::Http(target) => http::connect(target, max_frame_bytes),
    }
}

/// Lines waiting for the server to read them, at most; past that, more are refused.
pub const OUTGOING_CAPACITY: usize = 1024;

/// Why a line was not queued for the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotSent {
    #[error("the server's input is closed")]
    Closed,
    #[error("the server is not reading its input ({OUTGOING_CAPACITY} lines wait for it)")]
    Full,
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
}

/// A running connection to one server.
#[derive(Debug)]
pub struct Transport {
    outgoing: Option<mpsc::Sender<Arc<str>>>,
    events: mpsc::Receiver<TransportEvent>,
    /// Asks the transport's supervisor to stop the server; dropping it asks too.
    stop: Option<oneshot::Sender<()>>,
    /// The server's process group, stopped on the spot if the transport is dropped before
    /// [`Transport::shutdown`] (an interrupted command), when no task may be left to do it.
    group: Option<stdio::ProcessGroup>,
    /// HTTP: closes the stream of a request, by id (the 2026-07-28 cancellation).
    close_stream: Option<mpsc::UnboundedSender<Id>>,
    /// HTTP: header values to send instead of the computed ones, for one request by id.
    header_overrides: Option<http::Overrides>,
    /// Where this transport goes, for the status line (`stdio: node server.js`).
    pub description: String,
}

impl Drop for Transport {
    fn drop(&mut self) {
        if self.stop.is_some()
            && let Some(group) = self.group
        {
            group.stop_now();
        }
    }
}

impl Transport {
    /// Queues one line (without newline) for the server, never waiting: a server that does not
    /// read its input must not stop sightline from reading its output or timing out.
    pub fn send(&self, line: Arc<str>) -> Result<(), NotSent> {
        let outgoing = self.outgoing.as_ref().ok_or(NotSent::Closed)?;
        outgoing.try_send(line).map_err(|error| match error {
            mpsc::error::TrySendError::Full(_) => NotSent::Full,
            mpsc::error::TrySendError::Closed(_) => NotSent::Closed,
        })
    }

    /// Sends these header values with request `id` instead of the ones read from its body
    /// (a deliberate mismatch, to see whether the server checks); `false` on stdio.
    pub fn override_headers(&self, id: &Id, headers: Vec<(String, String)>) -> bool {
        let Some(overrides) = &self.header_overrides else {
            return false;
        };
        overrides
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id.clone(), headers);
        true
    }

    /// Whether this is Streamable HTTP (where 2026-07-28 mirrors tool parameters into headers).
    pub fn is_http(&self) -> bool {
        self.close_stream.is_some()
    }

    /// Closes the stream of request `id`, when this transport cancels that way (Streamable
    /// HTTP); `false` when it has no per-request stream to close (stdio).
    pub fn close_stream(&self, id: &Id) -> bool {
        self.close_stream
            .as_ref()
            .is_some_and(|close| close.send(id.clone()).is_ok())
    }

    /// An event that is ready now, without waiting.
    pub fn try_recv(&mut self) -> Option<TransportEvent> {
        self.events.try_recv().ok()
    }

    /// The next event; `None` once every task has ended and all events were read.
    pub async fn recv(&mut self) -> Option<TransportEvent> {
        self.events.recv().await
    }

    /// Starts stopping the server the way its transport does it (stdio: close its input, wait,
    /// SIGTERM its process group, wait, SIGKILL). `Closed` follows on the event stream.
    pub fn shutdown(&mut self) {
        self.outgoing = None;
        if let Some(stop) = self.stop.take() {
            // A finished supervisor has nothing left to stop.
            let _ = stop.send(());
        }
    }
}
