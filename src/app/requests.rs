//! Requests other than `tools/call` that the app sends, and the routing of each answer back to
//! whoever asked for it (the driver runs them one after the other, in the order sent).

use std::collections::VecDeque;

use serde_json::Value;

use super::action::{Effect, SessionCommand};
use super::state::{AppState, Link};
use super::status::complain;
use crate::mcp::session::Exchange;

/// Who asked for a request: its answer goes back there. A new kind of request adds a variant
/// here and a row in [`finished`].
#[derive(Debug, Clone, PartialEq)]
pub enum Asker {
    /// Nothing waits for the answer: the Exchange log shows it, like every exchange.
    Log,
    /// `p`: the status line says the round trip.
    Ping,
    /// `l`: the status line says how the server took the level.
    SetLevel,
    /// The composer: the status line says the class.
    Composer,
}

/// Requests sent and not yet answered, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Requests {
    waiting: VecDeque<(String, Asker)>,
}

impl Requests {
    /// Whether a request waiting for its answer matches `wanted`.
    pub fn any(&self, wanted: impl Fn(&str, &Asker) -> bool) -> bool {
        self.waiting
            .iter()
            .any(|(method, asker)| wanted(method, asker))
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// The asker of the oldest waiting request of `method`: the driver answers in the order
    /// sent, so that is the one an answer of this method ends.
    fn take(&mut self, method: &str) -> Option<Asker> {
        let index = self.waiting.iter().position(|(sent, _)| sent == method)?;
        self.waiting.remove(index).map(|(_, asker)| asker)
    }

    /// The connection ended: nothing sent on it will be answered.
    pub fn clear(&mut self) {
        self.waiting.clear();
    }
}

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
    state.requests.waiting.push_back((method.to_owned(), asker));
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
        Asker::Ping | Asker::SetLevel | Asker::Composer => {
            super::composer::finished(state, &asker, exchange);
            Vec::new()
        }
    }
}
