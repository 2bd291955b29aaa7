//! Which pane the left column and Detail draw: the shelf shown (Tools, Resources, Prompts,
//! Skills), and Detail's catalog view (a read, a prompt, a skill loaded) or the log's selection.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::catalog::CatalogDetailPane;
use super::detail::DetailPane;
use super::prompts::PromptsPane;
use super::resources::ResourcesPane;
use super::shared::Sideways;
use super::skills::SkillsPane;
use super::tools::ToolsPane;
use crate::app::catalog_state::Shelf;
use crate::app::state::{AppState, Focus};
use crate::theme::Theme;

/// The left column: the shelf shown.
pub(super) fn left_column(state: &AppState, area: Rect, buf: &mut Buffer, theme: &Theme) {
    let focused = state.focus == Focus::Tools;
    let tools = state.tools.tools.len();
    match state.catalog.shelf {
        Shelf::Tools => ToolsPane {
            tools: &state.tools,
            shelves: state.catalog.others_note(),
            link: &state.link,
            focused,
            theme,
        }
        .render(area, buf),
        Shelf::Resources => ResourcesPane {
            catalog: &state.catalog,
            tools,
            link: &state.link,
            focused,
            theme,
        }
        .render(area, buf),
        Shelf::Prompts => PromptsPane {
            catalog: &state.catalog,
            tools,
            link: &state.link,
            focused,
            theme,
        }
        .render(area, buf),
        Shelf::Skills => SkillsPane {
            catalog: &state.catalog,
            tools,
            link: &state.link,
            focused,
            theme,
        }
        .render(area, buf),
    }
}

/// Detail: the catalog's view when it is the one shown, else the log's selection.
pub(super) fn detail(state: &AppState, area: Rect, buf: &mut Buffer, theme: &Theme) {
    let focused = state.focus == Focus::Detail;
    let sideways = Sideways::of(state);
    match state.catalog.shown_view(state.log.selected) {
        Some(view) => CatalogDetailPane {
            view,
            sideways,
            focused,
            theme,
        }
        .render(area, buf),
        None => DetailPane {
            log: &state.log,
            calls: &state.calls,
            pending: state.pending.as_ref(),
            ticks: state.ticks,
            sideways,
            focused,
            theme,
        }
        .render(area, buf),
    }
}
