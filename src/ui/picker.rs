//! The server picker overlay: the `--config` file's entries, one to connect to.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::shared::{fit, pane};
use crate::app::layout;
use crate::app::state::Picker;
use crate::app::update::keep_in_view;
use crate::theme::{Meaning, Theme};

/// The server picker over the picker's state; drawn over `area`, the whole screen.
pub(super) struct PickerOverlay<'a> {
    pub picker: &'a Picker,
    pub theme: &'a Theme,
}

/// The server picker: each entry of the `--config` file and what it names; Enter connects.
impl Widget for PickerOverlay<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let PickerOverlay { picker, theme } = self;
        // The list, a blank row and the hint.
        let popup = layout::help_popup(area, picker.choices.len() + 2);
        let inner_width = usize::from(popup.width.saturating_sub(2));
        let shown = usize::from(popup.height.saturating_sub(4)).max(1);
        let start = keep_in_view(0, picker.selected, shown);
        let name_width = picker
            .choices
            .iter()
            .map(|(name, _)| crate::sanitize::text(name).chars().count())
            .max()
            .unwrap_or(0)
            .min(inner_width / 2);
        let mut rows: Vec<Line> = picker
            .choices
            .iter()
            .enumerate()
            .skip(start)
            .take(shown)
            .map(|(i, (name, what))| {
                let marker = if i == picker.selected { "▸ " } else { "  " };
                let name = crate::sanitize::text(name);
                let text = format!(
                    "{marker}{name:<name_width$}  {}",
                    crate::sanitize::text(what)
                );
                let line = Line::raw(fit(&text, inner_width).into_owned());
                if i == picker.selected {
                    line.style(theme.style(Meaning::Selection))
                } else {
                    line
                }
            })
            .collect();
        rows.push(Line::raw(""));
        rows.push(Line::styled(
            "↑↓ choose · Enter connect · q quit",
            theme.style(Meaning::TextMuted),
        ));
        Clear.render(popup, buf);
        let title = format!(
            "{} servers in {}: pick one",
            picker.choices.len(),
            crate::sanitize::text(&picker.file)
        );
        let block = pane(&title, true, theme);
        Paragraph::new(rows)
            .block(block)
            .style(theme.style(Meaning::Text))
            .render(popup, buf);
    }
}
