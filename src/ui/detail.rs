//! The Detail pane: the selected (or latest) exchange in full, wrapped or cut.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::shared::{Sideways, hidden_rows, pane, progress_words, with_hidden, wrapped_or_cut};
use crate::app::describe::id_label;
use crate::app::pending::PendingCall;
use crate::app::state::{CallRecord, LogState};
use crate::theme::{Meaning, Theme};

/// Which call (or entry) Detail and the model view show, in words.
fn showing(log: &LogState, calls: &[CallRecord]) -> String {
    let line = log.selected.and_then(|i| log.lines.get(i));
    let call = |index: usize| {
        calls.get(index).map(|call| {
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
        None => match calls.len().checked_sub(1).and_then(call) {
            Some(call) => format!("latest call {call}"),
            None => "latest call".to_owned(),
        },
    }
}

/// The Detail pane over the log (its selection and the detail's lines) and the calls.
pub(super) struct DetailPane<'a> {
    pub log: &'a LogState,
    pub calls: &'a [CallRecord],
    /// The call on its way: shown, while no row is selected, instead of the previous call.
    pub pending: Option<&'a PendingCall>,
    pub ticks: u64,
    pub sideways: Sideways,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for DetailPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let DetailPane {
            log,
            calls,
            pending,
            ticks,
            sideways,
            focused,
            theme,
        } = self;
        if let Some(call) = pending.filter(|_| log.selected.is_none()) {
            let title = format!(
                "Detail · pending call {} {}",
                id_label(call.session, &call.id),
                call.tool
            );
            let block = pane(&title, focused, theme);
            let inner = block.inner(area);
            let lines = pending_lines(call, ticks, theme);
            let (above, below) = hidden_rows(&lines, sideways, 0, inner);
            with_hidden(block, above, below, theme).render(area, buf);
            wrapped_or_cut(lines, sideways, 0, inner, buf);
            return;
        }
        let title = format!("Detail · {}", showing(log, calls));
        let block = pane(&title, focused, theme);
        let inner = block.inner(area);
        let rows: Vec<Line> = log
            .detail
            .iter()
            .skip(log.detail_scroll)
            .map(|line| {
                let style = if line.starts_with('→') || line.starts_with('←') {
                    theme.style(Meaning::TextTitle)
                } else {
                    theme.style(Meaning::Text)
                };
                Line::styled(line.as_str(), style)
            })
            .collect();
        // Rows beyond the view are counted for the marks only: a long response is wrapped
        // once per draw, as far as the bottom mark needs it.
        let (_, below) = hidden_rows(&rows, sideways, 0, inner);
        with_hidden(block, log.detail_scroll, below, theme).render(area, buf);
        wrapped_or_cut(rows, sideways, 0, inner, buf);
    }
}

/// The pending call: that it waits, for how long, its progress, then the request as sent.
fn pending_lines<'a>(call: &'a PendingCall, ticks: u64, theme: &Theme) -> Vec<Line<'a>> {
    let mut lines = vec![Line::styled(
        format!("… waiting for the answer · {} s", call.elapsed(ticks)),
        theme.style(Meaning::TextTitle),
    )];
    if let Some(progress) = &call.progress {
        lines.push(Line::styled(
            format!("progress {}", progress_words(progress, 10)),
            theme.style(Meaning::Text),
        ));
    }
    lines.push(Line::styled(
        format!("→ request ({} bytes)", call.bytes),
        theme.style(Meaning::TextTitle),
    ));
    lines.extend(
        call.request
            .iter()
            .map(|line| Line::styled(line.as_str(), theme.style(Meaning::Text))),
    );
    lines
}
