//! Streamable HTTP end to end: the real binary against `sightline demo-server --http` (the same
//! classes, findings and model view as over stdio, both styles, both eras) and against scripted
//! servers that fail the ways HTTP servers do (`tests/peers/http_faults.py`).

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline::mcp::era::EraChoice;
use sightline::mcp::log::{LogEvent, SessionEvent};
use sightline::runner::{self, SessionOptions, SessionRunner};
use sightline::transport::{HttpTarget, Target};
use std::sync::{Arc, Mutex};

mod common;

use common::servers::Server;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

/// `sightline call … --json` with these server arguments: the printed object and the exit code.
fn call(tool: &str, arguments: &str, server: &[&str]) -> (Value, i32) {
    let output = Command::new(BIN)
        .args(["call", tool, arguments, "--json", "--timeout", "5"])
        .args(server)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "not one JSON object ({error}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (json, output.status.code().unwrap())
}

/// What must not depend on the transport.
fn verdict(output: &Value) -> Value {
    let findings: Vec<&Value> = output["findings"]
        .as_array()
        .map(|all| all.iter().map(|finding| &finding["id"]).collect())
        .unwrap_or_default();
    serde_json::json!({
        "class": output["outcome"]["class"],
        "code": output["outcome"]["code"],
        "detail": output["outcome"]["detail"],
        "findings": findings,
        "rule": output["model_view"]["rule"],
        "forwarded": output["model_view"]["forwarded"],
        "text": output["model_view"]["text"],
        "era": output["server"]["era"],
        "version": output["server"]["protocol_version"],
    })
}

#[test]
fn the_demo_server_over_http_answers_as_it_does_over_stdio() {
    let cases = [
        ("book_flight", r#"{"departureDate":"12/12/2024"}"#),
        ("book_flight", r#"{"departureDate":"12/12/2099"}"#),
        ("book_flight", r#"{"departureDate":"2099-12-12"}"#),
        ("get_flight_status", r#"{"flightNumber":"LH123"}"#),
        ("cancel_booking", r#"{"bookingRef":"SL-1"}"#),
        ("no_such_tool", "{}"),
    ];
    for style in ["sep1303", "legacy"] {
        let server = Server::demo(style);
        for era in ["legacy", "modern", "auto"] {
            for (tool, arguments) in cases {
                let over_http = call(tool, arguments, &["--url", &server.url, "--era", era]);
                let over_stdio = call(tool, arguments, &["--demo", style, "--era", era]);
                assert_eq!(
                    verdict(&over_http.0),
                    verdict(&over_stdio.0),
                    "{style} style, {era} era, {tool} {arguments}"
                );
                assert_eq!(over_http.1, over_stdio.1, "exit code");
            }
        }
    }
}

#[test]
fn progress_arrives_on_the_event_stream_before_the_answer() {
    let server = Server::demo("sep1303");
    for era in ["legacy", "modern"] {
        let output = Command::new(BIN)
            .args(["call", "slow_search", r#"{"seconds":1}"#, "-v"])
            .args(["--url", &server.url, "--era", era])
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&output.stderr);
        let progress = log.find("notifications/progress").unwrap_or(usize::MAX);
        let answer = log.find("Searched for 1 s").unwrap_or(0);
        assert!(
            progress < answer,
            "{era}: progress, then the answer:\n{log}"
        );
        assert_eq!(output.status.code(), Some(0));
    }
}

#[test]
fn http_failures_are_transport_failures_said_in_words() {
    let cases = [
        (
            "unauthorized",
            "initialize",
            "HTTP 401 Unauthorized: the server wants authorization (WWW-Authenticate: Bearer realm=\"mcp\"); authorization: dynamic registration failed (HTTP 401 Unauthorized); give a client with --client-id",
        ),
        (
            "bad-gateway",
            "call",
            "HTTP 502 Bad Gateway: the server (or a proxy before it) failed; the body starts: <html>",
        ),
        (
            "not-acceptable",
            "call",
            "HTTP 406 Not Acceptable: the server would not accept what sightline sent: please report it as a bug",
        ),
        (
            "not-json",
            "call",
            "HTTP 200 OK: an answer that is not JSON-RPC; the body starts: Internal error",
        ),
        (
            "sse-cut",
            "call",
            "the stream ended before the response; resuming failed: HTTP 405 Method Not Allowed",
        ),
        ("silent", "call", "timeout: no reply within 2 s"),
    ];
    for (mode, stage, detail) in cases {
        let server = Server::fault(mode);
        let start = Instant::now();
        let output = Command::new(BIN)
            .args([
                "call",
                "boom",
                "{}",
                "--json",
                "--era",
                "legacy",
                "--timeout",
                "2",
            ])
            .args(["--url", &server.url])
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&output.stdout).unwrap();
        let outcome = &json["outcome"];
        assert_eq!(outcome["class"], "transport_failure", "{mode}: {outcome}");
        assert_eq!(outcome["stage"], stage, "{mode}");
        assert!(
            outcome["detail"].as_str().unwrap().contains(detail),
            "{mode}: {outcome}"
        );
        assert_eq!(output.status.code(), Some(4), "{mode}");
        assert!(
            start.elapsed() < Duration::from_secs(4),
            "{mode}: within the timeout"
        );
        assert!(
            json["http"].is_object() || mode == "silent",
            "{mode}: {json}"
        );
    }
}

#[test]
fn a_json_rpc_error_with_an_http_error_status_is_a_protocol_error() {
    let server = Server::fault("error-400");
    let (output, code) = call("boom", "{}", &["--url", &server.url, "--era", "legacy"]);
    assert_eq!(output["outcome"]["class"], "protocol_error");
    assert_eq!(output["outcome"]["code"], -32602);
    assert_eq!(code, 3);
}

#[test]
fn a_config_file_names_stdio_and_http_servers() {
    let server = Server::demo("legacy");
    let dir = std::env::temp_dir().join(format!("sightline-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    let config = serde_json::json!({"mcpServers": {
        "local": {"command": BIN, "args": ["demo-server", "--style", "${STYLE}"]},
        "remote": {"type": "http", "url": server.url, "headers": {"X-Demo": "${env:STYLE}"}},
    }});
    std::fs::write(&file, config.to_string()).unwrap();
    let file = file.to_string_lossy().into_owned();
    for name in ["local", "remote"] {
        let output = Command::new(BIN)
            .args([
                "call",
                "book_flight",
                r#"{"departureDate":"12/12/2024"}"#,
                "--json",
            ])
            .args(["--config", &file, "--server", name])
            .env("STYLE", "legacy")
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["outcome"]["code"], -32602, "{name}: {json}");
        assert_eq!(output.status.code(), Some(3), "{name}");
    }
    let ambiguous = Command::new(BIN)
        .args(["tools", "--config", &file])
        .output()
        .unwrap();
    assert_eq!(ambiguous.status.code(), Some(2), "a usage error");
    let message = String::from_utf8_lossy(&ambiguous.stderr);
    assert!(
        message.contains("2 servers (local, remote): pick one with --server NAME"),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Servers built on the official SDKs, over their own Streamable HTTP transports (installed by
/// `tests/peers/install.sh`): a past date is a tool error, in every era each speaks.
#[test]
fn official_sdk_servers_over_http() {
    let peers = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers");
    let typescript = Server::start("node", &[&format!("{peers}/ts_server.mjs"), "--http"]);
    let python = Server::start(
        &format!("{peers}/.venv/bin/python"),
        &[&format!("{peers}/py_server.py"), "--http"],
    );
    // The deprecated HTTP+SSE transport (2024-11-05), reached by the spec's fallback rule.
    let python_sse = Server::start(
        &format!("{peers}/.venv/bin/python"),
        &[&format!("{peers}/py_server.py"), "--sse"],
    );
    let cases = [
        (&typescript, "auto", "legacy"),
        (&typescript, "legacy", "legacy"),
        (&python, "auto", "modern"),
        (&python, "legacy", "legacy"),
        (&python, "modern", "modern"),
        (&python_sse, "auto", "legacy"),
        (&python_sse, "legacy", "legacy"),
    ];
    for (server, era, spoken) in cases {
        let started = Instant::now();
        let (output, code) = loop {
            // The Python server takes a moment to listen after printing its URL.
            let (output, code) = call(
                "book_flight",
                r#"{"departureDate":"12/12/2024"}"#,
                &["--url", &server.url, "--era", era],
            );
            if code != 4 || started.elapsed() > Duration::from_secs(20) {
                break (output, code);
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        assert_eq!(
            output["outcome"]["class"], "tool_error",
            "{} {era}: {output}",
            server.url
        );
        assert_eq!(output["server"]["era"], spoken, "{} {era}", server.url);
        assert!(
            output["model_view"]["text"]
                .as_str()
                .unwrap()
                .contains("must be in the future"),
            "the model reads why"
        );
        assert_eq!(code, 1);
        if server.url.ends_with("/sse") {
            let posted_to = output["http"]["url"].as_str().unwrap();
            assert!(posted_to.contains("/messages/?session_id="), "{posted_to}");
        }
    }
}

/// HTTP+SSE: an answer read off the stream before its POST's `202` still carries that POST (a
/// loaded CI machine lost it from `call --json` once).
#[test]
fn an_answer_on_the_stream_before_its_post_is_accepted_keeps_the_post() {
    let server = Server::fault("answer-first");
    let output = Command::new(BIN)
        .args(["call", "boom", "{}", "--json", "--url", &server.url])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["outcome"]["class"], "success", "{json}");
    assert_eq!(json["server"]["era"], "legacy", "{json}");
    let posted_to = json["http"]["url"].as_str().unwrap_or_default();
    assert!(posted_to.ends_with("/messages?session_id=1"), "{json}");
    assert_eq!(json["http"]["status"], 202, "{json}");
}

#[test]
fn a_header_mismatch_lists_the_tools_again_and_retries_once() {
    let server = Server::fault("mismatch");
    let output = Command::new(BIN)
        .args(["call", "boom", "{}", "--json", "-v", "--era", "modern"])
        .args(["--url", &server.url])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["outcome"]["class"], "success", "{json}");
    assert_eq!(json["model_view"]["text"], "done on try 2");
    let log = String::from_utf8_lossy(&output.stderr);
    let mismatch = log.find("-32020").unwrap_or(usize::MAX);
    let note = log.find("retrying the call once").unwrap_or(usize::MAX);
    let relisted = log[note.min(log.len())..].find("tools/list");
    assert!(mismatch < note && relisted.is_some(), "{log}");
}

/// One raw HTTP/1.1 exchange: the status line of the answer.
fn status_line(url: &str, request: &str) -> String {
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut stream = TcpStream::connect(address).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn the_demo_server_refuses_foreign_origins_and_offers_post_only() {
    let server = Server::demo("sep1303");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let post = |origin: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{origin}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    assert!(status_line(&server.url, &post("Origin: https://evil.example\r\n")).contains(" 403 "));
    assert!(status_line(&server.url, &post("Origin: http://localhost:5173\r\n")).contains(" 200 "));
    assert!(status_line(&server.url, &post("")).contains(" 200 "));
    let get =
        "GET /mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept: text/event-stream\r\n\r\n";
    assert!(status_line(&server.url, get).contains(" 405 "));
    // 2026-07-28: headers that disagree with `_meta` are refused with -32020.
    let modern = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let mismatch = format!(
        "POST /mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\nMCP-Protocol-Version: 2025-11-25\r\nMcp-Method: tools/list\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{modern}",
        modern.len()
    );
    assert!(status_line(&server.url, &mismatch).contains(" 400 "));
}

/// A legacy session that expires (404 to a request with its id) is started again: the failed
/// call says so, and the next one goes out after a new `initialize`, in a new session.
#[tokio::test]
async fn an_expired_session_is_started_again_with_initialize() {
    let server = Server::fault("expire");
    let (mut client, log) = http_client(&server.url, EraChoice::Legacy).await;
    let first = client.call_tool("boom", serde_json::json!({})).await;
    let outcome = sightline::classify::classify(&first);
    assert!(
        outcome.detail.contains("HTTP 404 Not Found"),
        "{}",
        outcome.detail
    );
    let second = client.call_tool("boom", serde_json::json!({})).await;
    let text = second
        .response()
        .map(|frame| frame.raw.to_string())
        .unwrap_or_default();
    assert!(text.contains("called in session-2"), "{text}");
    client.shutdown().await;
    let notes: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .filter_map(|line| line.strip_prefix("note: ").map(str::to_owned))
        .collect();
    assert!(
        notes
            .iter()
            .any(|note| note.contains("the server ended the HTTP session (404")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|note| note.contains("initialize again")),
        "{notes:?}"
    );
    let sessions: Vec<&String> = notes
        .iter()
        .filter(|note| note.starts_with("HTTP session "))
        .collect();
    assert_eq!(
        sessions,
        ["HTTP session session-1", "HTTP session session-2"]
    );
}

#[test]
fn a_legacy_session_is_named_in_the_output() {
    let server = Server::demo("sep1303");
    let (json, _) = call(
        "book_flight",
        "{}",
        &["--url", &server.url, "--era", "legacy"],
    );
    let session = json["server"]["http_session"].as_str().unwrap_or_default();
    assert!(session.starts_with("demo-session-"), "{json}");
    let (modern, _) = call(
        "book_flight",
        "{}",
        &["--url", &server.url, "--era", "modern"],
    );
    assert_eq!(
        modern["server"]["http_session"],
        Value::Null,
        "no sessions in 2026-07-28"
    );
    let human = Command::new(BIN)
        .args([
            "call",
            "book_flight",
            "{}",
            "--era",
            "legacy",
            "--url",
            &server.url,
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&human.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains("· http: 127.0.0.1:") && first.contains("· session demo-ses…"),
        "{first}"
    );
}

/// In 2026-07-28, cancelling closes the request's own stream (the server MUST treat that as
/// cancellation) instead of sending `notifications/cancelled`; the session goes on.
#[tokio::test]
async fn a_modern_cancellation_closes_the_stream() {
    let server = Server::demo("sep1303");
    let (mut client, log) = http_client(&server.url, EraChoice::Modern).await;
    let (cancel, cancelled) = tokio::sync::oneshot::channel();
    let started = Instant::now();
    let call =
        client.call_tool_cancellable("slow_search", serde_json::json!({"seconds": 10}), cancelled);
    let sent = Arc::clone(&log);
    let (exchange, ()) = tokio::join!(call, async {
        // Cancelled once the call has gone out (the stream is the call's answer).
        while !sent
            .lock()
            .unwrap()
            .iter()
            .any(|line| line.starts_with("sent: ") && line.contains("slow_search"))
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let _ = cancel.send(());
    });
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "cancelled, not waited out"
    );
    assert_eq!(
        sightline::classify::classify(&exchange).class,
        sightline::classify::Class::TransportFailure
    );
    let after = client
        .call_tool(
            "book_flight",
            serde_json::json!({"departureDate": "12/12/2099"}),
        )
        .await;
    assert_eq!(
        sightline::classify::classify(&after).class,
        sightline::classify::Class::Success,
        "the session goes on"
    );
    client.shutdown().await;
    let log = log.lock().unwrap();
    assert!(
        log.iter()
            .any(|line| line.contains("closed the stream of #")),
        "{log:#?}"
    );
    assert!(
        !log.iter()
            .any(|line| line.starts_with("sent:") && line.contains("notifications/cancelled")),
        "closing the stream is the cancellation: {log:#?}"
    );
}

/// A client over HTTP in `era`, and what its log records: `note: …` and `sent: <frame>` lines.
async fn http_client(url: &str, era: EraChoice) -> (SessionRunner, Arc<Mutex<Vec<String>>>) {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&log);
    let sink = sightline::stream::EventSink::taps_only().with_tap(move |event| {
        if let SessionEvent::Logged(entry) = event {
            let line = match &entry.event {
                LogEvent::Note(text) => format!("note: {text}"),
                LogEvent::Sent(frame) => format!("sent: {}", frame.raw),
                _ => return,
            };
            seen.lock().unwrap().push(line);
        }
    });
    let target = Target::Http(HttpTarget {
        url: url.to_owned(),
        headers: Vec::new(),
        client: None,
        token_cache: None,
        client_metadata_url: None,
        grant: None,
        dpop: sightline::transport::DpopChoice::Auto,
    });
    let options = SessionOptions {
        era,
        timeout: Duration::from_secs(20),
        ..SessionOptions::default()
    };
    (runner::connect(&target, options, sink).await.unwrap(), log)
}

/// The value of header `name` in an `http` member's header list.
fn header<'a>(headers: &'a Value, name: &str) -> Option<&'a str> {
    headers.as_array()?.iter().find(|pair| {
        pair[0]
            .as_str()
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
    })?[1]
        .as_str()
}

#[test]
fn a_broken_legacy_stream_is_resumed_with_last_event_id_after_the_retry_it_named() {
    let server = Server::fault("sse-resume");
    let (output, code) = call("boom", "{}", &["--url", &server.url, "--era", "legacy"]);
    assert_eq!(code, 0, "{output}");
    let text = output["model_view"]["text"].as_str().unwrap();
    let waited: u64 = text
        .rsplit(", ")
        .next()
        .and_then(|tail| tail.split(' ').next())
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(text.starts_with("resumed after event 8"), "{text}");
    assert!(waited >= 300, "the retry of 300 ms was respected: {text}");
    // The answer came on the resuming GET, and its details say so.
    let http = &output["http"];
    assert_eq!(http["method"], "GET");
    assert_eq!(header(&http["request_headers"], "last-event-id"), Some("8"));
    assert_eq!(
        header(&http["request_headers"], "mcp-session-id"),
        Some("session-1")
    );
    assert_eq!(http["event_ids"], serde_json::json!(["9"]));
}

#[test]
fn a_lost_modern_stream_is_re_issued_under_a_new_id() {
    let server = Server::fault("sse-lost");
    let output = Command::new(BIN)
        .args(["call", "boom", "{}", "--json", "-v", "--era", "modern"])
        .args(["--url", &server.url])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["outcome"]["class"], "success", "{json}");
    assert_eq!(
        json["request"]["id"], 4,
        "a new id for the re-issued request"
    );
    assert_eq!(json["model_view"]["text"], "answered on try 2, id 4");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.contains("the stream of #3 (tools/call) was lost before its response: re-issuing"),
        "{log}"
    );
    assert!(!log.contains("notifications/cancelled"), "{log}");
}

#[test]
fn a_400_without_a_session_sends_auto_back_to_initialize() {
    let server = Server::fault("session-required");
    let (output, code) = call("boom", "{}", &["--url", &server.url, "--era", "auto"]);
    assert_eq!(code, 0, "{output}");
    assert_eq!(output["server"]["era"], "legacy");
    assert_eq!(output["model_view"]["text"], "called in session-1");
}

#[test]
fn http_findings_name_what_the_server_did_on_the_wire() {
    let cases = [
        ("sse-cut", "http.event-stream-without-response"),
        ("stale-session", "http.stale-session-not-404"),
    ];
    for (mode, finding) in cases {
        let server = Server::fault(mode);
        let (output, _) = call("boom", "{}", &["--url", &server.url, "--era", "legacy"]);
        let ids: Vec<&str> = output["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|finding| finding["id"].as_str())
            .collect();
        assert_eq!(ids, [finding], "{mode}: {output}");
    }
}

#[test]
fn secrets_in_http_details_are_masked_unless_asked_for() {
    let server = Server::demo("sep1303");
    let arguments = r#"{"departureDate":"12/12/2024"}"#;
    let secret = [
        "-H",
        "Authorization: Bearer s3cr3t",
        "-H",
        "X-Api-Key: k3y",
        "-H",
        "X-Tenant: acme",
    ];
    let mut masked = vec!["--url", server.url.as_str()];
    masked.extend(secret);
    let (output, _) = call("book_flight", arguments, &masked);
    let headers = &output["http"]["request_headers"];
    assert_eq!(header(headers, "authorization"), Some("Bearer ****"));
    assert_eq!(header(headers, "x-api-key"), Some("****"));
    assert_eq!(header(headers, "x-tenant"), Some("acme"));
    assert!(!output.to_string().contains("s3cr3t"));
    masked.push("--show-secrets");
    let (output, _) = call("book_flight", arguments, &masked);
    let headers = &output["http"]["request_headers"];
    assert_eq!(header(headers, "authorization"), Some("Bearer s3cr3t"));
    assert_eq!(header(headers, "mcp-name"), Some("book_flight"));
    assert_eq!(output["http"]["status"], 200);
}

#[test]
fn tool_parameters_marked_x_mcp_header_are_mirrored_and_bad_annotations_rejected() {
    let server = Server::fault("param-headers");
    let url = ["--url", server.url.as_str(), "--era", "modern"];
    // The server checks the header against the body: a mismatch would be 400 -32020.
    let (output, code) = call("execute_sql", r#"{"region":"us-west1","query":"q"}"#, &url);
    assert_eq!(code, 0, "{output}");
    assert_eq!(
        output["model_view"]["text"],
        "Region header: us-west1 (sent as us-west1)"
    );
    let (output, _) = call(
        "execute_sql",
        r#"{"region":"Hello, 世界","query":"q"}"#,
        &url,
    );
    assert_eq!(
        output["model_view"]["text"],
        "Region header: Hello, 世界 (sent as =?base64?SGVsbG8sIOS4lueVjA==?=)"
    );
    // A number cannot be mirrored: the tool is listed, marked, and out of the model's reach.
    let listing = Command::new(BIN)
        .args(["tools", "--json"])
        .args(url)
        .output()
        .unwrap();
    let listing: Value = serde_json::from_slice(&listing.stdout).unwrap();
    assert_eq!(listing["tools"].as_array().unwrap().len(), 2);
    assert_eq!(listing["rejected"][0]["name"], "bad_tool");
    // Excluded by default, as 2026-07-28 asks: nothing is sent, and the user is told how.
    let refused = Command::new(BIN)
        .args([
            "call",
            "bad_tool",
            r#"{"count":1}"#,
            "--json",
            "--timeout",
            "5",
        ])
        .args(url)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("'bad_tool' is not called") && said.contains("--allow-invalid-tool-headers"),
        "{said}"
    );
    let allowed = [&url[..], &["--allow-invalid-tool-headers"]].concat();
    let (output, code) = call("bad_tool", r#"{"count":1}"#, &allowed);
    assert_eq!(code, 0, "the server answered: {output}");
    assert_eq!(output["findings"][0]["id"], "http.tool-rejected");
    assert_eq!(output["model_view"]["forwarded"], false);
    assert_eq!(output["model_view"]["rule"], "DROPPED");
}

#[test]
fn check_headers_finds_a_modern_server_that_does_not_validate_them() {
    let demo = Server::demo("sep1303");
    let unchecked = Server::fault("unchecked");
    for (server, expected) in [
        (&demo, None),
        (&unchecked, Some("http.headers-not-checked")),
    ] {
        let output = Command::new(BIN)
            .args([
                "tools",
                "--json",
                "--check-headers",
                "--era",
                "modern",
                "-v",
            ])
            .args(["--url", &server.url])
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["findings"][0]["id"].as_str(), expected, "{json}");
        let log = String::from_utf8_lossy(&output.stderr);
        assert!(
            log.contains("header check: tools/list sent with Mcp-Method: prompts/list"),
            "the probe is said in the log: {log}"
        );
        if expected.is_none() {
            assert!(log.contains("rejected with -32020"), "{log}");
        }
    }
}

/// A server may send a request of its own outside any request's stream (the TypeScript SDK's
/// server drops it when no GET stream is open): the session's first request waits until the
/// GET is answered, and no longer than a second when it never is.
#[test]
fn the_first_request_waits_for_the_servers_own_stream_to_open() {
    let server = Server::fault("late-stream");
    let (output, code) = call("boom", "{}", &["--url", &server.url, "--era", "legacy"]);
    assert_eq!(code, 0, "{output}");
    assert_eq!(
        output["model_view"]["text"],
        "the stream was open at the first request"
    );

    let server = Server::fault("held-stream");
    let started = Instant::now();
    let output = Command::new(BIN)
        .args([
            "call",
            "boom",
            "{}",
            "--json",
            "--verbose",
            "--timeout",
            "5",
        ])
        .args(["--url", &server.url, "--era", "legacy"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["model_view"]["text"],
        "the stream was not open yet at the first request"
    );
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.contains("the GET stream has not opened after 1000 ms: requests go on without it"),
        "{log}"
    );
    assert!(started.elapsed() < Duration::from_secs(4), "{log}");
}
