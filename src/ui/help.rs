//! The help overlay: every key binding, by scope, scrolled.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::shared::{class_meaning, fit, pane};
use crate::app::Command;
use crate::app::keys::{HelpEntry, Keymap, Mode};
use crate::app::layout;
use crate::theme::{Meaning, Theme};

/// The help over the run's key table, scrolled; drawn over `area`, the whole screen.
pub(super) struct HelpOverlay<'a> {
    pub keys: &'a Keymap,
    /// The first row in view, as the user scrolled it (clamped here to the help's end).
    pub scroll: usize,
    pub theme: &'a Theme,
}

impl Widget for HelpOverlay<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let HelpOverlay {
            keys,
            scroll,
            theme,
        } = self;
        let entries = keys.help_entries();
        let popup = layout::help_popup(area, entries.len());
        let shown = usize::from(popup.height.saturating_sub(2));
        let width = usize::from(popup.width.saturating_sub(2));
        let scroll = scroll.min(entries.len().saturating_sub(shown));
        let rows: Vec<Line> = entries
            .iter()
            .skip(scroll)
            .take(shown)
            .map(|entry| match entry {
                HelpEntry::Heading(text) => Line::styled(*text, theme.style(Meaning::TextTitle)),
                HelpEntry::Key(binding) => Line::from(vec![
                    Span::styled(
                        format!("{:>12}  ", binding.keys),
                        theme.style(Meaning::HelpKey),
                    ),
                    Span::styled(binding.help, theme.style(Meaning::Text)),
                ]),
                HelpEntry::Note(text) => Line::styled(*text, theme.style(Meaning::TextMuted)),
                HelpEntry::Class(class, meaning) => Line::from(vec![
                    Span::styled(
                        format!("{:>17}", class.label()),
                        theme.style(class_meaning(*class)),
                    ),
                    Span::styled(format!("  {meaning}"), theme.style(Meaning::Text)),
                ]),
                HelpEntry::Flag(meaning) => Line::from(vec![
                    Span::styled(format!("{:>17}", "⚑"), theme.style(Meaning::FindingSep1303)),
                    Span::styled(format!("  {meaning}"), theme.style(Meaning::Text)),
                ]),
                HelpEntry::Blank => Line::raw(""),
            })
            .map(|line| cut(line, width))
            .collect();
        let below = entries.len().saturating_sub(scroll + shown);
        let more = match (scroll, below) {
            (0, 0) => String::new(),
            (0, below) => format!(" · ↓ {below} more"),
            (above, 0) => format!(" · ↑ {above} above"),
            (above, below) => format!(" · ↑ {above} · ↓ {below} more"),
        };
        Clear.render(popup, buf);
        let close = keys
            .key_for(Command::Back, Mode::Help)
            .map_or_else(String::new, |key| format!(" · {key} closes"));
        let block = pane(&format!("Keys{close}{more}"), true, theme);
        Paragraph::new(rows)
            .block(block)
            .style(theme.style(Meaning::Text))
            .render(popup, buf);
    }
}

/// `line` within `width` columns: a row too long for the popup ends in `…` rather than being
/// cut mid-word with no sign (its spans' styles are kept up to the cut).
fn cut(line: Line<'_>, width: usize) -> Line<'_> {
    use unicode_width::UnicodeWidthStr;
    if line.width() <= width {
        return line;
    }
    let mut left = width;
    let mut spans = Vec::new();
    for span in line.spans {
        if left == 0 {
            break;
        }
        let text = span.content.as_ref();
        if text.width() < left {
            left -= text.width();
            spans.push(span);
        } else {
            // More of the line follows this span: the `…` is owed even where it fits exactly.
            let more = format!("{text}…");
            spans.push(Span::styled(fit(&more, left).into_owned(), span.style));
            left = 0;
        }
    }
    Line::from(spans).style(line.style)
}
