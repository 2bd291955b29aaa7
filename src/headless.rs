//! The headless commands `tools` and `call`: drive one client session, print text or JSON,
//! and return the exit code of product.md §1.

use std::io::{Read, Write};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::classify::findings::{Context, Finding, Severity, findings};
use crate::classify::{Class, Outcome, classify};
use crate::cli::{CallArgs, ServerArgs};
use crate::client::{Client, ClientError, Connection, LogEntry, LogEvent, Role};
use crate::config;
use crate::mcp::era::Era;
use crate::mcp::messages::Tool;
use crate::mcp::session::{End, Exchange, Failure};
use crate::model_view::hosts::{self, HostProfile};
use crate::model_view::{self, ModelView, model_view};
use crate::sanitize;
use crate::transport::stdio;

/// Exit codes of the headless commands.
pub mod exit {
    pub const SUCCESS: u8 = 0;
    pub const TOOL_ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const PROTOCOL_ERROR: u8 = 3;
    pub const TRANSPORT_FAILURE: u8 = 4;
}

/// Longest frame the verbose log prints whole.
const LOG_FRAME_CHARS: usize = 4096;
/// Longest model-view text the human output prints whole.
const MODEL_TEXT_BYTES: usize = 4096;

/// `sightline tools`.
pub async fn tools(server: &ServerArgs, as_json: bool, verbose: bool) -> u8 {
    let mut client = match connect(server).await {
        Ok(client) => client,
        Err(code) => return code,
    };
    let listed = client.list_tools().await;
    finish_log(&client, verbose);
    let code = match listed {
        Ok(tools) => {
            let connection = client.connection().cloned();
            if as_json {
                let tools: Vec<&Value> = tools.iter().map(|tool| &tool.raw).collect();
                let value = json!({"server": server_json(connection.as_ref()), "tools": tools});
                print_json(&value);
            } else {
                let line = server_line(connection.as_ref(), &client.transport().description);
                emit(|out| write_tools(out, &line, &tools));
            }
            exit::SUCCESS
        }
        Err(error) => report_error(&error),
    };
    client.shutdown().await;
    code
}

/// `sightline call TOOL [ARGS_JSON]`.
pub async fn call(server: &ServerArgs, call: &CallArgs, as_json: bool, verbose: bool) -> u8 {
    let (arguments, host) =
        match read_arguments(&call.args).and_then(|a| Ok((a, host_profile(call)?))) {
            Ok(inputs) => inputs,
            Err(message) => {
                eprintln!("sightline: {message}");
                return exit::USAGE;
            }
        };
    let mut client = match connect(server).await {
        Ok(client) => client,
        Err(code) => return code,
    };
    // The listing is the findings' catalog; a server without tools/list can still be called.
    let catalog = match client.list_tools().await {
        Ok(tools) => Some(tools),
        Err(error) => {
            eprintln!("sightline: note: {error}");
            None
        }
    };
    let exchange = client.call_tool(&call.tool, arguments).await;
    finish_log(&client, verbose);
    let connection = client.connection().cloned();
    let transport = client.transport().description.clone();
    let report = CallReport::new(
        connection.as_ref(),
        &transport,
        &exchange,
        catalog.as_deref(),
        &host,
    );
    if as_json {
        print_json_text(&report.to_json_text());
    } else {
        emit(|out| report.write_text(out));
    }
    client.shutdown().await;
    exit_code(report.outcome.class)
}

/// The host profile `--host` names, with `--forward-protocol-errors` applied.
fn host_profile(call: &CallArgs) -> Result<HostProfile, String> {
    let user = config::user_host_profiles()?;
    let mut host = hosts::resolve(&call.host, &user)?;
    host.forward_protocol_errors |= call.forward_protocol_errors;
    Ok(host)
}

fn exit_code(class: Class) -> u8 {
    match class {
        Class::Success => exit::SUCCESS,
        Class::ToolError => exit::TOOL_ERROR,
        Class::ProtocolError => exit::PROTOCOL_ERROR,
        Class::TransportFailure => exit::TRANSPORT_FAILURE,
    }
}

/// Parses `ARGS_JSON` (or stdin for `-`), pointing at where invalid JSON breaks.
fn read_arguments(args: &str) -> Result<Value, String> {
    let text = if args == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| format!("could not read ARGS_JSON from stdin: {error}"))?;
        text
    } else {
        args.to_owned()
    };
    serde_json::from_str(&text).map_err(|error| {
        let line_text = text
            .lines()
            .nth(error.line().saturating_sub(1))
            .unwrap_or_default();
        let caret = " ".repeat(error.column().saturating_sub(1));
        format!(
            "ARGS_JSON is not valid JSON: {error}\n  {}\n  {caret}^",
            sanitize::text(line_text)
        )
    })
}

async fn connect(server: &ServerArgs) -> Result<Client, u8> {
    let command = match server.stdio_command() {
        Ok(command) => command,
        Err(error) => {
            eprintln!("sightline: cannot locate the demo server executable: {error}");
            return Err(exit::TRANSPORT_FAILURE);
        }
    };
    let transport = match stdio::spawn(&command, server.max_frame_bytes) {
        Ok(transport) => transport,
        Err(error) => {
            eprintln!("sightline: {error}");
            return Err(exit::TRANSPORT_FAILURE);
        }
    };
    let mut client = Client::new(transport, server.client_options());
    match client.negotiate().await {
        Ok(_) => Ok(client),
        Err(error) => {
            print_log(client.log());
            let code = report_error(&error);
            client.shutdown().await;
            Err(code)
        }
    }
}

fn report_error(error: &ClientError) -> u8 {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "sightline: {}", sanitize::text(&error.to_string()));
    if let ClientError::Exchange(exchange) = error
        && let End::Failed(Failure::ServerExited { stderr_tail, .. }) = &exchange.end
    {
        let _ = write_stderr_tail(&mut stderr, stderr_tail);
    }
    error.exit_code()
}

fn write_stderr_tail(out: &mut dyn Write, tail: &[String]) -> std::io::Result<()> {
    if !tail.is_empty() {
        writeln!(out, "last lines of the server's stderr:")?;
        for line in tail {
            writeln!(out, "  | {}", sanitize::text(line))?;
        }
    }
    Ok(())
}

fn finish_log(client: &Client, verbose: bool) {
    if verbose {
        print_log(client.log());
    }
}

/// The session log on stderr, one line per entry.
fn print_log(log: &[LogEntry]) {
    let mut stderr = std::io::stderr().lock();
    for entry in log {
        // A closed stderr leaves nowhere to report to.
        let _ = writeln!(stderr, "{} {}", entry.at, describe(&entry.event));
    }
}

fn describe(event: &LogEvent) -> String {
    match event {
        LogEvent::Sent(frame) => format!("→ {}", clip(&frame.raw)),
        LogEvent::Received { frame, role } => {
            let role = match role {
                Role::Reply { .. } | Role::ServerRequest | Role::Notification => String::new(),
                Role::Late { method } => format!("(late reply to {method}) "),
                Role::Duplicate { method } => format!("(duplicate reply to {method}) "),
                Role::UnknownId => "(reply to an id never sent) ".into(),
                Role::Unaddressed => "(error without id) ".into(),
            };
            format!("← {role}{}", clip(&frame.raw))
        }
        LogEvent::Invalid(invalid) => format!("✗ {}: {}", invalid.error, clip(&invalid.raw)),
        LogEvent::Stderr(line) => format!("  stderr | {}", sanitize::text(line)),
        LogEvent::TimedOut {
            id,
            method,
            after_ms,
        } => {
            format!("⏱ {method} (id {id}) timed out after {after_ms} ms (sightline's own timeout)")
        }
        LogEvent::WriteFailed(reason) => format!("✗ write failed: {reason}"),
        LogEvent::Closed { status } => format!("■ server output closed ({status})"),
        LogEvent::Note(text) => format!("• {text}"),
    }
}

fn clip(raw: &str) -> String {
    let safe = sanitize::text(raw);
    match safe.char_indices().nth(LOG_FRAME_CHARS) {
        Some((cut, _)) => format!("{}… ({} bytes in all)", &safe[..cut], raw.len()),
        None => safe.into_owned(),
    }
}

fn server_json(connection: Option<&Connection>) -> Value {
    match connection {
        Some(c) => json!({
            "name": c.server.name,
            "version": c.server.version,
            "era": c.era,
            "protocol_version": c.protocol_version,
        }),
        None => Value::Null,
    }
}

fn raw_json(raw: &str) -> Value {
    // The text was parsed when it arrived; parsing again keeps member order.
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

fn print_json(value: &Value) {
    let text = serde_json::to_string_pretty(value)
        .unwrap_or_else(|error| format!("{{\"error\":\"{error}\"}}"));
    print_json_text(&text);
}

fn print_json_text(text: &str) {
    emit(|out| writeln!(out, "{}", sanitize::json(text)));
}

/// Writes to stdout; a closed stdout (`| head`) means the reader is gone, not an error to report.
fn emit(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
    let mut stdout = std::io::stdout().lock();
    let _ = write(&mut stdout).and_then(|()| stdout.flush());
}

fn pretty(raw: &str) -> String {
    let text = serde_json::to_string_pretty(&raw_json(raw)).unwrap_or_else(|_| raw.to_owned());
    sanitize::json(&text).into_owned()
}

fn server_line(connection: Option<&Connection>, transport: &str) -> String {
    let transport = sanitize::text(transport).into_owned();
    match connection {
        Some(c) => {
            let era = match c.era {
                Era::Legacy => "legacy",
                Era::Modern => "modern",
            };
            format!(
                "server   {} {} · {era} era · protocol {} · {transport}",
                sanitize::text(&c.server.name),
                sanitize::text(&c.server.version),
                c.protocol_version
            )
        }
        None => format!("server   {transport}"),
    }
}

/// The human `tools` output.
pub fn write_tools(out: &mut dyn Write, server_line: &str, tools: &[Tool]) -> std::io::Result<()> {
    let plural = if tools.len() == 1 { "" } else { "s" };
    writeln!(out, "{server_line}\n\n{} tool{plural}", tools.len())?;
    for tool in tools {
        write!(out, "\n{}", sanitize::text(&tool.name))?;
        if tool.display_name() != tool.name {
            write!(out, " — {}", sanitize::text(tool.display_name()))?;
        }
        writeln!(out)?;
        if let Some(description) = tool.description() {
            writeln!(out, "  {}", sanitize::text(description))?;
        }
        if let Some(schema) = tool.input_schema() {
            for line in pretty(&schema.to_string()).lines() {
                writeln!(out, "  {line}")?;
            }
        }
    }
    Ok(())
}

/// The shape of `call --json`.
#[derive(serde::Serialize)]
struct CallJson<'a> {
    server: Value,
    request: Option<&'a RawValue>,
    response: Option<&'a RawValue>,
    outcome: Value,
    findings: &'a [Finding],
    model_view: Value,
}

/// Everything `call` reports about one exchange.
pub struct CallReport<'a> {
    pub connection: Option<&'a Connection>,
    pub transport: &'a str,
    pub exchange: &'a Exchange,
    pub outcome: Outcome,
    pub findings: Vec<Finding>,
    pub view: ModelView,
}

impl<'a> CallReport<'a> {
    /// Classifies the exchange, looks for findings and builds the model view.
    pub fn new(
        connection: Option<&'a Connection>,
        transport: &'a str,
        exchange: &'a Exchange,
        catalog: Option<&[Tool]>,
        host: &HostProfile,
    ) -> Self {
        let outcome = classify(exchange);
        let version = connection.map_or("unknown", |c| c.protocol_version.as_str());
        let context = Context {
            exchange,
            outcome: &outcome,
            version,
            catalog,
        };
        let findings = findings(&context);
        let view = model_view(exchange, &outcome, version, host);
        Self {
            connection,
            transport,
            exchange,
            outcome,
            findings,
            view,
        }
    }

    /// The object of product.md §1 as pretty JSON; `request` and `response` are embedded as the
    /// bytes from the wire (borrowed, not re-parsed or copied).
    pub fn to_json_text(&self) -> String {
        let raw = |text: &'a str| serde_json::from_str::<&RawValue>(text).ok();
        let object = CallJson {
            server: server_json(self.connection),
            request: raw(&self.exchange.request.raw),
            response: self.exchange.response().and_then(|frame| raw(&frame.raw)),
            outcome: self.outcome.to_json(),
            findings: &self.findings,
            model_view: self.view.to_json(),
        };
        serde_json::to_string_pretty(&object)
            .unwrap_or_else(|error| format!("{{\"error\":\"{error}\"}}"))
    }

    /// The human output: request, response, the class in words, what the model sees, findings.
    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let exchange = self.exchange;
        let server = server_line(self.connection, self.transport);
        writeln!(
            out,
            "{server}\n\n→ request\n{}\n",
            pretty(&exchange.request.raw)
        )?;
        let elapsed = exchange.ended_at.since(exchange.sent_at);
        match exchange.response() {
            Some(frame) => writeln!(out, "← response ({elapsed} ms)\n{}\n", pretty(&frame.raw))?,
            None => writeln!(out, "← no response ({elapsed} ms)\n")?,
        }
        let outcome = &self.outcome;
        writeln!(
            out,
            "outcome  {}: {}",
            outcome.class.label(),
            sanitize::text(&outcome.detail)
        )?;
        if let End::Failed(Failure::ServerExited { stderr_tail, .. }) = &exchange.end {
            write_stderr_tail(out, stderr_tail)?;
        }
        let view = &self.view;
        writeln!(
            out,
            "\n── what the model sees ── host '{}' · {}",
            sanitize::text(&view.host),
            view.verdict()
        )?;
        let marker = match (view.forwarded, view.is_error) {
            (true, true) => "[error] ",
            (false, _) => "[from the host, not the server] ",
            (true, false) => "",
        };
        let text = view.text();
        let shown = model_view::clip(&text, MODEL_TEXT_BYTES);
        write!(out, "{marker}{}", sanitize::text_keeping_newlines(shown))?;
        if shown.len() < text.len() {
            write!(out, "… ({} more bytes)", text.len() - shown.len())?;
        }
        writeln!(out, "\n  why: {}", sanitize::text(&view.reason))?;
        if self.findings.is_empty() {
            writeln!(out, "\n── findings ── none")?;
        } else {
            writeln!(out, "\n── findings ──")?;
            for finding in &self.findings {
                let severity = match finding.severity {
                    Severity::Info => "info   ",
                    Severity::Warning => "warning",
                };
                writeln!(
                    out,
                    "{severity}  {}\n         {}",
                    finding.id,
                    sanitize::text(&finding.message)
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::fixtures::{call, catalog};
    use crate::mcp::messages::ServerInfo;

    fn report_text(exchange: &Exchange, host: &HostProfile) -> String {
        let connection = Connection {
            era: Era::Legacy,
            protocol_version: "2025-11-25".into(),
            server: ServerInfo {
                name: "demo".into(),
                version: "1.0".into(),
            },
            capabilities: Value::Null,
        };
        let tools = catalog(&["book_flight", "get_flight_status"]);
        let report = CallReport::new(
            Some(&connection),
            "stdio: demo",
            exchange,
            Some(&tools),
            host,
        );
        let mut out = Vec::new();
        report.write_text(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn spec() -> HostProfile {
        hosts::resolve("spec", &[]).unwrap()
    }

    const PAST: &str = "Invalid departure date: must be in the future. Current date is 29/11/2026.";

    #[test]
    fn human_call_output_for_each_class() {
        let past = json!({"departureDate": "12/12/2024"});
        let mut may = spec();
        may.forward_protocol_errors = true;
        let structured = json!({"flightNumber": "LH123", "status": "boarding"});
        let cases = [
            ("success_structured", call("get_flight_status", json!({"flightNumber": "LH123"})).result(json!({"content": [{"type": "text", "text": structured.to_string()}], "structuredContent": structured})), spec()),
            ("tool_error", call("book_flight", past.clone()).tool_error(PAST), spec()),
            ("protocol_error", call("book_flight", past.clone()).error(-32602, PAST), spec()),
            ("protocol_error_may_on", call("book_flight", past.clone()).error(-32602, PAST), may),
            ("transport_failure_timeout", call("book_flight", past.clone()).timeout(), spec()),
            ("transport_failure_exited", call("book_flight", past).exited(), spec()),
        ];
        for (name, exchange, host) in cases {
            insta::assert_snapshot!(name, report_text(&exchange, &host));
        }
    }

    #[test]
    fn long_model_text_is_clipped_on_a_character_boundary() {
        let text = "é".repeat(MODEL_TEXT_BYTES);
        let output = report_text(&call("book_flight", json!({})).text(&text), &spec());
        let shown = format!(
            "{}… ({} more bytes)",
            "é".repeat(MODEL_TEXT_BYTES / 2),
            MODEL_TEXT_BYTES
        );
        assert!(output.contains(&shown));
    }

    #[test]
    fn invalid_args_json_points_at_the_break() {
        let error = read_arguments(r#"{"departureDate" "12/12/2024"}"#).unwrap_err();
        assert!(error.contains("line 1 column 18"), "{error}");
        let caret_line = error.lines().last().unwrap();
        assert_eq!(caret_line.find('^'), Some(2 + 17));
    }

    #[test]
    fn args_json_is_kept_exactly_even_when_not_an_object() {
        assert_eq!(read_arguments(r#""oops""#).unwrap(), json!("oops"));
        assert_eq!(read_arguments("[1,2]").unwrap(), json!([1, 2]));
        let ordered = read_arguments(r#"{"b":1,"a":2}"#).unwrap();
        assert_eq!(ordered.to_string(), r#"{"b":1,"a":2}"#);
    }
}
