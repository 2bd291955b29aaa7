//! Transitions a newcomer tripped on: `r` on a server that never started, a replayed call's request, the log's file name, counts of one.

use super::*;
use crate::app::action::{Move, Output};

fn connecting() -> SessionEvent {
    SessionEvent::Connecting {
        transport: "stdio: nope".into(),
    }
}

#[test]
fn r_on_a_server_that_never_started_claims_no_restart_and_no_time_zero() {
    let mut state = AppState::new(Settings::default(), Vec::new(), Rect::new(0, 0, 120, 40));
    session(&mut state, connecting());
    let failed = SessionEvent::ConnectFailed {
        stage: crate::mcp::log::Stage::Spawn,
        reason: "could not start 'nope': No such file or directory".into(),
    };
    session(&mut state, failed.clone());
    press(&mut state, KeyCode::Char('r'), KeyModifiers::NONE);
    session(&mut state, connecting());
    assert!(
        state.log.lines.is_empty(),
        "nothing was started, so no connection boundary (and no 00:00:00.000): {:?}",
        state.log.lines
    );
    assert_eq!(state.session, 1, "no id was used yet");
    session(&mut state, failed);
    assert!(
        status(&state).contains("could not connect"),
        "{}",
        status(&state)
    );
}

#[test]
fn r_after_a_logged_connection_marks_the_new_one_at_the_logs_time_without_claiming_a_restart() {
    let mut state = state();
    let initialize = parse(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
    session(
        &mut state,
        SessionEvent::Logged(LogEntry {
            at: Timestamp(1_795_946_400_123),
            event: LogEvent::Sent(initialize.unwrap()),
        }),
    );
    session(&mut state, connecting());
    let boundary = state.log.lines.last().unwrap();
    assert_eq!(boundary.at, Timestamp(1_795_946_400_123));
    let words = state.log.summary(boundary).into_owned();
    assert!(words.contains("connection 2: connecting again"), "{words}");
    assert!(!words.contains("restarted"), "{words}");
}

#[test]
fn l_names_the_log_file_by_the_utc_time_it_reaches_to_the_millisecond() {
    let mut state = state();
    let ping = parse(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
    for at in [1_795_946_400_123, 1_795_946_405_456] {
        session(
            &mut state,
            SessionEvent::Logged(LogEntry {
                at: Timestamp(at),
                event: LogEvent::Sent(ping.clone()),
            }),
        );
    }
    let effects = command(&mut state, Command::Output(Output::SaveLog));
    let [Effect::Save { path, .. }] = &effects[..] else {
        panic!("{effects:?}");
    };
    assert_eq!(path, "sightline-log-20261129-100005-456.jsonl");
}

#[test]
fn a_replayed_call_puts_its_recorded_arguments_in_the_request_pane() {
    let mut state = state();
    state.replay = Some("s.jsonl".into());
    finish(
        &mut state,
        call(
            "cancel_booking",
            json!({"bookingId": "BK-1", "reason": "ill"}),
        )
        .tool_error("no"),
    );
    assert_eq!(state.editor.tool.as_deref(), Some("cancel_booking"));
    assert_eq!(
        state.tools.selected_tool().map(|tool| tool.name.as_str()),
        Some("cancel_booking"),
        "its tool is highlighted"
    );
    let text = state.editor.text();
    assert!(text.contains(r#""bookingId": "BK-1""#), "{text}");
    assert!(text.contains(r#""reason": "ill""#), "{text}");
    // Another tool, highlighted by the user, shows its own draft; the call's come back with it.
    let others = state.tools.selected;
    command(&mut state, Command::Move(Move::SelectPrev));
    assert_ne!(state.tools.selected, others);
    assert!(!state.editor.text().contains("BK-1"));
    command(&mut state, Command::Move(Move::SelectNext));
    assert!(state.editor.text().contains("BK-1"));
}

#[test]
fn a_replayed_call_of_a_tool_not_listed_is_shown_under_its_name() {
    let mut state = state();
    state.replay = Some("s.jsonl".into());
    finish(
        &mut state,
        call("unlisted", json!({"a": [1, 2]})).tool_error("no"),
    );
    assert_eq!(state.editor.tool.as_deref(), Some("unlisted"));
    assert!(
        state.editor.text().contains(r#""a": ["#),
        "{}",
        state.editor.text()
    );
}

#[test]
fn a_count_of_one_reads_in_the_singular() {
    let mut state = state();
    log(&mut state, LogEvent::Stderr("first".into()));
    let row = state.log.lines.len() - 1;
    state.log.selected = Some(row);
    super::super::detail::refresh_detail(&mut state);
    assert_eq!(
        state.log.detail.first().map(String::as_str),
        Some("stderr: 1 line")
    );
    log(&mut state, LogEvent::Stderr("second".into()));
    let words = state.log.summary(&state.log.lines[row]).into_owned();
    assert!(words.ends_with("(+1 line before; ` shows all)"), "{words}");
}
