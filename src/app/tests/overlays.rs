//! The overlays: help, the server's question and the audit panel.

use super::*;
use crate::app::action::{Edit, Move, ToServer};

#[test]
fn the_help_is_modal_and_quit_always_quits() {
    let mut state = state();
    command(&mut state, Command::Help);
    assert!(state.show_help);
    assert!(
        command(&mut state, Command::ToServer(ToServer::Reconnect)).is_empty(),
        "other commands wait for the help to close"
    );
    assert!(state.show_help, "only Esc or ? closes it");
    command(&mut state, Command::Move(Move::SelectLast));
    assert!(
        state.help_scroll > 0,
        "the help scrolls to its end at 120x40"
    );
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    assert!(!state.show_help);
    command(&mut state, Command::Help);
    assert_eq!(command(&mut state, Command::Quit), [Effect::Quit]);
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
    assert_eq!(state.key_mode(), crate::app::keys::Mode::Answering);
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
    assert_eq!(state.key_mode(), crate::app::keys::Mode::Browsing);
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
    let effects = command(&mut state, Command::ToServer(ToServer::Cancel));
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
fn the_audit_sends_its_cases_one_at_a_time_and_judges_only_its_own_calls() {
    let mut state = state();
    assert!(press(&mut state, KeyCode::Char('A'), KeyModifiers::SHIFT).is_empty());
    let cases = state.audit.as_ref().unwrap().plan.cases.clone();
    assert_eq!(cases.len(), 6);
    let (tool, arguments) = sent_call(&command(&mut state, Command::Edit(Edit::OpenEditor)));
    assert_eq!(
        (tool.as_str(), &arguments),
        (cases[0].tool.as_str(), &cases[0].arguments)
    );
    assert!(
        command(&mut state, Command::ToServer(ToServer::Request)).is_empty(),
        "one at a time"
    );
    // A call that is not the case (another client's, say) is not judged as it.
    let other = call("book_flight", json!({"departureDate": "12/12/2099"})).text("booked");
    assert!(
        session(
            &mut state,
            SessionEvent::CallFinished(Box::new(crate::mcp::verdict::Finished::unjudged(other)))
        )
        .is_empty()
    );
    assert!(state.audit.as_ref().unwrap().rows[0].is_none());
    // The case's own answer: judged, and the next case sent.
    let answer = call(&cases[0].tool, cases[0].arguments.clone()).error(-32602, "Invalid params");
    let (_, next) = sent_call(&session(
        &mut state,
        SessionEvent::CallFinished(Box::new(crate::mcp::verdict::Finished::unjudged(answer))),
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
            SessionEvent::CallFinished(Box::new(crate::mcp::verdict::Finished::unjudged(answer)))
        )
        .is_empty()
    );
    assert_eq!(
        state.audit.as_ref().unwrap().phase,
        crate::app::audit_panel::Phase::Done
    );
    command(&mut state, Command::Back);
    assert!(state.audit.is_none(), "a second Esc closes the table");
}

#[test]
fn the_audit_waits_for_a_pending_call_and_a_replay_never_starts_one() {
    let mut state = state();
    set_editor(&mut state, "{}");
    command(&mut state, Command::ToServer(ToServer::Request));
    command(&mut state, Command::ToServer(ToServer::Audit));
    assert!(state.audit.is_none());
    assert!(status(&state).contains("still pending"));
    let mut replay = self::state();
    replay.replay = Some("s.jsonl".into());
    command(&mut replay, Command::ToServer(ToServer::Audit));
    assert!(replay.audit.is_none());
    assert_eq!(
        replay.status.as_ref().unwrap().text,
        "a replay sends nothing"
    );
}

/// The server asks a yes/no question (a form of one boolean), as the session reports it.
pub(super) fn ask_to_confirm(state: &mut AppState, number: u64) {
    let request = crate::mcp::input::InputRequest {
        key: Some("confirm".into()),
        method: "elicitation/create".into(),
        params: json!({"message": "Book?", "requestedSchema": {"type": "object", "properties": {
            "confirm": {"type": "boolean", "default": false}}}}),
    };
    session(
        state,
        SessionEvent::Asked {
            number,
            request: Box::new(request),
            proposed: Box::new(crate::mcp::input::Answer::Result(
                json!({"action": "decline"}),
            )),
        },
    );
}

#[test]
fn one_overlay_is_on_top_and_it_alone_takes_the_keys() {
    use crate::app::Overlay;
    use crate::app::keys::Mode;
    let mut state = state();
    press(&mut state, KeyCode::Char('A'), KeyModifiers::SHIFT);
    assert!(matches!(state.overlay(), Some(Overlay::Audit(_))));
    ask_to_confirm(&mut state, 3);
    assert!(matches!(state.overlay(), Some(Overlay::Question(_))));
    press(&mut state, KeyCode::F(1), KeyModifiers::NONE);
    assert_eq!(
        (state.overlay(), state.key_mode()),
        (Some(Overlay::Help), Mode::Help)
    );
    // Esc closes the help only; the question below is still unanswered.
    assert!(press(&mut state, KeyCode::Esc, KeyModifiers::NONE).is_empty());
    assert_eq!(state.key_mode(), Mode::Answering);
    // Esc now answers the question (cancel); the audit is on top again, then Esc closes it.
    let effects = press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    assert!(
        matches!(
            &effects[..],
            [Effect::Session(SessionCommand::Answer { number: 3, .. })]
        ),
        "{effects:?}"
    );
    assert!(matches!(state.overlay(), Some(Overlay::Audit(_))));
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!((state.overlay(), state.key_mode()), (None, Mode::Browsing));
}

#[test]
fn a_click_behind_a_question_changes_nothing_and_a_click_closes_the_help() {
    let mut state = state();
    let panes = crate::app::layout::areas(state.screen);
    let on_third_tool = Action::Mouse(Mouse::Clicked {
        column: panes.tools.x + 3,
        row: panes.tools.y + 3,
    });
    ask_to_confirm(&mut state, 1);
    update(&mut state, on_third_tool.clone());
    update(
        &mut state,
        Action::Mouse(Mouse::ScrolledDown {
            column: panes.tools.x + 2,
            row: panes.tools.y + 2,
        }),
    );
    assert_eq!(
        state.tools.selected, 0,
        "the panes behind the panel stay as they were"
    );
    assert!(state.asking.is_some());
    state.asking = None;
    command(&mut state, Command::Help);
    update(&mut state, on_third_tool.clone());
    assert!(!state.show_help, "a click closes the help");
    assert_eq!(state.tools.selected, 0, "that click does nothing else");
    update(&mut state, on_third_tool);
    assert_eq!(state.tools.selected, 2);
}

/// Sent from the editor, a question came and was answered: the user is back browsing, so
/// the `q` they type next quits instead of landing in the draft.
#[test]
fn answering_a_question_sent_from_the_editor_returns_to_browsing() {
    for answer in [KeyCode::Enter, KeyCode::Esc] {
        let mut state = state();
        press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
        type_text(&mut state, "12/12/2024");
        let sent = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(sent.len(), 1);
        ask_to_confirm(&mut state, 1);
        press(&mut state, answer, KeyModifiers::NONE);
        assert!(state.asking.is_none());
        let draft = state.editor.text();
        assert_eq!(
            press(&mut state, KeyCode::Char('q'), KeyModifiers::NONE),
            [Effect::Quit],
            "{answer:?}"
        );
        assert_eq!(state.editor.text(), draft);
    }
}

/// The form breaks its schema (a required field empty, an email that is none): the first
/// Enter sends nothing and says why; the second sends the answer as it is, on purpose.
#[test]
fn a_form_that_breaks_its_schema_is_held_once_then_sent_anyway() {
    use crate::mcp::input::{Answer, InputRequest};
    let mut state = state();
    let request = InputRequest {
        key: None,
        method: "elicitation/create".into(),
        params: json!({"message": "Who?", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string"},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 18}}, "required": ["name"]}}),
    };
    session(
        &mut state,
        SessionEvent::Asked {
            number: 4,
            request: Box::new(request),
            proposed: Box::new(Answer::Result(json!({"action": "decline"}))),
        },
    );
    let panel = state.asking.as_ref().unwrap();
    assert_eq!(panel.problems, [(0, "required".to_owned())]);
    press(&mut state, KeyCode::Down, KeyModifiers::NONE);
    type_text(&mut state, "not-an-email");
    press(&mut state, KeyCode::Down, KeyModifiers::NONE);
    type_text(&mut state, "17");
    let problems = &state.asking.as_ref().unwrap().problems;
    assert_eq!(
        problems,
        &[
            (0, "required".to_owned()),
            (1, "not an email address".to_owned()),
            (2, "less than the minimum 18".to_owned())
        ]
    );
    assert!(
        press(&mut state, KeyCode::Enter, KeyModifiers::NONE).is_empty(),
        "held: the user is told first"
    );
    assert!(status(&state).contains("3 problems"), "{}", status(&state));
    assert!(state.asking.as_ref().unwrap().warned);
    // A change is a new answer: told again.
    type_text(&mut state, "0");
    assert!(press(&mut state, KeyCode::Enter, KeyModifiers::NONE).is_empty());
    let effects = press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        effects,
        [Effect::Session(SessionCommand::Answer {
            number: 4,
            answer: Answer::Result(json!({"action": "accept", "content": {
                "name": "", "email": "not-an-email", "age": 170}})),
        })],
        "sent anyway, exactly as shown"
    );
    assert!(status(&state).contains("anyway"), "{}", status(&state));
}
