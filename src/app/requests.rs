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
    if state.replay.is_some() {
        complain(state, format!("a replay sends nothing ({method})"));
        return Vec::new();
    }
    if !matches!(state.link, Link::Connected(_)) {
        complain(state, format!("not connected: {method} not sent"));
        return Vec::new();
    }
    state.requests.push(method, asker);
    vec![Effect::Session(SessionCommand::Request {
        method: method.to_owned(),
        params,
    })]
}
