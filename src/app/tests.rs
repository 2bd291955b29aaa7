//! Transition tests: actions in, state and effects out. No terminal, no I/O.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use serde_json::json;

use super::action::{Action, Command, Effect, Mouse};
use super::action::{SessionCommand, SessionEvent};
use super::state::{AppState, Focus, LineKind, Link, Settings};
use super::update::update;
use crate::classify::Class;
use crate::classify::fixtures::call;
use crate::mcp::Timestamp;
use crate::mcp::era::Era;
use crate::mcp::jsonrpc::parse;
use crate::mcp::log::{Connection, LogEntry, LogEvent, Role};
use crate::mcp::messages::{ServerInfo, Tool};
use crate::mcp::verdict::Finished;
use crate::model_view::Rule;

fn state() -> AppState {
    let settings = Settings::default();
    let mut state = AppState::new(
        settings,
        vec!["--demo".into(), "legacy".into()],
        Rect::new(0, 0, 120, 40),
    );
    let connection = Connection {
        era: Era::Legacy,
        protocol_version: "2025-11-25".into(),
        server: ServerInfo {
            name: "demo".into(),
            version: "1".into(),
        },
        capabilities: None,
        http_session: None,
    };
    session(&mut state, SessionEvent::Connected(Box::new(connection)));
    let tools = crate::demo_server::tools::definitions()
        .into_iter()
        .map(|raw| Tool::from_value(&raw))
        .collect::<Vec<_>>();
    session(&mut state, SessionEvent::ToolsListed(tools.into()));
    state
}

fn session(state: &mut AppState, event: SessionEvent) -> Vec<Effect> {
    update(state, Action::Session(event))
}

fn command(state: &mut AppState, command: Command) -> Vec<Effect> {
    update(state, Action::Command(command))
}

/// A key as the terminal reports it, mapped by the real keymap for the state's mode.
fn press(state: &mut AppState, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    let event = crossterm::event::Event::Key(KeyEvent::new(code, modifiers));
    match crate::input::action_for(&event, state) {
        Some(action) => update(state, action),
        None => Vec::new(),
    }
}

/// Typed key by key, through the keymap: letters are text only while editing.
fn type_text(state: &mut AppState, text: &str) {
    for c in text.chars() {
        press(state, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

/// The status line's message, empty when there is none.
fn status(state: &AppState) -> &str {
    state
        .status
        .as_ref()
        .map_or("", |status| status.text.as_str())
}

fn set_editor(state: &mut AppState, text: &str) {
    state.editor.textarea = tui_textarea::TextArea::new(text.lines().map(str::to_owned).collect());
}

#[test]
fn start_focuses_the_tools_with_the_first_tool_selected_and_its_skeleton_loaded() {
    let state = state();
    assert_eq!(state.focus, Focus::Tools);
    assert_eq!(
        state.tools.selected_tool().map(|t| t.name.as_str()),
        Some("book_flight")
    );
    assert_eq!(state.editor.tool.as_deref(), Some("book_flight"));
    assert!(state.editor.text().contains("\"departureDate\": \"\""));
}

#[test]
fn enter_on_a_tool_opens_the_editor_with_that_tools_skeleton_and_esc_leaves() {
    let mut state = state();
    command(&mut state, Command::SelectNext);
    command(&mut state, Command::OpenEditor);
    assert_eq!(state.focus, Focus::Editor);
    assert_eq!(state.editor.tool.as_deref(), Some("get_flight_status"));
    assert!(state.editor.text().contains("flightNumber"));
    assert!(state.editing);
    command(&mut state, Command::Back);
    assert_eq!(
        (state.focus, state.editing),
        (Focus::Editor, false),
        "Esc stops editing, on the Request pane"
    );
    command(&mut state, Command::Back);
    assert_eq!(state.focus, Focus::Tools);
}

#[test]
fn the_readme_path_types_the_date_into_the_first_value_and_sends_it() {
    let mut state = state();
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        state.editor.textarea.cursor(),
        (1, 20),
        "inside departureDate's quotes"
    );
    type_text(&mut state, "12/12/2024");
    let effects = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
    let [Effect::Session(SessionCommand::Call { tool, arguments })] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(tool, "book_flight");
    assert_eq!(arguments["departureDate"], "12/12/2024");
    assert!(
        state.editing,
        "still editing: the next try is a few keys away"
    );
}

#[test]
fn tab_selects_the_next_value_and_typing_replaces_it() {
    let mut state = state();
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    press(&mut state, KeyCode::Tab, KeyModifiers::NONE);
    let cursor = state.editor.textarea.cursor();
    let row = state.editor.textarea.lines()[cursor.0].clone();
    assert!(row.contains("\"destination\""), "{row}");
    type_text(&mut state, "LHR");
    assert!(state.editor.text().contains("\"destination\": \"LHR\""));
    assert_eq!(state.focus, Focus::Editor, "Tab does not leave the editor");
}

#[test]
fn command_keys_in_the_editor_are_text_and_chords_never_change_it() {
    let mut state = state();
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    type_text(&mut state, "vmhyxrqw?");
    assert!(
        state.editor.text().contains("\"vmhyxrqw?\""),
        "typed as text"
    );
    assert!(!state.settings.validation);
    let before = state.editor.text();
    press(&mut state, KeyCode::Char('v'), KeyModifiers::ALT);
    press(&mut state, KeyCode::Char('m'), KeyModifiers::ALT);
    press(&mut state, KeyCode::Char('h'), KeyModifiers::ALT);
    assert_eq!(state.editor.text(), before);
    assert!(state.settings.validation && state.settings.forward_protocol_errors);
    assert_eq!(state.settings.host, 1);
}

#[test]
fn ctrl_s_sends_the_highlighted_tools_draft_and_drafts_survive_switching() {
    let mut state = state();
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    type_text(&mut state, "01/01/2030");
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    press(&mut state, KeyCode::Down, KeyModifiers::NONE);
    assert_eq!(state.editor.tool.as_deref(), Some("get_flight_status"));
    let effects = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert!(
        matches!(&effects[..], [Effect::Session(SessionCommand::Call { tool, .. })] if tool == "get_flight_status"),
        "the highlighted tool is sent: {effects:?}"
    );
    session(&mut state, SessionEvent::Disconnected);
    press(&mut state, KeyCode::Up, KeyModifiers::NONE);
    assert_eq!(state.editor.tool.as_deref(), Some("book_flight"));
    assert!(
        state.editor.text().contains("01/01/2030"),
        "the draft came back: {}",
        state.editor.text()
    );
}

#[test]
fn keys_type_into_the_editor_only_when_it_has_the_focus() {
    let mut state = state();
    let before = state.editor.text();
    type_text(&mut state, "x");
    assert_eq!(state.editor.text(), before);
    command(&mut state, Command::OpenEditor);
    type_text(&mut state, "x");
    assert_ne!(state.editor.text(), before);
}

#[test]
fn send_sends_exactly_what_was_typed_even_when_it_is_not_an_object() {
    let mut state = state();
    set_editor(&mut state, "\"12/12/2024\"");
    let effects = command(&mut state, Command::SendRequest);
    assert_eq!(
        effects,
        [Effect::Session(SessionCommand::Call {
            tool: "book_flight".into(),
            arguments: json!("12/12/2024")
        })]
    );
    assert_eq!(state.pending_calls, 1);
}

#[test]
fn invalid_json_is_never_replaced_by_earlier_arguments() {
    let mut state = state();
    set_editor(&mut state, "{\"departureDate\": 12/12}");
    let effects = command(&mut state, Command::SendRequest);
    assert!(effects.is_empty());
    assert!(
        state.editor.problems[0].contains("line 1 column 21"),
        "{:?}",
        state.editor.problems
    );
    assert!(status(&state).starts_with("not sent"));
    assert_eq!(state.pending_calls, 0);
}

#[test]
fn validation_is_off_by_default_and_when_on_shows_errors_but_still_sends() {
    let mut state = state();
    command(&mut state, Command::OpenEditor);
    set_editor(&mut state, "{\"departureDate\": 5}");
    type_text(&mut state, " ");
    assert!(
        state.editor.problems.is_empty(),
        "off: send exactly what I typed"
    );
    command(&mut state, Command::Back);
    command(&mut state, Command::ToggleValidation);
    assert!(
        state
            .editor
            .problems
            .iter()
            .any(|p| p.contains("departureDate") && p.contains("string")),
        "{:?}",
        state.editor.problems
    );
    let effects = command(&mut state, Command::SendRequest);
    assert_eq!(effects.len(), 1, "the user can still send anyway");
    assert!(
        state
            .status
            .as_ref()
            .is_some_and(|status| status.text.contains("despite validation errors"))
    );
}

#[test]
fn nothing_is_sent_while_disconnected() {
    let mut state = state();
    session(&mut state, SessionEvent::Disconnected);
    assert!(command(&mut state, Command::SendRequest).is_empty());
    assert_eq!(state.link, Link::Disconnected);
}

fn log(state: &mut AppState, event: LogEvent) {
    session(
        state,
        SessionEvent::Logged(LogEntry {
            at: Timestamp(1),
            event,
        }),
    );
}

fn finish(state: &mut AppState, exchange: crate::mcp::session::Exchange) {
    log(state, LogEvent::Sent(exchange.request.clone()));
    if let Some(frame) = exchange.response() {
        log(
            state,
            LogEvent::Received {
                frame: frame.clone(),
                role: Role::Reply {
                    method: "tools/call".into(),
                },
            },
        );
    }
    state.pending_calls += 1;
    session(
        state,
        SessionEvent::CallFinished(Box::new(Finished::unjudged(exchange))),
    );
}

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
    assert_eq!((view.forwarded, view.rule), (false, Rule::May));
    command(&mut state, Command::ToggleForwarding);
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
    command(&mut state, Command::CycleHost);
    command(&mut state, Command::CycleHost);
    assert_eq!(state.model.as_ref().unwrap().host, "structured-first");
    assert_eq!(state.model.as_ref().unwrap().text, r#"{"a":1}"#);
    let others = crate::model_view::hosts::builtins().len() - 3;
    for _ in 0..others {
        command(&mut state, Command::CycleHost);
        assert_ne!(state.model.as_ref().unwrap().host, "spec");
    }
    command(&mut state, Command::CycleHost);
    assert_eq!(state.model.as_ref().unwrap().host, "spec", "cycles around");
}

#[test]
fn a_replay_sends_nothing_whatever_the_key() {
    let mut state = state();
    state.replay = Some("s.jsonl".into());
    for key in [
        Command::SendRequest,
        Command::Reconnect,
        Command::CancelCall,
        Command::ToggleTasks,
    ] {
        assert!(command(&mut state, key).is_empty(), "{key:?}");
        assert_eq!(
            state.status.as_ref().unwrap().text,
            "a replay sends nothing"
        );
    }
    assert_eq!(state.pending_calls, 0);
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
        command(&mut state, Command::CycleHost);
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
    command(&mut state, Command::SelectPrev);
    command(&mut state, Command::SelectPrev);
    assert_eq!(state.log.selected, Some(1));
    assert!(state.model.as_ref().unwrap().text.contains("first"));
    assert!(state.log.detail.iter().any(|l| l.contains("first")));
    command(&mut state, Command::SelectLast);
    assert_eq!(state.log.selected, None);
    assert!(state.model.as_ref().unwrap().text.contains("second"));
}

#[test]
fn copy_commands_produce_clipboard_effects_or_say_why_not() {
    let mut state = state();
    assert!(command(&mut state, Command::CopyRequest).is_empty());
    finish(
        &mut state,
        call("book_flight", json!({"departureDate": "12/12/2024"})).tool_error("Invalid"),
    );
    let copied = |effects: Vec<Effect>| match effects.as_slice() {
        [Effect::Copy(text)] => text.clone(),
        other => panic!("{other:?}"),
    };
    let request = copied(command(&mut state, Command::CopyRequest));
    assert!(request.contains("\"method\": \"tools/call\""));
    assert_eq!(
        copied(command(&mut state, Command::CopyModelView)),
        "Invalid"
    );
    set_editor(
        &mut state,
        "{\"departureDate\": \"12/12/2024\", \"note\": \"it's\"}",
    );
    let line = copied(command(&mut state, Command::CopyCommandLine));
    assert_eq!(
        line,
        r#"sightline call book_flight '{"departureDate":"12/12/2024","note":"it'\''s"}' --demo legacy"#
    );
    // With the call's row selected, the line repeats that call, not the editor's draft.
    state.editing = false;
    state.focus = Focus::Log;
    command(&mut state, Command::SelectFirst);
    assert_eq!(
        state.log.lines[state.log.selected.unwrap()].exchange,
        Some(0)
    );
    let line = copied(command(&mut state, Command::CopyCommandLine));
    assert_eq!(
        line,
        r#"sightline call book_flight '{"departureDate":"12/12/2024"}' --demo legacy"#
    );
}

#[test]
fn cancel_reaches_the_session_only_when_a_call_is_pending() {
    let mut state = state();
    assert!(command(&mut state, Command::CancelCall).is_empty());
    command(&mut state, Command::SendRequest);
    assert_eq!(
        command(&mut state, Command::CancelCall),
        [Effect::Session(SessionCommand::CancelCall)]
    );
}

#[test]
fn the_help_is_modal_and_quit_always_quits() {
    let mut state = state();
    command(&mut state, Command::ToggleHelp);
    assert!(state.show_help);
    assert!(
        command(&mut state, Command::Reconnect).is_empty(),
        "other commands wait for the help to close"
    );
    assert!(state.show_help, "only Esc or ? closes it");
    command(&mut state, Command::SelectLast);
    assert!(
        state.help_scroll > 0,
        "the help scrolls to its end at 120x40"
    );
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    assert!(!state.show_help);
    command(&mut state, Command::ToggleHelp);
    assert_eq!(command(&mut state, Command::Quit), [Effect::Quit]);
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
fn one_call_at_a_time() {
    let mut state = state();
    set_editor(&mut state, "{}");
    assert_eq!(command(&mut state, Command::SendRequest).len(), 1);
    assert!(command(&mut state, Command::SendRequest).is_empty());
    assert!(status(&state).contains("still pending"));
}

#[test]
fn a_hostile_schema_reaches_the_editor_escaped() {
    let mut state = state();
    let raw = json!({"name": "evil", "inputSchema": {"type": "object", "properties": {"\u{9b}2J\u{202e}x": {"type": "string", "description": "\u{1b}]0;pwned\u{7}"}}}});
    session(
        &mut state,
        SessionEvent::ToolsListed(vec![Tool::from_value(&raw)].into()),
    );
    command(&mut state, Command::OpenEditor);
    let text = state.editor.text();
    assert!(text.contains("\\u009b2J\\u202ex"), "{text}");
    assert!(!text.contains('\u{9b}') && !text.contains('\u{202e}'));
    assert!(
        state
            .editor
            .hints
            .iter()
            .all(|hint| !hint.contains('\u{1b}'))
    );
}

#[test]
fn the_model_pane_and_the_detail_scroll_separately() {
    let mut state = state();
    finish(
        &mut state,
        call("book_flight", json!({})).tool_error("line 1\nline 2\nline 3"),
    );
    state.focus = Focus::Model;
    command(&mut state, Command::SelectNext);
    command(&mut state, Command::SelectNext);
    assert_eq!((state.model_scroll, state.log.detail_scroll), (2, 0));
    state.focus = Focus::Detail;
    command(&mut state, Command::SelectNext);
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
        matches!(&row.raw, Some(super::state::Raw::Frame(frame)) if frame.raw.contains("Method not found")),
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
    command(&mut state, Command::SelectLast);
    command(&mut state, Command::SelectPrev);
    command(&mut state, Command::SelectNext);
    assert_eq!(state.log.lines.last().unwrap().exchange, Some(0));
    assert_eq!(state.model.as_ref().map(|model| model.call), Some(0));
}

#[test]
fn the_server_picker_moves_picks_and_lets_quit_through() {
    let mut state = AppState::new(
        Settings::default(),
        vec!["--config".into(), "mcp.json".into()],
        Rect::new(0, 0, 80, 24),
    );
    let reason = "mcp.json: 2 servers (a, b): pick one with --server NAME".to_owned();
    let failed = SessionEvent::ConnectFailed {
        stage: crate::mcp::log::Stage::Spawn,
        reason,
    };
    session(
        &mut state,
        SessionEvent::Connecting {
            transport: "?".into(),
        },
    );
    session(&mut state, failed);
    state.picker = Some(super::state::Picker {
        file: "mcp.json".into(),
        choices: vec![
            ("a".into(), "stdio: a".into()),
            ("b".into(), "http: b".into()),
        ],
        selected: 0,
    });
    // Keys of the panes behind do nothing while it is open.
    assert!(command(&mut state, Command::FocusNext).is_empty());
    assert_eq!(state.focus, Focus::Tools);
    command(&mut state, Command::SelectNext);
    command(&mut state, Command::SelectNext);
    assert_eq!(
        state.picker.as_ref().map(|p| p.selected),
        Some(1),
        "stops at the end"
    );
    let effects = command(&mut state, Command::OpenEditor);
    assert_eq!(effects, [Effect::Session(SessionCommand::Use("b".into()))]);
    assert!(state.picker.is_none());
    assert!(state.status.is_none(), "'pick one' is answered");
    assert_eq!(state.server_args, ["--config", "mcp.json", "--server", "b"]);
    // The chosen server's connection is the first: no reconnect boundary.
    session(
        &mut state,
        SessionEvent::Connecting {
            transport: "http: b".into(),
        },
    );
    assert_eq!(state.session, 1);
    let mut quitting = state.clone();
    quitting.picker = Some(super::state::Picker::default());
    assert_eq!(command(&mut quitting, Command::Quit), [Effect::Quit]);
}

#[test]
fn a_question_opens_the_panel_whose_keys_edit_the_answer_and_enter_sends_it() {
    use crate::mcp::input::{Answer, InputRequest};
    let mut state = state();
    let request = InputRequest {
        key: Some("confirm".into()),
        method: "elicitation/create".into(),
        params: json!({"message": "Book?", "requestedSchema": {"type": "object", "properties": {
            "confirm": {"type": "boolean", "default": false}}}}),
    };
    session(
        &mut state,
        SessionEvent::Asked {
            number: 7,
            request: Box::new(request),
            proposed: Box::new(crate::mcp::input::Answer::Result(
                json!({"action": "decline"}),
            )),
        },
    );
    assert_eq!(
        state.key_mode(),
        super::super::input::keymap::Mode::Answering
    );
    // Space toggles the boolean: a key for the panel, not a command.
    let space = KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE);
    let action = crate::input::action_for(&crossterm::event::Event::Key(space), &state).unwrap();
    assert!(update(&mut state, action).is_empty());
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    let action = crate::input::action_for(&crossterm::event::Event::Key(enter), &state).unwrap();
    let effects = update(&mut state, action);
    assert_eq!(
        effects,
        [Effect::Session(SessionCommand::Answer {
            number: 7,
            answer: Answer::Result(json!({"action": "accept", "content": {"confirm": true}})),
        })]
    );
    assert!(state.asking.is_none());
    assert_eq!(
        state.key_mode(),
        super::super::input::keymap::Mode::Browsing
    );
}

#[test]
fn cancelling_the_call_dismisses_the_question_first() {
    use crate::mcp::input::{Answer, InputRequest};
    let mut state = state();
    let request = InputRequest {
        key: None,
        method: "elicitation/create".into(),
        params: json!({"mode": "url", "message": "Pay", "url": "https://pay.example.com/x"}),
    };
    session(
        &mut state,
        SessionEvent::Asked {
            number: 1,
            request: Box::new(request),
            proposed: Box::new(crate::mcp::input::Answer::Result(
                json!({"action": "decline"}),
            )),
        },
    );
    let effects = command(&mut state, Command::CancelCall);
    assert_eq!(
        effects[0],
        Effect::Session(SessionCommand::Answer {
            number: 1,
            answer: Answer::Result(json!({"action": "cancel"})),
        })
    );
    assert!(state.asking.is_none());
}

#[test]
fn t_declares_the_tasks_extension_from_now_on() {
    let mut state = state();
    let key = KeyEvent::new(KeyCode::Char('t'), KeyModifiers::NONE);
    let action = crate::input::action_for(&crossterm::event::Event::Key(key), &state).unwrap();
    assert_eq!(
        update(&mut state, action),
        [Effect::Session(SessionCommand::SetTasks(true))]
    );
    assert!(state.settings.tasks);
    assert_eq!(
        command(&mut state, Command::ToggleTasks),
        [Effect::Session(SessionCommand::SetTasks(false))]
    );
}

#[test]
fn a_tool_with_an_invalid_x_mcp_header_is_not_sent_until_i_allows_it() {
    let mut state = state();
    let mut listed = vec![Tool::from_value(&json!({
        "name": "bad_header",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "object", "x-mcp-header": "N"}}}
    }))];
    listed[0].rejected = listed[0].header_problem().map(Into::into);
    assert!(listed[0].rejected.is_some());
    session(&mut state, SessionEvent::ToolsListed(listed.into()));
    assert_eq!(state.tools.selected_tool().unwrap().name, "bad_header");
    let refused = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert!(refused.is_empty(), "{refused:?}");
    assert!(
        status(&state).contains("x-mcp-header is invalid"),
        "{}",
        status(&state)
    );
    press(&mut state, KeyCode::Char('I'), KeyModifiers::SHIFT);
    assert!(state.settings.allow_invalid_tool_headers);
    let sent = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert_eq!(sent_call(&sent).0, "bad_header");
}

/// The effect's call, as sent.
fn sent_call(effects: &[Effect]) -> (String, serde_json::Value) {
    match effects {
        [Effect::Session(SessionCommand::Call { tool, arguments })] => {
            (tool.clone(), arguments.clone())
        }
        other => panic!("not one call: {other:?}"),
    }
}

#[test]
fn the_audit_sends_its_cases_one_at_a_time_and_judges_only_its_own_calls() {
    let mut state = state();
    assert!(press(&mut state, KeyCode::Char('A'), KeyModifiers::SHIFT).is_empty());
    let cases = state.audit.as_ref().unwrap().plan.cases.clone();
    assert_eq!(cases.len(), 6);
    let (tool, arguments) = sent_call(&command(&mut state, Command::OpenEditor));
    assert_eq!(
        (tool.as_str(), &arguments),
        (cases[0].tool.as_str(), &cases[0].arguments)
    );
    assert!(
        command(&mut state, Command::SendRequest).is_empty(),
        "one at a time"
    );
    // A call that is not the case (another client's, say) is not judged as it.
    let other = call("book_flight", json!({"departureDate": "12/12/2099"})).text("booked");
    assert!(
        session(
            &mut state,
            SessionEvent::CallFinished(Box::new(Finished::unjudged(other)))
        )
        .is_empty()
    );
    assert!(state.audit.as_ref().unwrap().rows[0].is_none());
    // The case's own answer: judged, and the next case sent.
    let answer = call(&cases[0].tool, cases[0].arguments.clone()).error(-32602, "Invalid params");
    let (_, next) = sent_call(&session(
        &mut state,
        SessionEvent::CallFinished(Box::new(Finished::unjudged(answer))),
    ));
    assert_eq!(next, cases[1].arguments);
    let row = state.audit.as_ref().unwrap().rows[0].clone().unwrap();
    assert_eq!(row.judged.verdict, crate::audit::Verdict::ModelBlind);
    assert_eq!(row.call, 1, "the second call of the log");
    // Esc stops: the call in flight finishes as an ordinary call; nothing more is sent.
    command(&mut state, Command::Back);
    let answer = call(&cases[1].tool, cases[1].arguments.clone()).tool_error("must be a string");
    assert!(
        session(
            &mut state,
            SessionEvent::CallFinished(Box::new(Finished::unjudged(answer)))
        )
        .is_empty()
    );
    assert_eq!(
        state.audit.as_ref().unwrap().phase,
        super::audit::Phase::Done
    );
    command(&mut state, Command::Back);
    assert!(state.audit.is_none(), "a second Esc closes the table");
}

#[test]
fn the_audit_waits_for_a_pending_call_and_a_replay_never_starts_one() {
    let mut state = state();
    set_editor(&mut state, "{}");
    command(&mut state, Command::SendRequest);
    command(&mut state, Command::Audit);
    assert!(state.audit.is_none());
    assert!(status(&state).contains("still pending"));
    let mut replay = self::state();
    replay.replay = Some("s.jsonl".into());
    command(&mut replay, Command::Audit);
    assert!(replay.audit.is_none());
    assert_eq!(
        replay.status.as_ref().unwrap().text,
        "a replay sends nothing"
    );
}

/// Cycles `h` until the profile is `name`.
fn use_host(state: &mut AppState, name: &str) {
    for _ in 0..crate::model_view::hosts::builtins().len() {
        if state.settings.host().name == name {
            return;
        }
        press(state, KeyCode::Char('h'), KeyModifiers::NONE);
    }
    panic!("no profile {name}");
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
        },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    assert_eq!(
        (host.as_str(), tool.as_str()),
        ("claude-code", "book_flight")
    );
    assert_eq!(arguments, r#"{"departureDate":"12/12/2024"}"#);
    assert_eq!(server_args, &["--demo", "legacy"]);
    assert_eq!(
        state.model.as_ref().unwrap().captured,
        Some(super::state::Captured::Running)
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
    let Some(super::state::Captured::Done {
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
    let Some(super::state::Captured::Done {
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
