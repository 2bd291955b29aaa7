//! The Chat pane of a replay, pure: a transcript's model turns (a `sightline agent --record` or
//! a TUI session with `--model`) told as runs, each call linked to the replayed call it made.

use super::chat::{CallEntry, Entry, Phase, Run};
use super::state::AppState;
use crate::model_api::{Api, Ending, Usage};
use crate::transcript::ModelTurn;

/// A replay's model turns: kept, and told as runs.
pub(super) fn recorded(state: &mut AppState, turns: Vec<ModelTurn>) {
    state.chat.recorded = turns;
    retold(state);
}

/// The recorded turns, in their order, as runs (a turn whose request holds one message starts
/// one), each call linked to the replayed call it made. Told again as replayed calls arrive:
/// the turns come after the events, but the events may still be on their way.
pub(super) fn retold(state: &mut AppState) {
    if state.chat.recorded.is_empty() {
        return;
    }
    state.chat.runs.clear();
    let turns = std::mem::take(&mut state.chat.recorded);
    // Calls already linked to a turn, by their index in `state.calls`.
    let mut taken = Vec::new();
    for (at, recorded) in turns.iter().enumerate() {
        // What the model read of this turn's calls is in the next turn's request.
        let next = turns.get(at + 1).map(|next| &next.request);
        let Some(api) = Api::named(&recorded.api) else {
            continue;
        };
        let Ok(turn) = api.turn(&recorded.response) else {
            continue;
        };
        let messages = conversation(&recorded.request);
        if messages.len() <= 1 || state.chat.runs.is_empty() {
            let prompt = messages
                .first()
                .map(|first| words(first))
                .unwrap_or_default();
            let number = state.chat.runs.len() + 1;
            state.chat.runs.push(Run::recorded(
                number,
                recorded.request["model"].as_str().unwrap_or(&recorded.api),
                prompt,
            ));
        }
        let links: Vec<Option<usize>> = turn
            .calls
            .iter()
            .map(|call| made_by(state, recorded.at, &call.name, &call.arguments, &mut taken))
            .collect();
        let entries: Vec<Entry> = turn
            .calls
            .iter()
            .zip(links)
            .map(|(call, link)| {
                let read = next.and_then(|next| read_in(next, &call.id));
                Entry::Call(linked(state, call, link, read))
            })
            .collect();
        let Some(run) = state.chat.runs.last_mut() else {
            break;
        };
        run.turns += 1;
        run.tokens += turn.usage;
        if !turn.text.trim().is_empty() {
            run.entries.push(Entry::Said {
                turn: run.turns,
                text: turn.text.clone(),
            });
        }
        for mut entry in entries {
            if let Entry::Call(call) = &mut entry {
                call.turn = run.turns;
                call.repeated = run.entries.iter().any(|made| {
                    matches!(made, Entry::Call(made) if made.name == call.name && made.arguments == call.arguments)
                });
            }
            run.entries.push(entry);
        }
        run.phase = if turn.calls.is_empty() {
            Phase::Ended(Ending::Answered)
        } else {
            Phase::Recorded
        };
    }
    state.chat.recorded = turns;
}

/// The request's conversation, whichever API it speaks.
fn conversation(request: &serde_json::Value) -> Vec<&serde_json::Value> {
    ["messages", "input", "contents"]
        .iter()
        .find_map(|key| request[*key].as_array())
        .map(|all| all.iter().collect())
        .unwrap_or_default()
}

/// A message's text: a string, or its text parts.
fn words(message: &serde_json::Value) -> String {
    let content = message
        .get("content")
        .or_else(|| message.get("parts"))
        .unwrap_or(message);
    match content {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// The first replayed call sent after the turn, not yet linked, to the tool `name` stands for
/// (the host's name for it ends with the tool's) with these arguments.
fn made_by(
    state: &AppState,
    at: u64,
    name: &str,
    arguments: &serde_json::Value,
    taken: &mut Vec<usize>,
) -> Option<usize> {
    let found = state.calls.iter().enumerate().position(|(index, record)| {
        let stands_for = name == record.tool
            || name
                .strip_suffix(record.tool.as_str())
                .is_some_and(|head| head.ends_with(['_', '-']));
        !taken.contains(&index)
            && record.exchange.sent_at.0 >= at
            && stands_for
            && record.exchange.params().and_then(|p| p.get("arguments")) == Some(arguments)
    })?;
    taken.push(found);
    Some(found)
}

/// What a request gave the model for call `id`: the text of its tool result, in whichever
/// API's shape (a string as it is, anything else as JSON).
fn read_in(request: &serde_json::Value, id: &str) -> Option<String> {
    let text = |value: &serde_json::Value| match value {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(parts) if parts.iter().all(|part| part["text"].is_string()) => {
            parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        }
        other => other.to_string(),
    };
    for message in conversation(request) {
        // Chat Completions.
        if message["role"] == "tool" && message["tool_call_id"] == id {
            return Some(text(&message["content"]));
        }
        // Responses.
        if message["type"] == "function_call_output" && message["call_id"] == id {
            return Some(text(&message["output"]));
        }
        for part in message["content"]
            .as_array()
            .into_iter()
            .chain(message["parts"].as_array())
            .flatten()
        {
            // Messages.
            if part["type"] == "tool_result" && part["tool_use_id"] == id {
                return Some(text(&part["content"]));
            }
            // generateContent.
            if part["functionResponse"]["id"] == id {
                return Some(text(&part["functionResponse"]["response"]));
            }
        }
    }
    None
}

/// The call entry: the replayed call it made, and what the model read of it (in the next
/// request; none when the run ended before it).
fn linked(
    state: &AppState,
    call: &crate::model_api::ToolCall,
    link: Option<usize>,
    read: Option<String>,
) -> CallEntry {
    let record = link.and_then(|index| state.calls.get(index));
    CallEntry {
        turn: 0,
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        tool: record.map(|record| record.tool.clone()),
        call: link,
        id: record.map(|record| record.exchange.id.to_string()),
        class: record.map(|record| record.outcome.class),
        read,
        by_host: false,
        repeated: false,
    }
}

impl Run {
    /// A run read back from a transcript: its prompt, no turn yet; its host is not recorded.
    fn recorded(number: usize, model: &str, prompt: String) -> Run {
        Run {
            number,
            host: String::new(),
            model: model.to_owned(),
            entries: vec![Entry::Prompt(prompt)],
            turns: 0,
            max_turns: 0,
            tokens: Usage::default(),
            phase: Phase::Recorded,
            streaming: None,
            conversation: Vec::new(),
            offered: Vec::new(),
            waiting: std::collections::VecDeque::new(),
        }
    }
}
