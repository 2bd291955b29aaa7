//! `sightline call TOOL [ARGS_JSON]`: one `tools/call`, reported as the request, the response,
//! its class, what the model sees and the findings (text or one JSON object); the exit code of
//! its class. `CallReport` is also how `replay --json` judges a recorded call.

use std::io::Write;

use serde_json::Value;

use super::exit;
use super::output::{emit, exit_code, outcome_json, print_json, read_arguments, report_failure};
use super::run::{StageTracker, connect, guarded, prepared, recording_ended};
use crate::analysis::{CallAnalysis, CallContext, analyze, analyze_judged};
use crate::cli::{CallArgs, OutputArgs, RecordArgs, ServerArgs};
use crate::client::{ClientError, Connection};
use crate::config;
use crate::mcp::messages::Tool;
use crate::mcp::session::Exchange;
use crate::mcp::verdict::{Finished, Judgement};
use crate::model_view::hosts::{self, HostProfile};
use crate::present::call::{CallDocument, CallJson};
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
        task: None,
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
                ..failed_json(&error, server.show_secrets)
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
    let mut report = CallReport::new(
        connection.as_ref(),
        &transport,
        &exchange,
        catalog.as_ref().map(|tools| tools.as_slice()),
        &host,
        call.forward_protocol_errors,
        judged,
    );
    // About the server, not the call: shown with the call's findings.
    let version = connection
        .as_ref()
        .map_or("unknown", |c| c.protocol_version.as_str());
    let stdio = !client.transport().is_http();
    report
        .analysis
        .findings
        .extend(stage.stdout_finding(version, stdio));
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

/// A call that never happened: connecting failed.
fn failed_json(error: &ClientError, show_secrets: bool) -> CallJson<'_> {
    let exchange = error.exchange();
    CallJson {
        server: Value::Null,
        request: exchange.and_then(|e| serde_json::from_str(&e.request.raw).ok()),
        response: exchange
            .and_then(Exchange::response)
            .and_then(|frame| serde_json::from_str(&frame.raw).ok()),
        outcome: outcome_json(&error.outcome(), error.stage()),
        findings: &[],
        model_view: None,
        rounds: Vec::new(),
        http: exchange
            .and_then(|e| e.http.as_ref())
            .map(|http| http.to_json(show_secrets)),
        task: None,
        auth: Vec::new(),
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

    /// The call as one document: what the text and the JSON say.
    pub fn document(&self) -> CallDocument<'_> {
        CallDocument {
            exchange: self.exchange,
            outcome: &self.analysis.outcome,
            findings: &self.analysis.findings,
            view: Some(&self.analysis.view),
            connection: self.connection,
            transport: self.transport,
        }
    }

    /// The object of product.md §1. The result text appears twice at most: in the response
    /// (the wire bytes) and in the model's view; `payload` repeats it once more, on request.
    pub(super) fn to_json(&self, with_payload: bool, show_secrets: bool) -> CallJson<'_> {
        self.document().json(with_payload, show_secrets)
    }

    /// The human output: the document's every section.
    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        write!(out, "{}", self.document().text(false))
    }
}
