//! The modal commands: while open, the help or the server's question take the keys.

use serde_json::Value;

use super::action::{Command, Effect, Move, Question, SessionCommand, ToServer, any_group};
use super::ask::{AskPanel, PanelKey};
use super::layout;
use super::state::AppState;
use super::status::{complain, inform};
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
        Command::Back | Command::Help => state.show_help = false,
        Command::Move(step) => match step {
            Move::SelectNext => state.help_scroll = (state.help_scroll + 1).min(last),
            Move::SelectPrev => state.help_scroll = state.help_scroll.saturating_sub(1),
            Move::PageDown => state.help_scroll = (state.help_scroll + page).min(last),
            Move::PageUp => state.help_scroll = state.help_scroll.saturating_sub(page),
            Move::SelectFirst => state.help_scroll = 0,
            Move::SelectLast => state.help_scroll = last,
            Move::FocusNext | Move::FocusPrev | Move::ScrollLeft | Move::ScrollRight => {}
        },
        Command::Quit | Command::ToServer(ToServer::Request | ToServer::Cancel) => {
            state.show_help = false;
            return to_panes(state, command);
        }
        // The panes' commands wait for the help to close. (Its scrolling took every `Move`.)
        #[allow(unreachable_patterns)]
        any_group!() => {}
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
        Command::Move(Move::SelectNext) => {
            panel.key(PanelKey::Down);
            return Vec::new();
        }
        Command::Move(Move::SelectPrev) => {
            panel.key(PanelKey::Up);
            return Vec::new();
        }
        Command::Question(Question::Accept) | Command::ToServer(ToServer::Request)
            if panel.holds_back() =>
        {
            // Said once, beside the fields and here; the same key again sends it as it is,
            // since what a server does with a bad answer is worth seeing too.
            panel.warned = true;
            let count = panel.problems.len();
            let plural = if count == 1 { "" } else { "s" };
            complain(
                state,
                format!("not sent: {count} problem{plural} in the form; Enter again sends anyway"),
            );
            return Vec::new();
        }
        Command::Question(Question::Accept) | Command::ToServer(ToServer::Request) => {
            panel.accept()
        }
        Command::Question(Question::Decline) => panel.decline(),
        Command::Back => panel.cancel(),
        Command::ToServer(ToServer::Cancel) => {
            let mut effects = answer_panel(state, AskPanel::cancel);
            effects.extend(to_panes(state, command));
            return effects;
        }
        Command::Quit | Command::Help => return to_panes(state, command),
        // The question must be answered first: the panes' commands wait. (The panel took
        // every `Question`.)
        #[allow(unreachable_patterns)]
        any_group!() => return Vec::new(),
    };
    let number = panel.number;
    let anyway = match (&answer, panel.problems.len()) {
        (Answer::Result(result), count @ 1..)
            if result.get("action").and_then(Value::as_str) == Some("accept") =>
        {
            let plural = if count == 1 { "" } else { "s" };
            format!(" anyway, {count} problem{plural}")
        }
        _ => String::new(),
    };
    close_panel(state);
    inform(state, format!("answered: {}{anyway}", describe(&answer)));
    vec![Effect::Session(SessionCommand::Answer { number, answer })]
}

/// Sends `choose(panel)` as the answer to the question on screen.
fn answer_panel(state: &mut AppState, choose: impl Fn(&AskPanel) -> Answer) -> Vec<Effect> {
    let Some(panel) = close_panel(state) else {
        return Vec::new();
    };
    let answer = choose(&panel);
    vec![Effect::Session(SessionCommand::Answer {
        number: panel.number,
        answer,
    })]
}

/// Takes the question off the screen. The user's attention left the editor for the panel, so
/// they come back browsing: a `q` typed next quits rather than landing in the draft (a send
/// without a question keeps editing, so that the next try is a few keys away).
fn close_panel(state: &mut AppState) -> Option<AskPanel> {
    state.editing = false;
    state.asking.take()
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
