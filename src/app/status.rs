//! The status line's messages: what a transition did, or why it did nothing.

use super::state::{AppState, Status, Tone};

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
