//! The MCP client driver: negotiates the era, sends requests one at a time, and keeps a log of
//! every frame, stderr line and local event. Thin I/O around the pure `mcp` core.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::classify::{Class, classify};
use crate::mcp::Timestamp;
use crate::mcp::era::{self, DiscoverVerdict, Era, EraChoice};
use crate::mcp::jsonrpc::{ErrorObject, Frame, FrameError, Id, Message, Reply};
use crate::mcp::messages::{ServerInfo, Tool, tools_page};
use crate::mcp::session::{Correlation, End, Exchange, Failure, Session};
use crate::transport::framing::InvalidLine;
use crate::transport::{Transport, TransportError, TransportEvent, now};

pub use crate::mcp::log::{Connection, LogEntry, LogEvent, Role};

/// How many stderr lines a transport failure quotes.
const STDERR_TAIL: usize = 20;
/// Re-fetches of `tools/list` when the server keeps announcing changes.
const MAX_TOOL_REFETCHES: usize = 3;
/// Grace periods of the stdio shutdown: stdin closed, then SIGTERM, then SIGKILL.
const SHUTDOWN_STEP: Duration = Duration::from_millis(300);

/// Client settings.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub era: EraChoice,
    /// Per-request timeout.
    pub timeout: Duration,
    /// How long `auto` waits for a `server/discover` answer before assuming a legacy server.
    pub probe_timeout: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            era: EraChoice::Auto,
            timeout: Duration::from_secs(30),
            probe_timeout: Duration::from_secs(2),
        }
    }
}

/// Why the client could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(transparent)]
    Transport(#[from] TransportError),
    #[error("{} failed: {}", .0.method, classify(.0).detail)]
    Exchange(Box<Exchange>),
    #[error(
        "the server answered initialize with protocol version '{answered}', which sightline does \
         not support (sightline offered '{offered}' and accepts {})",
        era::LEGACY_VERSIONS.join(", ")
    )]
    UnsupportedVersion { offered: String, answered: String },
    #[error(
        "the server supports protocol versions [{}] but sightline speaks [{}] in the modern era; \
         try --era legacy",
        .supported.join(", "), era::MODERN_VERSIONS.join(", ")
    )]
    NoSharedVersion { supported: Vec<String> },
    #[error("server/discover failed with {} {}; the server speaks the modern era but refused us", .0.code, .0.message)]
    ModernError(ErrorObject),
    #[error(
        "the server answered server/discover with {} {}: it is not a modern (2026-07-28) server; \
         use --era auto or --era legacy",
        .0.code, .0.message
    )]
    NotModern(ErrorObject),
    #[error("{method} returned a result sightline cannot read: {reason}")]
    UnexpectedResult { method: String, reason: String },
}

impl ClientError {
    /// The exit code of a headless command that failed this way (product.md §1).
    pub fn exit_code(&self) -> u8 {
        match self {
            ClientError::Exchange(exchange) => match classify(exchange).class {
                Class::ProtocolError => 3,
                Class::Success | Class::ToolError | Class::TransportFailure => 4,
            },
            ClientError::NoSharedVersion { .. }
            | ClientError::ModernError(_)
            | ClientError::NotModern(_) => 3,
            ClientError::Transport(_)
            | ClientError::UnsupportedVersion { .. }
            | ClientError::UnexpectedResult { .. } => 4,
        }
    }
}

/// A client session with one server.
#[derive(Debug)]
pub struct Client {
    transport: Transport,
    session: Session,
    options: ClientOptions,
    log: Vec<LogEntry>,
    connection: Option<Connection>,
    /// `_meta` sent on every request in the modern era.
    meta: Option<Map<String, Value>>,
    stderr_tail: VecDeque<String>,
    /// The exit status once the server's output has ended.
    closed: Option<String>,
    tools_changed: bool,
    /// Progress tokens issued so far; each `tools/call` gets a fresh one.
    progress_tokens: u64,
    /// A `server/discover` result that arrived after the probe timed out.
    late_discover: Option<Value>,
    /// Where log entries go as they happen, instead of `log` (the TUI).
    observer: Option<mpsc::UnboundedSender<LogEntry>>,
}

impl Client {
    /// Wraps a transport; call [`Client::negotiate`] next.
    pub fn new(transport: Transport, options: ClientOptions) -> Self {
        Self {
            transport,
            session: Session::new(),
            options,
            log: Vec::new(),
            connection: None,
            meta: None,
            stderr_tail: VecDeque::new(),
            closed: None,
            tools_changed: false,
            progress_tokens: 0,
            late_discover: None,
            observer: None,
        }
    }

    /// The log so far (empty when it is streamed to an observer).
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Streams every log entry to `observer` as it happens, from now on.
    pub fn stream_log(&mut self, observer: mpsc::UnboundedSender<LogEntry>) {
        for entry in self.log.drain(..) {
            // A dropped observer has nobody left to show the entry to.
            let _ = observer.send(entry);
        }
        self.observer = Some(observer);
    }

    /// Whether `notifications/tools/list_changed` arrived since the last check.
    pub fn take_tools_changed(&mut self) -> bool {
        std::mem::take(&mut self.tools_changed)
    }

    /// While idle: waits for one transport event and records it. `false` once the server is gone.
    pub async fn pump(&mut self) -> bool {
        if self.closed.is_some() {
            return false;
        }
        let event = self
            .transport
            .recv()
            .await
            .unwrap_or_else(|| TransportEvent::Closed {
                status: "the transport ended".into(),
                at: now(),
            });
        self.ingest(event, None).await;
        self.closed.is_none()
    }

    pub fn connection(&self) -> Option<&Connection> {
        self.connection.as_ref()
    }

    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    fn client_info() -> Value {
        json!({"name": "sightline", "version": env!("CARGO_PKG_VERSION")})
    }

    /// Establishes the era and protocol version as `--era` asks.
    pub async fn negotiate(&mut self) -> Result<&Connection, ClientError> {
        let connection = match self.options.era {
            EraChoice::Legacy => self.initialize().await?,
            EraChoice::Modern => {
                self.discover(false)
                    .await?
                    .ok_or_else(|| ClientError::UnexpectedResult {
                        method: "server/discover".into(),
                        reason: "no answer".into(),
                    })?
            }
            EraChoice::Auto => match self.discover(true).await? {
                Some(connection) => connection,
                None => self.initialize_or_late_modern().await?,
            },
        };
        Ok(self.connection.insert(connection))
    }

    async fn initialize(&mut self) -> Result<Connection, ClientError> {
        let params = json!({
            "protocolVersion": era::LEGACY_OFFER,
            "capabilities": {},
            "clientInfo": Self::client_info(),
        });
        // `initialize` must not be cancelled, so its timeout sends no cancellation.
        let exchange = self
            .exchange("initialize", Some(params), self.options.timeout, false)
            .await;
        let result = expect_result(exchange)?;
        let answered = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !era::supports_legacy(answered) {
            return Err(ClientError::UnsupportedVersion {
                offered: era::LEGACY_OFFER.into(),
                answered: answered.into(),
            });
        }
        self.notify("notifications/initialized", None).await;
        Ok(Connection {
            era: Era::Legacy,
            protocol_version: answered.to_owned(),
            server: ServerInfo::from_initialize(&result),
            capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
        })
    }

    /// Modern negotiation. As a probe (`auto`), `Ok(None)` means "legacy server: fall back".
    async fn discover(&mut self, probe: bool) -> Result<Option<Connection>, ClientError> {
        let mut version = era::MODERN_VERSIONS[0].to_owned();
        let mut retried = false;
        loop {
            self.meta = Some(era::request_meta(&version, &Self::client_info()));
            let timeout = if probe {
                self.options.probe_timeout
            } else {
                self.options.timeout
            };
            // A probe that times out is not cancelled: before `initialize` a legacy server
            // expects nothing but the handshake, and the spec asks for no cancellation there.
            let exchange = self
                .exchange("server/discover", None, timeout, !probe)
                .await;
            let reply = match (&exchange.end, exchange.reply()) {
                (_, Some(reply)) => reply.clone(),
                (End::TimedOut { .. }, None) if probe => {
                    self.fall_back("server/discover got no answer within the probe timeout");
                    return Ok(None);
                }
                _ => return Err(ClientError::Exchange(Box::new(exchange))),
            };
            match era::judge_discover(&reply, &version) {
                DiscoverVerdict::Modern { version } => {
                    let result = match reply {
                        Reply::Result(result) => result,
                        Reply::Error(_) => Value::Null,
                    };
                    return Ok(Some(self.modern_connection(version, &result)));
                }
                DiscoverVerdict::Retry { version: shared } if !retried => {
                    self.note(format!(
                        "the server does not speak {version}; retrying with {shared}"
                    ));
                    version = shared;
                    retried = true;
                }
                DiscoverVerdict::Retry { version } => {
                    return Err(ClientError::NoSharedVersion {
                        supported: vec![version],
                    });
                }
                DiscoverVerdict::NoSharedVersion { supported } => {
                    return Err(ClientError::NoSharedVersion { supported });
                }
                DiscoverVerdict::ModernError(error) => return Err(ClientError::ModernError(error)),
                DiscoverVerdict::Legacy { error } if probe => {
                    self.fall_back(&format!(
                        "server/discover was answered with {} {}",
                        error.code, error.message
                    ));
                    return Ok(None);
                }
                DiscoverVerdict::Legacy { error } => return Err(ClientError::NotModern(error)),
            }
        }
    }

    fn modern_connection(&mut self, version: String, result: &Value) -> Connection {
        self.meta = Some(era::request_meta(&version, &Self::client_info()));
        Connection {
            era: Era::Modern,
            protocol_version: version,
            server: ServerInfo::from_discover(result),
            capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
        }
    }

    /// The fallback after a probe timeout. A modern server that was merely slow to start answers
    /// the probe late and refuses `initialize`; its late answer then decides.
    async fn initialize_or_late_modern(&mut self) -> Result<Connection, ClientError> {
        let error = match self.initialize().await {
            Ok(connection) => return Ok(connection),
            Err(error) => error,
        };
        let Some(result) = self.late_discover.take() else {
            return Err(error);
        };
        let requested = era::MODERN_VERSIONS[0];
        match era::judge_discover(&Reply::Result(result.clone()), requested) {
            DiscoverVerdict::Modern { version } => {
                self.note(format!(
                    "initialize was refused ({error}), but server/discover was answered after the \
                     probe timeout: the server is modern"
                ));
                Ok(self.modern_connection(version, &result))
            }
            _ => Err(error),
        }
    }

    fn fall_back(&mut self, why: &str) {
        self.meta = None;
        self.note(format!(
            "{why}: the server is legacy; falling back to initialize"
        ));
    }

    /// Lists every tool, following all pages, and re-fetches if the list changes meanwhile.
    pub async fn list_tools(&mut self) -> Result<Vec<Tool>, ClientError> {
        let mut refetches = 0;
        loop {
            self.tools_changed = false;
            let tools = self.fetch_tool_pages().await?;
            if !self.tools_changed || refetches == MAX_TOOL_REFETCHES {
                return Ok(tools);
            }
            refetches += 1;
            self.note("notifications/tools/list_changed arrived: fetching tools/list again".into());
        }
    }

    async fn fetch_tool_pages(&mut self) -> Result<Vec<Tool>, ClientError> {
        let modern = self.meta.is_some();
        let mut tools = Vec::new();
        let mut seen_cursors = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor.as_ref().map(|cursor| json!({"cursor": cursor}));
            let result = expect_result(self.request("tools/list", params).await)?;
            let page = tools_page(&result).ok_or_else(|| ClientError::UnexpectedResult {
                method: "tools/list".into(),
                reason: "no `tools` array".into(),
            })?;
            tools.extend(page.tools);
            cursor = match page.next_cursor {
                // 2026-07-28: an empty string is a valid cursor, not the end of results.
                Some(next) if modern || !next.is_empty() => Some(next),
                _ => return Ok(tools),
            };
            if let Some(repeated) = cursor.as_ref().filter(|c| seen_cursors.contains(*c)) {
                return Err(ClientError::UnexpectedResult {
                    method: "tools/list".into(),
                    reason: format!("cursor '{repeated}' came back twice; stopped to avoid a loop"),
                });
            }
            seen_cursors.extend(cursor.clone());
        }
    }

    /// Sends `tools/call` with `arguments` exactly as given (even when not an object), asking
    /// for progress notifications as hosts do.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Exchange {
        self.call(name, arguments, None).await
    }

    /// Like [`Client::call_tool`], ended early (and cancelled) when `cancel` fires.
    pub async fn call_tool_cancellable(
        &mut self,
        name: &str,
        arguments: Value,
        cancel: oneshot::Receiver<()>,
    ) -> Exchange {
        self.call(name, arguments, Some(cancel)).await
    }

    async fn call(
        &mut self,
        name: &str,
        arguments: Value,
        cancel: Option<oneshot::Receiver<()>>,
    ) -> Exchange {
        self.progress_tokens += 1;
        let meta = json!({"progressToken": self.progress_tokens});
        let params = json!({"name": name, "arguments": arguments, "_meta": meta});
        let timeout = self.options.timeout;
        self.exchange_until("tools/call", Some(params), timeout, true, cancel)
            .await
    }

    /// Sends one request and waits for its end, with the configured timeout.
    pub async fn request(&mut self, method: &str, params: Option<Value>) -> Exchange {
        self.exchange(method, params, self.options.timeout, true)
            .await
    }

    async fn exchange(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        cancel_on_timeout: bool,
    ) -> Exchange {
        self.exchange_until(method, params, timeout, cancel_on_timeout, None)
            .await
    }

    async fn exchange_until(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        cancel_on_timeout: bool,
        mut cancel: Option<oneshot::Receiver<()>>,
    ) -> Exchange {
        let params = match &self.meta {
            Some(meta) => Some(era::with_meta(params, meta)),
            None => params,
        };
        let (id, frame) = self.session.start_request(method, params, now());
        if let Some(ended) = self
            .closed
            .clone()
            .and_then(|status| self.server_exited(Some(&id), status))
        {
            return ended;
        }
        self.record(LogEvent::Sent(frame.clone()));
        if !self.transport.send(frame.raw.clone()).await {
            let reason = "the server's input is closed".to_owned();
            if let Some(ended) =
                self.session
                    .abandon(&id, End::Failed(Failure::SendFailed { reason }), now())
            {
                return ended;
            }
        }
        let deadline = Instant::now() + timeout;
        loop {
            let cancelled = async {
                match cancel.as_mut() {
                    Some(cancel) => cancel.await.is_ok(),
                    None => std::future::pending().await,
                }
            };
            let event = tokio::select! {
                event = self.transport.recv() => event,
                () = sleep_until(deadline) => return self.time_out(&id, timeout, cancel_on_timeout).await,
                true = cancelled => return self.cancel_by_user(&id).await,
            };
            let event = event.unwrap_or_else(|| TransportEvent::Closed {
                status: "the transport ended".into(),
                at: now(),
            });
            if let Some(ended) = self.ingest(event, Some(&id)).await {
                return ended;
            }
        }
    }

    async fn cancel_by_user(&mut self, id: &Id) -> Exchange {
        let end = End::Failed(Failure::CancelledByUser);
        let Some(ended) = self.session.abandon(id, end, now()) else {
            return Self::missing_exchange(id);
        };
        let params =
            json!({"requestId": Value::from(id.clone()), "reason": "cancelled by the user"});
        self.notify("notifications/cancelled", Some(params)).await;
        ended
    }

    async fn time_out(&mut self, id: &Id, timeout: Duration, cancel: bool) -> Exchange {
        let after_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let at = now();
        let Some(ended) = self.session.abandon(id, End::TimedOut { after_ms }, at) else {
            return Self::missing_exchange(id);
        };
        self.record_at(
            at,
            LogEvent::TimedOut {
                id: id.clone(),
                method: ended.method.clone(),
                after_ms,
            },
        );
        if cancel {
            let reason = format!("sightline timed out after {after_ms} ms");
            self.notify(
                "notifications/cancelled",
                Some(json!({"requestId": Value::from(id.clone()), "reason": reason})),
            )
            .await;
        }
        ended
    }

    /// Records one transport event; returns the exchange for `waiting` if this event ended it.
    async fn ingest(&mut self, event: TransportEvent, waiting: Option<&Id>) -> Option<Exchange> {
        match event {
            TransportEvent::Received {
                frame: Ok(frame),
                at,
            } => self.on_frame(frame, at, waiting).await,
            TransportEvent::Received {
                frame: Err(invalid),
                at,
            } => {
                let ended = self.on_invalid(&invalid, at, waiting);
                self.record_at(at, LogEvent::Invalid(invalid));
                ended
            }
            TransportEvent::StderrLine { line, at } => {
                if self.stderr_tail.len() == STDERR_TAIL {
                    self.stderr_tail.pop_front();
                }
                self.stderr_tail.push_back(line.clone());
                self.record_at(at, LogEvent::Stderr(line));
                None
            }
            TransportEvent::WriteFailed { reason, at } => {
                self.record_at(at, LogEvent::WriteFailed(reason.clone()));
                let end = End::Failed(Failure::SendFailed { reason });
                self.session.abandon(waiting?, end, at)
            }
            TransportEvent::Closed { status, at } => {
                self.record_at(
                    at,
                    LogEvent::Closed {
                        status: status.clone(),
                    },
                );
                self.closed = Some(status.clone());
                self.server_exited(waiting, status)
            }
        }
    }

    fn server_exited(&mut self, waiting: Option<&Id>, status: String) -> Option<Exchange> {
        let stderr_tail = self.stderr_tail.iter().cloned().collect();
        let end = End::Failed(Failure::ServerExited {
            status,
            stderr_tail,
        });
        let ended = self.session.abandon_all(&end, now());
        ended
            .into_iter()
            .find(|exchange| Some(&exchange.id) == waiting)
    }

    /// A reply we cannot read ends its request at once instead of leaving it to time out: when
    /// it names the request's id, or when it is too large to read and only one request waits.
    fn on_invalid(
        &mut self,
        invalid: &InvalidLine,
        at: Timestamp,
        waiting: Option<&Id>,
    ) -> Option<Exchange> {
        let target = match &invalid.error {
            FrameError::NotJsonRpc { id: Some(id), .. } => Some(id.clone()),
            FrameError::Oversized { .. } => {
                let mut pending = self.session.pending_ids();
                match (pending.next(), pending.next()) {
                    (Some(only), None) => Some(only.clone()),
                    _ => None,
                }
            }
            FrameError::NotJsonRpc { id: None, .. }
            | FrameError::NotJson { .. }
            | FrameError::InvalidUtf8 { .. } => None,
        }?;
        let failure = Failure::MalformedReply {
            raw: invalid.raw.clone(),
            reason: invalid.error.to_string(),
        };
        let ended = self.session.abandon(&target, End::Failed(failure), at)?;
        (Some(&ended.id) == waiting).then_some(ended)
    }

    async fn on_frame(
        &mut self,
        frame: Frame,
        at: Timestamp,
        waiting: Option<&Id>,
    ) -> Option<Exchange> {
        let correlation = self.session.on_frame(frame.clone(), at);
        let (role, ended) = match correlation {
            Correlation::Completed(exchange) => (
                Role::Reply {
                    method: exchange.method.clone(),
                },
                Some(*exchange),
            ),
            Correlation::Late { method, .. } => {
                if method == "server/discover"
                    && let Message::Response {
                        reply: Reply::Result(result),
                        ..
                    } = &frame.message
                {
                    self.late_discover = Some(result.clone());
                }
                (Role::Late { method }, None)
            }
            Correlation::Duplicate { method, .. } => (Role::Duplicate { method }, None),
            Correlation::UnknownId { .. } => (Role::UnknownId, None),
            Correlation::Unaddressed => (Role::Unaddressed, None),
            Correlation::ServerRequest { .. } => (Role::ServerRequest, None),
            Correlation::Notification { method } => {
                if method == "notifications/tools/list_changed" {
                    self.tools_changed = true;
                }
                (Role::Notification, None)
            }
        };
        let server_request = match (&role, &frame.message) {
            (Role::ServerRequest, Message::Request { id, method, .. }) => {
                Some((id.clone(), method.clone()))
            }
            _ => None,
        };
        self.record_at(at, LogEvent::Received { frame, role });
        if let Some((id, method)) = server_request {
            self.answer_server_request(id, &method).await;
        }
        ended.filter(|exchange| Some(&exchange.id) == waiting)
    }

    /// Legacy servers may ask us things; we answer `ping` and decline the rest with -32601.
    async fn answer_server_request(&mut self, id: Id, method: &str) {
        if self.meta.is_some() {
            self.note(format!(
                "not answered: in 2026-07-28 servers must not send requests ('{method}') and \
                 clients must not send responses on stdio"
            ));
            return;
        }
        let reply = if method == "ping" {
            Reply::Result(json!({}))
        } else {
            Reply::Error(ErrorObject {
                code: -32601,
                message: format!("Method not found: sightline does not support '{method}'"),
                data: None,
            })
        };
        self.write(Frame::encode(Message::Response {
            id: Some(id),
            reply,
        }))
        .await;
    }

    async fn notify(&mut self, method: &str, params: Option<Value>) {
        let message = Message::Notification {
            method: method.to_owned(),
            params,
        };
        self.write(Frame::encode(message)).await;
    }

    async fn write(&mut self, frame: Frame) {
        self.record(LogEvent::Sent(frame.clone()));
        if !self.transport.send(frame.raw.clone()).await {
            self.record(LogEvent::WriteFailed("the server's input is closed".into()));
        }
    }

    fn note(&mut self, text: String) {
        self.record(LogEvent::Note(text));
    }

    fn record(&mut self, event: LogEvent) {
        self.record_at(now(), event);
    }

    fn record_at(&mut self, at: Timestamp, event: LogEvent) {
        let entry = LogEntry { at, event };
        match &self.observer {
            Some(observer) => {
                // The observer is gone only when the UI has quit.
                let _ = observer.send(entry);
            }
            None => self.log.push(entry),
        }
    }

    fn missing_exchange(id: &Id) -> Exchange {
        // Only reachable if a request vanished from the session; reported, never panicking.
        let request = Frame::encode(Message::Notification {
            method: "?".into(),
            params: None,
        });
        let reason = format!("request {id} was no longer pending");
        Exchange {
            id: id.clone(),
            method: String::new(),
            request,
            sent_at: now(),
            end: End::Failed(Failure::SendFailed { reason }),
            ended_at: now(),
        }
    }

    /// Stops the server: close its stdin, wait briefly, then SIGTERM, then SIGKILL.
    /// Returns at once for a server that exits when its input closes.
    pub async fn shutdown(&mut self) {
        self.transport.close_input();
        for signal in [None, Some(false), Some(true)] {
            if let Some(force) = signal {
                self.transport.signal(force);
            }
            let deadline = Instant::now() + SHUTDOWN_STEP;
            while self.closed.is_none() {
                let event = tokio::select! {
                    event = self.transport.recv() => event,
                    () = sleep_until(deadline) => break,
                };
                let event = event.unwrap_or_else(|| TransportEvent::Closed {
                    status: "the transport ended".into(),
                    at: now(),
                });
                self.ingest(event, None).await;
            }
            if self.closed.is_some() {
                return;
            }
        }
    }
}

fn expect_result(exchange: Exchange) -> Result<Value, ClientError> {
    match exchange.reply() {
        Some(Reply::Result(result)) => Ok(result.clone()),
        _ => Err(ClientError::Exchange(Box::new(exchange))),
    }
}
