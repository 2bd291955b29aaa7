//! The Detail pane: the selected (or latest) exchange in full, wrapped or cut.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::shared::{pane, wrapped_or_cut};
use crate::app::describe::id_label;
use crate::app::state::{AppState, Focus};
use crate::theme::{Meaning, Theme};

/// Which call (or entry) Detail and the model view show, in words.
fn showing(state: &AppState) -> String {
    let line = state.log.selected.and_then(|i| state.log.lines.get(i));
    let call = |index: usize| {
        state.calls.get(index).map(|call| {
            format!(
                "{} {}",
                id_label(call.session, &call.exchange.id),
                crate::sanitize::text(&call.tool)
            )
        })
    };
    match line {
        Some(line) => match line.exchange.and_then(call) {
            Some(call) => format!("selected {call}"),
            None => "selected entry".to_owned(),
        },
        None => match state.calls.len().checked_sub(1).and_then(call) {
            Some(call) => format!("latest call {call}"),
            None => "latest call".to_owned(),
        },
    }
}

pub(super) fn detail_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let log = &state.log;
    let title = format!("Detail · {}", showing(state));
    let block = pane(&title, state.focus == Focus::Detail, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let rows: Vec<Line> = log
        .detail
        .iter()
        .skip(log.detail_scroll)
        .take(usize::from(inner.height))
        .map(|line| {
            let style = if line.starts_with('→') || line.starts_with('←') {
                theme.style(Meaning::TextTitle)
            } else {
                theme.style(Meaning::Text)
            };
            Line::styled(line.as_str(), style)
        })
        .collect();
    wrapped_or_cut(rows, state, 0, inner, buf);
}
