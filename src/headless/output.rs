//! What the headless commands share to say what happened: stdout written terminal-safe (`emit`,
//! one JSON document, pretty frames), the `server` and `outcome` objects, the findings section, a
//! failure said before the answer, `ARGS_JSON` read, and the exit code of an outcome class.

use std::io::{Read, Write};

use serde::Serialize;
use serde_json::{Value, json};

use super::exit;
use crate::classify::findings::{Finding, Severity};
use crate::classify::{Class, Outcome};
use crate::client::{ClientError, Connection, Stage};
use crate::mcp::era::Era;
use crate::mcp::session::{End, Exchange, Failure};
use crate::present::{self, limits::Pretty};
use crate::sanitize;

pub(super) fn exit_code(class: Class) -> u8 {
    match class {
        Class::Success => exit::SUCCESS,
        Class::ToolError => exit::TOOL_ERROR,
        Class::ProtocolError => exit::PROTOCOL_ERROR,
        Class::TransportFailure => exit::TRANSPORT_FAILURE,
    }
}

/// Parses `ARGS_JSON` (or stdin for `-`), pointing at where invalid JSON breaks.
pub(super) fn read_arguments(args: &str) -> Result<Value, String> {
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

/// A run that failed before (or instead of) its answer: the error on stderr, or the command's
/// one JSON object on stdout; the exit code of its class.
pub(super) fn report_failure<J: Serialize>(
    error: &ClientError,
    as_json: bool,
    json: impl FnOnce() -> J,
) -> u8 {
    if as_json {
        print_json(&json());
    } else {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "sightline: {}", sanitize::text(&error.to_string()));
        if let Some(Exchange {
            end: End::Failed(Failure::ServerExited { stderr_tail, .. }),
            ..
        }) = error.exchange()
        {
            let _ = write_stderr_tail(&mut stderr, stderr_tail);
        }
    }
    exit_code(error.outcome().class)
}

pub(super) fn write_stderr_tail(out: &mut dyn Write, tail: &[String]) -> std::io::Result<()> {
    if !tail.is_empty() {
        writeln!(out, "last lines of the server's stderr:")?;
        for line in tail {
            writeln!(out, "  | {}", sanitize::text(line))?;
        }
    }
    Ok(())
}

pub(super) fn server_json(connection: Option<&Connection>) -> Value {
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
pub(super) fn outcome_json(outcome: &Outcome, stage: Stage) -> Value {
    let mut value = json!({"class": outcome.class});
    if let Some(code) = outcome.code {
        value["code"] = code.into();
    }
    value["stage"] = json!(stage);
    value["detail"] = outcome.detail.as_str().into();
    value
}

/// Writes one JSON document to stdout as it is serialized, terminal-safe.
pub(super) fn print_json(value: &impl Serialize) {
    emit(|out| {
        let mut safe = sanitize::JsonWriter::new(out);
        serde_json::to_writer_pretty(&mut safe, value).map_err(std::io::Error::from)?;
        writeln!(safe)?;
        safe.flush()
    });
}

/// Writes to stdout; a closed stdout (`| head`) means the reader is gone, not an error to report.
pub(super) fn emit(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
    let stdout = std::io::stdout().lock();
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, stdout);
    let _ = write(&mut out).and_then(|()| out.flush());
}

/// Pretty JSON of a frame's text, terminal-safe; a huge frame is shown as received, clipped.
pub(super) fn pretty(raw: &str) -> String {
    match present::limits::pretty(raw) {
        Pretty::Whole(text) => text,
        Pretty::AsReceived {
            shown,
            shown_bytes,
            total,
        } => format!(
            "{shown}… ({} more bytes as received; --json prints them all)",
            total - shown_bytes
        ),
    }
}

pub(super) fn server_line(connection: Option<&Connection>, transport: &str) -> String {
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
                        sanitize::text(&present::log::short_session(id))
                    )
                })
                .unwrap_or_default();
            format!(
                "server   {} {} · {era} era · protocol {} · {transport}{session}",
                sanitize::text(&c.server.name),
                sanitize::text(&c.server.version),
                c.protocol_version
            )
        }
        None => format!("server   {transport}"),
    }
}

/// The findings section of the human outputs.
pub(super) fn write_findings(out: &mut dyn Write, findings: &[Finding]) -> std::io::Result<()> {
    if findings.is_empty() {
        return writeln!(out, "\n── findings ── none");
    }
    writeln!(out, "\n── findings ──")?;
    for finding in findings {
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
    Ok(())
}
