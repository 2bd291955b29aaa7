//! The rest of the protocol from the keyboard: the composer (`:`), ping (`p`), the logging
//! level (`l`) and the server info (`i`), driven key by key through the real keymap.

use serde_json::json;

use super::*;
use crate::classify::fixtures::request;

fn modern_state() -> AppState {
    let mut state = state();
    let connection = Connection {
        era: Era::Modern,
        protocol_version: "2026-07-28".into(),
        server: ServerInfo {
            name: "demo".into(),
            version: "1".into(),
        },
        capabilities: None,
        http_session: None,
        probe: None,
    };
    session(&mut state, SessionEvent::Connected(Box::new(connection)));
    state
}

fn ctrl_s(state: &mut AppState) -> Vec<Effect> {
    press(state, KeyCode::Char('s'), KeyModifiers::CONTROL)
}

#[test]
fn the_composer_sends_exactly_what_was_typed_even_a_wrong_shape() {
    let mut state = state();
    type_text(&mut state, ":");
    assert!(state.composer.open);
    // Letters are text there, not commands: `q` does not quit.
    type_text(&mut state, "resources/read");
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    type_text(&mut state, "[1, \"q\"]");
    let effects = ctrl_s(&mut state);
    assert_eq!(
        effects,
        vec![Effect::Session(SessionCommand::Request {
            method: "resources/read".into(),
            params: Some(json!([1, "q"])),
        })]
    );
    assert!(!state.composer.open, "sent: the composer closes");
    assert!(
        state.composer.textarea.is_empty(),
        "and starts empty next time"
    );
    assert_eq!(state.requests.len(), 1);
}

#[test]
fn json_that_does_not_parse_is_said_and_nothing_is_sent() {
    let mut state = state();
    type_text(&mut state, ":ping");
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    type_text(&mut state, "{\"a\": ");
    assert!(ctrl_s(&mut state).is_empty());
    assert!(state.composer.open, "left open to fix");
    let problem = state.composer.problem.clone().unwrap_or_default();
    assert!(
        problem.contains("not JSON") && problem.contains("line 2"),
        "{problem}"
    );
    assert!(status(&state).starts_with("not sent"), "{}", status(&state));
    // Esc closes it and keeps the text for next time.
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    assert!(!state.composer.open);
    type_text(&mut state, ":");
    assert_eq!(state.composer.textarea.lines()[0], "ping");
}

#[test]
fn a_composed_call_to_an_unlisted_tool_is_a_call() {
    let mut state = state();
    type_text(&mut state, ":tools/call");
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    type_text(
        &mut state,
        r#"{"name": "not_listed", "arguments": {"x": 1}}"#,
    );
    assert_eq!(
        ctrl_s(&mut state),
        vec![Effect::Session(SessionCommand::Call {
            tool: "not_listed".into(),
            arguments: json!({"x": 1}),
        })]
    );
    assert_eq!(state.pending_calls, 1);
}

#[test]
fn ping_says_its_round_trip_and_is_refused_in_2026_07_28() {
    let mut state = state();
    assert_eq!(
        press(&mut state, KeyCode::Char('p'), KeyModifiers::NONE),
        vec![Effect::Session(SessionCommand::Request {
            method: "ping".into(),
            params: None,
        })]
    );
    let exchange = request("ping").result(json!({}));
    session(&mut state, SessionEvent::Requested(Box::new(exchange)));
    assert!(
        status(&state).starts_with("ping answered: round trip"),
        "{}",
        status(&state)
    );
    let mut modern = modern_state();
    assert!(press(&mut modern, KeyCode::Char('p'), KeyModifiers::NONE).is_empty());
    assert!(
        status(&modern).starts_with(crate::mcp::era::PING_REMOVED),
        "{}",
        status(&modern)
    );
}

#[test]
fn l_steps_through_the_levels_and_is_refused_in_2026_07_28() {
    let mut state = state();
    for level in ["debug", "info"] {
        assert_eq!(
            press(&mut state, KeyCode::Char('l'), KeyModifiers::NONE),
            vec![Effect::Session(SessionCommand::Request {
                method: "logging/setLevel".into(),
                params: Some(json!({"level": level})),
            })]
        );
    }
    let exchange = request("logging/setLevel").error(-32602, "Invalid level");
    session(&mut state, SessionEvent::Requested(Box::new(exchange)));
    assert!(
        status(&state).contains("protocol error"),
        "{}",
        status(&state)
    );
    let mut modern = modern_state();
    assert!(press(&mut modern, KeyCode::Char('l'), KeyModifiers::NONE).is_empty());
    assert!(status(&modern).starts_with("logging/setLevel is not sent"));
}

#[test]
fn the_server_info_shows_the_handshakes_instructions_sanitised_and_closes() {
    let mut state = state();
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-11-25",
        "serverInfo": {"name": "demo", "version": "1"},
        "instructions": "Be kind.\u{1b}[2J\nSecond line.",
    }});
    let entry = LogEntry {
        at: Timestamp(1),
        event: LogEvent::Received {
            frame: parse(&answer.to_string()).unwrap(),
            role: Role::Reply {
                method: "initialize".into(),
            },
        },
    };
    session(&mut state, SessionEvent::Logged(entry));
    type_text(&mut state, "i");
    let lines = state
        .server_info
        .as_ref()
        .map(|info| info.lines.clone())
        .unwrap();
    let text = lines.join("\n");
    assert!(
        text.contains("era        legacy (initialize) · protocol 2025-11-25"),
        "{text}"
    );
    assert!(
        text.contains("  Be kind.\\u{1b}[2J\n  Second line."),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'));
    type_text(&mut state, "i");
    assert!(state.server_info.is_none());
}
