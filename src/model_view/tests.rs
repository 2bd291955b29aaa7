//! The model view, table-driven over every class × version × host profile × MAY rule.

use serde_json::{Value, json};

use super::hosts::{HostProfile, Shape, builtins, resolve};
use super::{Block, Rule, clip, model_view};
use crate::classify::fixtures::{VERSIONS, call};
use crate::classify::{Class, classify};
use crate::mcp::session::Exchange;

fn view<'a>(exchange: &'a Exchange, version: &str, host: &HostProfile) -> super::ModelView<'a> {
    model_view(exchange, &classify(exchange), version, host)
}

fn host(name: &str) -> HostProfile {
    resolve(name, &[]).unwrap()
}

fn with_may(mut host: HostProfile) -> HostProfile {
    host.forward_protocol_errors = true;
    host
}

const PAST: &str = "Invalid departure date: must be in the future. Current date is 29/11/2026.";

fn every_class() -> Vec<(Class, Exchange)> {
    vec![
        (
            Class::Success,
            call("book_flight", json!({})).text("Booked: one seat departing 12/12/2027."),
        ),
        (
            Class::ToolError,
            call("book_flight", json!({})).tool_error(PAST),
        ),
        (
            Class::ProtocolError,
            call("book_flight", json!({})).error(-32602, PAST),
        ),
        (
            Class::TransportFailure,
            call("book_flight", json!({})).timeout(),
        ),
        (
            Class::TransportFailure,
            call("book_flight", json!({})).exited(),
        ),
    ]
}

#[test]
fn every_class_version_and_profile_follows_the_forwarding_rules() {
    for (class, exchange) in every_class() {
        for version in VERSIONS {
            for profile in builtins() {
                for may in [false, true] {
                    let host = if may {
                        with_may(profile.clone())
                    } else {
                        profile.clone()
                    };
                    let view = view(&exchange, version, &host);
                    let label = format!("{class:?} {version} {} may={may}", host.name);
                    assert_eq!(view.host, host.name, "{label}");
                    match class {
                        Class::Success => {
                            assert!(view.forwarded && !view.is_error, "{label}");
                            assert_eq!(view.rule, Rule::Result, "{label}");
                            assert_eq!(
                                view.text(),
                                "Booked: one seat departing 12/12/2027.",
                                "{label}"
                            );
                        }
                        Class::ToolError => {
                            assert!(view.forwarded && !view.less_likely_to_help, "{label}");
                            assert_eq!(view.is_error, host.error_flag, "{label}");
                            assert_eq!(view.rule, Rule::Should, "{label}");
                            assert_eq!(view.text(), PAST, "{label}");
                            assert_eq!(view.verdict(), "forwarded (SHOULD)", "{label}");
                            assert_eq!(
                                view.notes.iter().any(|note| note.contains("no error flag")),
                                !host.error_flag,
                                "{label}"
                            );
                        }
                        Class::ProtocolError if host.forward_protocol_errors => {
                            assert!(view.forwarded && view.less_likely_to_help, "{label}");
                            assert_eq!(view.is_error, host.error_flag, "{label}");
                            assert_eq!(view.rule, Rule::May, "{label}");
                            let expected = super::hosts::fill(
                                &host.protocol_error_text,
                                &[("code", "-32602"), ("message", PAST), ("data", "")],
                            );
                            assert!(expected.contains(PAST), "{label}");
                            assert_eq!(view.text(), expected, "{label}");
                        }
                        Class::ProtocolError => {
                            assert!(!view.forwarded, "{label}");
                            assert_eq!(view.is_error, host.error_flag, "{label}");
                            assert_eq!(view.rule, Rule::May, "{label}");
                            assert!(
                                !view.text().contains("Current date"),
                                "the reason must not leak: {label}"
                            );
                            assert_eq!(view.text(), host.failure_text, "{label}");
                            assert_eq!(view.verdict(), "not forwarded (MAY, off)", "{label}");
                        }
                        Class::TransportFailure => {
                            assert!(!view.forwarded, "{label}");
                            assert_eq!(view.is_error, host.error_flag, "{label}");
                            assert_eq!(view.rule, Rule::NoReply, "{label}");
                            assert_eq!(view.text(), host.failure_text, "{label}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn the_reason_names_the_version_and_the_rule() {
    let tool_error = call("book_flight", json!({})).tool_error(PAST);
    assert!(
        view(&tool_error, "2025-11-25", &host("spec"))
            .reason
            .contains("clients SHOULD provide it")
    );
    let old = view(&tool_error, "2025-06-18", &host("spec")).reason;
    assert!(
        old.contains("2025-06-18") && old.contains("the SHOULD came with SEP-1303"),
        "{old}"
    );
    let protocol = call("book_flight", json!({})).error(-32602, PAST);
    let reason = view(&protocol, "2026-07-28", &host("spec")).reason;
    assert!(
        reason.starts_with("protocol error -32602 (invalid params): handled by the client"),
        "{reason}"
    );
    let timeout = view(&call("x", json!({})).timeout(), "2026-07-28", &host("spec")).reason;
    assert!(timeout.contains("sightline's own timeout"), "{timeout}");
}

#[test]
fn error_data_is_forwarded_with_the_message_under_may() {
    let exchange = call("book_flight", json!({})).error_with_data(
        -32602,
        "Invalid arguments",
        json!([{"path": ["departureDate"], "message": "Dates must be in the future"}]),
    );
    let view = view(&exchange, "2025-11-25", &with_may(host("spec")));
    assert!(
        view.text()
            .starts_with("MCP error -32602: Invalid arguments [{"),
        "{}",
        view.text()
    );
    assert!(view.text().contains("Dates must be in the future"));
}

fn structured_result(structured: &Value, text: Option<&str>) -> Exchange {
    let content: Vec<Value> = text
        .into_iter()
        .map(|t| json!({"type": "text", "text": t}))
        .collect();
    call("get_flight_status", json!({}))
        .result(json!({"content": content, "structuredContent": structured, "isError": false}))
}

#[test]
fn structured_content_follows_the_profile() {
    let value = json!({"flightNumber": "LH123", "gate": "B7"});
    let serialized = value.to_string();
    let both = structured_result(&value, Some(&serialized));
    let spec = view(&both, "2025-11-25", &host("spec"));
    assert_eq!(
        spec.blocks,
        [Block::Text {
            text: serialized.clone().into()
        }],
        "spec: the text block already carries it"
    );
    let content_only = view(&both, "2025-11-25", &host("content-only"));
    assert_eq!(
        content_only.blocks,
        [Block::Text {
            text: serialized.clone().into()
        }]
    );
    let first = view(&both, "2025-11-25", &host("structured-first"));
    assert_eq!(first.blocks.len(), 1);
    assert_eq!(
        first.text(),
        value.to_string(),
        "the value, written compactly"
    );

    let bare = structured_result(&value, None);
    assert_eq!(
        view(&bare, "2025-11-25", &host("content-only")).text(),
        "",
        "content-only hosts show nothing"
    );
    let spec = view(&bare, "2025-11-25", &host("spec"));
    assert!(matches!(spec.blocks[..], [Block::Structured { .. }]));
    assert_eq!(spec.text(), value.to_string());

    let captioned = structured_result(&value, Some("LH123 boards at B7"));
    let spec = view(&captioned, "2025-11-25", &host("spec"));
    assert_eq!(spec.text(), format!("LH123 boards at B7\n{serialized}"));
}

#[test]
fn an_array_as_structured_content_in_2026_07_28_is_projected_as_is() {
    let exchange = structured_result(&json!([{"flight": "LH1"}, {"flight": "LH2"}]), None);
    let first = view(&exchange, "2026-07-28", &host("structured-first"));
    assert_eq!(first.text(), r#"[{"flight":"LH1"},{"flight":"LH2"}]"#);
    assert_eq!(
        first.payload()["content"][0],
        json!({"type": "json", "json": [{"flight": "LH1"}, {"flight": "LH2"}]})
    );
}

#[test]
fn empty_content_and_is_error_false_with_error_words_are_plain_results() {
    let empty = call("book_flight", json!({})).result(json!({"content": []}));
    let view_empty = view(&empty, "2025-11-25", &host("spec"));
    assert!(view_empty.forwarded && !view_empty.is_error);
    assert_eq!(view_empty.text(), "");
    let wordy = call("book_flight", json!({}))
        .result(json!({"content": [{"type": "text", "text": "Error: failed"}], "isError": false}));
    let view_wordy = view(&wordy, "2025-11-25", &host("spec"));
    assert_eq!(
        (view_wordy.is_error, view_wordy.rule),
        (false, Rule::Result)
    );
}

#[test]
fn non_text_content_becomes_short_placeholders() {
    let result = json!({"content": [
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "audio", "data": "A".repeat(4096), "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///tmp/ticket.pdf", "name": "ticket", "mimeType": "application/pdf"},
        {"type": "resource", "resource": {"uri": "mem://booking", "mimeType": "text/plain", "text": "ref SL-1"}},
        {"type": "video", "data": ""},
        42
    ]});
    let exchange = call("x", json!({})).result(result);
    let view = view(&exchange, "2025-11-25", &host("spec"));
    assert_eq!(
        view.text(),
        [
            "[image: image/png, 8 B]",
            "[audio: audio/wav, 3.0 KB]",
            "[resource link: file:///tmp/ticket.pdf (ticket, application/pdf)]",
            "[embedded resource: mem://booking, text/plain, 8 B]",
            "[unsupported content type 'video']",
            "[malformed content block]",
        ]
        .join("\n")
    );
}

#[test]
fn huge_text_passes_whole_and_clips_only_on_character_boundaries() {
    let huge = "é".repeat(3_000_000);
    let exchange = call("x", json!({})).text(&huge);
    let view = view(&exchange, "2026-07-28", &host("spec"));
    assert_eq!(view.text().len(), 6_000_000);
    let (shown, omitted) = view.text_within(5);
    assert_eq!((shown.as_str(), omitted), ("éé", 6_000_000 - 4));
    assert_eq!(clip(&huge, 5), "éé");
    assert_eq!(clip("ab€", 3), "ab");
    assert_eq!(clip("ab€", 5), "ab€");
    assert_eq!(clip("", 0), "");
}

#[test]
fn payloads_take_the_shape_of_the_profile() {
    let exchange = call("book_flight", json!({})).tool_error(PAST);
    let mut host = host("spec");
    let generic = view(&exchange, "2025-11-25", &host).payload();
    assert_eq!(
        generic,
        json!({"type": "tool_result", "is_error": true, "content": [{"type": "text", "text": PAST}]})
    );
    host.shape = Shape::AnthropicMessages;
    let anthropic = view(&exchange, "2025-11-25", &host).payload();
    assert_eq!(anthropic["type"], "tool_result");
    assert_eq!(anthropic["is_error"], true);
    assert_eq!(anthropic["content"][0]["text"], PAST);
    host.shape = Shape::OpenaiChat;
    let openai = view(&exchange, "2025-11-25", &host).payload();
    assert_eq!(
        openai,
        json!({"role": "tool", "tool_call_id": "call_sightline", "content": PAST})
    );
}

#[test]
fn the_json_form_has_the_stable_fields() {
    let exchange = call("book_flight", json!({})).tool_error(PAST);
    let view = view(&exchange, "2025-11-25", &host("spec"));
    let value = serde_json::to_value(view.to_json(false)).unwrap();
    assert_eq!(value["host"], "spec");
    assert_eq!(value["forwarded"], true);
    assert_eq!(value["rule"], "SHOULD");
    assert_eq!(value["text"], PAST);
    assert_eq!(
        value["blocks"],
        json!([{"kind": "text", "bytes": PAST.len()}])
    );
    assert!(
        value.get("payload").is_none(),
        "the payload repeats the text: only on request"
    );
    let with_payload = serde_json::to_value(view.to_json(true)).unwrap();
    assert_eq!(with_payload["payload"], view.payload());
}

#[test]
fn the_json_text_is_the_joined_text_escaped_as_json() {
    let result = json!({"content": [
        {"type": "text", "text": "line \"one\"\n\u{1b}[2J"},
        {"type": "image", "data": "", "mimeType": "image/png"}
    ], "structuredContent": {"a": 1}});
    let exchange = call("x", json!({})).result(result);
    let view = view(&exchange, "2025-11-25", &host("spec"));
    let value = serde_json::to_value(view.to_json(false)).unwrap();
    assert_eq!(value["text"], view.text());
    assert_eq!(
        value["blocks"],
        json!([
            {"kind": "text", "bytes": 15},
            {"kind": "media", "text": "[image: image/png, 0 B]"},
            {"kind": "structured", "bytes": 7}
        ])
    );
}

fn limited(bytes: usize, keep: &str) -> HostProfile {
    let text = format!(
        "[hosts.small]\ndescription = \"x\"\n[hosts.small.limit]\nbytes = {bytes}\nkeep = \"{keep}\"\nmarker = \"[{{omitted}} cut]\"\n"
    );
    super::hosts::parse(&text, "t").unwrap().remove(0)
}

#[test]
fn a_size_limit_keeps_the_head_the_tail_or_both_across_blocks() {
    let result = json!({"content": [
        {"type": "text", "text": "0123456789"},
        {"type": "text", "text": "abcdefghij"}
    ]});
    let exchange = call("x", json!({})).result(result);
    let text = |keep: &str| view(&exchange, "2025-11-25", &limited(8, keep)).text();
    // 21 bytes: ten, a newline, ten.
    assert_eq!(text("head"), "01234567[13 cut]");
    assert_eq!(text("tail"), "[13 cut]cdefghij");
    assert_eq!(text("head-and-tail"), "0123[13 cut]ghij");
    let whole = view(&exchange, "2025-11-25", &limited(21, "head"));
    assert_eq!(whole.truncation, None, "at the limit nothing is cut");
    assert!(whole.notes.is_empty());
}

#[test]
fn a_size_limit_cuts_on_character_boundaries_and_says_where() {
    let exchange = call("x", json!({})).text("ééééé|ééééé");
    let cut = view(&exchange, "2025-11-25", &limited(5, "head-and-tail"));
    // 21 bytes; 2 kept from the head (one é), 3 from the tail (one é and a half, so one).
    assert_eq!(cut.text(), "é[16 cut]é");
    let note = cut.notes.last().unwrap();
    assert!(
        note.contains("16 of 21 bytes are cut from the middle (bytes 2–18)"),
        "{note}"
    );
    let tail = view(&exchange, "2025-11-25", &limited(4, "tail"));
    assert_eq!(tail.text(), "[17 cut]éé");
    assert!(tail.notes.last().unwrap().contains("cut from the start"));
}

#[test]
fn the_json_form_says_what_the_host_cut_and_threw() {
    let exchange = call("x", json!({})).text(&"x".repeat(100));
    let cut = view(&exchange, "2025-11-25", &limited(10, "head"));
    let value = serde_json::to_value(cut.to_json(true)).unwrap();
    assert_eq!(
        value["truncated"],
        json!({"total": 100, "head": 10, "tail": 0, "marker": "[90 cut]"})
    );
    assert_eq!(value["text"], format!("{}[90 cut]", "x".repeat(10)));
    assert_eq!(value["payload"]["content"][0]["text"], value["text"]);
    let audio = call("x", json!({})).result(json!({"content": [
        {"type": "audio", "data": "", "mimeType": "audio/wav"}
    ]}));
    let thrown = view(&audio, "2025-11-25", &host("anthropic-messages"));
    let value = serde_json::to_value(thrown.to_json(false)).unwrap();
    assert_eq!(value["host_error"], "Unsupported MCP content type: audio");
    assert_eq!(value["forwarded"], false);
    assert_eq!(value["error_flag"], true);
}
