//! `call` with several servers, the real binary as a user runs it: the same call to each, one
//! block (or JSON object) per server in the order given, the comparison, the worst exit code;
//! and every other command refusing several servers.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::peers::{ts, ts_pre1303};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_sightline");
const PAST: &str = r#"{"departureDate":"12/12/2024"}"#;

fn sightline(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("sightline runs")
}

/// The exit code and the JSON array on stdout.
fn objects(args: &[&str]) -> (i32, Vec<Value>) {
    let output = sightline(args);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let value: Value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON ({error}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let Value::Array(objects) = value else {
        panic!("not an array: {stdout}")
    };
    (output.status.code().unwrap(), objects)
}

fn classes(objects: &[Value]) -> Vec<&str> {
    objects
        .iter()
        .map(|object| object["outcome"]["class"].as_str().unwrap_or("none"))
        .collect()
}

/// An mcp.json with these entries (name, command and its arguments), in a file of its own.
fn config(name: &str, entries: &[(&str, Vec<String>)]) -> PathBuf {
    let servers: serde_json::Map<String, Value> = entries
        .iter()
        .map(|(entry, command)| {
            let (program, args) = command.split_first().unwrap();
            (
                (*entry).to_owned(),
                json!({"command": program, "args": args}),
            )
        })
        .collect();
    let path = std::env::temp_dir().join(format!(
        "sightline-side-by-side-{name}-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, json!({"mcpServers": servers}).to_string()).unwrap();
    path
}

fn demo(style: &str) -> Vec<String> {
    [BIN, "demo-server", "--style", style]
        .map(str::to_owned)
        .to_vec()
}

/// A peer's command with its script made absolute (the file may be read from anywhere).
fn absolute(mut command: Vec<String>) -> Vec<String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(&command[1]);
    command[1] = script.to_string_lossy().into_owned();
    command
}

#[test]
fn the_two_demo_styles_are_the_sep1303_demonstration_in_one_array() {
    let (code, objects) = objects(&[
        "call",
        "book_flight",
        PAST,
        "--demo",
        "legacy",
        "--demo",
        "sep1303",
        "--json",
    ]);
    assert_eq!(classes(&objects), ["protocol_error", "tool_error"]);
    assert_eq!(objects[0]["outcome"]["code"], -32602);
    for object in &objects {
        assert!(object["model_view"].is_object(), "{object:#}");
        assert_eq!(object["server"]["name"], "sightline-demo");
    }
    assert_eq!(objects[0]["model_view"]["forwarded"], false);
    assert_eq!(objects[1]["model_view"]["forwarded"], true);
    assert_eq!(
        code, 3,
        "the worst of protocol error (3) and tool error (1)"
    );
}

#[test]
fn the_text_has_one_block_per_server_then_the_comparison() {
    let output = sightline(&[
        "call",
        "book_flight",
        PAST,
        "--demo",
        "legacy",
        "--demo",
        "sep1303",
    ]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(3), "{text}");
    let first = text
        .find("── 1/2 · sightline-demo 0.1.0 (legacy style) ──")
        .expect(&text);
    let second = text
        .find("── 2/2 · sightline-demo 0.1.0 (sep1303 style) ──")
        .expect(&text);
    let comparison = text.find("── side by side: book_flight ──").expect(&text);
    assert!(first < second && second < comparison, "{text}");
    // Each block is the whole `call` text: the request, the response, what the model sees.
    for block in [&text[first..second], &text[second..comparison]] {
        assert!(block.contains("→ request"), "{block}");
        assert!(block.contains("← response"), "{block}");
    }
    let rows: Vec<&str> = text[comparison..].lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].starts_with("1/2  sightline-demo 0.1.0 (legacy style)"));
    assert!(
        rows[0].contains("protocol error  -32602  not forwarded  exit 3"),
        "{}",
        rows[0]
    );
    assert!(rows[1].contains("tool error"), "{}", rows[1]);
    assert!(rows[1].contains(" forwarded "), "{}", rows[1]);
    assert!(rows[1].contains("exit 1"), "{}", rows[1]);
}

#[test]
fn a_config_file_names_the_servers_in_the_order_given() {
    let file = config("styles", &[("a", demo("legacy")), ("b", demo("sep1303"))]);
    let file = file.to_str().unwrap();
    let (code, forward) = objects(&[
        "call",
        "book_flight",
        PAST,
        "--config",
        file,
        "--server",
        "a",
        "--server",
        "b",
        "--json",
    ]);
    assert_eq!(classes(&forward), ["protocol_error", "tool_error"]);
    assert_eq!(code, 3);
    let (_, backward) = objects(&[
        "call",
        "book_flight",
        PAST,
        "--config",
        file,
        "--server",
        "b",
        "--server",
        "a",
        "--json",
    ]);
    assert_eq!(classes(&backward), ["tool_error", "protocol_error"]);

    let output = sightline(&[
        "call",
        "book_flight",
        PAST,
        "--config",
        file,
        "--server",
        "a",
        "--server",
        "b",
    ]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("── 1/2 · sightline-demo 0.1.0 (legacy style) (a) ──"),
        "{text}"
    );
    assert!(
        text.contains("── 2/2 · sightline-demo 0.1.0 (sep1303 style) (b) ──"),
        "{text}"
    );
}

/// The TypeScript SDK 1.20.2 and 1.32.2: what the upgrade changes. A past date throws in the
/// tool's own handler, a tool error in both; an argument its schema refuses was -32602 before
/// and is a tool error after.
#[test]
fn two_sdk_versions_of_one_server_show_what_the_upgrade_changes() {
    let file = config(
        "sdk",
        &[
            ("before", absolute(ts_pre1303())),
            ("after", absolute(ts())),
        ],
    );
    let file = file.to_str().unwrap();
    let both = [
        "--config", file, "--server", "before", "--server", "after", "--json",
    ];
    let (code, past) = objects(&[&["call", "book_flight", PAST], &both[..]].concat());
    assert_eq!(classes(&past), ["tool_error", "tool_error"], "{past:#?}");
    assert_eq!(code, 1);
    assert_eq!(past[0]["server"]["name"], "sightline-ts-peer-pre1303");
    for object in &past {
        let text = object["model_view"].to_string();
        assert!(text.contains("must be in the future"), "{text}");
    }

    let wrong_type = r#"{"departureDate":5}"#;
    let (code, refused) = objects(&[&["call", "book_flight", wrong_type], &both[..]].concat());
    assert_eq!(
        classes(&refused),
        ["protocol_error", "tool_error"],
        "{refused:#?}"
    );
    assert_eq!(refused[0]["outcome"]["code"], -32602);
    assert_eq!(refused[0]["model_view"]["forwarded"], false);
    assert_eq!(refused[1]["model_view"]["forwarded"], true);
    assert_eq!(code, 3);
}

#[test]
fn a_server_that_cannot_be_reached_fails_in_its_place_and_the_others_still_run() {
    let file = config(
        "down",
        &[
            (
                "down",
                vec!["/nonexistent/sightline-no-such-server".to_owned()],
            ),
            ("up", demo("sep1303")),
        ],
    );
    let file = file.to_str().unwrap();
    let servers = ["--config", file, "--server", "down", "--server", "up"];
    let (code, objects) =
        objects(&[&["call", "book_flight", PAST, "--json"], &servers[..]].concat());
    assert_eq!(classes(&objects), ["transport_failure", "tool_error"]);
    assert!(objects[0]["server"].is_null());
    assert_eq!(objects[1]["server"]["name"], "sightline-demo");
    assert_eq!(code, 4, "a transport failure is the worst");

    let output = sightline(&[&["call", "book_flight", PAST], &servers[..]].concat());
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(4));
    let down = text.find("── 1/2 · down, not reached ──").expect(&text);
    let up = text
        .find("── 2/2 · sightline-demo 0.1.0 (sep1303 style) (up) ──")
        .expect(&text);
    assert!(
        text[down..up].contains("sightline: could not start"),
        "{text}"
    );
    assert!(text.contains("1/2  down, not reached"), "{text}");
}

#[test]
fn every_other_command_refuses_several_servers() {
    let file = config("refused", &[("a", demo("legacy")), ("b", demo("sep1303"))]);
    let file = file.to_str().unwrap();
    let demos = ["--demo", "legacy", "--demo", "sep1303"];
    let entries = ["--config", file, "--server", "a", "--server", "b"];
    let cases: [(Vec<&str>, &str); 5] = [
        ([&["tools"], &demos[..]].concat(), "--demo"),
        ([&["audit"], &entries[..]].concat(), "--server"),
        ([&["tools", "--json"], &entries[..]].concat(), "--server"),
        // The TUI opens several, but records one session.
        (
            [&["--record", "/tmp/x.jsonl"], &demos[..]].concat(),
            "--record",
        ),
        (
            [
                &["call", "book_flight", PAST, "--record", "/tmp/x.jsonl"],
                &demos[..],
            ]
            .concat(),
            "--record",
        ),
    ];
    for (args, option) in cases {
        let output = sightline(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(option), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}: nothing runs");
    }
}
