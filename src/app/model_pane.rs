//! The model pane: what the current call shows the model under the host profile.

use std::fmt::Write;

use super::state::{AppState, Link, ModelPane};
use crate::analysis::{self, CallContext};
use crate::model_view::Block;
use crate::sanitize;

pub(super) use crate::present::limits::MODEL_TEXT_BYTES;

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
        catalog: Some(&state.tools.tools),
        host: state.settings.host(),
        forward_protocol_errors: state.settings.forward_protocol_errors,
    }
}

/// Rebuilds the shown model view; the reply's text is borrowed, and only what fits is copied.
pub(super) fn refresh_model(state: &mut AppState) {
    state.model_scroll = 0;
    let current = state
        .current_call_index()
        .and_then(|index| Some((index, state.whole_call(index)?)));
    state.model = current.map(|(index, record)| {
        let view = analysis::view(&record.exchange, &record.outcome, &call_context(state));
        let (shown, omitted) = view.text_within(MODEL_TEXT_BYTES);
        let mut text = sanitize::text_keeping_newlines(&shown);
        if omitted > 0 {
            let _ = write!(text, "… ({omitted} more bytes)");
        }
        ModelPane {
            call: index,
            host: sanitize::text(&view.host).into_owned(),
            verdict: view.verdict(),
            forwarded: view.forwarded,
            is_error: view.is_error,
            rule: view.rule,
            structured: view
                .blocks
                .iter()
                .any(|block| matches!(block, Block::Structured { .. })),
            text,
            reason: sanitize::text(&view.reason).into_owned(),
            notes: view
                .notes
                .iter()
                .map(|note| sanitize::text(note).into_owned())
                .collect(),
            findings: view.findings.clone(),
            captured: super::capture::of(state, index, &view.host).cloned(),
        }
    });
}
