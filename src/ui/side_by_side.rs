//! The side-by-side screen: the last request sent to every server, one column each with the answer's class (colour and word), code, message, findings and what the model sees under the shared host; pending and unsent columns say so.

use crate::app::action::{Lens, Move, ToServer};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use super::shared::{class_meaning, fit, with_hidden};
use crate::app::Command;
use crate::app::keys::Mode;
use crate::app::workspace::columns::{
    ColumnLine, Tone, column_inside, column_lines, column_places, rows_past,
};
use crate::app::workspace::{Comparison, Workspace};
use crate::theme::{Meaning, Theme};

pub(super) struct SideBySide<'a> {
    pub workspace: &'a Workspace,
    pub comparison: &'a Comparison,
    pub theme: &'a Theme,
}

impl Widget for SideBySide<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let shown = self.workspace.shown();
        let host = crate::sanitize::text(&shown.settings.host().name).into_owned();
        let keys = &shown.settings.keys;
        let key = |command| keys.key_for(command, Mode::Browsing).unwrap_or_default();
        let pending = self.comparison.pending();
        let waiting = if pending > 0 {
            format!(" · {pending} pending")
        } else {
            String::new()
        };
        let title = format!(
            " Side by side · host '{host}'{waiting} · {} ",
            self.comparison.title
        );
        // Each column's lines, and the rows of them past its foot.
        let places = column_places(area, self.comparison.columns.len());
        let servers = &self.workspace.servers;
        let columns: Vec<_> = (self.comparison.columns.iter().zip(servers))
            .zip(places)
            .map(|((column, server), place)| {
                let said = column_lines(server, column);
                let past = rows_past(&said, column_inside(place));
                (server, place, said, past)
            })
            .collect();
        // The scroll keys are named only when a column has more than it shows.
        let scrolls = if columns.iter().any(|(.., past)| *past > 0) {
            format!(
                " · {}/{} scroll",
                key(Command::Move(Move::SelectNext)),
                key(Command::Move(Move::SelectPrev))
            )
        } else {
            String::new()
        };
        let footer = format!(
            " {} closes · {} sends again · {} host · {} MAY{scrolls} ",
            key(Command::Back),
            key(Command::ToServer(ToServer::SideBySide)),
            key(Command::Lens(Lens::Host)),
            key(Command::Lens(Lens::Forwarding))
        );
        Clear.render(area, buf);
        let outer = Block::new()
            .borders(Borders::ALL)
            .border_style(theme.style(Meaning::BorderFocused))
            .title(fit(&title, usize::from(area.width.saturating_sub(2))).into_owned())
            .title_bottom(fit(&footer, usize::from(area.width.saturating_sub(2))).into_owned())
            .style(theme.style(Meaning::Text));
        outer.render(area, buf);
        for (index, (server, place, said, past)) in columns.into_iter().enumerate() {
            let block = Block::new()
                .borders(Borders::ALL)
                .border_style(theme.style(Meaning::Border))
                .title(
                    fit(
                        &format!(" {} {} ", index + 1, server.name),
                        usize::from(place.width.saturating_sub(2)),
                    )
                    .into_owned(),
                );
            // The columns scroll together, each as far as its own last row; its border counts
            // what is above and below.
            let above = self.comparison.scroll.min(past);
            let lines: Vec<Line> = said.into_iter().map(|line| styled(line, theme)).collect();
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((u16::try_from(above).unwrap_or(u16::MAX), 0))
                .block(with_hidden(block, above, past - above, theme))
                .render(place, buf);
        }
    }
}

/// A column's line in its tone's colour.
fn styled(line: ColumnLine, theme: &Theme) -> Line<'static> {
    let style = match line.tone {
        Tone::Plain => return Line::raw(line.text),
        Tone::Muted => theme.style(Meaning::TextMuted),
        Tone::Refused => theme.style(Meaning::StatusError),
        Tone::Class(class) => theme
            .style(class_meaning(class))
            .add_modifier(Modifier::BOLD),
        Tone::Finding { sep1303: true, .. } => theme.style(Meaning::FindingSep1303),
        Tone::Warning | Tone::Finding { warning: true, .. } => theme.style(Meaning::FindingWarning),
        Tone::Finding { .. } => theme.style(Meaning::FindingInfo),
        Tone::Verdict { forwarded } => {
            let seen = if forwarded {
                Meaning::ModelForwarded
            } else {
                Meaning::ModelNotForwarded
            };
            theme.style(seen).add_modifier(Modifier::BOLD)
        }
    };
    Line::styled(line.text, style)
}
