//! The server bar: one row naming every open server with its state, era and transport; the shown one in full, the others shortened first when the row is narrow (the layout is `app::workspace::bar`'s, which clicks read too).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::app::workspace::Workspace;
use crate::app::workspace::bar::{BarState, bar_entries};
use crate::theme::{Meaning, Theme};

pub(super) struct ServerBar<'a> {
    pub workspace: &'a Workspace,
    pub theme: &'a Theme,
}

fn meaning(state: BarState) -> Meaning {
    match state {
        BarState::Ready => Meaning::OutcomeSuccess,
        BarState::Asking => Meaning::StatusError,
        BarState::Connecting => Meaning::TextMuted,
        BarState::Failed => Meaning::OutcomeProtocolError,
        BarState::Ended => Meaning::OutcomeTransportFailure,
    }
}

impl Widget for ServerBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let mut spans = Vec::new();
        for entry in bar_entries(self.workspace, area.width) {
            let mut style = theme.style(meaning(entry.state));
            if entry.shown {
                style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            spans.push(Span::styled(entry.text, style));
            spans.push(Span::styled("│", theme.style(Meaning::Border)));
        }
        Paragraph::new(Line::from(spans))
            .style(theme.style(Meaning::Text).patch(Style::default()))
            .render(area, buf);
    }
}
