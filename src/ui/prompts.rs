//! The Prompts shelf: the listed prompts, and below the list the selected one's description
//! and arguments (the required ones marked).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;
use serde_json::Value;

use super::catalog::{Row, ShelfPane, empty_reason};
use crate::app::catalog_state::CatalogState;
use crate::app::state::Link;
use crate::sanitize;
use crate::theme::{Meaning, Theme};

/// The Prompts shelf over the catalog.
pub(super) struct PromptsPane<'a> {
    pub catalog: &'a CatalogState,
    pub tools: usize,
    pub link: &'a Link,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for PromptsPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let prompts_shelf = &self.catalog.prompts;
        let rows = prompts_shelf
            .prompts
            .items
            .iter()
            .map(|prompt| {
                let value = prompt.value();
                let name = value.get("name").and_then(Value::as_str).unwrap_or("?");
                let label = match value.get("title").and_then(Value::as_str) {
                    Some(title) if title != name => {
                        format!("{} — {}", sanitize::text(name), sanitize::text(title))
                    }
                    _ => sanitize::text(name).into_owned(),
                };
                Row {
                    label,
                    muted: false,
                }
            })
            .collect();
        ShelfPane {
            title: self.catalog.title(self.tools),
            rows,
            selected: prompts_shelf.selected,
            offset: prompts_shelf.offset,
            empty: empty_reason(&prompts_shelf.prompts, self.link, "prompts"),
            about: about(self.catalog, self.theme),
            focused: self.focused,
            theme: self.theme,
        }
        .render(area, buf);
    }
}

fn about<'a>(catalog: &CatalogState, theme: &Theme) -> Vec<Line<'a>> {
    let muted = theme.style(Meaning::TextMuted);
    let Some(prompt) = catalog.prompts.selected_prompt() else {
        return Vec::new();
    };
    let value = prompt.value();
    let mut lines = Vec::new();
    if let Some(description) = value.get("description").and_then(Value::as_str) {
        lines.push(Line::raw(sanitize::text(description).into_owned()));
    }
    let arguments = value
        .get("arguments")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if arguments.is_empty() {
        lines.push(Line::styled("no arguments", muted));
    }
    for argument in &arguments {
        let name = argument.get("name").and_then(Value::as_str).unwrap_or("?");
        let required = argument.get("required").and_then(Value::as_bool) == Some(true);
        let mark = if required { " (required)" } else { "" };
        lines.push(Line::styled(
            format!("· {}{mark}", sanitize::text(name)),
            muted,
        ));
    }
    lines.push(Line::styled(
        "Enter: fill its arguments, Ctrl-S gets it",
        muted,
    ));
    lines
}
