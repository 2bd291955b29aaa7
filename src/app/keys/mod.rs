//! Key bindings as data: one table per run (the built-in one, rebound by `keys.toml`), used both
//! to map keys and to list them in the help. Pure: `input` turns the terminal's events into
//! keys, and the file is read elsewhere.

mod config;
mod defaults;
pub mod names;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use crossterm::event::{KeyCode, KeyModifiers};

use super::action::Command;

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

    /// The scope's section in `keys.toml`.
    pub fn section(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Browsing => "browsing",
            Scope::Editing => "editing",
            Scope::Help => "help",
            Scope::Answering => "answering",
        }
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
    /// How the help names this row's keys; empty for an alias listed on the row before it.
    pub keys: Cow<'static, str>,
    pub command: Command,
    pub scope: Scope,
    pub help: &'static str,
    /// Another scope whose keys for this command the label names too (`v / Alt-v` names
    /// the editor's Alt-v): rebinding the command there rewrites this label as well.
    pub also: Option<Scope>,
}

/// The scopes, in the order the help lists them.
pub const SCOPES: [Scope; 5] = [
    Scope::Global,
    Scope::Browsing,
    Scope::Editing,
    Scope::Answering,
    Scope::Help,
];

/// The four classes every exchange ends in, and the finding mark, as the help explains them.
const LEGEND: [HelpEntry<'static>; 5] = {
    use crate::classify::Class;
    [
        HelpEntry::Class(Class::Success, "a result, isError absent or false"),
        HelpEntry::Class(
            Class::ToolError,
            "a result with isError: true; the model reads why",
        ),
        HelpEntry::Class(
            Class::ProtocolError,
            "a JSON-RPC error, code named; not forwarded by default",
        ),
        HelpEntry::Class(
            Class::TransportFailure,
            "no usable reply: exit, garbled, timeout, cancelled by you",
        ),
        HelpEntry::Flag("a finding applies; the model pane says which and why"),
    ]
};

/// One row of the help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelpEntry<'a> {
    Heading(&'static str),
    Key(&'a Binding),
    Note(&'static str),
    /// A class of outcome, drawn in its colour, and what it means.
    Class(crate::classify::Class, &'static str),
    /// The finding mark, drawn as the log draws it, and what it means.
    Flag(&'static str),
    Blank,
}

/// The bindings of this run, in the order the help lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

impl Default for Keymap {
    /// The built-in bindings.
    fn default() -> Self {
        Self {
            bindings: defaults::DEFAULTS.to_vec(),
        }
    }
}

impl Keymap {
    /// Every binding, in the help's order.
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The command a key means in `mode`. The mode's own bindings come before the global
    /// ones, so that `keys.toml` can give a global key another meaning in one mode.
    pub fn command(&self, code: KeyCode, modifiers: KeyModifiers, mode: Mode) -> Option<Command> {
        let bound = |b: &&Binding| same((b.code, b.modifiers), (code, modifiers));
        let own = self
            .bindings
            .iter()
            .filter(bound)
            .find(|b| b.scope != Scope::Global && b.scope.applies(mode));
        own.or_else(|| {
            self.bindings
                .iter()
                .filter(bound)
                .find(|b| b.scope == Scope::Global)
        })
        .map(|b| b.command)
    }

    /// The name of the first key that means `command` in `mode` (the mode's own, else a
    /// global one), for hints such as "Esc closes".
    pub fn key_for(&self, command: Command, mode: Mode) -> Option<String> {
        let means = |b: &&Binding| b.command == command && b.scope.applies(mode);
        let own = self
            .bindings
            .iter()
            .filter(means)
            .find(|b| b.scope != Scope::Global);
        own.or_else(|| self.bindings.iter().find(means))
            .map(|b| names::name(b.code, b.modifiers))
    }

    /// The bindings the help lists for `scope` (one row per command, aliases folded into `keys`).
    pub fn help_rows(&self, scope: Scope) -> impl Iterator<Item = &Binding> {
        self.bindings
            .iter()
            .filter(move |b| b.scope == scope && !b.keys.is_empty())
    }

    /// The help, row by row: the keys of each scope under its heading, then how to send a call.
    pub fn help_entries(&self) -> Vec<HelpEntry<'_>> {
        let mut entries = vec![
            HelpEntry::Note("To send a call: select a tool, Enter, type over the value, Ctrl-S."),
            HelpEntry::Note("Tab moves to the next value; Esc stops editing (the draft is kept)."),
        ];
        for scope in SCOPES {
            entries.push(HelpEntry::Blank);
            entries.push(HelpEntry::Heading(scope.heading()));
            entries.extend(self.help_rows(scope).map(HelpEntry::Key));
        }
        entries.push(HelpEntry::Blank);
        entries.push(HelpEntry::Heading("What the log's words and colours mean"));
        entries.extend(LEGEND);
        entries.push(HelpEntry::Blank);
        entries.push(HelpEntry::Note(
            "The mouse focuses panes, selects rows, scrolls, and picks a server in the bar.",
        ));
        entries.push(HelpEntry::Note(
            "Copies use OSC 52: in tmux, `set -s set-clipboard on` lets them through.",
        ));
        entries
    }
}

/// Whether two keys are the same key as the terminal reports it.
fn same(a: (KeyCode, KeyModifiers), b: (KeyCode, KeyModifiers)) -> bool {
    a.0 == b.0 && loose(a.0, a.1) == loose(b.0, b.1)
}

/// The modifiers a key is matched with. Terminals report Shift with upper-case letters and
/// symbols inconsistently, so it is left out there.
fn loose(code: KeyCode, modifiers: KeyModifiers) -> KeyModifiers {
    match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() || !c.is_ascii_alphanumeric() => {
            modifiers - KeyModifiers::SHIFT
        }
        _ => modifiers,
    }
}
