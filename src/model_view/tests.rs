//! The model view, table-driven over every class × version × host profile × MAY rule.

use serde_json::{Value, json};

use super::hosts::{HostProfile, Shape, builtins, resolve};
use super::{Block, Rule, clip, model_view};
use crate::classify::fixtures::{VERSIONS, call};
use crate::classify::{Class, classify};
use crate::mcp::jsonrpc::Reply;
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

/// One text block's text as `host` sends it: as is, or as its parts' JSON array.
fn sent(host: &HostProfile, text: &str) -> String {
    // A host that wraps every text block in its own words (`placeholder` with a template).
    if host.blocks.text == super::hosts::Action::Placeholder
        && let Some(template) = host.blocks.placeholders.get("text")
    {
        return super::hosts::fill(template, &[("text", text)]);
    }
    match &host.parts_as_json {
        Some(templates) => format!(
            "[{}]",
            super::hosts::fill(&templates.text, &[("text", &json!(text).to_string())])
        ),
        None => text.to_owned(),
    }
}

/// The view's text without the host's `call_prefix`, which must lead whatever it says of a
/// call it made.
fn said(view: &super::ModelView, host: &HostProfile) -> String {
    let text = view.text();
    match &host.call_prefix {
        Some(prefix) if view.server_called && !text.is_empty() => text
            .strip_prefix(&format!("{prefix}\n"))
            .unwrap_or_else(|| panic!("{}: no call prefix in {text:?}", host.name))
            .to_owned(),
        _ => text,
    }
}

/// The host's `failure_text` for `every_class`'s calls (`book_flight`, no arguments).
fn failure_text(host: &HostProfile) -> String {
    super::hosts::fill(
        &host.failure_text,
        &[("tool", "book_flight"), ("arguments", "{}")],
    )
}

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

/// Whether a host can mark an error for its model: a flag, or a key (Gemini's `error`).
fn marks(host: &HostProfile) -> bool {
    host.error_flag || host.error_key.is_some()
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
                                said(&view, &host),
                                sent(&host, "Booked: one seat departing 12/12/2027."),
                                "{label}"
                            );
                        }
                        Class::ToolError => {
                            assert!(view.forwarded && !view.less_likely_to_help, "{label}");
                            assert_eq!(view.is_error, marks(&host), "{label}");
                            assert_eq!(view.rule, Rule::Should, "{label}");
                            if host.tool_error_text.is_some() {
                                // The host's own sentence, holding the whole result.
                                assert!(said(&view, &host).contains(PAST), "{label}");
                            } else {
                                assert_eq!(said(&view, &host), sent(&host, PAST), "{label}");
                            }
                            assert_eq!(view.verdict(), "forwarded (SHOULD)", "{label}");
                            assert_eq!(
                                view.notes.iter().any(|note| note.contains("no error flag")),
                                !host.error_flag,
                                "{label}"
                            );
                        }
                        Class::ProtocolError if host.forward_protocol_errors => {
                            assert!(view.forwarded && view.less_likely_to_help, "{label}");
                            assert_eq!(view.is_error, marks(&host), "{label}");
                            assert_eq!(view.rule, Rule::May, "{label}");
                            let expected = super::hosts::fill(
                                &host.protocol_error_text,
                                &[
                                    ("code", "-32602"),
                                    ("message", PAST),
                                    ("data", ""),
                                    ("tool", "book_flight"),
                                    ("arguments", "{}"),
                                    ("message_escaped", PAST),
                                ],
                            );
                            assert!(expected.contains(PAST), "{label}");
                            assert_eq!(said(&view, &host), expected, "{label}");
                        }
                        Class::ProtocolError
                            if host
                                .aborts_run_on
                                .contains(&super::hosts::Abort::ProtocolError) =>
                        {
                            assert!(!view.forwarded && !view.is_error, "{label}");
                            assert_eq!(view.rule, Rule::May, "{label}");
                            assert_eq!(said(&view, &host), "", "the run aborts: {label}");
                        }
                        Class::ProtocolError => {
                            assert!(!view.forwarded, "{label}");
                            assert_eq!(view.is_error, marks(&host), "{label}");
                            assert_eq!(view.rule, Rule::May, "{label}");
                            assert!(
                                !said(&view, &host).contains("Current date"),
                                "the reason must not leak: {label}"
                            );
                            assert_eq!(said(&view, &host), failure_text(&host), "{label}");
                            assert_eq!(view.verdict(), "not forwarded (MAY, off)", "{label}");
                        }
                        Class::TransportFailure
                            if host.aborts_run_on.contains(&super::hosts::Abort::NoReply) =>
                        {
                            assert!(!view.forwarded && !view.is_error, "{label}");
                            assert_eq!(view.rule, Rule::NoReply, "{label}");
                            assert_eq!(said(&view, &host), "", "the run aborts: {label}");
                        }
                        Class::TransportFailure => {
                            assert!(!view.forwarded, "{label}");
                            assert_eq!(view.is_error, marks(&host), "{label}");
                            assert_eq!(view.rule, Rule::NoReply, "{label}");
                            assert_eq!(said(&view, &host), failure_text(&host), "{label}");
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
        spec.blocks.to_vec(),
        [Block::Text {
            text: serialized.clone().into()
        }],
        "spec: the text block already carries it"
    );
    let content_only = view(&both, "2025-11-25", &host("content-only"));
    assert_eq!(
        content_only.blocks.to_vec(),
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
    assert!(matches!(
        spec.blocks.to_vec()[..],
        [Block::Structured { .. }]
    ));
    assert_eq!(spec.text(), value.to_string());

    let captioned = structured_result(&value, Some("LH123 boards at B7"));
    let spec = view(&captioned, "2025-11-25", &host("spec"));
    assert_eq!(spec.text(), format!("LH123 boards at B7\n{serialized}"));
}

#[test]
fn qwen_puts_structured_content_first_and_copilot_after_a_blank_line_unless_a_text_is_it() {
    let value = json!({"flightNumber": "LH123", "gate": "B22"});
    let compact = value.to_string();
    // Captured (tests/hosts.rs): the compact JSON, unless a text block is exactly it.
    let captioned = structured_result(&value, Some("LH123 is boarding at gate B22."));
    let qwen = view(&captioned, "2025-11-25", &host("qwen-code"));
    assert_eq!(
        qwen.text(),
        format!("{compact}\nLH123 is boarding at gate B22.")
    );
    let copilot = view(&captioned, "2025-11-25", &host("copilot-cli"));
    assert_eq!(
        copilot.text(),
        format!("LH123 is boarding at gate B22.\n\n{compact}")
    );
    // A text block that is the same JSON, written otherwise, is no text block that is it.
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    let spaced = structured_result(&value, Some(&pretty));
    assert_eq!(
        view(&spaced, "2025-11-25", &host("qwen-code")).text(),
        format!("{compact}\n{pretty}")
    );
    let exact = structured_result(&value, Some(&compact));
    assert_eq!(
        view(&exact, "2025-11-25", &host("qwen-code")).text(),
        compact
    );
    assert_eq!(
        view(&exact, "2025-11-25", &host("copilot-cli")).text(),
        compact
    );
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

#[test]
fn an_unknown_tool_answer_can_name_the_tools_the_host_lists() {
    let text = "[hosts.x]\ndescription = \"x\"\n[hosts.x.checks]\n\
                unknown_tool_text = \"No '{tool}'. Available tools: {tools}.\"\n";
    let host = super::hosts::parse(text, "t").unwrap().remove(0);
    let listing = crate::mcp::json::Json::from_value(
        &json!({"tools": [{"name": "a", "inputSchema": {}}, {"name": "b", "inputSchema": {}}]}),
    );
    let mut tools = crate::mcp::catalog::Catalog::default();
    let page = || crate::mcp::messages::tools_page(&listing).unwrap().tools;
    tools.push_page(page()).unwrap();
    // A host with a session per call lists the tools again: each name counts once.
    tools.push_page(page()).unwrap();
    let stopped = super::stopped_by_host("c", &json!({}), Some(&tools), &host).unwrap();
    assert_eq!(stopped.text(), "No 'c'. Available tools: a, b.");
    assert!(!stopped.server_called);
}

#[test]
fn a_host_whose_run_aborts_on_no_reply_shows_its_model_nothing() {
    let text = "[hosts.x]\naborts_run_on = [\"no-reply\"]\n";
    let host = super::hosts::parse(text, "t").unwrap().remove(0);
    assert_eq!(host.aborts_run_on, vec![super::hosts::Abort::NoReply]);
    for exchange in [
        call("book_flight", json!({})).exited(),
        call("book_flight", json!({})).timeout(),
    ] {
        let aborted = view(&exchange, "2025-11-25", &host);
        assert_eq!(
            (aborted.text(), aborted.forwarded, aborted.is_error),
            (String::new(), false, false)
        );
        assert_eq!(aborted.rule, Rule::NoReply);
        assert!(aborted.reason.contains("whole run"), "{}", aborted.reason);
    }
    // A protocol error is not a missing reply: the failure text, as before.
    let error = call("book_flight", json!({})).error(-32602, PAST);
    assert_eq!(view(&error, "2025-11-25", &host).text(), host.failure_text);
}

#[test]
fn the_failure_text_can_name_the_call() {
    let mut host = host("spec");
    host.failure_text = "{tool} {arguments} failed: Connection closed".to_owned();
    let exited = call("book_flight", json!({"seats": 2})).exited();
    let failed = view(&exited, "2025-11-25", &host);
    assert_eq!(
        failed.text(),
        r#"book_flight {"seats":2} failed: Connection closed"#
    );
    assert!(failed.is_error && !failed.forwarded);
    // The same words for a protocol error the host does not forward.
    let error = call("book_flight", json!({})).error(-32602, PAST);
    assert_eq!(
        view(&error, "2025-11-25", &host).text(),
        "book_flight {} failed: Connection closed"
    );
}

#[test]
fn a_host_whose_run_aborts_shows_its_model_nothing() {
    let mut host = host("spec");
    host.aborts_run_on = vec![
        super::hosts::Abort::ProtocolError,
        super::hosts::Abort::HostError,
    ];
    let error = call("book_flight", json!({})).error(-32602, PAST);
    let aborted = view(&error, "2025-11-25", &host);
    assert_eq!(
        (aborted.text(), aborted.forwarded, aborted.is_error),
        (String::new(), false, false)
    );
    assert!(aborted.reason.contains("whole run"), "{}", aborted.reason);
    // The MAY rule switched on asks what a forwarding host would show: it wins.
    let forwarded = view(&error, "2025-11-25", &with_may(host.clone()));
    assert_eq!(forwarded.text(), "MCP error -32602: ".to_owned() + PAST);
    host.blocks.audio = super::hosts::Action::Throw;
    let audio = call("sound", json!({})).result(json!({"content": [
        {"type": "text", "text": "Listen:"},
        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
    ]}));
    let thrown = view(&audio, "2025-11-25", &host);
    assert_eq!(thrown.text(), "");
    assert!(!thrown.forwarded && thrown.thrown.is_some());
    assert!(
        thrown.notes[0].contains("ends its whole run"),
        "{:?}",
        thrown.notes
    );
}

#[test]
fn a_host_can_send_its_parts_as_one_json_text() {
    let mut host = host("openai-chat");
    host.blocks.image = super::hosts::Action::Pass;
    host.parts_as_json = Some(super::hosts::PartsAsJson {
        text: r#"{"type":"text","text":{text}}"#.to_owned(),
        image: Some(r#"{"type":"image-data","data":{data},"mediaType":{mimeType}}"#.to_owned()),
        audio: None,
    });
    let exchange = call("picture", json!({})).result(json!({"content": [
        {"type": "text", "text": "A \"map\":\n"},
        {"type": "image", "data": "iVBO", "mimeType": "image/png"},
    ]}));
    let parts = view(&exchange, "2025-11-25", &host);
    assert_eq!(
        parts.text(),
        r#"[{"type":"text","text":"A \"map\":\n"},{"type":"image-data","data":"iVBO","mediaType":"image/png"}]"#
    );
    assert_eq!(parts.blocks.len(), 1);
    // An error the host writes itself is not a part: it is sent as it is.
    let error = call("picture", json!({})).error(-32602, PAST);
    let forwarded = view(&error, "2025-11-25", &with_may(host));
    assert_eq!(forwarded.text(), "MCP error -32602: ".to_owned() + PAST);
}

#[test]
fn a_host_words_tool_and_protocol_errors_with_the_call_and_the_result_as_json() {
    let mut host = host("spec");
    host.error_flag = false;
    host.forward_protocol_errors = true;
    host.tool_error_text = Some("'{tool}' failed: {\"args\":{arguments}} gave {result}".to_owned());
    host.protocol_error_text = "'{tool}' {arguments}: \"{message_escaped}\" ({code})".to_owned();
    let arguments = json!({"departureDate": "12/12/2024"});
    let tool_error = call("book_flight", arguments.clone()).result(json!({
        "isError": true,
        "content": [{"text": "no \"seat\"", "type": "text", "annotations": {"audience": ["user"]}}],
    }));
    assert_eq!(
        view(&tool_error, "2025-11-25", &host).text(),
        r#"'book_flight' failed: {"args":{"departureDate":"12/12/2024"}} gave {"content":[{"type":"text","text":"no \"seat\""}],"isError":true}"#
    );
    let protocol = call("book_flight", arguments).error(-32602, "bad \"date\"\n");
    assert_eq!(
        view(&protocol, "2025-11-25", &host).text(),
        r#"'book_flight' {"departureDate":"12/12/2024"}: "bad \"date\"\n" (-32602)"#
    );
}

#[test]
fn the_gemini_shape_captions_media_sends_images_last_and_leaves_audio_out() {
    let host = host("gemini-cli");
    assert_eq!(host.shape, Shape::GeminiFunctionResponse);
    let exchange = call("picture", json!({})).result(json!({"content": [
        {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
        {"type": "text", "text": "The seat map"},
        {"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"},
    ]}));
    let view = view(&exchange, "2025-11-25", &host);
    assert_eq!(
        view.text(),
        "[SYSTEM: Binary content (audio/wav) stripped from response due to protocol limitations.]\n\
         [Tool 'picture' provided the following image data with mime-type: image/png]\n\
         <untrusted_context>\nThe seat map\n</untrusted_context>\n\
         [Tool 'picture' provided the following audio data with mime-type: audio/wav]\n\
         [image: image/png, 8 B]"
    );
    let payload = view.payload();
    assert_eq!(
        payload["parts"].as_array().map(Vec::len),
        Some(2),
        "{payload}"
    );
    assert_eq!(payload["parts"][1]["inlineData"]["mimeType"], "image/png");
}

#[test]
fn gemini_suggests_the_nearest_tools_in_its_own_order() {
    let catalog: crate::mcp::catalog::Catalog =
        ["book_flight", "summarise", "list_roots", "slow_search"]
            .iter()
            .map(|name| crate::mcp::messages::Tool::from_value(&json!({"name": name})))
            .collect();
    let gemini = resolve("gemini-cli", &[]).unwrap();
    let view = super::stopped_by_host("no_such_tool", &json!({}), Some(&catalog), &gemini).unwrap();
    // As Gemini CLI 0.61.0 answered (captured): distance 9, 10, then the first of the 11s.
    assert_eq!(
        view.text(),
        r#"Tool "mcp_srv_no_such_tool" not found. Did you mean one of: "mcp_srv_list_roots", "mcp_srv_summarise", "mcp_srv_book_flight"?"#
    );
    assert!(!view.server_called);
    assert_eq!(super::host_checks::levenshtein("kitten", "sitting"), 3);
    assert_eq!(super::host_checks::levenshtein("", "abc"), 3);
}

#[test]
fn an_unwrapping_host_sends_an_embedded_text_resource_as_its_text() {
    let mut host = host("openai-chat");
    host.blocks.resource = super::hosts::Action::Unwrap;
    let exchange = call("document", json!({})).result(json!({"content": [
        {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "Fares."}},
        {"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AAAA"}},
    ]}));
    let unwrapped = view(&exchange, "2025-11-25", &host);
    assert_eq!(
        unwrapped.blocks.to_vec()[0],
        Block::Text {
            text: "Fares.".into()
        }
    );
    // A blob has no text to unwrap: it fares as a passed block.
    assert!(
        matches!(unwrapped.blocks.to_vec()[1], Block::Media { .. }),
        "{:?}",
        unwrapped.blocks
    );
}

#[test]
fn a_second_limit_cuts_what_the_first_kept_and_a_call_prefix_stays_outside_both() {
    let text = "[hosts.twice]\ndescription = \"x\"\ncall_prefix = \"took <seconds>\"\n\
                [hosts.twice.limit]\nbytes = 10\nmarker = \"[{omitted}]\"\n\
                [hosts.twice.limit.then]\nbytes = 8\nmarker = \"<{omitted_tokens}t>\"\n";
    let host = super::hosts::parse(text, "t").unwrap().remove(0);
    let cut = |body: &str| view(&call("x", json!({})).text(body), "2025-11-25", &host).text();
    // 20 bytes: the first keeps 5 + "[10]" + 5 = 14; the second 4 + 4 of those, 6 bytes
    // (2 tokens) cut, the first marker among them.
    assert_eq!(cut("abcdefghij0123456789"), "took <seconds>\nabcd<2t>6789");
    // Within the first limit, over the second: the second alone (1 byte, 1 token).
    assert_eq!(cut("abcdefghi"), "took <seconds>\nabcd<1t>fghi");
    assert_eq!(cut("abcdefgh"), "took <seconds>\nabcdefgh");
    // A call the host stops itself has no prefix.
    let checks = "[hosts.p]\ndescription = \"x\"\ncall_prefix = \"P\"\n[hosts.p.checks]\n\
                  unknown_tool_text = \"no {tool}\"\n";
    let host = super::hosts::parse(checks, "t").unwrap().remove(0);
    let listing = crate::mcp::json::Json::from_value(&json!({"tools": []}));
    let mut tools = crate::mcp::catalog::Catalog::default();
    tools
        .push_page(crate::mcp::messages::tools_page(&listing).unwrap().tools)
        .unwrap();
    let stopped = super::stopped_by_host("c", &json!({}), Some(&tools), &host).unwrap();
    assert_eq!(stopped.text(), "no c");
}

/// Beside its response, long response strings are pointed at, short ones and the newlines
/// between blocks are written: the parts, resolved in the response, are the text the model
/// reads, and no long string is written twice.
#[test]
fn parts_beside_the_response_join_to_the_text_with_each_long_string_once() {
    let long = "x".repeat(3000);
    let result = json!({"content": [
        {"type": "text", "text": long},
        {"type": "text", "text": "short"},
        {"type": "text", "text": long},
        {"type": "text", "text": long}
    ]});
    let exchange = call("x", json!({})).result(result.clone());
    let long_view = view(&exchange, "2025-11-25", &host("spec"));
    let Some(Reply::Result(sent)) = exchange.answer() else {
        panic!("a result")
    };
    let value = serde_json::to_value(long_view.to_json_beside(false, Some(sent))).unwrap();
    assert!(value.get("text").is_none(), "{value}");
    let response = json!({"result": result});
    let parts = value["parts"].as_array().unwrap();
    let joined: String = parts
        .iter()
        .map(|part| match part.get("from") {
            Some(from) => response
                .pointer(from.as_str().unwrap())
                .unwrap()
                .as_str()
                .unwrap(),
            None => part["text"].as_str().unwrap(),
        })
        .collect();
    assert_eq!(joined, long_view.text());
    assert_eq!(
        parts
            .iter()
            .filter(|part| part.get("from").is_some())
            .count(),
        3
    );
    assert!(
        !value.to_string().contains(&long),
        "a long string written again"
    );
    // Nothing long to point at: the text, as before.
    let short = call("x", json!({})).tool_error(PAST);
    let Some(Reply::Result(sent)) = short.answer() else {
        panic!("a result")
    };
    let short_view = self::view(&short, "2025-11-25", &host("spec"));
    let value = serde_json::to_value(short_view.to_json_beside(false, Some(sent))).unwrap();
    assert_eq!(value["text"], PAST);
    assert!(value.get("parts").is_none());
}
