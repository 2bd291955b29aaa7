//! The status line's messages: what a transition did, or why it did nothing.

use super::state::{AppState, Status, Tone};

impl AppState {
    /// What was wrong with the configuration (theme, keys…), shown at start in the status
    /// line, terminal-safe; nothing when all was well.
    pub fn show_warnings(&mut self, warnings: &[String]) {
        // The first in full, the count of the rest: 80 columns hold no more, and
        // `sightline keys` lists every one.
        if let Some(first) = warnings.first() {
            let more = match warnings.len() - 1 {
                0 => String::new(),
                more => format!(" (+{more} more: `sightline keys` lists them)"),
            };
            let text = crate::sanitize::text(&format!("{first}{more}")).into_owned();
            complain(self, text);
        }
    }
}

impl AppState {
    /// Whether the screen counts seconds now (a pending call, a real host running, a model
    /// asked): the runtime draws it on every second's tick.
    pub fn counts_seconds(&self) -> bool {
        self.pending_calls > 0
            || self.chat.running().is_some()
            || self
                .captures
                .iter()
                .any(|(_, _, captured)| matches!(captured, super::state::Captured::Running { .. }))
    }
}

pub(super) fn inform(state: &mut AppState, text: String) {
    set_status(state, Tone::Info, text);
}

pub(super) fn complain(state: &mut AppState, text: String) {
    set_status(state, Tone::Error, text);
}

fn set_status(state: &mut AppState, tone: Tone, text: String) {
    state.status = Some(Status {
        tone,
        text,
        since: state.ticks,
    });
}
