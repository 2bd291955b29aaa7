//! Keys as the live app gets them, through `input`: a `keys.toml`'s bindings, and keys that mean
//! nothing in a mode.

use super::*;
use crate::app::Keymap;

#[test]
fn a_rebound_key_drives_the_app_and_the_built_in_one_does_nothing() {
    let mut state = state();
    let (keys, warnings) = Keymap::from_toml(
        "[browsing]\nquit = \"Q\"\nopen_editor = \"e\"\n[editing]\nsend_request = \"f5\"\n",
        "keys.toml",
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    state.settings.keys = keys;
    assert!(press(&mut state, KeyCode::Char('q'), KeyModifiers::NONE).is_empty());
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    assert!(!state.editing, "Enter opens the editor no more");
    press(&mut state, KeyCode::Char('e'), KeyModifiers::NONE);
    assert!(state.editing);
    type_text(&mut state, "12/12/2024");
    let (tool, arguments) = sent_call(&press(&mut state, KeyCode::F(5), KeyModifiers::NONE));
    assert_eq!(
        (tool.as_str(), &arguments["departureDate"]),
        ("book_flight", &json!("12/12/2024"))
    );
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(
        press(&mut state, KeyCode::Char('Q'), KeyModifiers::SHIFT),
        [Effect::Quit]
    );
}

/// Keys no binding names and the editor does not type.
const MEANINGLESS: [KeyCode; 8] = [
    KeyCode::F(9),
    KeyCode::F(12),
    KeyCode::Insert,
    KeyCode::CapsLock,
    KeyCode::Null,
    KeyCode::Menu,
    KeyCode::PrintScreen,
    KeyCode::Pause,
];

#[test]
fn a_key_bound_to_nothing_changes_nothing_in_any_mode_or_overlay() {
    let browsing = state();
    let mut editing = state();
    press(&mut editing, KeyCode::Enter, KeyModifiers::NONE);
    let mut help = state();
    press(&mut help, KeyCode::Char('?'), KeyModifiers::NONE);
    let mut answering = state();
    super::overlays::ask_to_confirm(&mut answering, 1);
    let mut audit = state();
    press(&mut audit, KeyCode::Char('A'), KeyModifiers::SHIFT);
    let modes = vec![
        ("browsing", browsing, true),
        ("editing", editing, false),
        ("help", help, true),
        ("answering", answering, false),
        ("audit", audit, true),
    ];
    for (name, before, letters_mean_nothing) in modes {
        let mut keys: Vec<(KeyCode, KeyModifiers)> = MEANINGLESS
            .iter()
            .map(|&code| (code, KeyModifiers::NONE))
            .collect();
        keys.push((KeyCode::F(9), KeyModifiers::CONTROL | KeyModifiers::ALT));
        if letters_mean_nothing {
            keys.extend(
                [('z', KeyModifiers::NONE), ('§', KeyModifiers::NONE)]
                    .map(|(c, modifiers)| (KeyCode::Char(c), modifiers)),
            );
        }
        let mut state = before.clone();
        for (code, modifiers) in keys {
            let effects = press(&mut state, code, modifiers);
            assert!(effects.is_empty(), "{name}: {code:?} {effects:?}");
        }
        // All of it, compared whole (printed, the state runs to pages).
        assert!(
            format!("{state:?}") == format!("{before:?}"),
            "{name}: the keys changed the state"
        );
    }
}

#[test]
fn the_status_line_shows_the_first_keys_file_problem_and_counts_the_rest() {
    let mut state = state();
    state.show_warnings(&["keys.toml: [browsing] 'quti' is not a command".into()]);
    assert_eq!(
        status(&state),
        "keys.toml: [browsing] 'quti' is not a command"
    );
    state.show_warnings(&[
        "first problem".into(),
        "second problem".into(),
        "third problem".into(),
    ]);
    assert_eq!(
        status(&state),
        "first problem (+2 more: `sightline keys` lists them)"
    );
}
