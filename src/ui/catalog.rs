//! What the Resources and Prompts shelves share: the list window with the selected row's
//! details below it, the empty shelf's reason, and Detail's view of a read or a prompt.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::shared::{
    Sideways, clipped, fit, hidden_rows, list_marks, pane, with_hidden, wrapped_or_cut,
};
use crate::app::catalog_state::{CatalogView, Listing};
use crate::app::layout;
use crate::app::state::Link;
use crate::app::update::keep_in_view;
use crate::theme::{Meaning, Theme};

/// A row of a shelf's list, terminal-safe already.
pub(super) struct Row {
    pub label: String,
    /// Drawn muted (a template, among resources).
    pub muted: bool,
}

/// Why a shelf is empty, in words.
pub(super) fn empty_reason(listing: &Listing, link: &Link, what: &str) -> String {
    match (&listing.problem, link) {
        (Some(problem), _) => problem.clone(),
        (None, Link::Failed(reason)) => format!("not connected: {reason}"),
        (None, Link::Connected(_)) if listing.loading => format!("listing {what}…"),
        (None, Link::Connected(_)) => format!("the server lists no {what}"),
        (None, _) => "connecting…".to_owned(),
    }
}

/// A shelf: its title, its rows (the selected one in view), the selected row's details below.
pub(super) struct ShelfPane<'a> {
    pub title: String,
    pub rows: Vec<Row>,
    pub selected: usize,
    pub offset: usize,
    /// Shown instead of the list when it is empty.
    pub empty: String,
    pub about: Vec<Line<'a>>,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for ShelfPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let block = pane(&self.title, self.focused, theme);
        let inner = block.inner(area);
        block.render(area, buf);
        if self.rows.is_empty() {
            Paragraph::new(self.empty)
                .style(theme.style(Meaning::TextMuted))
                .wrap(Wrap { trim: false })
                .render(inner, buf);
            return;
        }
        let list_rows = layout::tool_list_rows(area, self.rows.len());
        let [list, gap, below] = Layout::vertical([
            Constraint::Length(u16::try_from(list_rows).unwrap_or(u16::MAX)),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(inner);
        let start = keep_in_view(self.offset, self.selected, list_rows);
        let width = usize::from(list.width);
        let lines: Vec<Line> = self
            .rows
            .iter()
            .enumerate()
            .skip(start)
            .take(list_rows)
            .map(|(i, row)| {
                let marker = if i == self.selected { "▸ " } else { "  " };
                let line = Line::raw(fit(&format!("{marker}{}", row.label), width).into_owned());
                if i == self.selected {
                    line.style(theme.style(Meaning::Selection))
                } else if row.muted {
                    line.style(theme.style(Meaning::TextMuted))
                } else {
                    line
                }
            })
            .collect();
        Paragraph::new(lines).render(list, buf);
        // As the Tools pane: what the window hides, and a cut description said as cut.
        let marks = list_marks(start, list_rows, self.rows.len());
        Line::styled(marks, theme.style(Meaning::TextTitle)).render(gap, buf);
        let about = Paragraph::new(self.about).wrap(Wrap { trim: false });
        clipped(about, below, "… more below", theme, buf);
    }
}

/// Detail showing a read's contents or a prompt's messages.
pub(super) struct CatalogDetailPane<'a> {
    pub view: &'a CatalogView,
    pub sideways: Sideways,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for CatalogDetailPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let CatalogDetailPane {
            view,
            sideways,
            focused,
            theme,
        } = self;
        let title = format!("Detail · {}", view.title);
        let block = pane(&title, focused, theme);
        let inner = block.inner(area);
        let rows: Vec<Line> = view
            .lines
            .iter()
            .skip(view.scroll)
            .map(|line| {
                let style = if line.starts_with("──") {
                    theme.style(Meaning::TextTitle)
                } else {
                    theme.style(Meaning::Text)
                };
                Line::styled(line.as_str(), style)
            })
            .collect();
        // What the pane cannot show is counted in its border, as in the call's Detail.
        let (_, below) = hidden_rows(&rows, sideways, 0, inner);
        with_hidden(block, view.scroll, below, theme).render(area, buf);
        wrapped_or_cut(rows, sideways, 0, inner, buf);
    }
}
