//! `completion/complete` while a prompt argument or template variable is typed (when the
//! server declares `completions`): one request in flight at most, the latest text asked for
//! when it ends, the suggestions in the editor's hints, `Alt-c` taking the first.

use serde_json::{Map, Value, json};
use tui_textarea::CursorMove;

use super::action::Effect;
use super::catalog::declares;
use super::catalog_state::{FormTarget, Typed};
use super::editor::{check_editor, parse_arguments};
use super::forms::form_in_editor;
use super::placeholders;
use super::requests::{Asker, send};
use super::state::AppState;
use super::status::complain;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::sanitize;

/// The argument the cursor is in, and its value as typed (JSON escapes undone).
fn under_cursor(state: &AppState) -> Option<Typed> {
    let textarea = &state.editor.textarea;
    let lines = textarea.lines();
    let cursor = textarea.cursor();
    let found = placeholders::at(lines, (cursor.0, cursor.1))?;
    let line = lines.get(found.row)?;
    let key_start = line.find('"')?;
    let key: String = {
        let rest = line.get(key_start..)?;
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        stream.next()?.ok()?
    };
    let chars: Vec<char> = line.chars().collect();
    let raw: String = chars.get(found.start..found.end)?.iter().collect();
    let value = serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or(raw);
    Some(Typed {
        argument: key,
        value,
    })
}

/// After a key in a form: ask for completions of the argument under the cursor.
pub(super) fn typed(state: &mut AppState) -> Vec<Effect> {
    if form_in_editor(state).is_none() || !declares(state, "completions") {
        return Vec::new();
    }
    let Some(typed) = under_cursor(state) else {
        return Vec::new();
    };
    let completion = &mut state.catalog.completion;
    if completion.asked.is_some() {
        if completion.asked.as_ref() != Some(&typed) {
            completion.wanted = Some(typed);
        }
        return Vec::new();
    }
    if completion.answered.as_ref() == Some(&typed) {
        return Vec::new();
    }
    ask(state, typed)
}

fn ask(state: &mut AppState, typed: Typed) -> Vec<Effect> {
    let Some(form) = form_in_editor(state) else {
        return Vec::new();
    };
    let reference = match &form.target {
        FormTarget::Prompt { name } => json!({"type": "ref/prompt", "name": name}),
        FormTarget::Template { uri_template } => {
            json!({"type": "ref/resource", "uri": uri_template})
        }
    };
    // The other arguments typed so far: a server may narrow one by another.
    let others: Map<String, Value> = match parse_arguments(&state.editor.text()) {
        Ok(Value::Object(values)) => values
            .into_iter()
            .filter(|(key, value)| *key != typed.argument && value.is_string())
            .collect(),
        _ => Map::new(),
    };
    let mut params = json!({
        "ref": reference,
        "argument": {"name": typed.argument, "value": typed.value},
    });
    if !others.is_empty()
        && let Some(object) = params.as_object_mut()
    {
        object.insert("context".into(), json!({"arguments": others}));
    }
    let effects = send(
        state,
        "completion/complete",
        Some(params),
        Asker::Completion,
    );
    if !effects.is_empty() {
        state.catalog.completion.asked = Some(typed);
    }
    effects
}

/// A `completion/complete` ended: its values become the suggestions; text typed meanwhile is
/// asked for next.
pub(super) fn finished(state: &mut AppState, exchange: &Exchange) -> Vec<Effect> {
    let completion = &mut state.catalog.completion;
    let Some(asked) = completion.asked.take() else {
        return Vec::new();
    };
    if let Some(Reply::Result(result)) = exchange.reply() {
        let found = result.value();
        let inner = found.get("completion");
        completion.values = inner
            .and_then(|inner| inner.get("values"))
            .and_then(Value::as_array)
            .map(|values| {
                values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        completion.total = inner
            .and_then(|inner| inner.get("total"))
            .and_then(Value::as_u64);
        completion.has_more = inner
            .and_then(|inner| inner.get("hasMore"))
            .and_then(Value::as_bool)
            == Some(true);
        completion.problem = None;
    } else {
        let outcome = crate::classify::classify(exchange);
        completion.values.clear();
        completion.problem = Some(format!(
            "{} ({})",
            sanitize::text(&outcome.detail),
            outcome.class.label()
        ));
    }
    completion.answered = Some(asked);
    let wanted = completion.wanted.take();
    match wanted {
        Some(wanted) if state.catalog.completion.answered.as_ref() != Some(&wanted) => {
            ask(state, wanted)
        }
        _ => Vec::new(),
    }
}

/// `Alt-c`: the first suggestion replaces the value under the cursor.
pub(super) fn accept(state: &mut AppState) -> Vec<Effect> {
    if form_in_editor(state).is_none() {
        complain(
            state,
            "completion is for prompt arguments and template variables".into(),
        );
        return Vec::new();
    }
    let Some(first) = state.catalog.completion.values.first().cloned() else {
        complain(state, "no completion to take".into());
        return Vec::new();
    };
    let textarea = &state.editor.textarea;
    let Some(found) = placeholders::at(textarea.lines(), {
        let c = textarea.cursor();
        (c.0, c.1)
    }) else {
        complain(state, "put the cursor in a value first".into());
        return Vec::new();
    };
    // Escaped inside the string's quotes, and made terminal-safe like every server text.
    let escaped = serde_json::to_string(&first).unwrap_or_default();
    let inner = escaped
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_default();
    let inner = sanitize::json(inner).into_owned();
    let position = |column: usize| {
        CursorMove::Jump(
            u16::try_from(found.row).unwrap_or(u16::MAX),
            u16::try_from(column).unwrap_or(u16::MAX),
        )
    };
    let textarea = &mut state.editor.textarea;
    textarea.cancel_selection();
    textarea.move_cursor(position(found.start));
    textarea.start_selection();
    textarea.move_cursor(position(found.end));
    if found.end == found.start {
        textarea.cancel_selection();
    }
    textarea.insert_str(&inner);
    check_editor(state);
    typed(state)
}
