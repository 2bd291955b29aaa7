//! Test fixtures for transcripts: one event of every kind, and a transcript written from events.

use std::sync::Arc;

use serde_json::json;

use super::{Header, Record, Redactor, VERSION};
use crate::classify::fixtures::call;
use crate::mcp::Timestamp;
use crate::mcp::era::Era;
use crate::mcp::framing::InvalidLine;
use crate::mcp::input::{Answer, InputRequest, Round};
use crate::mcp::jsonrpc::{Id, parse};
use crate::mcp::log::{Connection, HttpExchange, LogEntry, LogEvent, Role, SessionEvent, Stage};
use crate::mcp::messages::{ServerInfo, Tool};
use crate::mcp::oauth::{AuthFact, AuthProblem, AuthStep};

pub(crate) fn entry(at: u64, event: LogEvent) -> SessionEvent {
    SessionEvent::Logged(LogEntry {
        at: Timestamp(at),
        event,
    })
}

fn http_exchange() -> HttpExchange {
    HttpExchange {
        method: "POST".into(),
        url: "http://127.0.0.1:1/mcp".into(),
        request_id: Some(Id::Number(3)),
        request_headers: vec![("content-type".into(), "application/json".into())],
        status: Some(200),
        response_headers: vec![("mcp-session-id".into(), "abc".into())],
        headers_ms: Some(2),
        took_ms: 3,
        events: 1,
        event_ids: vec!["e1".into()],
        error: None,
        body: None,
    }
}

/// The facts of an OAuth flow: a step, and a problem of the server's.
fn authorization() -> [SessionEvent; 2] {
    let step = AuthStep::Registered {
        client_id: "demo-client-1".into(),
    };
    let problem = AuthProblem::IssuerMismatch {
        said: None,
        looked_up: "http://127.0.0.1:1".into(),
    };
    [
        entry(7, LogEvent::Authorization(AuthFact::Step(step))),
        entry(7, LogEvent::Authorization(AuthFact::Problem(problem))),
    ]
}

/// One event of every kind a live session emits.
pub(crate) fn every_event() -> Vec<SessionEvent> {
    let sent =
        parse(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}"#).unwrap();
    let received = parse("{\"jsonrpc\":\"2.0\",\"id\":3,\n \"result\":{\"content\":[]}}").unwrap();
    let http = http_exchange();
    let mut answered = call("book_flight", json!({"departureDate": "12/12/2024"})).error_with_data(
        -32602,
        "Invalid params",
        json!({"field": "departureDate"}),
    );
    answered.http = Some(Arc::new(http.clone()));
    answered.rounds = vec![Round {
        asked_by: None,
        request: InputRequest {
            key: None,
            method: "elicitation/create".into(),
            params: json!({"message": "Sure?"}),
        },
        answer: Answer::Result(json!({"action": "accept"})),
    }];
    vec![
        SessionEvent::Connecting {
            transport: "stdio: demo".into(),
        },
        entry(1, LogEvent::Sent(sent)),
        entry(
            2,
            LogEvent::Received {
                frame: received,
                role: Role::Reply {
                    method: "tools/call".into(),
                },
            },
        ),
        entry(
            3,
            LogEvent::Invalid(InvalidLine {
                raw: std::sync::Arc::new("garbage \u{1b}[2J".into()),
                error: parse("garbage").unwrap_err(),
            }),
        ),
        entry(4, LogEvent::Stderr("line one\nline two".into())),
        entry(
            5,
            LogEvent::TimedOut {
                id: Id::String("s-1".into()),
                method: "tools/call".into(),
                after_ms: 30_000,
            },
        ),
        entry(6, LogEvent::WriteFailed("broken pipe".into())),
        entry(7, LogEvent::Note("era probe fell back".into())),
        entry(8, LogEvent::Http(Arc::new(http))),
        entry(
            9,
            LogEvent::Closed {
                status: "exit code 0".into(),
            },
        ),
        SessionEvent::Connected(Box::new(connection())),
        SessionEvent::ConnectFailed {
            stage: Stage::Initialize,
            reason: "refused".into(),
        },
        SessionEvent::ToolsListed(Arc::new(
            vec![
                Tool::from_value(
                    &json!({"name": "book_flight", "inputSchema": {"type": "object"}}),
                ),
                Tool {
                    rejected: Some("bad header".into()),
                    ..Tool::from_value(&json!({"name": "x"}))
                },
            ]
            .into(),
        )),
        SessionEvent::ToolsFailed("-32601".into()),
        SessionEvent::CallFinished(Box::new(crate::mcp::verdict::Finished::unjudged(answered))),
        SessionEvent::CallFinished(Box::new(crate::mcp::verdict::Finished::unjudged(
            call("slow_search", json!({})).timeout(),
        ))),
        SessionEvent::CallFinished(Box::new(crate::mcp::verdict::Finished::unjudged(
            call("slow_search", json!({})).exited(),
        ))),
        SessionEvent::Disconnected,
    ]
    .into_iter()
    .chain(authorization())
    .collect()
}

pub(crate) fn write(events: &[SessionEvent], redactor: &Redactor) -> String {
    let header = Header {
        sightline_transcript: VERSION,
        sightline: "0.1.0".into(),
        started: "2026-11-30T10:00:00.000Z".into(),
        started_ms: 1,
        command: "call".into(),
        transport: "stdio: demo".into(),
        redacted: redactor.on,
    };
    let mut text = serde_json::to_string(&header).unwrap() + "\n";
    for event in events {
        let record = Record::of(event, redactor, None).unwrap();
        text += &serde_json::to_string(&record).unwrap();
        text.push('\n');
    }
    text
}

fn connection() -> Connection {
    Connection {
        era: Era::Legacy,
        protocol_version: "2025-11-25".into(),
        server: ServerInfo {
            name: "demo".into(),
            version: "1".into(),
        },
        capabilities: Some(crate::mcp::json::Json::from_value(&json!({"tools": {}}))),
        http_session: Some("abc".into()),
        probe: Some(crate::mcp::log::Probe {
            id: Id::Number(1),
            answer: crate::mcp::log::ProbeAnswer::RefusedOverHttp { status: 405 },
        }),
    }
}
