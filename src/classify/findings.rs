//! Findings: observations on top of the outcome class, pure and spec-version-aware. Each rule is
//! one small function in [`RULES`]; adding a finding is adding a function to that list.

mod tasks;

use std::fmt::Write as _;

use serde_json::Value;

use super::Outcome;
use crate::mcp::catalog::Catalog;
use crate::mcp::input::{ResultType, result_type};
use crate::mcp::json;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::messages::CallResult;
use crate::mcp::session::{End, Exchange, Failure};

pub use crate::mcp::verdict::{Direction, Finding, FrameRef, Severity};

/// What the rules look at.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub exchange: &'a Exchange,
    pub outcome: &'a Outcome,
    /// The negotiated protocol version (`2025-06-18`, `2026-07-28`…).
    pub version: &'a str,
    /// The tools the server listed, when the list is known.
    pub catalog: Option<&'a Catalog>,
    /// The result, read once for every rule.
    result: Option<CallResult<'a>>,
}

impl<'a> Context<'a> {
    pub fn new(
        exchange: &'a Exchange,
        outcome: &'a Outcome,
        version: &'a str,
        catalog: Option<&'a Catalog>,
    ) -> Self {
        let result = match exchange.answer() {
            Some(Reply::Result(result)) => Some(CallResult::read(result)),
            Some(Reply::Error(_)) | None => None,
        };
        Context {
            exchange,
            outcome,
            version,
            catalog,
            result,
        }
    }
}

/// The rules, in the order their findings are reported.
pub const RULES: &[fn(&Context) -> Option<Finding>] = &[
    validation_as_protocol_error,
    unknown_tool_as_tool_error,
    unknown_tool_code,
    tool_error_without_text,
    structured_without_text,
    output_schema_violation,
    success_reads_like_error,
    method_not_found_wrong_code,
    event_stream_without_response,
    stale_session_not_404,
    rejected_tool_called,
    unknown_result_type,
    tasks::task_failed_on_tool_error,
];

/// Every finding for one exchange. A refusal of sightline's replay stand-in (a request the
/// recording does not hold) says nothing of the recorded server: no finding judges it.
pub fn findings(context: &Context) -> Vec<Finding> {
    if let Some(Reply::Error(error)) = context.exchange.answer()
        && super::stand_in::made_up(error)
    {
        return Vec::new();
    }
    RULES.iter().filter_map(|rule| rule(context)).collect()
}

/// The first version with SEP-1303's wording.
const SEP_1303_VERSION: &str = "2025-11-25";

impl Context<'_> {
    /// Spec versions are ISO dates, so they order as strings.
    fn at_least(&self, version: &str) -> bool {
        self.version >= version
    }

    fn tool_call(&self) -> Option<(&str, Option<&Value>)> {
        if self.exchange.method != "tools/call" {
            return None;
        }
        let params = self.exchange.params()?;
        Some((params.get("name")?.as_str()?, params.get("arguments")))
    }

    fn listed(&self, name: &str) -> Option<bool> {
        Some(self.catalog?.iter().any(|tool| tool.name == name))
    }

    fn error_code(&self) -> Option<i64> {
        match self.exchange.answer()? {
            Reply::Error(error) => Some(error.code),
            Reply::Result(_) => None,
        }
    }

    fn result(&self) -> Option<CallResult<'_>> {
        self.result
    }

    fn is_tool_error(&self) -> bool {
        self.tool_call().is_some() && self.result().is_some_and(|result| result.is_error)
    }

    fn both_frames(&self) -> Vec<FrameRef> {
        let id = self.exchange.id.clone();
        vec![
            FrameRef {
                direction: Direction::Sent,
                id: id.clone(),
            },
            FrameRef {
                direction: Direction::Received,
                id,
            },
        ]
    }

    fn finding(&self, id: &'static str, severity: Severity, message: String) -> Finding {
        Finding {
            id,
            severity,
            message,
            frames: self.both_frames(),
        }
    }
}

/// -32602 for a listed tool called with object arguments: an input validation failure sent where
/// the model cannot see it.
fn validation_as_protocol_error(context: &Context) -> Option<Finding> {
    let (name, arguments) = context.tool_call()?;
    let object_arguments = arguments.is_none_or(Value::is_object);
    if !object_arguments || context.listed(name) != Some(true) || context.error_code()? != -32602 {
        return None;
    }
    let id = "sep1303.validation-as-protocol-error";
    if context.at_least(SEP_1303_VERSION) {
        Some(context.finding(
            id,
            Severity::Warning,
            format!(
                "{}: input validation errors are tool execution errors (isError: true), not -32602 \
             (tools.mdx, SEP-1303): clients SHOULD show those to the model, and only MAY show it a protocol error",
                context.version
            ),
        ))
    } else {
        Some(context.finding(id, Severity::Info, format!(
            "allowed by {} (\"Invalid arguments\" were protocol errors), changed by SEP-1303 in \
             {SEP_1303_VERSION}: clients SHOULD show tool execution errors to the model, and only MAY show it a protocol error",
            context.version
        )))
    }
}

/// `isError: true` for a tool the server never listed: unknown tools are protocol errors.
fn unknown_tool_as_tool_error(context: &Context) -> Option<Finding> {
    let (name, _) = context.tool_call()?;
    if !context.is_tool_error() || context.listed(name) != Some(false) {
        return None;
    }
    Some(context.finding("spec.unknown-tool-as-tool-error", Severity::Warning, format!(
        "{}: an unknown tool is a protocol error (JSON-RPC -32602, tools.mdx \"Error Handling\"), \
         but '{name}', which the server did not list, got isError: true ({UNKNOWN_TOOL_PROPOSAL})",
        context.version
    )))
}

/// The open proposal that would make an unknown tool a tool execution error.
const UNKNOWN_TOOL_PROPOSAL: &str = "SEP-2145, an open proposal not in the draft, would make \
     this the right answer";

/// A protocol error other than -32602 for a tool the server never listed: the code only the
/// example gives up to 2025-11-25 (advice), and that 2026-07-28's schema names (a warning).
fn unknown_tool_code(context: &Context) -> Option<Finding> {
    let (name, _) = context.tool_call()?;
    let code = context.error_code()?;
    if code == -32602 || context.listed(name) != Some(false) {
        return None;
    }
    let id = "spec.unknown-tool-code";
    if context.at_least("2026-07-28") {
        return Some(context.finding(
            id,
            Severity::Warning,
            format!(
                "{}: '{name}', which the server did not list, got {code}; the schema names -32602 \
             for an unknown tool (InvalidParamsError: \"Unknown tool name or invalid tool \
             arguments\")",
                context.version
            ),
        ));
    }
    Some(context.finding(id, Severity::Info, format!(
        "{}: '{name}', which the server did not list, got {code}; this version names no code for \
         an unknown tool, but its example is -32602 (tools.mdx \"Error Handling\"), and \
         2026-07-28's schema names -32602",
        context.version
    )))
}

/// `isError: true` with no text: the model learns that the call failed, not why.
fn tool_error_without_text(context: &Context) -> Option<Finding> {
    if !context.is_tool_error()
        || context
            .result()?
            .texts()
            .any(|text| !text.trim().is_empty())
    {
        return None;
    }
    Some(context.finding("tool-error-without-text", Severity::Warning, format!(
        "{}: isError: true without text content: the model learns that the call failed, not why \
         (tool execution errors carry \"actionable feedback\", tools.mdx)",
        context.version
    )))
}

/// `structuredContent` without its serialized JSON in a text block (a SHOULD since
/// 2025-06-18): a warning when there is no text at all (hosts that read only content show the
/// model nothing), advice when other text stands in for it.
fn structured_without_text(context: &Context) -> Option<Finding> {
    context.tool_call()?;
    let result = context.result()?;
    let structured = result.structured?;
    if result.texts().any(|text| json::same(&text, structured)) {
        return None;
    }
    if result.texts().next().is_none() {
        return Some(context.finding("structured-without-text", Severity::Warning, format!(
            "{}: structuredContent with no text block: a tool returning structured content SHOULD \
             also return the serialized JSON in a text block (tools.mdx); hosts that read only \
             content show the model nothing",
            context.version
        )));
    }
    Some(context.finding(
        "structured-text-differs",
        Severity::Info,
        format!(
            "{}: the text blocks are not the serialized JSON of structuredContent (a SHOULD, \
         tools.mdx): hosts that read only content show the model the text, not the structured \
         data",
            context.version
        ),
    ))
}

/// Problems listed in a finding, at most; the rest are counted.
const VIOLATIONS_SHOWN: usize = 3;

/// The first version with `outputSchema`.
const OUTPUT_SCHEMA_VERSION: &str = "2025-06-18";

/// sightline's own check of a result against the tool's `outputSchema`, as clients SHOULD
/// make it: never the server's error, never a change of class. tools.mdx's MUST ("Servers
/// MUST provide structured results that conform to this schema", 2025-06-18 to draft) names no
/// exception for `isError` results; the SDK clients make one (see each message).
fn output_schema_violation(context: &Context) -> Option<Finding> {
    let (name, _) = context.tool_call()?;
    let result = context.result()?;
    let tool = context.catalog?.iter().find(|tool| tool.name == name)?;
    let schema = tool.raw.get("outputSchema")?.value();
    let version = context.version;
    let local = "local check (sightline's, not the server's answer)";
    let must = if context.at_least(OUTPUT_SCHEMA_VERSION) {
        format!("servers MUST provide structured results that conform to it ({version} tools.mdx)")
    } else {
        format!(
            "{version} has no outputSchema; from {OUTPUT_SCHEMA_VERSION} servers MUST provide structured results that conform to it"
        )
    };
    let Some(structured) = result.structured else {
        if result.is_error {
            return Some(context.finding(
                "structured-missing-on-error",
                Severity::Info,
                format!(
                    "{local}: '{name}' declares an outputSchema and its isError result has no \
                 structuredContent; {must}, with no exception written for errors, but the \
                 TypeScript and Python SDK clients check only successes for it and pass this on"
                ),
            ));
        }
        return Some(context.finding(
            "structured-missing",
            Severity::Warning,
            format!(
                "{local}: '{name}' declares an outputSchema but its result has no \
             structuredContent; {must}. The TypeScript SDK client throws -32600 instead of \
             returning it, the Python SDK client raises: a host on either never sees the result"
            ),
        ));
    };
    let instance = serde_json::from_str::<Value>(structured).ok()?;
    let found = crate::schema::output_violations(&schema, &instance);
    if found.is_empty() {
        return None;
    }
    let more = found.len().saturating_sub(VIOLATIONS_SHOWN);
    let mut listed = found
        .iter()
        .take(VIOLATIONS_SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if more > 0 {
        let _ = write!(listed, "; and {more} more");
    }
    let clients = if result.is_error {
        "on an isError result: the Python SDK client passes it on unchecked, but the TypeScript \
         SDK client still validates it and throws -32602 of its own, so a host on it shows its \
         model that error, not the tool's"
    } else {
        "the TypeScript SDK client throws -32602 of its own that looks like the server's, the \
         Python SDK client raises: a host on either never sees the result"
    };
    Some(context.finding(
        "output-schema-violation",
        Severity::Warning,
        format!(
            "{local}: structuredContent breaks '{name}''s outputSchema: {listed}. {must}, and \
         clients SHOULD validate it; {clients}"
        ),
    ))
}

/// Openings of a text that a reader takes for a failure.
const ERROR_OPENINGS: [&str; 4] = ["error", "failed", "failure", "exception"];

/// A success whose only text opens like an error: the host hands it to the model as a
/// normal result, so a failure reported this way is one the model is not told of.
fn success_reads_like_error(context: &Context) -> Option<Finding> {
    context.tool_call()?;
    let result = context.result()?;
    if result.is_error || result.structured.is_some() {
        return None;
    }
    let mut texts = result.texts();
    let (Some(only), None) = (texts.next(), texts.next()) else {
        return None;
    };
    // Only the opening is compared: a 50 MB text is not lowercased whole.
    let opening = only.trim_start().as_bytes();
    let word = ERROR_OPENINGS.iter().find(|word| {
        opening
            .get(..word.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(word.as_bytes()))
    })?;
    Some(context.finding("success-reads-like-error", Severity::Info, format!(
        "{}: a success whose text opens with '{word}…': if the call failed, isError: true is how \
         hosts learn it (tools.mdx); without it the host passes this on as a normal result",
        context.version
    )))
}

/// A method the negotiated version does not define, answered with a code other than -32601.
fn method_not_found_wrong_code(context: &Context) -> Option<Finding> {
    let method = context.exchange.method.as_str();
    let code = context.error_code()?;
    if code == -32601 || defines_method(context.version, method) {
        return None;
    }
    Some(context.finding(
        "method-not-found-wrong-code",
        Severity::Warning,
        format!(
            "{}: '{method}' is not a method of this version, so JSON-RPC says -32601 (method not \
         found); the server answered {code}",
            context.version
        ),
    ))
}

/// A request whose event stream ended, or whose resumption failed, without its response.
fn event_stream_without_response(context: &Context) -> Option<Finding> {
    let http = context.exchange.http.as_ref()?;
    let streamed = http
        .header("content-type")
        .is_some_and(|kind| kind.to_ascii_lowercase().starts_with("text/event-stream"));
    let resumed = http
        .request_headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("last-event-id"));
    let unanswered = matches!(context.exchange.end, End::Failed(Failure::Rejected { .. }));
    if !(streamed || resumed) || !unanswered {
        return None;
    }
    let how = match http.status {
        Some(status) if resumed && !streamed => {
            format!(", and resuming it with Last-Event-ID got HTTP {status}")
        }
        _ => String::new(),
    };
    Some(context.finding(
        "http.event-stream-without-response",
        Severity::Warning,
        format!(
            "{}: the event stream for #{} ended without its response{how}; a server that closes a \
             stream before the response must let the client resume it (transports.mdx, \
             Resumability), and a 2026-07-28 server sends the response on the stream",
            context.version, context.exchange.id
        ),
    ))
}

/// A request carrying a session id, refused for its session with a status other than 404: the
/// client cannot tell that it must start a new session.
fn stale_session_not_404(context: &Context) -> Option<Finding> {
    let http = context.exchange.http.as_ref()?;
    let session = http
        .request_headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("mcp-session-id"))?;
    let status = http
        .status
        .filter(|status| (400..500).contains(status) && *status != 404)?;
    let said = match (&context.exchange.end, context.exchange.reply()) {
        (_, Some(Reply::Error(error))) => error.message.clone(),
        (End::Failed(Failure::Rejected { reason }), _) => reason.clone(),
        _ => return None,
    };
    if !said.to_ascii_lowercase().contains("session") {
        return None;
    }
    Some(context.finding(
        "http.stale-session-not-404",
        Severity::Warning,
        format!(
            "{}: a request with Mcp-Session-Id {} was refused with HTTP {status} (\"{said}\"); a \
             server that no longer knows a session answers 404, the one status that tells clients \
             to start a new session (transports.mdx, Session Management)",
            context.version, session.1
        ),
    ))
}

/// A call of a tool that a conforming 2026-07-28 HTTP client drops from its listing.
fn rejected_tool_called(context: &Context) -> Option<Finding> {
    let (name, _) = context.tool_call()?;
    let tool = context.catalog?.iter().find(|tool| tool.name == name)?;
    let reason = tool.rejected.as_deref()?;
    Some(context.finding(
        "http.tool-rejected",
        Severity::Warning,
        format!(
            "{}: '{name}' has an x-mcp-header that breaks the spec's constraints ({reason}); HTTP \
             clients MUST drop such a tool from tools/list (streamable-http.mdx, Custom Headers \
             from Tool Parameters), so no model can call it",
            context.version
        ),
    ))
}

/// A `resultType` the client never negotiated: the result is invalid, whatever it holds.
fn unknown_result_type(context: &Context) -> Option<Finding> {
    context.tool_call()?;
    let Some(Reply::Result(result)) = context.exchange.answer() else {
        return None;
    };
    // A task handle still here was never polled: the extension was not declared.
    let kind = match result_type(result) {
        ResultType::Unknown(kind) => kind,
        ResultType::Task => "task".to_owned(),
        ResultType::Complete | ResultType::InputRequired => return None,
    };
    Some(context.finding(
        "spec.unknown-result-type",
        Severity::Warning,
        format!(
            "{}: resultType '{kind}' is not one this client negotiated (complete, \
             input_required); a client MUST treat such a result as invalid (schema.ts, Result), \
             so nothing of it reaches the model",
            context.version
        ),
    ))
}

/// Whether the spec version defines a client→server request method.
fn defines_method(version: &str, method: &str) -> bool {
    const COMMON: &[&str] = &[
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
        "prompts/get",
        "completion/complete",
    ];
    const LEGACY: &[&str] = &[
        "initialize",
        "ping",
        "resources/subscribe",
        "resources/unsubscribe",
        "logging/setLevel",
    ];
    const TASKS: &[&str] = &["tasks/get", "tasks/list", "tasks/result", "tasks/cancel"];
    const MODERN: &[&str] = &["server/discover", "subscriptions/listen"];
    let modern = version >= "2026-07-28";
    COMMON.contains(&method)
        || (!modern && LEGACY.contains(&method))
        || (version == SEP_1303_VERSION && TASKS.contains(&method))
        || (modern && MODERN.contains(&method))
}
