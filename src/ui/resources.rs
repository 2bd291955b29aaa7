//! The Resources shelf: the listed resources (subscribed and updated ones marked), then the
//! templates, and below the list the selected one's URI, type, description and keys.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::catalog::{Row, ShelfPane, empty_reason};
use crate::app::catalog_state::{CatalogState, ResourceRow};
use crate::app::state::Link;
use crate::mcp::json::Json;
use crate::sanitize;
use crate::theme::{Meaning, Theme};

/// The Resources shelf over the catalog.
pub(super) struct ResourcesPane<'a> {
    pub catalog: &'a CatalogState,
    pub tools: usize,
    pub link: &'a Link,
    pub focused: bool,
    pub theme: &'a Theme,
}

fn text(item: &Json, key: &str) -> Option<String> {
    item.get(key).and_then(|value| {
        value
            .as_str()
            .map(|text| sanitize::text(&text).into_owned())
    })
}

impl Widget for ResourcesPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let resources_shelf = &self.catalog.resources;
        let rows = (0..resources_shelf.len())
            .filter_map(|index| resources_shelf.row(index))
            .map(|row| match row {
                ResourceRow::Resource(item) => {
                    let uri = text(item, "uri").unwrap_or_default();
                    let name = text(item, "title")
                        .or_else(|| text(item, "name"))
                        .unwrap_or_else(|| uri.clone());
                    let raw_uri = item
                        .get("uri")
                        .and_then(|uri| uri.as_str().map(std::borrow::Cow::into_owned))
                        .unwrap_or_default();
                    let mark = match (
                        resources_shelf.subscribed.contains(&raw_uri),
                        resources_shelf.updated.contains_key(&raw_uri),
                        resources_shelf.listening.contains(&raw_uri),
                    ) {
                        (_, true, _) => "↻ ",
                        (true, false, _) => "● ",
                        (false, false, true) => "○ ",
                        (false, false, false) => "",
                    };
                    Row {
                        label: format!("{mark}{name}"),
                        muted: false,
                    }
                }
                ResourceRow::Template(item) => Row {
                    label: text(item, "uriTemplate").unwrap_or_default(),
                    muted: true,
                },
            })
            .collect();
        let about = about(self.catalog, self.theme);
        ShelfPane {
            title: self.catalog.title(self.tools),
            rows,
            selected: resources_shelf.selected,
            offset: resources_shelf.offset,
            empty: empty_reason(&resources_shelf.resources, self.link, "resources"),
            about,
            focused: self.focused,
            theme: self.theme,
        }
        .render(area, buf);
    }
}

/// The selected resource or template, described, with what its keys do.
fn about<'a>(catalog: &CatalogState, theme: &Theme) -> Vec<Line<'a>> {
    let shelf = &catalog.resources;
    let muted = theme.style(Meaning::TextMuted);
    let mut lines = Vec::new();
    match shelf.selected_row() {
        Some(ResourceRow::Resource(item)) => {
            let raw_uri = item
                .get("uri")
                .and_then(|uri| uri.as_str().map(std::borrow::Cow::into_owned))
                .unwrap_or_default();
            lines.push(Line::raw(sanitize::text(&raw_uri).into_owned()));
            // The subscription's state before the description: a cut pane keeps it.
            let subscribed = shelf.subscribed.contains(&raw_uri);
            let listening = shelf.listening.contains(&raw_uri);
            match (subscribed, shelf.updated.get(&raw_uri), listening) {
                (_, Some(at), _) => lines.push(Line::styled(
                    format!("↻ updated at {at} (Enter reads it)"),
                    theme.style(Meaning::FindingWarning),
                )),
                (true, None, false) => lines.push(Line::styled("● subscribed", muted)),
                (true, None, true) => lines.push(Line::styled(
                    "● subscribed (its subscriptions/listen stream is open)",
                    muted,
                )),
                (false, None, true) => lines.push(Line::styled(
                    "○ subscriptions/listen sent: not acknowledged yet",
                    muted,
                )),
                (false, None, false) => {}
            }
            let mut facts: Vec<String> = text(item, "mimeType").into_iter().collect();
            if let Some(size) = item.get("size").and_then(|size| size.as_i64()) {
                facts.push(format!("{size} bytes"));
            }
            if !facts.is_empty() {
                lines.push(Line::styled(facts.join(" · "), muted));
            }
            if let Some(description) = text(item, "description") {
                lines.push(Line::raw(description));
            }
            let keys = if subscribed || listening {
                "Enter: read it · S: unsubscribe"
            } else {
                "Enter: read it · S: subscribe"
            };
            lines.push(Line::styled(keys, muted));
        }
        Some(ResourceRow::Template(item)) => {
            lines.push(Line::raw(
                text(item, "name").unwrap_or_else(|| "(no name)".into()),
            ));
            if let Some(mime) = text(item, "mimeType") {
                lines.push(Line::styled(mime, muted));
            }
            if let Some(description) = text(item, "description") {
                lines.push(Line::raw(description));
            }
            lines.push(Line::styled(
                "template · Enter: fill its variables, Ctrl-S reads",
                muted,
            ));
        }
        None => {}
    }
    lines
}
