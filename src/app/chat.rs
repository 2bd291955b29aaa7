//! The Chat pane (`c`), pure: a model calls this server through the current host's eyes. Each
//! call it makes goes out as an ordinary call (it lands in the Exchange log, linked to its turn),
//! the host's own refusals are answered without the server, and what goes back to the model is
//! exactly what that host sends it. The model's requests are effects; their turns come back as
//! [`Action::ModelAnswered`](super::action::Action::ModelAnswered).

use std::collections::VecDeque;

use tui_textarea::{Input, Key, TextArea};

use super::action::{
    Chat as ChatCommand, Command, Effect, Lens, SessionCommand, ToServer, any_group,
};
pub use super::chat_pane::{CallEntry, ChatModel, ChatPane, Entry, Phase, Run};
use super::modals::Panes;
use super::model_pane::call_context;
use super::state::AppState;
use super::status::{complain, inform};
use crate::model_api::{Ending, Message, Turn, Usage};
use crate::model_view::hosts::HostProfile;

/// `c`: the pane opens, its prompt line ready for typing; on a call the model made, at the run
/// that made it.
pub(super) fn open(state: &mut AppState) {
    state.chat.open = true;
    state.chat.scroll = 0;
    state.chat.focus = state
        .current_call_index()
        .and_then(|call| state.chat.made(call))
        .map(|(run, _)| run);
    if state.settings.chat.is_none() && state.replay.is_none() {
        inform(
            state,
            "no model: start with --model PROVIDER:MODEL (see sightline agent --help)".into(),
        );
    }
}

/// While the pane is open: `Alt-r` runs the last prompt again, `Ctrl-K` stops the run, `Alt-h`
/// switches the host for the next run, Esc closes the pane (a run goes on behind it); quit and
/// help get through; every other key is text (Enter runs it).
// Every command is decided here, by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn command(state: &mut AppState, command: Command, to_panes: Panes) -> Vec<Effect> {
    match command {
        Command::Chat(ChatCommand::Rerun) => return rerun(state),
        Command::Back => state.chat.open = false,
        Command::ToServer(ToServer::Cancel) => return stop(state, to_panes),
        Command::Quit | Command::Help | Command::Lens(Lens::Host) => {
            return to_panes(state, command);
        }
        any_group!() => {}
    }
    Vec::new()
}

/// A key typed into the pane: Enter runs the prompt, the arrows and page keys scroll, the rest
/// is text.
pub(super) fn typed(state: &mut AppState, input: Input) -> Vec<Effect> {
    let page = usize::from(state.screen.height / 2).max(1);
    let chat = &mut state.chat;
    if matches!(input.key, Key::Up | Key::Down | Key::PageUp | Key::PageDown) {
        chat.focus = None;
    }
    match input.key {
        Key::Enter => {
            let prompt = chat.prompt.lines().join(" ").trim().to_owned();
            if prompt.is_empty() {
                return Vec::new();
            }
            let effects = start(state, &prompt);
            if !effects.is_empty() {
                state.chat.prompt = TextArea::default();
            }
            return effects;
        }
        Key::Up => chat.scroll += 1,
        Key::Down => chat.scroll = chat.scroll.saturating_sub(1),
        Key::PageUp => chat.scroll += page,
        Key::PageDown => chat.scroll = chat.scroll.saturating_sub(page),
        _ => {
            chat.prompt.input(input);
        }
    }
    Vec::new()
}

/// `Alt-r`: the last prompt, run again (under the host shown now).
pub(super) fn rerun(state: &mut AppState) -> Vec<Effect> {
    let Some(prompt) = state.chat.last_prompt.clone() else {
        complain(
            state,
            "nothing to run again: type a prompt, Enter runs it".into(),
        );
        return Vec::new();
    };
    start(state, &prompt)
}

/// Starts a run of `prompt`: the model's first request; or why not, said.
pub(super) fn start(state: &mut AppState, prompt: &str) -> Vec<Effect> {
    let Some(model) = state.settings.chat.clone() else {
        complain(state, "no model: start with --model PROVIDER:MODEL".into());
        return Vec::new();
    };
    if state.replay.is_some() {
        complain(state, "a replay sends nothing".into());
        return Vec::new();
    }
    if state.chat.running().is_some() {
        complain(state, "a run is going on: Ctrl-K stops it".into());
        return Vec::new();
    }
    if !state.link_is_up() {
        complain(state, "not connected (r reconnects)".into());
        return Vec::new();
    }
    let host = state.settings.host().name.clone();
    let offered = crate::model_api::offer(&state.tools.catalog, &model.naming(&host));
    let mut run = Run {
        number: state.chat.runs.len() + 1,
        host,
        model: model.label.clone(),
        entries: vec![Entry::Prompt(prompt.to_owned())],
        turns: 0,
        max_turns: model.max_turns,
        tokens: Usage::default(),
        phase: Phase::Asking,
        streaming: None,
        conversation: vec![Message::User(prompt.to_owned())],
        offered,
        waiting: VecDeque::new(),
    };
    let effect = ask(&mut run, &model);
    state.chat.last_prompt = Some(prompt.to_owned());
    state.chat.scroll = 0;
    state.chat.focus = None;
    state.chat.runs.push(run);
    vec![effect]
}

/// The model's next request, counted.
fn ask(run: &mut Run, model: &ChatModel) -> Effect {
    run.turns += 1;
    run.phase = Phase::Asking;
    Effect::AskModel {
        run: run.number,
        body: model
            .api
            .request(&model.name, &run.conversation, &run.offered),
    }
}

/// `Ctrl-K` in the pane: the run ends here (a call in flight is cancelled, as `x` cancels it).
fn stop(state: &mut AppState, to_panes: Panes) -> Vec<Effect> {
    let Some(run) = state
        .chat
        .runs
        .last_mut()
        .filter(|run| run.phase.is_running())
    else {
        return to_panes(state, Command::ToServer(ToServer::Cancel));
    };
    let calling = run.phase == Phase::Calling;
    run.phase = Phase::Stopped;
    run.waiting.clear();
    if calling {
        return to_panes(state, Command::ToServer(ToServer::Cancel));
    }
    Vec::new()
}

/// More of the model's words in run `number`, while it is asked.
pub(super) fn streamed(state: &mut AppState, number: usize, more: &str) {
    if let Some(run) = state
        .chat
        .runs
        .iter_mut()
        .find(|run| run.number == number && run.phase == Phase::Asking)
    {
        run.streaming.get_or_insert_default().push_str(more);
    }
}

/// The model's turn (or why there is none) for run `number`: its words, and its calls sent.
pub(super) fn answered(
    state: &mut AppState,
    number: usize,
    result: Result<Turn, String>,
) -> Vec<Effect> {
    let Some(run) = state
        .chat
        .runs
        .iter_mut()
        .find(|run| run.number == number && run.phase == Phase::Asking)
    else {
        // A run stopped while its model was asked: the answer is no longer wanted.
        return Vec::new();
    };
    run.streaming = None;
    let turn = match result {
        Ok(turn) => turn,
        Err(why) => {
            run.phase = Phase::Failed(crate::sanitize::text(&why).into_owned());
            return Vec::new();
        }
    };
    run.tokens += turn.usage;
    let Turn { text, calls, .. } = turn;
    if !text.trim().is_empty() {
        run.entries.push(Entry::Said {
            turn: run.turns,
            text: text.clone(),
        });
    }
    if calls.is_empty() {
        run.phase = Phase::Ended(Ending::Answered);
        run.conversation.push(Message::Model { text, calls });
        return Vec::new();
    }
    run.waiting = calls.iter().cloned().collect();
    run.conversation.push(Message::Model { text, calls });
    next_call(state)
}

/// Answers the running run's waiting calls in order: the host's own refusals at once, the
/// first that goes to the server sent; with none left, the model asked again.
fn next_call(state: &mut AppState) -> Vec<Effect> {
    let Some(model) = state.settings.chat.clone() else {
        return Vec::new();
    };
    let host = run_host(state);
    let catalog = std::sync::Arc::clone(&state.tools.catalog);
    let Some(run) = state.chat.runs.last_mut() else {
        return Vec::new();
    };
    while let Some(call) = run.waiting.front().cloned() {
        let tool = crate::model_api::tool_for(&run.offered, &call.name).map(|o| o.tool.clone());
        let repeated = run.entries.iter().any(|entry| {
            matches!(entry, Entry::Call(made) if made.name == call.name && made.arguments == call.arguments)
        });
        let mut entry = CallEntry {
            turn: run.turns,
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            tool: tool.clone(),
            call: None,
            id: None,
            class: None,
            read: None,
            by_host: false,
            repeated,
        };
        // A name that stands for no server tool is the host's to answer, by the name called.
        let asked = tool.unwrap_or_else(|| call.name.clone());
        if let Some(view) =
            crate::model_view::stopped_by_host(&asked, &call.arguments, Some(&catalog), &host)
        {
            entry.by_host = true;
            entry.read = Some(view.text());
            run.entries.push(Entry::Call(entry));
            run.waiting.pop_front();
            if view.ends_run {
                run.phase = Phase::Ended(Ending::HostEndedRun);
                return Vec::new();
            }
            let payload = (host.shape == model.api.shape()).then(|| view.payload());
            run.conversation.push(Message::ToolResult {
                id: call.id,
                text: view.text(),
                payload,
            });
            continue;
        }
        run.entries.push(Entry::Call(entry));
        run.phase = Phase::Calling;
        state.pending_calls += 1;
        return vec![Effect::Session(SessionCommand::Call {
            tool: asked,
            arguments: call.arguments,
        })];
    }
    if run.turns >= run.max_turns {
        run.phase = Phase::Ended(Ending::TurnsRanOut);
        return Vec::new();
    }
    vec![ask(run, &model)]
}

/// The profile of the run going on (the one shown, should it be gone from the list).
fn run_host(state: &AppState) -> HostProfile {
    let name = state.chat.runs.last().map(|run| run.host.as_str());
    state
        .settings
        .hosts
        .iter()
        .find(|host| Some(host.name.as_str()) == name)
        .unwrap_or_else(|| state.settings.host())
        .clone()
}

/// A finished call that was the running run's: what the host sent its model of it, given to
/// the model with the rest of the turn's calls.
pub(super) fn called(state: &mut AppState, index: usize) -> Vec<Effect> {
    let Some(model) = state.settings.chat.clone() else {
        return Vec::new();
    };
    let Some(record) = state.calls.get(index) else {
        return Vec::new();
    };
    let Some(run) = state
        .chat
        .runs
        .last()
        .filter(|run| run.phase == Phase::Calling)
    else {
        return Vec::new();
    };
    let Some(call) = run.waiting.front() else {
        return Vec::new();
    };
    let tool = crate::model_api::tool_for(&run.offered, &call.name)
        .map_or(call.name.as_str(), |offered| offered.tool.as_str());
    let arguments = record.exchange.params().and_then(|p| p.get("arguments"));
    // Another call finished meanwhile (the user's own): not the model's.
    if tool != record.tool || arguments != Some(&call.arguments) {
        return Vec::new();
    }
    let call = call.clone();
    let host = run_host(state);
    let mut context = call_context(state);
    context.host = &host;
    let view = crate::analysis::view(&record.exchange, &record.outcome, &context);
    let read = view.text();
    let ends_run = view.ends_run;
    let payload = (host.shape == model.api.shape()).then(|| view.payload());
    let id = record.exchange.id.to_string();
    let class = record.outcome.class;
    let Some(run) = state.chat.runs.last_mut() else {
        return Vec::new();
    };
    run.waiting.pop_front();
    if let Some(Entry::Call(entry)) = run.entries.last_mut() {
        entry.call = Some(index);
        entry.id = Some(id);
        entry.class = Some(class);
        entry.read = Some(if ends_run {
            String::new()
        } else {
            read.clone()
        });
    }
    if ends_run {
        run.phase = Phase::Ended(Ending::HostEndedRun);
        return Vec::new();
    }
    run.conversation.push(Message::ToolResult {
        id: call.id,
        text: read,
        payload,
    });
    next_call(state)
}
