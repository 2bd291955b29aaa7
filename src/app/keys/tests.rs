//! The built-in bindings: what keys mean in each mode, and that the help lists them all.

use crossterm::event::{KeyCode, KeyModifiers};

use super::{Keymap, Mode, SCOPES};
use crate::app::action::Command;

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const ALT: KeyModifiers = KeyModifiers::ALT;

fn key(code: KeyCode, modifiers: KeyModifiers) -> (KeyCode, KeyModifiers) {
    (code, modifiers)
}

/// What the built-in bindings make of a key.
fn command_for((code, modifiers): (KeyCode, KeyModifiers), mode: Mode) -> Option<Command> {
    Keymap::default().command(code, modifiers, mode)
}

#[test]
fn letters_are_commands_only_outside_the_editor() {
    let q = key(KeyCode::Char('q'), NONE);
    assert_eq!(command_for(q, Mode::Browsing), Some(Command::Quit));
    assert_eq!(command_for(q, Mode::Editing), None);
    for letter in [
        'v', 'm', 'h', 'y', 'x', 'r', 's', 'w', '?', 'j', 'k', 'g', 'G', 'Y', 'M', 'C',
    ] {
        assert_eq!(
            command_for(key(KeyCode::Char(letter), NONE), Mode::Editing),
            None,
            "'{letter}' is text in the editor"
        );
    }
    for (chord, command) in [
        (key(KeyCode::Char('c'), CTRL), Command::Quit),
        (key(KeyCode::Char('s'), CTRL), Command::SendRequest),
        (key(KeyCode::Esc, NONE), Command::Back),
        (key(KeyCode::Tab, NONE), Command::NextPlaceholder),
        (key(KeyCode::Char('v'), ALT), Command::ToggleValidation),
    ] {
        assert_eq!(command_for(chord, Mode::Editing), Some(command));
    }
    assert_eq!(
        command_for(key(KeyCode::Tab, NONE), Mode::Browsing),
        Some(Command::FocusNext)
    );
}

#[test]
fn the_help_takes_only_its_own_keys() {
    assert_eq!(
        command_for(key(KeyCode::Char('q'), NONE), Mode::Help),
        Some(Command::Back)
    );
    assert_eq!(
        command_for(key(KeyCode::Down, NONE), Mode::Help),
        Some(Command::SelectNext)
    );
    assert_eq!(command_for(key(KeyCode::Char('v'), NONE), Mode::Help), None);
    assert_eq!(
        command_for(key(KeyCode::Char('c'), CTRL), Mode::Help),
        Some(Command::Quit)
    );
}

#[test]
fn shifted_letters_match_with_or_without_the_shift_flag() {
    assert_eq!(
        command_for(key(KeyCode::Char('Y'), SHIFT), Mode::Browsing),
        Some(Command::CopyResponse)
    );
    assert_eq!(
        command_for(key(KeyCode::Char('Y'), NONE), Mode::Browsing),
        Some(Command::CopyResponse)
    );
    assert_eq!(
        command_for(key(KeyCode::Char('?'), SHIFT), Mode::Browsing),
        Some(Command::ToggleHelp)
    );
}

#[test]
fn every_command_is_reachable_and_listed() {
    use std::collections::HashSet;
    let keys = Keymap::default();
    let listed: HashSet<Command> = SCOPES
        .iter()
        .flat_map(|scope| keys.help_rows(*scope))
        .map(|b| b.command)
        .collect();
    let bound: HashSet<Command> = keys.bindings().iter().map(|b| b.command).collect();
    // These are listed on the row of their pair (PgDn / PgUp, ← / →).
    let mut unlisted: Vec<_> = bound
        .difference(&listed)
        .map(|c| format!("{c:?}"))
        .collect();
    unlisted.sort();
    assert_eq!(unlisted, ["PageUp", "ScrollRight"]);
}
