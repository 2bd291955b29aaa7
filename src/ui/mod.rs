//! Rendering, pure: `&AppState` and a `&Theme` in, cells out. Never awaits; long lists draw only
//! their visible rows. Two things are read from text as they are drawn, for the visible rows
//! only: log rows kept as their small raw text (at most 4 KiB each) and the tool list's labels
//! (a tool's name and title, from its listed text). That is what keeps a flood of
//! notifications, or a listing of 200,000 tools, at little more than its bytes.

mod ask;
mod audit;
mod catalog;
mod chat;
mod composer;
mod console;
mod detail;
mod editor;
mod help;
mod log;
mod model;
mod prompts;
mod resources;
mod server_info;
mod servers;
mod shared;
mod shelves;
mod side_by_side;
mod skills;
mod status;
mod tools;

pub use shared::{class_meaning, fit};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, StatefulWidget, Widget};

use crate::app::layout;
use crate::app::state::{AppState, Focus};
use crate::app::workspace::Workspace;
use crate::app::{Mode, Overlay};
use crate::theme::{Meaning, Theme};

use ask::AskOverlay;
use audit::AuditOverlay;
use chat::ChatOverlay;
use composer::ComposerOverlay;
use console::ConsolePane;
use editor::EditorPane;
use help::HelpOverlay;
use log::LogPane;
use model::ModelViewPane;
use server_info::ServerInfoOverlay;
use shared::Sideways;
use status::StatusBar;

/// Draws the whole screen: each pane and overlay over its own slice of the state.
pub fn render(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    render_in(frame, area, state, theme);
}

/// Draws the workspace: with several servers, the server bar on the top row and the shown
/// server's screen below it (or the side-by-side comparison); one server is drawn as ever.
pub fn render_workspace(frame: &mut Frame, workspace: &Workspace, theme: &Theme) {
    let area = frame.area();
    let body = crate::app::workspace::body_of(area, workspace.has_bar());
    render_in(frame, body, workspace.shown(), theme);
    let buf = frame.buffer_mut();
    if workspace.has_bar() {
        let bar = Rect::new(area.x, area.y, area.width, 1);
        servers::ServerBar { workspace, theme }.render(bar, buf);
    }
    if workspace.comparing
        && let Some(comparison) = &workspace.comparison
    {
        // The status line stays: it says what was sent, and the selected server.
        let above_status = Rect::new(body.x, body.y, body.width, body.height.saturating_sub(1));
        side_by_side::SideBySide {
            workspace,
            comparison,
            theme,
        }
        .render(above_status, buf);
    }
}

/// Draws one server's screen in `area` (below the server bar when several are open).
pub fn render_in(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let buf = frame.buffer_mut();
    let panes = layout::areas(area);
    let focused = |pane: Focus| state.focus == pane;
    let mode = state.key_mode();
    let unconnected = shared::unconnected(&state.link, state.replay.is_some());
    Block::new()
        .style(theme.style(Meaning::Text))
        .render(area, buf);
    shelves::left_column(state, panes.tools, buf, theme);
    let mut cursor = None;
    EditorPane {
        editor: &state.editor,
        keys: &state.settings.keys,
        settings: &state.settings,
        unconnected: unconnected.as_deref(),
        // The composer takes the editing keys too, over the panes: the editor is not editing.
        editing: mode == Mode::Editing && !state.composer.open,
        completing: state.completes_form(),
        suggestions: state
            .completes_form()
            .then(|| state.catalog.completion.line())
            .flatten(),
        shelf: shelf_request(state),
        focused: focused(Focus::Editor),
        theme,
    }
    .render(panes.editor, buf, &mut cursor);
    if state.log.show_console {
        ConsolePane {
            log: &state.log,
            focused: focused(Focus::Log),
            theme,
        }
        .render(panes.log, buf);
    } else {
        LogPane {
            log: &state.log,
            by_model: &state.chat.made_calls(),
            focused: focused(Focus::Log),
            theme,
        }
        .render(panes.log, buf);
    }
    shelves::detail(state, panes.detail, buf, theme);
    ModelViewPane {
        host: &state.settings.host().name,
        model: state.model.as_ref(),
        calls: &state.calls,
        selected_call: state
            .log
            .selected
            .and_then(|i| state.log.lines.get(i)?.exchange),
        has_call: state.current_call().is_some(),
        read_back_failed: state.read_back.failed.is_some(),
        unconnected: unconnected.as_deref(),
        pending: state.pending.as_ref(),
        ticks: state.ticks,
        scroll: state.model_scroll,
        sideways: Sideways::of(state),
        focused: focused(Focus::Model),
        theme,
    }
    .render(panes.model, buf);
    status_bar(state, mode, theme).render(panes.status, buf);
    overlay(frame, area, state, theme, cursor);
}

/// The Request pane's title and words while Resources, Prompts or Skills are shown and no form is in
/// the editor: Enter there reads or fills the row, and a tool's draft would send nothing.
fn shelf_request(state: &AppState) -> Option<(&'static str, &'static str)> {
    use crate::app::catalog_state::Shelf;
    if state.catalog.form.is_some() {
        return None;
    }
    match state.catalog.shelf {
        Shelf::Tools => None,
        Shelf::Resources => Some((
            "Request · resources",
            "Enter on a resource reads it (Detail shows its contents); on a template, its \
             variables are filled here and Ctrl-S reads it. T shows the tools again.",
        )),
        Shelf::Prompts => Some((
            "Request · prompts",
            "Enter on a prompt fills its arguments here; Ctrl-S gets it (Detail shows its \
             messages). T shows the tools again.",
        )),
        Shelf::Skills => Some((
            "Request · skills",
            "Enter on a skill loads it as a host would: SKILL.md read and checked (size, \
             digest, frontmatter), then each of its files, nothing after one that fails; \
             Detail shows each file's mark and the text. No file is read before. T shows the \
             tools again.",
        )),
    }
}

/// The overlay on top, if any, over `area`; the terminal's cursor where typing goes (the
/// editor's `cursor` when no overlay takes the keys).
fn overlay(
    frame: &mut Frame,
    area: Rect,
    state: &AppState,
    theme: &Theme,
    cursor: Option<ratatui::layout::Position>,
) {
    let buf = frame.buffer_mut();
    match state.overlay() {
        Some(Overlay::Help) => HelpOverlay {
            keys: &state.settings.keys,
            scroll: state.help_scroll,
            theme,
        }
        .render(area, buf),
        Some(Overlay::Question(question)) => AskOverlay {
            panel: question,
            theme,
        }
        .render(area, buf),
        Some(Overlay::Audit(audit)) => AuditOverlay { audit, theme }.render(area, buf),
        Some(Overlay::Composer(composer)) => {
            let mut cursor = None;
            ComposerOverlay { composer, theme }.render(area, buf, &mut cursor);
            if let Some(cursor) = cursor {
                frame.set_cursor_position(cursor);
            }
        }
        Some(Overlay::ServerInfo(info)) => ServerInfoOverlay { info, theme }.render(area, buf),
        Some(Overlay::Chat(chat)) => {
            let mut cursor = None;
            ChatOverlay {
                chat,
                model: state
                    .settings
                    .chat
                    .as_ref()
                    .map(|model| model.label.as_str()),
                host: &state.settings.host().name,
                replay: state.replay.is_some(),
                theme,
            }
            .render(area, buf, &mut cursor);
            if let Some(cursor) = cursor {
                frame.set_cursor_position(cursor);
            }
        }
        None => {
            if let Some(cursor) = cursor {
                // The terminal's own cursor, where typing goes (the runtime makes it a blinking
                // bar).
                frame.set_cursor_position(cursor);
            }
        }
    }
}

/// The status line over the mode, the run's keys and settings, the pending call and the link.
fn status_bar<'a>(state: &'a AppState, mode: Mode, theme: &'a Theme) -> StatusBar<'a> {
    StatusBar {
        mode,
        chatting: matches!(state.overlay(), Some(Overlay::Chat(_))),
        keys: &state.settings.keys,
        replay: state.replay.is_some(),
        live: state.watched.live,
        pending_calls: state.pending_calls,
        pending: state.pending.as_ref(),
        ticks: state.ticks,
        status: state.status.as_ref(),
        settings: &state.settings,
        link: &state.link,
        transport: &state.transport,
        label: state.label.as_deref(),
        theme,
    }
}
