//! The help overlay: every key binding, by scope, scrolled.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::shared::pane;
use crate::app::Command;
use crate::app::keys::{HelpEntry, Mode};
use crate::app::layout;
use crate::app::state::AppState;
use crate::theme::{Meaning, Theme};

pub(super) fn help_overlay(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let entries = state.settings.keys.help_entries();
    let popup = layout::help_popup(area, entries.len());
    let shown = usize::from(popup.height.saturating_sub(2));
    let scroll = state.help_scroll.min(entries.len().saturating_sub(shown));
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
    let close = state
        .settings
        .keys
        .key_for(Command::Back, Mode::Help)
        .map_or_else(String::new, |key| format!(" · {key} closes"));
    let block = pane(&format!("Keys{close}{more}"), true, theme);
    Paragraph::new(rows)
        .block(block)
        .style(theme.style(Meaning::Text))
        .render(popup, buf);
}
