//! The view and setting toggles (wrap, validation, forwarding, tasks, host), each announced.

use super::action::{Effect, SessionCommand};
use super::editor::check_editor;
use super::model_pane::refresh_model;
use super::state::AppState;
use super::status::inform;
use crate::sanitize;

/// Columns one ← or → scrolls.
const HSCROLL_STEP: usize = 8;

/// `t`: the tasks extension declared from the next request on, or no more.
pub(super) fn toggle_tasks(state: &mut AppState) -> Vec<Effect> {
    state.settings.tasks = !state.settings.tasks;
    let on = state.settings.tasks;
    let text = if on {
        "tasks extension on: declared on every 2026-07-28 request, task handles polled"
    } else {
        "tasks extension off: not declared"
    };
    inform(state, text.to_owned());
    vec![Effect::Session(SessionCommand::SetTasks(on))]
}

/// `w`: Detail and the model view wrap long lines, or end them in … and scroll sideways.
pub(super) fn toggle_wrap(state: &mut AppState) {
    state.wrap = !state.wrap;
    state.hscroll = 0;
    let text = if state.wrap {
        "wrap on: long lines in Detail and the model view wrap"
    } else {
        "wrap off: long lines end in … (← → scroll sideways)"
    };
    inform(state, text.into());
}

/// `←` `→`: Detail and the model view scroll sideways, when they do not wrap.
pub(super) fn scroll_sideways(state: &mut AppState, left: bool) {
    if state.wrap {
        inform(
            state,
            "lines wrap: w turns wrapping off to scroll sideways".into(),
        );
    } else if left {
        state.hscroll = state.hscroll.saturating_sub(HSCROLL_STEP);
    } else {
        state.hscroll += HSCROLL_STEP;
    }
}

/// `v`: client-side validation of the arguments against the input schema.
pub(super) fn toggle_validation(state: &mut AppState) {
    state.settings.validation = !state.settings.validation;
    check_editor(state);
    let word = if state.settings.validation {
        "on: arguments are checked against the input schema"
    } else {
        "off: sending exactly what you type"
    };
    inform(state, format!("client-side validation {word}"));
}

/// `I`: whether a tool with an invalid `x-mcp-header` may be called anyway.
pub(super) fn toggle_invalid_headers(state: &mut AppState) {
    let allow = !state.settings.allow_invalid_tool_headers;
    state.settings.allow_invalid_tool_headers = allow;
    let text = if allow {
        "tools with an invalid x-mcp-header: sent anyway, as a deliberate test"
    } else {
        "tools with an invalid x-mcp-header: excluded, as 2026-07-28 asks"
    };
    inform(state, text.into());
}

/// `m`: the MAY rule, protocol errors forwarded to the model or not.
pub(super) fn toggle_forwarding(state: &mut AppState) {
    state.settings.forward_protocol_errors = !state.settings.forward_protocol_errors;
    refresh_model(state);
    let text = if state.settings.forward_protocol_errors {
        "MAY rule on: protocol errors forwarded to the model"
    } else {
        "MAY rule off: protocol errors not forwarded to the model"
    };
    inform(state, text.to_owned());
}

/// `h`: the next host profile.
pub(super) fn cycle_host(state: &mut AppState) {
    state.settings.host = (state.settings.host + 1) % state.settings.hosts.len().max(1);
    refresh_model(state);
    let host = state.settings.host();
    inform(
        state,
        format!(
            "host profile '{}': {}",
            sanitize::text(&host.name),
            sanitize::text(&host.description)
        ),
    );
}
