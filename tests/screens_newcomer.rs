//! Screens a newcomer met, at 120×40 and 80×24: a replayed call's Request pane, a call saved with `J` opened as its transcript, a date typed at 80×24.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use common::{Session, screen};
use sightline::app::action::Output;
use sightline::app::{Action, update};
use sightline::theme::Theme;

const SIZES: [(u16, u16); 2] = [(120, 40), (80, 24)];

/// The replay of `path` as the TUI has it: the events in their order, the state a replay's.
fn replayed(width: u16, height: u16, path: &str) -> Session {
    let mut session = Session::new(width, height);
    session.state.replay = Some(path.to_owned());
    for event in sightline::recording::open(path).unwrap() {
        update(&mut session.state, Action::Session(event.unwrap()));
    }
    session
}

#[test]
fn a_replayed_call_shows_what_it_sent_in_the_request_pane() {
    let path = format!(
        "{}/tests/fixtures/legacy_protocol_error.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    for (width, height) in SIZES {
        let session = replayed(width, height, &path);
        insta::assert_snapshot!(
            format!("replayed_request_{width}x{height}"),
            screen(&session.state, &Theme::fallback())
        );
    }
}

#[test]
fn a_call_saved_with_j_opens_as_its_transcript() {
    let fixture = format!(
        "{}/tests/fixtures/legacy_protocol_error.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut live = replayed(120, 40, &fixture);
    let effects = update(
        &mut live.state,
        Action::Command(sightline::app::action::Command::Output(
            Output::SaveCallJson,
        )),
    );
    let [sightline::app::Effect::Save { text, .. }] = &effects[..] else {
        panic!("{effects:?}");
    };
    let path = std::env::temp_dir().join(format!(
        "sightline-book_flight-3-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap().to_owned();
    for (width, height) in SIZES {
        let session = replayed(width, height, &path);
        // The file's name and time vary by run: the note's row is checked, not snapshotted.
        let shown = screen(&session.state, &Theme::fallback());
        assert!(shown.contains("⚑ ← #3 protocol error"), "{shown}");
        assert!(shown.contains(r#""departureDate": "12/12/2024"#), "{shown}");
    }
    std::fs::remove_file(&path).unwrap();
}

/// At 80×24 the last tool selected (the list scrolled) and the editor's cursor on its last line
/// (the text scrolled); the terminal grows to 120×40: the list shows from its first tool again,
/// with no blank row beside "↑ 1 above", and the Request pane from its `{`.
#[test]
fn after_the_terminal_grows_the_lists_and_the_editor_show_from_the_top() {
    use sightline::app::action::{Command, Edit, Move};
    let mut session = common::Session::new(80, 24);
    session.connected(
        sightline::mcp::era::Era::Legacy,
        "2025-11-25",
        "sightline-demo",
    );
    session.command(Command::Move(Move::SelectLast));
    session.command(Command::Edit(Edit::OpenEditor));
    let long = format!(
        "{{\n{}\n}}",
        (0..6)
            .map(|n| format!("  \"field{n}\": {n},"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    session.state.editor.textarea =
        tui_textarea::TextArea::new(long.lines().map(str::to_owned).collect());
    session
        .state
        .editor
        .textarea
        .move_cursor(tui_textarea::CursorMove::Bottom);
    let small = screen(&session.state, &Theme::fallback());
    assert!(
        small.contains("above"),
        "the list is scrolled at 80x24:\n{small}"
    );
    update(
        &mut session.state,
        Action::Resized {
            width: 120,
            height: 40,
        },
    );
    insta::assert_snapshot!(
        "grown_from_80x24_to_120x40",
        screen(&session.state, &Theme::fallback())
    );
}

/// At 80×24 a date typed into `book_flight`'s request stays on its line: the editor wraps at
/// every word bound (a date's slashes, its closing quote), so the pane must be wide enough.
#[test]
fn a_typed_date_is_not_broken_across_lines_at_80x24() {
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    use sightline::app::action::{Command, Edit};
    let mut session = Session::new(80, 24);
    session.connected(
        sightline::mcp::era::Era::Legacy,
        "2025-11-25",
        "sightline-demo",
    );
    session.command(Command::Edit(Edit::OpenEditor));
    for c in "12/12/2024".chars() {
        let event = Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        let action = sightline::input::action_for(&event, &session.state).unwrap();
        update(&mut session.state, action);
    }
    let shown = screen(&session.state, &Theme::fallback());
    assert!(
        shown.contains(r#"  "departureDate": "12/12/2024","#),
        "the line is whole:\n{shown}"
    );
}
