//! The watching half of a proxy: what the pipes saw, in the order they saw it, turned into the
//! session stream (a [`Watch`]) and handed to the sink — the recorder, and stderr for each
//! finding. It runs beside the pipes, never in their way: they forward first, then tell it.

use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::watch::{Side, Watch};
use crate::mcp::Timestamp;
use crate::mcp::framing::{self, DEFAULT_MAX_FRAME_BYTES, Line};
use crate::mcp::jsonrpc::Frame;
use crate::mcp::log::{LogEntry, LogEvent, SessionEvent};
use crate::model_view::clients;
use crate::sanitize;
use crate::stream::EventSink;
use crate::transport::now;

/// What a pipe saw.
#[derive(Debug)]
pub enum Seen {
    Line {
        from: Side,
        line: Line,
        at: Timestamp,
        /// The pipe's budget this holds, given back once it is watched and recorded.
        budget: Option<OwnedSemaphorePermit>,
    },
    /// A frame a transport already read (a remote server's, over HTTP).
    Frame {
        from: Side,
        frame: Frame,
        at: Timestamp,
    },
    /// Something else of the session: an HTTP exchange, an OAuth step, a diagnostic.
    Logged(LogEvent, Timestamp),
    Stderr {
        text: String,
        at: Timestamp,
        budget: Option<OwnedSemaphorePermit>,
    },
    /// The server's side ended, and how.
    Closed { status: String, at: Timestamp },
}

impl Seen {
    /// A line seen now, holding none of a pipe's budget (a transport or a listener read it).
    pub fn line_now(from: Side, line: Line) -> Seen {
        Seen::Line {
            from,
            line,
            at: now(),
            budget: None,
        }
    }
}

/// Frames waiting to be watched, at most: a pipe that gets this far ahead waits (the watch is
/// pure and quick; the recorder writes a line per frame). Their bytes are bounded too, by the
/// budget each carries (`stdio::IN_HAND`).
const BACKLOG: usize = 4096;

/// Where the pipes tell what they saw.
pub fn channel() -> (mpsc::Sender<Seen>, mpsc::Receiver<Seen>) {
    mpsc::channel(BACKLOG)
}

/// Watches until the pipes are gone.
pub async fn watch(mut seen: mpsc::Receiver<Seen>, sink: EventSink) {
    let mut watch = Watch::new();
    let mut named = false;
    while let Some(next) = seen.recv().await {
        let (events, _budget) = match next {
            Seen::Line {
                from,
                line,
                at,
                budget,
            } => match framing::decode(line, DEFAULT_MAX_FRAME_BYTES) {
                Ok(frame) => (watch.frame(from, frame, at), budget),
                Err(invalid) => (watch.invalid(invalid, at), budget),
            },
            Seen::Frame { from, frame, at } => (watch.frame(from, frame, at), None),
            Seen::Logged(event, at) => (vec![SessionEvent::Logged(LogEntry { at, event })], None),
            Seen::Stderr { text, at, budget } => (watch.stderr(&text, at), budget),
            Seen::Closed { status, at } => (watch.closed(&status, at), None),
        };
        if !named && let Some(seen) = watch.host() {
            named = true;
            let note = host_note(&seen.name, &seen.version);
            eprintln!("sightline proxy: {note}");
            sink.emit(SessionEvent::Logged(LogEntry {
                at: now(),
                event: LogEvent::Note(note),
            }))
            .await;
        }
        for event in events {
            if let SessionEvent::CallFinished(finished) = &event
                && let Some(judged) = &finished.judged
            {
                for finding in &judged.findings {
                    eprintln!(
                        "sightline proxy: ⚑ #{} {}: {}",
                        finished.exchange.id,
                        finding.id,
                        sanitize::text(&finding.message)
                    );
                }
            }
            sink.emit(event).await;
        }
    }
}

/// The host named, and the profile its model is judged by.
fn host_note(name: &str, version: &str) -> String {
    let name = sanitize::text(name);
    let version = sanitize::text(version);
    match (clients::for_client(&name), clients::ambiguous(&name)) {
        (Some(profile), _) => format!(
            "the host is {name} {version} (clientInfo): what its model sees is judged by the \
             '{profile}' profile"
        ),
        (None, Some(why)) => format!(
            "the host sent clientInfo '{name}' {version}, {why}: what the model sees is judged \
             by 'spec' (attach --host PROFILE names the host)"
        ),
        (None, None) => format!(
            "the host is {name} {version} (clientInfo), which no captured profile describes: \
             what the model sees is judged by 'spec' (attach --host PROFILE names another)"
        ),
    }
}
