//! Moving around: focus, selection, paging, scrolling, Enter on a pane, and the mouse.

use super::action::Mouse;
use super::detail::refresh_detail;
use super::editor::{select_value_at_cursor, show_selected_tool};
use super::layout::{self, areas};
use super::model_pane::refresh_model;
use super::overlay::Overlay;
use super::state::{AppState, Focus, LineKind, Raw};
use super::status::complain;

const WHEEL_STEP: usize = 3;

pub(super) fn cycle_focus(state: &mut AppState, step: usize) {
    let at = Focus::ORDER
        .iter()
        .position(|f| *f == state.focus)
        .unwrap_or(0);
    state.focus = Focus::ORDER[(at + step) % Focus::ORDER.len()];
    state.editing = false;
}

pub(super) fn page(state: &AppState) -> usize {
    let panes = areas(state.screen);
    layout::inner_height(panes.log).max(1)
}

pub(super) fn move_selection(state: &mut AppState, by: usize, up: bool) {
    let step = |at: usize, len: usize| {
        if up {
            at.saturating_sub(by)
        } else {
            at.saturating_add(by).min(len.saturating_sub(1))
        }
    };
    match state.focus {
        Focus::Tools if state.tools.show_schema => {
            state.tools.about_scroll = step(state.tools.about_scroll, usize::MAX);
        }
        Focus::Tools | Focus::Editor => {
            let len = state.tools.tools.len();
            select_tool(state, step(state.tools.selected, len));
        }
        Focus::Log if state.log.show_console => {
            let at = state.log.console_scroll;
            state.log.console_scroll = if up {
                at.saturating_add(by)
            } else {
                at.saturating_sub(by)
            };
        }
        Focus::Log => {
            let len = state.log.lines.len();
            if len > 0 {
                let at = state.log.current().unwrap_or(0);
                select_line(state, Some(step(at, len)));
            }
        }
        Focus::Detail => {
            let at = state.log.detail_scroll;
            state.log.detail_scroll = step(at, state.log.detail.len());
        }
        Focus::Model => state.model_scroll = step(state.model_scroll, model_rows(state)),
    }
}

/// Rows the model pane has at least (before wrapping): a bound for its scrolling.
fn model_rows(state: &AppState) -> usize {
    let findings = state.current_call().map_or(0, |call| call.findings.len());
    let text = state
        .model
        .as_ref()
        .map_or(0, |pane| pane.text.lines().count());
    text + 3 * findings + 6
}

pub(super) fn select_last(state: &mut AppState) {
    match state.focus {
        Focus::Log if state.log.show_console => state.log.console_scroll = 0,
        Focus::Log => select_line(state, None),
        Focus::Tools | Focus::Editor => {
            select_tool(state, state.tools.tools.len().saturating_sub(1));
        }
        Focus::Detail => state.log.detail_scroll = state.log.detail.len().saturating_sub(1),
        Focus::Model => state.model_scroll = model_rows(state).saturating_sub(1),
    }
}

/// Selects a tool: the list keeps it in view, and the Request pane shows its draft.
pub(super) fn select_tool(state: &mut AppState, index: usize) {
    state.tools.select(index);
    state.tools.about_scroll = 0;
    let rows = layout::tool_list_rows(areas(state.screen).tools, state.tools.tools.len());
    state.tools.offset = keep_in_view(state.tools.offset, state.tools.selected, rows);
    show_selected_tool(state);
}

/// The first row of a list window that keeps `selected` in view, moving `offset` as little as
/// possible (the selection moves within the window; the window moves only at its edges).
pub fn keep_in_view(offset: usize, selected: usize, rows: usize) -> usize {
    let rows = rows.max(1);
    if selected < offset {
        selected
    } else if selected >= offset + rows {
        selected + 1 - rows
    } else {
        offset
    }
}

/// After a resize: each list's window moved up as far as its new height lets it, keeping the
/// selection in view (a grown pane shows rows from the top again, never a blank row beside
/// "↑ 1 above"), and the editor's view back to the top where its cursor allows.
pub(super) fn fit_to_screen(state: &mut AppState) {
    let panes = areas(state.screen);
    let fit = |offset: usize, len: usize, rows: usize, selected: usize| {
        keep_in_view(offset.min(len.saturating_sub(rows)), selected, rows)
    };
    let len = state.tools.tools.len();
    let rows = layout::tool_list_rows(panes.tools, len);
    state.tools.offset = fit(state.tools.offset, len, rows, state.tools.selected);
    if let Some(selected) = state.log.selected {
        let rows = layout::inner_height(panes.log);
        state.log.offset = fit(state.log.offset, state.log.lines.len(), rows, selected);
    }
    // The textarea keeps its scroll from the last, smaller, frame: back to the top, the cursor
    // where it was (drawing scrolls down again only as far as the cursor needs).
    let textarea = &mut state.editor.textarea;
    let (top, _) = textarea.scroll_offset();
    if top > 0 {
        let tui_textarea::DataCursor(row, column) = textarea.cursor();
        textarea.scroll((-i16::try_from(top).unwrap_or(i16::MAX), 0));
        textarea.move_cursor(tui_textarea::CursorMove::Jump(
            u16::try_from(row).unwrap_or(u16::MAX),
            u16::try_from(column).unwrap_or(u16::MAX),
        ));
    }
}

/// Selects a log line (`None`: follow the newest) and prepares its detail and model view.
pub(super) fn select_line(state: &mut AppState, line: Option<usize>) {
    state.log.selected = line;
    if let Some(line) = line {
        let rows = layout::inner_height(areas(state.screen).log);
        state.log.offset = keep_in_view(state.log.offset, line, rows);
    }
    state.log.detail_scroll = 0;
    state.hscroll = 0;
    refresh_detail(state);
    // Rows of the same call share its view: rebuilt only when the call changes.
    if state.model.as_ref().map(|model| model.call) != state.current_call_index() {
        refresh_model(state);
    }
}

/// Enter: on a tool or the Request pane, start editing (on the first value of a fresh
/// skeleton, selected, so typing replaces it); on a log row, look at its detail.
pub(super) fn open(state: &mut AppState) {
    match state.focus {
        Focus::Tools | Focus::Editor => {
            if state.tools.selected_tool().is_none() {
                complain(state, "no tool to edit: the server listed none".into());
                return;
            }
            show_selected_tool(state);
            state.focus = Focus::Editor;
            state.editing = true;
            select_value_at_cursor(state);
        }
        Focus::Log => {
            let selected = state.log.selected.and_then(|i| state.log.lines.get(i));
            if matches!(
                selected.and_then(|line| line.raw.as_ref()),
                Some(Raw::Stderr { .. })
            ) {
                // A run of stderr lines opens where all of them are, one per row.
                state.log.show_console = true;
            } else {
                state.focus = Focus::Detail;
            }
        }
        Focus::Detail | Focus::Model => {}
    }
}

/// Focuses the log on call `index`: its response (or failure) line selected.
pub(super) fn open_call(state: &mut AppState, index: usize) {
    let line = state.log.lines.iter().rposition(|line| {
        line.exchange == Some(index)
            && matches!(line.kind, LineKind::Response(_) | LineKind::Failure)
    });
    let line = line.or_else(|| {
        state
            .log
            .lines
            .iter()
            .rposition(|line| line.exchange == Some(index))
    });
    if let Some(line) = line {
        state.focus = Focus::Log;
        state.log.show_console = false;
        select_line(state, Some(line));
    }
}

pub(super) fn on_mouse(state: &mut AppState, mouse: Mouse) {
    let panes = areas(state.screen);
    let (column, row) = match mouse {
        Mouse::Clicked { column, row }
        | Mouse::ScrolledUp { column, row }
        | Mouse::ScrolledDown { column, row } => (column, row),
    };
    match state.overlay() {
        // Anywhere: the status line and the server bar too.
        Some(Overlay::Help) => {
            state.show_help = false;
            return;
        }
        // The others are modal: a click or a wheel behind them changes nothing.
        Some(
            Overlay::Question(_)
            | Overlay::Audit(_)
            | Overlay::Composer(_)
            | Overlay::Chat(_)
            | Overlay::ServerInfo(_),
        ) => return,
        None => {}
    }
    let position = ratatui::layout::Position { x: column, y: row };
    let targets = [
        (panes.tools, Focus::Tools),
        (panes.editor, Focus::Editor),
        (panes.log, Focus::Log),
        (panes.detail, Focus::Detail),
        (panes.model, Focus::Model),
    ];
    let Some((area, focus)) = targets
        .into_iter()
        .find(|(area, _)| area.contains(position))
    else {
        return;
    };
    match mouse {
        Mouse::Clicked { .. } => {
            state.focus = focus;
            // A click in the editor means "type here".
            state.editing = focus == Focus::Editor;
            let row_in = usize::from(row.saturating_sub(area.y + 1));
            let height = layout::inner_height(area);
            match focus {
                // The rows drawn there: the same windows the panes draw.
                Focus::Tools if !state.tools.show_schema => {
                    let len = state.tools.tools.len();
                    let rows = layout::tool_list_rows(area, len);
                    let start = keep_in_view(state.tools.offset, state.tools.selected, rows);
                    if row_in < rows && start + row_in < len && row > area.y {
                        select_tool(state, start + row_in);
                    }
                }
                Focus::Log if !state.log.show_console => {
                    let len = state.log.lines.len();
                    let start = match state.log.selected {
                        Some(selected) => keep_in_view(state.log.offset, selected, height),
                        None => len.saturating_sub(height),
                    };
                    if start + row_in < len && row > area.y {
                        select_line(state, Some(start + row_in));
                    }
                }
                _ => {}
            }
        }
        Mouse::ScrolledUp { .. } | Mouse::ScrolledDown { .. } => {
            let up = matches!(mouse, Mouse::ScrolledUp { .. });
            let previous = state.focus;
            state.focus = focus;
            let by = if focus == Focus::Tools { 1 } else { WHEEL_STEP };
            move_selection(state, by, up);
            state.focus = previous;
        }
    }
}
