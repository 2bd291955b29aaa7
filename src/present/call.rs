//! One call as one document, pure: its parts (the server, the request, the response or why there
//! is none, what the server asked, the HTTP exchange, the class, the server's last stderr, what
//! the model sees, the findings) said once. Headless text prints every section, the Detail pane
//! the exchange's, the model pane its view; `call --json` and `J` serialize the same document.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::limits::{MODEL_TEXT_BYTES, Pretty, pretty};
use crate::mcp::era::Era;
use crate::mcp::http::HttpExchange;
use crate::mcp::input::Round;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::log::{Connection, Stage};
use crate::mcp::session::{End, Exchange, Failure, TaskRun};
use crate::mcp::verdict::{Finding, Outcome, Severity};
use crate::model_view::{Block, ModelView, ModelViewJson, Rule};
use crate::sanitize;

/// An exchange's class in words, with the cause where "no usable reply" would leave a user
/// guessing: their own cancel ("cancelled by you") and sightline's deadline ("timeout") are
/// transport failures still (no reply came), but neither is the transport's fault.
pub fn class_words(outcome: &Outcome, end: &End) -> String {
    let cause = match end {
        End::Failed(Failure::CancelledByUser) => Some("cancelled by you"),
        End::TimedOut { .. } => Some("timeout"),
        End::Failed(_) | End::Replied(_) => None,
    };
    match cause {
        Some(cause) => format!("{} · {cause}", outcome.class.label()),
        None => outcome.class.label().to_owned(),
    }
}

/// Everything said of one finished call.
#[derive(Debug, Clone, Copy)]
pub struct CallDocument<'a> {
    pub exchange: &'a Exchange,
    pub outcome: &'a Outcome,
    /// The call's findings, the view's among them.
    pub findings: &'a [Finding],
    /// What the model sees, when a host was chosen to see it through.
    pub view: Option<&'a ModelView<'a>>,
    /// The server the call went to, when it was reached.
    pub connection: Option<&'a Connection>,
    /// How it was reached (`stdio: node server.js`).
    pub transport: &'a str,
}

/// The shape of `call --json` (and of `J`'s file): the request and response embedded as the
/// bytes from the wire.
#[derive(Serialize)]
pub struct CallJson<'a> {
    pub server: Value,
    pub request: Option<&'a RawValue>,
    pub response: Option<&'a RawValue>,
    pub outcome: Value,
    pub findings: &'a [Finding],
    pub model_view: Option<ModelViewJson<'a, 'a>>,
    /// What the server asked of the client during the call, and the answers given.
    pub rounds: Vec<Value>,
    /// The HTTP exchange that carried the call (Streamable HTTP), secrets masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<Value>,
    /// The task the call became, followed to its end: its form, status, polls, and what it
    /// ended with (`result` or `error`, as the server sent them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<Value>,
    /// The steps of an OAuth flow the run went through (HTTP requests, where the flow stood,
    /// what the server got wrong), in order; no tokens.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub auth: Vec<Value>,
}

impl<'a> CallDocument<'a> {
    /// The document as JSON; `with_payload` adds the host's own payload to the view.
    pub fn json(&self, with_payload: bool, show_secrets: bool) -> CallJson<'a> {
        let exchange = self.exchange;
        CallJson {
            server: server_json(self.connection),
            request: wire(&exchange.request.raw),
            response: exchange.response().and_then(|frame| wire(&frame.raw)),
            outcome: outcome_json(self.outcome, Stage::Call),
            findings: self.findings,
            model_view: self.view.map(|view| {
                let result = match exchange.answer() {
                    Some(Reply::Result(result)) => Some(result),
                    _ => None,
                };
                view.to_json_beside(with_payload, result)
            }),
            rounds: exchange.rounds.iter().map(Round::to_json).collect(),
            http: exchange
                .http
                .as_ref()
                .map(|http| http.to_json(show_secrets)),
            task: exchange.task.as_deref().map(task_json),
            auth: Vec::new(),
        }
    }

    /// The whole document as text, each section after the other.
    pub fn text(&self, show_secrets: bool) -> String {
        let mut sections = vec![
            vec![server_line(self.connection, self.transport)],
            self.request(),
            self.response(),
            self.task(),
        ];
        if let Some(http) = self.http(show_secrets).into_iter().next() {
            // The HTTP exchange's summary; Detail shows all of it.
            sections.push(vec![http]);
        }
        sections.push(self.rounds());
        sections.push(self.outcome());
        if self.view.is_some() {
            sections.push(self.view());
        }
        sections.push(self.findings());
        let blocks: Vec<String> = sections
            .into_iter()
            .filter(|section| !section.is_empty())
            .map(|section| section.join("\n"))
            .collect();
        blocks.join("\n\n") + "\n"
    }

    /// The exchange as Detail shows it: the response first (what the user looks for), then
    /// the request, what the server asked, and the HTTP exchange whole.
    pub fn detail(&self, show_secrets: bool) -> Vec<String> {
        let mut lines = self.response();
        lines.extend(self.task());
        lines.extend(self.request());
        lines.extend(self.rounds());
        lines.extend(self.http(show_secrets));
        lines
    }

    /// `→ request (N bytes)` and the request, pretty.
    pub fn request(&self) -> Vec<String> {
        let raw = &self.exchange.request.raw;
        let mut lines = vec![format!("→ request ({} bytes)", raw.len())];
        lines.extend(pretty_lines(raw));
        lines
    }

    /// `← response (N bytes)` and the response, pretty; or why there is none.
    pub fn response(&self) -> Vec<String> {
        match self.exchange.response() {
            Some(frame) => {
                let mut lines = vec![format!("← response ({} bytes)", frame.raw.len())];
                lines.extend(pretty_lines(&frame.raw));
                lines
            }
            None => vec![format!(
                "← no response: {}",
                sanitize::text(&self.outcome.detail)
            )],
        }
    }

    /// The task the call became: its form, how it ended after how many polls, and what it
    /// ended with, pretty.
    pub fn task(&self) -> Vec<String> {
        let Some(task) = self.exchange.task.as_deref() else {
            return Vec::new();
        };
        let mut lines = vec![format!(
            "⧗ task {} · {} · {} after {} tasks/get",
            sanitize::text(&task.id),
            task.form.label(),
            sanitize::text(&task.status),
            task.polls
        )];
        match &task.reply {
            Some(reply) => lines.extend(pretty_lines(&reply_text(reply))),
            None => lines.push("(no result: the task did not end with one)".into()),
        }
        lines
    }

    /// What the server asked of the client during the call, and the answers given.
    pub fn rounds(&self) -> Vec<String> {
        let rounds = &self.exchange.rounds;
        if rounds.is_empty() {
            return Vec::new();
        }
        let mut lines = vec![format!(
            "→ the server asked, and sightline answered ({})",
            rounds.len()
        )];
        lines.extend(
            rounds
                .iter()
                .map(|round| format!("  {}", sanitize::text(&round.describe()))),
        );
        lines
    }

    /// The HTTP exchange that carried the call, its summary first, terminal-safe.
    pub fn http(&self, show_secrets: bool) -> Vec<String> {
        self.exchange
            .http
            .as_ref()
            .map_or_else(Vec::new, |http| http_lines(http, show_secrets))
    }

    /// The class in words, how long the call took, and the server's last stderr when it
    /// exited.
    pub fn outcome(&self) -> Vec<String> {
        let exchange = self.exchange;
        let ended_at = exchange
            .task
            .as_ref()
            .and_then(|task| task.ended_at)
            .unwrap_or(exchange.ended_at);
        let elapsed = ended_at.since(exchange.sent_at);
        // A multi-line message (a validator's report) keeps its lines, indented under the
        // outcome, rather than reading as one line of literal `\n`s.
        let detail = sanitize::text_keeping_newlines(&self.outcome.detail);
        let mut detail_lines = detail.lines();
        let mut lines = vec![format!(
            "outcome  {} after {elapsed} ms: {}",
            self.outcome.class.label(),
            detail_lines.next().unwrap_or_default()
        )];
        lines.extend(detail_lines.map(|line| format!("         {line}")));
        if let End::Failed(Failure::ServerExited { stderr_tail, .. }) = &self.exchange.end {
            lines.extend(stderr_tail_lines(stderr_tail));
        }
        lines
    }

    /// What the model sees, in the model pane's words, after the host and the verdict.
    pub fn view(&self) -> Vec<String> {
        let Some(view) = self.view else {
            return Vec::new();
        };
        let words = ViewWords::of(view);
        let mut lines = vec![format!(
            "── what the model sees ── host '{}' · {}",
            words.host, words.verdict
        )];
        lines.extend(words.notes.iter().map(|note| format!("▸ {note}")));
        if !words.marker.is_empty() {
            lines.push(words.marker.to_owned());
        }
        lines.push(String::new());
        lines.push(words.text);
        lines.push(String::new());
        lines.push(format!("why: {}", words.reason));
        lines
    }

    /// The findings, each with its severity and rule.
    pub fn findings(&self) -> Vec<String> {
        findings_lines(self.findings)
    }
}

/// What the model sees, in the words the model pane and `call`'s text both use: terminal-safe,
/// the text clipped to [`MODEL_TEXT_BYTES`] with a note of what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewWords {
    pub host: String,
    pub verdict: String,
    /// What the host did that the model cannot tell.
    pub notes: Vec<String>,
    /// How the text reaches the model, when that needs saying ("marked as an error"…).
    pub marker: &'static str,
    pub text: String,
    pub reason: String,
}

impl ViewWords {
    pub fn of(view: &ModelView) -> Self {
        let (shown, omitted) = view.text_within(MODEL_TEXT_BYTES);
        let mut text = sanitize::text_keeping_newlines(&shown);
        if omitted > 0 {
            let _ = write!(text, "… ({omitted} more bytes)");
        }
        let structured = view
            .blocks
            .iter()
            .any(|block| matches!(*block, Block::Structured { .. }));
        let marker = match (view.forwarded, view.is_error, view.rule) {
            (true, true, Rule::May) => "marked as an error, less likely to help",
            (true, true, _) => "marked as an error",
            (false, _, _) => "the host's own words, not the server's:",
            (true, false, _) if structured => "includes structuredContent, serialized",
            (true, false, _) => "",
        };
        Self {
            host: sanitize::text(&view.host).into_owned(),
            verdict: view.verdict(),
            notes: view
                .notes
                .iter()
                .map(|note| sanitize::text(note).into_owned())
                .collect(),
            marker,
            text,
            reason: sanitize::text(&view.reason).into_owned(),
        }
    }
}

/// An HTTP exchange's details, its summary first, terminal-safe.
pub fn http_lines(http: &HttpExchange, show_secrets: bool) -> Vec<String> {
    http.lines(show_secrets)
        .iter()
        .map(|line| sanitize::text(line).into_owned())
        .collect()
}

/// The findings section of the human outputs.
pub fn findings_lines(findings: &[Finding]) -> Vec<String> {
    if findings.is_empty() {
        return vec!["── findings ── none".into()];
    }
    let mut lines = vec!["── findings ──".to_owned()];
    for finding in findings {
        let severity = match finding.severity {
            Severity::Info => "info   ",
            Severity::Warning => "warning",
        };
        lines.push(format!("{severity}  {}", finding.id));
        lines.push(format!("         {}", sanitize::text(&finding.message)));
    }
    lines
}

/// The last lines of a server's stderr, after it exited.
pub fn stderr_tail_lines(tail: &[String]) -> Vec<String> {
    if tail.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["last lines of the server's stderr:".to_owned()];
    lines.extend(
        tail.iter()
            .map(|line| format!("  | {}", sanitize::text(line))),
    );
    lines
}

/// A frame's text as lines: pretty JSON, or the start of a huge one as received.
pub fn pretty_lines(raw: &str) -> Vec<String> {
    match pretty(raw) {
        Pretty::Whole(text) => text.lines().map(str::to_owned).collect(),
        Pretty::AsReceived {
            shown,
            shown_bytes,
            total,
        } => {
            let mut lines = vec![format!(
                "(a frame of {total} bytes: the first {shown_bytes} as received; --json, y and \
                 Y give it whole)"
            )];
            let safe: Vec<char> = shown.chars().collect();
            lines.extend(
                safe.chunks(PREVIEW_WIDTH)
                    .map(|chunk| chunk.iter().collect::<String>()),
            );
            lines
        }
    }
}

/// Width of the rows an oversized frame's preview is cut into.
const PREVIEW_WIDTH: usize = 120;

/// A frame's text as a JSON value, borrowed (checked, not parsed into a tree or copied).
fn wire(text: &str) -> Option<&RawValue> {
    serde_json::from_str::<&RawValue>(text).ok()
}

/// A task's `result` or `error` as JSON text.
fn reply_text(reply: &Reply) -> String {
    match reply {
        Reply::Result(result) => result.text().to_owned(),
        Reply::Error(error) => serde_json::to_string(error).unwrap_or_default(),
    }
}

/// The `task` object of `call --json`.
fn task_json(task: &TaskRun) -> Value {
    let mut value = json!({
        "id": task.id,
        "form": task.form,
        "status": task.status,
        "polls": task.polls,
    });
    match &task.reply {
        Some(Reply::Result(result)) => value["result"] = result.value(),
        Some(Reply::Error(error)) => value["error"] = json!(error),
        None => {}
    }
    value
}

/// The `server` object: who answered, in which era and version.
pub fn server_json(connection: Option<&Connection>) -> Value {
    match connection {
        Some(c) => json!({
            "name": c.server.name,
            "version": c.server.version,
            "era": c.era,
            "protocol_version": c.protocol_version,
            "http_session": c.http_session,
        }),
        None => Value::Null,
    }
}

/// The `outcome` object: class, code, stage and detail.
pub fn outcome_json(outcome: &Outcome, stage: Stage) -> Value {
    let mut value = json!({"class": outcome.class});
    if let Some(code) = outcome.code {
        value["code"] = code.into();
    }
    value["stage"] = json!(stage);
    value["detail"] = outcome.detail.as_str().into();
    value
}

/// `server   NAME VERSION · ERA era · protocol V · TRANSPORT`, terminal-safe.
pub fn server_line(connection: Option<&Connection>, transport: &str) -> String {
    let transport = sanitize::text(transport).into_owned();
    match connection {
        Some(c) => {
            let era = match c.era {
                Era::Legacy => "legacy",
                Era::Modern => "modern",
            };
            let session = c
                .http_session
                .as_deref()
                .map(|id| {
                    format!(
                        " · session {}",
                        sanitize::text(&super::log::short_session(id))
                    )
                })
                .unwrap_or_default();
            format!(
                "server   {} · {era} era · protocol {} · {transport}{session}",
                sanitize::text(&c.server.label()),
                c.protocol_version
            )
        }
        None => format!("server   {transport}"),
    }
}
