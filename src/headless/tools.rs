//! `sightline tools`: the server's tool listing, as text or one JSON object, with
//! `--check-headers` what the header-validation check found.

use std::io::Write;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use super::exit;
use super::output::{
    emit, outcome_json, pretty, print_json, report_failure, server_json, server_line,
    write_findings,
};
use super::run::{StageTracker, connect, guarded, prepared, recording_ended};
use crate::classify::findings::Finding;
use crate::classify::{Class, Outcome};
use crate::cli::{OutputArgs, RecordArgs, ServerArgs};
use crate::mcp::catalog::Catalog;
use crate::recording::Recorder;
use crate::runner::{Connection, SessionError, Stage};
use crate::sanitize;

/// `sightline tools`.
pub async fn tools(
    server: &ServerArgs,
    record: &RecordArgs,
    as_json: bool,
    check_headers: bool,
    output: &OutputArgs,
) -> u8 {
    let recorder = match prepared(server, record, "tools") {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let stage = StageTracker::default();
    let run = list(
        server,
        as_json,
        check_headers,
        output.verbose,
        &stage,
        recorder.as_ref(),
    );
    let stopped = |outcome| ToolsJson {
        server: Value::Null,
        tools: None,
        rejected: Vec::new(),
        findings: Vec::new(),
        outcome,
    };
    let code = guarded(run, as_json, output.deadline, &stage, stopped).await;
    recording_ended(recorder.as_ref());
    code
}

async fn list(
    server: &ServerArgs,
    as_json: bool,
    check_headers: bool,
    verbose: bool,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
) -> u8 {
    let mut client = match connect(server, verbose, stage, recorder).await {
        Ok(client) => client,
        Err(error) => return report_failure(&error, as_json, || ToolsJson::failed(&error, None)),
    };
    let listed = client.list_tools().await;
    let findings: Vec<Finding> = match (&listed, check_headers) {
        (Ok(_), true) => client.check_header_validation().await.into_iter().collect(),
        _ => Vec::new(),
    };
    let connection = client.connection().cloned();
    let transport = client.transport().description.clone();
    let code = match &listed {
        Ok(tools) => {
            if as_json {
                let mut listing = ToolsJson::listed(connection.as_ref(), tools);
                listing.findings = findings;
                print_json(&listing);
            } else {
                let line = server_line(connection.as_ref(), &transport);
                emit(|out| {
                    write_tools(out, &line, tools)?;
                    if check_headers {
                        write_findings(out, &findings)?;
                    }
                    Ok(())
                });
            }
            exit::SUCCESS
        }
        Err(error) => report_failure(error, as_json, || {
            ToolsJson::failed(error, connection.as_ref())
        }),
    };
    client.shutdown().await;
    code
}

/// The listed tools as received, written one by one as the listing is walked.
struct EachTool<'a>(&'a Catalog);

impl Serialize for EachTool<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for tool in self.0 {
            seq.serialize_element(&tool.raw)?;
        }
        seq.end()
    }
}

/// The shape of `tools --json`.
#[derive(Serialize)]
struct ToolsJson<'a> {
    server: Value,
    tools: Option<EachTool<'a>>,
    /// Tools a conforming 2026-07-28 HTTP client drops, and why (listed above as received).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    rejected: Vec<Value>,
    /// With `--check-headers`: what the check found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    findings: Vec<Finding>,
    outcome: Value,
}

impl<'a> ToolsJson<'a> {
    fn listed(connection: Option<&Connection>, tools: &'a Arc<Catalog>) -> Self {
        let plural = if tools.len() == 1 { "" } else { "s" };
        let outcome = Outcome {
            class: Class::Success,
            code: None,
            detail: format!("{} tool{plural}", tools.len()),
        };
        Self {
            server: server_json(connection),
            tools: Some(EachTool(tools)),
            rejected: tools
                .iter()
                .filter_map(|tool| {
                    let reason = tool.rejected.as_deref()?;
                    Some(json!({"name": tool.name.as_str(), "reason": reason}))
                })
                .collect(),
            findings: Vec::new(),
            outcome: outcome_json(&outcome, Stage::List),
        }
    }

    fn failed(error: &SessionError, connection: Option<&Connection>) -> Self {
        Self {
            server: server_json(connection),
            tools: None,
            rejected: Vec::new(),
            findings: Vec::new(),
            outcome: outcome_json(&error.outcome(), error.stage()),
        }
    }
}

/// The human `tools` output.
pub fn write_tools(out: &mut dyn Write, server_line: &str, tools: &Catalog) -> std::io::Result<()> {
    let plural = if tools.len() == 1 { "" } else { "s" };
    writeln!(out, "{server_line}\n\n{} tool{plural}", tools.len())?;
    for tool in tools {
        write!(out, "\n{}", sanitize::text(&tool.name))?;
        if tool.display_name() != tool.name {
            write!(out, " — {}", sanitize::text(&tool.display_name()))?;
        }
        writeln!(out)?;
        if let Some(reason) = &tool.rejected {
            writeln!(
                out,
                "  ✗ rejected: conforming HTTP clients drop it ({})",
                sanitize::text(reason)
            )?;
        }
        if let Some(description) = tool.description() {
            writeln!(out, "  {}", sanitize::text(&description))?;
        }
        if let Some(schema) = tool.input_schema() {
            for line in pretty(&schema.to_string()).lines() {
                writeln!(out, "  {line}")?;
            }
        }
    }
    Ok(())
}
