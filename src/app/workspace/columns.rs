//! The side-by-side columns, pure: each column's lines with their tone, where the columns are drawn and how far they scroll, so that drawing them and scrolling them agree.

use crate::app::action::Move;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::{Answer, Column, Comparison, Sent, Server, Workspace};
use crate::app::action::Command;
use crate::app::state::Link;
use crate::classify::Class;
use crate::classify::findings::{Finding, Severity};

/// How a line of a column reads: the theme gives each its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Muted,
    /// A warning about the column (the tool is not listed there).
    Warning,
    /// Why nothing was sent.
    Refused,
    /// The answer's class, in its colour.
    Class(Class),
    /// A finding: a SEP-1303 one, another warning, or information.
    Finding {
        sep1303: bool,
        warning: bool,
    },
    /// What the model sees, forwarded or not.
    Verdict {
        forwarded: bool,
    },
}

/// One line of a column, terminal-safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnLine {
    pub tone: Tone,
    pub text: String,
}

fn line(tone: Tone, text: impl Into<String>) -> ColumnLine {
    ColumnLine {
        tone,
        text: text.into(),
    }
}

/// A column's lines: who answered, then the answer, or why there is none.
pub fn column_lines(server: &Server, column: &Column) -> Vec<ColumnLine> {
    let mut lines = Vec::new();
    if let Link::Connected(connection) = &server.state.link {
        let label = crate::sanitize::text(&connection.server.label()).into_owned();
        lines.push(line(Tone::Muted, label));
    }
    if !column.listed && matches!(column.sent, Sent::From(_)) {
        lines.push(line(
            Tone::Warning,
            "not listed by this server (sent anyway)",
        ));
    }
    match (&column.sent, &column.answer) {
        (Sent::Not(why), _) => lines.push(line(Tone::Refused, why.clone())),
        (Sent::From(_), None) => lines.push(line(Tone::Muted, "pending…")),
        (Sent::From(_), Some(answer)) => lines.extend(answer_lines(answer)),
    }
    lines
}

fn answer_lines(answer: &Answer) -> Vec<ColumnLine> {
    let code = answer
        .code
        .map(|code| format!(" · {code}"))
        .unwrap_or_default();
    let flag = if answer.findings.is_empty() {
        ""
    } else {
        "⚑ "
    };
    let mut lines = vec![
        line(
            Tone::Class(answer.class),
            format!("{flag}{}{code}", answer.class.label()),
        ),
        line(Tone::Plain, answer.detail.clone()),
    ];
    // One line each, the rule's name: the model pane of the server has the whole message.
    for finding in &answer.findings {
        lines.push(line(finding_tone(finding), finding_words(finding)));
    }
    lines.push(line(Tone::Plain, ""));
    let words = &answer.words;
    let forwarded = answer.forwarded;
    lines.push(line(
        Tone::Verdict { forwarded },
        format!("the model: {}", words.verdict),
    ));
    if !words.marker.is_empty() {
        lines.push(line(Tone::Muted, words.marker));
    }
    lines.extend(words.text.lines().map(|text| line(Tone::Plain, text)));
    lines.push(line(Tone::Muted, format!("why: {}", words.reason)));
    // Under a profile that is no real host's: what the calibrated hosts do with this answer.
    let measured = crate::model_view::measured::MEASURED;
    if let Some(note) = words.notes.iter().find(|note| note.starts_with(measured)) {
        lines.push(line(Tone::Muted, note.clone()));
    }
    lines
}

fn finding_words(finding: &Finding) -> String {
    let severity = match finding.severity {
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    format!("⚑ {} ({severity})", finding.id)
}

fn finding_tone(finding: &Finding) -> Tone {
    let warning = finding.severity == Severity::Warning;
    Tone::Finding {
        sep1303: warning && finding.id.starts_with("sep1303"),
        warning,
    }
}

/// The comparison's place on a screen whose body is `body`: all of it but the status line.
pub fn comparison_area(body: Rect) -> Rect {
    Rect::new(body.x, body.y, body.width, body.height.saturating_sub(1))
}

/// Where each of `count` columns is drawn inside the comparison's frame at `area`.
pub fn column_places(area: Rect, count: usize) -> Vec<Rect> {
    let inner = Rect::new(
        area.x.saturating_add(1),
        area.y.saturating_add(1),
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    let count = count.max(1);
    let ratio = u32::try_from(count).unwrap_or(u32::MAX);
    Layout::horizontal(vec![Constraint::Ratio(1, ratio); count])
        .split(inner)
        .to_vec()
}

/// Inside a column's border.
pub fn column_inside(place: Rect) -> Rect {
    Rect::new(
        place.x.saturating_add(1),
        place.y.saturating_add(1),
        place.width.saturating_sub(2),
        place.height.saturating_sub(2),
    )
}

/// How many rows of `lines`, wrapped to `inside`, do not fit in it.
pub fn rows_past(lines: &[ColumnLine], inside: Rect) -> usize {
    let plain: Vec<Line> = lines
        .iter()
        .map(|line| Line::raw(line.text.as_str()))
        .collect();
    Paragraph::new(plain)
        .wrap(Wrap { trim: false })
        .line_count(inside.width)
        .saturating_sub(usize::from(inside.height))
}

/// The farthest the columns scroll together: until the longest one shows its last row.
pub fn most_scroll(workspace: &Workspace, comparison: &Comparison) -> usize {
    let area = comparison_area(workspace.shown().screen);
    let places = column_places(area, comparison.columns.len());
    comparison
        .columns
        .iter()
        .zip(&workspace.servers)
        .zip(places)
        .map(|((column, server), place)| {
            rows_past(&column_lines(server, column), column_inside(place))
        })
        .max()
        .unwrap_or(0)
}

/// Scrolls the comparison on screen: a row, a page, to either end (`command` is one of the
/// selection's moves); never past the longest column's last row.
pub(super) fn scroll(workspace: &mut Workspace, command: Command) {
    scroll_to(workspace, |at, page, most| match command {
        Command::Move(Move::SelectNext) => at + 1,
        Command::Move(Move::SelectPrev) => at.saturating_sub(1),
        Command::Move(Move::PageDown) => at + page,
        Command::Move(Move::PageUp) => at.saturating_sub(page),
        Command::Move(Move::SelectFirst) => 0,
        Command::Move(Move::SelectLast) => most,
        _ => at,
    });
}

/// Rows the mouse wheel scrolls at a time.
pub const WHEEL_ROWS: usize = 3;

/// The wheel over the comparison: `down` or up by [`WHEEL_ROWS`].
pub(super) fn wheel(workspace: &mut Workspace, down: bool) {
    scroll_to(workspace, |at, _, _| {
        if down {
            at + WHEEL_ROWS
        } else {
            at.saturating_sub(WHEEL_ROWS)
        }
    });
}

/// Sets the scroll to what `to` makes of where it is, of a page (a column's height less the
/// one row kept in view) and of the farthest it goes; never past that farthest.
fn scroll_to(workspace: &mut Workspace, to: impl FnOnce(usize, usize, usize) -> usize) {
    let Some(comparison) = workspace.comparison.as_ref() else {
        return;
    };
    let most = most_scroll(workspace, comparison);
    // The frame's border and the column's: two rows each.
    let area = comparison_area(workspace.shown().screen);
    let page = usize::from(area.height.saturating_sub(4))
        .saturating_sub(1)
        .max(1);
    let at = comparison.scroll.min(most);
    let target = to(at, page, most).min(most);
    if let Some(comparison) = workspace.comparison.as_mut() {
        comparison.scroll = target;
    }
}
