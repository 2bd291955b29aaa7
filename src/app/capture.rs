//! `H`, pure: the selected call run again through the real host of the current profile
//! (`sightline capture`, an effect), and what came back kept for the model pane.

use serde_json::Value;

use super::action::Effect;
use super::state::{AppState, Captured};
use crate::model_view::hosts;
use crate::sanitize;

/// The effect that runs the current call through the host, or why it cannot run.
pub fn start(state: &mut AppState) -> Result<Effect, String> {
    let host = state.settings.host().name.clone();
    if !hosts::captured().iter().any(|profile| profile.name == host) {
        let real: Vec<&str> = hosts::captured().iter().map(|p| p.name.as_str()).collect();
        return Err(format!(
            "'{host}' is not a real host; H runs one of: {} (h picks the profile)",
            real.join(", ")
        ));
    }
    if state.replay.is_some() {
        return Err("a replay has no server to run the host against".to_owned());
    }
    if state.server_args.iter().any(|arg| arg == "--url") {
        return Err("H runs hosts against stdio servers; this one is on --url".to_owned());
    }
    let call = state
        .model
        .as_ref()
        .map(|model| model.call)
        .ok_or("no call to run: send one first")?;
    let record = state
        .whole_call(call)
        .ok_or("this call is not read back yet")?;
    let arguments = record
        .exchange
        .params()
        .and_then(|params| params.get("arguments"))
        .map_or_else(|| "{}".to_owned(), Value::to_string);
    let effect = Effect::Capture {
        call,
        host: host.clone(),
        tool: record.tool.clone(),
        arguments,
        server_args: state.server_args.clone(),
        host_bin: state.settings.host_bin.clone(),
    };
    let since = state.ticks;
    remember(state, call, &host, Captured::Running { since });
    Ok(effect)
}

/// Keeps what `capture --json` said (or why it failed); the status line's sentence.
pub fn finished(
    state: &mut AppState,
    call: usize,
    host: &str,
    result: Result<Value, String>,
) -> String {
    let (captured, said) = match result {
        Err(error) => {
            let error = sanitize::text(&error).into_owned();
            (
                Captured::Failed(error.clone()),
                format!("{host} could not be run: {error}"),
            )
        }
        Ok(object) => {
            let differences: Vec<String> = object["differences"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|d| sanitize::text(d).into_owned())
                .collect();
            let version =
                sanitize::text(object["host_version"].as_str().unwrap_or("?")).into_owned();
            let said = if differences.is_empty() {
                format!("{host} {version} sent its model what the profile predicts")
            } else {
                format!(
                    "{host} {version} differs from the profile: {}",
                    differences[0]
                )
            };
            (
                Captured::Done {
                    host: host.to_owned(),
                    version,
                    text: object["text"].as_str().map(shown),
                    server_called: object["server_called"] != false,
                    differences,
                },
                said,
            )
        }
    };
    remember(state, call, host, captured);
    said
}

/// A captured text as the pane shows it: terminal-safe and clipped as the prediction is (a
/// host's 400 KB result is not drawn whole every frame).
fn shown(text: &str) -> String {
    let kept = crate::model_view::clip(text, crate::present::limits::MODEL_TEXT_BYTES);
    let shown = sanitize::text_keeping_newlines(kept);
    if kept.len() < text.len() {
        return format!("{shown}… ({} more bytes)", text.len() - kept.len());
    }
    shown
}

/// What is known of `call` on `host`.
pub fn of<'s>(state: &'s AppState, call: usize, host: &str) -> Option<&'s Captured> {
    state
        .captures
        .iter()
        .find(|(c, h, _)| *c == call && h == host)
        .map(|(_, _, captured)| captured)
}

fn remember(state: &mut AppState, call: usize, host: &str, captured: Captured) {
    state
        .captures
        .retain(|(c, h, _)| !(*c == call && h == host));
    state.captures.push((call, host.to_owned(), captured));
}
