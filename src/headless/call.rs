//! `sightline call TOOL [ARGS_JSON]`: one `tools/call`, reported as the request, the response,
//! its class, what the model sees and the findings (text or one JSON object); the exit code of
//! its class. With several servers, `several` sends it to each, side by side. `CallReport` is
//! also how `replay --json` judges a recorded call.

use std::io::Write;

use serde_json::Value;

use super::exit;
use super::output::{
    emit, exit_code, failure_text, json_text, outcome_json, print_json, read_arguments,
};
use super::run::{StageTracker, connect, guarded, prepared, recording_ended};
use crate::analysis::{CallAnalysis, CallContext, analyze, analyze_judged};
use crate::cli::{CallArgs, OutputArgs, RecordArgs, ServerArgs};
use crate::config;
use crate::mcp::catalog::Catalog;
use crate::mcp::session::Exchange;
use crate::mcp::verdict::{Finished, Judgement};
use crate::model_view::hosts::{self, HostProfile};
use crate::present::call::{CallDocument, CallJson};
use crate::present::side_by_side::Row;
use crate::recording::Recorder;
use crate::runner::{Connection, SessionError};
use crate::sanitize;

mod several;

/// `sightline call TOOL [ARGS_JSON]`; with several servers (`--demo` or `--server` repeated),
/// the same call to each, side by side.
pub async fn call(
    server: &ServerArgs,
    record: &RecordArgs,
    call: &CallArgs,
    as_json: bool,
    output: &OutputArgs,
) -> u8 {
    let servers = server.each();
    if servers.len() > 1 {
        return several::call_each(&servers, record, call, as_json, output).await;
    }
    let recorder = match prepared(server, record, "call") {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let stage = StageTracker::default();
    let run = async {
        let (arguments, host) = match inputs(call) {
            Ok(inputs) => inputs,
            Err(code) => return code,
        };
        let call = Call {
            args: call,
            arguments,
            host: &host,
            as_json,
            verbose: output.verbose,
            streamed: true,
        };
        let said = call_tool(server, &call, &stage, recorder.as_ref()).await;
        emit(|out| out.write_all(said.out.as_bytes()));
        if !said.err.is_empty() {
            let _ = write!(std::io::stderr().lock(), "{}", said.err);
        }
        said.code
    };
    let code = guarded(run, as_json, output.deadline, &stage, stopped_json).await;
    recording_ended(recorder.as_ref());
    code
}

/// The object of a run stopped before its answer (a signal, the deadline).
fn stopped_json(outcome: Value) -> CallJson<'static> {
    CallJson {
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
    }
}

/// `ARGS_JSON` and the host profile, or the usage error said on stderr (its exit code).
fn inputs(call: &CallArgs) -> Result<(Value, HostProfile), u8> {
    read_arguments(&call.args)
        .and_then(|arguments| Ok((arguments, host_profile(call)?)))
        .map_err(|message| {
            eprintln!("sightline: {message}");
            exit::USAGE
        })
}

/// One call to send, the same to every server.
struct Call<'a> {
    args: &'a CallArgs,
    arguments: Value,
    host: &'a HostProfile,
    as_json: bool,
    verbose: bool,
    /// One server: its JSON document goes to stdout as it is serialized, never held whole (a
    /// 60 MB result escapes to three times that); side by side, each is kept to print later.
    streamed: bool,
}

/// What one server's call said, to print when the caller chooses: its exit code, its stdout
/// (the text, or the one JSON object), its stderr (a failure said as text), and its row of the
/// side-by-side comparison.
struct Said {
    code: u8,
    out: String,
    err: String,
    row: Row,
}

impl Said {
    /// A call never sent: connecting failed. Its object (`--json`) or its failure as text.
    fn failed(
        error: &SessionError,
        as_json: bool,
        stage: &StageTracker,
        show_secrets: bool,
    ) -> Self {
        let outcome = error.outcome();
        let code = exit_code(outcome.class);
        let (out, err) = if as_json {
            let json = CallJson {
                auth: stage.auth(),
                ..failed_json(error, show_secrets)
            };
            (json_text(&json), String::new())
        } else {
            (String::new(), failure_text(error))
        };
        let row = Row {
            server: None,
            class: Some(outcome.class),
            code: outcome.code,
            forwarded: None,
            findings: Vec::new(),
            exit: code,
        };
        Self {
            code,
            out,
            err,
            row,
        }
    }

    /// A call not sent to a server reached (`err` says why): a usage error.
    fn not_called(err: String, reached: Option<String>) -> Self {
        let row = Row {
            server: reached,
            class: None,
            code: None,
            forwarded: None,
            findings: Vec::new(),
            exit: exit::USAGE,
        };
        Self {
            code: exit::USAGE,
            out: String::new(),
            err,
            row,
        }
    }
}

async fn call_tool(
    server: &ServerArgs,
    call: &Call<'_>,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
) -> Said {
    let mut client = match connect(server, call.verbose, stage, recorder).await {
        Ok(client) => client,
        Err(error) => return Said::failed(&error, call.as_json, stage, server.show_secrets),
    };
    // The listing is the findings' catalog; a server without tools/list can still be called.
    let catalog = match client.list_tools().await {
        Ok(tools) => Some(tools),
        Err(error) => {
            eprintln!("sightline: note: {}", sanitize::text(&error.to_string()));
            None
        }
    };
    let tool = call.args.tool.as_str();
    let excluded = catalog
        .as_ref()
        .and_then(|tools| tools.find(tool))
        .and_then(|listed| listed.rejected)
        .filter(|_| !server.allow_invalid_tool_headers);
    if let Some(reason) = excluded {
        let err = format!(
            "sightline: '{}' is not called: its x-mcp-header declaration is invalid ({}), and \
             2026-07-28 clients MUST exclude such tools; --allow-invalid-tool-headers sends it \
             anyway, as a deliberate test\n",
            sanitize::text(tool),
            sanitize::text(&reason)
        );
        let reached = client.connection().map(present_server);
        client.shutdown().await;
        return Said::not_called(err, reached);
    }
    let Finished { exchange, judged } = client.call(tool, call.arguments.clone()).await;
    let connection = client.connection().cloned();
    let transport = client.transport().description.clone();
    let mut report = CallReport::new(
        connection.as_ref(),
        &transport,
        &exchange,
        catalog.as_deref(),
        call.host,
        call.args.forward_protocol_errors,
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
    let json = || CallJson {
        auth: stage.auth(),
        ..report.to_json(call.args.payload, server.show_secrets)
    };
    let out = match (call.as_json, call.streamed) {
        (true, true) => String::new(),
        (true, false) => json_text(&json()),
        (false, _) => report.document().text(false),
    };
    client.shutdown().await;
    if call.as_json && call.streamed {
        print_json(&json());
    }
    let analysis = &report.analysis;
    let code = exit_code(analysis.outcome.class);
    let row = Row {
        server: connection.as_ref().map(present_server),
        class: Some(analysis.outcome.class),
        code: analysis.outcome.code,
        forwarded: Some(analysis.view.forwarded),
        findings: analysis.findings.iter().map(|finding| finding.id).collect(),
        exit: code,
    };
    Said {
        code,
        out,
        err: String::new(),
        row,
    }
}

/// `NAME VERSION` of the server reached.
fn present_server(connection: &Connection) -> String {
    format!("{} {}", connection.server.name, connection.server.version)
}

/// The host profile `--host` names.
fn host_profile(call: &CallArgs) -> Result<HostProfile, String> {
    let user = config::user_host_profiles()?;
    hosts::resolve(&call.host, &user)
}

/// A call that never happened: connecting failed.
fn failed_json(error: &SessionError, show_secrets: bool) -> CallJson<'_> {
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
        catalog: Option<&Catalog>,
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
