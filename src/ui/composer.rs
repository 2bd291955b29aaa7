//! The request composer overlay: the method on the first line, the params below, what is wrong
//! with them, and the keys that work.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, StatefulWidget, Widget, Wrap};

use super::shared::pane;
use crate::app::composer::Composer;
use crate::theme::{Meaning, Theme};

/// Rows of text the composer offers, at most (fewer on a small screen).
const TEXT_ROWS: u16 = 12;

/// The composer over its state; drawn over `area`, the whole screen.
pub(super) struct ComposerOverlay<'a> {
    pub composer: &'a Composer,
    pub theme: &'a Theme,
}

/// Its state is where the terminal's cursor goes: at the typing position.
impl StatefulWidget for ComposerOverlay<'_> {
    type State = Option<Position>;

    fn render(self, area: Rect, buf: &mut Buffer, cursor: &mut Option<Position>) {
        let ComposerOverlay { composer, theme } = self;
        let mut notes = vec![Line::styled(
            "line 1: the method · then the params as JSON, sent exactly as typed",
            theme.style(Meaning::TextMuted),
        )];
        if let Some(problem) = &composer.problem {
            notes.push(Line::styled(
                format!("✗ {problem}"),
                theme.style(Meaning::EditorError),
            ));
        }
        notes.push(Line::styled(
            "Ctrl-S send · Esc close (the text is kept) · tools/call {name, arguments} is judged as a call",
            theme.style(Meaning::TextMuted),
        ));
        let notes = Paragraph::new(notes).wrap(Wrap { trim: false });
        let width = 84.min(area.width);
        let note_height =
            u16::try_from(notes.line_count(width.saturating_sub(2))).unwrap_or(u16::MAX);
        let height = (TEXT_ROWS + note_height + 2).min(area.height.saturating_sub(1));
        let popup = Rect::new(
            area.x + (area.width - width) / 2,
            area.y + (area.height.saturating_sub(1) - height) / 2,
            width,
            height,
        );
        Clear.render(popup, buf);
        let block = pane("Compose a request", true, theme);
        let inner = block.inner(popup);
        block.render(popup, buf);
        let [text, info] = Layout::vertical([
            Constraint::Min(1),
            Constraint::Length(note_height.min(inner.height / 2)),
        ])
        .areas(inner);
        notes.render(info, buf);
        (&composer.textarea).render(text, buf);
        let at = composer.textarea.screen_cursor();
        let (top, left) = composer.textarea.scroll_offset();
        *cursor = (|| {
            let row = at.row.checked_sub(usize::from(top))?;
            let column = at.col.checked_sub(usize::from(left))?;
            let position = Position {
                x: text.x + u16::try_from(column).ok()?,
                y: text.y + u16::try_from(row).ok()?,
            };
            text.contains(position).then_some(position)
        })();
    }
}
