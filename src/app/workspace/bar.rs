//! The server bar's layout, pure: each server's entry in the words the row has room for, and the columns it takes, so that drawing it and clicking on it agree.

use std::ops::Range;

use unicode_width::UnicodeWidthStr;

use super::Workspace;
use crate::app::state::{AppState, Link};
use crate::mcp::era::Era;
use crate::present::limits::fit;

/// A server's state as the bar says it (and colours it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarState {
    Ready,
    /// Connected, with a question waiting for the user.
    Asking,
    Connecting,
    Failed,
    Ended,
}

/// One server's entry, as drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BarEntry {
    /// The server's index in the workspace.
    pub index: usize,
    pub text: String,
    pub state: BarState,
    pub shown: bool,
    /// The columns the text takes (a separator follows it).
    pub columns: Range<u16>,
}

/// A server's entry, from longest to shortest.
struct Forms {
    longest_first: [String; 4],
    state: BarState,
    shown: bool,
}

/// The state in a word or two, and the details after it.
fn state_words(state: &AppState) -> (String, String, BarState) {
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
            BarState::Asking,
        ),
        Link::Connected(c) => (
            "ready".into(),
            format!(
                " · {} {} · {transport}",
                era(c.era),
                crate::sanitize::text(&c.protocol_version)
            ),
            BarState::Ready,
        ),
        Link::Starting | Link::Connecting => (
            "connecting…".into(),
            format!(" · {transport}"),
            BarState::Connecting,
        ),
        Link::Failed(why) => (
            format!("failed: {}", crate::sanitize::text(why)),
            String::new(),
            BarState::Failed,
        ),
        Link::Disconnected => ("ended".into(), format!(" · {transport}"), BarState::Ended),
    }
}

fn forms(workspace: &Workspace) -> Vec<Forms> {
    workspace
        .servers
        .iter()
        .enumerate()
        .map(|(index, server)| {
            let (words, details, state) = state_words(&server.state);
            let number = index + 1;
            let word = words.split(':').next().unwrap_or_default().to_owned();
            // The state as a sign when there is no room for its word: never colour alone.
            let sign = match state {
                BarState::Ready => "✓",
                BarState::Failed => "✗",
                BarState::Ended => "■",
                BarState::Asking => "?",
                BarState::Connecting => "○",
            };
            Forms {
                longest_first: [
                    format!(" {number} {} {words}{details} ", server.name),
                    format!(" {number} {} {word} ", server.name),
                    format!(" {number} {} {sign} ", fit(&server.name, 8)),
                    format!(" {number} {sign} "),
                ],
                state,
                shown: index == workspace.selected,
            }
        })
        .collect()
}

/// Which form each entry takes: the others shortened first, down to their number and state sign;
/// the shown one keeps its longest, cut to the room they leave (see [`bar_entries`]), and is
/// counted here as half the row at most, so that a long failure does not hide the others'
/// states.
fn choose(entries: &[Forms], width: usize) -> Vec<usize> {
    let mut chosen = vec![0; entries.len()];
    let total = |chosen: &[usize]| -> usize {
        entries
            .iter()
            .zip(chosen)
            .map(|(entry, &form)| {
                let long = entry.longest_first[form].width() + 1;
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
            if total(&chosen) <= width {
                return chosen;
            }
            if !entry.shown {
                chosen[index] = level;
            }
        }
    }
    chosen
}

/// The entries of a bar `width` columns wide, left to right; those past its end are left out.
pub fn bar_entries(workspace: &Workspace, width: u16) -> Vec<BarEntry> {
    let width = usize::from(width);
    let entries = forms(workspace);
    let chosen = choose(&entries, width);
    let others: usize = entries
        .iter()
        .zip(&chosen)
        .filter(|(entry, _)| !entry.shown)
        .map(|(entry, &form)| entry.longest_first[form].width() + 1)
        .sum();
    let mut placed = Vec::new();
    let mut used = 0;
    for (index, (entry, form)) in entries.iter().zip(chosen).enumerate() {
        let mut room = width.saturating_sub(used);
        if entry.shown {
            // What is left once the others have their short forms, and at least its name.
            let least = entry.longest_first[3].width();
            room = room.min(width.saturating_sub(others + 1).max(least));
        }
        if room == 0 {
            break;
        }
        let whole = &entry.longest_first[form];
        // The padding goes before any word is cut.
        let text = if whole.width() <= room {
            whole.clone()
        } else {
            fit(whole.trim_end(), room).into_owned()
        };
        let start = u16::try_from(used).unwrap_or(u16::MAX);
        used += text.width();
        let end = u16::try_from(used).unwrap_or(u16::MAX);
        used += 1;
        placed.push(BarEntry {
            index,
            text,
            state: entry.state,
            shown: entry.shown,
            columns: start..end,
        });
    }
    placed
}

/// The server whose entry is drawn at `column` of a bar `width` wide (none on a separator).
pub fn server_at(workspace: &Workspace, width: u16, column: u16) -> Option<usize> {
    bar_entries(workspace, width)
        .into_iter()
        .find(|entry| entry.columns.contains(&column))
        .map(|entry| entry.index)
}
