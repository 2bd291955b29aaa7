//! Transcripts: a session on disk as JSON lines, one per event of the session stream, written
//! as it happens and read back into the same events (format version 1, in the README).

pub mod recorder;
pub mod serve;

use std::borrow::Cow;
use std::io::BufRead;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::classify::findings::Finding;
use crate::classify::{Class, Outcome};
use crate::mcp::Timestamp;
use crate::mcp::era::Era;
use crate::mcp::framing::InvalidLine;
use crate::mcp::input::{Answer, InputRequest, Round};
use crate::mcp::jsonrpc::{self, ErrorObject, FrameError, Id, Reply};
use crate::mcp::log::{Connection, HttpExchange, LogEntry, LogEvent, Role, SessionEvent, Stage};
use crate::mcp::messages::{ServerInfo, Tool};
use crate::mcp::session::{End, Exchange, Failure, TaskRun};

/// The format this sightline writes, and the newest it reads.
pub const VERSION: u32 = 1;

/// The first line of a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The format version: always the first member, so any reader can tell.
    pub sightline_transcript: u32,
    /// The sightline that wrote it.
    pub sightline: String,
    /// When recording started, RFC 3339 UTC, and the same in Unix milliseconds.
    pub started: String,
    pub started_ms: u64,
    /// `tui`, `call` or `tools`.
    pub command: String,
    /// The server as the status line names it (secrets masked).
    pub transport: String,
    /// Whether secrets were masked (`false` with `--no-redact`).
    pub redacted: bool,
}

/// One line after the header: one event of the session stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record<'a> {
    Connecting {
        #[serde(borrow)]
        transport: Cow<'a, str>,
    },
    /// A frame written to the server, exactly as sent.
    Sent {
        at: u64,
        #[serde(borrow)]
        raw: Cow<'a, str>,
    },
    /// A frame read from the server, exactly as received, and what it meant.
    Received {
        at: u64,
        #[serde(borrow)]
        raw: Cow<'a, str>,
        role: RoleRecord,
    },
    /// A line from the server that is not a JSON-RPC message.
    Invalid {
        at: u64,
        #[serde(borrow)]
        raw: Cow<'a, str>,
        error: FrameError,
    },
    Stderr {
        at: u64,
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    /// sightline's own timeout for a request.
    TimedOut {
        at: u64,
        id: Id,
        method: String,
        after_ms: u64,
    },
    WriteFailed {
        at: u64,
        reason: String,
    },
    /// The server's output ended (the process exit, when it exited).
    Closed {
        at: u64,
        status: String,
    },
    Note {
        at: u64,
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    Http {
        at: u64,
        exchange: HttpExchange,
    },
    Connected {
        era: Era,
        protocol_version: String,
        server: ServerRecord,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        capabilities: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http_session: Option<String>,
    },
    ConnectFailed {
        stage: Stage,
        reason: String,
    },
    Tools {
        tools: Vec<ToolRecord<'a>>,
    },
    ToolsFailed {
        reason: String,
    },
    /// A finished call: the frames again (so a call reads on its own), how it ended, and the
    /// class and findings sightline gave it when it was recorded.
    Call(Box<CallRecord<'a>>),
    Disconnected,
}

/// What a received frame meant: `reply`, `late`, `duplicate` (with the request's method),
/// `unknown_id`, `unaddressed`, `server_request` or `notification`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleRecord {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRecord {
    pub name: String,
    pub version: String,
}

/// A listed tool: written as the text it was listed in (borrowed, never parsed into a tree:
/// a listing of 200,000 tools would cost ten times its bytes), read back as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRecord<'a> {
    pub tool: ToolText<'a>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<Cow<'a, str>>,
}

/// A tool object: the listed text when written, a value when read back (serde cannot read a
/// raw value inside a tagged enum). Written as its value (one tool's tree at a time), so a
/// listing reads back and is written again byte for byte.
#[derive(Debug, Clone)]
pub enum ToolText<'a> {
    Listed(&'a serde_json::value::RawValue),
    Read(Value),
}

impl ToolText<'_> {
    pub fn value(&self) -> Value {
        match self {
            ToolText::Listed(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
            ToolText::Read(value) => value.clone(),
        }
    }
}

impl PartialEq for ToolText<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl Serialize for ToolText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolText::Listed(raw) => match serde_json::from_str::<Value>(raw.get()) {
                Ok(value) => value.serialize(serializer),
                Err(_) => raw.serialize(serializer),
            },
            ToolText::Read(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ToolText<'_> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ToolText::Read)
    }
}

impl<'a> ToolRecord<'a> {
    /// A listed tool's record, borrowing its text (checked JSON, so this only borrows it).
    pub fn of(tool: &'a Tool) -> Option<Self> {
        Some(ToolRecord {
            tool: ToolText::Listed(serde_json::from_str(tool.raw.text()).ok()?),
            rejected: tool.rejected.as_deref().map(Cow::Borrowed),
        })
    }
}

/// A `tools` line written straight from the listing, tool by tool: the same line as
/// [`Record::Tools`], without a record per tool held at once.
#[derive(Serialize)]
pub struct ToolsLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    tools: Listed<'a>,
}

impl<'a> ToolsLine<'a> {
    pub fn new(tools: &'a [Tool]) -> Self {
        Self {
            kind: "tools",
            tools: Listed(tools),
        }
    }
}

struct Listed<'a>(&'a [Tool]);

impl Serialize for Listed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(None)?;
        for record in self.0.iter().filter_map(ToolRecord::of) {
            seq.serialize_element(&record)?;
        }
        seq.end()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord<'a> {
    pub id: Id,
    pub method: String,
    pub sent_at: u64,
    pub ended_at: u64,
    #[serde(borrow)]
    pub request: Cow<'a, str>,
    #[serde(borrow)]
    pub end: EndRecord<'a>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpExchange>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<RoundRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRecord>,
    /// What sightline made of it then; a replay computes it again with today's rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Judged>,
}

/// A call's class and findings as judged when it was recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    pub class: String,
    pub detail: String,
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EndRecord<'a> {
    Replied {
        #[serde(borrow)]
        raw: Cow<'a, str>,
    },
    TimedOut {
        after_ms: u64,
    },
    ServerExited {
        status: String,
        stderr_tail: Vec<String>,
    },
    MalformedReply {
        raw: String,
        reason: String,
    },
    SendFailed {
        reason: String,
    },
    Rejected {
        reason: String,
    },
    CancelledByUser,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<Id>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub method: String,
    pub params: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub id: String,
    pub status: String,
    pub polls: u32,
    /// The task's `result`, as JSON text, or its `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

/// Masks what must not reach a transcript: header values a user gave, secret-named headers,
/// and the values of secret-named environment variables wherever they appear.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Off with `--no-redact`.
    pub on: bool,
    /// Header names whose values the user gave (`-H`, a config entry's `headers`).
    pub given_headers: Vec<String>,
    /// Values masked wherever they appear in text.
    pub secrets: Vec<String>,
}

/// What stands for a masked value.
pub const MASK: &str = "****";
/// Shorter values are not masked inside text: masking "ab" everywhere would wreck frames.
const SHORTEST_SECRET: usize = 6;

impl Redactor {
    /// A redactor for these user-given headers and environment variables.
    pub fn new(on: bool, headers: &[(String, String)], env: &[(String, String)]) -> Self {
        let mut secrets = Vec::new();
        for (_, value) in headers {
            secrets.push(value.clone());
            // `Bearer abc…`: the credential alone may appear elsewhere too.
            if let Some((_, credential)) = value.split_once(' ') {
                secrets.push(credential.trim().to_owned());
            }
        }
        secrets.extend(
            env.iter()
                .filter(|(name, _)| secret_env(name))
                .map(|(_, value)| value.clone()),
        );
        secrets.retain(|secret| secret.len() >= SHORTEST_SECRET);
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        secrets.dedup();
        Self {
            on,
            given_headers: headers
                .iter()
                .map(|(name, _)| name.to_ascii_lowercase())
                .collect(),
            secrets,
        }
    }

    /// `text` with every secret value masked.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.on
            || !self
                .secrets
                .iter()
                .any(|secret| text.contains(secret.as_str()))
        {
            return Cow::Borrowed(text);
        }
        let mut masked = text.to_owned();
        for secret in &self.secrets {
            masked = masked.replace(secret.as_str(), MASK);
        }
        Cow::Owned(masked)
    }

    /// A header's value as a transcript keeps it: the scheme word stays (`Bearer ****`).
    pub fn header(&self, name: &str, value: &str) -> String {
        let given = self.given_headers.contains(&name.to_ascii_lowercase());
        if !self.on || !(given || crate::mcp::log::secret_header(name)) {
            return self.text(value).into_owned();
        }
        match value.split_once(' ') {
            Some((scheme, _)) if !scheme.is_empty() => format!("{scheme} {MASK}"),
            _ => MASK.to_owned(),
        }
    }

    fn http(&self, exchange: &HttpExchange) -> HttpExchange {
        let headers = |list: &[(String, String)]| {
            list.iter()
                .map(|(name, value)| (name.clone(), self.header(name, value)))
                .collect()
        };
        HttpExchange {
            url: self.text(&exchange.url).into_owned(),
            request_headers: headers(&exchange.request_headers),
            response_headers: headers(&exchange.response_headers),
            error: exchange.error.as_deref().map(|e| self.text(e).into_owned()),
            ..exchange.clone()
        }
    }
}

/// Whether an environment variable's name says its value is a secret.
pub fn secret_env(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('_', "-");
    [
        "token",
        "secret",
        "key",
        "password",
        "passwd",
        "credential",
        "auth",
        "cookie",
    ]
    .iter()
    .any(|word| name.contains(word))
}

impl<'a> Record<'a> {
    /// The record of one event (`None` for events that are not facts of the wire: a question
    /// put to the user). Text borrows from the event unless a secret had to be masked.
    pub fn of(
        event: &'a SessionEvent,
        redactor: &Redactor,
        judged: Option<Judged>,
    ) -> Option<Self> {
        Some(match event {
            SessionEvent::Connecting { transport } => Record::Connecting {
                transport: redactor.text(transport),
            },
            SessionEvent::Logged(entry) => Record::of_log(entry, redactor),
            SessionEvent::Connected(connection) => Record::Connected {
                era: connection.era,
                protocol_version: connection.protocol_version.clone(),
                server: ServerRecord {
                    name: connection.server.name.clone(),
                    version: connection.server.version.clone(),
                },
                capabilities: connection
                    .capabilities
                    .as_ref()
                    .map(crate::mcp::json::Json::value),
                http_session: connection.http_session.clone(),
            },
            SessionEvent::ConnectFailed { stage, reason } => Record::ConnectFailed {
                stage: *stage,
                reason: redactor.text(reason).into_owned(),
            },
            SessionEvent::ToolsListed(tools) => Record::Tools {
                tools: tools.iter().filter_map(ToolRecord::of).collect(),
            },
            SessionEvent::ToolsFailed(reason) => Record::ToolsFailed {
                reason: redactor.text(reason).into_owned(),
            },
            SessionEvent::CallFinished(exchange) => {
                Record::Call(Box::new(CallRecord::of(exchange, redactor, judged)))
            }
            SessionEvent::Disconnected => Record::Disconnected,
            SessionEvent::Asked { .. } => return None,
        })
    }

    fn of_log(entry: &'a LogEntry, redactor: &Redactor) -> Self {
        let at = entry.at.0;
        match &entry.event {
            LogEvent::Sent(frame) => Record::Sent {
                at,
                raw: redactor.text(&frame.raw),
            },
            LogEvent::Received { frame, role } => Record::Received {
                at,
                raw: redactor.text(&frame.raw),
                role: RoleRecord::of(role),
            },
            LogEvent::Invalid(invalid) => Record::Invalid {
                at,
                raw: redactor.text(&invalid.raw),
                error: invalid.error.clone(),
            },
            LogEvent::Stderr(text) => Record::Stderr {
                at,
                text: redactor.text(text),
            },
            LogEvent::TimedOut {
                id,
                method,
                after_ms,
            } => Record::TimedOut {
                at,
                id: id.clone(),
                method: method.clone(),
                after_ms: *after_ms,
            },
            LogEvent::WriteFailed(reason) => Record::WriteFailed {
                at,
                reason: redactor.text(reason).into_owned(),
            },
            LogEvent::Closed { status } => Record::Closed {
                at,
                status: status.clone(),
            },
            LogEvent::Note(text) => Record::Note {
                at,
                text: redactor.text(text),
            },
            LogEvent::Http(exchange) => Record::Http {
                at,
                exchange: redactor.http(exchange),
            },
        }
    }

    /// The event this record stands for, sharing the text of a frame read moments ago (a
    /// call's line repeats its frames: read back, they are one copy in memory, as live).
    pub fn into_event(self, recent: &mut Frames) -> Result<SessionEvent, String> {
        let mut frame = |raw: &str| recent.frame(raw);
        let logged = |at: u64, event: LogEvent| {
            SessionEvent::Logged(LogEntry {
                at: Timestamp(at),
                event,
            })
        };
        Ok(match self {
            Record::Connecting { transport } => SessionEvent::Connecting {
                transport: transport.into_owned(),
            },
            Record::Sent { at, raw } => logged(at, LogEvent::Sent(frame(&raw)?)),
            Record::Received { at, raw, role } => logged(
                at,
                LogEvent::Received {
                    frame: frame(&raw)?,
                    role: role.into_role()?,
                },
            ),
            Record::Invalid { at, raw, error } => logged(
                at,
                LogEvent::Invalid(InvalidLine {
                    raw: raw.into(),
                    error,
                }),
            ),
            Record::Stderr { at, text } => logged(at, LogEvent::Stderr(text.into_owned())),
            Record::TimedOut {
                at,
                id,
                method,
                after_ms,
            } => logged(
                at,
                LogEvent::TimedOut {
                    id,
                    method,
                    after_ms,
                },
            ),
            Record::WriteFailed { at, reason } => logged(at, LogEvent::WriteFailed(reason)),
            Record::Closed { at, status } => logged(at, LogEvent::Closed { status }),
            Record::Note { at, text } => logged(at, LogEvent::Note(text.into_owned())),
            Record::Http { at, exchange } => logged(at, LogEvent::Http(Arc::new(exchange))),
            Record::Connected {
                era,
                protocol_version,
                server,
                capabilities,
                http_session,
            } => SessionEvent::Connected(Box::new(Connection {
                era,
                protocol_version,
                server: ServerInfo {
                    name: server.name,
                    version: server.version,
                },
                capabilities: capabilities
                    .as_ref()
                    .map(crate::mcp::json::Json::from_value),
                http_session,
            })),
            Record::ConnectFailed { stage, reason } => {
                SessionEvent::ConnectFailed { stage, reason }
            }
            Record::Tools { tools } => SessionEvent::ToolsListed(Arc::new(
                tools
                    .iter()
                    .map(|record| Tool {
                        rejected: record.rejected.as_deref().map(Box::from),
                        ..Tool::from_value(&record.tool.value())
                    })
                    .collect(),
            )),
            Record::ToolsFailed { reason } => SessionEvent::ToolsFailed(reason),
            Record::Call(call) => {
                SessionEvent::CallFinished(Box::new(call.into_exchange(&mut frame)?))
            }
            Record::Disconnected => SessionEvent::Disconnected,
        })
    }
}

/// The frames read last, to share with the `call` line that repeats them.
#[derive(Debug, Default)]
pub struct Frames(std::collections::VecDeque<jsonrpc::Frame>);

/// Frames remembered: a call's request and reply are among the last few read.
const RECENT_FRAMES: usize = 8;

impl Frames {
    /// A frame from its recorded text (it parsed when it was recorded, so it parses again),
    /// the one read moments ago when the text is the same.
    fn frame(&mut self, raw: &str) -> Result<jsonrpc::Frame, String> {
        if let Some(seen) = self.0.iter().find(|seen| &*seen.raw == raw) {
            return Ok(seen.clone());
        }
        let frame = jsonrpc::parse_line(Arc::from(raw))
            .map_err(|(_, error)| format!("a recorded frame does not parse: {error}"))?;
        if self.0.len() == RECENT_FRAMES {
            self.0.pop_front();
        }
        self.0.push_back(frame.clone());
        Ok(frame)
    }
}

impl RoleRecord {
    fn of(role: &Role) -> Self {
        let (kind, method) = match role {
            Role::Reply { method } => ("reply", Some(method)),
            Role::Late { method } => ("late", Some(method)),
            Role::Duplicate { method } => ("duplicate", Some(method)),
            Role::UnknownId => ("unknown_id", None),
            Role::Unaddressed => ("unaddressed", None),
            Role::ServerRequest => ("server_request", None),
            Role::Notification => ("notification", None),
        };
        Self {
            kind: kind.to_owned(),
            method: method.cloned(),
        }
    }

    fn into_role(self) -> Result<Role, String> {
        let method = || self.method.clone().unwrap_or_default();
        Ok(match self.kind.as_str() {
            "reply" => Role::Reply { method: method() },
            "late" => Role::Late { method: method() },
            "duplicate" => Role::Duplicate { method: method() },
            "unknown_id" => Role::UnknownId,
            "unaddressed" => Role::Unaddressed,
            "server_request" => Role::ServerRequest,
            "notification" => Role::Notification,
            other => return Err(format!("unknown role '{other}'")),
        })
    }
}

impl<'a> CallRecord<'a> {
    fn of(exchange: &'a Exchange, redactor: &Redactor, recorded: Option<Judged>) -> Self {
        let end = match &exchange.end {
            End::Replied(frame) => EndRecord::Replied {
                raw: redactor.text(&frame.raw),
            },
            End::TimedOut { after_ms } => EndRecord::TimedOut {
                after_ms: *after_ms,
            },
            End::Failed(failure) => match failure {
                Failure::ServerExited {
                    status,
                    stderr_tail,
                } => EndRecord::ServerExited {
                    status: status.clone(),
                    stderr_tail: stderr_tail
                        .iter()
                        .map(|line| redactor.text(line).into_owned())
                        .collect(),
                },
                Failure::MalformedReply { raw, reason } => EndRecord::MalformedReply {
                    raw: redactor.text(raw).into_owned(),
                    reason: reason.clone(),
                },
                Failure::SendFailed { reason } => EndRecord::SendFailed {
                    reason: redactor.text(reason).into_owned(),
                },
                Failure::Rejected { reason } => EndRecord::Rejected {
                    reason: redactor.text(reason).into_owned(),
                },
                Failure::CancelledByUser => EndRecord::CancelledByUser,
            },
        };
        Self {
            id: exchange.id.clone(),
            method: exchange.method.clone(),
            sent_at: exchange.sent_at.0,
            ended_at: exchange.ended_at.0,
            request: redactor.text(&exchange.request.raw),
            end,
            http: exchange.http.as_deref().map(|http| redactor.http(http)),
            rounds: exchange.rounds.iter().map(RoundRecord::of).collect(),
            task: exchange.task.as_deref().map(TaskRecord::of),
            recorded,
        }
    }

    fn into_exchange(
        self,
        frame: &mut impl FnMut(&str) -> Result<jsonrpc::Frame, String>,
    ) -> Result<Exchange, String> {
        let end = match self.end {
            EndRecord::Replied { raw } => End::Replied(frame(&raw)?),
            EndRecord::TimedOut { after_ms } => End::TimedOut { after_ms },
            EndRecord::ServerExited {
                status,
                stderr_tail,
            } => End::Failed(Failure::ServerExited {
                status,
                stderr_tail,
            }),
            EndRecord::MalformedReply { raw, reason } => End::Failed(Failure::MalformedReply {
                raw: raw.into(),
                reason,
            }),
            EndRecord::SendFailed { reason } => End::Failed(Failure::SendFailed { reason }),
            EndRecord::Rejected { reason } => End::Failed(Failure::Rejected { reason }),
            EndRecord::CancelledByUser => End::Failed(Failure::CancelledByUser),
        };
        Ok(Exchange {
            id: self.id,
            method: self.method,
            request: frame(&self.request)?,
            sent_at: Timestamp(self.sent_at),
            end,
            ended_at: Timestamp(self.ended_at),
            http: self.http.map(Arc::new),
            rounds: self
                .rounds
                .into_iter()
                .map(RoundRecord::into_round)
                .collect(),
            task: self.task.map(|task| Box::new(task.into_task())),
        })
    }
}

impl RoundRecord {
    fn of(round: &Round) -> Self {
        let (result, error) = match &round.answer {
            Answer::Result(value) => (Some(value.clone()), None),
            Answer::Refused(error) => (None, Some(error.clone())),
        };
        Self {
            asked_by: round.asked_by.clone(),
            key: round.request.key.clone(),
            method: round.request.method.clone(),
            params: round.request.params.clone(),
            result,
            error,
        }
    }

    fn into_round(self) -> Round {
        let answer = match (self.result, self.error) {
            (_, Some(error)) => Answer::Refused(error),
            (result, None) => Answer::Result(result.unwrap_or(Value::Null)),
        };
        Round {
            asked_by: self.asked_by,
            request: InputRequest {
                key: self.key,
                method: self.method,
                params: self.params,
            },
            answer,
        }
    }
}

impl TaskRecord {
    fn of(task: &TaskRun) -> Self {
        let (result, error) = match &task.reply {
            Some(Reply::Result(json)) => (Some(json.text().to_owned()), None),
            Some(Reply::Error(error)) => (None, Some(error.clone())),
            None => (None, None),
        };
        Self {
            id: task.id.clone(),
            status: task.status.clone(),
            polls: task.polls,
            result,
            error,
        }
    }

    fn into_task(self) -> TaskRun {
        let reply = match (self.result, self.error) {
            (_, Some(error)) => Some(Reply::Error(error)),
            (Some(result), None) => {
                let value = serde_json::from_str(&result).unwrap_or(Value::Null);
                Some(Reply::Result(crate::mcp::json::Json::from_value(&value)))
            }
            (None, None) => None,
        };
        TaskRun {
            id: self.id,
            status: self.status,
            polls: self.polls,
            reply,
        }
    }
}

impl Judged {
    pub fn of(outcome: &Outcome, findings: &[Finding]) -> Self {
        Self {
            class: class_name(outcome.class),
            detail: outcome.detail.clone(),
            findings: findings
                .iter()
                .map(|finding| finding.id.to_owned())
                .collect(),
        }
    }
}

/// The class as `call --json` names it (its serde name, so the two cannot drift apart).
pub fn class_name(class: Class) -> String {
    match serde_json::to_value(class) {
        Ok(Value::String(name)) => name,
        _ => String::new(),
    }
}

/// Unix milliseconds as RFC 3339 UTC (`2026-11-30T10:00:00.000Z`).
pub fn rfc3339(ms: u64) -> String {
    let seconds = ms / 1000;
    let date =
        crate::demo_server::date::Date::from_unix_seconds(i64::try_from(seconds).unwrap_or(0));
    let of_day = seconds % 86_400;
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        date.year,
        date.month,
        date.day,
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        ms % 1000
    )
}

/// Why a transcript cannot be read (further), naming the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptError {
    pub file: String,
    /// 0 when the file itself cannot be opened.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "transcript '{}': {}", self.file, self.message),
            line => write!(
                f,
                "transcript '{}', line {line}: {}",
                self.file, self.message
            ),
        }
    }
}

impl std::error::Error for TranscriptError {}

/// A transcript being read: its header, then its events one line at a time (a large file is
/// never read whole).
pub struct Reader<R> {
    file: String,
    lines: R,
    line: usize,
    pub header: Header,
    done: bool,
    recent: Frames,
    /// Bytes read so far, and where the line of the last event began.
    read: u64,
    last: u64,
}

impl<R: BufRead> Reader<R> {
    /// Reads the header; a file that is not a transcript, or is newer than this sightline
    /// reads, is an error naming line 1.
    pub fn new(mut lines: R, file: &str) -> Result<Self, TranscriptError> {
        let error = |message: String| TranscriptError {
            file: file.to_owned(),
            line: 1,
            message,
        };
        let mut first = String::new();
        let read = lines
            .read_line(&mut first)
            .map_err(|e| error(format!("cannot be read: {e}")))?;
        if first.trim().is_empty() {
            return Err(error("empty: not a sightline transcript".into()));
        }
        let value: Value = serde_json::from_str(&first)
            .map_err(|e| error(format!("not a sightline transcript (not JSON: {e})")))?;
        let version = value
            .get("sightline_transcript")
            .and_then(Value::as_u64)
            .ok_or_else(|| {
                error("not a sightline transcript (no \"sightline_transcript\" version)".into())
            })?;
        if version > u64::from(VERSION) {
            return Err(error(format!(
                "transcript format version {version} is newer than this sightline reads ({VERSION}); update sightline"
            )));
        }
        let header: Header = serde_json::from_value(value)
            .map_err(|e| error(format!("a header this sightline cannot read: {e}")))?;
        Ok(Self {
            file: file.to_owned(),
            lines,
            line: 1,
            header,
            done: false,
            recent: Frames::default(),
            read: read as u64,
            last: 0,
        })
    }

    /// Where the line of the event last returned begins, in bytes from the file's start.
    pub fn offset(&self) -> u64 {
        self.last
    }

    fn error(&mut self, message: String) -> TranscriptError {
        self.done = true;
        TranscriptError {
            file: self.file.clone(),
            line: self.line,
            message,
        }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<SessionEvent, TranscriptError>;

    /// The next event; a line that cannot be read ends the transcript there, with the reason.
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut text = String::new();
        loop {
            text.clear();
            self.line += 1;
            self.last = self.read;
            match self.lines.read_line(&mut text) {
                Ok(0) => return None,
                Ok(read) if text.trim().is_empty() => self.read += read as u64,
                Ok(read) => {
                    self.read += read as u64;
                    break;
                }
                Err(error) => return Some(Err(self.error(format!("cannot be read: {error}")))),
            }
        }
        let complete = text.ends_with('\n');
        let record = match serde_json::from_str::<Record>(text.trim_end()) {
            Ok(record) => record,
            Err(_) if !complete => {
                return Some(Err(self.error(
                    "cut short: the recording stopped in the middle of this line; everything before it is shown".into(),
                )));
            }
            Err(error) if error.is_syntax() || error.is_eof() => {
                return Some(Err(self.error(format!("not JSON: {error}"))));
            }
            Err(error) => {
                return Some(Err(
                    self.error(format!("not an event this sightline reads: {error}"))
                ));
            }
        };
        let event = record.into_event(&mut self.recent);
        Some(event.map_err(|message| self.error(message)))
    }
}

/// A whole transcript as text: the header, then one line per event (for exports and tests;
/// a live session is written line by line by the recorder).
pub fn to_text(
    header: &Header,
    events: &[(SessionEvent, Option<Judged>)],
    redactor: &Redactor,
) -> String {
    let line = |value: String| crate::sanitize::json(&value).into_owned() + "\n";
    let mut text = line(serde_json::to_string(header).unwrap_or_default());
    for (event, judged) in events {
        if let Some(record) = Record::of(event, redactor, judged.clone()) {
            text.push_str(&line(serde_json::to_string(&record).unwrap_or_default()));
        }
    }
    text
}

/// A finished `tools/call` of a transcript, with what its analysis depends on at that point.
#[derive(Debug, Clone)]
pub struct RecordedCall {
    pub exchange: Exchange,
    pub transport: String,
    pub connection: Option<Connection>,
    pub catalog: Option<Arc<Vec<Tool>>>,
}

impl RecordedCall {
    /// The negotiated version the call was made under.
    pub fn version(&self) -> &str {
        self.connection
            .as_ref()
            .map_or("unknown", |connection| connection.protocol_version.as_str())
    }
}

/// What `replay --json`, `diff` and `--serve` need of a transcript, read whole.
#[derive(Debug)]
pub struct Loaded {
    pub header: Header,
    /// The last tool listing.
    pub tools: Option<Arc<Vec<Tool>>>,
    pub calls: Vec<RecordedCall>,
    /// Every request sightline sent that got a reply, with the reply, in order.
    pub replies: Vec<(jsonrpc::Frame, jsonrpc::Frame)>,
    /// Why reading stopped before the end, if it did.
    pub stopped: Option<TranscriptError>,
}

/// Reads a whole transcript; a bad line stops it there (`stopped`).
pub fn load(path: &str) -> Result<Loaded, TranscriptError> {
    let reader = open(path)?;
    let mut loaded = Loaded {
        header: reader.header.clone(),
        tools: None,
        calls: Vec::new(),
        replies: Vec::new(),
        stopped: None,
    };
    let mut transport = loaded.header.transport.clone();
    let mut connection = None;
    let mut pending: std::collections::HashMap<Id, jsonrpc::Frame> =
        std::collections::HashMap::new();
    for event in reader {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                loaded.stopped = Some(error);
                break;
            }
        };
        match event {
            SessionEvent::Connecting { transport: named } => transport = named,
            SessionEvent::Connected(connected) => connection = Some(*connected),
            SessionEvent::ToolsListed(tools) => loaded.tools = Some(tools),
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Sent(frame),
                ..
            }) => {
                if let jsonrpc::Message::Request { id, .. } = &frame.message {
                    pending.insert(id.clone(), frame.clone());
                }
            }
            SessionEvent::Logged(LogEntry {
                event:
                    LogEvent::Received {
                        frame,
                        role: Role::Reply { .. } | Role::Late { .. },
                    },
                ..
            }) => {
                let request = jsonrpc::scan_id(&frame.raw).and_then(|id| pending.remove(&id));
                if let Some(request) = request {
                    loaded.replies.push((request, frame));
                }
            }
            SessionEvent::CallFinished(exchange) if exchange.method == "tools/call" => {
                loaded.calls.push(RecordedCall {
                    exchange: *exchange,
                    transport: transport.clone(),
                    connection: connection.clone(),
                    catalog: loaded.tools.clone(),
                });
            }
            _ => {}
        }
    }
    Ok(loaded)
}

/// Where a transcript's frames and calls lie, by number (the n-th `sent` or `received` line,
/// the n-th `call` line): what a replay reads back when it is shown instead of holding it.
#[derive(Debug, Default, Clone)]
pub struct Places {
    frames: Vec<u64>,
    calls: Vec<u64>,
}

impl Places {
    /// Notes where the line of `event` began.
    pub fn note(&mut self, event: &SessionEvent, offset: u64) {
        match event {
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Sent(_) | LogEvent::Received { .. },
                ..
            }) => self.frames.push(offset),
            SessionEvent::CallFinished(_) => self.calls.push(offset),
            _ => {}
        }
    }

    /// The `number`-th frame of the transcript at `path`, read again.
    pub fn frame(&self, path: &str, number: u64) -> Result<jsonrpc::Frame, String> {
        let offset = usize::try_from(number)
            .ok()
            .and_then(|number| self.frames.get(number));
        match read_at(path, offset.copied())? {
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Sent(frame) | LogEvent::Received { frame, .. },
                ..
            }) => Ok(frame),
            _ => Err(format!("line {number} of the frames is not a frame")),
        }
    }

    /// The `number`-th call of the transcript at `path`, read again.
    pub fn call(&self, path: &str, number: usize) -> Result<Exchange, String> {
        match read_at(path, self.calls.get(number).copied())? {
            SessionEvent::CallFinished(exchange) => Ok(*exchange),
            _ => Err(format!("call {number} is not a call line")),
        }
    }
}

/// The event of the line at `offset`, read on its own.
fn read_at(path: &str, offset: Option<u64>) -> Result<SessionEvent, String> {
    use std::io::{Seek, SeekFrom};
    let offset = offset.ok_or("not in the transcript as read")?;
    let cannot = |error: std::io::Error| format!("{path} cannot be read again: {error}");
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    file.seek(SeekFrom::Start(offset)).map_err(cannot)?;
    let mut line = String::new();
    std::io::BufReader::new(file)
        .read_line(&mut line)
        .map_err(cannot)?;
    let record: Record = serde_json::from_str(line.trim_end())
        .map_err(|error| format!("{path} changed since it was read: {error}"))?;
    record.into_event(&mut Frames::default())
}

/// Opens a transcript file.
pub fn open(path: &str) -> Result<Reader<std::io::BufReader<std::fs::File>>, TranscriptError> {
    let file = std::fs::File::open(path).map_err(|error| TranscriptError {
        file: path.to_owned(),
        line: 0,
        message: format!("cannot be opened: {error}"),
    })?;
    Reader::new(std::io::BufReader::with_capacity(1 << 16, file), path)
}

#[cfg(test)]
mod tests;
