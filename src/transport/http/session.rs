//! The legacy session (`Mcp-Session-Id`, the negotiated `MCP-Protocol-Version`): started on
//! `initialize`, sent on every request, forgotten on a 404, deleted at the end.

use std::sync::PoisonError;
use std::time::Duration;

use super::posted::Posted;
use super::poster::{Poster, SessionState};
use super::record::Record;
use super::status::words;
use crate::mcp::jsonrpc::{Message, Reply};
use crate::transport::{TransportEvent, now};

/// How long the session's `DELETE` may take at shutdown.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

impl Poster {
    /// The legacy session as this response leaves it: expired by a 404 to a request that
    /// carried its id, started by the id on an `initialize` answer.
    pub(super) async fn track_session(
        &self,
        outgoing: &Posted,
        response: &reqwest::Response,
        carried_session: bool,
    ) {
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND && carried_session {
            // The session is gone: forget it, so that the next `initialize` starts a new one.
            *self.session_state() = SessionState::default();
            let _ = self
                .events
                .send(TransportEvent::SessionExpired { at: now() })
                .await;
        }
        if outgoing.method.as_deref() == Some("initialize") && status.is_success() {
            let id = response
                .headers()
                .get("mcp-session-id")
                .and_then(|id| id.to_str().ok())
                .map(str::to_owned);
            self.session_state().id.clone_from(&id);
            if let Some(id) = id {
                let _ = self
                    .events
                    .send(TransportEvent::SessionStarted { id, at: now() })
                    .await;
            }
        }
    }

    /// The legacy session's headers: its id and the negotiated version, once there are.
    pub(super) fn with_session(
        &self,
        mut request: reqwest::RequestBuilder,
    ) -> reqwest::RequestBuilder {
        let state = self.session_state();
        if let Some(id) = &state.id {
            request = request.header("Mcp-Session-Id", id.as_str());
        }
        if let Some(version) = &state.protocol_version {
            request = request.header("MCP-Protocol-Version", version.as_str());
        }
        request
    }

    /// Ends the legacy session with `DELETE` (a 405 is an answer the spec allows); says how it
    /// went.
    pub(super) async fn delete_session(&self, id: &str) -> String {
        let request = self
            .client
            .delete(self.url.clone())
            .headers(self.headers("DELETE", &self.url))
            .header("Mcp-Session-Id", id)
            .timeout(DELETE_TIMEOUT)
            .build();
        let request = match request {
            Ok(request) => request,
            Err(error) => return format!("session not deleted: {}", words(&error)),
        };
        let mut record = Record::new(&request, None);
        match self.client.execute(request).await {
            Ok(response) => {
                record.response(&response);
                self.emit_http(&mut record, None).await;
                format!("session deleted: HTTP {}", response.status())
            }
            Err(error) => {
                let reason = format!("session not deleted: {}", words(&error));
                self.emit_http(&mut record, Some(reason.clone())).await;
                reason
            }
        }
    }

    /// The legacy era's version header follows what `initialize` negotiated.
    pub(super) fn remember_version(&self, outgoing: &Posted, message: &Message) {
        if outgoing.method.as_deref() != Some("initialize") {
            return;
        }
        if let Message::Response {
            reply: Reply::Result(result),
            ..
        } = message
        {
            let version = result
                .get("protocolVersion")
                .and_then(|v| v.as_str().map(Into::into));
            self.session_state().protocol_version = version;
        }
    }

    pub(super) fn session_state(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
