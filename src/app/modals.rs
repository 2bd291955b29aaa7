//! The modal commands: while open, the help, the server's question or the picker take the keys.

use serde_json::Value;

use super::action::{Command, Effect, SessionCommand};
use super::ask::{AskPanel, PanelKey};
use super::layout;
use super::state::{AppState, Link};
use super::status::inform;
use crate::mcp::input::Answer;

/// Where a command an overlay lets through goes: the panes' own handling (the router's), given
/// by the router so that an overlay does not reach back into it.
pub(super) type Panes = fn(&mut AppState, Command) -> Vec<Effect>;

/// The help is modal: it scrolls, closes, and lets only the global commands through.
// Every command is decided here, by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn help_command(state: &mut AppState, command: Command, to_panes: Panes) -> Vec<Effect> {
    let last = help_scroll_limit(state);
    let page = layout::help_popup(state.screen, state.settings.keys.help_entries().len())
        .height
        .saturating_sub(2)
        .max(1) as usize;
    match command {
        Command::Back | Command::ToggleHelp => state.show_help = false,
        Command::SelectNext => state.help_scroll = (state.help_scroll + 1).min(last),
        Command::SelectPrev => state.help_scroll = state.help_scroll.saturating_sub(1),
        Command::PageDown => state.help_scroll = (state.help_scroll + page).min(last),
        Command::PageUp => state.help_scroll = state.help_scroll.saturating_sub(page),
        Command::SelectFirst => state.help_scroll = 0,
        Command::SelectLast => state.help_scroll = last,
        Command::Quit | Command::SendRequest | Command::CancelCall => {
            state.show_help = false;
            return to_panes(state, command);
        }
        // The panes' commands wait for the help to close.
        Command::Accept
        | Command::Decline
        | Command::FocusNext
        | Command::FocusPrev
        | Command::OpenEditor
        | Command::NextPlaceholder
        | Command::PrevPlaceholder
        | Command::ToggleSchema
        | Command::ToggleConsole
        | Command::ToggleWrap
        | Command::ScrollLeft
        | Command::ScrollRight
        | Command::ToggleValidation
        | Command::ToggleForwarding
        | Command::ToggleInvalidHeaders
        | Command::ShowTools
        | Command::ShowResources
        | Command::ShowPrompts
        | Command::SaveContents
        | Command::ToggleSubscription
        | Command::AcceptCompletion
        | Command::OpenLink
        | Command::ToggleTasks
        | Command::CycleHost
        | Command::CopyRequest
        | Command::CopyResponse
        | Command::CopyModelView
        | Command::CopyCommandLine
        | Command::CaptureOnHost
        | Command::SaveCall
        | Command::SaveCallJson
        | Command::SaveLog
        | Command::Audit
        | Command::Reconnect => {}
    }
    Vec::new()
}

/// The help's last useful first row: its end at the bottom of the popup.
fn help_scroll_limit(state: &AppState) -> usize {
    let rows = state.settings.keys.help_entries().len();
    let shown = layout::help_popup(state.screen, rows)
        .height
        .saturating_sub(2) as usize;
    rows.saturating_sub(shown)
}

/// The server's question is modal: the keys edit the answer, and Enter, Ctrl-D or Esc send
/// it; help and quit get through, and cancelling the call dismisses the question first.
// Every command is decided here, by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn ask_command(state: &mut AppState, command: Command, to_panes: Panes) -> Vec<Effect> {
    let Some(panel) = state.asking.as_mut() else {
        return Vec::new();
    };
    let answer = match command {
        Command::SelectNext => {
            panel.key(PanelKey::Down);
            return Vec::new();
        }
        Command::SelectPrev => {
            panel.key(PanelKey::Up);
            return Vec::new();
        }
        Command::Accept | Command::SendRequest => panel.accept(),
        Command::Decline => panel.decline(),
        Command::Back => panel.cancel(),
        Command::CancelCall => {
            let mut effects = answer_panel(state, AskPanel::cancel);
            effects.extend(to_panes(state, command));
            return effects;
        }
        Command::Quit | Command::ToggleHelp => return to_panes(state, command),
        // The question must be answered first: the panes' commands wait.
        Command::FocusNext
        | Command::FocusPrev
        | Command::PageDown
        | Command::PageUp
        | Command::SelectFirst
        | Command::SelectLast
        | Command::OpenEditor
        | Command::NextPlaceholder
        | Command::PrevPlaceholder
        | Command::ToggleSchema
        | Command::ToggleConsole
        | Command::ToggleWrap
        | Command::ScrollLeft
        | Command::ScrollRight
        | Command::ToggleValidation
        | Command::ToggleForwarding
        | Command::ToggleInvalidHeaders
        | Command::ShowTools
        | Command::ShowResources
        | Command::ShowPrompts
        | Command::SaveContents
        | Command::ToggleSubscription
        | Command::AcceptCompletion
        | Command::OpenLink
        | Command::ToggleTasks
        | Command::CycleHost
        | Command::CopyRequest
        | Command::CopyResponse
        | Command::CopyModelView
        | Command::CopyCommandLine
        | Command::CaptureOnHost
        | Command::SaveCall
        | Command::SaveCallJson
        | Command::SaveLog
        | Command::Audit
        | Command::Reconnect => return Vec::new(),
    };
    let number = panel.number;
    state.asking = None;
    inform(state, format!("answered: {}", describe(&answer)));
    vec![Effect::Session(SessionCommand::Answer { number, answer })]
}

/// Sends `choose(panel)` as the answer to the question on screen.
fn answer_panel(state: &mut AppState, choose: impl Fn(&AskPanel) -> Answer) -> Vec<Effect> {
    let Some(panel) = state.asking.take() else {
        return Vec::new();
    };
    let answer = choose(&panel);
    vec![Effect::Session(SessionCommand::Answer {
        number: panel.number,
        answer,
    })]
}

/// An answer in a few words, for the status line.
fn describe(answer: &Answer) -> String {
    match answer {
        Answer::Result(result) => match result.get("action").and_then(Value::as_str) {
            Some(action) => action.to_owned(),
            None => "sent".to_owned(),
        },
        Answer::Refused(error) => format!("refused ({})", error.message),
    }
}

/// The panel's key for an editor-style input.
pub(super) fn panel_key(input: &tui_textarea::Input) -> Option<PanelKey> {
    use tui_textarea::Key;
    if input.ctrl || input.alt {
        return None;
    }
    Some(match input.key {
        Key::Up => PanelKey::Up,
        Key::Down => PanelKey::Down,
        Key::Left => PanelKey::Left,
        Key::Right => PanelKey::Right,
        Key::Char(' ') => PanelKey::Toggle,
        Key::Char(c) => PanelKey::Char(c),
        Key::Backspace => PanelKey::Backspace,
        _ => return None,
    })
}

/// The server picker is modal: it moves, picks with Enter, and lets help and quit through.
// Every command is decided here, by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn picker_command(
    state: &mut AppState,
    command: Command,
    to_panes: Panes,
) -> Vec<Effect> {
    let Some(picker) = state.picker.as_mut() else {
        return Vec::new();
    };
    let last = picker.choices.len().saturating_sub(1);
    match command {
        Command::SelectNext => picker.selected = (picker.selected + 1).min(last),
        Command::SelectPrev => picker.selected = picker.selected.saturating_sub(1),
        Command::SelectFirst | Command::PageUp => picker.selected = 0,
        Command::SelectLast | Command::PageDown => picker.selected = last,
        Command::OpenEditor | Command::SendRequest => {
            let Some((name, _)) = picker.choices.get(picker.selected) else {
                return Vec::new();
            };
            let name = name.clone();
            state.picker = None;
            // The first connection of this run: the refusal to guess a server was none.
            state.link = Link::Starting;
            // "Pick one" is answered.
            state.status = None;
            state
                .server_args
                .extend(["--server".to_owned(), name.clone()]);
            return vec![Effect::Session(SessionCommand::Use(name))];
        }
        Command::Quit | Command::ToggleHelp => return to_panes(state, command),
        // Nothing is connected yet: there is nothing else to act on.
        Command::Accept
        | Command::Decline
        | Command::Back
        | Command::FocusNext
        | Command::FocusPrev
        | Command::NextPlaceholder
        | Command::PrevPlaceholder
        | Command::ToggleSchema
        | Command::ToggleConsole
        | Command::ToggleWrap
        | Command::ScrollLeft
        | Command::ScrollRight
        | Command::ToggleValidation
        | Command::ToggleForwarding
        | Command::ToggleInvalidHeaders
        | Command::ShowTools
        | Command::ShowResources
        | Command::ShowPrompts
        | Command::SaveContents
        | Command::ToggleSubscription
        | Command::AcceptCompletion
        | Command::OpenLink
        | Command::ToggleTasks
        | Command::CycleHost
        | Command::CopyRequest
        | Command::CopyResponse
        | Command::CopyModelView
        | Command::CopyCommandLine
        | Command::CaptureOnHost
        | Command::SaveCall
        | Command::SaveCallJson
        | Command::SaveLog
        | Command::Audit
        | Command::Reconnect
        | Command::CancelCall => {}
    }
    Vec::new()
}
