//! The forms a resource template or a prompt puts in the request editor: a JSON object of the
//! template's variables or the prompt's arguments, kept as a draft like a tool's; `Ctrl-S`
//! expands the template and reads the URI, or gets the prompt.

use serde_json::{Map, Value};
use tui_textarea::{TextArea, WrapMode};

use super::action::Effect;
use super::catalog_state::{Completion, Form, FormTarget};
use super::editor::{check_editor, parse_arguments, select_value_at_cursor, show_selected_tool};
use super::requests::{Asker, send};
use super::state::{AppState, Focus};
use super::status::{complain, inform};
use crate::mcp::json::Json;
use crate::mcp::uri_template::UriTemplate;
use crate::sanitize;

/// The form whose text the editor shows, if any.
pub(super) fn form_in_editor(state: &AppState) -> Option<&Form> {
    state.catalog.form_in_editor(state.editor.tool.as_deref())
}

/// The Tools shelf is back: the editor shows the highlighted tool's draft again (the form's is
/// kept for when it comes back).
pub(super) fn put_back_tool(state: &mut AppState) {
    state.catalog.form = None;
    state.catalog.completion = Completion::default();
    if state.tools.selected_tool().is_none() {
        // No tool to show: the form's draft is kept, and Ctrl-S must not send it as a tool's.
        if let Some(previous) = state.editor.tool.take() {
            let draft = std::mem::take(&mut state.editor.textarea);
            state.editor.drafts.insert(previous, draft);
        }
        state.editor.hints.clear();
        state.editor.problems.clear();
        return;
    }
    show_selected_tool(state);
}

/// A JSON object with one empty string per name, one member a line, for the placeholders.
fn skeleton(names: &[String]) -> String {
    if names.is_empty() {
        return "{}".to_owned();
    }
    let members: Vec<String> = names
        .iter()
        .map(|name| {
            let key = serde_json::to_string(name).unwrap_or_else(|_| "\"\"".into());
            format!("  {}: \"\"", sanitize::json(&key))
        })
        .collect();
    format!("{{\n{}\n}}", members.join(",\n"))
}

/// Puts `form` in the editor (its draft, or a fresh skeleton) and starts editing its first
/// value.
fn open_form(state: &mut AppState, form: Form) {
    if let Some(previous) = state.editor.tool.take() {
        let draft = std::mem::take(&mut state.editor.textarea);
        state.editor.drafts.insert(previous, draft);
    }
    let textarea = state.editor.drafts.remove(&form.label).unwrap_or_else(|| {
        let text = skeleton(&form.names);
        let mut textarea = TextArea::new(text.lines().map(str::to_owned).collect());
        textarea.set_tab_length(2);
        textarea.set_cursor_line_style(ratatui::style::Style::new());
        textarea.set_wrap_mode(WrapMode::WordOrGlyph);
        textarea
    });
    state.editor.textarea = textarea;
    state.editor.tool = Some(form.label.clone());
    state.editor.hints.clone_from(&form.hints);
    state.catalog.completion = Completion::default();
    state.catalog.form = Some(form);
    check_editor(state);
    state.focus = Focus::Editor;
    state.editing = true;
    select_value_at_cursor(state);
}

/// Enter on a template: a form of its variables.
pub(super) fn open_template(state: &mut AppState, template: &Json) {
    let text = |key: &str| {
        template
            .get(key)
            .and_then(|value| value.as_str().map(std::borrow::Cow::into_owned))
    };
    let Some(uri_template) = text("uriTemplate") else {
        complain(state, "the template has no uriTemplate".into());
        return;
    };
    let parsed = match UriTemplate::parse(&uri_template) {
        Ok(parsed) => parsed,
        Err(why) => {
            complain(
                state,
                format!("not an RFC 6570 template: {}", sanitize::text(&why)),
            );
            return;
        }
    };
    let names: Vec<String> = parsed.variables().into_iter().map(str::to_owned).collect();
    let safe_template = sanitize::text(&uri_template).into_owned();
    let mut hints: Vec<String> = names
        .iter()
        .map(|name| format!("{} · variable of {safe_template}", sanitize::text(name)))
        .collect();
    if let Some(description) = text("description") {
        hints.push(sanitize::text(&description).into_owned());
    }
    hints.push("a list ([…]) or an object ({…}) expands as RFC 6570 says".into());
    open_form(
        state,
        Form {
            target: FormTarget::Template { uri_template },
            label: format!("template {safe_template}"),
            names,
            required: Vec::new(),
            hints,
        },
    );
}

/// Enter on a prompt: a form of its arguments, the required ones first.
pub(super) fn open_prompt(state: &mut AppState, prompt: &Json) {
    let value = prompt.value();
    let Some(name) = value.get("name").and_then(Value::as_str).map(str::to_owned) else {
        complain(state, "the prompt has no name".into());
        return;
    };
    let mut arguments: Vec<(String, bool, String)> = value
        .get("arguments")
        .and_then(Value::as_array)
        .map(|arguments| {
            arguments
                .iter()
                .filter_map(|argument| {
                    let name = argument.get("name")?.as_str()?.to_owned();
                    let required = argument.get("required").and_then(Value::as_bool) == Some(true);
                    let description = argument
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    Some((name, required, description))
                })
                .collect()
        })
        .unwrap_or_default();
    // Stable: the server's order within each group.
    arguments.sort_by_key(|(_, required, _)| !required);
    let hints = if arguments.is_empty() {
        vec!["no arguments: Ctrl-S gets it".to_owned()]
    } else {
        arguments
            .iter()
            .map(|(name, required, description)| {
                let need = if *required { "required" } else { "optional" };
                let about = if description.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", sanitize::text(description))
                };
                format!("{} · {need}{about}", sanitize::text(name))
            })
            .collect()
    };
    let label = format!("prompt {}", sanitize::text(&name));
    let required = arguments
        .iter()
        .filter(|(_, required, _)| *required)
        .map(|(name, _, _)| name.clone())
        .collect();
    open_form(
        state,
        Form {
            target: FormTarget::Prompt { name },
            label,
            names: arguments.into_iter().map(|(name, _, _)| name).collect(),
            required,
            hints,
        },
    );
}

/// Ctrl-S with a form in the editor: the template expanded and read, or the prompt got.
/// `None` when the editor holds a tool's arguments.
pub(super) fn send_form(state: &mut AppState) -> Option<Vec<Effect>> {
    let form = form_in_editor(state)?.clone();
    let text = state.editor.text();
    let values = match parse_arguments(&text) {
        Ok(Value::Object(values)) => values,
        Ok(_) => {
            complain(state, "not sent: the form is not a JSON object".into());
            return Some(Vec::new());
        }
        Err(problem) => {
            state.editor.problems = vec![problem.clone()];
            complain(state, format!("not sent: the form is {problem}"));
            return Some(Vec::new());
        }
    };
    let effects = match form.target {
        FormTarget::Template { uri_template } => {
            let Ok(parsed) = UriTemplate::parse(&uri_template) else {
                return Some(Vec::new());
            };
            let uri = parsed.expand(&values);
            super::catalog::read(state, &uri)
        }
        FormTarget::Prompt { name } => {
            let arguments = prompt_arguments(&values, &form.required);
            let effects = send(
                state,
                "prompts/get",
                Some(serde_json::json!({"name": name, "arguments": arguments})),
                Asker::Prompt { name: name.clone() },
            );
            if !effects.is_empty() {
                inform(
                    state,
                    format!("sent prompts/get '{}'", sanitize::text(&name)),
                );
            }
            effects
        }
    };
    // As after a tool's call: the form stays in the editor, for the next values.
    Some(effects)
}

/// Prompt arguments are strings: a string as typed, anything else as its JSON text. An empty
/// optional value is left out (an empty required one is sent, for the server to judge).
fn prompt_arguments(values: &Map<String, Value>, required: &[String]) -> Map<String, Value> {
    values
        .iter()
        .filter(|(key, value)| match value {
            Value::Null => false,
            Value::String(text) if text.is_empty() => required.contains(key),
            _ => true,
        })
        .map(|(key, value)| {
            let text = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (key.clone(), Value::String(text))
        })
        .collect()
}
