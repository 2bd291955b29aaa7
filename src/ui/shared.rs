//! What several panes and overlays share: the pane's frame, cutting text to fit, wrapping or
//! cutting a pane's lines, an outcome's colour and a finding's lines.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};
use unicode_width::UnicodeWidthChar;

use crate::app::state::{AppState, Link};
use crate::classify::Class;
use crate::classify::findings::{Finding, Severity};
use crate::theme::{Meaning, Theme};

pub use crate::present::limits::fit;

/// The columns of `text` from `skip` on, at most `width` of them, with `…` where more follows
/// (sideways scrolling with wrap off).
fn window(text: &str, skip: usize, width: usize) -> Cow<'_, str> {
    if skip == 0 {
        return fit(text, width);
    }
    let mut at = 0;
    let rest = text
        .char_indices()
        .find(|(_, c)| {
            let before = at;
            at += c.width().unwrap_or(0);
            before >= skip
        })
        .map_or("", |(i, _)| &text[i..]);
    Cow::Owned(fit(rest, width).into_owned())
}

pub(super) fn pane<'a>(title: &str, focused: bool, theme: &Theme) -> Block<'a> {
    let (border, kind) = if focused {
        (theme.style(Meaning::BorderFocused), BorderType::Thick)
    } else {
        (theme.style(Meaning::Border), BorderType::Rounded)
    };
    Block::bordered()
        .border_type(kind)
        .border_style(border)
        .title(Span::styled(
            format!(" {title} "),
            if focused {
                theme.style(Meaning::TextTitle)
            } else {
                theme.style(Meaning::Text)
            },
        ))
}

/// The theme meaning of an outcome class.
pub fn class_meaning(class: Class) -> Meaning {
    match class {
        Class::Success => Meaning::OutcomeSuccess,
        Class::ToolError => Meaning::OutcomeToolError,
        Class::ProtocolError => Meaning::OutcomeProtocolError,
        Class::TransportFailure => Meaning::OutcomeTransportFailure,
    }
}

/// A finding in the model pane: a blank line, the flag, the id, the message.
pub(super) fn finding_lines<'a>(finding: &'a Finding, theme: &Theme) -> [Line<'a>; 4] {
    let meaning = match finding.severity {
        Severity::Warning if finding.id.starts_with("sep1303") => Meaning::FindingSep1303,
        Severity::Warning => Meaning::FindingWarning,
        Severity::Info => Meaning::FindingInfo,
    };
    let severity = match finding.severity {
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    [
        Line::raw(""),
        Line::styled(format!("⚑ finding ({severity})"), theme.style(meaning)),
        Line::styled(finding.id, theme.style(meaning)),
        Line::styled(
            crate::sanitize::text(&finding.message).into_owned(),
            theme.style(Meaning::Text),
        ),
    ]
}

/// How Detail and the model view fit long lines: wrapped, or cut and scrolled sideways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sideways {
    pub wrap: bool,
    /// Columns scrolled sideways (wrap off).
    pub hscroll: usize,
}

impl Sideways {
    pub(super) fn of(state: &AppState) -> Self {
        Self {
            wrap: state.wrap,
            hscroll: state.hscroll,
        }
    }
}

/// Lines wrapped at the pane's edge, or (wrap off) cut there with `…` and scrolled sideways.
pub(super) fn wrapped_or_cut(
    lines: Vec<Line>,
    sideways: Sideways,
    scroll: usize,
    area: Rect,
    buf: &mut Buffer,
) {
    let scroll = u16::try_from(scroll).unwrap_or(u16::MAX);
    if sideways.wrap {
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .render(area, buf);
    } else {
        let width = usize::from(area.width);
        let cut: Vec<Line> = lines
            .into_iter()
            .map(|line| {
                let text: String = line
                    .spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect();
                let style = line
                    .spans
                    .first()
                    .map_or(line.style, |span| line.style.patch(span.style));
                Line::styled(window(&text, sideways.hscroll, width).into_owned(), style)
            })
            .collect();
        Paragraph::new(cut).scroll((scroll, 0)).render(area, buf);
    }
}

/// What an empty pane says while no server is connected, instead of asking for a tool that
/// cannot be sent: connecting, or why not connected and the key that retries. `None` once
/// connected (a replay never retries: it sends nothing).
pub(super) fn unconnected(link: &Link, replay: bool) -> Option<String> {
    match link {
        Link::Connected(_) => None,
        Link::Starting | Link::Connecting => Some("Connecting to the server…".to_owned()),
        Link::Failed(_) if replay => Some("Not connected.".to_owned()),
        Link::Failed(reason) => Some(format!("Not connected: {reason}. r retries.")),
        Link::Disconnected if replay => Some("The server ended (as recorded).".to_owned()),
        Link::Disconnected => Some("The server is gone. r reconnects.".to_owned()),
    }
}

/// A progress bar of `cells` cells, `ratio` (0..=1) of them full.
pub(super) fn progress_bar(ratio: f64, cells: usize) -> String {
    // Rounded down: a bar is full only when the work is.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let full = ((ratio.clamp(0.0, 1.0) * cells as f64).floor() as usize).min(cells);
    format!("▕{}{}▏", "█".repeat(full), "░".repeat(cells - full))
}

/// The pending call's progress in one line: the bar when the total is known, the count, the
/// server's message.
pub(super) fn progress_words(progress: &crate::app::pending::Progress, cells: usize) -> String {
    let bar = progress
        .ratio()
        .map(|ratio| format!("{} ", progress_bar(ratio, cells)))
        .unwrap_or_default();
    let message = progress
        .message
        .as_deref()
        .map(|message| format!(" {message}"))
        .unwrap_or_default();
    format!("{bar}{}{message}", progress.count())
}

/// The row under a list window: how many rows it hides above and below (empty when none).
pub(super) fn list_marks(start: usize, shown: usize, total: usize) -> String {
    let below = total.saturating_sub(start + shown);
    match (start, below) {
        (0, 0) => String::new(),
        (0, below) => format!("  ↓ {below} more"),
        (above, 0) => format!("  ↑ {above} above"),
        (above, below) => format!("  ↑ {above} above · ↓ {below} more"),
    }
}

/// `paragraph` (wrapped) in `area`; when it does not fit, its last row is `more` instead.
pub(super) fn clipped(
    paragraph: Paragraph,
    area: Rect,
    more: &str,
    theme: &Theme,
    buf: &mut Buffer,
) {
    let needed = paragraph.line_count(area.width);
    if needed > usize::from(area.height) && area.height > 1 {
        let text = Rect {
            height: area.height - 1,
            ..area
        };
        let last = Rect {
            y: area.y + area.height - 1,
            height: 1,
            ..area
        };
        paragraph.render(text, buf);
        Line::styled(more.to_owned(), theme.style(Meaning::TextMuted)).render(last, buf);
    } else {
        paragraph.render(area, buf);
    }
}

/// `block` marked with what its inside hides: `↑ N` above and `↓ N more` below, in its bottom
/// border, so that a pane cut by the screen's height never looks complete.
pub(super) fn with_hidden<'a>(
    block: Block<'a>,
    above: usize,
    below: usize,
    theme: &Theme,
) -> Block<'a> {
    let words = match (above, below) {
        (0, 0) => return block,
        (0, below) => format!(" ↓ {below} more "),
        (above, 0) => format!(" ↑ {above} above "),
        (above, below) => format!(" ↑ {above} · ↓ {below} more "),
    };
    block.title_bottom(Line::styled(words, theme.style(Meaning::TextTitle)).right_aligned())
}

/// Rows `lines` take in `area` (wrapped at its width, or one each when cut), and how many of
/// them the view from `scroll` leaves above and below.
pub(super) fn hidden_rows(
    lines: &[Line],
    sideways: Sideways,
    scroll: usize,
    area: Rect,
) -> (usize, usize) {
    let rows = if sideways.wrap {
        Paragraph::new(lines.to_vec())
            .wrap(Wrap { trim: false })
            .line_count(area.width)
    } else {
        lines.len()
    };
    let above = scroll.min(rows);
    let below = rows.saturating_sub(scroll + usize::from(area.height));
    (above, below)
}
