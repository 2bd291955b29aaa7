//! Golden tests: every built-in host profile over one corpus of results, the payload and the
//! sentences written out per profile and compared with the reviewed snapshot; then the facts
//! each host's code shows, asserted one by one.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::hosts::{HostProfile, builtins, resolve};
use super::{ModelView, model_view};
use crate::classify::classify;
use crate::classify::fixtures::call;
use crate::mcp::session::Exchange;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn image(mime: &str) -> Value {
    json!({"content": [{"type": "image", "data": PNG, "mimeType": mime}]})
}

fn resource(resource: &Value) -> Value {
    json!({"content": [{"type": "resource", "resource": resource}]})
}

/// The corpus: one exchange per kind of result a host has to turn into model input.
fn corpus() -> Vec<(&'static str, Exchange)> {
    let ok = |result: Value| call("t", json!({})).result(result);
    let status = json!({"flight": "LH123", "status": "boarding"});
    vec![
        ("text", call("t", json!({})).text("Booked: seat 12A.")),
        ("image/png", ok(image("image/png"))),
        ("image/jpeg", ok(image("image/jpeg"))),
        ("image/gif", ok(image("image/gif"))),
        ("image/webp", ok(image("image/webp"))),
        ("image/svg+xml", ok(image("image/svg+xml"))),
        (
            "audio",
            ok(json!({"content": [
                {"type": "text", "text": "Your boarding announcement:"},
                {"type": "audio", "data": "UklGRiQAAABXQVZF", "mimeType": "audio/wav"}
            ]})),
        ),
        (
            "resource_link",
            ok(
                json!({"content": [{"type": "resource_link", "uri": "file:///tickets/12A.pdf",
                "name": "ticket", "mimeType": "application/pdf"}]}),
            ),
        ),
        (
            "embedded text resource",
            ok(resource(
                &json!({"uri": "file:///notes.txt", "mimeType": "text/plain",
                "text": "Gate B7 closes at 10:40."}),
            )),
        ),
        (
            "embedded PDF blob",
            ok(resource(
                &json!({"uri": "file:///ticket.pdf", "mimeType": "application/pdf",
                "blob": "JVBERi0xLjQK"}),
            )),
        ),
        (
            "embedded zip blob",
            ok(resource(
                &json!({"uri": "file:///bundle.zip", "mimeType": "application/zip",
                "blob": "UEsDBA=="}),
            )),
        ),
        (
            "structured with its JSON as text",
            ok(
                json!({"content": [{"type": "text", "text": status.to_string()}],
                "structuredContent": status}),
            ),
        ),
        (
            "structured with other text",
            ok(
                json!({"content": [{"type": "text", "text": "LH123 is boarding."}],
                "structuredContent": status}),
            ),
        ),
        (
            "structured without text",
            ok(json!({"content": [], "structuredContent": status})),
        ),
        (
            "isError with text",
            call("t", json!({})).tool_error("Invalid departure date: must be in the future."),
        ),
        (
            "isError without text",
            ok(json!({"content": [], "isError": true})),
        ),
        (
            "isError with structured",
            ok(
                json!({"content": [{"type": "text", "text": "No such flight."}],
                "structuredContent": {"error": "not found"}, "isError": true}),
            ),
        ),
        (
            "protocol error",
            call("t", json!({})).error_with_data(
                -32602,
                "Invalid params",
                json!({"field": "departureDate"}),
            ),
        ),
        (
            "60 KB text",
            call("t", json!({})).text(&format!("{}{}", "a".repeat(30_000), "z".repeat(30_000))),
        ),
    ]
}

fn view<'a>(exchange: &'a Exchange, host: &HostProfile) -> ModelView<'a> {
    model_view(exchange, &classify(exchange), "2025-11-25", host)
}

/// Long strings shortened to their two ends, so a 60 KB payload reads in a few lines.
fn shortened(value: Value) -> Value {
    match value {
        Value::String(text) if text.len() > 120 => {
            let head: String = text.chars().take(40).collect();
            let tail: String = text
                .chars()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            Value::String(format!("{head}…{tail} ({} bytes)", text.len()))
        }
        Value::Array(items) => Value::Array(items.into_iter().map(shortened).collect()),
        Value::Object(map) => map.into_iter().map(|(k, v)| (k, shortened(v))).collect(),
        other => other,
    }
}

fn report(host: &HostProfile) -> String {
    let mut out = String::new();
    for (name, exchange) in corpus() {
        let view = view(&exchange, host);
        let text = shortened(Value::String(view.text()));
        let _ = write!(
            out,
            "== {name}\n{} · is_error {}\ntext: {}\n",
            view.verdict(),
            view.is_error,
            text.as_str().unwrap_or_default()
        );
        for note in &view.notes {
            let _ = writeln!(out, "note: {note}");
        }
        for finding in &view.findings {
            let _ = writeln!(out, "finding: {}", finding.id);
        }
        let _ = writeln!(out, "payload: {}\n", shortened(view.payload()));
    }
    out
}

#[test]
fn every_profile_over_the_corpus() {
    for host in builtins() {
        insta::assert_snapshot!(format!("golden_{}", host.name), report(&host));
    }
}

fn case(name: &str) -> Exchange {
    corpus()
        .into_iter()
        .find(|(case, _)| *case == name)
        .map(|(_, exchange)| exchange)
        .unwrap()
}

#[test]
fn anthropic_messages_follows_the_sdk_helper() {
    let host = resolve("anthropic-messages", &[]).unwrap();
    for kind in ["image/png", "image/jpeg", "image/gif", "image/webp"] {
        let exchange = case(kind);
        let payload = view(&exchange, &host).payload();
        assert_eq!(payload["content"][0]["type"], "image", "{kind}");
        assert_eq!(payload["content"][0]["source"]["media_type"], kind);
        assert_eq!(payload["content"][0]["source"]["data"], PNG);
    }
    let exchange = case("image/svg+xml");
    let svg = view(&exchange, &host);
    assert!(!svg.forwarded);
    assert_eq!(
        svg.text(),
        "Error: Unsupported image MIME type: image/svg+xml"
    );
    assert!(
        svg.findings.is_empty(),
        "an image type is not audio or a link"
    );
    for kind in ["audio", "resource_link"] {
        let exchange = case(kind);
        let thrown = view(&exchange, &host);
        assert_eq!(
            thrown.text(),
            format!("Error: Unsupported MCP content type: {kind}")
        );
        assert!(
            thrown.notes[0].starts_with("this host would throw on"),
            "{kind}"
        );
        assert!(
            thrown.notes[0].ends_with("the model sees the host's error, not the result"),
            "{kind}"
        );
        assert_eq!(thrown.findings[0].id, "audio-or-link-unsupported-by-host");
    }
    let exchange = case("embedded text resource");
    let document = view(&exchange, &host).payload();
    assert_eq!(
        document["content"][0],
        json!({"type": "document", "source": {"type": "text", "media_type": "text/plain",
            "data": "Gate B7 closes at 10:40."}})
    );
    let exchange = case("embedded PDF blob");
    let pdf = view(&exchange, &host).payload();
    assert_eq!(pdf["content"][0]["source"]["media_type"], "application/pdf");
    let exchange = case("embedded zip blob");
    assert_eq!(
        view(&exchange, &host).thrown.as_deref(),
        Some("Unsupported MIME type \"application/zip\" for resource: file:///bundle.zip")
    );
    let exchange = case("structured without text");
    let structured = view(&exchange, &host).payload();
    assert_eq!(
        structured["content"],
        json!(r#"{"flight":"LH123","status":"boarding"}"#),
        "JSON.stringify of structuredContent, only because content is empty"
    );
    let exchange = case("structured with other text");
    assert_eq!(view(&exchange, &host).text(), "LH123 is boarding.");
    let exchange = case("isError with text");
    let error = view(&exchange, &host).payload();
    assert_eq!(error["is_error"], true);
    let exchange = case("text");
    assert!(
        view(&exchange, &host).payload().get("is_error").is_none(),
        "a success carries no is_error, as the runner builds it"
    );
}

#[test]
fn openai_hosts_have_no_error_flag_and_say_so() {
    for name in ["openai-chat", "openai-responses", "openai-agents", "codex"] {
        let host = resolve(name, &[]).unwrap();
        let exchange = case("isError with text");
        let error = view(&exchange, &host);
        assert!(
            error.forwarded && !error.is_error && !error.error_flag,
            "{name}"
        );
        assert!(
            error.notes.contains(
                &"this host has no error flag: the model sees this text as an ordinary result"
                    .to_owned()
            ),
            "{name}"
        );
        let payload = error.payload().to_string();
        assert!(
            !payload.contains("is_error") && !payload.contains("isError"),
            "{name}"
        );
    }
}

#[test]
fn openai_chat_keeps_text_only_and_fills_an_empty_message() {
    let host = resolve("openai-chat", &[]).unwrap();
    let exchange = case("image/png");
    let image = view(&exchange, &host);
    assert_eq!(image.text(), "[tool output omitted]");
    assert_eq!(image.payload()["content"], "[tool output omitted]");
    assert!(
        image.notes[0].contains("image/png image is dropped"),
        "{:?}",
        image.notes
    );
    let exchange = case("audio");
    let audio = view(&exchange, &host);
    assert!(audio.forwarded && audio.thrown.is_none());
    assert!(
        audio
            .text()
            .contains(r#"{"type":"audio","data":"UklGRiQAAABXQVZF""#)
    );
}

#[test]
fn openai_agents_hides_protocol_errors_behind_its_sentence_and_structured_only_on_success() {
    // As captured from openai-agents 0.24.0 (tests/hosts.rs): the server's message never
    // reaches the model.
    let agents = resolve("openai-agents", &[]).unwrap();
    let exchange = case("protocol error");
    let hidden = view(&exchange, &agents);
    assert!(!hidden.forwarded);
    assert_eq!(
        hidden.text(),
        "An error occurred while running the tool. Please try again."
    );
    let structured = resolve("openai-agents-structured", &[]).unwrap();
    let exchange = case("structured with other text");
    assert_eq!(
        view(&exchange, &structured).text(),
        r#"{"flight":"LH123","status":"boarding"}"#
    );
    let exchange = case("isError with structured");
    assert_eq!(view(&exchange, &structured).text(), "No such flight.");
}

#[test]
fn codex_keeps_the_head_and_the_tail_of_a_long_result() {
    // As captured from Codex 0.171.0 (tests/hosts.rs): cut to 11,967 bytes, then that cut to
    // 11,964, whose marker alone the model reads, after the Wall time line.
    let host = resolve("codex", &[]).unwrap();
    let exchange = case("60 KB text");
    let cut = view(&exchange, &host);
    let text = cut.text();
    // 5,983 + "…48033 chars truncated…" (27) + 5,984 = 11,994: 30 bytes more, 8 tokens.
    let marker = "…8 tokens truncated…";
    assert_eq!(
        text,
        format!(
            "Wall time: <seconds> seconds\nOutput:\n{}{marker}{}",
            "a".repeat(5982),
            "z".repeat(5982)
        )
    );
    assert!(
        cut.notes
            .iter()
            .any(|note| note.contains("cut from the middle"))
    );
    assert_eq!(cut.payload()["output"], json!(text));
    let (shown, omitted) = cut.text_within(100);
    assert_eq!((shown.len(), omitted), (100, text.len() - 100));
}
