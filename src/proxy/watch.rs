//! What a proxy sees, pure: the frames a host and its server exchange, in the order they passed,
//! as the session stream the TUI and the recorder read — each frame logged for what it is, the
//! server and its tools as the host learnt them, and each `tools/call` judged when it ends.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::classify;
use crate::mcp::Timestamp;
use crate::mcp::catalog::Catalog;
use crate::mcp::era::{self, Era};
use crate::mcp::framing::InvalidLine;
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{Frame, Id, Message, Reply};
use crate::mcp::log::{Connection, LogEntry, LogEvent, Role, SessionEvent};
use crate::mcp::messages::{ServerInfo, tools_page};
use crate::mcp::session::{End, Exchange, Failure};
use crate::mcp::verdict::Finished;

/// Who sent a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Host,
    Server,
}

/// The host as its first request named itself (`clientInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSeen {
    pub name: String,
    pub version: String,
}

/// A request still waiting for its response.
#[derive(Debug)]
struct Pending {
    method: String,
    request: Frame,
    sent_at: Timestamp,
}

/// The session between a host and its server, as the proxy watched it pass.
#[derive(Debug, Default)]
pub struct Watch {
    /// Requests by who sent them and their id: a host's and a server's ids are separate.
    pending: HashMap<(Side, Id), Pending>,
    connection: Option<Connection>,
    /// The tools of the last complete `tools/list`, and the pages of one under way.
    catalog: Option<Arc<Catalog>>,
    paging: Catalog,
    host: Option<HostSeen>,
    /// The server's stderr, its last lines (for a call the server's exit ended).
    stderr_tail: Vec<String>,
}

/// Lines of the server's stderr kept for a call its exit ends.
const STDERR_TAIL: usize = 10;

impl Watch {
    pub fn new() -> Self {
        Self::default()
    }

    /// The host, once its first request named it.
    pub fn host(&self) -> Option<&HostSeen> {
        self.host.as_ref()
    }

    pub fn connection(&self) -> Option<&Connection> {
        self.connection.as_ref()
    }

    /// One frame that passed from `from`, at `at`.
    pub fn frame(&mut self, from: Side, frame: Frame, at: Timestamp) -> Vec<SessionEvent> {
        let mut events = Vec::new();
        match (&frame.message, from) {
            (Message::Request { id, method, params }, _) => {
                if from == Side::Host && self.host.is_none() {
                    self.host = host_of(method, params.as_ref());
                }
                self.pending.insert(
                    (from, id.clone()),
                    Pending {
                        method: method.clone(),
                        request: frame.clone(),
                        sent_at: at,
                    },
                );
                events.push(logged(at, from, frame, Role::ServerRequest));
            }
            (Message::Notification { .. }, _) => {
                events.push(logged(at, from, frame, Role::Notification));
            }
            (Message::Response { id, reply }, _) => {
                let asker = match from {
                    Side::Host => Side::Server,
                    Side::Server => Side::Host,
                };
                let pending = id
                    .as_ref()
                    .and_then(|id| self.pending.remove(&(asker, id.clone())));
                let role = match (&pending, id) {
                    (Some(pending), _) => Role::Reply {
                        method: pending.method.clone(),
                    },
                    (None, None) => Role::Unaddressed,
                    (None, Some(_)) => Role::UnknownId,
                };
                let reply = reply.clone();
                events.push(logged(at, from, frame.clone(), role));
                if let (Some(pending), Side::Server, Some(id)) = (pending, from, id) {
                    self.answered(pending, id.clone(), &reply, frame, at, &mut events);
                }
            }
        }
        events
    }

    /// A line that is not a JSON-RPC message, from `from` (a server's startup banner…).
    pub fn invalid(&mut self, line: InvalidLine, at: Timestamp) -> Vec<SessionEvent> {
        vec![SessionEvent::Logged(LogEntry {
            at,
            event: LogEvent::Invalid(line),
        })]
    }

    /// Some of the server's stderr.
    pub fn stderr(&mut self, text: &str, at: Timestamp) -> Vec<SessionEvent> {
        self.stderr_tail.extend(text.lines().map(str::to_owned));
        let drop = self.stderr_tail.len().saturating_sub(STDERR_TAIL);
        self.stderr_tail.drain(..drop);
        vec![SessionEvent::Logged(LogEntry {
            at,
            event: LogEvent::Stderr(text.to_owned()),
        })]
    }

    /// The server's side ended (`status` says how): the host's calls still waiting end with
    /// it, as the host sees them end.
    pub fn closed(&mut self, status: &str, at: Timestamp) -> Vec<SessionEvent> {
        let mut events = vec![SessionEvent::Logged(LogEntry {
            at,
            event: LogEvent::Closed {
                status: status.to_owned(),
            },
        })];
        let mut waiting: Vec<((Side, Id), Pending)> = self.pending.drain().collect();
        waiting.sort_by_key(|(_, pending)| pending.sent_at);
        for ((side, id), pending) in waiting {
            if side == Side::Host && pending.method == "tools/call" {
                let end = End::Failed(Failure::ServerExited {
                    status: status.to_owned(),
                    stderr_tail: self.stderr_tail.clone(),
                });
                events.push(self.call_finished(id, pending, end, at));
            }
        }
        events.push(SessionEvent::Disconnected);
        events
    }

    /// A server's response to the host's request: what the host learnt from it.
    fn answered(
        &mut self,
        pending: Pending,
        id: Id,
        reply: &Reply,
        frame: Frame,
        at: Timestamp,
        events: &mut Vec<SessionEvent>,
    ) {
        let result = match reply {
            Reply::Result(result) => Some(result),
            Reply::Error(_) => None,
        };
        match (pending.method.as_str(), result) {
            ("initialize", Some(result)) => {
                let connection = Connection {
                    era: Era::Legacy,
                    protocol_version: text(result, "protocolVersion"),
                    server: ServerInfo::from_initialize(result),
                    capabilities: result.get("capabilities"),
                    http_session: None,
                    probe: None,
                };
                self.connection = Some(connection.clone());
                events.push(SessionEvent::Connected(Box::new(connection)));
            }
            ("server/discover", Some(result)) => {
                let asked = pending.request.message.clone();
                let version = match asked {
                    Message::Request { params, .. } => params
                        .as_ref()
                        .and_then(|params| params.pointer("/_meta"))
                        .and_then(|meta| meta.get(era::META_PROTOCOL_VERSION))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    _ => None,
                };
                let connection = Connection {
                    era: Era::Modern,
                    protocol_version: version.unwrap_or_else(|| era::MODERN_VERSIONS[0].to_owned()),
                    server: ServerInfo::from_discover(result),
                    capabilities: result.get("capabilities"),
                    http_session: None,
                    probe: None,
                };
                self.connection = Some(connection.clone());
                events.push(SessionEvent::Connected(Box::new(connection)));
            }
            ("tools/list", Some(result)) => {
                let Some(page) = tools_page(result) else {
                    return;
                };
                let first = pending.request.message.clone();
                let continued = matches!(first, Message::Request { params: Some(params), .. }
                    if params.get("cursor").is_some());
                if !continued {
                    self.paging = Catalog::default();
                }
                // `tools_page` found an array: it is counted and kept.
                let _ = self.paging.push_page(page.tools);
                if page.next_cursor.is_none() {
                    let tools = Arc::new(std::mem::take(&mut self.paging));
                    self.catalog = Some(Arc::clone(&tools));
                    events.push(SessionEvent::ToolsListed(tools));
                }
            }
            ("tools/call", _) => {
                events.push(self.call_finished(id, pending, End::Replied(frame), at));
            }
            _ => {}
        }
    }

    /// A `tools/call` of the host's that ended, judged by the version in force and the tools
    /// the host was shown.
    fn call_finished(&self, id: Id, pending: Pending, end: End, at: Timestamp) -> SessionEvent {
        let exchange = Exchange {
            id,
            method: pending.method,
            request: pending.request,
            sent_at: pending.sent_at,
            end,
            ended_at: at,
            http: None,
            rounds: Vec::new(),
            task: None,
        };
        let version = self
            .connection
            .as_ref()
            .map_or("unknown", |connection| connection.protocol_version.as_str());
        let catalog = self.catalog.as_deref();
        let judged = Some(classify::judge(&exchange, version, catalog));
        SessionEvent::CallFinished(Box::new(Finished { exchange, judged }))
    }
}

/// A frame that passed, as the log has it: the host's are what "we" sent, the server's what
/// "we" received.
fn logged(at: Timestamp, from: Side, frame: Frame, role: Role) -> SessionEvent {
    let event = match from {
        Side::Host => LogEvent::Sent(frame),
        Side::Server => LogEvent::Received { frame, role },
    };
    SessionEvent::Logged(LogEntry { at, event })
}

/// The host's `clientInfo`: in `initialize` (legacy), or in a request's `_meta` (2026-07-28).
fn host_of(method: &str, params: Option<&Value>) -> Option<HostSeen> {
    let params = params?;
    let info = if method == "initialize" {
        params.get("clientInfo")
    } else {
        params
            .pointer("/_meta")
            .and_then(|meta| meta.get(era::META_CLIENT_INFO))
    }?;
    let field = |name: &str| {
        info.get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(HostSeen {
        name: field("name"),
        version: field("version"),
    })
}

fn text(json: &Json, name: &str) -> String {
    json.get(name)
        .and_then(|value| value.as_str().map(std::borrow::Cow::into_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use serde_json::json;

    use super::*;
    use crate::classify::Class;
    use crate::mcp::jsonrpc;

    fn pass(watch: &mut Watch, from: Side, message: &Value, at: u64) -> Vec<SessionEvent> {
        let frame = jsonrpc::parse(&message.to_string()).unwrap();
        watch.frame(from, frame, Timestamp(at))
    }

    fn legacy_session() -> Watch {
        let mut watch = Watch::new();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.332"}}});
        pass(&mut watch, Side::Host, &init, 1);
        let result = json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "demo", "version": "1"}}});
        let events = pass(&mut watch, Side::Server, &result, 2);
        assert!(
            events
                .iter()
                .any(|event| matches!(event, SessionEvent::Connected(c) if c.protocol_version == "2025-06-18"))
        );
        watch
    }

    #[test]
    fn the_host_is_named_by_its_client_info_and_the_server_by_its_answer() {
        let watch = legacy_session();
        let host = watch.host().unwrap();
        assert_eq!(
            (host.name.as_str(), host.version.as_str()),
            ("claude-code", "2.1.332")
        );
        assert_eq!(watch.connection().unwrap().server.name, "demo");
    }

    #[test]
    fn a_call_is_judged_when_the_server_answers_it_under_the_version_in_force() {
        let mut watch = legacy_session();
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        pass(&mut watch, Side::Host, &list, 3);
        let tools = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "book_flight", "inputSchema": {"type": "object"}}]}});
        let events = pass(&mut watch, Side::Server, &tools, 4);
        assert!(matches!(&events[1], SessionEvent::ToolsListed(tools) if tools.len() == 1));
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "book_flight", "arguments": {"departureDate": "12/12/2024"}}});
        pass(&mut watch, Side::Host, &call, 5);
        let error = json!({"jsonrpc": "2.0", "id": 2,
            "error": {"code": -32602, "message": "departureDate must be in the future"}});
        let events = pass(&mut watch, Side::Server, &error, 9);
        let [
            SessionEvent::Logged(entry),
            SessionEvent::CallFinished(finished),
        ] = &events[..]
        else {
            panic!("the reply, then the call: {events:?}")
        };
        assert!(
            matches!(&entry.event, LogEvent::Received { role: Role::Reply { method }, .. } if method == "tools/call")
        );
        assert_eq!(
            finished.exchange.ended_at.since(finished.exchange.sent_at),
            4
        );
        let judged = finished.judged.as_ref().unwrap();
        assert_eq!(judged.outcome.class, Class::ProtocolError);
        // 2025-06-18 allowed -32602 for invalid arguments: an info, not a warning.
        assert!(
            judged
                .findings
                .iter()
                .any(|finding| finding.id.starts_with("sep1303.")),
            "{:?}",
            judged.findings
        );
    }

    #[test]
    fn host_and_server_ids_are_separate_and_a_stray_reply_is_named() {
        let mut watch = legacy_session();
        let ask = json!({"jsonrpc": "2.0", "id": 2, "method": "roots/list"});
        let events = pass(&mut watch, Side::Server, &ask, 3);
        assert!(matches!(
            &events[0],
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Received {
                    role: Role::ServerRequest,
                    ..
                },
                ..
            })
        ));
        let call =
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x"}});
        pass(&mut watch, Side::Host, &call, 4);
        let answer = json!({"jsonrpc": "2.0", "id": 2, "result": {"roots": []}});
        let events = pass(&mut watch, Side::Host, &answer, 5);
        assert!(
            matches!(&events[..], [SessionEvent::Logged(_)]),
            "the host's answer ends no call"
        );
        let stray = json!({"jsonrpc": "2.0", "id": 77, "result": {}});
        let events = pass(&mut watch, Side::Server, &stray, 6);
        assert!(matches!(
            &events[0],
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Received {
                    role: Role::UnknownId,
                    ..
                },
                ..
            })
        ));
        // The call is still the host's, waiting: the server's exit ends it.
        let events = watch.closed("exit status: 1", Timestamp(7));
        assert!(
            events
                .iter()
                .any(|event| matches!(event, SessionEvent::CallFinished(f)
            if matches!(f.exchange.end, End::Failed(Failure::ServerExited { .. }))))
        );
        assert!(matches!(events.last(), Some(SessionEvent::Disconnected)));
    }

    #[test]
    fn a_modern_host_is_named_by_its_requests_meta() {
        let mut watch = Watch::new();
        let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "gemini-cli", "version": "0.61.0"}}}});
        pass(&mut watch, Side::Host, &discover, 1);
        let result = json!({"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": ["2026-07-28"],
            "capabilities": {}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "2"}}}});
        pass(&mut watch, Side::Server, &result, 2);
        assert_eq!(watch.host().unwrap().name, "gemini-cli");
        let connection = watch.connection().unwrap();
        assert_eq!(
            (connection.era, connection.protocol_version.as_str()),
            (Era::Modern, "2026-07-28")
        );
    }
}
