//! The model pane: what the current call shows the model under the host profile.

use super::state::{AppState, Link, ModelPane};
use crate::analysis::{self, CallContext};
use crate::present::call::ViewWords;

fn negotiated_version(state: &AppState) -> &str {
    match &state.link {
        Link::Connected(connection) => &connection.protocol_version,
        Link::Starting | Link::Connecting | Link::Failed(_) | Link::Disconnected => "unknown",
    }
}

/// What the analysis of a call depends on in this session.
pub(super) fn call_context(state: &AppState) -> CallContext<'_> {
    CallContext {
        version: negotiated_version(state),
        catalog: Some(&state.tools.catalog),
        host: state.settings.host(),
        forward_protocol_errors: state.settings.forward_protocol_errors,
    }
}

/// For a call the Chat pane's model made: its run and turn, and whether this view is what it
/// read (the run's host is the one shown) or which host to show for that.
fn chat_note(state: &AppState, call: usize) -> Option<String> {
    let (number, turn) = state.chat.made(call)?;
    let run = state.chat.runs.iter().find(|run| run.number == number)?;
    let host = crate::sanitize::text(&run.host);
    Some(if run.host == state.settings.host().name {
        format!("◆ the Chat model's call (run {number}, turn {turn}): it read this")
    } else {
        format!(
            "◆ the Chat model's call (run {number}, turn {turn}): it read what '{host}' sends \
             (h to '{host}' shows it)"
        )
    })
}

/// Rebuilds the shown model view; the reply's text is borrowed, and only what fits is copied.
pub(super) fn refresh_model(state: &mut AppState) {
    state.model_scroll = 0;
    let current = state
        .current_call_index()
        .and_then(|index| Some((index, state.whole_call(index)?)));
    state.model = current.map(|(index, record)| {
        let view = analysis::view(&record.exchange, &record.outcome, &call_context(state));
        let mut words = ViewWords::of(&view);
        if let Some(note) = chat_note(state, index) {
            words.notes.insert(0, note);
        }
        ModelPane {
            call: index,
            forwarded: view.forwarded,
            host: words.host,
            verdict: words.verdict,
            marker: words.marker,
            text: words.text,
            reason: words.reason,
            notes: words.notes,
            findings: view.findings.clone(),
            captured: super::capture::of(state, index, &view.host).cloned(),
        }
    });
}
