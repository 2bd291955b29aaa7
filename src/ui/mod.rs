//! Rendering, pure: `&AppState` and a `&Theme` in, cells out. Never awaits; long lists draw only
//! their visible rows. Two things are read from text as they are drawn, for the visible rows
//! only: log rows kept as their small raw text (at most 4 KiB each) and the tool list's labels
//! (a tool's name and title, from its listed text). That is what keeps a flood of
//! notifications, or a listing of 200,000 tools, at little more than its bytes.

mod ask;
mod audit;
mod catalog;
mod console;
mod detail;
mod editor;
mod help;
mod log;
mod model;
mod picker;
mod prompts;
mod resources;
mod shared;
mod shelves;
mod status;
mod tools;

pub use shared::{class_meaning, fit};

use ratatui::Frame;
use ratatui::widgets::{Block, StatefulWidget, Widget};

use crate::app::layout;
use crate::app::state::{AppState, Focus};
use crate::app::{Mode, Overlay};
use crate::theme::{Meaning, Theme};

use ask::AskOverlay;
use audit::AuditOverlay;
use console::ConsolePane;
use editor::EditorPane;
use help::HelpOverlay;
use log::LogPane;
use model::ModelViewPane;
use picker::PickerOverlay;
use shared::Sideways;
use status::StatusBar;

/// Draws the whole screen: each pane and overlay over its own slice of the state.
pub fn render(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    let buf = frame.buffer_mut();
    let panes = layout::areas(area);
    let focused = |pane: Focus| state.focus == pane;
    let mode = state.key_mode();
    Block::new()
        .style(theme.style(Meaning::Text))
        .render(area, buf);
    shelves::left_column(state, panes.tools, buf, theme);
    let mut cursor = None;
    EditorPane {
        editor: &state.editor,
        keys: &state.settings.keys,
        settings: &state.settings,
        editing: mode == Mode::Editing,
        completing: state.completes_form(),
        suggestions: state
            .completes_form()
            .then(|| state.catalog.completion.line())
            .flatten(),
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
        scroll: state.model_scroll,
        sideways: Sideways::of(state),
        focused: focused(Focus::Model),
        theme,
    }
    .render(panes.model, buf);
    StatusBar {
        mode,
        keys: &state.settings.keys,
        replay: state.replay.is_some(),
        live: state.watched.live,
        pending_calls: state.pending_calls,
        status: state.status.as_ref(),
        settings: &state.settings,
        link: &state.link,
        transport: &state.transport,
        theme,
    }
    .render(panes.status, buf);
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
        Some(Overlay::Picker(picker)) => PickerOverlay { picker, theme }.render(area, buf),
        None => {
            if let Some(cursor) = cursor {
                // The terminal's own cursor, where typing goes (the runtime makes it a blinking
                // bar).
                frame.set_cursor_position(cursor);
            }
        }
    }
}
