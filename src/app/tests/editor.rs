//! The request editor and sending: keys into the editor, what is sent and what is refused.

use super::*;
use crate::app::action::{Edit, Lens, Move, ToServer};

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
    command(&mut state, Command::Move(Move::SelectNext));
    command(&mut state, Command::Edit(Edit::OpenEditor));
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
    command(&mut state, Command::Edit(Edit::OpenEditor));
    type_text(&mut state, "x");
    assert_ne!(state.editor.text(), before);
}

#[test]
fn send_sends_exactly_what_was_typed_even_when_it_is_not_an_object() {
    let mut state = state();
    set_editor(&mut state, "\"12/12/2024\"");
    let effects = command(&mut state, Command::ToServer(ToServer::Request));
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
    let effects = command(&mut state, Command::ToServer(ToServer::Request));
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
    command(&mut state, Command::Edit(Edit::OpenEditor));
    set_editor(&mut state, "{\"departureDate\": 5}");
    type_text(&mut state, " ");
    assert!(
        state.editor.problems.is_empty(),
        "off: send exactly what I typed"
    );
    command(&mut state, Command::Back);
    command(&mut state, Command::Lens(Lens::Validation));
    assert!(
        state
            .editor
            .problems
            .iter()
            .any(|p| p.contains("departureDate") && p.contains("string")),
        "{:?}",
        state.editor.problems
    );
    let effects = command(&mut state, Command::ToServer(ToServer::Request));
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
    assert!(command(&mut state, Command::ToServer(ToServer::Request)).is_empty());
    assert_eq!(state.link, Link::Disconnected);
}

#[test]
fn a_replay_sends_nothing_whatever_the_key() {
    let mut state = state();
    state.replay = Some("s.jsonl".into());
    for key in [
        Command::ToServer(ToServer::Request),
        Command::ToServer(ToServer::Reconnect),
        Command::ToServer(ToServer::Cancel),
        Command::Lens(Lens::Tasks),
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
fn cancel_reaches_the_session_only_when_a_call_is_pending() {
    let mut state = state();
    assert!(command(&mut state, Command::ToServer(ToServer::Cancel)).is_empty());
    command(&mut state, Command::ToServer(ToServer::Request));
    assert_eq!(
        command(&mut state, Command::ToServer(ToServer::Cancel)),
        [Effect::Session(SessionCommand::CancelCall)]
    );
}

#[test]
fn one_call_at_a_time() {
    let mut state = state();
    set_editor(&mut state, "{}");
    assert_eq!(
        command(&mut state, Command::ToServer(ToServer::Request)).len(),
        1
    );
    assert!(command(&mut state, Command::ToServer(ToServer::Request)).is_empty());
    assert!(status(&state).contains("still pending"));
}

#[test]
fn a_hostile_schema_reaches_the_editor_escaped() {
    let mut state = state();
    let raw = json!({"name": "evil", "inputSchema": {"type": "object", "properties": {"\u{9b}2J\u{202e}x": {"type": "string", "description": "\u{1b}]0;pwned\u{7}"}}}});
    session(
        &mut state,
        SessionEvent::ToolsListed(std::sync::Arc::new(vec![Tool::from_value(&raw)].into())),
    );
    command(&mut state, Command::Edit(Edit::OpenEditor));
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
        command(&mut state, Command::Lens(Lens::Tasks)),
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
    session(
        &mut state,
        SessionEvent::ToolsListed(std::sync::Arc::new(listed.into())),
    );
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
