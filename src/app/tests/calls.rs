//! Finished calls, the log, the console, the model pane and the host profiles.

use super::*;
use crate::app::action::{Lens, Move, Output, ToServer};
use crate::mcp::jsonrpc::Id;
use crate::mcp::log::{Probe, ProbeAnswer};

#[test]
fn a_finished_call_labels_its_lines_and_drives_the_model_view() {
    let mut state = state();
    finish(
        &mut state,
        call("book_flight", json!({"departureDate": "12/12/2024"})).error(-32602, "Invalid date"),
    );
    let response = state.log.lines.last().unwrap();
    assert_eq!(response.kind, LineKind::Response(Class::ProtocolError));
    assert!(response.flagged, "the SEP-1303 finding marks the line");
    assert_eq!(response.exchange, Some(0));
    assert_eq!(state.pending_calls, 0);
    let view = state.model.as_ref().unwrap();
    assert_eq!(
        (view.forwarded, view.verdict.as_str()),
        (false, "not forwarded (MAY, off)")
    );
    command(&mut state, Command::Lens(Lens::Forwarding));
    assert!(
        state.model.as_ref().unwrap().forwarded,
        "the MAY toggle recomputes the view"
    );
    assert!(state.model.as_ref().unwrap().text.contains("Invalid date"));
}

#[test]
fn cycling_the_host_profile_recomputes_the_view() {
    let mut state = state();
    let structured =
        json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {"a": 1}});
    finish(
        &mut state,
        call("get_flight_status", json!({})).result(structured),
    );
    assert_eq!(state.model.as_ref().unwrap().host, "spec");
    command(&mut state, Command::Lens(Lens::Host));
    command(&mut state, Command::Lens(Lens::Host));
    assert_eq!(state.model.as_ref().unwrap().host, "structured-first");
    assert_eq!(state.model.as_ref().unwrap().text, r#"{"a":1}"#);
    let others = crate::model_view::hosts::builtins().len() - 3;
    for _ in 0..others {
        command(&mut state, Command::Lens(Lens::Host));
        assert_ne!(state.model.as_ref().unwrap().host, "spec");
    }
    command(&mut state, Command::Lens(Lens::Host));
    assert_eq!(state.model.as_ref().unwrap().host, "spec", "cycles around");
}

#[test]
fn a_user_profile_named_with_escapes_is_shown_inert() {
    let mut state = state();
    let user = crate::model_view::hosts::parse(
        "[hosts.\"\\u001b[2Jevil\"]\ndescription = \"\\u001b]0;title\\u0007x\"\n",
        "hosts.toml",
    )
    .unwrap();
    state.settings.hosts = crate::model_view::hosts::all(&user);
    finish(&mut state, call("book_flight", json!({})).tool_error("no"));
    while state.settings.host().name != "\u{1b}[2Jevil" {
        command(&mut state, Command::Lens(Lens::Host));
    }
    let status = &state.status.as_ref().unwrap().text;
    assert!(
        !status.contains('\u{1b}') && !status.contains('\u{7}'),
        "{status:?}"
    );
    assert!(!state.model.as_ref().unwrap().host.contains('\u{1b}'));
}

#[test]
fn selecting_an_older_line_shows_its_call_and_end_follows_again() {
    let mut state = state();
    finish(
        &mut state,
        call("book_flight", json!({})).tool_error("first"),
    );
    finish(
        &mut state,
        call("book_flight", json!({})).tool_error("second"),
    );
    state.focus = Focus::Log;
    command(&mut state, Command::Move(Move::SelectPrev));
    command(&mut state, Command::Move(Move::SelectPrev));
    assert_eq!(state.log.selected, Some(1));
    assert!(state.model.as_ref().unwrap().text.contains("first"));
    assert!(state.log.detail.iter().any(|l| l.contains("first")));
    command(&mut state, Command::Move(Move::SelectLast));
    assert_eq!(state.log.selected, None);
    assert!(state.model.as_ref().unwrap().text.contains("second"));
}

#[test]
fn copy_commands_produce_clipboard_effects_or_say_why_not() {
    let mut state = state();
    assert!(command(&mut state, Command::Output(Output::CopyRequest)).is_empty());
    finish(
        &mut state,
        call("book_flight", json!({"departureDate": "12/12/2024"})).tool_error("Invalid"),
    );
    let copied = |effects: Vec<Effect>| match effects.as_slice() {
        [Effect::Copy(text)] => text.clone(),
        other => panic!("{other:?}"),
    };
    let request = copied(command(&mut state, Command::Output(Output::CopyRequest)));
    assert!(request.contains("\"method\": \"tools/call\""));
    assert_eq!(
        copied(command(&mut state, Command::Output(Output::CopyModelView))),
        "Invalid"
    );
    set_editor(
        &mut state,
        "{\"departureDate\": \"12/12/2024\", \"note\": \"it's\"}",
    );
    let line = copied(command(
        &mut state,
        Command::Output(Output::CopyCommandLine),
    ));
    assert_eq!(
        line,
        r#"sightline call book_flight '{"departureDate":"12/12/2024","note":"it'\''s"}' --demo legacy"#
    );
    // With the call's row selected, the line repeats that call, not the editor's draft.
    state.editing = false;
    state.focus = Focus::Log;
    command(&mut state, Command::Move(Move::SelectFirst));
    assert_eq!(
        state.log.lines[state.log.selected.unwrap()].exchange,
        Some(0)
    );
    let line = copied(command(
        &mut state,
        Command::Output(Output::CopyCommandLine),
    ));
    assert_eq!(
        line,
        r#"sightline call book_flight '{"departureDate":"12/12/2024"}' --demo legacy"#
    );
}

#[test]
fn stderr_and_log_messages_reach_the_console_and_strings_are_sanitised() {
    let mut state = state();
    log(&mut state, LogEvent::Stderr("\u{1b}[31mboom".into()));
    let note = parse(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"disk full"}}"#).unwrap();
    log(
        &mut state,
        LogEvent::Received {
            frame: note,
            role: Role::Notification,
        },
    );
    let console = state.log.console_window(10, 0);
    let shown: Vec<(&str, &str)> = console
        .iter()
        .map(|line| (line.source.as_str(), line.text.as_str()))
        .collect();
    assert_eq!(
        shown,
        [("stderr", "\\u{1b}[31mboom"), ("error", "disk full")]
    );
    assert!(
        state
            .log
            .lines
            .iter()
            .all(|line| !state.log.summary(line).contains('\u{1b}'))
    );
}

#[test]
fn consecutive_stderr_lines_are_one_row_and_every_line_in_the_console() {
    let mut state = state();
    let rows_before = state.log.lines.len();
    for n in 0..100_000 {
        log(&mut state, LogEvent::Stderr(format!("line {n}")));
    }
    assert_eq!(
        state.log.lines.len(),
        rows_before + 1,
        "one row for the run"
    );
    let row = state.log.lines.last().unwrap();
    assert_eq!(
        state.log.summary(row),
        "stderr │ line 99999  (+99999 lines before; ` shows all)"
    );
    assert_eq!(state.log.console_lines, 100_000);
    let newest = state.log.console_window(3, 0);
    let texts: Vec<&str> = newest.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(texts, ["line 99997", "line 99998", "line 99999"]);
    let scrolled = state.log.console_window(2, 50_000);
    let texts: Vec<&str> = scrolled.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(texts, ["line 49998", "line 49999"]);
    // Another line in between starts a new run.
    log(&mut state, LogEvent::Note("between".into()));
    log(&mut state, LogEvent::Stderr("after".into()));
    let last = state.log.lines.last().unwrap();
    assert_eq!(state.log.summary(last), "stderr │ after");
    assert_eq!(state.log.console_window(1, 0)[0].text, "after");
}

#[test]
fn a_click_focuses_the_pane_and_selects_the_row_under_it() {
    let mut state = state();
    let panes = crate::app::layout::areas(state.screen);
    update(
        &mut state,
        Action::Mouse(Mouse::Clicked {
            column: panes.tools.x + 3,
            row: panes.tools.y + 3,
        }),
    );
    assert_eq!(state.focus, Focus::Tools);
    assert_eq!(state.tools.selected, 2);
    let described = state
        .tools
        .selected_row
        .as_ref()
        .map(|row| row.name.as_str());
    assert_eq!(
        described,
        Some(state.tools.tools[2].name.as_str()),
        "the description follows the selection"
    );
    update(
        &mut state,
        Action::Mouse(Mouse::Clicked {
            column: panes.model.x + 2,
            row: panes.model.y + 2,
        }),
    );
    assert_eq!(state.focus, Focus::Model);
    update(
        &mut state,
        Action::Mouse(Mouse::ScrolledDown {
            column: panes.tools.x + 2,
            row: panes.tools.y + 2,
        }),
    );
    assert_eq!(
        (state.focus, state.tools.selected),
        (Focus::Model, 3),
        "the wheel scrolls without moving the focus"
    );
}

#[test]
fn a_flood_of_log_lines_is_kept_whole() {
    let mut state = state();
    let frame = parse(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#).unwrap();
    for _ in 0..10_000 {
        log(
            &mut state,
            LogEvent::Received {
                frame: frame.clone(),
                role: Role::Notification,
            },
        );
    }
    assert_eq!(state.log.lines.len(), 10_000);
    assert_eq!(state.log.current(), Some(9_999));
}

#[test]
fn the_model_pane_and_the_detail_scroll_separately() {
    let mut state = state();
    finish(
        &mut state,
        call("book_flight", json!({})).tool_error("line 1\nline 2\nline 3"),
    );
    state.focus = Focus::Model;
    command(&mut state, Command::Move(Move::SelectNext));
    command(&mut state, Command::Move(Move::SelectNext));
    assert_eq!((state.model_scroll, state.log.detail_scroll), (2, 0));
    state.focus = Focus::Detail;
    command(&mut state, Command::Move(Move::SelectNext));
    assert_eq!((state.model_scroll, state.log.detail_scroll), (2, 1));
    finish(&mut state, call("book_flight", json!({})).tool_error("new"));
    assert_eq!(state.model_scroll, 0, "a new call starts at the top");
}

#[test]
fn a_reconnect_starts_a_visible_connection_and_its_ids_never_repeat_a_row() {
    let mut state = state();
    finish(
        &mut state,
        call("book_flight", json!({})).tool_error("first"),
    );
    let transport = || SessionEvent::Connecting {
        transport: "stdio: demo".into(),
    };
    session(&mut state, transport());
    assert_eq!(state.session, 2);
    let boundary = state.log.lines.last().unwrap();
    assert_eq!(boundary.kind, LineKind::Note);
    assert!(state.log.summary(boundary).contains("connection 2"));
    // The same id, #7 of the fixture, on the new connection.
    finish(
        &mut state,
        call("book_flight", json!({})).tool_error("second"),
    );
    let rows: Vec<String> = state
        .log
        .lines
        .iter()
        .map(|line| state.log.summary(line).into_owned())
        .collect();
    let first = rows.iter().filter(|row| row.starts_with("← #")).count();
    let second = rows.iter().filter(|row| row.starts_with("← 2#")).count();
    assert_eq!((first, second), (1, 1), "{rows:#?}");
    // Each reply row answers for its own call.
    let last_reply = state.log.lines.len() - 1;
    assert_eq!(state.log.lines[last_reply].exchange, Some(1));
    let earlier = rows.iter().position(|row| row.starts_with("← #")).unwrap();
    assert_eq!(state.log.lines[earlier].exchange, Some(0));
}

/// Forty `r`s before the session begins the restart are one restart: each queued one would
/// start and stop the server again, and the screen waited on the session's full command
/// channel behind them (`?` answered seconds late). Once the new attempt begins, `r` asks again.
#[test]
fn presses_of_r_before_the_restart_begins_are_one_restart() {
    let mut state = state();
    let sent: usize = (0..40)
        .map(|_| {
            command(&mut state, Command::ToServer(ToServer::Reconnect))
                .iter()
                .filter(|effect| matches!(effect, Effect::Session(SessionCommand::Reconnect)))
                .count()
        })
        .sum();
    assert_eq!(sent, 1);
    assert!(
        status(&state).contains("reconnecting…"),
        "each press is answered"
    );
    let connecting = SessionEvent::Connecting {
        transport: "stdio: demo".into(),
    };
    // A server that cannot be reached at all says so without `Connecting`.
    let failed = SessionEvent::ConnectFailed {
        stage: crate::mcp::log::Stage::Spawn,
        reason: "no such file".into(),
    };
    for (event, why) in [
        (connecting, "a new attempt under way can be restarted"),
        (failed, "r retries after a failure"),
    ] {
        session(&mut state, event);
        assert_eq!(
            command(&mut state, Command::ToServer(ToServer::Reconnect)),
            [Effect::Session(SessionCommand::Reconnect)],
            "{why}"
        );
    }
}

#[test]
fn the_era_probes_refusal_is_labelled_as_expected_once_the_server_is_legacy() {
    let mut state = AppState::new(Settings::default(), Vec::new(), Rect::new(0, 0, 120, 40));
    let discover = parse(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#);
    log(&mut state, LogEvent::Sent(discover.unwrap()));
    let refusal =
        parse(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#);
    log(
        &mut state,
        LogEvent::Received {
            frame: refusal.unwrap(),
            role: Role::Reply {
                method: "server/discover".into(),
            },
        },
    );
    assert_eq!(
        state.log.lines[1].kind,
        LineKind::Response(Class::ProtocolError),
        "a refusal until the era is known"
    );
    let connection = Connection {
        era: Era::Legacy,
        protocol_version: "2025-11-25".into(),
        server: ServerInfo::default(),
        capabilities: None,
        http_session: None,
        probe: None,
    };
    // A legacy connection whose negotiation sent no probe (`--era legacy`) labels nothing: a
    // `server/discover` row is then the user's own request.
    session(
        &mut state,
        SessionEvent::Connected(Box::new(connection.clone())),
    );
    assert_eq!(
        state.log.lines[1].kind,
        LineKind::Response(Class::ProtocolError)
    );
    let connection = Connection {
        probe: Some(Probe {
            id: Id::Number(1),
            answer: ProbeAnswer::Refused {
                code: -32601,
                addressed: true,
            },
        }),
        ..connection
    };
    session(&mut state, SessionEvent::Connected(Box::new(connection)));
    let row = &state.log.lines[1];
    assert_eq!(row.kind, LineKind::Probe);
    let summary = state.log.summary(row);
    assert!(
        summary.contains("-32601") && summary.contains("expected"),
        "{summary}"
    );
    assert!(
        matches!(&row.raw, Some(crate::app::state::Raw::Frame(frame)) if frame.raw.contains("Method not found")),
        "the frame itself is kept as received"
    );
}

#[test]
fn a_late_reply_row_belongs_to_its_call() {
    let mut state = state();
    finish(&mut state, call("slow_search", json!({})).timeout());
    let late = parse(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#).unwrap();
    log(
        &mut state,
        LogEvent::Received {
            frame: late,
            role: Role::Late {
                method: "tools/call".into(),
            },
        },
    );
    state.focus = Focus::Log;
    command(&mut state, Command::Move(Move::SelectLast));
    command(&mut state, Command::Move(Move::SelectPrev));
    command(&mut state, Command::Move(Move::SelectNext));
    assert_eq!(state.log.lines.last().unwrap().exchange, Some(0));
    assert_eq!(state.model.as_ref().map(|model| model.call), Some(0));
}

#[test]
fn h_runs_the_call_through_the_real_host_and_shows_what_it_sent_beside_the_prediction() {
    let mut state = state();
    let past = "Invalid departure date: must be in the future.";
    finish(
        &mut state,
        call("book_flight", json!({"departureDate": "12/12/2024"})).error(-32602, past),
    );
    // The spec profile is no real host: nothing runs.
    assert!(press(&mut state, KeyCode::Char('H'), KeyModifiers::SHIFT).is_empty());
    assert!(
        status(&state).contains("not a real host"),
        "{}",
        status(&state)
    );
    use_host(&mut state, "claude-code");
    let effects = press(&mut state, KeyCode::Char('H'), KeyModifiers::SHIFT);
    let [
        Effect::Capture {
            call,
            host,
            tool,
            arguments,
            server_args,
            host_bin,
        },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    assert_eq!(host_bin, &None, "no --host-bin given");
    assert_eq!(
        (host.as_str(), tool.as_str()),
        ("claude-code", "book_flight")
    );
    assert_eq!(arguments, r#"{"departureDate":"12/12/2024"}"#);
    assert_eq!(server_args, &["--demo", "legacy"]);
    assert_eq!(
        state.model.as_ref().unwrap().captured,
        Some(crate::app::state::Captured::Running { since: 0 })
    );
    assert!(
        state.counts_seconds(),
        "the running host's seconds are drawn"
    );
    let said = json!({
        "host_version": "2.1.332", "text": "the host's words", "server_called": true,
        "differences": ["the model read \"the host's words\"; the profile predicts \"x\""],
    });
    update(
        &mut state,
        Action::Captured {
            call: *call,
            host: host.clone(),
            result: Ok(said),
        },
    );
    let Some(crate::app::state::Captured::Done {
        version,
        text,
        differences,
        ..
    }) = &state.model.as_ref().unwrap().captured
    else {
        panic!("{:?}", state.model);
    };
    assert_eq!(version, "2.1.332");
    assert_eq!(text.as_deref(), Some("the host's words"));
    assert_eq!(differences.len(), 1);
    assert!(status(&state).contains("differs"), "{}", status(&state));
    assert!(!state.counts_seconds(), "nothing counts seconds any more");
    // A host's long result is kept clipped, as the prediction is, not drawn whole.
    let long = json!({"host_version": "2.1.332", "text": "x".repeat(100_000), "differences": []});
    update(
        &mut state,
        Action::Captured {
            call: *call,
            host: host.clone(),
            result: Ok(long),
        },
    );
    let Some(crate::app::state::Captured::Done {
        text: Some(text), ..
    }) = &state.model.as_ref().unwrap().captured
    else {
        panic!("{:?}", state.model);
    };
    assert!(
        text.len() < 20_000 && text.ends_with("more bytes)"),
        "{}",
        text.len()
    );
    // Another profile has no capture of this call.
    press(&mut state, KeyCode::Char('h'), KeyModifiers::NONE);
    assert_eq!(state.model.as_ref().unwrap().captured, None);
}
