//! Requests held open beside everything else (a 2026-07-28 `subscriptions/listen`): sent at
//! once, never awaited, each known to its caller by a key, and ended by the server, by the
//! connection's end, or by the caller's cancel.

use std::sync::Arc;

use serde_json::Value;

use super::requests::Core;
use crate::mcp::era;
use crate::mcp::jsonrpc::Id;
use crate::mcp::log::LogEvent;
use crate::mcp::session::{End, Exchange, Failure};
use crate::mcp::wire::Outgoing;

impl Core {
    /// Sends `method` and holds it open under `key`, beside whatever else runs: it has no
    /// deadline, and its end is kept for [`Listens::take_ended`].
    pub fn listen(&mut self, key: String, method: &str, params: Option<Value>) {
        if self.listens.is_open(&key) {
            self.note(format!(
                "{key} is held open already: {method} not sent again"
            ));
            return;
        }
        let params = match &self.meta {
            Some(meta) => Some(era::with_meta(params, meta)),
            None => params,
        };
        let (id, frame) = self.session.start_request(method, params, self.now.wall);
        if let Some(end) = self.closed.clone() {
            let end = End::Failed(Failure::ServerExited {
                status: end.status,
                stderr_tail: end.stderr_tail,
            });
            let ended = self.session.abandon(&id, end, self.now.wall);
            let ended = ended.unwrap_or_else(|| self.missing_exchange(&id));
            self.listens.ended.push_back((key, ended));
            return;
        }
        self.record(LogEvent::Sent(frame.clone()));
        self.session.mark_sent(&id, self.now.mark);
        self.push(super::Output::Send {
            outgoing: Outgoing::Line(Arc::clone(&frame.raw)),
            request: Some(id.clone()),
        });
        self.listens.open.push((key, id));
    }

    /// Cancels the request held open under `key`, the way the era cancels a request (its end
    /// reads "cancelled by you").
    pub fn stop_listening(&mut self, key: &str) {
        let Some(at) = self.listens.open.iter().position(|(open, _)| open == key) else {
            self.note(format!("nothing held open as {key}: nothing to cancel"));
            return;
        };
        let (key, id) = self.listens.open.remove(at);
        let end = End::Failed(Failure::CancelledByUser);
        let ended = self.session.abandon(&id, end, self.now.wall);
        if ended.is_some() {
            self.cancel_request(&id, "the user ended the subscription");
        }
        let ended = ended.unwrap_or_else(|| self.missing_exchange(&id));
        self.listens.ended.push_back((key, ended));
    }

    /// Where an exchange that ended goes: the awaited request's end is returned; a held-open
    /// request's is kept for its caller; any other's is in the log, and that is all.
    pub(super) fn route_end(
        &mut self,
        exchange: Exchange,
        waiting: Option<&Id>,
    ) -> Option<Exchange> {
        if Some(&exchange.id) == waiting {
            return Some(exchange);
        }
        if let Some(at) = self
            .listens
            .open
            .iter()
            .position(|(_, id)| *id == exchange.id)
        {
            let (key, _) = self.listens.open.remove(at);
            self.listens.ended.push_back((key, exchange));
        }
        None
    }
}
