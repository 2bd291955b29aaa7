//! The request editor's transitions: which tool's draft it shows, where typing goes (the value
//! under the cursor, the next placeholder), and the check of what is typed. Part of `update`.

use serde_json::Value;
use tui_textarea::{CursorMove, WrapMode};

use super::keys::Mode;
use super::placeholders;
use super::state::{AppState, Focus};
use crate::mcp::messages::Tool;
use crate::sanitize;
use crate::schema::skeleton;

/// The editor's cursor shows only while editing.
pub(super) fn show_editor_cursor(state: &mut AppState) {
    if state.focus != Focus::Editor {
        state.editing = false;
    }
    let style = if state.key_mode() == Mode::Editing {
        ratatui::style::Style::new().reversed()
    } else {
        ratatui::style::Style::new()
    };
    state.editor.textarea.set_cursor_style(style);
}

/// The Request pane always shows the highlighted tool: its draft, or a fresh skeleton. The
/// draft of the tool shown before is kept for when it comes back.
pub(super) fn show_selected_tool(state: &mut AppState) {
    // A prompt or template form stays until the Tools shelf is shown again.
    if state
        .catalog
        .form_in_editor(state.editor.tool.as_deref())
        .is_some()
    {
        return;
    }
    let Some(tool) = state.tools.selected_tool().cloned() else {
        return;
    };
    if state.editor.tool.as_deref() == Some(tool.name.as_str()) {
        return;
    }
    if let Some(previous) = state.editor.tool.take() {
        let draft = std::mem::take(&mut state.editor.textarea);
        state.editor.drafts.insert(previous, draft);
    }
    match state.editor.drafts.remove(tool.name.as_str()) {
        Some(draft) => {
            state.editor.textarea = draft;
            state.editor.tool = Some(tool.name.to_string());
            state.editor.hints = hints_of(&tool);
            check_editor(state);
        }
        None => load_skeleton(state, &tool.name, tool.input_schema().as_ref()),
    }
}

/// Selects the value the cursor is in, so typing replaces it; in a fresh skeleton (cursor on
/// the opening brace), the first value.
pub(super) fn select_value_at_cursor(state: &mut AppState) {
    let textarea = &state.editor.textarea;
    let cursor = textarea.cursor();
    match placeholders::at(textarea.lines(), (cursor.0, cursor.1)) {
        Some(found) => select_placeholder(state, found),
        None if cursor == (0, 0) => jump_to_placeholder(state, false),
        None => {}
    }
}

/// Selects the next (or previous) member value in the editor.
pub(super) fn jump_to_placeholder(state: &mut AppState, back: bool) {
    let textarea = &state.editor.textarea;
    let cursor = textarea.cursor();
    if let Some(found) = placeholders::step(textarea.lines(), (cursor.0, cursor.1), back) {
        select_placeholder(state, found);
    }
}

fn select_placeholder(state: &mut AppState, found: placeholders::Placeholder) {
    let textarea = &mut state.editor.textarea;
    let position = |column: usize| {
        CursorMove::Jump(
            u16::try_from(found.row).unwrap_or(u16::MAX),
            u16::try_from(column).unwrap_or(u16::MAX),
        )
    };
    textarea.cancel_selection();
    textarea.move_cursor(position(found.start));
    if found.end > found.start {
        textarea.start_selection();
        textarea.move_cursor(position(found.end));
    }
}

fn hints_of(tool: &Tool) -> Vec<String> {
    let (_, hints) = skeleton(tool.input_schema().as_ref());
    hints
        .iter()
        .map(|hint| sanitize::text(hint).into_owned())
        .collect()
}

/// An editor holding `text`, made safe to draw (the JSON means the same).
pub(super) fn textarea_of(text: &str) -> tui_textarea::TextArea<'static> {
    let text = sanitize::json(text);
    let mut textarea = tui_textarea::TextArea::new(text.lines().map(str::to_owned).collect());
    textarea.set_tab_length(2);
    textarea.set_cursor_line_style(ratatui::style::Style::new());
    // Long values wrap: a sideways offset would hide the braces.
    textarea.set_wrap_mode(WrapMode::WordOrGlyph);
    textarea
}

fn load_skeleton(state: &mut AppState, tool: &str, schema: Option<&Value>) {
    let (text, hints) = skeleton(schema);
    // Property names come from the server: escaped, the JSON means the same and draws safely.
    state.editor.textarea = textarea_of(&text);
    show_editor_cursor(state);
    state.editor.tool = Some(tool.to_owned());
    state.editor.hints = hints
        .iter()
        .map(|hint| sanitize::text(hint).into_owned())
        .collect();
    check_editor(state);
}

/// Parses the editor (always) and validates it against the schema (when validation is on).
pub(super) fn check_editor(state: &mut AppState) {
    state.editor.problems.clear();
    let text = state.editor.text();
    let arguments = match parse_arguments(&text) {
        Ok(arguments) => arguments,
        Err(problem) => {
            state.editor.problems.push(problem);
            return;
        }
    };
    if !state.settings.validation {
        return;
    }
    let Some(schema) = state
        .editor
        .tool
        .as_ref()
        .and_then(|name| state.tools.tools.iter().find(|t| t.name == name))
        .and_then(crate::mcp::messages::Tool::input_schema)
    else {
        return;
    };
    state.editor.problems = crate::schema::violations(&schema, &arguments)
        .iter()
        .map(|problem| sanitize::text(problem).into_owned())
        .collect();
}

pub(super) fn parse_arguments(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|error| format!("not valid JSON: {error}"))
}
