//! `sightline lint`: the server's tool definitions linted (every page of `tools/list`), as text
//! or one JSON object; exit 6 when a host may refuse or mishandle a definition, as the official
//! Inspector's `--strict` exits.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use super::exit;
use super::output::{emit, outcome_json, print_json, report_failure, server_json, server_line};
use super::run::{StageTracker, connect, guarded, prepared, recording_ended};
use crate::cli::{LintArgs, OutputArgs, RecordArgs, ServerArgs};
use crate::lint::{Definition, Finding, HostCheck, Rule, lint as lint_tools};
use crate::mcp::catalog::Catalog;
use crate::sanitize;

/// The exit code when a finding is an error or a warning (the official Inspector's `--strict`).
pub const FINDINGS: u8 = 6;

/// `sightline lint`.
pub async fn lint(
    server: &ServerArgs,
    record: &RecordArgs,
    args: &LintArgs,
    output: &OutputArgs,
) -> u8 {
    let as_json = args.json;
    let recorder = match prepared(server, record, "lint") {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let stage = StageTracker::default();
    let run = async {
        let mut client = match connect(server, output.verbose, &stage, recorder.as_ref()).await {
            Ok(client) => client,
            Err(error) => {
                return report_failure(&error, as_json, || {
                    LintJson::failed(outcome_json(&error.outcome(), error.stage()))
                });
            }
        };
        let listed = client.list_tools().await;
        let connection = client.connection().cloned();
        let transport = client.transport().description.clone();
        let code = match &listed {
            Ok(tools) => {
                let findings = linted(tools);
                if let Some(file) = &args.sarif {
                    let location = args
                        .sarif_location
                        .clone()
                        .or_else(|| super::audit::sarif_location(server));
                    let log = crate::lint::sarif(&findings, location.as_deref());
                    let text = serde_json::to_string_pretty(&log).unwrap_or_default();
                    if let Err(error) = std::fs::write(file, text) {
                        eprintln!("sightline lint: --sarif {file}: {error}");
                        client.shutdown().await;
                        return exit::USAGE;
                    }
                }
                if as_json {
                    print_json(&LintJson {
                        server: server_json(connection.as_ref()),
                        tools: Some(tools.len()),
                        findings: findings.clone(),
                        summary: Some(summary(&findings)),
                        outcome: None,
                    });
                } else {
                    let line = server_line(connection.as_ref(), &transport);
                    emit(|out| write_lint(out, &line, tools.len(), &findings));
                }
                code_of(&findings)
            }
            Err(error) => report_failure(error, as_json, || {
                LintJson::failed(outcome_json(&error.outcome(), error.stage()))
            }),
        };
        client.shutdown().await;
        code
    };
    let code = guarded(run, as_json, output.deadline, &stage, |outcome| LintJson {
        server: Value::Null,
        tools: None,
        findings: Vec::new(),
        summary: None,
        outcome: Some(outcome),
    })
    .await;
    recording_ended(recorder.as_ref());
    code
}

/// Every listed tool's findings.
fn linted(tools: &Catalog) -> Vec<Finding> {
    let listed: Vec<_> = tools.iter().collect();
    let schemas: Vec<(Option<Value>, Option<Value>)> = listed
        .iter()
        .map(|tool| {
            (
                tool.input_schema(),
                tool.raw.get("outputSchema").map(|schema| schema.value()),
            )
        })
        .collect();
    let descriptions: Vec<Option<String>> = listed
        .iter()
        .map(|tool| tool.description().map(std::borrow::Cow::into_owned))
        .collect();
    let definitions: Vec<Definition> = listed
        .iter()
        .zip(&schemas)
        .zip(&descriptions)
        .map(|((tool, (input, output)), description)| Definition {
            name: &tool.name,
            description: description.as_deref(),
            input_schema: input.as_ref(),
            output_schema: output.as_ref(),
        })
        .collect();
    let mut findings = lint_tools(&definitions);
    findings.extend(crate::lint::host_checks(&definitions, &host_checks()));
    // Each tool's findings together, the tools in the order listed.
    findings.sort_by_key(|finding| listed.iter().position(|tool| tool.name == finding.tool));
    findings
}

/// What each calibrated host checks of the arguments before it calls the server (its
/// profile's `checks`), and what its model reads when it refuses them.
fn host_checks() -> Vec<HostCheck> {
    use crate::model_view::hosts::ArgumentCheck;
    crate::model_view::hosts::captured()
        .iter()
        .filter_map(|profile| {
            let checks = profile.checks.as_ref()?;
            let host = profile.name.clone();
            let words = checks.invalid_arguments_text.clone();
            match checks.arguments {
                ArgumentCheck::Schema => Some(HostCheck::Schema { host, words }),
                ArgumentCheck::Required => Some(HostCheck::Required { host, words }),
                ArgumentCheck::None => None,
            }
        })
        .collect()
}

/// 6 when a finding is an error or a warning; notes alone leave it 0.
fn code_of(findings: &[Finding]) -> u8 {
    if findings.iter().any(|finding| finding.severity != "note") {
        FINDINGS
    } else {
        exit::SUCCESS
    }
}

/// How many findings each rule has, every rule named.
fn summary(findings: &[Finding]) -> serde_json::Map<String, Value> {
    Rule::ALL
        .iter()
        .map(|rule| {
            let count = findings
                .iter()
                .filter(|finding| finding.rule == *rule)
                .count();
            (rule.id().to_owned(), Value::from(count))
        })
        .collect()
}

/// The shape of `lint --json`.
#[derive(Serialize)]
struct LintJson {
    server: Value,
    /// How many tools were linted.
    tools: Option<usize>,
    findings: Vec<Finding>,
    /// Per rule id, how many findings.
    summary: Option<serde_json::Map<String, Value>>,
    /// Why nothing was linted (the server failed before its listing).
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<Value>,
}

impl LintJson {
    fn failed(outcome: Value) -> Self {
        Self {
            server: Value::Null,
            tools: None,
            findings: Vec::new(),
            summary: None,
            outcome: Some(outcome),
        }
    }
}

/// The human `lint` output: a line per finding under its tool, then the count per severity.
fn write_lint(
    out: &mut dyn Write,
    server_line: &str,
    tools: usize,
    findings: &[Finding],
) -> std::io::Result<()> {
    let plural = if tools == 1 { "" } else { "s" };
    writeln!(out, "{server_line}\n\n{tools} tool{plural} linted")?;
    let mut tool = None;
    for finding in findings {
        if tool != Some(&finding.tool) {
            writeln!(out, "\n{}", sanitize::text(&finding.tool))?;
            tool = Some(&finding.tool);
        }
        writeln!(
            out,
            "  {:<7}  {:<25}  {}\n           {}",
            finding.severity,
            finding.rule.id(),
            sanitize::text(&finding.path),
            sanitize::text(&finding.message)
        )?;
    }
    let count = |severity: &str| {
        findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    };
    let counted = |severity: &str, one: &str, many: &str| {
        let n = count(severity);
        format!("{n} {}", if n == 1 { one } else { many })
    };
    writeln!(
        out,
        "\n{}, {}, {}",
        counted("error", "error", "errors"),
        counted("warning", "warning", "warnings"),
        counted("note", "note", "notes")
    )
}
