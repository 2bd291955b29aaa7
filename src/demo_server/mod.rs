//! The built-in demo server: a small real MCP server over stdio, dual-era, in two styles that
//! report input validation failures the SEP-1303 way (`isError`) or the legacy way (-32602).
//! `handle` is pure; `stdio` and `http` are the I/O around it.

pub mod auth;
mod completion;
mod connection;
pub mod host_cases;
pub mod http;
mod logging;
mod prompts;
mod questions;
mod resources;
mod stdio;
pub mod subscriptions;
mod tasks;
pub mod tools;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::mcp::era::{self, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_SERVER_INFO};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{self, ErrorObject, FrameError, Id, Message, Reply};
use crate::time::Date;
use tasks::DemoTask;
use tools::ToolOutcome;

pub use questions::Asking;
pub use stdio::run_stdio;

/// How the server reports input validation failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Style {
    /// As tool execution errors (`isError: true`), per SEP-1303 (2025-11-25 on).
    #[default]
    Sep1303,
    /// As JSON-RPC -32602, as pre-SEP-1303 SDKs did.
    Legacy,
}

const NAME: &str = "sightline-demo";
/// What the server tells a client's user (and model) about itself, in both eras.
const INSTRUCTIONS: &str = "Call book_flight with a past departureDate to see how this server \
    reports input validation errors. demo://departures changes every two seconds: subscribe to \
    it to hear of each change.";
const SLOW_TICK: Duration = Duration::from_millis(500);

/// What the server does with one incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Handled {
    /// Write this message.
    Send(Message),
    /// Start the slow search; reply when it ends unless cancelled.
    StartSlow {
        id: Id,
        seconds: u64,
        progress_token: Option<Value>,
        modern: bool,
    },
    /// Write this message after a while (a 2025-11-25 `tasks/result` waits for the task's end),
    /// unless the request is cancelled.
    Later {
        id: Id,
        after: Duration,
        message: Message,
    },
    /// Stop the request with this id, without replying.
    Cancel(Id),
    /// Ask the client (a legacy server request); answer `id` when the client has answered.
    Ask {
        id: Id,
        name: String,
        arguments: Map<String, Value>,
        ask: tools::Ask,
    },
    /// Write these messages in order (log messages before a call's reply).
    SendAll(Vec<Message>),
    /// A 2026-07-28 `subscriptions/listen`: acknowledge, then tell of each change to `uris`
    /// on this request's stream until the client cancels it.
    Listen { id: Id, uris: Vec<String> },
    /// Exit with this status without answering, after saying `why` on stderr (a host case's
    /// crash).
    Exit { status: i32, why: &'static str },
    /// Nothing to do (notifications, stray responses).
    Nothing,
}

/// The demo server's protocol state: its style, and the tasks it runs (shared by clones).
#[derive(Debug, Clone)]
pub struct DemoServer {
    style: Style,
    /// The host cases' tools are listed too (`--host-cases`).
    host_cases: bool,
    tasks: Arc<Mutex<HashMap<String, DemoTask>>>,
}

/// The tasks extension's identifier.
const TASKS: &str = "io.modelcontextprotocol/tasks";

impl DemoServer {
    pub fn new(style: Style) -> Self {
        Self {
            style,
            host_cases: false,
            tasks: Arc::default(),
        }
    }

    /// The same server with the host cases' tools after its own.
    #[must_use]
    pub fn with_host_cases(self) -> Self {
        Self {
            host_cases: true,
            ..self
        }
    }

    fn server_info(&self) -> Value {
        let style = match self.style {
            Style::Sep1303 => "sep1303",
            Style::Legacy => "legacy",
        };
        json!({"name": NAME, "version": format!("{} ({style} style)", env!("CARGO_PKG_VERSION"))})
    }

    /// Answers a line that is not a message: -32700 for non-JSON, -32600 for non-JSON-RPC.
    pub fn handle_invalid(&self, error: &FrameError) -> Option<Message> {
        let (code, id) = match error {
            FrameError::NotJson { .. } | FrameError::InvalidUtf8 { .. } => (-32700, None),
            FrameError::NotJsonRpc { id, .. } => (-32600, id.clone()),
            FrameError::Oversized { .. } => (-32600, None),
        };
        let message = format!("{}: {error}", jsonrpc::error_code_name(code));
        Some(error_response(id, code, message, None))
    }

    /// Handles one message; pure, with today's date passed in.
    pub fn handle(&self, message: Message, today: Date) -> Handled {
        match message {
            Message::Request { id, method, params } => self.request(id, &method, params, today),
            Message::Notification { method, params } if method == "notifications/cancelled" => {
                let params = params.as_ref().map(jsonrpc::Params::value);
                match params.as_ref().and_then(|p| p.get("requestId")).cloned() {
                    Some(id) => {
                        serde_json::from_value(id).map_or(Handled::Nothing, Handled::Cancel)
                    }
                    None => Handled::Nothing,
                }
            }
            Message::Notification { .. } | Message::Response { .. } => Handled::Nothing,
        }
    }

    fn request(&self, id: Id, method: &str, params: Option<Value>, today: Date) -> Handled {
        let params = params.unwrap_or(Value::Null);
        let modern = match modern_version(&params) {
            ModernCheck::Legacy => false,
            ModernCheck::Modern => true,
            ModernCheck::Reject(error) => {
                return Handled::Send(Message::Response {
                    id: Some(id),
                    reply: Reply::Error(error),
                });
            }
        };
        let reply = match method {
            "initialize" => Ok(self.initialize(&params)),
            "server/discover" if modern => Ok(Self::discover()),
            "server/discover" => Err(missing_meta()),
            "ping" if !modern => Ok(json!({})),
            "tools/list" => Ok(self.tools_list(modern)),
            "resources/list" => Ok(resources::list(modern)),
            "resources/templates/list" => Ok(resources::templates(modern)),
            "resources/read" => resources::read(&params, modern),
            "prompts/list" => Ok(prompts::list(modern)),
            "prompts/get" => prompts::get(&params),
            "tools/call" => return self.tools_call(id, &params, modern, today),
            "tasks/get" | "tasks/cancel" | "tasks/update" if modern => {
                self.task_request(method, &params)
            }
            "tasks/get" | "tasks/cancel" => self.augmented_task_request(method, &params),
            "tasks/result" if !modern => return self.task_result(id, &params),
            _ => Err(ErrorObject {
                code: -32601,
                message: format!("Method not found: {method}"),
                data: None,
            }),
        };
        Handled::Send(self.respond(id, reply, modern))
    }

    fn respond(&self, id: Id, reply: Result<Value, ErrorObject>, modern: bool) -> Message {
        let reply = match reply {
            Ok(result) if modern => Reply::Result(self.modern_result(result).into()),
            Ok(result) => Reply::Result(result.into()),
            Err(error) => Reply::Error(error),
        };
        Message::Response {
            id: Some(id),
            reply,
        }
    }

    /// Adds what 2026-07-28 asks of every result: `resultType` and `_meta` serverInfo.
    fn modern_result(&self, result: Value) -> Value {
        let mut object = Map::new();
        object.insert("resultType".into(), "complete".into());
        if let Value::Object(fields) = result {
            object.extend(fields);
        }
        object.insert(
            "_meta".into(),
            json!({META_SERVER_INFO: self.server_info()}),
        );
        Value::Object(object)
    }

    fn initialize(&self, params: &Value) -> Value {
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let version = if era::supports_legacy(requested) {
            requested
        } else {
            era::LEGACY_OFFER
        };
        json!({
            "protocolVersion": version,
            "capabilities": {
                "tools": {"listChanged": false},
                "resources": {"subscribe": true, "listChanged": false},
                "prompts": {"listChanged": false},
                "completions": {},
                "logging": {},
                // 2025-11-25 tasks: `long_booking` may be called as a task.
                "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}},
            },
            "serverInfo": self.server_info(),
            "instructions": INSTRUCTIONS,
        })
    }

    fn discover() -> Value {
        let mut versions: Vec<&str> = era::LEGACY_VERSIONS.iter().rev().copied().collect();
        versions.extend(era::MODERN_VERSIONS);
        json!({
            "supportedVersions": versions,
            "capabilities": {
                "tools": {},
                // Subscribed to with `subscriptions/listen`.
                "resources": {"subscribe": true},
                "prompts": {},
                "completions": {},
                // Deprecated in 2026-07-28: a request opts in with `_meta` logLevel.
                "logging": {},
                "extensions": {TASKS: {}},
            },
            "instructions": INSTRUCTIONS,
            "ttlMs": 0,
            "cacheScope": "public",
        })
    }

    fn tools_list(&self, modern: bool) -> Value {
        let mut tools = tools::definitions();
        if self.host_cases {
            tools.extend(host_cases::definitions());
        }
        if modern {
            json!({"ttlMs": 60_000, "cacheScope": "public", "tools": tools})
        } else {
            // 2025-11-25 says per tool whether it runs as a task (2026-07-28 removed it).
            for tool in &mut tools {
                if tool["name"] == "long_booking" {
                    tool["execution"] = json!({"taskSupport": "optional"});
                }
            }
            json!({"tools": tools})
        }
    }

    fn tools_call(&self, id: Id, params: &Value, modern: bool, today: Date) -> Handled {
        let invalid = |message: String| ErrorObject {
            code: -32602,
            message,
            data: None,
        };
        let call = match (params.get("name"), params.get("arguments")) {
            (Some(Value::String(name)), None) => Ok((name.clone(), Map::new())),
            (Some(Value::String(name)), Some(Value::Object(arguments))) => {
                Ok((name.clone(), arguments.clone()))
            }
            (Some(Value::String(_)), Some(other)) => Err(invalid(format!(
                "Invalid params: tools/call `arguments` must be an object, got {other}"
            ))),
            _ => Err(invalid(
                "Invalid params: tools/call needs a string `name`".into(),
            )),
        };
        let (name, arguments) = match call {
            Ok(call) => call,
            Err(error) => return Handled::Send(self.respond(id, Err(error), modern)),
        };
        if self.host_cases
            && let Some(outcome) = host_cases::call(&name, &arguments)
        {
            return match outcome {
                host_cases::CaseOutcome::Result(result) => {
                    Handled::Send(self.respond(id, Ok(result), modern))
                }
                host_cases::CaseOutcome::Exit { status, why } => Handled::Exit { status, why },
            };
        }
        if !tools::is_known(&name) {
            return Handled::Send(self.respond(
                id,
                Err(invalid(format!("Unknown tool: {name}"))),
                modern,
            ));
        }
        let reply = match tools::call(&name, &arguments, today) {
            ToolOutcome::Long {
                seconds,
                outcome,
                date,
            } => self.long_booking(&name, params, modern, seconds, outcome, date),
            ToolOutcome::Ask(ask) if modern => self.ask_modern(&name, &arguments, params, &ask),
            ToolOutcome::Ask(ask) => {
                return Handled::Ask {
                    id,
                    name,
                    arguments,
                    ask,
                };
            }
            ToolOutcome::Slow { seconds } => {
                let progress_token = params.pointer("/_meta/progressToken").cloned();
                return Handled::StartSlow {
                    id,
                    seconds,
                    progress_token,
                    modern,
                };
            }
            outcome => self.finish(&name, outcome),
        };
        Handled::Send(self.respond(id, reply, modern))
    }

    /// A tool's outcome on the wire, shaped by the style.
    fn finish(&self, name: &str, outcome: ToolOutcome) -> Result<Value, ErrorObject> {
        match outcome {
            ToolOutcome::Done(result) => Ok(result),
            ToolOutcome::Failed(message) => Ok(tool_error(&message)),
            ToolOutcome::Invalid(message) => match self.style {
                Style::Sep1303 => Ok(tool_error(&message)),
                Style::Legacy => Err(ErrorObject {
                    code: -32602,
                    message: format!("Invalid arguments for tool {name}: {message}"),
                    data: None,
                }),
            },
            ToolOutcome::Slow { .. } | ToolOutcome::Ask(_) | ToolOutcome::Long { .. } => {
                Ok(tool_error(&format!("{name} cannot finish this way")))
            }
        }
    }

    /// A legacy call that asked the client, finished with the client's answer.
    pub fn resume(
        &self,
        id: Id,
        name: &str,
        arguments: &Map<String, Value>,
        answer: &Reply,
    ) -> Message {
        let answer = match answer {
            Reply::Result(result) => tools::resume(name, arguments, Ok(&result.value())),
            Reply::Error(error) => tools::resume(name, arguments, Err(&error.message)),
        };
        self.respond(id, self.finish(name, answer), false)
    }

    /// The final reply of a slow search.
    pub fn slow_done(&self, id: Id, seconds: u64, modern: bool) -> Message {
        let text = format!("Searched for {seconds} s: found 3 flights.");
        self.respond(id, Ok(tools::text_result(&text)), modern)
    }
}

fn tool_error(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

fn error_response(id: Option<Id>, code: i64, message: String, data: Option<Value>) -> Message {
    Message::Response {
        id,
        reply: Reply::Error(ErrorObject {
            code,
            message,
            data: data.map(Json::from),
        }),
    }
}

fn missing_meta() -> ErrorObject {
    ErrorObject {
        code: -32602,
        message: format!(
            "Invalid params: _meta must carry '{META_PROTOCOL_VERSION}' and '{META_CLIENT_CAPABILITIES}'"
        ),
        data: None,
    }
}

enum ModernCheck {
    Legacy,
    Modern,
    Reject(ErrorObject),
}

/// A request carrying a protocol version in `_meta` is a modern one; check it as 2026-07-28 asks.
fn modern_version(params: &Value) -> ModernCheck {
    let Some(meta) = params.get("_meta") else {
        return ModernCheck::Legacy;
    };
    let Some(version) = meta.get(META_PROTOCOL_VERSION) else {
        return ModernCheck::Legacy;
    };
    let Some(version) = version.as_str() else {
        return ModernCheck::Reject(missing_meta());
    };
    if !era::MODERN_VERSIONS.contains(&version) {
        return ModernCheck::Reject(ErrorObject {
            code: era::UNSUPPORTED_PROTOCOL_VERSION,
            message: "Unsupported protocol version".into(),
            data: Some(json!({"supported": era::MODERN_VERSIONS, "requested": version}).into()),
        });
    }
    if !meta
        .get(META_CLIENT_CAPABILITIES)
        .is_some_and(Value::is_object)
    {
        return ModernCheck::Reject(missing_meta());
    }
    ModernCheck::Modern
}

fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn today() -> Date {
    Date::from_unix_seconds(i64::try_from(unix_seconds()).unwrap_or(i64::MAX))
}

/// Until the departures board next changes.
fn until_next_tick() -> Duration {
    let tick = subscriptions::TICK.as_millis();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let left = tick - now % tick;
    Duration::from_millis(u64::try_from(left).unwrap_or(0))
}

/// A 2026-07-28 listen stream: its acknowledgement, then a change of the board each tick when
/// it is among `uris`, until the stream's reader is gone (or the task is aborted: cancelled).
async fn listen_stream(id: Id, uris: Vec<String>, out: mpsc::Sender<Message>) {
    if out
        .send(DemoServer::listen_acknowledged(&id, &uris))
        .await
        .is_err()
    {
        return;
    }
    let hears = uris.iter().any(|uri| uri == subscriptions::DEPARTURES);
    loop {
        tokio::time::sleep(until_next_tick()).await;
        if hears {
            let note = subscriptions::updated(subscriptions::DEPARTURES, Some(&id));
            if out.send(note).await.is_err() {
                return;
            }
        } else if out.is_closed() {
            return;
        }
    }
}

async fn slow_search(
    server: DemoServer,
    id: Id,
    seconds: u64,
    progress_token: Option<Value>,
    modern: bool,
    out: mpsc::Sender<Message>,
) {
    let ticks = seconds * 2;
    for tick in 1..=ticks {
        tokio::time::sleep(SLOW_TICK).await;
        if let Some(token) = &progress_token {
            let params = json!({
                "progressToken": token,
                "progress": tick,
                "total": ticks,
                "message": format!("searched {} of {seconds} s", tick / 2),
            });
            let note = Message::Notification {
                method: "notifications/progress".into(),
                params: Some(params.into()),
            };
            if out.send(note).await.is_err() {
                return;
            }
        }
    }
    // The writer is gone only when the server is shutting down.
    let _ = out.send(server.slow_done(id, seconds, modern)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: Date = Date {
        year: 2026,
        month: 11,
        day: 29,
    };

    fn call(style: Style, params: Value) -> Message {
        let request = Message::Request {
            id: Id::Number(1),
            method: "tools/call".into(),
            params: Some(params),
        };
        match DemoServer::new(style).handle(request, TODAY) {
            Handled::Send(message) => message,
            other => panic!("{other:?}"),
        }
    }

    fn reply(message: Message) -> Reply {
        let Message::Response { reply, .. } = message else {
            panic!("{message:?}")
        };
        reply
    }

    #[test]
    fn the_two_styles_report_a_past_date_on_different_channels() {
        let params = json!({"name": "book_flight", "arguments": {"departureDate": "12/12/2024"}});
        let Reply::Result(result) = reply(call(Style::Sep1303, params.clone())) else {
            panic!()
        };
        let result = result.value();
        assert_eq!(result["isError"], true);
        assert!(
            result["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("Current date is 29/11/2026")
        );
        let Reply::Error(error) = reply(call(Style::Legacy, params)) else {
            panic!()
        };
        assert_eq!(error.code, -32602);
        assert!(error.message.contains("Current date is 29/11/2026"));
    }

    #[test]
    fn unknown_tools_and_non_object_arguments_are_protocol_errors_in_both_styles() {
        for style in [Style::Sep1303, Style::Legacy] {
            for params in [
                json!({"name": "nope", "arguments": {}}),
                json!({"name": "book_flight", "arguments": "x"}),
                json!({"arguments": {}}),
            ] {
                let Reply::Error(error) = reply(call(style, params.clone())) else {
                    panic!("{params}")
                };
                assert_eq!(error.code, -32602, "{params}");
            }
        }
    }

    #[test]
    fn business_errors_are_tool_errors_in_both_styles() {
        for style in [Style::Sep1303, Style::Legacy] {
            let params = json!({"name": "cancel_booking", "arguments": {"bookingRef": "SL-1"}});
            let Reply::Result(result) = reply(call(style, params)) else {
                panic!()
            };
            let result = result.value();
            assert_eq!(result["isError"], true);
        }
    }

    #[test]
    fn modern_requests_get_result_type_and_version_checks() {
        let meta =
            |version: &str| json!({META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: {}});
        let server = DemoServer::new(Style::Sep1303);
        let request = |params: Value| Message::Request {
            id: Id::Number(1),
            method: "tools/list".into(),
            params: Some(params),
        };
        let Handled::Send(ok) = server.handle(request(json!({"_meta": meta("2026-07-28")})), TODAY)
        else {
            panic!()
        };
        let Reply::Result(result) = reply(ok) else {
            panic!()
        };
        let result = result.value();
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["ttlMs"], 60_000);
        assert_eq!(result["_meta"][META_SERVER_INFO]["name"], NAME);
        let Handled::Send(bad) =
            server.handle(request(json!({"_meta": meta("2099-01-01")})), TODAY)
        else {
            panic!()
        };
        let Reply::Error(error) = reply(bad) else {
            panic!()
        };
        assert_eq!(error.code, -32022);
        assert_eq!(
            error.data.unwrap().value()["supported"],
            json!(["2026-07-28"])
        );
    }

    #[test]
    fn initialize_echoes_a_supported_version_or_offers_the_latest() {
        let server = DemoServer::new(Style::Legacy);
        for (asked, answered) in [("2025-06-18", "2025-06-18"), ("2026-07-28", "2025-11-25")] {
            let request = Message::Request {
                id: Id::Number(1),
                method: "initialize".into(),
                params: Some(json!({"protocolVersion": asked})),
            };
            let Handled::Send(message) = server.handle(request, TODAY) else {
                panic!()
            };
            let Reply::Result(result) = reply(message) else {
                panic!()
            };
            let result = result.value();
            assert_eq!(result["protocolVersion"], answered);
        }
    }

    #[test]
    fn slow_search_starts_with_its_progress_token_and_can_be_cancelled() {
        let server = DemoServer::new(Style::Sep1303);
        let request = Message::Request {
            id: Id::Number(4),
            method: "tools/call".into(),
            params: Some(
                json!({"name": "slow_search", "arguments": {"seconds": 2}, "_meta": {"progressToken": "p"}}),
            ),
        };
        assert_eq!(
            server.handle(request, TODAY),
            Handled::StartSlow {
                id: Id::Number(4),
                seconds: 2,
                progress_token: Some(json!("p")),
                modern: false
            }
        );
        let cancel = Message::Notification {
            method: "notifications/cancelled".into(),
            params: Some(json!({"requestId": 4, "reason": "timeout"}).into()),
        };
        assert_eq!(server.handle(cancel, TODAY), Handled::Cancel(Id::Number(4)));
    }

    #[test]
    fn garbage_gets_a_parse_error_with_a_null_id() {
        let error = jsonrpc::parse("hello").unwrap_err();
        let message = DemoServer::new(Style::Sep1303)
            .handle_invalid(&error)
            .unwrap();
        assert!(
            message
                .to_value()
                .to_string()
                .starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700"#)
        );
    }
}
