//! A replay's big frames and calls left in its transcript, and read back when a pane shows them.

use serde_json::Value;

use super::action::Effect;
use super::detail::refresh_detail;
use super::model_pane::refresh_model;
use super::state::{AppState, CallRecord, LogLine, Raw, STORED_BYTES, Stored};
use super::status::complain;
use crate::mcp::jsonrpc::{Frame, Message, Reply};
use crate::mcp::log::{LogEvent, Role};
use crate::mcp::session::{End, Exchange};
use crate::sanitize;

/// What a replay must read back from its transcript for the panes on screen, not yet asked
/// for: the current call, and the selected line's frame.
pub(super) fn read_back_wanted(state: &mut AppState) -> Vec<Effect> {
    let call = state
        .current_call_index()
        .filter(|&index| state.calls.get(index).is_some_and(|call| call.stored))
        .filter(|&index| state.whole_call(index).is_none())
        .map(Stored::Call);
    let frame = match state.log.selected.and_then(|i| state.log.lines.get(i)) {
        Some(LogLine {
            raw: Some(Raw::Stored { frame, .. }),
            ..
        }) if state
            .read_back
            .frame
            .as_ref()
            .is_none_or(|(read, _)| read != frame) =>
        {
            Some(Stored::Frame(*frame))
        }
        _ => None,
    };
    let mut effects = Vec::new();
    for wanted in call.into_iter().chain(frame) {
        if state.read_back.failed.is_none() && !state.read_back.asked.contains(&wanted) {
            state.read_back.asked.push(wanted);
            effects.push(Effect::ReadBack(wanted));
        }
    }
    effects
}

/// The replay's `number`-th frame came back from the transcript (or why not): kept for Detail
/// if it is the size the stored line says.
pub(super) fn frame_read(state: &mut AppState, number: u64, result: Result<Frame, String>) {
    answered(state, Stored::Frame(number));
    let bytes = state
        .log
        .lines
        .iter()
        .rev()
        .find_map(|line| match line.raw {
            Some(Raw::Stored { frame, bytes }) if frame == number => Some(bytes),
            _ => None,
        });
    match result {
        Ok(frame) if Some(frame.raw.len()) == bytes => {
            state.read_back.frame = Some((number, frame));
            state.read_back.failed = None;
        }
        Ok(_) => read_back_failed(state, "the transcript changed since it was read"),
        Err(error) => read_back_failed(state, &error),
    }
    refresh_detail(state);
}

/// The replay's call `index` came back from the transcript (or why not): held whole for the
/// panes if it is the call its outline says.
pub(super) fn call_read(state: &mut AppState, index: usize, result: Result<Box<Exchange>, String>) {
    answered(state, Stored::Call(index));
    match (result, state.calls.get(index)) {
        (Ok(exchange), Some(outline)) if exchange.id == outline.exchange.id => {
            let whole = CallRecord {
                exchange: *exchange,
                stored: false,
                ..outline.clone()
            };
            state.read_back.call = Some((index, whole));
            state.read_back.failed = None;
        }
        (Ok(_), _) => read_back_failed(state, "the transcript changed since it was read"),
        (Err(error), _) => read_back_failed(state, &error),
    }
    refresh_detail(state);
    refresh_model(state);
}

/// A read-back asked for is no longer outstanding.
fn answered(state: &mut AppState, what: Stored) {
    state.read_back.asked.retain(|asked| *asked != what);
}

fn read_back_failed(state: &mut AppState, error: &str) {
    let error = sanitize::text(error).into_owned();
    complain(
        state,
        format!("could not read the transcript again: {error}"),
    );
    state.read_back.failed = Some(error);
}

/// In a replay, leaves a big call's frames in the transcript: the record keeps its outline,
/// and the whole of it only while it is the latest (shown until something is selected).
pub(super) fn store_call(state: &mut AppState, index: usize) {
    let Some(record) = state.calls.get_mut(index) else {
        return;
    };
    let frames = std::iter::once(&record.exchange.request).chain(record.exchange.response());
    if frames.map(|frame| frame.raw.len()).sum::<usize>() <= STORED_BYTES {
        return;
    }
    let outline = CallRecord {
        exchange: outline(&record.exchange),
        stored: true,
        ..record.clone()
    };
    let whole = std::mem::replace(record, outline);
    if state.current_call_index() == Some(index) {
        state.read_back.call = Some((index, whole));
    }
}

/// What a stored call keeps: the exchange without its frames' text (an empty request and an
/// empty reply of the same id stand in for them) and without a task's final reply.
fn outline(exchange: &Exchange) -> Exchange {
    let request = Frame::new(
        "",
        Message::Request {
            id: exchange.id.clone(),
            method: exchange.method.clone(),
            params: None,
        },
    );
    let end = match &exchange.end {
        End::Replied(frame) => {
            let id = match &frame.message {
                Message::Response { id, .. } => id.clone(),
                _ => None,
            };
            let reply = Reply::Result(crate::mcp::json::Json::from_value(&Value::Null));
            End::Replied(Frame::new("", Message::Response { id, reply }))
        }
        other => other.clone(),
    };
    let task = exchange.task.as_ref().map(|task| {
        Box::new(crate::mcp::session::TaskRun {
            reply: None,
            ..(**task).clone()
        })
    });
    Exchange {
        request,
        end,
        task,
        ..exchange.clone()
    }
}

/// Leaves a line's big frame in the replay's transcript, where it is frame `number`.
pub(super) fn store_frame(line: &mut LogLine, number: Option<u64>) {
    if let (Some(number), Some(Raw::Frame(frame))) = (number, &line.raw)
        && frame.raw.len() > STORED_BYTES
    {
        line.raw = Some(Raw::Stored {
            frame: number,
            bytes: frame.raw.len(),
        });
    }
}

/// In a replay, numbers the frames as the transcript has them; `Some(n)` for a frame that may
/// stay there (not a reply of the connection's setup, which `E` exports from the log).
pub(super) fn replayed_frame(state: &mut AppState, event: &LogEvent) -> Option<u64> {
    if state.replay.is_none() || !matches!(event, LogEvent::Sent(_) | LogEvent::Received { .. }) {
        return None;
    }
    let number = state.read_back.frames;
    state.read_back.frames += 1;
    let setup = matches!(event, LogEvent::Received { role: Role::Reply { method }, .. }
        if super::export::SETUP.contains(&method.as_str()));
    (!setup).then_some(number)
}
