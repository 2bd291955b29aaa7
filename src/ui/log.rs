//! The Exchange pane: one row per frame or note, only the visible rows drawn.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::shared::{class_meaning, fit, pane};
use crate::app::state::{LineKind, LogState};
use crate::app::update::keep_in_view;
use crate::theme::{Meaning, Theme};

fn kind_style(kind: LineKind, theme: &Theme) -> Style {
    theme.style(match kind {
        LineKind::Outgoing => Meaning::LogOutgoing,
        LineKind::Response(class) => class_meaning(class),
        LineKind::ServerRequest | LineKind::Notification => Meaning::LogNotification,
        LineKind::Stderr => Meaning::LogStderr,
        LineKind::Invalid => Meaning::LogInvalid,
        LineKind::Failure => Meaning::OutcomeTransportFailure,
        LineKind::Note | LineKind::Probe | LineKind::Http => Meaning::LogNote,
    })
}

/// The Exchange pane over the log.
pub(super) struct LogPane<'a> {
    pub log: &'a LogState,
    /// The calls the Chat pane's model made (marked `◆`), by index.
    pub by_model: &'a [usize],
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for LogPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let LogPane {
            log,
            by_model,
            focused,
            theme,
        } = self;
        let follow = if log.selected.is_none() {
            " · following"
        } else {
            ""
        };
        let title = format!("Exchange ({}){follow}", log.lines.len());
        let block = pane(&title, focused, theme);
        let inner = block.inner(area);
        block.render(area, buf);
        if log.lines.is_empty() {
            Paragraph::new("No frames yet.")
                .style(theme.style(Meaning::TextMuted))
                .render(inner, buf);
            return;
        }
        let height = usize::from(inner.height);
        let start = match log.selected {
            Some(selected) => keep_in_view(log.offset, selected, height),
            None => log.lines.len().saturating_sub(height),
        };
        let width = usize::from(inner.width);
        let rows: Vec<Line> = log.lines[start..(start + height).min(log.lines.len())]
            .iter()
            .enumerate()
            .map(|(offset, line)| {
                // The marker leads the row: a long summary is cut at the pane's edge, the marker never.
                let by_model = line.exchange.is_some_and(|call| by_model.contains(&call));
                let marker = match (line.flagged, by_model) {
                    (true, true) => "⚑◆ ",
                    (true, false) => "⚑ ",
                    (false, true) => "◆ ",
                    (false, false) => "",
                };
                let time = format!("{} ", line.at);
                let room = width.saturating_sub(time.width() + marker.width());
                let summary = log.summary(line);
                let row = Line::from(vec![
                    Span::styled(time, theme.style(Meaning::TextMuted)),
                    Span::styled(marker, theme.style(Meaning::FindingSep1303)),
                    Span::styled(
                        fit(&summary, room).into_owned(),
                        kind_style(line.kind, theme),
                    ),
                ]);
                if log.selected == Some(start + offset) {
                    row.style(theme.style(Meaning::Selection))
                } else {
                    row
                }
            })
            .collect();
        Paragraph::new(rows).render(inner, buf);
    }
}
