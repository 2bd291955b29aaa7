//! The server info overlay: the lines `app::server_info` built (already terminal-safe),
//! wrapped to the popup and scrolled.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use super::shared::pane;
use crate::app::layout;
use crate::app::server_info::ServerInfoView;
use crate::theme::{Meaning, Theme};

/// The server info over its view; drawn over `area`, the whole screen.
pub(super) struct ServerInfoOverlay<'a> {
    pub info: &'a ServerInfoView,
    pub theme: &'a Theme,
}

impl Widget for ServerInfoOverlay<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let ServerInfoOverlay { info, theme } = self;
        // Room for the wrapped lines and the hint, as much as the screen has.
        let popup = layout::help_popup(area, area.height.into());
        Clear.render(popup, buf);
        let block = pane("Server", true, theme);
        let inner = block.inner(popup);
        block.render(popup, buf);
        let lines: Vec<Line> = info
            .lines
            .iter()
            .map(|line| Line::raw(line.as_str()))
            .collect();
        let text = Paragraph::new(lines).wrap(Wrap { trim: false });
        let total = text.line_count(inner.width);
        let rows = usize::from(inner.height.saturating_sub(1));
        let scroll = info.scroll.min(total.saturating_sub(rows));
        let more = if total > scroll + rows {
            " · ↓ more below"
        } else {
            ""
        };
        let [body, hint] = ratatui::layout::Layout::vertical([
            ratatui::layout::Constraint::Min(1),
            ratatui::layout::Constraint::Length(1),
        ])
        .areas(inner);
        text.style(theme.style(Meaning::Text))
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .render(body, buf);
        Paragraph::new(Line::styled(
            format!("↑↓ PgUp PgDn scroll · Esc or i close{more}"),
            theme.style(Meaning::TextMuted),
        ))
        .render(hint, buf);
    }
}
