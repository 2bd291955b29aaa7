//! Sending requests other than `tools/call`, remembering who asked (their answers are routed
//! back by `answers.rs`; the driver runs them one after the other, in the order sent).

use serde_json::Value;

pub use super::waiting::{Asker, Requests};

use super::action::{Effect, SessionCommand};
use super::state::{AppState, Link};
use super::status::complain;

/// Sends `method` with `params` for `asker`; nothing in a replay or without a connection (the
/// status line says why).
pub fn send(
    state: &mut AppState,
    method: &str,
    params: Option<Value>,
    asker: Asker,
) -> Vec<Effect> {
    if !may_send(state, method) {
        return Vec::new();
    }
    state.requests.push(method, asker);
    vec![Effect::Session(SessionCommand::Request {
        method: method.to_owned(),
        params,
    })]
}

/// Holds `method` open as `key` beside everything else (its end comes as
/// `SessionEvent::Listened`); nothing in a replay or without a connection.
pub fn hold_open(
    state: &mut AppState,
    key: &str,
    method: &str,
    params: Option<Value>,
) -> Vec<Effect> {
    if !may_send(state, method) {
        return Vec::new();
    }
    vec![Effect::Session(SessionCommand::Listen {
        key: key.to_owned(),
        method: method.to_owned(),
        params,
    })]
}

/// Whether anything may be sent: not in a replay, and only when connected (else the status line
/// says why `method` was not sent).
fn may_send(state: &mut AppState, method: &str) -> bool {
    if state.replay.is_some() {
        complain(state, format!("a replay sends nothing ({method})"));
        return false;
    }
    if !matches!(state.link, Link::Connected(_)) {
        complain(state, format!("not connected: {method} not sent"));
        return false;
    }
    true
}
