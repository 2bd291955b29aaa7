//! What the headless commands share to say what happened: stdout written terminal-safe (`emit`,
//! one JSON document, pretty frames), the `server` and `outcome` objects, the findings section, a
//! failure said before the answer, `ARGS_JSON` read, and the exit code of an outcome class.

use std::io::{Read, Write};

use serde::Serialize;
use serde_json::Value;

use super::exit;
use crate::classify::Class;
use crate::classify::findings::Finding;
use crate::mcp::session::{End, Exchange, Failure};
use crate::present::call::{findings_lines, stderr_tail_lines};
pub(super) use crate::present::call::{outcome_json, server_json, server_line};
use crate::present::{self, limits::Pretty};
use crate::runner::SessionError;
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
    error: &SessionError,
    as_json: bool,
    json: impl FnOnce() -> J,
) -> u8 {
    if as_json {
        print_json(&json());
    } else {
        let _ = write!(std::io::stderr().lock(), "{}", failure_text(error));
    }
    exit_code(error.outcome().class)
}

/// A run that failed before its answer, as text: the error, then the server's last stderr
/// when it exited.
pub(super) fn failure_text(error: &SessionError) -> String {
    let mut text = format!("sightline: {}\n", sanitize::text(&error.to_string()));
    if let Some(Exchange {
        end: End::Failed(Failure::ServerExited { stderr_tail, .. }),
        ..
    }) = error.exchange()
    {
        for line in stderr_tail_lines(stderr_tail) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}

/// One JSON document as [`print_json`] writes it, terminal-safe, kept to print later.
pub(super) fn json_text(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    let mut safe = sanitize::JsonWriter::new(&mut out);
    let written = serde_json::to_writer_pretty(&mut safe, value)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(safe))
        .and_then(|()| safe.flush());
    drop(safe);
    if let Err(error) = written {
        // Writing to memory fails only when serializing does; say so where the JSON was.
        return format!("{{\"error\": {}}}\n", Value::String(error.to_string()));
    }
    String::from_utf8_lossy(&out).into_owned()
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

/// The findings section of the human outputs, after a blank line.
pub(super) fn write_findings(out: &mut dyn Write, findings: &[Finding]) -> std::io::Result<()> {
    writeln!(out)?;
    for line in findings_lines(findings) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
