//! The legacy handshake: the `initialize` request, and the connection its answer makes (also
//! when a new legacy HTTP session starts in the middle of a job).

use std::borrow::Cow;

use serde_json::json;

use super::SessionError;
use super::requests::{Core, Spec};
use crate::mcp::era::{self, Era};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::log::Connection;
use crate::mcp::messages::ServerInfo;
use crate::mcp::session::Exchange;

impl Core {
    /// The `initialize` request.
    pub fn initialize_spec(&self) -> Spec {
        Spec {
            method: "initialize".into(),
            params: Some(json!({
                "protocolVersion": era::LEGACY_OFFER,
                "capabilities": self.capabilities(),
                "clientInfo": Self::client_info(),
            })),
            timeout: self.options.timeout,
            // `initialize` must not be cancelled, so its timeout sends no cancellation.
            cancel_on_timeout: false,
            cancellable: false,
        }
    }

    /// The connection an `initialize` answer makes, `notifications/initialized` sent; or why
    /// not.
    pub fn read_initialize(&mut self, exchange: Exchange) -> Result<Connection, SessionError> {
        let result = expect_result(exchange)?;
        let answered = result
            .get("protocolVersion")
            .and_then(|version| version.as_str().map(Cow::into_owned))
            .unwrap_or_default();
        if !era::supports_legacy(&answered) {
            return Err(SessionError::UnsupportedVersion {
                offered: era::LEGACY_OFFER.into(),
                answered,
            });
        }
        self.notify("notifications/initialized", None);
        Ok(Connection {
            era: Era::Legacy,
            protocol_version: answered,
            server: ServerInfo::from_initialize(&result),
            capabilities: result.get("capabilities"),
            http_session: self.http_session.clone(),
            probe: None,
        })
    }
}

pub(crate) fn expect_result(exchange: Exchange) -> Result<Json, SessionError> {
    match exchange.reply() {
        Some(Reply::Result(result)) => Ok(result.clone()),
        _ => Err(SessionError::Exchange(Box::new(exchange))),
    }
}
