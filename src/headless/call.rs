//! `sightline call TOOL [ARGS_JSON]`: one `tools/call`, reported as the request, the response,
//! its class, what the model sees and the findings (text or one JSON object); the exit code of
//! its class. `CallReport` is also how `replay --json` judges a recorded call.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::exit;
use super::output::{
    emit, exit_code, outcome_json, pretty, print_json, read_arguments, report_failure, server_json,
    server_line, write_findings, write_stderr_tail,
};
use super::run::{StageTracker, connect, guarded, prepared, recording_ended};
use crate::analysis::{CallAnalysis, CallContext, analyze, analyze_judged};
use crate::classify::findings::Finding;
use crate::cli::{CallArgs, OutputArgs, RecordArgs, ServerArgs};
use crate::client::{ClientError, Connection, Stage};
use crate::config;
use crate::mcp::input::Round;
use crate::mcp::messages::Tool;
use crate::mcp::session::{End, Exchange, Failure};
use crate::mcp::verdict::{Finished, Judgement};
use crate::model_view::ModelViewJson;
use crate::model_view::hosts::{self, HostProfile};
use crate::present;
use crate::recording::Recorder;
use crate::sanitize;

/// `sightline call TOOL [ARGS_JSON]`.
pub async fn call(
    server: &ServerArgs,
    record: &RecordArgs,
    call: &CallArgs,
    as_json: bool,
    output: &OutputArgs,
) -> u8 {
    let recorder = match prepared(server, record, "call") {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let stage = StageTracker::default();
    let run = call_tool(
        server,
        call,
        as_json,
        output.verbose,
        &stage,
        recorder.as_ref(),
    );
    let stopped = |outcome| CallJson {
        server: Value::Null,
        request: None,
        response: None,
        outcome,
        findings: &[],
        model_view: None,
        rounds: Vec::new(),
        http: None,
        auth: Vec::new(),
    };
    let code = guarded(run, as_json, output.deadline, &stage, stopped).await;
    recording_ended(recorder.as_ref());
    code
}

async fn call_tool(
    server: &ServerArgs,
    call: &CallArgs,
    as_json: bool,
    verbose: bool,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
) -> u8 {
    let (arguments, host) =
        match read_arguments(&call.args).and_then(|a| Ok((a, host_profile(call)?))) {
            Ok(inputs) => inputs,
            Err(message) => {
                eprintln!("sightline: {message}");
                return exit::USAGE;
            }
        };
    let mut client = match connect(server, verbose, stage, recorder).await {
        Ok(client) => client,
        Err(error) => {
            return report_failure(&error, as_json, || CallJson {
                auth: stage.auth(),
                ..CallJson::failed(&error, server.show_secrets)
            });
        }
    };
    // The listing is the findings' catalog; a server without tools/list can still be called.
    let catalog = match client.list_tools().await {
        Ok(tools) => Some(tools),
        Err(error) => {
            eprintln!("sightline: note: {}", sanitize::text(&error.to_string()));
            None
        }
    };
    let excluded = catalog
        .as_ref()
        .and_then(|tools| tools.iter().find(|tool| tool.name == call.tool.as_str()))
        .and_then(|tool| tool.rejected.as_deref())
        .filter(|_| !server.allow_invalid_tool_headers);
    if let Some(reason) = excluded {
        eprintln!(
            "sightline: '{}' is not called: its x-mcp-header declaration is invalid ({}), and \
             2026-07-28 clients MUST exclude such tools; --allow-invalid-tool-headers sends it \
             anyway, as a deliberate test",
            sanitize::text(&call.tool),
            sanitize::text(reason)
        );
        client.shutdown().await;
        return exit::USAGE;
    }
    let Finished { exchange, judged } = client.call(&call.tool, arguments).await;
    let connection = client.connection().cloned();
    let transport = client.transport().description.clone();
    let report = CallReport::new(
        connection.as_ref(),
        &transport,
        &exchange,
        catalog.as_ref().map(|tools| tools.as_slice()),
        &host,
        call.forward_protocol_errors,
        judged,
    );
    if as_json {
        print_json(&CallJson {
            auth: stage.auth(),
            ..report.to_json(call.payload, server.show_secrets)
        });
    } else {
        emit(|out| report.write_text(out));
    }
    client.shutdown().await;
    exit_code(report.analysis.outcome.class)
}

/// The host profile `--host` names.
fn host_profile(call: &CallArgs) -> Result<HostProfile, String> {
    let user = config::user_host_profiles()?;
    hosts::resolve(&call.host, &user)
}

/// The shape of `call --json`: the request and response embedded as the bytes from the wire.
#[derive(Serialize)]
pub(super) struct CallJson<'a> {
    server: Value,
    request: Option<&'a RawValue>,
    response: Option<&'a RawValue>,
    outcome: Value,
    findings: &'a [Finding],
    model_view: Option<ModelViewJson<'a, 'a>>,
    /// What the server asked of the client during the call, and the answers given.
    rounds: Vec<Value>,
    /// The HTTP exchange that carried the call (Streamable HTTP), secrets masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    http: Option<Value>,
    /// The steps of an OAuth flow the run went through (HTTP requests, where the flow stood,
    /// what the server got wrong), in order; no tokens.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    auth: Vec<Value>,
}

/// A frame's text as a JSON value, borrowed (checked, not parsed into a tree or copied).
fn wire(text: &str) -> Option<&RawValue> {
    serde_json::from_str::<&RawValue>(text).ok()
}

impl<'a> CallJson<'a> {
    /// A call that never happened: connecting failed.
    fn failed(error: &'a ClientError, show_secrets: bool) -> Self {
        let exchange = error.exchange();
        Self {
            server: Value::Null,
            request: exchange.and_then(|e| wire(&e.request.raw)),
            response: exchange
                .and_then(Exchange::response)
                .and_then(|frame| wire(&frame.raw)),
            outcome: outcome_json(&error.outcome(), error.stage()),
            findings: &[],
            model_view: None,
            rounds: Vec::new(),
            http: exchange
                .and_then(|e| e.http.as_ref())
                .map(|http| http.to_json(show_secrets)),
            auth: Vec::new(),
        }
    }
}

/// Everything `call` reports about one exchange.
pub struct CallReport<'a> {
    pub connection: Option<&'a Connection>,
    pub transport: &'a str,
    pub exchange: &'a Exchange,
    pub analysis: CallAnalysis<'a>,
}

impl<'a> CallReport<'a> {
    /// Analyses the exchange (class, findings, what the model sees); a call the session judged
    /// already (`judged`) only gets its view built.
    pub fn new(
        connection: Option<&'a Connection>,
        transport: &'a str,
        exchange: &'a Exchange,
        catalog: Option<&[Tool]>,
        host: &HostProfile,
        forward_protocol_errors: bool,
        judged: Option<Judgement>,
    ) -> Self {
        let version = connection.map_or("unknown", |c| c.protocol_version.as_str());
        let context = CallContext {
            version,
            catalog,
            host,
            forward_protocol_errors,
        };
        Self {
            connection,
            transport,
            exchange,
            analysis: match judged {
                Some(judgement) => analyze_judged(exchange, judgement, &context),
                None => analyze(exchange, &context),
            },
        }
    }

    /// The object of product.md §1. The result text appears twice at most: in the response
    /// (the wire bytes) and in the model's view; `payload` repeats it once more, on request.
    pub(super) fn to_json(&self, with_payload: bool, show_secrets: bool) -> CallJson<'_> {
        CallJson {
            server: server_json(self.connection),
            request: wire(&self.exchange.request.raw),
            response: self.exchange.response().and_then(|frame| wire(&frame.raw)),
            outcome: outcome_json(&self.analysis.outcome, Stage::Call),
            findings: &self.analysis.findings,
            model_view: Some(self.analysis.view.to_json(with_payload)),
            rounds: self.exchange.rounds.iter().map(Round::to_json).collect(),
            http: self
                .exchange
                .http
                .as_ref()
                .map(|http| http.to_json(show_secrets)),
            auth: Vec::new(),
        }
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
        if let Some(http) = &exchange.http {
            writeln!(out, "⇄ HTTP {}\n", sanitize::text(&http.summary()))?;
        }
        if !exchange.rounds.is_empty() {
            writeln!(out, "── the server asked ──")?;
            for round in &exchange.rounds {
                let line = round.describe();
                writeln!(out, "  {}", sanitize::text(&line))?;
            }
            writeln!(out)?;
        }
        let outcome = &self.analysis.outcome;
        writeln!(
            out,
            "outcome  {}: {}",
            outcome.class.label(),
            sanitize::text(&outcome.detail)
        )?;
        if let End::Failed(Failure::ServerExited { stderr_tail, .. }) = &exchange.end {
            write_stderr_tail(out, stderr_tail)?;
        }
        let view = &self.analysis.view;
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
        let (shown, omitted) = view.text_within(present::limits::MODEL_TEXT_BYTES);
        write!(out, "{marker}{}", sanitize::text_keeping_newlines(&shown))?;
        if omitted > 0 {
            write!(out, "… ({omitted} more bytes)")?;
        }
        writeln!(out, "\n  why: {}", sanitize::text(&view.reason))?;
        for note in &view.notes {
            writeln!(out, "  host: {}", sanitize::text(note))?;
        }
        write_findings(out, &self.analysis.findings)
    }
}
