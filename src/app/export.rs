//! The selected call saved, pure: as a transcript (the connection's negotiation and tool
//! listing as the log has them, then the call, so that `replay` shows it and `replay --serve`
//! answers it again), or as pretty JSON with what the model sees and the host's payload.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::state::{AppState, CallRecord, LineKind, Raw};
use crate::classify::findings::Finding;
use crate::mcp::jsonrpc::{self, Frame, Id, Message};
use crate::mcp::log::{Connection, LogEntry, LogEvent, Role, SessionEvent};
use crate::model_view::ModelView;
use crate::transcript::recorder::rfc3339;
use crate::transcript::{Header, Judged, Redactor, VERSION, to_text};

/// Requests of the connection kept with the call: what a replayed server must answer first.
const SETUP: [&str; 3] = ["initialize", "server/discover", "tools/list"];

/// The file name and text of the transcript of call `index`; `None` if there is no such call.
pub fn call_transcript(state: &AppState, index: usize) -> Option<(String, String)> {
    let call = state.calls.get(index)?;
    let connection = state
        .negotiated
        .as_ref()
        .filter(|(session, _)| *session == call.session)
        .map(|(_, connection)| connection);
    let mut events = setup_events(state, call.session, connection);
    // The call's own lines keep no copy of its frames: the exchange has them.
    let exchange = &call.exchange;
    let sent = LogEntry {
        at: exchange.sent_at,
        event: LogEvent::Sent(exchange.request.clone()),
    };
    events.push((SessionEvent::Logged(sent), None));
    if let Some(response) = exchange.response() {
        let received = LogEntry {
            at: exchange.ended_at,
            event: LogEvent::Received {
                frame: response.clone(),
                role: Role::Reply {
                    method: exchange.method.clone(),
                },
            },
        };
        events.push((SessionEvent::Logged(received), None));
    }
    let judged = Judged::of(&call.outcome, &call.findings);
    events.push((
        SessionEvent::CallFinished(Box::new(call.exchange.clone())),
        Some(judged),
    ));
    let header = Header {
        sightline_transcript: VERSION,
        sightline: env!("CARGO_PKG_VERSION").to_owned(),
        started: rfc3339(call.exchange.sent_at.0),
        started_ms: call.exchange.sent_at.0,
        command: "tui export".to_owned(),
        transport: state.transport.clone(),
        redacted: true,
    };
    let redactor = Redactor {
        on: true,
        ..Redactor::default()
    };
    Some((
        file_name(call, "jsonl"),
        to_text(&header, &events, &redactor),
    ))
}

/// The file name and pretty JSON of call `index`: the request and response as they were, the
/// class, the findings, and what the model sees under `view`'s host with that host's payload
/// (the model's side of the conversation).
pub fn call_json(state: &AppState, index: usize, view: &ModelView) -> Option<(String, String)> {
    let call = state.calls.get(index)?;
    let exchange = &call.exchange;
    let frame = |raw: &str| serde_json::from_str::<Value>(raw).unwrap_or(Value::Null);
    let findings: Vec<&Finding> = call.findings.iter().chain(&view.findings).collect();
    let document = json!({
        "request": frame(&exchange.request.raw),
        "response": exchange.response().map(|response| frame(&response.raw)),
        "outcome": call.outcome.to_json(),
        "findings": findings,
        "model_view": view.to_json(true),
    });
    let text = serde_json::to_string_pretty(&document).unwrap_or_default();
    Some((file_name(call, "json"), text + "\n"))
}

/// `sightline-TOOL-ID.EXT`, from the server's words made safe.
fn file_name(call: &CallRecord, extension: &str) -> String {
    format!(
        "sightline-{}-{}.{extension}",
        safe(&call.tool),
        safe(&call.exchange.id.to_string())
    )
}

/// The connection's setup as the log has it: the transport, negotiation and tool listing.
fn setup_events(
    state: &AppState,
    session: u32,
    connection: Option<&Connection>,
) -> Vec<(SessionEvent, Option<Judged>)> {
    let mut events = vec![(
        SessionEvent::Connecting {
            transport: state.transport.clone(),
        },
        None,
    )];
    let mut methods: HashMap<Id, String> = HashMap::new();
    for line in state
        .log
        .lines
        .iter()
        .filter(|line| line.session == session)
    {
        let Some(frame) = frame_of(line.raw.as_ref()) else {
            continue;
        };
        let logged = |event| SessionEvent::Logged(LogEntry { at: line.at, event });
        match (&line.kind, &frame.message) {
            (LineKind::Outgoing, Message::Request { id, method, .. })
                if SETUP.contains(&method.as_str()) =>
            {
                methods.insert(id.clone(), method.clone());
                events.push((logged(LogEvent::Sent(frame.clone())), None));
            }
            (LineKind::Outgoing, Message::Notification { method, .. })
                if method == "notifications/initialized" =>
            {
                events.push((logged(LogEvent::Sent(frame.clone())), None));
            }
            (LineKind::Response(_), _) => {
                let Some(method) = line.id.as_ref().and_then(|id| methods.remove(id)) else {
                    continue;
                };
                let role = Role::Reply {
                    method: method.clone(),
                };
                events.push((logged(LogEvent::Received { frame, role }), None));
                match method.as_str() {
                    "initialize" | "server/discover" => {
                        if let Some(connection) = connection {
                            let connected = SessionEvent::Connected(Box::new(connection.clone()));
                            events.push((connected, None));
                        }
                    }
                    "tools/list" => {
                        let tools = SessionEvent::ToolsListed(state.tools.tools.clone());
                        events.push((tools, None));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    events
}

/// Part of a file name from the server's words: nothing that could leave the directory.
fn safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The frame a log line shows, if it is one.
fn frame_of(raw: Option<&Raw>) -> Option<Frame> {
    match raw? {
        Raw::Frame(frame) => Some(frame.clone()),
        Raw::Line(line) => jsonrpc::parse(line).ok(),
        Raw::Stderr { .. } | Raw::Http(_) => None,
    }
}
