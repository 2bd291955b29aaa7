//! A hostile or broken server never panics sightline, never reaches the terminal raw, and
//! never makes a frame disappear: crash mid-call, escape sequences, huge payloads, garbage,
//! silence. The server is `tests/peers/hostile_server.py` (Python stdlib only).

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

fn against(mode: &str, args: &[&str]) -> Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    Command::new(BIN)
        .args(args)
        .args(["--era", "legacy", "--", "python3", script, mode])
        .output()
        .expect("sightline runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("sightline writes UTF-8")
}

fn assert_terminal_safe(output: &str) {
    for forbidden in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
        assert!(
            !output.contains(forbidden),
            "raw {forbidden:?} reached the terminal:\n{output}"
        );
    }
}

#[test]
fn a_server_that_exits_mid_call_is_a_transport_failure_with_status_and_stderr() {
    let output = against("crash", &["call", "boom"]);
    assert_eq!(output.status.code(), Some(4));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("← no response"), "{stdout}");
    assert!(
        stdout.contains("outcome  transport failure: server exited before answering (exit code 3)"),
        "{stdout}"
    );
    assert!(stdout.contains("  | fatal: the tool crashed"), "{stdout}");
    let json = against("crash", &["call", "boom", "--json"]);
    let value: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["outcome"]["class"], "transport_failure");
    assert_eq!(value["response"], Value::Null);
}

#[test]
fn escape_sequences_from_the_server_are_shown_never_interpreted() {
    let output = against("escape", &["call", "boom"]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = text(&output.stdout);
    assert_terminal_safe(&stdout);
    assert!(
        stdout.contains(r"\u001b[2J"),
        "escapes must stay visible: {stdout}"
    );
    assert!(
        stdout.contains(r"hostile\u{1b}]0;pwned\u{7}"),
        "server name: {stdout}"
    );
    let json = against("escape", &["call", "boom", "--json", "-v"]);
    let stdout = text(&json.stdout);
    assert_terminal_safe(&stdout);
    assert_terminal_safe(&text(&json.stderr));
    // Escaped, the JSON value is still exactly what the server sent.
    let value: Value = serde_json::from_str(&stdout).unwrap();
    let sent = value["response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        sent.starts_with("\u{1b}[2J\u{1b}[H\u{1b}]52;c;"),
        "{sent:?}"
    );
    assert!(sent.ends_with("\u{9b}31m \u{202e}evil"), "{sent:?}");
    let tools = against("escape", &["tools"]);
    assert_terminal_safe(&text(&tools.stdout));
}

#[test]
fn a_huge_result_arrives_whole_and_one_over_the_limit_is_reported_not_buffered() {
    let output = against("huge", &["call", "boom", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        value["response"]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .len(),
        10 * 1024 * 1024
    );
    let output = against(
        "huge",
        &["call", "boom", "--json", "--max-frame-bytes", "1000000"],
    );
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let detail = value["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("exceeds the 1000000-byte limit"),
        "{detail}"
    );
}

#[test]
fn garbage_on_stdout_is_logged_for_what_it_is_and_the_call_still_succeeds() {
    let output = against("garbage", &["call", "boom", "-v"]);
    assert_eq!(output.status.code(), Some(0));
    let log = text(&output.stderr);
    assert!(
        log.contains("✗ not JSON: expected value at line 1 column 1: Listening on stdio..."),
        "{log}"
    );
    assert!(log.contains("✗ not UTF-8 at byte 0"), "{log}");
    assert!(
        log.contains(r#"✗ not a JSON-RPC message: `jsonrpc` must be "2.0": {"hello": "world"}"#),
        "{log}"
    );
    assert!(
        log.contains("✗ not a JSON-RPC message: a batch array"),
        "{log}"
    );
    assert!(text(&output.stdout).contains("outcome  success"));
}

#[test]
fn a_silent_server_times_out_locally() {
    let output = against("silent", &["call", "boom", "--timeout", "0.5", "--json"]);
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        value["outcome"]["detail"]
            .as_str()
            .unwrap()
            .starts_with("timeout: no reply within 500 ms")
    );
}
