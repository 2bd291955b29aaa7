//! A call saved by `J` (`call --json`'s document), pure: read as the transcript it came from would show it (the server, the request, the response, the call as judged then).

use std::borrow::Cow;

use serde_json::Value;

use super::format::{
    CallRecord, EndRecord, Header, Judged, Record, RoleRecord, ServerRecord, ToolRecord, ToolText,
};
use super::{VERSION, rfc3339};
use crate::mcp::jsonrpc::Id;

/// The header's `command` of a transcript read from a call's document.
pub const SAVED_CALL: &str = "saved call";

/// Whether `value` is a call's document (`J`, `call --json`) rather than a transcript's header.
pub fn is_call_document(value: &Value) -> bool {
    value.get("sightline_transcript").is_none()
        && value.get("request").is_some_and(Value::is_object)
        && value.get("outcome").is_some_and(Value::is_object)
}

/// The transcript of the call in `document` (from the file `file`, written at `at_ms`): a note
/// of what such a file lacks, the server as negotiated, the request and the response as frames,
/// and the call with the class and findings the document gives. A document has no times and no
/// tool listing: every line is at `at_ms`, and the note says so.
pub fn from_call_document(document: &Value, file: &str, at_ms: u64) -> String {
    let transport = format!("a call saved as JSON ({file})");
    let header = Header {
        sightline_transcript: VERSION,
        sightline: env!("CARGO_PKG_VERSION").to_owned(),
        started: rfc3339(at_ms),
        started_ms: at_ms,
        command: SAVED_CALL.to_owned(),
        transport: transport.clone(),
        redacted: true,
    };
    let mut records = vec![
        Record::Connecting {
            transport: Cow::Owned(transport),
        },
        Record::Note {
            at: at_ms,
            text: Cow::Owned(format!(
                "{file} is one call saved as JSON (J, call --json): the request and the response \
                 as they were, the class and findings then, the called tool if J saved it; the \
                 rest of the server's tool listing and the times are not in it (every row shows \
                 when the file was written)"
            )),
            authorization: None,
        },
    ];
    if let Some(connected) = connected(document.get("server")) {
        records.push(connected);
    }
    // `J` keeps the tool as listed; the rest of the listing is not in the file.
    if let Some(tool) = document.get("tool").filter(|tool| tool.is_object()) {
        records.push(Record::Tools {
            tools: vec![ToolRecord {
                tool: ToolText::Read(tool.clone()),
                rejected: None,
            }],
        });
    }
    let request = document.get("request").map(compact).unwrap_or_default();
    records.push(Record::Sent {
        at: at_ms,
        raw: Cow::Owned(request.clone()),
    });
    let method = document
        .pointer("/request/method")
        .and_then(Value::as_str)
        .unwrap_or("tools/call")
        .to_owned();
    match document.get("response").filter(|value| !value.is_null()) {
        Some(response) => {
            let raw = compact(response);
            records.push(Record::Received {
                at: at_ms,
                raw: Cow::Owned(raw.clone()),
                role: RoleRecord {
                    kind: "reply".into(),
                    method: Some(method.clone()),
                },
            });
            records.push(call(document, method, request, raw, at_ms));
        }
        // Without a reply the way the call ended is only in words: said as they were.
        None => records.push(Record::Note {
            at: at_ms,
            text: Cow::Owned(format!("no response: {}", outcome_said(document, "detail"))),
            authorization: None,
        }),
    }
    let line = |value: String| crate::sanitize::json(&value).into_owned() + "\n";
    let mut text = line(serde_json::to_string(&header).unwrap_or_default());
    for record in &records {
        text.push_str(&line(serde_json::to_string(record).unwrap_or_default()));
    }
    text
}

/// The `call` line: the frames again, and the class and findings the document gives.
fn call(
    document: &Value,
    method: String,
    request: String,
    raw: String,
    at_ms: u64,
) -> Record<'static> {
    let findings = document
        .get("findings")
        .and_then(Value::as_array)
        .map(|findings| {
            findings
                .iter()
                .filter_map(|finding| finding.get("id")?.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let id = document
        .pointer("/request/id")
        .and_then(|id| serde_json::from_value::<Id>(id.clone()).ok())
        .unwrap_or(Id::Number(0));
    Record::Call(Box::new(CallRecord {
        id,
        method,
        sent_at: at_ms,
        ended_at: at_ms,
        request: Cow::Owned(request),
        end: EndRecord::Replied {
            raw: Cow::Owned(raw),
        },
        http: document
            .get("http")
            .and_then(|http| serde_json::from_value(http.clone()).ok()),
        rounds: Vec::new(),
        task: None,
        recorded: Some(Judged {
            class: outcome_said(document, "class"),
            detail: outcome_said(document, "detail"),
            findings,
        }),
    }))
}

/// A string member of the document's `outcome`.
fn outcome_said(document: &Value, name: &str) -> String {
    document
        .pointer(&format!("/outcome/{name}"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The `connected` line of the document's `server`, when the server was reached.
fn connected(server: Option<&Value>) -> Option<Record<'static>> {
    let server = server.filter(|server| server.is_object())?;
    let text = |name: &str| {
        server
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(Record::Connected {
        era: serde_json::from_value(server.get("era")?.clone()).ok()?,
        protocol_version: text("protocol_version"),
        server: ServerRecord {
            name: text("name"),
            version: text("version"),
        },
        capabilities: None,
        http_session: server
            .get("http_session")
            .and_then(Value::as_str)
            .map(str::to_owned),
        // Read from the document's frames, as for a transcript written before it was kept.
        probe: None,
    })
}

/// A frame of the document as one line: its members in the order they came.
fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
