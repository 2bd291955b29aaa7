//! The keymap: one table of bindings, used both to map keys and to list them in the help.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::action::Command;

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere, the editor included.
    Global,
    /// Outside the editor, where letters are commands.
    Browsing,
}

/// One key binding.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
    pub keys: &'static str,
    pub command: Command,
    pub scope: Scope,
    pub help: &'static str,
}

const fn bind(
    code: KeyCode,
    modifiers: KeyModifiers,
    keys: &'static str,
    command: Command,
    scope: Scope,
    help: &'static str,
) -> Binding {
    Binding {
        code,
        modifiers,
        keys,
        command,
        scope,
        help,
    }
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
use Scope::{Browsing, Global};

/// Every binding, in the order the help lists them.
pub const BINDINGS: &[Binding] = &[
    bind(
        KeyCode::Char('s'),
        CTRL,
        "Ctrl-S",
        Command::SendRequest,
        Global,
        "send the request (from anywhere)",
    ),
    bind(
        KeyCode::Enter,
        NONE,
        "Enter",
        Command::OpenEditor,
        Browsing,
        "edit arguments of the selected tool",
    ),
    bind(
        KeyCode::Esc,
        NONE,
        "Esc",
        Command::Back,
        Global,
        "leave the editor / close this help",
    ),
    bind(
        KeyCode::Tab,
        NONE,
        "Tab",
        Command::FocusNext,
        Global,
        "next pane",
    ),
    bind(
        KeyCode::BackTab,
        SHIFT,
        "Shift-Tab",
        Command::FocusPrev,
        Global,
        "previous pane",
    ),
    bind(
        KeyCode::Char('q'),
        NONE,
        "q",
        Command::Quit,
        Browsing,
        "quit",
    ),
    bind(
        KeyCode::Char('c'),
        CTRL,
        "Ctrl-C",
        Command::Quit,
        Global,
        "quit (always)",
    ),
    bind(
        KeyCode::Char('?'),
        NONE,
        "? / F1",
        Command::ToggleHelp,
        Browsing,
        "this help",
    ),
    bind(KeyCode::F(1), NONE, "", Command::ToggleHelp, Global, ""),
    bind(
        KeyCode::Char('v'),
        NONE,
        "v",
        Command::ToggleValidation,
        Browsing,
        "client-side validation on / off",
    ),
    bind(
        KeyCode::Char('m'),
        NONE,
        "m",
        Command::ToggleForwarding,
        Browsing,
        "MAY rule: forward protocol errors on / off",
    ),
    bind(
        KeyCode::Char('h'),
        NONE,
        "h",
        Command::CycleHost,
        Browsing,
        "next host profile",
    ),
    bind(
        KeyCode::Char('s'),
        NONE,
        "s",
        Command::ToggleSchema,
        Browsing,
        "show / hide the tool's input schema",
    ),
    bind(
        KeyCode::Char('`'),
        NONE,
        "`",
        Command::ToggleConsole,
        Browsing,
        "server console (stderr, log messages)",
    ),
    bind(
        KeyCode::Char('x'),
        NONE,
        "x / Ctrl-K",
        Command::CancelCall,
        Browsing,
        "cancel the pending call",
    ),
    bind(
        KeyCode::Char('k'),
        CTRL,
        "",
        Command::CancelCall,
        Global,
        "",
    ),
    bind(
        KeyCode::Char('r'),
        NONE,
        "r",
        Command::Reconnect,
        Browsing,
        "restart the server and reconnect",
    ),
    bind(
        KeyCode::Char('y'),
        NONE,
        "y",
        Command::CopyRequest,
        Browsing,
        "copy the request",
    ),
    bind(
        KeyCode::Char('Y'),
        SHIFT,
        "Y",
        Command::CopyResponse,
        Browsing,
        "copy the response",
    ),
    bind(
        KeyCode::Char('M'),
        SHIFT,
        "M",
        Command::CopyModelView,
        Browsing,
        "copy what the model sees",
    ),
    bind(
        KeyCode::Char('C'),
        SHIFT,
        "C",
        Command::CopyCommandLine,
        Browsing,
        "copy the `sightline call` command line",
    ),
    bind(
        KeyCode::Down,
        NONE,
        "↓ / j",
        Command::SelectNext,
        Browsing,
        "next row",
    ),
    bind(
        KeyCode::Char('j'),
        NONE,
        "",
        Command::SelectNext,
        Browsing,
        "",
    ),
    bind(
        KeyCode::Up,
        NONE,
        "↑ / k",
        Command::SelectPrev,
        Browsing,
        "previous row",
    ),
    bind(
        KeyCode::Char('k'),
        NONE,
        "",
        Command::SelectPrev,
        Browsing,
        "",
    ),
    bind(
        KeyCode::PageDown,
        NONE,
        "PgDn / PgUp",
        Command::PageDown,
        Browsing,
        "page down / up",
    ),
    bind(KeyCode::PageUp, NONE, "", Command::PageUp, Browsing, ""),
    bind(
        KeyCode::Home,
        NONE,
        "Home / g",
        Command::SelectFirst,
        Browsing,
        "first row",
    ),
    bind(
        KeyCode::Char('g'),
        NONE,
        "",
        Command::SelectFirst,
        Browsing,
        "",
    ),
    bind(
        KeyCode::End,
        NONE,
        "End / G",
        Command::SelectLast,
        Browsing,
        "last row; follow new entries",
    ),
    bind(
        KeyCode::Char('G'),
        SHIFT,
        "",
        Command::SelectLast,
        Browsing,
        "",
    ),
];

/// The command a key means; `editing` limits it to global bindings.
pub fn command_for(key: KeyEvent, editing: bool) -> Option<Command> {
    // Terminals report Shift with upper-case letters inconsistently; compare without it there.
    let modifiers = match key.code {
        KeyCode::Char(c) if c.is_ascii_uppercase() || !c.is_ascii_alphanumeric() => {
            key.modifiers - SHIFT
        }
        _ => key.modifiers,
    };
    BINDINGS
        .iter()
        .find(|b| {
            let wanted = match b.code {
                KeyCode::Char(c) if c.is_ascii_uppercase() || !c.is_ascii_alphanumeric() => {
                    b.modifiers - SHIFT
                }
                _ => b.modifiers,
            };
            b.code == key.code && wanted == modifiers && (b.scope == Global || !editing)
        })
        .map(|b| b.command)
}

/// The bindings the help lists (one row per command, aliases folded into `keys`).
pub fn help_rows() -> impl Iterator<Item = &'static Binding> {
    BINDINGS.iter().filter(|b| !b.keys.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn letters_are_commands_only_outside_the_editor() {
        assert_eq!(
            command_for(key(KeyCode::Char('q'), NONE), false),
            Some(Command::Quit)
        );
        assert_eq!(command_for(key(KeyCode::Char('q'), NONE), true), None);
        assert_eq!(
            command_for(key(KeyCode::Char('c'), CTRL), true),
            Some(Command::Quit)
        );
        assert_eq!(
            command_for(key(KeyCode::Char('s'), CTRL), true),
            Some(Command::SendRequest)
        );
        assert_eq!(
            command_for(key(KeyCode::Esc, NONE), true),
            Some(Command::Back)
        );
    }

    #[test]
    fn shifted_letters_match_with_or_without_the_shift_flag() {
        assert_eq!(
            command_for(key(KeyCode::Char('Y'), SHIFT), false),
            Some(Command::CopyResponse)
        );
        assert_eq!(
            command_for(key(KeyCode::Char('Y'), NONE), false),
            Some(Command::CopyResponse)
        );
        assert_eq!(
            command_for(key(KeyCode::Char('?'), SHIFT), false),
            Some(Command::ToggleHelp)
        );
    }

    #[test]
    fn every_command_is_reachable_and_listed() {
        use std::collections::HashSet;
        let listed: HashSet<Command> = help_rows().map(|b| b.command).collect();
        let bound: HashSet<Command> = BINDINGS.iter().map(|b| b.command).collect();
        // PageUp is listed on the PgDn row.
        assert_eq!(
            bound.difference(&listed).collect::<Vec<_>>(),
            [&Command::PageUp]
        );
        assert!(
            listed.contains(&Command::SendRequest) && listed.contains(&Command::CopyCommandLine)
        );
    }
}
