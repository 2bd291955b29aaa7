//! The keymap: one table of bindings, used both to map keys and to list them in the help.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::action::Command;

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere: browsing, editing and in the help.
    Global,
    /// Outside the editor, where letters are commands.
    Browsing,
    /// While editing the request, where letters are text: only chords and special keys.
    Editing,
    /// While the help is open.
    Help,
    /// While the server's question is on screen, where letters are the answer.
    Answering,
}

/// What the keys mean now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Browsing,
    Editing,
    Help,
    Answering,
}

impl Scope {
    /// Whether a binding of this scope applies in `mode`.
    pub fn applies(self, mode: Mode) -> bool {
        matches!(
            (self, mode),
            (Scope::Global, _)
                | (Scope::Browsing, Mode::Browsing)
                | (Scope::Editing, Mode::Editing)
                | (Scope::Help, Mode::Help)
                | (Scope::Answering, Mode::Answering)
        )
    }

    /// The heading of this scope's keys in the help.
    pub fn heading(self) -> &'static str {
        match self {
            Scope::Global => "Everywhere",
            Scope::Browsing => "Outside the editor",
            Scope::Editing => "While editing the request",
            Scope::Help => "In this help",
            Scope::Answering => "When the server asks (elicitation, sampling, roots)",
        }
    }
}

/// One key binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
const ALT: KeyModifiers = KeyModifiers::ALT;
use Scope::{Answering, Browsing, Editing, Global, Help};

/// Every binding, in the order the help lists them (grouped by scope there).
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    bind(KeyCode::Char('s'), CTRL, "Ctrl-S", Command::SendRequest, Global, "send the request"),
    bind(KeyCode::Char('c'), CTRL, "Ctrl-C", Command::Quit, Global, "quit"),
    bind(KeyCode::Char('k'), CTRL, "Ctrl-K", Command::CancelCall, Global, "cancel the pending call"),
    bind(KeyCode::F(1), NONE, "F1", Command::ToggleHelp, Global, "this help"),
    bind(KeyCode::Enter, NONE, "Enter", Command::OpenEditor, Browsing, "edit the request of the selected tool"),
    bind(KeyCode::Tab, NONE, "Tab", Command::FocusNext, Browsing, "next pane"),
    bind(KeyCode::BackTab, SHIFT, "Shift-Tab", Command::FocusPrev, Browsing, "previous pane"),
    bind(KeyCode::Down, NONE, "↓ / j", Command::SelectNext, Browsing, "next row (Tools: its draft shows in Request)"),
    bind(KeyCode::Char('j'), NONE, "", Command::SelectNext, Browsing, ""),
    bind(KeyCode::Up, NONE, "↑ / k", Command::SelectPrev, Browsing, "previous row"),
    bind(KeyCode::Char('k'), NONE, "", Command::SelectPrev, Browsing, ""),
    bind(KeyCode::PageDown, NONE, "PgDn / PgUp", Command::PageDown, Browsing, "page down / up"),
    bind(KeyCode::PageUp, NONE, "", Command::PageUp, Browsing, ""),
    bind(KeyCode::Home, NONE, "Home / g", Command::SelectFirst, Browsing, "first row"),
    bind(KeyCode::Char('g'), NONE, "", Command::SelectFirst, Browsing, ""),
    bind(KeyCode::End, NONE, "End / G", Command::SelectLast, Browsing, "last row; follow new entries"),
    bind(KeyCode::Char('G'), SHIFT, "", Command::SelectLast, Browsing, ""),
    bind(KeyCode::Left, NONE, "← / →", Command::ScrollLeft, Browsing, "scroll Detail / the model view sideways (wrap off)"),
    bind(KeyCode::Right, NONE, "", Command::ScrollRight, Browsing, ""),
    bind(KeyCode::Char('w'), NONE, "w", Command::ToggleWrap, Browsing, "wrap Detail and the model view on / off"),
    bind(KeyCode::Char('s'), NONE, "s", Command::ToggleSchema, Browsing, "the selected tool's description and schema, in full"),
    bind(KeyCode::Char('`'), NONE, "`", Command::ToggleConsole, Browsing, "server console (stderr, log messages)"),
    bind(KeyCode::Char('v'), NONE, "v / Alt-v", Command::ToggleValidation, Browsing, "client-side validation on / off"),
    bind(KeyCode::Char('m'), NONE, "m / Alt-m", Command::ToggleForwarding, Browsing, "MAY rule: forward protocol errors on / off"),
    bind(KeyCode::Char('h'), NONE, "h / Alt-h", Command::CycleHost, Browsing, "next host profile"),
    bind(KeyCode::Char('t'), NONE, "t", Command::ToggleTasks, Browsing, "tasks extension on / off (2026-07-28)"),
    bind(KeyCode::Char('I'), SHIFT, "I", Command::ToggleInvalidHeaders, Browsing, "call tools with an invalid x-mcp-header: on / off"),
    bind(KeyCode::Char('y'), NONE, "y", Command::CopyRequest, Browsing, "copy the request (OSC 52)"),
    bind(KeyCode::Char('Y'), SHIFT, "Y", Command::CopyResponse, Browsing, "copy the response"),
    bind(KeyCode::Char('M'), SHIFT, "M", Command::CopyModelView, Browsing, "copy what the model sees"),
    bind(KeyCode::Char('C'), SHIFT, "C", Command::CopyCommandLine, Browsing, "copy the `sightline call` command line"),
    bind(KeyCode::Char('H'), SHIFT, "H", Command::CaptureOnHost, Browsing, "re-run the call through the real host of this profile"),
    bind(KeyCode::Char('E'), SHIFT, "E", Command::SaveCall, Browsing, "save the selected call as a transcript (for replay)"),
    bind(KeyCode::Char('J'), SHIFT, "J", Command::SaveCallJson, Browsing, "save the selected call as JSON, with what the model sees"),
    bind(KeyCode::Char('L'), SHIFT, "L", Command::SaveLog, Browsing, "save the whole log as a transcript"),
    bind(KeyCode::Char('A'), SHIFT, "A", Command::Audit, Browsing, "audit the selected tool: invalid calls, and what the model could read"),
    bind(KeyCode::Char('x'), NONE, "x", Command::CancelCall, Browsing, "cancel the pending call"),
    bind(KeyCode::Char('r'), NONE, "r", Command::Reconnect, Browsing, "restart the server and reconnect"),
    bind(KeyCode::Char('?'), NONE, "?", Command::ToggleHelp, Browsing, "this help"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Browsing, "back to the tools"),
    bind(KeyCode::Char('q'), NONE, "q", Command::Quit, Browsing, "quit"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Editing, "stop editing (the draft is kept)"),
    bind(KeyCode::Tab, NONE, "Tab", Command::NextPlaceholder, Editing, "next value"),
    bind(KeyCode::BackTab, SHIFT, "Shift-Tab", Command::PrevPlaceholder, Editing, "previous value"),
    bind(KeyCode::Char('v'), ALT, "Alt-v", Command::ToggleValidation, Editing, "validation on / off"),
    bind(KeyCode::Char('m'), ALT, "Alt-m", Command::ToggleForwarding, Editing, "MAY rule on / off"),
    bind(KeyCode::Char('h'), ALT, "Alt-h", Command::CycleHost, Editing, "next host profile"),
    bind(KeyCode::Enter, NONE, "Enter", Command::Accept, Answering, "accept: send the answer as shown"),
    bind(KeyCode::Char('d'), CTRL, "Ctrl-D", Command::Decline, Answering, "decline"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Answering, "cancel (a dismissed question)"),
    bind(KeyCode::Down, NONE, "↓ / ↑  ← → Space", Command::SelectNext, Answering, "field · value · toggle; letters are typed"),
    bind(KeyCode::Up, NONE, "", Command::SelectPrev, Answering, ""),
    bind(KeyCode::Down, NONE, "↓ / ↑", Command::SelectNext, Help, "scroll"),
    bind(KeyCode::Up, NONE, "", Command::SelectPrev, Help, ""),
    bind(KeyCode::Char('j'), NONE, "", Command::SelectNext, Help, ""),
    bind(KeyCode::Char('k'), NONE, "", Command::SelectPrev, Help, ""),
    bind(KeyCode::PageDown, NONE, "PgDn / PgUp", Command::PageDown, Help, "page down / up"),
    bind(KeyCode::PageUp, NONE, "", Command::PageUp, Help, ""),
    bind(KeyCode::Home, NONE, "Home / End", Command::SelectFirst, Help, "top / end"),
    bind(KeyCode::End, NONE, "", Command::SelectLast, Help, ""),
    bind(KeyCode::Esc, NONE, "Esc / ?", Command::Back, Help, "close"),
    bind(KeyCode::Char('?'), NONE, "", Command::Back, Help, ""),
    bind(KeyCode::Char('q'), NONE, "", Command::Back, Help, ""),
];

/// The command a key means in `mode`.
pub fn command_for(key: KeyEvent, mode: Mode) -> Option<Command> {
    // Terminals report Shift with upper-case letters inconsistently; compare without it there.
    let loose = |code: KeyCode, modifiers: KeyModifiers| match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() || !c.is_ascii_alphanumeric() => {
            modifiers - SHIFT
        }
        _ => modifiers,
    };
    let modifiers = loose(key.code, key.modifiers);
    BINDINGS
        .iter()
        .find(|b| {
            b.code == key.code && loose(b.code, b.modifiers) == modifiers && b.scope.applies(mode)
        })
        .map(|b| b.command)
}

/// The bindings the help lists for `scope` (one row per command, aliases folded into `keys`).
pub fn help_rows(scope: Scope) -> impl Iterator<Item = &'static Binding> {
    BINDINGS
        .iter()
        .filter(move |b| b.scope == scope && !b.keys.is_empty())
}

/// The scopes, in the order the help lists them.
pub const SCOPES: [Scope; 5] = [
    Scope::Global,
    Scope::Browsing,
    Scope::Editing,
    Scope::Answering,
    Scope::Help,
];

/// One row of the help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelpEntry {
    Heading(&'static str),
    Key(&'static Binding),
    Note(&'static str),
    Blank,
}

/// The help, row by row: the keys of each scope under its heading, then how to send a call.
pub fn help_entries() -> Vec<HelpEntry> {
    let mut entries = vec![
        HelpEntry::Note("To send a call: select a tool, Enter, type over the value, Ctrl-S."),
        HelpEntry::Note("Tab moves to the next value; Esc stops editing (the draft is kept)."),
    ];
    for scope in SCOPES {
        entries.push(HelpEntry::Blank);
        entries.push(HelpEntry::Heading(scope.heading()));
        entries.extend(help_rows(scope).map(HelpEntry::Key));
    }
    entries.push(HelpEntry::Blank);
    entries.push(HelpEntry::Note(
        "The mouse focuses panes, selects rows and scrolls. Copies use OSC 52: in tmux,",
    ));
    entries.push(HelpEntry::Note(
        "`set -s set-clipboard on` lets them through.",
    ));
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
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
        let listed: HashSet<Command> = SCOPES
            .iter()
            .flat_map(|scope| help_rows(*scope))
            .map(|b| b.command)
            .collect();
        let bound: HashSet<Command> = BINDINGS.iter().map(|b| b.command).collect();
        // These are listed on the row of their pair (PgDn / PgUp, ← / →).
        let mut unlisted: Vec<_> = bound
            .difference(&listed)
            .map(|c| format!("{c:?}"))
            .collect();
        unlisted.sort();
        assert_eq!(unlisted, ["PageUp", "ScrollRight"]);
    }
}
