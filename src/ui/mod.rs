//! Rendering, pure: `&AppState` and a `&Theme` in, cells out. Never awaits; long lists draw only
//! their visible rows. Two things are read from text as they are drawn, for the visible rows
//! only: log rows kept as their small raw text (at most 4 KiB each) and the tool list's labels
//! (a tool's name and title, from its listed text). That is what keeps a flood of
//! notifications, or a listing of 200,000 tools, at little more than its bytes.

mod ask;
mod audit;
mod console;
mod detail;
mod editor;
mod help;
mod log;
mod model;
mod picker;
mod shared;
mod status;
mod tools;

pub use shared::{class_meaning, fit};

use ratatui::Frame;
use ratatui::widgets::{Block, Widget};

use crate::app::Overlay;
use crate::app::layout;
use crate::app::state::AppState;
use crate::theme::{Meaning, Theme};

use ask::ask_overlay;
use audit::audit_overlay;
use console::console_pane;
use detail::detail_pane;
use editor::editor_pane;
use help::help_overlay;
use log::log_pane;
use model::model_pane;
use picker::picker_overlay;
use status::status_bar;
use tools::tools_pane;

/// Draws the whole screen.
pub fn render(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    let buf = frame.buffer_mut();
    let panes = layout::areas(area);
    Block::new()
        .style(theme.style(Meaning::Text))
        .render(area, buf);
    tools_pane(panes.tools, buf, state, theme);
    let cursor = editor_pane(panes.editor, buf, state, theme);
    if state.log.show_console {
        console_pane(panes.log, buf, state, theme);
    } else {
        log_pane(panes.log, buf, state, theme);
    }
    detail_pane(panes.detail, buf, state, theme);
    model_pane(panes.model, buf, state, theme);
    status_bar(panes.status, buf, state, theme);
    match state.overlay() {
        Some(Overlay::Help) => help_overlay(area, buf, state, theme),
        Some(Overlay::Question(question)) => ask_overlay(area, buf, question, theme),
        Some(Overlay::Audit(audit)) => audit_overlay(area, buf, audit, theme),
        Some(Overlay::Picker(picker)) => picker_overlay(area, buf, picker, theme),
        None => {
            if let Some(cursor) = cursor {
                // The terminal's own cursor, where typing goes (the runtime makes it a blinking
                // bar).
                frame.set_cursor_position(cursor);
            }
        }
    }
}
