//! Requests other than `tools/call` that the app sends, and the routing of each answer back to
//! whoever asked for it (the driver runs them one after the other, in the order sent).

use serde_json::Value;

pub use super::pending::{Asker, Requests};

use super::action::{Effect, SessionCommand};
use super::state::{AppState, Link};
use super::status::complain;
use crate::mcp::session::Exchange;

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

/// A request the app sent ended: its answer goes to whoever asked. One nobody waits for (sent
/// on a connection that has ended) is in the log, and that is all.
pub fn finished(state: &mut AppState, exchange: &Exchange) -> Vec<Effect> {
    let Some(asker) = state.requests.take(&exchange.method) else {
        return Vec::new();
    };
    match asker {
        Asker::Log => Vec::new(),
    }
}
