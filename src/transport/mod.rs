//! The I/O edge: moves lines between a server and the client, and reports what happened as
//! [`TransportEvent`]s. One task per resource; events carry their own timestamps.

pub mod framing;
pub mod stdio;

use std::time::{SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc;

use crate::mcp::Timestamp;
use crate::mcp::jsonrpc::Frame;
use framing::InvalidLine;

pub use stdio::StdioCommand;

/// Capacity of the event channel: a slow consumer slows the readers instead of growing memory.
const EVENT_CAPACITY: usize = 256;

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
    /// A line arrived from the server: a frame, or a line that is not one and why.
    Received {
        frame: Result<Frame, InvalidLine>,
        at: Timestamp,
    },
    /// The server wrote a line to its stderr (informational; never an error by itself).
    StderrLine { line: String, at: Timestamp },
    /// A line could not be written to the server.
    WriteFailed { reason: String, at: Timestamp },
    /// The server's output ended; `status` says how the process ended, if it did.
    Closed { status: String, at: Timestamp },
}

/// Why a transport could not start.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("could not start '{program}': {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
}

/// A running connection to one server.
#[derive(Debug)]
pub struct Transport {
    outgoing: Option<mpsc::Sender<String>>,
    events: mpsc::Receiver<TransportEvent>,
    process: Option<stdio::ProcessHandle>,
    /// Where this transport goes, for the status line (`stdio: node server.js`).
    pub description: String,
}

impl Transport {
    /// Queues one line (without newline) for the server; `false` if the writer has stopped.
    pub async fn send(&self, line: String) -> bool {
        match &self.outgoing {
            Some(outgoing) => outgoing.send(line).await.is_ok(),
            None => false,
        }
    }

    /// The next event; `None` once every task has ended and all events were read.
    pub async fn recv(&mut self) -> Option<TransportEvent> {
        self.events.recv().await
    }

    /// Closes the server's input (the first step of a stdio shutdown).
    pub fn close_input(&mut self) {
        self.outgoing = None;
    }

    /// Asks the server process to stop (SIGTERM), then forces it (SIGKILL) when `force`.
    pub fn signal(&self, force: bool) {
        if let Some(process) = &self.process {
            process.signal(force);
        }
    }
}
