//! The MCP client driver: connects to a [`Target`], negotiates the era, sends requests one at a
//! time, and emits every frame, stderr line, local decision and finished call on one ordered
//! session stream. Thin I/O around the pure `mcp` core.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::classify::findings::{Direction, Finding, FrameRef, Severity};
use crate::classify::{Class, Outcome, classify};
use crate::mcp::Timestamp;
use crate::mcp::era::{self, DiscoverVerdict, Era, EraChoice};
use crate::mcp::framing::{DEFAULT_MAX_FRAME_BYTES, InvalidLine};
use crate::mcp::input::{self, Answer, Answers, InputRequest, ResultType, Round};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{self, ErrorObject, Frame, FrameError, Id, Message, Reply};
use crate::mcp::messages::{ServerInfo, Tool, tools_page};
use crate::mcp::session::{Correlation, End, Exchange, Failure, Session, TaskRun};
use crate::stream::EventSink;
use crate::transport::{self, Target, Transport, TransportError, TransportEvent, now};

pub use crate::mcp::log::{Connection, LogEntry, LogEvent, Role, SessionEvent, Stage};

/// Re-fetches of `tools/list` when the server keeps announcing changes.
const MAX_TOOL_REFETCHES: usize = 3;
/// While the transport runs an OAuth flow for a request, its deadline is at least this far
/// off after each step: the user may be logging in.
const AUTHORIZATION_WAIT: Duration = Duration::from_secs(300);
/// Pages of one `tools/list` listing, at most: a server whose list never ends is stopped.
const MAX_TOOL_PAGES: usize = 1000;
/// Rejected tools named one by one in the log; past that, counted.
const MAX_REJECTION_NOTES: usize = 20;
/// The tasks extension's identifier.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// `tasks/get` requests for one task, at most.
const MAX_TASK_POLLS: u32 = 3600;
/// The polling interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// Re-issues of a 2026-07-28 request whose stream was lost, at most.
const MAX_REISSUES: u32 = 2;
/// How long a shutdown waits for the transport to report the server gone, at most.
const SHUTDOWN_BUDGET: Duration = Duration::from_secs(3);

/// Where the client sends the number of a question and the channel for its answer.
pub type Asker = mpsc::UnboundedSender<(u64, oneshot::Sender<Answer>)>;

/// Client settings.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub era: EraChoice,
    /// Per-request timeout.
    pub timeout: Duration,
    /// What to answer when a server asks for input (elicitation, sampling, roots).
    pub answers: Answers,
    /// Declare the tasks extension (2026-07-28) and follow task handles to their end.
    pub tasks: bool,
    /// Ask someone (the TUI's user) instead of answering from `answers`: each question is
    /// emitted as `SessionEvent::Asked`, and its answer awaited on the channel sent here.
    pub asker: Option<Asker>,
    /// How long `auto` waits for a `server/discover` answer before assuming a legacy server.
    pub probe_timeout: Duration,
    /// Longest line accepted from the server; longer ones are reported and skipped.
    pub max_frame_bytes: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            era: EraChoice::Auto,
            timeout: Duration::from_secs(30),
            answers: Answers::default(),
            tasks: false,
            asker: None,
            probe_timeout: Duration::from_secs(2),
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
        }
    }
}

/// Reaches `target`, negotiates, and hands back the client; every step is on `sink`'s stream,
/// a failure too (`ConnectFailed`, with the stage that failed).
pub async fn connect(
    target: &Target,
    options: ClientOptions,
    sink: EventSink,
) -> Result<Client, ClientError> {
    sink.emit(SessionEvent::Connecting {
        transport: target.describe(),
    })
    .await;
    let transport = match transport::open(target, options.max_frame_bytes) {
        Ok(transport) => transport,
        Err(error) => {
            let error = ClientError::Transport(error);
            sink.emit(error.as_event()).await;
            return Err(error);
        }
    };
    let mut client = Client::new(transport, options, sink);
    if let Err(error) = client.negotiate().await {
        client.emit(error.as_event()).await;
        client.shutdown().await;
        return Err(error);
    }
    Ok(client)
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
        "the server supports protocol versions [{}] but sightline speaks [{}] in the modern era{}",
        .supported.join(", "), era::MODERN_VERSIONS.join(", "),
        if .supported.iter().any(|v| era::supports_legacy(v)) { "; try --era legacy" } else { "" }
    )]
    NoSharedVersion { supported: Vec<String> },
    #[error(
        "the server refused protocol version '{version}' twice, although its own list of \
         supported versions names it"
    )]
    VersionRefused { version: String },
    #[error("server/discover failed with {} {}; the server speaks the modern era but refused us", .error.code, .error.message)]
    ModernError {
        error: ErrorObject,
        exchange: Box<Exchange>,
    },
    #[error(
        "the server answered server/discover with {} {}: it is not a modern (2026-07-28) server; \
         use --era auto or --era legacy",
        .error.code, .error.message
    )]
    NotModern {
        error: ErrorObject,
        exchange: Box<Exchange>,
    },
    #[error("{method} returned a result sightline cannot read: {reason}")]
    UnexpectedResult { method: String, reason: String },
}

impl ClientError {
    /// The step of the session that failed.
    pub fn stage(&self) -> Stage {
        match self {
            ClientError::Transport(_) => Stage::Spawn,
            ClientError::Exchange(exchange) => Stage::of_method(&exchange.method),
            ClientError::UnexpectedResult { method, .. } => Stage::of_method(method),
            ClientError::UnsupportedVersion { .. } => Stage::Initialize,
            ClientError::NoSharedVersion { .. }
            | ClientError::VersionRefused { .. }
            | ClientError::ModernError { .. }
            | ClientError::NotModern { .. } => Stage::Discover,
        }
    }

    /// The failed exchange, when a reply (or its absence) is what failed.
    pub fn exchange(&self) -> Option<&Exchange> {
        match self {
            ClientError::Exchange(exchange)
            | ClientError::ModernError { exchange, .. }
            | ClientError::NotModern { exchange, .. } => Some(exchange),
            ClientError::Transport(_)
            | ClientError::UnsupportedVersion { .. }
            | ClientError::NoSharedVersion { .. }
            | ClientError::VersionRefused { .. }
            | ClientError::UnexpectedResult { .. } => None,
        }
    }

    /// How the run ended, as a class: a JSON-RPC error from the server is a protocol error,
    /// everything else (no server, no usable reply) a transport failure. Never a success.
    pub fn outcome(&self) -> Outcome {
        let detail = self.to_string();
        let protocol = |code| Outcome {
            class: Class::ProtocolError,
            code,
            detail: detail.clone(),
        };
        match self {
            ClientError::Exchange(exchange) => match classify(exchange) {
                Outcome {
                    class: Class::ProtocolError,
                    code,
                    ..
                } => protocol(code),
                Outcome { .. } => Outcome {
                    class: Class::TransportFailure,
                    code: None,
                    detail,
                },
            },
            ClientError::ModernError { error, .. } | ClientError::NotModern { error, .. } => {
                protocol(Some(error.code))
            }
            ClientError::NoSharedVersion { .. } => protocol(None),
            ClientError::VersionRefused { .. } => protocol(Some(era::UNSUPPORTED_PROTOCOL_VERSION)),
            ClientError::Transport(_)
            | ClientError::UnsupportedVersion { .. }
            | ClientError::UnexpectedResult { .. } => Outcome {
                class: Class::TransportFailure,
                code: None,
                detail,
            },
        }
    }

    fn as_event(&self) -> SessionEvent {
        SessionEvent::ConnectFailed {
            stage: self.stage(),
            reason: self.to_string(),
        }
    }
}

/// A client session with one server.
#[derive(Debug)]
pub struct Client {
    transport: Transport,
    session: Session,
    options: ClientOptions,
    connection: Option<Connection>,
    /// `_meta` sent on every request in the modern era.
    meta: Option<Map<String, Value>>,
    /// How the server ended, once its output has.
    closed: Option<ServerEnd>,
    tools_changed: bool,
    /// Progress tokens issued so far; each `tools/call` gets a fresh one.
    progress_tokens: u64,
    /// A `server/discover` result that arrived after the probe timed out.
    late_discover: Option<Json>,
    /// The HTTP session ended (legacy era): the next request first initializes again.
    session_expired: bool,
    /// The current legacy HTTP session's id.
    http_session: Option<String>,
    /// A 2026-07-28 request whose event stream broke before its response: re-issued.
    lost_stream: Option<Id>,
    /// Header values for the next request instead of the computed ones (a deliberate probe).
    next_overrides: Option<Vec<(String, String)>>,
    /// What the server asked during the current call, and the answers.
    rounds: Vec<Round>,
    /// Legacy server requests waiting for the user's answer: (the request's id, what it asks).
    questions: Vec<(Id, InputRequest)>,
    /// Questions asked so far (their numbers).
    questions_asked: u64,
    /// Where everything that happens goes, in order.
    sink: EventSink,
    /// Log entries recorded but not yet handed to the sink; handed over, in order, before the
    /// client waits for the server again or emits anything else.
    unsent: Vec<SessionEvent>,
    /// Bytes of stderr and lines of stdout read so far: a timeout says whether the server was
    /// busy writing while it was awaited, or silent.
    output_read: (u64, u64),
}

/// How the server's side ended, as the transport reported it.
#[derive(Debug, Clone)]
struct ServerEnd {
    status: String,
    stderr_tail: Vec<String>,
}

impl Client {
    /// Wraps a transport; call [`Client::negotiate`] next. Everything that happens from now on
    /// is emitted on `sink`.
    pub fn new(transport: Transport, options: ClientOptions, sink: EventSink) -> Self {
        Self {
            transport,
            session: Session::new(),
            options,
            connection: None,
            meta: None,
            closed: None,
            tools_changed: false,
            progress_tokens: 0,
            late_discover: None,
            session_expired: false,
            http_session: None,
            lost_stream: None,
            next_overrides: None,
            rounds: Vec::new(),
            questions: Vec::new(),
            questions_asked: 0,
            sink,
            unsent: Vec::new(),
            output_read: (0, 0),
        }
    }

    /// Emits an event on the session stream, after everything that happened before it.
    pub async fn emit(&mut self, event: SessionEvent) {
        self.unsent.push(event);
        self.flush().await;
    }

    /// Hands the recorded entries to the sink. Called before every wait on the server, so
    /// nothing recorded waits for the server's next line to be seen. Cancel-safe: dropped
    /// while the consumer is full, it loses nothing.
    async fn flush(&mut self) {
        self.sink.emit_from(&mut self.unsent).await;
    }

    /// While idle: the next transport event, after handing over what was recorded; `None` once
    /// the server is gone. Cancel-safe, so it can race other work; pass what it returns to
    /// [`Client::ingest_idle`], which must run to the end.
    pub async fn next_event(&mut self) -> Option<TransportEvent> {
        self.flush().await;
        if self.closed.is_some() {
            return None;
        }
        Some(self.transport.recv().await.unwrap_or_else(transport_ended))
    }

    /// Records an event that arrived while idle. `false` once the server is gone.
    pub async fn ingest_idle(&mut self, event: TransportEvent) -> bool {
        self.ingest(event, None);
        self.flush().await;
        self.closed.is_none()
    }

    /// Declares the tasks extension from the next request on, or stops declaring it.
    pub fn set_tasks(&mut self, on: bool) {
        self.options.tasks = on;
        let capabilities = self.capabilities();
        if let Some(meta) = &mut self.meta {
            meta.insert(era::META_CLIENT_CAPABILITIES.into(), capabilities);
        }
    }

    /// Whether a legacy server asked something while no call was running, and waits.
    pub fn has_questions(&self) -> bool {
        !self.questions.is_empty()
    }

    /// Answers what a legacy server asked while no call was running (see
    /// [`Client::has_questions`]); the answers come from whoever [`ClientOptions::asker`]
    /// reaches, so the caller keeps serving them meanwhile.
    pub async fn answer_idle_questions(&mut self) {
        let mut no_deadline = Instant::now();
        self.answer_questions(&mut no_deadline).await;
        self.flush().await;
    }

    /// Whether `notifications/tools/list_changed` arrived since the last check.
    pub fn take_tools_changed(&mut self) -> bool {
        std::mem::take(&mut self.tools_changed)
    }

    pub fn connection(&self) -> Option<&Connection> {
        self.connection.as_ref()
    }

    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The capabilities sightline can honour with its answers: elicitation always (declining
    /// is an answer), sampling with a `--sample` reply, roots with a `--root`.
    fn capabilities(&self) -> Value {
        let answers = &self.options.answers;
        let mut capabilities = json!({"elicitation": {"form": {}, "url": {}}});
        // Someone to ask can write a sample.
        if answers.sample.is_some() || self.options.asker.is_some() {
            capabilities["sampling"] = json!({});
        }
        if !answers.roots.is_empty() {
            capabilities["roots"] = json!({"listChanged": false});
        }
        if self.options.tasks {
            capabilities["extensions"] = json!({TASKS_EXTENSION: {}});
        }
        capabilities
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
        self.emit(SessionEvent::Connected(Box::new(connection.clone())))
            .await;
        Ok(self.connection.insert(connection))
    }

    async fn initialize(&mut self) -> Result<Connection, ClientError> {
        let params = json!({
            "protocolVersion": era::LEGACY_OFFER,
            "capabilities": self.capabilities(),
            "clientInfo": Self::client_info(),
        });
        // `initialize` must not be cancelled, so its timeout sends no cancellation.
        let exchange = self
            .exchange("initialize", Some(params), self.options.timeout, false)
            .await;
        let result = expect_result(exchange)?;
        let answered = result
            .get("protocolVersion")
            .and_then(|version| version.as_str().map(Cow::into_owned))
            .unwrap_or_default();
        let answered = answered.as_str();
        if !era::supports_legacy(answered) {
            return Err(ClientError::UnsupportedVersion {
                offered: era::LEGACY_OFFER.into(),
                answered: answered.into(),
            });
        }
        self.notify("notifications/initialized", None);
        Ok(Connection {
            era: Era::Legacy,
            protocol_version: answered.to_owned(),
            server: ServerInfo::from_initialize(&result),
            capabilities: result.get("capabilities"),
            http_session: self.http_session.clone(),
        })
    }

    /// Modern negotiation. As a probe (`auto`), `Ok(None)` means "legacy server: fall back".
    async fn discover(&mut self, probe: bool) -> Result<Option<Connection>, ClientError> {
        let mut version = era::MODERN_VERSIONS[0].to_owned();
        let mut retried = false;
        loop {
            self.meta = Some(era::request_meta(
                &version,
                &Self::client_info(),
                &self.capabilities(),
            ));
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
                (End::Failed(Failure::Rejected { .. }), None)
                    if probe && refused_without_modern_error(&exchange) =>
                {
                    // Over HTTP: 400, 404 or 405 with no JSON-RPC body is no modern server.
                    let status = exchange.http.as_ref().and_then(|http| http.status);
                    self.fall_back(&format!(
                        "server/discover was refused with HTTP {} and no JSON-RPC error",
                        status.unwrap_or_default()
                    ));
                    return Ok(None);
                }
                _ => return Err(ClientError::Exchange(Box::new(exchange))),
            };
            match era::judge_discover(&reply, &version) {
                DiscoverVerdict::Modern { version } => {
                    let result = match reply {
                        Reply::Result(result) => Some(result),
                        Reply::Error(_) => None,
                    };
                    return Ok(Some(self.modern_connection(version, result.as_ref())));
                }
                DiscoverVerdict::Retry { version: shared } if !retried => {
                    self.note(format!(
                        "the server refused {version} and lists {shared}; retrying with {shared}"
                    ));
                    version = shared;
                    retried = true;
                }
                DiscoverVerdict::Retry { version } => {
                    return Err(ClientError::VersionRefused { version });
                }
                DiscoverVerdict::NoSharedVersion { supported } => {
                    return Err(ClientError::NoSharedVersion { supported });
                }
                DiscoverVerdict::ModernError(error) => {
                    let exchange = Box::new(exchange);
                    return Err(ClientError::ModernError { error, exchange });
                }
                DiscoverVerdict::Legacy { error } if probe => {
                    self.fall_back(&format!(
                        "server/discover was answered with {} {}",
                        error.code, error.message
                    ));
                    return Ok(None);
                }
                DiscoverVerdict::Legacy { error } => {
                    let exchange = Box::new(exchange);
                    return Err(ClientError::NotModern { error, exchange });
                }
                DiscoverVerdict::NotDiscoverResult { why } if probe => {
                    self.fall_back(&format!(
                        "server/discover was answered with a result that is no DiscoverResult \
                         ({why})"
                    ));
                    return Ok(None);
                }
                DiscoverVerdict::NotDiscoverResult { why } => {
                    // `--era modern`: the user says the server is modern; go on at our version.
                    self.note(format!(
                        "server/discover was answered with a result that is no DiscoverResult \
                         ({why}); going on in the modern era, as --era modern asks"
                    ));
                    let result = match reply {
                        Reply::Result(result) => Some(result),
                        Reply::Error(_) => None,
                    };
                    return Ok(Some(self.modern_connection(version, result.as_ref())));
                }
            }
        }
    }

    fn modern_connection(&mut self, version: String, result: Option<&Json>) -> Connection {
        self.meta = Some(era::request_meta(
            &version,
            &Self::client_info(),
            &self.capabilities(),
        ));
        Connection {
            era: Era::Modern,
            protocol_version: version,
            server: result.map(ServerInfo::from_discover).unwrap_or_default(),
            capabilities: result.and_then(|result| result.get("capabilities")),
            http_session: None,
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
                Ok(self.modern_connection(version, Some(&result)))
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
    /// The list (or why there is none) is emitted too.
    pub async fn list_tools(&mut self) -> Result<Arc<Vec<Tool>>, ClientError> {
        let listed = self.fetch_tools().await;
        let event = match &listed {
            Ok(tools) => SessionEvent::ToolsListed(Arc::clone(tools)),
            Err(error) => SessionEvent::ToolsFailed(error.to_string()),
        };
        self.emit(event).await;
        listed
    }

    async fn fetch_tools(&mut self) -> Result<Arc<Vec<Tool>>, ClientError> {
        let mut refetches = 0;
        loop {
            self.tools_changed = false;
            let mut tools = self.fetch_tool_pages().await?;
            if !self.tools_changed || refetches == MAX_TOOL_REFETCHES {
                self.reject_bad_header_tools(&mut tools);
                return Ok(tools.into());
            }
            refetches += 1;
            self.note("notifications/tools/list_changed arrived: fetching tools/list again".into());
        }
    }

    /// 2026-07-28 over HTTP: a tool whose `x-mcp-header` breaks the constraints is one a
    /// conforming client MUST drop from the listing, with a warning; sightline keeps it, marked
    /// with the reason, so that it can still be inspected and called.
    fn reject_bad_header_tools(&mut self, tools: &mut [Tool]) {
        if self.meta.is_none() || !self.transport.is_http() {
            return;
        }
        let mut rejected = 0;
        for tool in tools {
            if let Some(reason) = tool.header_problem() {
                rejected += 1;
                if rejected <= MAX_REJECTION_NOTES {
                    self.note(format!(
                        "tools/list: '{}' is rejected, as 2026-07-28 asks of HTTP clients \
                         ({reason}); a conforming host drops it, sightline keeps it marked",
                        tool.name
                    ));
                }
                tool.rejected = Some(reason.into());
            }
        }
        if rejected > MAX_REJECTION_NOTES {
            self.note(format!(
                "tools/list: {rejected} tools rejected for their x-mcp-header in all"
            ));
        }
    }

    async fn fetch_tool_pages(&mut self) -> Result<Vec<Tool>, ClientError> {
        let modern = self.meta.is_some();
        let mut tools = Vec::new();
        let mut seen_cursors = std::collections::HashSet::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params = cursor.as_ref().map(|cursor| json!({"cursor": cursor}));
            let exchange = self.request("tools/list", params).await;
            // Read from the reply in place: a copy of a large listing costs as much as it.
            let Some(Reply::Result(result)) = exchange.reply() else {
                return Err(ClientError::Exchange(Box::new(exchange)));
            };
            let page = tools_page(result).ok_or_else(|| ClientError::UnexpectedResult {
                method: "tools/list".into(),
                reason: "no `tools` array".into(),
            })?;
            if tools.is_empty() {
                tools = page.tools;
            } else {
                tools.extend(page.tools);
            }
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
        Err(ClientError::UnexpectedResult {
            method: "tools/list".into(),
            reason: format!(
                "{MAX_TOOL_PAGES} pages ({} tools) and still a next cursor; stopped, the list \
                 does not end",
                tools.len()
            ),
        })
    }

    /// 2026-07-28 over HTTP: sends one `tools/list` whose `Mcp-Method` header says
    /// `prompts/list`, a mismatch the server MUST reject with 400 and -32020 (`HeaderMismatch`).
    /// A finding when it does not; `None` when it does, or when there is nothing to check.
    pub async fn check_header_validation(&mut self) -> Option<Finding> {
        if self.meta.is_none() || !self.transport.is_http() {
            self.note(
                "header check skipped: only 2026-07-28 servers over HTTP mirror the body \
                       in headers"
                    .into(),
            );
            return None;
        }
        self.note(
            "header check: tools/list sent with Mcp-Method: prompts/list, a mismatch the server \
             MUST reject (400, -32020 HeaderMismatch)"
                .into(),
        );
        self.next_overrides = Some(vec![("Mcp-Method".into(), "prompts/list".into())]);
        let exchange = self.request("tools/list", None).await;
        let status = exchange.http.as_ref().and_then(|http| http.status);
        let answered = match exchange.reply() {
            Some(Reply::Error(error)) if error.code == era::HEADER_MISMATCH => {
                self.note("header check: rejected with -32020, as the spec asks".into());
                return None;
            }
            None if status == Some(400) => {
                self.note("header check: rejected with HTTP 400 (no JSON-RPC error)".into());
                return None;
            }
            Some(Reply::Error(error)) => format!("with error {} {}", error.code, error.message),
            Some(Reply::Result(_)) => "with the tools/list result, as if nothing were wrong".into(),
            None => {
                let detail = classify(&exchange).detail;
                self.note(format!("header check: no answer to judge ({detail})"));
                return None;
            }
        };
        let http = status
            .map(|status| format!("HTTP {status} "))
            .unwrap_or_default();
        let version = self
            .connection
            .as_ref()
            .map_or("2026-07-28", |c| c.protocol_version.as_str());
        let message = format!(
            "{version}: a tools/list whose Mcp-Method header said prompts/list was answered \
             {http}{answered}; servers MUST reject a header that does not match the body with \
             400 and -32020 HeaderMismatch (streamable-http.mdx, Server Validation), or a proxy \
             routing on headers can be steered past the server's checks"
        );
        let id = exchange.id.clone();
        let frames = [Direction::Sent, Direction::Received]
            .map(|direction| FrameRef {
                direction,
                id: id.clone(),
            })
            .to_vec();
        Some(Finding {
            id: "http.headers-not-checked",
            severity: Severity::Warning,
            message,
            frames,
        })
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
        mut cancel: Option<oneshot::Receiver<()>>,
    ) -> Exchange {
        self.progress_tokens += 1;
        let meta = json!({"progressToken": self.progress_tokens});
        let params = json!({"name": name, "arguments": arguments, "_meta": meta});
        let timeout = self.options.timeout;
        self.rounds.clear();
        let mut exchange = self
            .exchange_until(
                "tools/call",
                Some(params.clone()),
                timeout,
                true,
                &mut cancel,
            )
            .await;
        let mismatch = matches!(
            exchange.reply(),
            Some(Reply::Error(error)) if error.code == era::HEADER_MISMATCH
        );
        if mismatch && self.meta.is_some() {
            // 2026-07-28: the server read other values from the headers than the body holds;
            // the client lists the tools again and retries once, under a new id.
            self.note(
                "HeaderMismatch (-32020): listing the tools again and retrying the call once"
                    .into(),
            );
            let _ = self.list_tools().await;
            exchange = self
                .exchange_until("tools/call", Some(params.clone()), timeout, true, &mut None)
                .await;
        }
        let exchange = self.answer_input_required(exchange, params).await;
        let mut exchange = self.follow_task(exchange, &mut cancel).await;
        exchange
            .rounds
            .splice(0..0, std::mem::take(&mut self.rounds));
        // After the reply's own log entry, so a consumer can link the two.
        self.emit(SessionEvent::CallFinished(Box::new(exchange.clone())))
            .await;
        exchange
    }

    /// The answer to one question: from the user when there is someone to ask (the question
    /// goes out on the session stream first), else from the answers given in advance.
    async fn answer_for(&mut self, request: &InputRequest) -> Answer {
        let fixed = input::answer(request, &self.options.answers);
        let Some(asker) = self.options.asker.clone() else {
            return fixed;
        };
        self.questions_asked += 1;
        let number = self.questions_asked;
        let (reply, answered) = oneshot::channel();
        if asker.send((number, reply)).is_err() {
            return fixed;
        }
        let question = SessionEvent::Asked {
            number,
            request: Box::new(request.clone()),
            proposed: Box::new(fixed.clone()),
        };
        self.emit(question).await;
        answered.await.unwrap_or(fixed)
    }

    /// Answers the legacy server requests that wait for the user, in order; the time spent
    /// waiting for the user is not the server's, so `deadline` moves by it.
    async fn answer_questions(&mut self, deadline: &mut Instant) {
        while !self.questions.is_empty() {
            let (id, request) = self.questions.remove(0);
            let started = Instant::now();
            let answer = self.answer_for(&request).await;
            *deadline += started.elapsed();
            self.reply_to_question(id, request, answer);
        }
    }

    /// Sends the answer to a legacy server request and keeps it as a round of the call.
    fn reply_to_question(&mut self, id: Id, request: InputRequest, answer: Answer) {
        self.note(format!(
            "the server asked: {}",
            input::describe(&request, &answer)
        ));
        let reply = match &answer {
            Answer::Result(result) => Reply::Result(result.clone().into()),
            Answer::Refused(error) => Reply::Error(error.clone()),
        };
        self.rounds.push(Round {
            asked_by: None,
            request,
            answer,
        });
        self.write(Frame::encode(Message::Response {
            id: Some(id),
            reply,
        }));
    }

    /// 2026-07-28: while the call answers `input_required`, answers its input requests and
    /// retries it with `inputResponses` and the `requestState` echoed, under a new id, up to
    /// [`input::MAX_ROUNDS`] times. The exchange returned is the last; its `rounds` say what
    /// was asked and answered on the way.
    async fn answer_input_required(
        &mut self,
        mut exchange: Exchange,
        mut params: Value,
    ) -> Exchange {
        let mut rounds = Vec::new();
        let mut retries = 0;
        while self.meta.is_some() {
            let required = match exchange.reply() {
                Some(Reply::Result(result))
                    if input::result_type(result) == ResultType::InputRequired =>
                {
                    input::input_required(result)
                }
                _ => break,
            };
            if retries == input::MAX_ROUNDS {
                self.note(format!(
                    "#{} still answered input_required after {} rounds: sightline stopped \
                     retrying",
                    exchange.id,
                    input::MAX_ROUNDS
                ));
                break;
            }
            let answered = self.answer_round(&required.requests).await;
            for (request, answer) in &answered {
                self.note(format!(
                    "#{} needs input: {}",
                    exchange.id,
                    input::describe(request, answer)
                ));
            }
            params = input::retry_params(&params, &required, &answered);
            self.note(format!(
                "retrying #{} with inputResponses and its requestState under a new id \
                 (2026-07-28 multi round-trip)",
                exchange.id
            ));
            let asked_by = exchange.id.clone();
            rounds.extend(answered.into_iter().map(|(request, answer)| Round {
                asked_by: Some(asked_by.clone()),
                request,
                answer,
            }));
            if required.requests.is_empty() {
                // State only (load shedding): still one round of the call.
                rounds.push(Round {
                    asked_by: Some(asked_by),
                    request: InputRequest {
                        key: None,
                        method: "(requestState only)".into(),
                        params: Value::Null,
                    },
                    answer: Answer::Result(Value::Null),
                });
            }
            retries += 1;
            let timeout = self.options.timeout;
            exchange = self
                .exchange_until("tools/call", Some(params.clone()), timeout, true, &mut None)
                .await;
        }
        exchange.rounds = rounds;
        exchange
    }

    /// The tasks extension: a call answered with a task handle is followed with `tasks/get` at
    /// the interval the server asks, input it needs given with `tasks/update`, until the task
    /// ends; a cancellation then is `tasks/cancel` (cooperative: polling goes on to the end).
    async fn follow_task(
        &mut self,
        mut exchange: Exchange,
        cancel: &mut Option<oneshot::Receiver<()>>,
    ) -> Exchange {
        let handle = match exchange.reply() {
            Some(Reply::Result(result)) if input::result_type(result) == ResultType::Task => {
                result.clone()
            }
            _ => return exchange,
        };
        if !self.options.tasks || self.meta.is_none() {
            return exchange;
        }
        let Some(id) = member_text(&handle, "taskId") else {
            self.note("a task handle without a taskId: nothing to poll".into());
            return exchange;
        };
        let mut run = TaskRun {
            id: id.clone(),
            status: member_text(&handle, "status").unwrap_or_else(|| "working".into()),
            polls: 0,
            reply: None,
        };
        let mut interval = poll_interval(&handle, DEFAULT_POLL);
        self.note(format!(
            "task {id} created ({}): polling tasks/get every {} ms",
            run.status,
            interval.as_millis()
        ));
        let mut said = String::new();
        while run.polls < MAX_TASK_POLLS {
            let cancelled = tokio::select! {
                () = tokio::time::sleep(interval) => false,
                true = fired(cancel) => true,
            };
            if cancelled {
                *cancel = None;
                let ack = self
                    .request("tasks/cancel", Some(json!({"taskId": id})))
                    .await;
                self.note(format!(
                    "cancelled by the user: tasks/cancel sent ({}); the server may still finish \
                     the task (cancellation is cooperative)",
                    classify(&ack).class.label()
                ));
            }
            let polled = self.request("tasks/get", Some(json!({"taskId": id}))).await;
            run.polls += 1;
            let Some(Reply::Result(task)) = polled.reply() else {
                self.note(format!(
                    "tasks/get failed: {}; polling stopped",
                    classify(&polled).detail
                ));
                break;
            };
            let task = task.clone();
            run.status = member_text(&task, "status").unwrap_or_default();
            interval = poll_interval(&task, interval);
            let message = member_text(&task, "statusMessage").unwrap_or_default();
            let now = format!("{} {message}", run.status);
            if now != said {
                self.note(format!("task {id}: {}", now.trim()));
                said = now;
            }
            match run.status.as_str() {
                "completed" => {
                    run.reply = task.get("result").map(Reply::Result);
                    break;
                }
                "failed" => {
                    run.reply = task
                        .get("error")
                        .and_then(|error| serde_json::from_str::<ErrorObject>(error.text()).ok())
                        .map(Reply::Error);
                    break;
                }
                "cancelled" => break,
                "input_required" => self.answer_task_input(&id, &task).await,
                _ => {}
            }
        }
        exchange.task = Some(Box::new(run));
        exchange
    }

    /// One round of input requests answered: the first [`input::MAX_QUESTIONS`] by asking, the
    /// rest refused (left out of `inputResponses`: the server may ask again).
    async fn answer_round(&mut self, requests: &[InputRequest]) -> Vec<(InputRequest, Answer)> {
        let mut answered = Vec::new();
        for (n, request) in requests.iter().enumerate() {
            let answer = if n < input::MAX_QUESTIONS {
                self.answer_for(request).await
            } else {
                Answer::Refused(ErrorObject {
                    code: -32603,
                    message: format!(
                        "more than {} input requests in one round: not asked",
                        input::MAX_QUESTIONS
                    ),
                    data: None,
                })
            };
            answered.push((request.clone(), answer));
        }
        answered
    }

    /// A task that needs input: its `inputRequests` answered with `tasks/update`.
    async fn answer_task_input(&mut self, id: &str, task: &Json) {
        let required = input::input_required(task);
        let mut responses = Map::new();
        for (request, answer) in self.answer_round(&required.requests).await {
            self.note(format!(
                "task {id} needs input: {}",
                input::describe(&request, &answer)
            ));
            if let (Some(key), Answer::Result(result)) = (&request.key, &answer) {
                responses.insert(key.clone(), result.clone());
            }
            self.rounds.push(Round {
                asked_by: None,
                request,
                answer,
            });
        }
        let params = json!({"taskId": id, "inputResponses": responses});
        let _ = self.request("tasks/update", Some(params)).await;
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
        self.exchange_until(method, params, timeout, cancel_on_timeout, &mut None)
            .await
    }

    /// One request to its end; in the 2026-07-28 era a request whose stream was lost before
    /// its response is re-issued under a new id, as that era asks, a bounded number of times.
    async fn exchange_until(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        cancel_on_timeout: bool,
        cancel: &mut Option<oneshot::Receiver<()>>,
    ) -> Exchange {
        let mut reissued = 0;
        loop {
            let exchange = self
                .exchange_once(method, params.clone(), timeout, cancel_on_timeout, cancel)
                .await;
            let lost = self.lost_stream.take().as_ref() == Some(&exchange.id);
            if !lost || self.meta.is_none() || reissued == MAX_REISSUES {
                return exchange;
            }
            reissued += 1;
            self.note(format!(
                "the stream of #{} ({method}) was lost before its response: re-issuing the \
                 request under a new id, as 2026-07-28 asks ({reissued} of {MAX_REISSUES})",
                exchange.id
            ));
        }
    }

    async fn exchange_once(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        cancel_on_timeout: bool,
        cancel: &mut Option<oneshot::Receiver<()>>,
    ) -> Exchange {
        let params = match &self.meta {
            Some(meta) => Some(era::with_meta(params, meta)),
            None => params,
        };
        // Lines read before the request goes out cannot answer it: recorded first, they can
        // never be matched to it (a reply "predicted" for the next id stays unmatched).
        while let Some(event) = self.transport.try_recv() {
            self.ingest(event, None);
        }
        if std::mem::take(&mut self.session_expired) && method != "initialize" {
            // Legacy Streamable HTTP: a 404 ended the session; the client MUST start a new one
            // with a new `initialize` before anything else.
            self.note("starting a new HTTP session: initialize again".into());
            match Box::pin(self.initialize()).await {
                Ok(connection) => self.connection = Some(connection),
                Err(error) => self.note(format!("the new session was refused: {error}")),
            }
        }
        let (id, frame) = self.session.start_request(method, params, now());
        if let Some(overrides) = self.next_overrides.take() {
            self.transport.override_headers(&id, overrides);
        }
        if let Some(ended) = self
            .closed
            .clone()
            .and_then(|end| self.server_exited(Some(&id), end))
        {
            return ended;
        }
        self.record(LogEvent::Sent(frame.clone()));
        self.session.mark_sent(&id, crate::transport::wire_mark());
        if let Err(not_sent) = self.transport.send(frame.raw.clone()) {
            let reason = not_sent.to_string();
            if let Some(ended) =
                self.session
                    .abandon(&id, End::Failed(Failure::SendFailed { reason }), now())
            {
                return ended;
            }
        }
        let mut deadline = Instant::now() + timeout;
        let read_before = self.output_read;
        loop {
            let cancelled = async {
                match cancel.as_mut() {
                    Some(cancel) => cancel.await.is_ok(),
                    None => std::future::pending().await,
                }
            };
            self.flush().await;
            let event = tokio::select! {
                event = self.transport.recv() => event,
                () = sleep_until(deadline) => {
                    return self.time_out(&id, timeout, cancel_on_timeout, read_before);
                }
                true = cancelled => {
                    // Fired: a receiver is not awaited again.
                    *cancel = None;
                    return self.cancel_by_user(&id);
                }
            };
            let event = event.unwrap_or_else(transport_ended);
            if let TransportEvent::Authorization {
                fact: crate::mcp::oauth::AuthFact::Step(_),
                ..
            } = &event
            {
                // The transport is authorizing this request: the user's time in the browser
                // is not the server's.
                deadline = Instant::now() + timeout.max(AUTHORIZATION_WAIT);
            }
            if let Some(ended) = self.ingest(event, Some(&id)) {
                return ended;
            }
            self.answer_questions(&mut deadline).await;
        }
    }

    fn cancel_by_user(&mut self, id: &Id) -> Exchange {
        let end = End::Failed(Failure::CancelledByUser);
        let Some(ended) = self.session.abandon(id, end, now()) else {
            return Self::missing_exchange(id);
        };
        self.cancel_request(id, "cancelled by the user");
        ended
    }

    /// Tells the server to stop working on `id`: over Streamable HTTP in the 2026-07-28 era by
    /// closing its stream (which the server MUST take as cancellation), else by
    /// `notifications/cancelled`.
    fn cancel_request(&mut self, id: &Id, reason: &str) {
        if self.meta.is_some() && self.transport.close_stream(id) {
            self.note(format!(
                "closed the stream of #{id} ({reason}): the 2026-07-28 cancellation over HTTP"
            ));
        } else {
            let params = json!({"requestId": Value::from(id.clone()), "reason": reason});
            self.notify("notifications/cancelled", Some(params));
        }
    }

    fn time_out(
        &mut self,
        id: &Id,
        timeout: Duration,
        cancel: bool,
        read_before: (u64, u64),
    ) -> Exchange {
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
        let (stderr, lines) = (
            self.output_read.0 - read_before.0,
            self.output_read.1 - read_before.1,
        );
        if stderr > 0 || lines > 0 {
            // Not silent: a server blocked writing its logging looks like one that never answers.
            self.note(format!(
                "while #{id} waited, the server wrote {stderr} bytes to stderr and {lines} other \
                 lines to stdout: it was busy writing, not silent"
            ));
        }
        if cancel {
            self.cancel_request(id, &format!("sightline timed out after {after_ms} ms"));
        }
        ended
    }

    /// Records one transport event; returns the exchange for `waiting` if this event ended it.
    /// Every line of a read is recorded, also those after the one that ended it.
    fn ingest(&mut self, event: TransportEvent, waiting: Option<&Id>) -> Option<Exchange> {
        match event {
            TransportEvent::Received {
                lines,
                at,
                mark,
                body_of,
            } => {
                let mut ended = None;
                self.output_read.1 += lines.len() as u64;
                for line in lines {
                    let this = match line {
                        Ok(frame) => self.on_frame(frame, at, mark, body_of.as_ref(), waiting),
                        Err(invalid) => {
                            let this = self.on_invalid(&invalid, at, waiting);
                            self.record_at(at, LogEvent::Invalid(invalid));
                            this
                        }
                    };
                    ended = ended.or(this);
                }
                ended
            }
            TransportEvent::StderrLines { text, at } => {
                self.output_read.0 += text.len() as u64;
                self.record_at(at, LogEvent::Stderr(text));
                None
            }
            TransportEvent::WriteFailed { reason, at } => {
                self.record_at(at, LogEvent::WriteFailed(reason.clone()));
                let end = End::Failed(Failure::SendFailed { reason });
                self.session.abandon(waiting?, end, at)
            }
            TransportEvent::RequestFailed { id, reason, at } => {
                self.record_at(at, LogEvent::Note(format!("#{id}: {reason}")));
                let ended =
                    self.session
                        .abandon(&id, End::Failed(Failure::Rejected { reason }), at);
                ended.filter(|exchange| Some(&exchange.id) == waiting)
            }
            TransportEvent::StreamLost { id, reason, at } => {
                self.record_at(at, LogEvent::Note(format!("#{id}: {reason}")));
                let failure = Failure::Rejected {
                    reason: format!("{reason}; the request was lost with its stream"),
                };
                let ended = self.session.abandon(&id, End::Failed(failure), at)?;
                self.lost_stream = Some(id);
                (Some(&ended.id) == waiting).then_some(ended)
            }
            TransportEvent::Note { text, at } => {
                self.record_at(at, LogEvent::Note(text));
                None
            }
            TransportEvent::Authorization { fact, at } => {
                self.record_at(at, LogEvent::Authorization(fact));
                None
            }
            TransportEvent::Http { exchange, at } => {
                if let Some(id) = &exchange.request_id {
                    self.session.attach_http(id, Arc::clone(&exchange));
                }
                self.record_at(at, LogEvent::Http(exchange));
                None
            }
            TransportEvent::SessionStarted { id, at } => {
                self.record_at(at, LogEvent::Note(format!("HTTP session {id}")));
                self.http_session = Some(id);
                None
            }
            TransportEvent::SessionExpired { at } => {
                let text = "the server ended the HTTP session (404 to a request with its \
                            Mcp-Session-Id): the next request starts a new one";
                self.record_at(at, LogEvent::Note(text.into()));
                self.session_expired = true;
                self.http_session = None;
                None
            }
            TransportEvent::Closed {
                status,
                stderr_tail,
                at,
            } => {
                self.record_at(
                    at,
                    LogEvent::Closed {
                        status: status.clone(),
                    },
                );
                let end = ServerEnd {
                    status,
                    stderr_tail,
                };
                self.closed = Some(end.clone());
                self.server_exited(waiting, end)
            }
        }
    }

    fn server_exited(&mut self, waiting: Option<&Id>, end: ServerEnd) -> Option<Exchange> {
        let end = End::Failed(Failure::ServerExited {
            status: end.status,
            stderr_tail: end.stderr_tail,
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
            FrameError::Oversized { .. } => self.session.only_pending().cloned(),
            // Unreadable, but naming a request: that request has its (broken) answer.
            FrameError::NotJsonRpc { id: None, .. }
            | FrameError::NotJson { .. }
            | FrameError::InvalidUtf8 { .. } => jsonrpc::scan_id(&invalid.raw),
        }?;
        let failure = Failure::MalformedReply {
            raw: invalid.raw.clone(),
            reason: invalid.error.to_string(),
        };
        let ended = self.session.abandon(&target, End::Failed(failure), at)?;
        (Some(&ended.id) == waiting).then_some(ended)
    }

    fn on_frame(
        &mut self,
        frame: Frame,
        at: Timestamp,
        mark: u64,
        body_of: Option<&Id>,
        waiting: Option<&Id>,
    ) -> Option<Exchange> {
        let correlation = match &frame.message {
            // Read before its request went out: an answer to no request of ours (a server that
            // predicts the next id), never taken for the request's own.
            Message::Response { id: Some(id), .. } if self.session.sent_after(id, mark) => {
                Correlation::UnknownId { id: id.clone() }
            }
            _ => self.session.on_frame(frame.clone(), at),
        };
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
            // An error about no request (JSON-RPC's null id): logged and classified, it ends
            // no call; each waits for its own id, or its deadline. Only as the body of a
            // request's own POST (HTTP) is it that request's answer.
            Correlation::Unaddressed => (
                Role::Unaddressed,
                body_of.and_then(|id| self.session.answer_with(id, frame.clone(), at)),
            ),
            Correlation::ServerRequest { .. } => (Role::ServerRequest, None),
            Correlation::Notification => {
                if frame.message.method() == Some("notifications/tools/list_changed") {
                    self.tools_changed = true;
                }
                (Role::Notification, None)
            }
        };
        let server_request = match (&role, &frame.message) {
            (Role::ServerRequest, Message::Request { id, method, params }) => Some((
                id.clone(),
                method.clone(),
                params.clone().unwrap_or(Value::Null),
            )),
            _ => None,
        };
        let unaddressed = role == Role::Unaddressed;
        self.record_at(at, LogEvent::Received { frame, role });
        if let Some(exchange) = ended.as_ref().filter(|_| unaddressed) {
            self.note(format!(
                "an error without an id, as the body of the POST of #{} ({}): its answer",
                exchange.id, exchange.method
            ));
        } else if unaddressed && self.session.pending_ids().next().is_some() {
            self.note(
                "an error about no request (its id is null): it answers none of the calls \
                 waiting, which wait for their own answers"
                    .into(),
            );
        }
        if let Some((id, method, params)) = server_request {
            self.answer_server_request(id, &method, params);
        }
        ended.filter(|exchange| Some(&exchange.id) == waiting)
    }

    /// Legacy servers may ask us things: `ping`; elicitation, sampling and roots as the
    /// answers given say (each kept as a round of the call); the rest -32601.
    fn answer_server_request(&mut self, id: Id, method: &str, params: Value) {
        if self.meta.is_some() {
            self.note(format!(
                "not answered: in 2026-07-28 servers must not send requests ('{method}') and \
                 clients must not send responses on stdio"
            ));
            return;
        }
        let reply = if method == "ping" {
            Reply::Result(json!({}).into())
        } else if input::INPUT_METHODS.contains(&method) {
            let request = InputRequest {
                key: None,
                method: method.to_owned(),
                params,
            };
            if self.options.asker.is_some() && self.questions.len() < input::MAX_QUESTIONS {
                // Answered once the user has, outside this read (see `answer_questions`).
                self.questions.push((id, request));
            } else if self.options.asker.is_some() {
                // A server asking faster than anyone can answer: refused, not queued.
                let refused = Answer::Refused(ErrorObject {
                    code: -32603,
                    message: format!(
                        "{} questions already wait for the user: not asked",
                        input::MAX_QUESTIONS
                    ),
                    data: None,
                });
                self.reply_to_question(id, request, refused);
            } else {
                let answer = input::answer(&request, &self.options.answers);
                self.reply_to_question(id, request, answer);
            }
            return;
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
        }));
    }

    fn notify(&mut self, method: &str, params: Option<Value>) {
        let message = Message::Notification {
            method: method.to_owned(),
            params: params.map(Into::into),
        };
        self.write(Frame::encode(message));
    }

    /// Sends a notification or an answer without waiting; one the server does not take is
    /// recorded as not written.
    fn write(&mut self, frame: Frame) {
        let line = Arc::clone(&frame.raw);
        self.record(LogEvent::Sent(frame));
        if let Err(not_sent) = self.transport.send(line) {
            self.record(LogEvent::WriteFailed(format!("not written: {not_sent}")));
        }
    }

    fn note(&mut self, text: String) {
        self.record(LogEvent::Note(text));
    }

    fn record(&mut self, event: LogEvent) {
        self.record_at(now(), event);
    }

    fn record_at(&mut self, at: Timestamp, event: LogEvent) {
        self.unsent
            .push(SessionEvent::Logged(LogEntry { at, event }));
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
            http: None,
            rounds: Vec::new(),
            task: None,
        }
    }

    /// Stops the server the way its transport does, and records everything until the
    /// transport has nothing more to say (or the shutdown budget is spent).
    pub async fn shutdown(&mut self) {
        self.transport.shutdown();
        let deadline = Instant::now() + SHUTDOWN_BUDGET;
        loop {
            self.flush().await;
            let event = tokio::select! {
                event = self.transport.recv() => event,
                () = sleep_until(deadline) => break,
            };
            match event {
                Some(event) => {
                    self.ingest(event, None);
                    // Nothing follows `Closed`: a helper that keeps a pipe open must not make
                    // the client wait for the channel to close.
                    if self.closed.is_some() {
                        break;
                    }
                }
                None if self.closed.is_none() => {
                    self.ingest(transport_ended(), None);
                    break;
                }
                None => break,
            }
        }
        self.flush().await;
    }
}

fn transport_ended() -> TransportEvent {
    TransportEvent::Closed {
        status: "the transport ended".into(),
        stderr_tail: Vec::new(),
        at: now(),
    }
}

/// An HTTP 400, 404 or 405 without a JSON-RPC answer: the spec's sign to try the older
/// handshake (a modern server says why in a JSON-RPC error).
fn refused_without_modern_error(exchange: &Exchange) -> bool {
    exchange
        .http
        .as_ref()
        .and_then(|http| http.status)
        .is_some_and(|status| matches!(status, 400 | 404 | 405))
}

/// A string member of a result, owned.
fn member_text(json: &Json, name: &str) -> Option<String> {
    json.get(name)
        .and_then(|value| value.as_str().map(Cow::into_owned))
}

/// The task's `pollIntervalMs`, kept between 50 ms and 10 s; `otherwise` when it names none.
fn poll_interval(task: &Json, otherwise: Duration) -> Duration {
    task.get("pollIntervalMs")
        .and_then(|ms| ms.as_i64())
        .and_then(|ms| u64::try_from(ms).ok())
        .map_or(otherwise, |ms| Duration::from_millis(ms.clamp(50, 10_000)))
}

/// Resolves when the user cancels (`true`); never when there is nothing to wait for.
async fn fired(cancel: &mut Option<oneshot::Receiver<()>>) -> bool {
    match cancel.as_mut() {
        Some(cancel) => cancel.await.is_ok(),
        None => std::future::pending().await,
    }
}

fn expect_result(exchange: Exchange) -> Result<Json, ClientError> {
    match exchange.reply() {
        Some(Reply::Result(result)) => Ok(result.clone()),
        _ => Err(ClientError::Exchange(Box::new(exchange))),
    }
}
