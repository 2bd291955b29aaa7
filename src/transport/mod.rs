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
pub use crate::mcp::wire::{Outgoing, TransportError, TransportEvent};

pub use http::{DpopChoice, Enterprise, Grant, HttpTarget, JwtSource};
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

/// A running connection to one server.
#[derive(Debug)]
pub struct Transport {
    outgoing: Option<mpsc::Sender<Outgoing>>,
    events: mpsc::Receiver<TransportEvent>,
    /// Asks the transport's supervisor to stop the server; dropping it asks too.
    stop: Option<oneshot::Sender<()>>,
    /// The server's process group, stopped on the spot if the transport is dropped before
    /// [`Transport::shutdown`] (an interrupted command), when no task may be left to do it.
    group: Option<stdio::ProcessGroup>,
    /// Stdio: what the stdout reader has read, to tell a line written before a request.
    ledger: Option<Arc<std::sync::Mutex<stdio::ReadLedger>>>,
    /// Streamable HTTP: requests have streams of their own and headers that mirror the body.
    http: bool,
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
    /// Queues what the client sends, never waiting: a server that does not read its input
    /// must not stop sightline from reading its output or timing out. On stdio, header values
    /// have nowhere to go (the line goes alone) and a stream cannot be closed on its own.
    pub fn send(&self, outgoing: Outgoing) -> Result<(), NotSent> {
        let channel = self.outgoing.as_ref().ok_or(NotSent::Closed)?;
        channel.try_send(outgoing).map_err(|error| match error {
            mpsc::error::TrySendError::Full(_) => NotSent::Full,
            mpsc::error::TrySendError::Closed(_) => NotSent::Closed,
        })
    }

    /// Queues one line (without newline) for the server; see [`Transport::send`].
    pub fn send_line(&self, line: crate::mcp::SharedText) -> Result<(), NotSent> {
        self.send(Outgoing::Line(line))
    }

    /// Whether this is Streamable HTTP (where 2026-07-28 mirrors tool parameters into headers).
    pub fn is_http(&self) -> bool {
        self.http
    }

    /// The wire mark of a request about to be handed over. On stdio, whatever the server wrote
    /// before it and the reader has not read yet counts as read before it; over HTTP a reply
    /// comes on the request's own stream, after it by construction.
    pub fn hand_over_mark(&self) -> u64 {
        match &self.ledger {
            Some(ledger) => stdio::ReadLedger::hand_over(ledger),
            None => wire_mark(),
        }
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
