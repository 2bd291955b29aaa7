//! How a headless command runs against a server: the usage checks before it starts, the
//! connection with its taps (stage, OAuth steps, recording, the `-v` log on stderr), and the guard
//! that stops it on SIGINT, SIGTERM, SIGHUP or its deadline.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use super::exit;
use super::output::print_json;
use crate::classify::findings::Finding;
use crate::classify::stdout::StdoutWatch;
use crate::classify::{Class, oauth};
use crate::cli::{RecordArgs, ServerArgs};
use crate::mcp::Timestamp;
use crate::mcp::jsonrpc::Message;
use crate::mcp::log::SessionEvent;
use crate::mcp::oauth::AuthFact;
use crate::present;
use crate::recording::Recorder;
use crate::runner::{self, LogEntry, LogEvent, SessionError, SessionRunner, Stage};
use crate::sanitize;
use crate::stream::EventSink;
use crate::transport::TransportError;

/// A server selection that cannot name a server (a bad `--config` entry, a bad `--url`) is a
/// usage error, said before anything starts.
pub fn selection_problem(server: &ServerArgs) -> Option<String> {
    match server.target() {
        Err(
            error @ (TransportError::Config(_)
            | TransportError::BadUrl { .. }
            | TransportError::Several(_)),
        ) => Some(error.to_string()),
        Ok(_) | Err(_) => None,
    }
}

/// Before a headless command starts: a server selection that cannot name a server, or a
/// recording that cannot be opened, is a usage error said on stderr (its exit code); else the
/// recorder, if `--record` asked for one.
pub(super) fn prepared(
    server: &ServerArgs,
    record: &RecordArgs,
    command: &str,
) -> Result<Option<Recorder>, u8> {
    if let Some(problem) = selection_problem(server) {
        eprintln!("sightline: {}", sanitize::text(&problem));
        return Err(exit::USAGE);
    }
    server.recorder(record, command).map_err(|message| {
        eprintln!("sightline: {message}");
        exit::USAGE
    })
}

/// Says so when a recording stopped before the run did.
pub(super) fn recording_ended(recorder: Option<&Recorder>) {
    if let Some(failure) = recorder.and_then(Recorder::failure) {
        eprintln!("sightline: {}", sanitize::text(&failure));
    }
}

/// Connects as the selection says; with `verbose`, every log entry goes to stderr as it
/// happens. Nothing else of the stream is kept: a headless run holds only what it prints.
pub(super) async fn connect(
    server: &ServerArgs,
    verbose: bool,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
) -> Result<SessionRunner, SessionError> {
    connect_tapped(server, verbose, stage, recorder, None).await
}

/// [`connect`], with `tap` seeing every event of the session too (first of all).
pub(super) async fn connect_tapped(
    server: &ServerArgs,
    verbose: bool,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
    tap: Option<crate::stream::Tap>,
) -> Result<SessionRunner, SessionError> {
    let mut sink = EventSink::taps_only();
    if let Some(tap) = tap {
        sink = sink.with_tap(move |event| tap(event));
    }
    sink = sink.with_tap(stage.tap());
    // Recorded before shown: whatever `-v` printed is already on disk.
    if let Some(recorder) = recorder {
        sink = sink.with_tap(recorder.tap());
    }
    if verbose {
        sink = sink.with_tap(print_log_entry);
    } else {
        sink = sink.with_tap(print_authorization);
    }
    let target = server.target().map_err(SessionError::Transport)?;
    runner::connect(&target, server.client_options(), sink).await
}

/// The step a run has reached, followed from its session stream.
#[derive(Debug, Clone)]
pub(super) struct StageTracker(
    Arc<Mutex<Stage>>,
    Arc<Mutex<AuthSteps>>,
    Arc<Mutex<StdoutWatch>>,
);

/// The steps of OAuth flows, as `call --json` reports them.
#[derive(Debug, Default)]
struct AuthSteps {
    steps: Vec<Value>,
    /// Between a flow's start and its end: its HTTP requests are steps.
    running: bool,
}

impl AuthSteps {
    fn see(&mut self, at: crate::mcp::Timestamp, event: &LogEvent) {
        match event {
            LogEvent::Authorization(AuthFact::Step(step)) => {
                if step.starts_flow() {
                    self.running = true;
                }
                self.steps
                    .push(json!({"at": at.0, "step": step.to_string()}));
                if step.ends_flow() {
                    self.running = false;
                }
            }
            LogEvent::Authorization(AuthFact::Problem(problem)) => {
                let finding = oauth::finding(problem);
                self.steps.push(json!({"at": at.0, "finding": {"id": finding.id, "message": finding.message}}));
            }
            LogEvent::Http(http) if self.running => self.steps.push(json!({
                "at": at.0,
                "http": {"method": http.method, "url": http.url, "status": http.status, "error": http.error, "body": http.body},
            })),
            _ => {}
        }
    }
}

impl Default for StageTracker {
    fn default() -> Self {
        Self(
            Arc::new(Mutex::new(Stage::Spawn)),
            Arc::default(),
            Arc::default(),
        )
    }
}

impl StageTracker {
    fn tap(&self) -> impl Fn(&SessionEvent) + Send + Sync + 'static {
        let stage = Arc::clone(&self.0);
        let auth = Arc::clone(&self.1);
        let stdout = Arc::clone(&self.2);
        move |event| {
            let SessionEvent::Logged(LogEntry { at, event }) = event else {
                return;
            };
            if let LogEvent::Sent(frame) = event
                && let Message::Request { method, .. } = &frame.message
            {
                *stage.lock().unwrap_or_else(PoisonError::into_inner) = Stage::of_method(method);
            }
            auth.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .see(*at, event);
            stdout
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .see(event);
        }
    }

    /// The server-level finding on what its stdout held besides MCP messages, if anything
    /// (stdio only: the rule is the stdio transport's).
    pub(super) fn stdout_finding(&self, version: &str, stdio: bool) -> Option<Finding> {
        if !stdio {
            return None;
        }
        self.2
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .finding(version)
    }

    pub(super) fn get(&self) -> Stage {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The OAuth steps seen so far.
    pub(super) fn auth(&self) -> Vec<Value> {
        self.1
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .steps
            .clone()
    }
}

/// Runs a headless command unless SIGINT, SIGTERM or SIGHUP comes first, or the deadline
/// passes. The server runs in its own process group, out of the terminal's reach: dropping
/// the run stops it. Either way `--json` still prints its one object.
pub(super) async fn guarded<J: Serialize>(
    run: impl Future<Output = u8>,
    as_json: bool,
    deadline: Duration,
    stage: &StageTracker,
    stopped: impl FnOnce(Value) -> J,
) -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let mut listeners = Vec::new();
    for (kind, name, code) in [
        (SignalKind::interrupt(), "SIGINT", 130),
        (SignalKind::terminate(), "SIGTERM", 143),
        (SignalKind::hangup(), "SIGHUP", 129),
    ] {
        match signal(kind) {
            Ok(listener) => listeners.push((listener, name, code)),
            Err(error) => eprintln!("sightline: cannot watch {name}: {error}"),
        }
    }
    let interrupted = async {
        if listeners.is_empty() {
            return std::future::pending().await;
        }
        let waits = listeners.iter_mut().map(|(listener, name, code)| {
            Box::pin(async move { (listener.recv().await, *name, *code) })
        });
        let ((_, name, code), ..) = futures_util::future::select_all(waits).await;
        (format!("interrupted by {name}"), code)
    };
    let (why, code) = tokio::select! {
        code = run => return code,
        interrupted = interrupted => interrupted,
        () = tokio::time::sleep(deadline) => (
            format!("the run did not finish within its {} s deadline (--deadline)", deadline.as_secs_f64()),
            exit::TRANSPORT_FAILURE,
        ),
    };
    let detail = format!("{why}; the server was stopped");
    if as_json {
        let outcome =
            json!({"class": Class::TransportFailure, "stage": stage.get(), "detail": detail});
        print_json(&stopped(outcome));
    } else {
        eprintln!("sightline: {detail}");
    }
    code
}

/// The `-v` log: one line per entry on stderr, as it happens.
/// Without `-v`, the steps of an OAuth flow still reach the user: the URL to open, where the
/// flow stands, what the server got wrong.
fn print_authorization(event: &SessionEvent) {
    if let SessionEvent::Logged(LogEntry {
        event: LogEvent::Authorization(fact),
        ..
    }) = event
    {
        let _ = writeln!(
            std::io::stderr().lock(),
            "sightline: {}",
            sanitize::text(&oauth::line(fact))
        );
    }
}

fn print_log_entry(event: &SessionEvent) {
    if let SessionEvent::Logged(LogEntry { at, event }) = event {
        // A closed stderr leaves nowhere to report to.
        let _ = writeln!(std::io::stderr().lock(), "{}", describe(*at, event));
    }
}

/// A log entry as the `-v` log prints it: the TUI's row for it, in the same words, after the
/// time; a frame also as it crossed the wire, on the next line.
pub(crate) fn describe(at: Timestamp, event: &LogEvent) -> String {
    let mut lines: Vec<String> = present::log::summaries(event, 1)
        .into_iter()
        .map(|summary| format!("{at} {}", present::limits::log_frame(&summary)))
        .collect();
    let wire = match event {
        LogEvent::Sent(frame) => Some(("→", frame)),
        LogEvent::Received { frame, .. } => Some(("←", frame)),
        _ => None,
    };
    if let Some((arrow, frame)) = wire {
        lines.push(format!(
            "    {arrow} {}",
            present::limits::log_frame(&frame.raw)
        ));
    }
    lines.join("\n")
}
