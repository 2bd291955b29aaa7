//! The selected call saved, pure: as a transcript (the connection's negotiation and tool
//! listing as the log has them, then the call, so that `replay` shows it and `replay --serve`
//! answers it again), or as pretty JSON with what the model sees and the host's payload.

use std::collections::HashMap;

use super::action::Effect;
use super::model_pane::call_context;
use super::state::{AppState, CallRecord, LineKind, Raw};
use super::status::complain;
use crate::analysis;
use crate::classify::findings::Finding;
use crate::mcp::framing::InvalidLine;
use crate::mcp::jsonrpc::{self, Frame, Id, Message};
use crate::mcp::log::{Connection, LogEntry, LogEvent, Role, SessionEvent};
use crate::mcp::verdict::Finished;
use crate::model_view::ModelView;
use crate::model_view::hosts::HostProfile;
use crate::present::call::CallDocument;
use crate::transcript::{Header, Judged, Redactor, VERSION, rfc3339, to_text};
use serde_json::Value;

/// Requests of the connection kept with the call: what a replayed server must answer first.
pub const SETUP: [&str; 3] = ["initialize", "server/discover", "tools/list"];

/// The file name and text of the transcript of call `index`; `None` if there is no such call.
pub fn call_transcript(state: &AppState, index: usize) -> Option<(String, String)> {
    let call = state.whole_call(index)?;
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
        SessionEvent::CallFinished(Box::new(Finished::unjudged(call.exchange.clone()))),
        Some(judged),
    ));
    let text = transcript_text(state, call.exchange.sent_at.0, &events);
    Some((file_name(call, "jsonl"), text))
}

/// The file name and pretty JSON of call `index`: the call's document as `call --json` writes
/// it (the request and response as they were, the class, the findings, what the model sees
/// under `view`'s host with that host's payload, what the server asked, the HTTP exchange),
/// and `tool`, the tool as listed, so that `replay` opens it judged as it was.
pub fn call_json(state: &AppState, index: usize, view: &ModelView) -> Option<(String, String)> {
    let call = state.whole_call(index)?;
    let findings: Vec<Finding> = call
        .findings
        .iter()
        .chain(&view.findings)
        .cloned()
        .collect();
    let connection = state
        .negotiated
        .as_ref()
        .filter(|(session, _)| *session == call.session)
        .map(|(_, connection)| connection);
    let document = CallDocument {
        exchange: &call.exchange,
        outcome: &call.outcome,
        findings: &findings,
        view: Some(view),
        connection,
        transport: &state.transport,
    };
    let json = document.json(true, state.settings.show_secrets);
    let mut json = serde_json::to_value(&json).unwrap_or_default();
    // The tool as the server listed it: what `replay` needs to judge the call as the live
    // session did (whether the tool was listed, its output schema).
    let listed = state
        .tools
        .tools
        .iter()
        .find(|tool| tool.name == call.tool.as_str());
    if let (Some(document), Some(tool)) = (json.as_object_mut(), listed) {
        document.insert("tool".into(), tool.raw.value());
    }
    let text = serde_json::to_string_pretty(&json).unwrap_or_default();
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
                        let tools = SessionEvent::ToolsListed(state.tools.catalog.clone());
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

/// The whole log as a transcript, rebuilt from what the log keeps: every frame exactly (the
/// calls' from their exchanges), stderr, HTTP details, and each call where it finished;
/// sightline's own lines (timeouts, exits, notes) become notes in their words on screen.
pub fn log_transcript(state: &AppState) -> Option<(String, String)> {
    let first = state.log.lines.first()?;
    let mut events: Vec<(SessionEvent, Option<Judged>)> = vec![(
        SessionEvent::Connecting {
            transport: state.transport.clone(),
        },
        None,
    )];
    let mut methods: HashMap<(u32, Id), String> = HashMap::new();
    let mut finished = vec![false; state.calls.len()];
    for line in &state.log.lines {
        let logged = |event| (SessionEvent::Logged(LogEntry { at: line.at, event }), None);
        let call = line
            .exchange
            .and_then(|index| Some((index, state.calls.get(index)?)));
        let frame = frame_of(line.raw.as_ref()).or_else(|| {
            let (_, call) = call?;
            match line.kind {
                LineKind::Outgoing => Some(call.exchange.request.clone()),
                _ => call.exchange.response().cloned(),
            }
        });
        match (&line.kind, frame) {
            (LineKind::Outgoing, Some(frame)) => {
                if let Message::Request { id, method, .. } = &frame.message {
                    methods.insert((line.session, id.clone()), method.clone());
                }
                events.push(logged(LogEvent::Sent(frame)));
            }
            (LineKind::Response(_) | LineKind::Probe, Some(frame)) => {
                let method = line
                    .id
                    .clone()
                    .and_then(|id| methods.remove(&(line.session, id)))
                    .unwrap_or_default();
                let setup = method == "initialize" || method == "server/discover";
                let listed = method == "tools/list";
                let role = Role::Reply { method };
                events.push(logged(LogEvent::Received { frame, role }));
                let negotiated = state
                    .negotiated
                    .as_ref()
                    .filter(|(session, _)| setup && *session == line.session);
                if let Some((_, connection)) = negotiated {
                    events.push((SessionEvent::Connected(Box::new(connection.clone())), None));
                }
                if listed {
                    let tools = SessionEvent::ToolsListed(state.tools.catalog.clone());
                    events.push((tools, None));
                }
            }
            (LineKind::Notification, Some(frame)) => events.push(logged(LogEvent::Received {
                frame,
                role: Role::Notification,
            })),
            (LineKind::ServerRequest, Some(frame)) => events.push(logged(LogEvent::Received {
                frame,
                role: Role::ServerRequest,
            })),
            (LineKind::Stderr, _) => {
                if let Some(Raw::Stderr { first, count }) = line.raw {
                    let text: Vec<&str> = (first..first + count)
                        .map(|number| state.log.stderr.line(number))
                        .collect();
                    events.push(logged(LogEvent::Stderr(text.join("\n"))));
                }
            }
            (LineKind::Http, _) => {
                if let Some(Raw::Http(exchange)) = &line.raw {
                    events.push(logged(LogEvent::Http(exchange.clone())));
                }
            }
            (LineKind::Invalid, _) => {
                let raw = line.raw.as_ref().map_or("", Raw::as_str);
                if let Err(error) = jsonrpc::parse(raw) {
                    let raw = std::sync::Arc::new(raw.to_owned());
                    events.push(logged(LogEvent::Invalid(InvalidLine { raw, error })));
                }
            }
            (_, _) => {
                let text = line.summary.as_deref().unwrap_or_default().to_owned();
                events.push(logged(LogEvent::Note(text)));
            }
        }
        if let Some((index, call)) = call
            && !finished[index]
            && !matches!(line.kind, LineKind::Outgoing)
        {
            finished[index] = true;
            let judged = Judged::of(&call.outcome, &call.findings);
            let exchange =
                SessionEvent::CallFinished(Box::new(Finished::unjudged(call.exchange.clone())));
            events.push((exchange, Some(judged)));
        }
    }
    // Named by the moment the log reaches, so a later save is a new file and saving twice
    // with nothing new writes the same one again.
    let reached = state.log.lines.last().map_or(first.at, |line| line.at);
    let name = format!("sightline-log-{}.jsonl", crate::time::file_stamp(reached.0));
    Some((name, transcript_text(state, first.at.0, &events)))
}

/// A transcript of exported events: secret-named headers masked (the values a user gave on
/// the command line are not known here).
fn transcript_text(
    state: &AppState,
    started_ms: u64,
    events: &[(SessionEvent, Option<Judged>)],
) -> String {
    let header = Header {
        sightline_transcript: VERSION,
        sightline: env!("CARGO_PKG_VERSION").to_owned(),
        started: rfc3339(started_ms),
        started_ms,
        command: "tui export".to_owned(),
        transport: state.transport.clone(),
        redacted: true,
    };
    let redactor = Redactor {
        on: true,
        ..Redactor::default()
    };
    to_text(&header, events, &redactor)
}

/// Part of a file name from the server's words: nothing that could leave the directory.
pub fn safe(text: &str) -> String {
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
        Raw::Stderr { .. } | Raw::Http(_) | Raw::Stored { .. } => None,
    }
}

/// What `L`, `E` and `J` save.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Saving {
    /// The whole log, as a transcript.
    Log,
    /// The selected call, as a transcript.
    Call,
    /// The selected call as pretty JSON, with what the model sees.
    CallJson,
}

/// `L`, `E`, `J`: the log or the selected call, as a file the runtime writes.
pub(super) fn save(state: &mut AppState, what: Saving) -> Vec<Effect> {
    if let (Saving::Log, Some(replayed)) = (what, &state.replay) {
        // The replay's log is its transcript, which keeps every event in its own kind.
        let name = std::path::Path::new(replayed)
            .file_stem()
            .map_or_else(|| "replay".into(), |name| name.to_string_lossy());
        return vec![Effect::CopyFile {
            from: replayed.clone(),
            path: format!("sightline-log-{}.jsonl", safe(&name)),
        }];
    }
    let saved = match what {
        Saving::Log => log_transcript(state),
        Saving::Call => state
            .current_call_index()
            .and_then(|index| call_transcript(state, index)),
        Saving::CallJson => state.current_call_index().and_then(|index| {
            let record = state.whole_call(index)?;
            let view = analysis::view(&record.exchange, &record.outcome, &call_context(state));
            call_json(state, index, &view)
        }),
    };
    let Some((path, text)) = saved else {
        complain(state, "nothing to save yet".into());
        return Vec::new();
    };
    vec![Effect::Save { path, text }]
}

/// `K`: the selected call as a test case expecting what came (under the spec's reading and the
/// host shown), for the runtime to add to `--test-file`.
pub(super) fn save_case(state: &mut AppState) -> Vec<Effect> {
    let Some(path) = state.settings.test_file.clone() else {
        complain(
            state,
            "no test file: start sightline with --test-file FILE".into(),
        );
        return Vec::new();
    };
    let record = state
        .current_call_index()
        .and_then(|index| state.whole_call(index));
    let Some(record) = record.filter(|record| record.exchange.method == "tools/call") else {
        complain(state, "select a tools/call to add as a case".into());
        return Vec::new();
    };
    let params = record.exchange.params().cloned().unwrap_or_default();
    let tool = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let arguments = params.get("arguments").cloned().unwrap_or_default();
    let context = call_context(state);
    let mut hosts: Vec<HostProfile> = state
        .settings
        .hosts
        .iter()
        .filter(|host| host.name == "spec")
        .cloned()
        .collect();
    if context.host.name != "spec" {
        hosts.push(context.host.clone());
    }
    let observed = crate::suite::observe(&record.exchange, &context, &hosts);
    let sent = i64::try_from(record.exchange.sent_at.0 / 1000).unwrap_or(0);
    let day = crate::time::Date::from_unix_seconds(sent);
    let shown: String = arguments.to_string().chars().take(40).collect();
    let name = format!("{tool} {shown}");
    let case = crate::suite::case_from(name, tool, &arguments, &observed, day);
    let suite = crate::suite::Suite {
        server: None,
        cases: vec![case],
    };
    match crate::suite::to_toml(&suite) {
        Ok(case) => vec![Effect::AppendCase {
            path,
            server: Some(crate::suite::file_start(&state.transport)),
            case,
        }],
        Err(error) => {
            complain(state, format!("cannot write this call as a case: {error}"));
            Vec::new()
        }
    }
}
