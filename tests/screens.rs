//! Screen snapshots: sessions replayed through `update` and drawn on a `TestBackend`, at
//! 120×40 and 80×24, for every class, the finding, the help, the console and hostile text.

mod common;

use common::{PAST, PAST_AS_32602, STRUCTURED, Session, screen};
use ratatui::backend::Backend;
use serde_json::json;
use sightline::app::action::{Edit, Lens, Move, Output, Question, ToServer, View};
use sightline::app::state::Focus;
use sightline::app::{Command, Keymap};
use sightline::mcp::era::Era;
use sightline::mcp::log::SessionEvent;
use sightline::runner::LogEvent;
use sightline::theme::Theme;

const SIZES: [(u16, u16); 2] = [(120, 40), (80, 24)];

fn snapshot(name: &str, build: impl Fn(&mut Session)) {
    for (width, height) in SIZES {
        let mut session = Session::new(width, height);
        build(&mut session);
        insta::assert_snapshot!(
            format!("{name}_{width}x{height}"),
            screen(&session.state, &Theme::fallback())
        );
    }
}

fn demo(session: &mut Session) {
    session.connected(Era::Modern, "2026-07-28", "sightline-demo");
}

fn legacy_demo(session: &mut Session) {
    session.connected(Era::Legacy, "2025-11-25", "sightline-demo");
}

#[test]
fn startup_with_tools_listed() {
    snapshot("startup", demo);
}

#[test]
fn the_editor_with_a_skeleton() {
    snapshot("editor", |s| {
        demo(s);
        s.command(Command::Edit(Edit::OpenEditor));
        assert_eq!(s.state.focus, Focus::Editor);
    });
}

#[test]
fn the_editor_puts_the_terminal_cursor_on_the_first_value() {
    snapshot("editor_cursor", |s| {
        demo(s);
        s.command(Command::Edit(Edit::OpenEditor));
        let mut backend = common::backend(&s.state, &Theme::fallback());
        // The first required value is departureDate's: the cursor waits inside its quotes.
        let cursor = backend.get_cursor_position().unwrap();
        let row = backend.buffer().content()
            [usize::from(cursor.y) * usize::from(s.state.screen.width)..]
            .iter()
            .take(usize::from(s.state.screen.width))
            .map(ratatui::buffer::Cell::symbol)
            .collect::<String>();
        assert!(row.contains(r#""departureDate": "","#), "{row}");
        let before: String = row.chars().take(usize::from(cursor.x)).collect();
        assert!(
            before.ends_with(r#""departureDate": ""#),
            "cursor after {before:?}"
        );
    });
}

#[test]
fn the_status_line_shows_a_message_and_the_pending_call() {
    snapshot("status_message", |s| {
        legacy_demo(s);
        s.call(
            3,
            "book_flight",
            &json!({"departureDate": "12/12/2024"}),
            PAST_AS_32602,
        );
        s.command(Command::Output(Output::CopyResponse));
        s.state.pending_calls = 1;
    });
    let mut session = Session::new(80, 24);
    legacy_demo(&mut session);
    session.command(Command::ToServer(ToServer::Reconnect));
    let drawn = screen(&session.state, &Theme::fallback());
    let status = drawn.lines().last().unwrap_or_default().to_owned();
    assert!(status.contains("reconnecting…"), "{status}");
    for _ in 0..12 {
        session.event_tick();
    }
    let drawn = screen(&session.state, &Theme::fallback());
    assert!(
        !drawn
            .lines()
            .last()
            .unwrap_or_default()
            .contains("reconnecting"),
        "messages expire"
    );
}

#[test]
fn long_lines_in_detail_wrap_or_end_in_an_ellipsis() {
    let long = "a reply whose message is much longer than any pane of the screen, so that it has to wrap or be cut with a visible mark at the edge";
    let reply = format!(r#""error":{{"code":-32602,"message":"{long}"}}"#);
    snapshot("detail_wrapped", |s| {
        legacy_demo(s);
        s.call(3, "book_flight", &json!({"departureDate": "x"}), &reply);
    });
    snapshot("detail_cut", |s| {
        legacy_demo(s);
        s.call(3, "book_flight", &json!({"departureDate": "x"}), &reply);
        s.command(Command::View(View::Wrap));
    });
}

#[test]
fn the_help_scrolled_to_its_end() {
    snapshot("help_end", |s| {
        demo(s);
        s.command(Command::Help)
            .command(Command::Move(Move::SelectLast));
    });
}

#[test]
fn a_server_of_32_tools_with_long_descriptions() {
    let description = "Searches the knowledge base for documents that match a query, ranks them by relevance and recency, and returns the top results with their titles, URLs and a short excerpt of the matching passage. ".repeat(3);
    let tools: Vec<_> = (1..=32)
        .map(|n| json!({"name": format!("tool_{n:02}"), "description": description, "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}))
        .collect();
    snapshot("many_tools", |s| {
        demo(s);
        s.tools(&tools);
        for _ in 0..20 {
            s.command(Command::Move(Move::SelectNext));
        }
        s.command(Command::Move(Move::SelectPrev));
    });
}

#[test]
fn a_tool_error_is_forwarded() {
    snapshot("tool_error", |s| {
        demo(s);
        s.call(
            3,
            "book_flight",
            &json!({"departureDate": "12/12/2024"}),
            PAST,
        );
    });
}

#[test]
fn a_protocol_error_is_not_forwarded_and_flagged_by_sep1303() {
    snapshot("protocol_error", |s| {
        legacy_demo(s);
        s.call(
            3,
            "book_flight",
            &json!({"departureDate": "12/12/2024"}),
            PAST_AS_32602,
        );
    });
}

#[test]
fn a_protocol_error_with_the_may_rule_on() {
    snapshot("protocol_error_may", |s| {
        legacy_demo(s);
        s.call(
            3,
            "book_flight",
            &json!({"departureDate": "12/12/2024"}),
            PAST_AS_32602,
        );
        s.command(Command::Lens(Lens::Forwarding));
    });
}

#[test]
fn success_with_structured_content_per_host_profile() {
    snapshot("success_structured", |s| {
        demo(s);
        s.call(
            3,
            "get_flight_status",
            &json!({"flightNumber": "LH123"}),
            STRUCTURED,
        );
    });
    snapshot("success_structured_first", |s| {
        demo(s);
        s.call(
            3,
            "get_flight_status",
            &json!({"flightNumber": "LH123"}),
            STRUCTURED,
        );
        s.command(Command::Lens(Lens::Host))
            .command(Command::Lens(Lens::Host));
    });
}

/// The SEP-1303 call in both demo styles, as two real hosts would pass it to their models.
#[test]
fn the_model_pane_per_real_host() {
    for host in ["anthropic-messages", "openai-chat"] {
        snapshot(&format!("host_{host}_tool_error"), |s| {
            demo(s);
            s.call(
                3,
                "book_flight",
                &json!({"departureDate": "12/12/2024"}),
                PAST,
            );
            s.host(host);
        });
        snapshot(&format!("host_{host}_protocol_error"), |s| {
            legacy_demo(s);
            s.call(
                3,
                "book_flight",
                &json!({"departureDate": "12/12/2024"}),
                PAST_AS_32602,
            );
            s.host(host);
        });
    }
}

/// `H` on a protocol error under Claude Code: running, then the real host's answer beside the
/// prediction, as the capture's JSON comes back (a made-up difference, to show its lines).
#[test]
fn the_real_host_beside_the_prediction() {
    let captured = |s: &mut Session, result: serde_json::Value| {
        legacy_demo(s);
        s.call(
            3,
            "book_flight",
            &json!({"departureDate": "12/12/2024"}),
            PAST_AS_32602,
        );
        s.host("claude-code");
        s.command(Command::ToServer(ToServer::CaptureOnHost));
        if !result.is_null() {
            let call = s.state.model.as_ref().unwrap().call;
            sightline::app::update(
                &mut s.state,
                sightline::app::Action::Captured {
                    call,
                    host: "claude-code".into(),
                    result: Ok(result),
                },
            );
        }
    };
    snapshot("real_host_running", |s| {
        captured(s, serde_json::Value::Null);
        // The seconds it has run are counted.
        s.event_tick().event_tick().event_tick();
    });
    snapshot("real_host_matches", |s| {
        captured(
            s,
            json!({
                "host_version": "2.1.332", "server_called": true,
                "text": "Invalid departure date", "differences": [],
            }),
        );
    });
    snapshot("real_host_differs", |s| {
        captured(
            s,
            json!({
                "host_version": "2.1.332", "server_called": true,
                "text": "MCP error -32602: Invalid departure date",
                "differences": ["the model read \"MCP error -32602: Invalid departure date\"; the profile predicts \"Invalid departure date\""],
            }),
        );
    });
}

#[test]
fn a_timeout() {
    snapshot("timeout", |s| {
        demo(s);
        s.call_timing_out(3, "slow_search", &json!({"seconds": 60}));
    });
}

/// The user's own cancel is no usable reply (the transport-failure class), labelled as theirs.
#[test]
fn a_call_cancelled_by_the_user() {
    snapshot("cancelled_by_user", |s| {
        demo(s);
        s.call_cancelled_by_user(3, "slow_search", &json!({"seconds": 60}));
    });
}

/// A call on its way, as the live session reports it: the request (with its progress token),
/// progress notifications, seconds passing. The status line, Detail and the model pane show
/// this call and its progress, not the previous one.
#[test]
fn a_pending_call_shows_its_progress() {
    snapshot("pending_progress", |s| {
        demo(s);
        s.call(3, "book_flight", &json!({"departureDate": "12/12/2024"}), r#""result":{"content":[{"type":"text","text":"Invalid departure date"}],"isError":true}"#);
        // What Ctrl-S does before the session sends the request.
        s.state.pending_calls = 1;
        s.sent(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow_search","arguments":{"seconds":3},"_meta":{"progressToken":4}}}"#);
        for tick in 1..=4 {
            s.event_tick();
            s.log(LogEvent::Received {
                frame: sightline::mcp::jsonrpc::parse(&format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":4,"progress":{tick},"total":6,"message":"searched {} of 3 s"}}}}"#,
                    tick / 2
                ))
                .unwrap(),
                role: sightline::runner::Role::Notification,
            });
        }
    });
}

#[test]
fn the_help_overlay() {
    snapshot("help", |s| {
        demo(s);
        s.command(Command::Help);
    });
}

#[test]
fn the_help_lists_the_keys_of_a_keys_file_and_the_status_line_its_mistakes() {
    let file = "[browsing]\nquit = \"Q\"\nselect_next = [\"down\", \"ctrl-n\"]\nqiut = \"x\"\n\n\
                [editing]\nsend_request = \"f5\"\n";
    snapshot("help_rebound", |s| {
        demo(s);
        let (keys, warnings) = Keymap::from_toml(file, "keys.toml");
        s.state.settings.keys = keys;
        s.state.show_warnings(&warnings);
        // The end of the help: the rebound rows of both modes.
        s.command(Command::Help)
            .command(Command::Move(Move::SelectLast));
    });
}

#[test]
fn the_stderr_console() {
    snapshot("console", |s| {
        demo(s);
        s.log(LogEvent::Stderr("INFO  booking service warmed up".into()));
        s.received(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"db","data":"slow query: 812 ms"}}"#, "");
        s.command(Command::Move(Move::FocusNext))
            .command(Command::Move(Move::FocusNext))
            .command(Command::View(View::Console));
    });
}

#[test]
fn hostile_strings_are_shown_never_interpreted() {
    snapshot("hostile", |s| {
        demo(s);
        s.log(LogEvent::Stderr(
            "\u{1b}[2J\u{1b}]0;pwned\u{7} cleared your screen".into(),
        ));
        let reply = r#""result":{"content":[{"type":"text","text":"\u001b[31mred\u001b[0m \u009b2J \u202eevil"}]}"#;
        s.call(
            3,
            "book_flight",
            &json!({"departureDate": "\u{1b}[H"}),
            reply,
        );
    });
    let mut session = Session::new(120, 40);
    demo(&mut session);
    session.log(LogEvent::Stderr("\u{1b}[2J\u{9b}31m\u{202e}".into()));
    let drawn = screen(&session.state, &Theme::fallback());
    for raw in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
        assert!(!drawn.contains(raw), "{raw:?} reached the screen");
    }
}

#[test]
fn selecting_an_earlier_entry_shows_its_call() {
    snapshot("selected_earlier", |s| {
        legacy_demo(s);
        s.call(
            3,
            "book_flight",
            &json!({"departureDate": "12/12/2024"}),
            PAST_AS_32602,
        );
        s.call(
            4,
            "book_flight",
            &json!({"departureDate": "12/12/2099"}),
            r#""result":{"content":[{"type":"text","text":"Booked."}]}"#,
        );
        s.command(Command::Move(Move::FocusNext))
            .command(Command::Move(Move::FocusNext));
        for _ in 0..3 {
            s.command(Command::Move(Move::SelectPrev));
        }
    });
}

fn every_class(session: &mut Session) {
    legacy_demo(session);
    session.call(
        3,
        "book_flight",
        &json!({"departureDate": "12/12/2099"}),
        r#""result":{"content":[{"type":"text","text":"Booked."}]}"#,
    );
    session.call(
        4,
        "book_flight",
        &json!({"departureDate": "12/12/2024"}),
        PAST,
    );
    session.call(
        5,
        "book_flight",
        &json!({"departureDate": "12/12/2024"}),
        PAST_AS_32602,
    );
    session.call_timing_out(6, "slow_search", &json!({"seconds": 60}));
}

#[test]
fn each_bundled_theme_styles_the_screen() {
    for name in sightline::theme::bundled_names() {
        let theme = sightline::theme::load(name, None).unwrap().theme;
        let mut session = Session::new(80, 24);
        every_class(&mut session);
        insta::assert_debug_snapshot!(
            format!("theme_{name}"),
            common::backend(&session.state, &theme).buffer()
        );
    }
}

#[test]
fn monochrome_tells_every_class_by_its_label_alone() {
    use ratatui::style::Color;
    let mut session = Session::new(120, 40);
    every_class(&mut session);
    let backend = common::backend(&session.state, &Theme::monochrome());
    let colours: Vec<_> = backend
        .buffer()
        .content()
        .iter()
        .filter(|cell| cell.fg != Color::Reset || cell.bg != Color::Reset)
        .collect();
    assert!(
        colours.is_empty(),
        "monochrome drew colours: {:?}",
        &colours[..colours.len().min(3)]
    );
    let text = backend.to_string();
    for label in ["success", "tool error", "protocol error", "⏱ #6"] {
        assert!(text.contains(label), "{label} missing:\n{text}");
    }
}

#[test]
fn tiny_terminals_draw_without_panicking() {
    for (width, height) in [(1, 1), (10, 3), (20, 5), (40, 10), (300, 100)] {
        let mut session = Session::new(width, height);
        every_class(&mut session);
        session.command(Command::Help);
        let drawn = screen(&session.state, &Theme::fallback());
        assert!(!drawn.is_empty(), "{width}x{height}");
    }
}

/// A legacy session over HTTP: the HTTP row between request and answer, its details (secrets
/// masked) when selected, and a tool a conforming HTTP client rejects, marked in the list.
#[test]
fn http_details_and_a_rejected_tool() {
    snapshot("http_details", |s| {
        legacy_demo(s);
        let mut tools = vec![json!({"name": "execute_sql", "inputSchema": {"type": "object"}})];
        tools.push(json!({"name": "bad_tool", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}}));
        let mut listed: Vec<sightline::mcp::messages::Tool> = tools
            .iter()
            .map(sightline::mcp::messages::Tool::from_value)
            .collect();
        listed[1].rejected = listed[1].header_problem().map(Into::into);
        s.event(sightline::mcp::log::SessionEvent::ToolsListed(
            std::sync::Arc::new(listed.into()),
        ));
        let pair = |name: &str, value: &str| (name.to_owned(), value.to_owned());
        let http = sightline::mcp::log::HttpExchange {
            method: "POST".into(),
            url: "http://127.0.0.1:8080/mcp".into(),
            request_id: Some(sightline::mcp::jsonrpc::Id::Number(3)),
            request_headers: vec![
                pair("authorization", "Bearer s3cr3t"),
                pair("mcp-session-id", "demo-session-1"),
            ],
            status: Some(200),
            response_headers: vec![pair("content-type", "text/event-stream")],
            headers_ms: Some(2),
            took_ms: 9,
            events: 2,
            event_ids: vec!["7".into(), "8".into()],
            error: None,
            body: None,
        };
        s.call_over_http(3, "execute_sql", &json!({}), PAST, http);
        s.command(Command::Move(Move::FocusNext))
            .command(Command::Move(Move::FocusNext));
        assert_eq!(s.state.focus, Focus::Log);
        // From the newest row (the answer) up to the HTTP row.
        s.command(Command::Move(Move::SelectLast))
            .command(Command::Move(Move::SelectPrev));
        let detail = s.state.log.detail.join("\n");
        assert!(
            detail.starts_with("⇄ HTTP POST"),
            "the row's own details: {detail}"
        );
        assert!(detail.contains("authorization: Bearer ****"), "{detail}");
        assert!(!detail.contains("s3cr3t"), "{detail}");
    });
}

/// The server asks during a call: the form built from its schema, defaults filled in, the
/// answer as it will be sent, over the screen. Events in the live order: the call, its
/// `input_required` answer, then the question.
#[test]
fn the_question_panel() {
    snapshot("question_form", |s| {
        demo(s);
        s.sent(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"confirm_booking","arguments":{"departureDate":"25/12/2099"}}}"#);
        s.received(
            r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Book the flight on 25/12/2099?"}}},"requestState":"s"}}"#,
            "tools/call",
        );
        let request = sightline::mcp::input::InputRequest {
            key: Some("confirm".into()),
            method: "elicitation/create".into(),
            params: json!({
                "mode": "form",
                "message": "Book the flight on 25/12/2099?",
                "requestedSchema": {"type": "object", "properties": {
                    "confirm": {"type": "boolean", "title": "Book it", "default": false},
                    "seat": {"type": "string", "title": "Seat", "enum": ["window", "aisle"], "default": "window"},
                    "note": {"type": "string", "title": "Note for the crew"},
                }, "required": ["confirm"]},
            }),
        };
        s.event(sightline::mcp::log::SessionEvent::Asked {
            number: 1,
            request: Box::new(request),
            proposed: Box::new(sightline::mcp::input::Answer::Result(
                json!({"action": "decline"}),
            )),
        });
        // Space on the first field: the boolean is on, and the preview says so.
        s.state
            .asking
            .as_mut()
            .unwrap()
            .key(sightline::app::ask::PanelKey::Toggle);
    });
}

/// A form that breaks its schema (an empty required name, "not-an-email" in an email field, a
/// count past its maximum): each problem beside its field, then, after a first Enter, "not
/// sent" and the key that sends anyway.
#[test]
fn the_question_panel_says_what_breaks_the_schema() {
    snapshot("question_form_problems", |s| {
        demo(s);
        s.sent(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"confirm_booking","arguments":{"departureDate":"25/12/2099"}}}"#);
        let request = sightline::mcp::input::InputRequest {
            key: None,
            method: "elicitation/create".into(),
            params: json!({
                "message": "Who travels?",
                "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string", "title": "Name", "minLength": 2},
                    "email": {"type": "string", "title": "Email", "format": "email", "default": "not-an-email"},
                    "bags": {"type": "integer", "title": "Bags", "maximum": 3, "default": 5},
                }, "required": ["name", "email"]},
            }),
        };
        s.event(sightline::mcp::log::SessionEvent::Asked {
            number: 1,
            request: Box::new(request),
            proposed: Box::new(sightline::mcp::input::Answer::Result(
                json!({"action": "decline"}),
            )),
        });
        s.command(sightline::app::Command::Question(Question::Accept));
    });
}

/// Applies a recorded transcript (`tests/fixtures/NAME.jsonl`) to the session, event by event,
/// in the order the live session produced them.
fn replay(session: &mut Session, name: &str) {
    let path = format!("{}/tests/fixtures/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    for event in sightline::recording::open(&path).expect("the fixture opens") {
        let event = event.expect("every line of the fixture reads");
        sightline::app::update(&mut session.state, sightline::app::Action::Session(event));
    }
}

/// The events of a recorded transcript: up to its tool listing, and the rest.
fn recorded(name: &str) -> (Vec<SessionEvent>, Vec<SessionEvent>) {
    let path = format!("{}/tests/fixtures/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let events: Vec<SessionEvent> = sightline::recording::open(&path)
        .expect("the fixture opens")
        .map(|event| event.expect("every line of the fixture reads"))
        .collect();
    let listed = events
        .iter()
        .position(|event| matches!(event, SessionEvent::ToolsListed(_)))
        .expect("the tools were listed");
    let (before, after) = events.split_at(listed + 1);
    (before.to_vec(), after.to_vec())
}

/// `A` on the selected tool, in a recorded TUI session against the legacy demo: the plan for
/// consent; after Enter, the table filling as the recorded calls finish (their answers were to
/// these very cases); Enter on a row opens its exchange in the log.
#[test]
fn the_audit_of_a_tool() {
    let (setup, calls) = recorded("tui_audit_legacy");
    let feed = |s: &mut Session, events: &[SessionEvent]| {
        for event in events {
            sightline::app::update(&mut s.state, sightline::app::Action::Session(event.clone()));
        }
    };
    snapshot("audit_plan", |s| {
        feed(s, &setup);
        s.command(Command::ToServer(ToServer::Audit));
    });
    snapshot("audit_running", |s| {
        feed(s, &setup);
        s.command(Command::ToServer(ToServer::Audit))
            .command(Command::Edit(Edit::OpenEditor));
        feed(s, &calls[..calls.len() / 2]);
    });
    snapshot("audit_table", |s| {
        feed(s, &setup);
        s.command(Command::ToServer(ToServer::Audit))
            .command(Command::Edit(Edit::OpenEditor));
        feed(s, &calls);
        let audit = s.state.audit.as_ref().expect("the table stays");
        assert_eq!(audit.phase, sightline::app::audit_panel::Phase::Done);
        assert!(
            audit.rows.iter().all(Option::is_some),
            "every case was judged"
        );
    });
    snapshot("audit_row_opened", |s| {
        feed(s, &setup);
        s.command(Command::ToServer(ToServer::Audit))
            .command(Command::Edit(Edit::OpenEditor));
        feed(s, &calls);
        s.command(Command::Move(Move::SelectFirst))
            .command(Command::Move(Move::SelectNext));
        let call = s.state.audit.as_ref().unwrap().rows[1]
            .as_ref()
            .unwrap()
            .call;
        s.command(Command::Edit(Edit::OpenEditor));
        assert!(s.state.audit.is_none());
        let line = &s.state.log.lines[s.state.log.selected.unwrap()];
        assert_eq!(line.exchange, Some(call), "the row's own exchange");
    });
}

/// Screens from recorded sessions: the demo server (one per class and finding it shows, and
/// one per real host on content hosts treat differently), the hostile server (escapes,
/// garbage lines, a crash), whose transcripts must replay as inertly as they were shown, and one
/// per other finding, from the peer that shows it (the Python SDK, `odd_server.py`,
/// `http_faults.py`).
#[test]
fn recorded_sessions() {
    for name in [
        "sep1303_tool_error",
        "legacy_protocol_error",
        "legacy_unknown_tool",
        "success_structured",
        "output_schema_violation",
        "timeout",
        "boarding_pass",
        "hostile_escape",
        "hostile_garbage",
        "hostile_crash",
        "python_sdk_unknown_tool",
        "finding_tool_error_without_text",
        "finding_structured_without_text",
        "finding_structured_text_differs",
        "finding_structured_missing",
        "finding_success_reads_like_error",
        "finding_unknown_result_type",
        "http_event_stream_without_response",
        "http_stale_session_not_404",
        "http_tool_rejected",
    ] {
        snapshot(&format!("fixture_{name}"), |s| replay(s, name));
    }
    for host in ["anthropic-messages", "openai-chat"] {
        snapshot(&format!("fixture_boarding_pass_{host}"), |s| {
            replay(s, "boarding_pass");
            s.host(host);
        });
    }
}

/// Whatever a server names and describes its tool with, every row of the screen keeps its
/// width: the cells' symbols add up to the terminal's width, so no border is pushed out of
/// line and no cell is left stale (issue 29: noncharacters, fillers, tag characters).
#[test]
fn any_tool_name_or_description_keeps_every_row_its_width() {
    use proptest::prelude::*;
    use unicode_width::UnicodeWidthStr;
    let hostile = prop::sample::select(vec![
        '\u{ffff}',
        '\u{10ffff}',
        '\u{d7ff}',
        '\u{115f}',
        '\u{1160}',
        '\u{e0041}',
        '\u{e007f}',
        '\u{200b}',
        '\u{202e}',
        '\u{1b}',
        '\r',
        '\u{9b}',
        '\u{301}',
        '\u{e000}',
        '界',
        '👩',
        '\u{200d}',
        'a',
        ' ',
    ]);
    let any = prop_oneof![any::<char>(), hostile];
    let text =
        prop::collection::vec(any, 0..40).prop_map(|chars| chars.into_iter().collect::<String>());
    proptest!(ProptestConfig::with_cases(300), |(name in text.clone(), description in text)| {
        for (width, height) in SIZES {
            let mut session = Session::new(width, height);
            session.connected(Era::Legacy, "2025-11-25", "hostile");
            let tool = json!({"name": name, "description": description, "inputSchema": {
                "type": "object", "properties": {name.clone(): {"type": "string", "description": description}}
            }});
            session.event(SessionEvent::ToolsListed(std::sync::Arc::new(
                vec![sightline::mcp::messages::Tool::from_value(&tool)].into(),
            )));
            session.command(Command::Edit(Edit::OpenEditor));
            let backend = common::backend(&session.state, &Theme::fallback());
            let buffer = backend.buffer();
            for y in 0..height {
                let mut row = String::new();
                let mut x = 0;
                while x < width {
                    let symbol = buffer[(x, y)].symbol();
                    row.push_str(symbol);
                    x += u16::try_from(symbol.width().max(1)).unwrap();
                }
                prop_assert_eq!(row.width(), usize::from(width), "row {}: {:?}", y, row);
                // And no cell holds a character a terminal may draw at another width than
                // ours: controls, unassigned code points, private use, the invisible fillers.
                for c in row.chars() {
                    let category = unicode_general_category::get_general_category(c);
                    let untrusted = c.is_control()
                        || matches!(
                            category,
                            unicode_general_category::GeneralCategory::Unassigned
                                | unicode_general_category::GeneralCategory::PrivateUse
                        )
                        || matches!(c, '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{e0000}'..='\u{e0fff}');
                    prop_assert!(!untrusted, "row {}: {:?} holds {:?}", y, row, c);
                }
            }
        }
    });
}

#[test]
fn an_oauth_flow_reads_in_the_log_as_its_notes_always_did() {
    use sightline::mcp::oauth::{AuthFact, AuthProblem, AuthStep};
    let url = format!("http://127.0.0.1:9/authorize?state={}", "s".repeat(200));
    let flow = [
        (
            AuthFact::Step(AuthStep::Started),
            "authorization: starting OAuth discovery".to_owned(),
        ),
        (
            AuthFact::Problem(AuthProblem::MissingChallenge),
            "⚑ auth.401-without-www-authenticate: RFC 9110 §15.5.2: a 401 response MUST send WWW-Authenticate; the client can only guess where to authorize".to_owned(),
        ),
        (
            AuthFact::Step(AuthStep::OpenUrl { url: url.clone() }),
            format!("authorization: open this URL to authorize: {url}"),
        ),
        (
            AuthFact::Step(AuthStep::Done),
            "authorization: done; the request is sent again with the token".to_owned(),
        ),
    ];
    for (width, height) in SIZES {
        // The words are the notes sightline logged before the facts were typed.
        let (mut typed, mut noted) = (Session::new(width, height), Session::new(width, height));
        legacy_demo(&mut typed);
        legacy_demo(&mut noted);
        for (fact, words) in &flow {
            typed.log(LogEvent::Authorization(fact.clone()));
            noted.log(LogEvent::Note(words.clone()));
        }
        for session in [&mut typed, &mut noted] {
            // The URL's row, whose whole text Detail shows.
            session
                .command(Command::Move(Move::FocusNext))
                .command(Command::Move(Move::FocusNext))
                .command(Command::Move(Move::SelectLast))
                .command(Command::Move(Move::SelectPrev));
        }
        assert!(typed.state.log.detail.join("").contains(&url));
        assert_eq!(typed.state.log.detail, noted.state.log.detail);
        assert_eq!(
            screen(&typed.state, &Theme::fallback()),
            screen(&noted.state, &Theme::fallback())
        );
    }
}
