//! The help overlay: every key binding, by scope, scrolled.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::shared::pane;
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
                HelpEntry::Blank => Line::raw(""),
            })
            .collect();
        let more = if scroll + shown < entries.len() {
            format!(" · ↓ {} more", entries.len() - scroll - shown)
        } else {
            String::new()
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
