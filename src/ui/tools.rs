//! The Tools pane: the listed tools, the selected one's description, and its schema on `s`.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::shared::{clipped, fit, list_marks, pane};
use crate::app::layout;
use crate::app::state::{Link, ToolRow, ToolsState};
use crate::app::update::keep_in_view;
use crate::theme::{Meaning, Theme};

/// The Tools pane over the tools and the link (which says why the list is empty).
pub(super) struct ToolsPane<'a> {
    pub tools: &'a ToolsState,
    /// The other shelves' counts for the title (` · R 3 · P 2`), empty when they have none.
    pub shelves: String,
    pub link: &'a Link,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for ToolsPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let ToolsPane {
            tools,
            shelves,
            link,
            focused,
            theme,
        } = self;
        let title = if tools.show_schema {
            format!("Tools ({}) · s: back to the list", tools.tools.len())
        } else {
            format!("Tools ({}){shelves}", tools.tools.len())
        };
        let block = pane(&title, focused, theme);
        let inner = block.inner(area);
        block.render(area, buf);
        if tools.tools.is_empty() {
            let text = match (&tools.problem, link) {
                (Some(problem), _) => format!("tools/list failed: {problem}"),
                (None, Link::Failed(reason)) => format!("not connected: {reason}"),
                (None, Link::Connected(_)) if tools.listed => {
                    "the server lists no tools".to_owned()
                }
                // Connected, and no listing yet (or none in a replayed file).
                (None, Link::Connected(_)) => "no tool listing yet".to_owned(),
                (None, _) => "connecting…".to_owned(),
            };
            Paragraph::new(text)
                .style(theme.style(Meaning::TextMuted))
                .wrap(Wrap { trim: false })
                .render(inner, buf);
            return;
        }
        let about = about_lines(tools, theme);
        if tools.show_schema {
            // The whole pane for the selected tool: description, annotations and schema, scrolled.
            let scroll = tools.about_scroll.min(about.len().saturating_sub(1));
            Paragraph::new(about)
                .wrap(Wrap { trim: false })
                .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
                .render(inner, buf);
            return;
        }
        let list_rows = layout::tool_list_rows(area, tools.tools.len());
        let [list, gap, below] = Layout::vertical([
            Constraint::Length(u16::try_from(list_rows).unwrap_or(u16::MAX)),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(inner);
        let start = keep_in_view(tools.offset, tools.selected, list_rows);
        let width = usize::from(list.width);
        let rows: Vec<Line> = tools
            .tools
            .iter()
            .enumerate()
            .skip(start)
            .take(list_rows)
            .map(|(i, tool)| {
                let marker = if i == tools.selected { "▸ " } else { "  " };
                // Labels of the visible rows only, made as they are drawn.
                let (name, title) = ToolRow::label(tool);
                let rejected = if tool.rejected.is_some() {
                    "  ✗ rejected"
                } else {
                    ""
                };
                let label = match title {
                    Some(title) => format!("{marker}{name} — {title}{rejected}"),
                    None => format!("{marker}{name}{rejected}"),
                };
                let line = Line::raw(fit(&label, width).into_owned());
                if i == tools.selected {
                    line.style(theme.style(Meaning::Selection))
                } else if tool.rejected.is_some() {
                    // Greyed: not called unless the user asks (I), as a conforming host drops it.
                    line.style(theme.style(Meaning::TextMuted))
                } else {
                    line
                }
            })
            .collect();
        Paragraph::new(rows).render(list, buf);
        // The row under the list says what it hides: tools above and below its window.
        let marks = list_marks(start, list_rows, tools.tools.len());
        Line::styled(marks, theme.style(Meaning::TextTitle)).render(gap, buf);
        // The description below the list, as much as fits; `s` shows all of it.
        let paragraph = Paragraph::new(about).wrap(Wrap { trim: false });
        clipped(paragraph, below, "… more below: s shows it all", theme, buf);
    }
}

/// The selected tool's description and annotations, then its schema when `s` is on.
fn about_lines<'a>(tools: &'a ToolsState, theme: &Theme) -> Vec<Line<'a>> {
    let Some(row) = tools.selected_row.as_ref() else {
        return Vec::new();
    };
    let mut lines = vec![Line::styled(
        row.description.as_str(),
        theme.style(Meaning::Text),
    )];
    if !row.annotations.is_empty() {
        lines.push(Line::styled(
            row.annotations.as_str(),
            theme.style(Meaning::TextMuted),
        ));
    }
    if tools.show_schema {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "inputSchema:",
            theme.style(Meaning::TextTitle),
        ));
        lines.extend(
            row.schema
                .iter()
                .map(|l| Line::styled(l.as_str(), theme.style(Meaning::TextMuted))),
        );
    } else {
        lines.push(Line::styled(
            "Enter: edit its request · s: schema",
            theme.style(Meaning::TextMuted),
        ));
    }
    lines
}
