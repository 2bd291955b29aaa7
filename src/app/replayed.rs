//! In a replay, the Request pane shows what the current call sent (its tool highlighted, its arguments as recorded), not a fresh skeleton.

use super::editor::{check_editor, textarea_of};
use super::navigation::select_tool;
use super::state::AppState;

/// Puts the current call's recorded arguments in the editor, once per call that becomes
/// current (the selected row's, or the latest): moving in the Tools pane afterwards shows the
/// other tools' drafts as ever, and the recorded arguments come back with their tool.
pub(super) fn show_replayed_request(state: &mut AppState) {
    let Some(index) = state.current_call_index() else {
        return;
    };
    if state.editor.replayed_call == Some(index) {
        return;
    }
    // A call left in the transcript is shown once it is read back.
    let Some(call) = state.whole_call(index) else {
        return;
    };
    let tool = call.tool.clone();
    // The arguments as they went out (member order kept), pretty; none when none were sent.
    let text = call
        .exchange
        .params()
        .and_then(|params| params.get("arguments"))
        .and_then(|arguments| serde_json::to_string_pretty(arguments).ok())
        .unwrap_or_default();
    state.editor.replayed_call = Some(index);
    let listed = state
        .tools
        .tools
        .iter()
        .position(|listed| listed.name == tool);
    if state.editor.tool.as_deref() == Some(tool.as_str()) {
        state.editor.textarea = textarea_of(&text);
        check_editor(state);
        return;
    }
    state.editor.drafts.insert(tool.clone(), textarea_of(&text));
    if let Some(position) = listed {
        select_tool(state, position);
        return;
    }
    // Not in the recorded listing (or there is none, as in a call saved with J): shown under
    // its own name all the same.
    if let Some(previous) = state.editor.tool.take() {
        let draft = std::mem::take(&mut state.editor.textarea);
        state.editor.drafts.insert(previous, draft);
    }
    state.editor.textarea = state.editor.drafts.remove(&tool).unwrap_or_default();
    state.editor.tool = Some(tool);
    state.editor.hints.clear();
    check_editor(state);
}
