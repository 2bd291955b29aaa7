//! Where each pane goes for a terminal size; shared by rendering and mouse handling. Pure.

use ratatui::layout::{Constraint, Layout, Rect};

/// Screen areas of the panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Areas {
    pub tools: Rect,
    pub editor: Rect,
    pub log: Rect,
    pub detail: Rect,
    pub model: Rect,
    pub status: Rect,
}

/// Three columns from 100 cells on; two below, with the model view under the log.
pub fn areas(screen: Rect) -> Areas {
    let [main, status] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(screen);
    if screen.width >= 100 {
        let [left, middle, right] = Layout::horizontal([
            Constraint::Percentage(28),
            Constraint::Percentage(40),
            Constraint::Percentage(32),
        ])
        .areas(main);
        let [tools, editor] =
            Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(left);
        let [log, detail] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)])
                .areas(middle);
        Areas {
            tools,
            editor,
            log,
            detail,
            model: right,
            status,
        }
    } else {
        // 35 columns of 80: a request line such as `  "departureDate": "12/12/2024",` fits
        // the editor whole (the editor wraps at every word bound, a date's slashes included).
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(44), Constraint::Percentage(56)])
                .areas(main);
        let [tools, editor] =
            Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(left);
        let [log, detail, model] = Layout::vertical([
            Constraint::Percentage(40),
            Constraint::Percentage(25),
            Constraint::Percentage(35),
        ])
        .areas(right);
        Areas {
            tools,
            editor,
            log,
            detail,
            model,
            status,
        }
    }
}

/// Rows of a bordered pane's inside.
pub fn inner_height(area: Rect) -> usize {
    usize::from(area.height.saturating_sub(2))
}

/// Rows the tools pane gives its list of `count` tools: all of them if they fit in three
/// fifths of it, the rest for the selected tool's description.
pub fn tool_list_rows(tools: Rect, count: usize) -> usize {
    let inner = inner_height(tools);
    count.min((inner * 3 / 5).max(1))
}

/// Where the help goes: centred, as tall as its `rows` allow, never past the screen.
pub fn help_popup(screen: Rect, rows: usize) -> Rect {
    let height = u16::try_from(rows + 2)
        .unwrap_or(u16::MAX)
        .min(screen.height.saturating_sub(1));
    let width = 84.min(screen.width);
    Rect::new(
        screen.x + (screen.width - width) / 2,
        screen.y + (screen.height.saturating_sub(1) - height) / 2,
        width,
        height,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_tile_the_screen_without_overlap() {
        for (width, height) in [(120, 40), (80, 24), (200, 60), (20, 5)] {
            let a = areas(Rect::new(0, 0, width, height));
            let panes = [a.tools, a.editor, a.log, a.detail, a.model, a.status];
            let total: u32 = panes
                .iter()
                .map(|r| u32::from(r.width) * u32::from(r.height))
                .sum();
            assert_eq!(
                total,
                u32::from(width) * u32::from(height),
                "{width}x{height}"
            );
            for (i, x) in panes.iter().enumerate() {
                for y in &panes[i + 1..] {
                    assert!(
                        !x.intersects(*y) || x.area() == 0 || y.area() == 0,
                        "{width}x{height}: {x:?} {y:?}"
                    );
                }
            }
        }
    }
}
