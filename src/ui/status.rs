//! The status line: segments that give way by priority as the width shrinks.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::shared::fit;
use crate::app::Command;
use crate::app::keys::Mode;
use crate::app::state::{AppState, Link, Tone};
use crate::mcp::era::Era;
use crate::theme::{Meaning, Theme};

/// One piece of the status line.
struct Segment {
    /// Lower stays longer.
    priority: u8,
    text: String,
    /// A shorter text, tried before the segment gives way.
    short: Option<String>,
    style: Style,
}

/// The status line: segments that give way by priority, so the mode, a message and a pending
/// call are never cut, at 80 columns or less.
pub(super) fn status_bar(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let width = usize::from(area.width);
    let mut used = 0;
    let spans: Vec<Span> = fit_segments(status_segments(state, theme), width)
        .into_iter()
        .map(|segment| {
            let text = fit(&segment.text, width.saturating_sub(used)).into_owned();
            used += text.width();
            Span::styled(text, segment.style)
        })
        .collect();
    Paragraph::new(Line::from(spans))
        .style(theme.style(Meaning::StatusBar))
        .render(area, buf);
}

/// The mode, and the key that leaves it (or opens the help), as this run binds them: a
/// `keys.toml` may have moved them.
fn mode_hint(state: &AppState) -> String {
    let mode = state.key_mode();
    let key = |command| state.settings.keys.key_for(command, mode);
    let hint = |command, what: &str| key(command).map(|key| format!("· {key} {what} "));
    match mode {
        Mode::Editing => format!(
            " EDITING {}",
            hint(Command::Back, "stops").unwrap_or_default()
        ),
        Mode::Help => format!(
            " HELP {}",
            hint(Command::Back, "closes").unwrap_or_default()
        ),
        Mode::Answering => format!(
            " THE SERVER ASKS {}",
            hint(Command::Accept, "accept").unwrap_or_default()
        ),
        Mode::Browsing => {
            key(Command::ToggleHelp).map_or_else(String::new, |key| format!(" {key} help "))
        }
    }
}

fn status_segments(state: &AppState, theme: &Theme) -> Vec<Segment> {
    let bar = theme.style(Meaning::StatusBar);
    let era = |era: Era| match era {
        Era::Legacy => "legacy",
        Era::Modern => "modern",
    };
    let (server, short_server) = match &state.link {
        Link::Connected(c) => {
            let name = crate::sanitize::text(&c.server.name);
            (
                format!(
                    "{name} {} · {} {}",
                    crate::sanitize::text(&c.server.version),
                    era(c.era),
                    c.protocol_version
                ),
                Some(format!("│ {name} · {} ", era(c.era))),
            )
        }
        Link::Starting | Link::Connecting => ("connecting…".to_owned(), None),
        Link::Failed(_) => ("not connected (r retries)".to_owned(), None),
        Link::Disconnected => ("disconnected (r reconnects)".to_owned(), None),
    };
    let mode = mode_hint(state);
    let mut segments = vec![Segment {
        priority: 0,
        text: mode,
        short: None,
        style: bar.patch(theme.style(Meaning::StatusKey)),
    }];
    if state.replay.is_some() {
        segments.push(Segment {
            priority: 1,
            text: " REPLAY · read-only ".to_owned(),
            short: None,
            style: bar.patch(theme.style(Meaning::StatusKey)),
        });
    }
    if state.pending_calls > 0 {
        let plural = if state.pending_calls == 1 { "" } else { "s" };
        segments.push(Segment {
            priority: 1,
            text: format!(" {} call{plural} pending (x cancels) ", state.pending_calls),
            short: None,
            style: bar.patch(theme.style(Meaning::StatusError)),
        });
    }
    if let Some(status) = &state.status {
        let tone = match status.tone {
            Tone::Info => theme.style(Meaning::StatusOk),
            Tone::Error => theme.style(Meaning::StatusError),
        };
        segments.push(Segment {
            priority: 2,
            text: format!(" {} ", status.text),
            short: None,
            style: bar.patch(tone),
        });
    }
    let onoff = |on: bool| if on { "on" } else { "off" };
    let host = crate::sanitize::text(&state.settings.host().name);
    let may = onoff(state.settings.forwards_protocol_errors());
    let validation = onoff(state.settings.validation);
    // Said only when on: off is the default, and the line is short.
    let tasks = if state.settings.tasks {
        " · tasks on"
    } else {
        ""
    };
    segments.push(Segment {
        priority: 3,
        text: format!("│ host {host} · MAY {may} · validation {validation}{tasks} "),
        short: Some(format!("│ {host} · MAY {may} · val {validation}{tasks} ")),
        style: bar,
    });
    let transport = state.transport.split(':').next().unwrap_or_default();
    let session = match &state.link {
        Link::Connected(c) => c.http_session.as_deref().map(|id| {
            format!(
                " · session {}",
                crate::sanitize::text(&crate::app::describe::short_session(id))
            )
        }),
        _ => None,
    }
    .unwrap_or_default();
    segments.push(Segment {
        priority: 4,
        text: format!("│ {server} · {transport}{session} "),
        short: short_server,
        style: bar,
    });
    segments
}

/// The least important segments give way first: their short form, then their place. The mode,
/// a pending call and a message always stay (a message too long is cut at the edge).
fn fit_segments(mut segments: Vec<Segment>, width: usize) -> Vec<Segment> {
    let total = |segments: &[Segment]| segments.iter().map(|s| s.text.width()).sum::<usize>();
    for priority in [4, 3] {
        if total(&segments) <= width {
            return segments;
        }
        if let Some(segment) = segments.iter_mut().find(|s| s.priority == priority)
            && let Some(short) = segment.short.take()
        {
            segment.text = short;
        }
    }
    for priority in [4, 3] {
        if total(&segments) > width {
            segments.retain(|s| s.priority != priority);
        }
    }
    segments
}
