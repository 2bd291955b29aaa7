//! Sending the edited request, and copying a call, the model view or its command line.

use serde_json::Value;

use super::action::{Effect, SessionCommand};
use super::editor::parse_arguments;
use super::navigation::select_line;
use super::state::{AppState, CallRecord, Link};
use super::status::{complain, inform};
use crate::present::call::pretty_lines;
use crate::sanitize;

pub(super) fn send(state: &mut AppState) -> Vec<Effect> {
    let Some(tool) = state
        .editor
        .tool
        .clone()
        .or_else(|| state.tools.selected_tool().map(|t| t.name.to_string()))
    else {
        complain(
            state,
            "select a tool first (Enter on a tool opens the editor)".into(),
        );
        return Vec::new();
    };
    let text = state.editor.text();
    let arguments = if text.trim().is_empty() && state.editor.tool.is_none() {
        Value::Object(serde_json::Map::new())
    } else {
        match parse_arguments(&text) {
            Ok(arguments) => arguments,
            Err(problem) => {
                // Never fall back to earlier arguments: the user sees why nothing was sent.
                state.editor.problems = vec![problem.clone()];
                complain(state, format!("not sent: the arguments are {problem}"));
                return Vec::new();
            }
        }
    };
    let excluded = state
        .tools
        .tools
        .iter()
        .any(|listed| listed.name == tool.as_str() && listed.rejected.is_some());
    if excluded && !state.settings.allow_invalid_tool_headers {
        // Short, for 80 columns: the Tools pane says why it is rejected.
        complain(
            state,
            "not sent: its x-mcp-header is invalid (I sends it anyway)".into(),
        );
        return Vec::new();
    }
    if state.pending_calls > 0 {
        complain(
            state,
            "a call is still pending: wait for it, or x cancels it".into(),
        );
        return Vec::new();
    }
    if !state.link_is_up() {
        complain(
            state,
            "not sent: the server is not connected (r reconnects)".into(),
        );
        return Vec::new();
    }
    state.pending_calls += 1;
    let note = if state.settings.validation && !state.editor.problems.is_empty() {
        " despite validation errors"
    } else {
        ""
    };
    inform(
        state,
        format!("sent tools/call '{}'{note}", sanitize::text(&tool)),
    );
    select_line(state, None);
    vec![Effect::Session(SessionCommand::Call { tool, arguments })]
}

impl AppState {
    pub(super) fn link_is_up(&self) -> bool {
        matches!(self.link, Link::Connected(_))
    }
}

pub(super) fn copy(
    state: &mut AppState,
    pick: impl Fn(&CallRecord) -> Option<String>,
    what: &str,
) -> Vec<Effect> {
    let text = state
        .current_call_index()
        .and_then(|index| state.whole_call(index))
        .and_then(pick)
        .map(|raw| pretty_lines(&raw).join("\n"));
    copy_text(state, text, what)
}

pub(super) fn copy_text(state: &mut AppState, text: Option<String>, what: &str) -> Vec<Effect> {
    let Some(text) = text else {
        complain(state, format!("no {what} to copy yet"));
        return Vec::new();
    };
    inform(
        state,
        format!("copied the {what} ({} bytes, OSC 52)", text.len()),
    );
    vec![Effect::Copy(text)]
}

/// The `sightline call …` line that repeats the selected call's request (its tool and its
/// arguments as sent), or with no call selected, the editor's.
pub(super) fn command_line(state: &AppState) -> Option<String> {
    let selected = state
        .log
        .selected
        .and_then(|line| state.log.lines.get(line)?.exchange)
        .and_then(|index| state.whole_call(index));
    let (tool, arguments) = if let Some(call) = selected {
        let arguments = call.exchange.params().and_then(|p| p.get("arguments"));
        let arguments = arguments.map_or_else(|| "{}".to_owned(), Value::to_string);
        (call.tool.clone(), arguments)
    } else {
        let tool = state
            .editor
            .tool
            .clone()
            .or_else(|| state.tools.selected_tool().map(|t| t.name.to_string()))?;
        let text = state.editor.text();
        let arguments = parse_arguments(&text).map_or(text, |value| value.to_string());
        (tool, arguments)
    };
    let mut words = vec![
        "sightline".to_owned(),
        "call".to_owned(),
        shell_quote(&tool),
        shell_quote(&arguments),
    ];
    let host = state.settings.host();
    if host.name != "spec" {
        words.extend(["--host".to_owned(), shell_quote(&host.name)]);
    }
    if state.settings.forward_protocol_errors {
        words.push("--forward-protocol-errors".into());
    }
    words.extend(state.server_args.iter().map(|arg| shell_quote(arg)));
    Some(words.join(" "))
}

fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
