//! The Console pane, in the Exchange pane's place on `` ` ``: server stderr and log messages.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::shared::pane;
use crate::app::state::LogState;
use crate::theme::{Meaning, Theme};

/// The Console pane over the log's console rows.
pub(super) struct ConsolePane<'a> {
    pub log: &'a LogState,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for ConsolePane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let ConsolePane {
            log,
            focused,
            theme,
        } = self;
        let block = pane(
            &format!(
                "Console: server stderr and log messages ({}) · ` back",
                log.console_lines
            ),
            focused,
            theme,
        );
        let inner = block.inner(area);
        block.render(area, buf);
        let height = usize::from(inner.height);
        let rows: Vec<Line> = log
            .console_window(height, log.console_scroll)
            .into_iter()
            .map(|line| {
                Line::from(vec![
                    Span::styled(format!("{} ", line.at), theme.style(Meaning::TextMuted)),
                    Span::styled(
                        format!("{:<8}", line.source),
                        theme.style(Meaning::LogNotification),
                    ),
                    Span::styled(format!(" {}", line.text), theme.style(Meaning::LogStderr)),
                ])
            })
            .collect();
        if rows.is_empty() {
            Paragraph::new("The server has written nothing to stderr yet.")
                .style(theme.style(Meaning::TextMuted))
                .render(inner, buf);
        } else {
            Paragraph::new(rows).render(inner, buf);
        }
    }
}
