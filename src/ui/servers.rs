//! The server bar: one row naming every open server with its state, era and transport; the shown one in full, the others shortened first when the row is narrow.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::shared::fit;
use crate::app::state::{AppState, Link};
use crate::app::workspace::Workspace;
use crate::mcp::era::Era;
use crate::theme::{Meaning, Theme};

pub(super) struct ServerBar<'a> {
    pub workspace: &'a Workspace,
    pub theme: &'a Theme,
}

/// A server's entry, from longest to shortest.
struct Entry {
    forms: [String; 4],
    meaning: Meaning,
    shown: bool,
}

/// The state in a word or two, and its colour.
fn state_words(state: &AppState) -> (String, String, Meaning) {
    let era = |era: Era| match era {
        Era::Legacy => "legacy",
        Era::Modern => "modern",
    };
    let transport = state.transport.split(':').next().unwrap_or_default();
    match &state.link {
        // A question waits on a server not shown: the bar is where the user learns of it.
        Link::Connected(c) if state.asking.is_some() => (
            "asks you".into(),
            format!(" · {} · {transport}", era(c.era)),
            Meaning::StatusError,
        ),
        Link::Connected(c) => (
            "ready".into(),
            format!(
                " · {} {} · {transport}",
                era(c.era),
                crate::sanitize::text(&c.protocol_version)
            ),
            Meaning::OutcomeSuccess,
        ),
        Link::Starting | Link::Connecting => (
            "connecting…".into(),
            format!(" · {transport}"),
            Meaning::TextMuted,
        ),
        Link::Failed(why) => (
            format!("failed: {}", crate::sanitize::text(why)),
            String::new(),
            Meaning::OutcomeProtocolError,
        ),
        Link::Disconnected => (
            "ended".into(),
            format!(" · {transport}"),
            Meaning::OutcomeTransportFailure,
        ),
    }
}

impl ServerBar<'_> {
    fn entries(&self) -> Vec<Entry> {
        let servers = &self.workspace.servers;
        servers
            .iter()
            .enumerate()
            .map(|(index, server)| {
                let (state, details, meaning) = state_words(&server.state);
                let number = index + 1;
                let word = state.split(':').next().unwrap_or_default().to_owned();
                // The state as a sign when there is no room for its word: never colour alone.
                let sign = match word.as_str() {
                    "ready" => "✓",
                    "failed" => "✗",
                    "ended" => "■",
                    "asks you" => "?",
                    _ => "○",
                };
                Entry {
                    forms: [
                        format!(" {number} {} {state}{details} ", server.name),
                        format!(" {number} {} {word} ", server.name),
                        format!(" {number} {} {sign} ", fit(&server.name, 8)),
                        format!(" {number} {sign} "),
                    ],
                    meaning,
                    shown: index == self.workspace.selected,
                }
            })
            .collect()
    }
}

/// Which form each entry takes: the others shortened first, down to their number and state sign;
/// the shown one keeps its longest, cut to the room they leave (see the rendering), and is
/// counted here as half the row at most, so that a long failure does not hide the others'
/// states.
fn choose(entries: &[Entry], width: usize) -> Vec<usize> {
    let mut forms = vec![0; entries.len()];
    let total = |forms: &[usize]| -> usize {
        entries
            .iter()
            .zip(forms)
            .map(|(entry, &form)| {
                let long = entry.forms[form].width() + 1;
                if entry.shown {
                    long.min(width / 2)
                } else {
                    long
                }
            })
            .sum()
    };
    for level in 1..4 {
        for (index, entry) in entries.iter().enumerate() {
            if total(&forms) <= width {
                return forms;
            }
            if !entry.shown {
                forms[index] = level;
            }
        }
    }
    forms
}

impl Widget for ServerBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let width = usize::from(area.width);
        let entries = self.entries();
        let forms = choose(&entries, width);
        let others: usize = entries
            .iter()
            .zip(&forms)
            .filter(|(entry, _)| !entry.shown)
            .map(|(entry, &form)| entry.forms[form].width() + 1)
            .sum();
        let mut spans = Vec::new();
        let mut used = 0;
        for (entry, form) in entries.iter().zip(forms) {
            let mut room = width.saturating_sub(used);
            if entry.shown {
                // What is left once the others have their short forms, and at least its name.
                let least = entry.forms[3].width();
                room = room.min(width.saturating_sub(others + 1).max(least));
            }
            if room == 0 {
                break;
            }
            let whole = &entry.forms[form];
            // The padding goes before any word is cut.
            let text = if whole.width() <= room {
                whole.clone()
            } else {
                fit(whole.trim_end(), room).into_owned()
            };
            used += text.width() + 1;
            let mut style = theme.style(entry.meaning);
            if entry.shown {
                style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            spans.push(Span::styled(text, style));
            spans.push(Span::styled("│", theme.style(Meaning::Border)));
        }
        Paragraph::new(Line::from(spans))
            .style(theme.style(Meaning::Text).patch(Style::default()))
            .render(area, buf);
    }
}
