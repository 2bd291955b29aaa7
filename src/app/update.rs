//! `update(state, action) -> effects`: the only place state changes. Synchronous, no I/O, no
//! clock; expensive formatting happens here once, never in rendering. This file routes each
//! action and command to the module that owns its transitions.

use super::action::{
    Action, Command, Edit, Effect, Lens, Move, Output, SessionCommand, Shelves, ToServer, View,
};
use super::audit::{audit_command, start_audit};
use super::catalog_state::Shelf;
use super::commands::{command_line, copy, copy_text, send};
use super::editor::{check_editor, jump_to_placeholder, show_editor_cursor};
use super::export::{Saving, save};
use super::keys::Mode;
use super::modals::{ask_command, help_command, panel_key};
use super::model_pane::{call_context, refresh_model};
use super::navigation::{cycle_focus, move_selection, on_mouse, open, page, select_last};
use super::overlay::Overlay;
use super::read_back::{call_read, frame_read, read_back_wanted};
use super::replayed::show_replayed_request;
use super::session_events::on_session;
use super::shelves::show_shelf;
use super::state::{AppState, Focus};
use super::status::{complain, inform};
use super::toggles::{
    cycle_host, scroll_sideways, toggle_forwarding, toggle_invalid_headers, toggle_tasks,
    toggle_validation, toggle_wrap,
};
use crate::analysis::analyze;
use crate::sanitize;

pub use super::navigation::keep_in_view;

/// Applies one action.
pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    let mut effects = apply(state, action);
    if state.replay.is_some() {
        show_replayed_request(state);
        effects.extend(read_back_wanted(state));
    }
    effects
}

fn apply(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::Command(command) => on_command(state, command),
        Action::EditorInput(input) => {
            match state.key_mode() {
                Mode::Answering => {
                    if let (Some(panel), Some(key)) = (state.asking.as_mut(), panel_key(&input)) {
                        panel.key(key);
                    }
                }
                Mode::Editing => {
                    if state
                        .overlay()
                        .is_some_and(|o| matches!(o, Overlay::Chat(_)))
                    {
                        return super::chat::typed(state, input);
                    }
                    if state.composer.open {
                        state.composer.textarea.input(input);
                    } else {
                        state.editor.textarea.input(input);
                        check_editor(state);
                        return super::completion::typed(state);
                    }
                }
                // Text typed over the help or the panes goes nowhere.
                Mode::Help | Mode::Browsing => {}
            }
            Vec::new()
        }
        Action::Session(event) => on_session(state, event),
        Action::Mouse(mouse) => {
            on_mouse(state, mouse);
            show_editor_cursor(state);
            Vec::new()
        }
        Action::Resized { width, height } => {
            state.screen = ratatui::layout::Rect::new(0, 0, width, height);
            super::navigation::fit_to_screen(state);
            Vec::new()
        }
        Action::Saved { path, result } => {
            let path = sanitize::text(&path).into_owned();
            match result {
                // Short enough for 80 columns: the name is what the user needs.
                // In a replay the REPLAY mark takes the room of the hint, which it makes plain.
                Ok(_) if state.replay.is_some() => inform(state, format!("saved {path}")),
                Ok(_) => inform(state, format!("saved {path}: `sightline replay` opens it")),
                Err(error) => complain(state, format!("could not save {path}: {error}")),
            }
            Vec::new()
        }
        Action::CaseSaved { path, result } => {
            let path = sanitize::text(&path).into_owned();
            match result {
                Ok(()) => inform(
                    state,
                    format!("case added to {path}: `sightline test` runs it"),
                ),
                Err(error) => complain(state, format!("could not add the case to {path}: {error}")),
            }
            Vec::new()
        }
        Action::BytesSaved { path, result } => {
            super::resources::saved(state, &path, result);
            Vec::new()
        }
        Action::Captured { call, host, result } => {
            let said = super::capture::finished(state, call, &host, result);
            refresh_model(state);
            inform(state, said);
            Vec::new()
        }
        Action::ModelAnswered { run, result } => super::chat::answered(state, run, result),
        Action::ModelsRecorded(turns) => {
            super::chat_recorded::recorded(state, turns);
            Vec::new()
        }
        Action::ModelStreamed { run, more } => {
            super::chat::streamed(state, run, &more);
            Vec::new()
        }
        Action::FrameRead { number, result } => {
            frame_read(state, number, result);
            Vec::new()
        }
        Action::CallRead { index, result } => {
            call_read(state, index, result);
            Vec::new()
        }
        Action::Tick => {
            state.ticks += 1;
            if state
                .status
                .as_ref()
                .is_some_and(|status| state.ticks >= status.since + status.lifetime())
            {
                state.status = None;
            }
            Vec::new()
        }
    }
}

fn on_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    let sends = matches!(
        command,
        Command::ToServer(
            ToServer::Request | ToServer::Reconnect | ToServer::Cancel | ToServer::Audit
        ) | Command::Lens(Lens::Tasks)
            | Command::Chat(super::action::Chat::Rerun)
    );
    if sends && state.replay.is_some() {
        // Short: the status line already says REPLAY, and 80 columns must hold it.
        complain(state, "a replay sends nothing".into());
        return Vec::new();
    }
    let effects = match state.overlay() {
        Some(Overlay::Help) => help_command(state, command, apply_command),
        Some(Overlay::Question(_)) => ask_command(state, command, apply_command),
        Some(Overlay::Audit(_)) => audit_command(state, command, apply_command),
        Some(Overlay::Composer(_)) => super::composer::command(state, command, apply_command),
        Some(Overlay::Chat(_)) => super::chat::command(state, command, apply_command),
        Some(Overlay::ServerInfo(_)) => super::server_info::command(state, command, apply_command),
        None => apply_command(state, command),
    };
    show_editor_cursor(state);
    effects
}

// Every command is decided here, group by group, and each group's handler decides each of its
// commands by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn apply_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    if let Some(effects) = super::shelves::intercept(state, command) {
        return effects;
    }
    match command {
        Command::Quit => vec![Effect::Quit],
        Command::Help => {
            state.show_help = true;
            state.help_scroll = 0;
            Vec::new()
        }
        Command::Back => {
            if state.editing {
                state.editing = false;
                inform(
                    state,
                    "stopped editing; the draft is kept (Enter edits again)".into(),
                );
            } else if state.focus == Focus::Editor {
                state.focus = Focus::Tools;
            }
            Vec::new()
        }
        Command::Move(step) => {
            on_move(state, step);
            Vec::new()
        }
        Command::View(view) => {
            on_view(state, view);
            Vec::new()
        }
        Command::Edit(edit) => on_edit(state, edit),
        Command::ToServer(to) => on_to_server(state, to),
        Command::Lens(lens) => on_lens(state, lens),
        Command::Output(output) => on_output(state, output),
        Command::Shelves(shelf) => on_shelf(state, shelf),
        // Only the question panel answers; elsewhere these keys mean nothing. The workspace
        // around the servers takes the server commands before any server sees them.
        Command::Question(_) | Command::Servers(_) => Vec::new(),
        Command::Chat(chat) => on_chat(state, chat),
    }
}

#[deny(clippy::wildcard_enum_match_arm)]
fn on_chat(state: &mut AppState, chat: super::action::Chat) -> Vec<Effect> {
    match chat {
        super::action::Chat::Open => {
            super::chat::open(state);
            Vec::new()
        }
        super::action::Chat::Rerun => super::chat::rerun(state),
    }
}

#[deny(clippy::wildcard_enum_match_arm)]
fn on_move(state: &mut AppState, step: Move) {
    match step {
        Move::FocusNext => cycle_focus(state, 1),
        Move::FocusPrev => cycle_focus(state, Focus::ORDER.len() - 1),
        Move::SelectNext => move_selection(state, 1, false),
        Move::SelectPrev => move_selection(state, 1, true),
        Move::PageDown => move_selection(state, page(state), false),
        Move::PageUp => move_selection(state, page(state), true),
        Move::SelectFirst => move_selection(state, usize::MAX, true),
        Move::SelectLast => select_last(state),
        Move::ScrollLeft => scroll_sideways(state, true),
        Move::ScrollRight => scroll_sideways(state, false),
    }
}

#[deny(clippy::wildcard_enum_match_arm)]
fn on_view(state: &mut AppState, view: View) {
    match view {
        View::Schema => {
            state.tools.show_schema = !state.tools.show_schema;
            state.tools.about_scroll = 0;
        }
        View::Console => state.log.show_console = !state.log.show_console,
        View::Wrap => toggle_wrap(state),
    }
}

#[deny(clippy::wildcard_enum_match_arm)]
fn on_edit(state: &mut AppState, edit: Edit) -> Vec<Effect> {
    match edit {
        Edit::OpenEditor => open(state),
        Edit::NextPlaceholder => jump_to_placeholder(state, false),
        Edit::PrevPlaceholder => jump_to_placeholder(state, true),
        Edit::OpenComposer => super::composer::open(state),
        Edit::AcceptCompletion => return super::completion::accept(state),
    }
    Vec::new()
}

#[deny(clippy::wildcard_enum_match_arm)]
fn on_to_server(state: &mut AppState, to: ToServer) -> Vec<Effect> {
    match to {
        ToServer::Request => return send(state),
        ToServer::Audit => start_audit(state),
        ToServer::CaptureOnHost => match super::capture::start(state) {
            Ok(effect) => {
                refresh_model(state);
                inform(
                    state,
                    format!("running the real {}…", state.settings.host().name),
                );
                return vec![effect];
            }
            Err(why) => complain(state, why),
        },
        ToServer::Reconnect => {
            inform(state, "reconnecting…".into());
            // One restart at a time: a press while the last one has not begun is that one.
            if state.reconnect_asked.is_some() {
                return Vec::new();
            }
            state.reconnect_asked = Some(state.ticks);
            return vec![Effect::Session(SessionCommand::Reconnect)];
        }
        ToServer::Ping => return super::composer::ping(state),
        ToServer::SetLogLevel => return super::composer::set_level(state),
        ToServer::Cancel => {
            if state.pending_calls == 0 {
                inform(state, "no call is pending".into());
                return Vec::new();
            }
            return vec![Effect::Session(SessionCommand::CancelCall)];
        }
        // The workspace around the servers takes it before any server sees it.
        ToServer::SideBySide => {}
    }
    Vec::new()
}

#[deny(clippy::wildcard_enum_match_arm)]
fn on_lens(state: &mut AppState, lens: Lens) -> Vec<Effect> {
    match lens {
        Lens::Tasks => return toggle_tasks(state),
        Lens::Validation => toggle_validation(state),
        Lens::Forwarding => toggle_forwarding(state),
        Lens::InvalidHeaders => toggle_invalid_headers(state),
        Lens::Host => cycle_host(state),
    }
    Vec::new()
}

#[deny(clippy::wildcard_enum_match_arm)]
fn on_output(state: &mut AppState, output: Output) -> Vec<Effect> {
    match output {
        Output::CopyRequest => copy(
            state,
            |call| Some(call.exchange.request.raw.to_string()),
            "request",
        ),
        Output::CopyResponse => copy(
            state,
            |call| call.exchange.response().map(|frame| frame.raw.to_string()),
            "response",
        ),
        Output::CopyModelView => {
            // The shown view is clipped; the copy is built whole, only when asked for.
            let text = state
                .current_call_index()
                .and_then(|index| state.whole_call(index))
                .map(|call| analyze(&call.exchange, &call_context(state)).view.text());
            copy_text(state, text, "model view")
        }
        Output::CopyCommandLine => {
            let line = command_line(state);
            copy_text(state, line, "command line")
        }
        Output::SaveLog => save(state, Saving::Log),
        Output::SaveCall => save(state, Saving::Call),
        Output::SaveCallJson => save(state, Saving::CallJson),
        Output::SaveCase => super::export::save_case(state),
        Output::SaveContents => super::resources::save_contents(state),
    }
}

#[deny(clippy::wildcard_enum_match_arm)]
fn on_shelf(state: &mut AppState, shelf: Shelves) -> Vec<Effect> {
    match shelf {
        Shelves::Tools => show_shelf(state, Shelf::Tools),
        Shelves::Resources => show_shelf(state, Shelf::Resources),
        Shelves::Prompts => show_shelf(state, Shelf::Prompts),
        Shelves::Skills => show_shelf(state, Shelf::Skills),
        Shelves::ServerInfo => {
            super::server_info::open(state);
            Vec::new()
        }
        Shelves::OpenLink => super::resources::open_link(state),
        Shelves::Subscription => super::subscriptions::toggle_subscription(state),
    }
}
