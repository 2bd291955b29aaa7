//! Rendering, pure: `&AppState` and a `&Theme` in, cells out. Never awaits; long lists draw only
//! their visible rows. Two things are read from text as they are drawn, for the visible rows
//! only: log rows kept as their small raw text (at most 4 KiB each) and the tool list's labels
//! (a tool's name and title, from its listed text). That is what keeps a flood of
//! notifications, or a listing of 200,000 tools, at little more than its bytes.

mod ask;
mod audit;
mod composer;
mod console;
mod detail;
mod editor;
mod help;
mod log;
mod model;
mod picker;
mod server_info;
mod shared;
mod status;
mod tools;

pub use shared::{class_meaning, fit};

use ratatui::Frame;
use ratatui::layout::Position;
use ratatui::widgets::{Block, StatefulWidget, Widget};

use crate::app::layout;
use crate::app::state::{AppState, Focus};
use crate::app::{Mode, Overlay};
use crate::theme::{Meaning, Theme};

use ask::AskOverlay;
use audit::AuditOverlay;
use composer::ComposerOverlay;
use console::ConsolePane;
use detail::DetailPane;
use editor::EditorPane;
use help::HelpOverlay;
use log::LogPane;
use model::ModelViewPane;
use picker::PickerOverlay;
use server_info::ServerInfoOverlay;
use shared::Sideways;
use status::StatusBar;
use tools::ToolsPane;

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
    ToolsPane {
        tools: &state.tools,
        link: &state.link,
        focused: focused(Focus::Tools),
        theme,
    }
    .render(panes.tools, buf);
    let mut cursor = None;
    EditorPane {
        editor: &state.editor,
        keys: &state.settings.keys,
        settings: &state.settings,
        // The composer takes the editing keys too, over the panes: the editor is not editing.
        editing: mode == Mode::Editing && !state.composer.open,
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
    DetailPane {
        log: &state.log,
        calls: &state.calls,
        sideways: Sideways::of(state),
        focused: focused(Focus::Detail),
        theme,
    }
    .render(panes.detail, buf);
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
    overlays(frame, state, theme, cursor);
}

/// The overlay on top, if any; with none, the terminal's cursor goes where typing goes.
fn overlays(frame: &mut Frame, state: &AppState, theme: &Theme, cursor: Option<Position>) {
    let area = frame.area();
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
        Some(Overlay::Picker(picker)) => PickerOverlay { picker, theme }.render(area, buf),
        Some(Overlay::Composer(composer)) => {
            let mut cursor = None;
            ComposerOverlay { composer, theme }.render(area, buf, &mut cursor);
            if let Some(cursor) = cursor {
                frame.set_cursor_position(cursor);
            }
        }
        Some(Overlay::ServerInfo(info)) => ServerInfoOverlay { info, theme }.render(area, buf),
        None => {
            if let Some(cursor) = cursor {
                // The terminal's own cursor, where typing goes (the runtime makes it a blinking
                // bar).
                frame.set_cursor_position(cursor);
            }
        }
    }
}
