//! Transcripts: written from events, read back into the same events; secrets masked; every
//! way a file can be broken named with its line.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::classify::fixtures::call;
use crate::mcp::jsonrpc::parse;

fn entry(at: u64, event: LogEvent) -> SessionEvent {
    SessionEvent::Logged(LogEntry {
        at: Timestamp(at),
        event,
    })
}

/// One event of every kind a live session emits.
fn every_event() -> Vec<SessionEvent> {
    let sent =
        parse(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}"#).unwrap();
    let received = parse("{\"jsonrpc\":\"2.0\",\"id\":3,\n \"result\":{\"content\":[]}}").unwrap();
    let http = HttpExchange {
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
    };
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
                raw: "garbage \u{1b}[2J".into(),
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
        SessionEvent::Connected(Box::new(Connection {
            era: Era::Legacy,
            protocol_version: "2025-11-25".into(),
            server: ServerInfo {
                name: "demo".into(),
                version: "1".into(),
            },
            capabilities: Some(crate::mcp::json::Json::from_value(&json!({"tools": {}}))),
            http_session: Some("abc".into()),
        })),
        SessionEvent::ConnectFailed {
            stage: Stage::Initialize,
            reason: "refused".into(),
        },
        SessionEvent::ToolsListed(Arc::new(vec![
            Tool::from_value(&json!({"name": "book_flight", "inputSchema": {"type": "object"}})),
            Tool {
                rejected: Some("bad header".into()),
                ..Tool::from_value(&json!({"name": "x"}))
            },
        ])),
        SessionEvent::ToolsFailed("-32601".into()),
        SessionEvent::CallFinished(Box::new(answered)),
        SessionEvent::CallFinished(Box::new(call("slow_search", json!({})).timeout())),
        SessionEvent::CallFinished(Box::new(call("slow_search", json!({})).exited())),
        SessionEvent::Disconnected,
    ]
}

fn write(events: &[SessionEvent], redactor: &Redactor) -> String {
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

fn read(text: &str) -> Result<Vec<Result<SessionEvent, TranscriptError>>, TranscriptError> {
    Ok(Reader::new(text.as_bytes(), "t.jsonl")?.collect())
}

#[test]
fn every_event_reads_back_as_it_was_written() {
    let events = every_event();
    let text = write(&events, &Redactor::default());
    assert_eq!(text.lines().count(), events.len() + 1, "one line per event");
    let back: Vec<SessionEvent> = read(&text)
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back, events);
}

#[test]
fn a_question_to_the_user_is_not_a_fact_of_the_wire() {
    let asked = SessionEvent::Asked {
        number: 1,
        request: Box::new(InputRequest {
            key: None,
            method: "roots/list".into(),
            params: json!({}),
        }),
        proposed: Box::new(Answer::Result(json!({}))),
    };
    assert_eq!(Record::of(&asked, &Redactor::default(), None), None);
}

#[test]
fn secrets_are_masked_visibly_unless_redaction_is_off() {
    let headers = vec![
        (
            "Authorization".to_owned(),
            "Bearer sk-live-123456".to_owned(),
        ),
        ("X-Tenant".to_owned(), "tenant-998877".to_owned()),
    ];
    let env = vec![
        ("OPENAI_API_KEY".to_owned(), "sk-env-abcdef".to_owned()),
        ("HOME".to_owned(), "/home/someone".to_owned()),
    ];
    let redactor = Redactor::new(true, &headers, &env);
    let http = HttpExchange {
        url: "http://h/mcp?key=sk-live-123456".into(),
        request_headers: vec![
            ("authorization".into(), "Bearer sk-live-123456".into()),
            ("x-tenant".into(), "tenant-998877".into()),
            ("accept".into(), "application/json".into()),
        ],
        ..HttpExchange::default()
    };
    let events = vec![
        entry(1, LogEvent::Http(Arc::new(http))),
        entry(
            2,
            LogEvent::Stderr("using key sk-env-abcdef from /home/someone".into()),
        ),
    ];
    let text = write(&events, &redactor);
    for secret in ["sk-live-123456", "tenant-998877", "sk-env-abcdef"] {
        assert!(!text.contains(secret), "{secret} leaked:\n{text}");
    }
    assert!(
        text.contains(r#"["authorization","Bearer ****"]"#),
        "{text}"
    );
    assert!(text.contains(r#"["x-tenant","****"]"#), "{text}");
    assert!(text.contains(r#"["accept","application/json"]"#));
    assert!(text.contains("using key **** from /home/someone"), "{text}");
    let kept = write(&events, &Redactor::new(false, &headers, &env));
    assert!(kept.contains("sk-live-123456") && kept.contains("sk-env-abcdef"));
}

#[test]
fn secret_looking_environment_names() {
    for name in [
        "OPENAI_API_KEY",
        "GITHUB_TOKEN",
        "DB_PASSWORD",
        "client_secret",
        "AUTH",
    ] {
        assert!(secret_env(name), "{name}");
    }
    for name in ["HOME", "PATH", "LANG", "DEBUG"] {
        assert!(!secret_env(name), "{name}");
    }
}

fn error_of(text: &str) -> TranscriptError {
    match read(text) {
        Err(error) => error,
        Ok(events) => events
            .into_iter()
            .find_map(Result::err)
            .unwrap_or_else(|| panic!("no error in {text:?}")),
    }
}

#[test]
fn a_broken_transcript_is_read_up_to_the_line_that_breaks_and_names_it() {
    let good = write(&every_event()[..3], &Redactor::default());
    let cases = [
        ("", 1, "empty: not a sightline transcript"),
        ("hello\n", 1, "not a sightline transcript (not JSON"),
        ("{\"a\":1}\n", 1, "no \"sightline_transcript\" version"),
        (
            "{\"sightline_transcript\":2}\n",
            1,
            "transcript format version 2 is newer than this sightline reads (1)",
        ),
    ];
    for (text, line, message) in cases {
        let error = error_of(text);
        assert_eq!(error.line, line, "{text:?}");
        assert!(error.message.contains(message), "{error}");
    }
    let events_before = |text: &str| {
        read(text)
            .unwrap()
            .into_iter()
            .take_while(Result::is_ok)
            .count()
    };
    // Killed mid-line: the last line has no newline and does not parse.
    let cut = format!("{good}{{\"type\":\"sent\",\"at\":9,\"raw\":\"{{\\\"jso");
    let error = error_of(&cut);
    assert_eq!(error.line, 5);
    assert!(error.message.starts_with("cut short"), "{error}");
    assert_eq!(events_before(&cut), 3);
    let garbage = format!("{good}not json at all\n{{\"type\":\"disconnected\"}}\n");
    let error = error_of(&garbage);
    assert_eq!(error.line, 5);
    assert!(error.message.starts_with("not JSON"), "{error}");
    assert_eq!(events_before(&garbage), 3, "nothing after the bad line");
    let unknown = format!("{good}{{\"type\":\"teleport\"}}\n");
    assert!(
        error_of(&unknown)
            .message
            .starts_with("not an event this sightline reads")
    );
    assert_eq!(
        error_of(&unknown).to_string(),
        format!(
            "transcript 't.jsonl', line 5: {}",
            error_of(&unknown).message
        )
    );
}

#[test]
fn a_call_read_back_shares_its_frames_with_the_lines_before_it() {
    let call = call("x", json!({})).text("one copy");
    let sent = entry(1, LogEvent::Sent(call.request.clone()));
    let received = entry(
        2,
        LogEvent::Received {
            frame: call.response().unwrap().clone(),
            role: Role::Reply {
                method: "tools/call".into(),
            },
        },
    );
    let finished = SessionEvent::CallFinished(Box::new(call));
    let text = write(&[sent, received, finished], &Redactor::default());
    let back: Vec<SessionEvent> = read(&text)
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let (
        SessionEvent::Logged(sent),
        SessionEvent::Logged(received),
        SessionEvent::CallFinished(call),
    ) = (&back[0], &back[1], &back[2])
    else {
        panic!("{back:?}");
    };
    let (
        LogEvent::Sent(sent),
        LogEvent::Received {
            frame: received, ..
        },
    ) = (&sent.event, &received.event)
    else {
        panic!();
    };
    assert!(Arc::ptr_eq(&sent.raw, &call.request.raw));
    assert!(Arc::ptr_eq(&received.raw, &call.response().unwrap().raw));
}

#[test]
fn rfc3339_dates_are_utc_civil_dates() {
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(rfc3339(1_795_946_400_123), "2026-11-29T10:00:00.123Z");
    assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
}

#[test]
fn a_class_is_named_as_call_json_names_it() {
    assert_eq!(class_name(Class::ToolError), "tool_error");
    assert_eq!(class_name(Class::TransportFailure), "transport_failure");
}

#[test]
fn the_recorder_writes_a_listing_as_the_record_would_without_holding_one_per_tool() {
    let mut rejected = Tool::from_value(&json!({"name": "bad", "inputSchema": {"type": "object"}}));
    rejected.rejected = Some("an x-mcp-header on an object".into());
    let tools: Vec<Tool> = vec![
        Tool::from_value(
            &json!({"name": "a", "description": "é \u{1b}", "inputSchema": {"type": "object"}}),
        ),
        rejected,
    ];
    let event = SessionEvent::ToolsListed(tools.clone().into());
    let record = Record::of(&event, &Redactor::default(), None).unwrap();
    assert_eq!(
        serde_json::to_string(&ToolsLine::new(&tools)).unwrap(),
        serde_json::to_string(&record).unwrap()
    );
}
