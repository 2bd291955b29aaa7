//! The demo server's host cases (`demo-server --host-cases`), pure: the results whose handling
//! differs most between hosts, as the official Python SDK writes them, so `calibrate` can
//! measure a host's blocks, cuts and failures without any SDK installed.

use std::fmt::Write;

use serde_json::{Map, Value, json};

/// A 1×1 PNG, and a few bytes standing in for audio (those of `tests/peers/py_host_cases.py`).
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// The largest `long_text` the server writes (a host's cut is found well below it).
pub const LONG_TEXT_MAX: u64 = 4_000_000;

/// What a host case's call produces.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseOutcome {
    /// A result, as the server sends it (a tool error included).
    Result(Value),
    /// Exit with this status without answering, after saying `why` on stderr.
    Exit { status: i32, why: &'static str },
}

/// The host cases' tools, as `tools/list` returns them after the demo's own.
pub fn definitions() -> Vec<Value> {
    let none = json!({"type": "object", "properties": {}});
    let flight = json!({
        "type": "object",
        "properties": {"flightNumber": {"type": "string"}},
        "required": ["flightNumber"]
    });
    vec![
        json!({"name": "throws", "description": "Always raises: the booking backend is down.", "inputSchema": none}),
        json!({
            "name": "long_text",
            "description": "A text of `size` bytes: numbered lines of 32 bytes.",
            "inputSchema": {
                "type": "object",
                "properties": {"size": {"type": "integer", "minimum": 0, "maximum": LONG_TEXT_MAX}},
                "required": ["size"]
            }
        }),
        json!({
            "name": "flight_unschemed",
            "description": "The status of a flight: a text summary and structured content, no output schema.",
            "inputSchema": flight
        }),
        json!({"name": "picture", "description": "A caption and a PNG image.", "inputSchema": none}),
        json!({"name": "sound", "description": "A boarding announcement, as audio.", "inputSchema": none}),
        json!({"name": "document", "description": "The fare rules, as an embedded text resource.", "inputSchema": none}),
        json!({"name": "crash", "description": "Kills the server mid-call: no reply ever comes.", "inputSchema": none}),
    ]
}

/// Whether `name` is a host case's tool.
pub fn is_case(name: &str) -> bool {
    definitions().iter().any(|tool| tool["name"] == name)
}

/// Runs a host case; `None` for a name that is not one.
pub fn call(name: &str, arguments: &Map<String, Value>) -> Option<CaseOutcome> {
    let text = |text: &str| json!({"type": "text", "text": text});
    let result = |content: Value| CaseOutcome::Result(json!({"content": content}));
    Some(match name {
        // The Python SDK's words for an exception a tool raised.
        "throws" => CaseOutcome::Result(json!({
            "content": [text("Error executing tool throws: the booking backend is down")],
            "isError": true
        })),
        "long_text" => match arguments.get("size").and_then(Value::as_u64) {
            Some(size) if size <= LONG_TEXT_MAX => result(json!([text(&long_text(
                usize::try_from(size).unwrap_or(0)
            ))])),
            _ => CaseOutcome::Result(json!({
                "content": [text(&format!("size must be an integer from 0 to {LONG_TEXT_MAX}"))],
                "isError": true
            })),
        },
        "flight_unschemed" => {
            let flight = arguments
                .get("flightNumber")
                .and_then(Value::as_str)
                .unwrap_or("LH123");
            CaseOutcome::Result(json!({
                "content": [text(&format!("{flight} is boarding at gate B22."))],
                "structuredContent": {"flightNumber": flight, "status": "boarding", "gate": "B22"}
            }))
        }
        "picture" => result(json!([
            text("The seat map:"),
            {"type": "image", "data": PNG, "mimeType": "image/png"}
        ])),
        "sound" => result(json!([{"type": "audio", "data": WAV, "mimeType": "audio/wav"}])),
        "document" => result(json!([{
            "type": "resource",
            "resource": {"uri": "file:///fare-rules.txt", "mimeType": "text/plain", "text": "Fares are non-refundable."}
        }])),
        "crash" => CaseOutcome::Exit {
            status: 3,
            why: "fatal: the tool crashed",
        },
        _ => return None,
    })
}

/// `size` bytes of numbered lines, 32 bytes each (the last one cut where the size ends).
pub fn long_text(size: usize) -> String {
    let mut text = String::with_capacity(size + 32);
    let mut line = 0;
    while text.len() < size {
        let _ = writeln!(text, "line {line:08} of a long result.");
        line += 1;
    }
    text.truncate(size);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo_server::{DemoServer, Handled, Style};
    use crate::mcp::jsonrpc::{Id, Message};

    fn handled(server: &DemoServer, method: &str, params: Value) -> Handled {
        let request = Message::Request {
            id: Id::Number(1),
            method: method.into(),
            params: Some(params),
        };
        server.handle(
            request,
            crate::time::Date::parse_dd_mm_yyyy("03/12/2026").unwrap(),
        )
    }

    #[test]
    fn only_a_server_with_host_cases_lists_and_runs_them() {
        let plain = DemoServer::new(Style::Sep1303);
        let cases = DemoServer::new(Style::Legacy).with_host_cases();
        let names = |server: &DemoServer| -> Vec<String> {
            let Handled::Send(reply) = handled(server, "tools/list", json!({})) else {
                panic!("a response");
            };
            reply.to_value()["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|tool| tool["name"].as_str().unwrap().to_owned())
                .collect()
        };
        assert!(!names(&plain).contains(&"crash".to_owned()));
        let listed = names(&cases);
        assert_eq!(listed[0], "book_flight");
        assert!(listed.ends_with(&["document".to_owned(), "crash".to_owned()]));
        let crash = json!({"name": "crash", "arguments": {}});
        assert!(matches!(
            handled(&cases, "tools/call", crash.clone()),
            Handled::Exit { status: 3, .. }
        ));
        assert!(matches!(
            handled(&plain, "tools/call", crash),
            Handled::Send(_)
        ));
    }

    #[test]
    fn a_long_text_has_exactly_its_size_in_numbered_lines() {
        let text = long_text(70);
        assert_eq!(text.len(), 70);
        assert_eq!(
            text,
            "line 00000000 of a long result.\nline 00000001 of a long result.\nline 0"
        );
        assert_eq!(long_text(0), "");
    }

    #[test]
    fn the_crash_answers_nothing_and_the_throw_is_a_tool_error() {
        assert!(matches!(
            call("crash", &Map::new()),
            Some(CaseOutcome::Exit { status: 3, .. })
        ));
        let Some(CaseOutcome::Result(thrown)) = call("throws", &Map::new()) else {
            panic!("a result");
        };
        assert_eq!(thrown["isError"], true);
        assert!(call("book_flight", &Map::new()).is_none());
        assert!(is_case("sound") && !is_case("book_flight"));
    }

    #[test]
    fn a_size_out_of_range_is_a_tool_error() {
        let mut arguments = Map::new();
        arguments.insert("size".into(), json!(LONG_TEXT_MAX + 1));
        let Some(CaseOutcome::Result(refused)) = call("long_text", &arguments) else {
            panic!("a result");
        };
        assert_eq!(refused["isError"], true);
    }
}
