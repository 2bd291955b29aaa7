//! End to end: `subscribe` and `complete`, the real binary against the built-in demo server in
//! both eras (stdio and HTTP) and the official everything server (stdio and HTTP): a
//! subscription shows the board's updates and ends with an unsubscribe (2026-07-28: the listen
//! stream cancelled), completion offers the values that start with what was typed.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::process::{Command, Output};

use serde_json::Value;

mod common;

use common::peers::everything;
use common::servers::Server;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");
const BOARD: &str = "demo://departures";

fn sightline(args: &[&str], server: &[String]) -> Output {
    Command::new(BIN)
        .args(args)
        .args(server)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// The exit code and each JSON line of `args --json`.
fn json_lines(args: &[&str], server: &[String]) -> (i32, Vec<Value>) {
    let mut args = args.to_vec();
    args.push("--json");
    let output = sightline(&args, server);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines = stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|error| {
                panic!(
                    "{args:?}: a line is not JSON ({error}): {line}\nstderr: {}",
                    String::from_utf8_lossy(&output.stderr)
                )
            })
        })
        .collect();
    (output.status.code().unwrap(), lines)
}

fn events(lines: &[Value]) -> Vec<&str> {
    lines
        .iter()
        .map(|line| line["event"].as_str().unwrap())
        .collect()
}

fn everything_stdio() -> Vec<String> {
    let mut server = vec!["--".to_owned()];
    server.extend(everything());
    server.push("stdio".into());
    server
}

/// The demo's selections: each era over stdio and over HTTP.
fn demo_selections(http: &Server) -> Vec<(String, Vec<String>)> {
    let mut selections = Vec::new();
    for era in ["legacy", "modern"] {
        selections.push((format!("{era} stdio"), vec!["--era".into(), era.into()]));
        selections.push((
            format!("{era} http"),
            vec!["--era".into(), era.into(), "--url".into(), http.url.clone()],
        ));
    }
    selections
}

#[test]
fn a_subscription_to_the_board_hears_its_updates_and_ends_in_each_era_and_transport() {
    let http = Server::demo("sep1303");
    for (name, server) in demo_selections(&http) {
        let (code, lines) = json_lines(&["subscribe", BOARD, "--for", "4.5"], &server);
        assert_eq!(code, 0, "{name}: {lines:#?}");
        let events = events(&lines);
        let updates = events.iter().filter(|event| **event == "updated").count();
        assert!(updates >= 1, "{name}: {events:?}");
        assert_eq!(events.last(), Some(&"ended"), "{name}");
        let last = lines.last().unwrap();
        assert_eq!(last["summary"]["updates"], updates, "{name}");
        if name.starts_with("legacy") {
            assert_eq!(events.first(), Some(&"subscribed"), "{name}: {events:?}");
            assert_eq!(
                lines[0]["exchange"]["outcome"]["class"], "success",
                "{name}"
            );
            assert!(events.contains(&"unsubscribed"), "{name}: {events:?}");
        } else {
            // 2026-07-28: the stream is acknowledged first, and sightline ends it.
            assert_eq!(events.first(), Some(&"acknowledged"), "{name}: {events:?}");
            let ack = &lines[0]["notification"]["params"]["notifications"];
            assert_eq!(ack["resourceSubscriptions"][0], BOARD, "{name}");
            assert_eq!(
                events[events.len() - 2],
                "listen ended",
                "{name}: {events:?}"
            );
            let listen = &lines[lines.len() - 2]["exchange"];
            assert_eq!(
                listen["request"]["method"], "subscriptions/listen",
                "{name}"
            );
            let update = lines
                .iter()
                .find(|line| line["event"] == "updated")
                .unwrap();
            assert!(
                update["notification"]["params"]["_meta"]
                    .get("io.modelcontextprotocol/subscriptionId")
                    .is_some(),
                "{name}: {update:#}"
            );
        }
    }
}

/// `--read` reads the board again at each update: in 2026-07-28 beside the listen stream,
/// which stays open until `--for` ends.
#[test]
fn read_shows_the_board_as_it_stands_at_each_update() {
    let http = Server::demo("sep1303");
    for (name, server) in demo_selections(&http) {
        let output = sightline(&["subscribe", BOARD, "--for", "2.5", "--read"], &server);
        let text = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{name}: {text}");
        assert!(
            text.contains("updated  demo://departures"),
            "{name}: {text}"
        );
        assert!(text.contains("departures · board"), "{name}: {text}");
        assert!(
            text.contains("update in") || text.contains("updates in"),
            "{name}: {text}"
        );
        if name.starts_with("legacy") {
            assert!(
                text.contains("subscribed  resources/subscribe demo://departures · success"),
                "{name}: {text}"
            );
            assert!(
                text.contains("unsubscribed  resources/unsubscribe"),
                "{name}: {text}"
            );
        } else {
            let read = text.find("departures · board").unwrap();
            let ended = text.find("listen ended").expect("the stream ended last");
            assert!(
                read < ended,
                "read while the stream was open: {name}: {text}"
            );
            assert!(text.contains("cancelled by you"), "{name}: {text}");
        }
    }
}

#[test]
fn an_unknown_resource_is_refused_up_to_2025_11_25_and_not_acknowledged_in_2026_07_28() {
    let legacy = ["--era".to_owned(), "legacy".to_owned()];
    let (code, lines) = json_lines(&["subscribe", "demo://nope", "--for", "1"], &legacy);
    assert_eq!(code, 3, "{lines:#?}");
    assert_eq!(lines[0]["exchange"]["outcome"]["code"], -32002);
    let (code, lines) = json_lines(&["subscribe", "demo://nope", "--for", "1"], &[]);
    assert_eq!(code, 0, "{lines:#?}");
    let ack = &lines[0]["notification"]["params"]["notifications"];
    assert_eq!(
        ack["resourceSubscriptions"],
        serde_json::json!([]),
        "{lines:#?}"
    );
}

#[test]
fn the_everything_server_takes_a_subscription_and_an_unsubscribe_over_stdio_and_http() {
    let http = common::servers::Server::everything();
    let uri = "demo://resource/dynamic/text/1";
    for server in [everything_stdio(), vec!["--url".into(), http.url.clone()]] {
        let (code, lines) = json_lines(&["subscribe", uri, "--for", "1"], &server);
        assert_eq!(code, 0, "{server:?}: {lines:#?}");
        assert_eq!(
            events(&lines),
            ["subscribed", "unsubscribed", "ended"],
            "{server:?}"
        );
        assert_eq!(lines[1]["exchange"]["outcome"]["class"], "success");
    }
}

#[test]
fn completion_offers_the_demos_values_in_each_era_and_transport() {
    let http = Server::demo("sep1303");
    for (name, server) in demo_selections(&http) {
        let complete = |args: &[&str]| {
            let mut args = args.to_vec();
            args.push("--json");
            let output = sightline(&args, &server);
            let value: Value = serde_json::from_slice(&output.stdout).unwrap();
            (output.status.code().unwrap(), value)
        };
        let (code, answer) = complete(&["complete", "--prompt", "plan_trip", "destination", "Lo"]);
        assert_eq!(code, 0, "{name}: {answer:#}");
        assert_eq!(answer["values"], serde_json::json!(["London"]), "{name}");
        let (_, answer) = complete(&[
            "complete",
            "--template",
            "flights://{number}",
            "number",
            "l",
        ]);
        assert_eq!(answer["values"], serde_json::json!(["LH123"]), "{name}");
        let (code, answer) = complete(&["complete", "--prompt", "nope", "x", ""]);
        assert_eq!(code, 3, "{name}: {answer:#}");
        assert_eq!(answer["outcome"]["code"], -32602, "{name}");
    }
}

#[test]
fn completion_against_the_everything_server_uses_the_context_over_stdio_and_http() {
    let http = common::servers::Server::everything();
    for server in [everything_stdio(), vec!["--url".into(), http.url.clone()]] {
        let output = sightline(
            &[
                "complete",
                "--prompt",
                "completable-prompt",
                "department",
                "E",
            ],
            &server,
        );
        let text = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{text}");
        assert!(
            text.contains(
                "completion/complete prompt 'completable-prompt' · department 'E'\nEngineering\n"
            ),
            "{text}"
        );
        let output = sightline(
            &[
                "complete",
                "--prompt",
                "completable-prompt",
                "name",
                "",
                "--context",
                r#"{"department":"Sales"}"#,
                "--json",
            ],
            &server,
        );
        let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            answer["values"],
            serde_json::json!(["David", "Eve", "Frank"]),
            "{answer:#}"
        );
        let template = "demo://resource/dynamic/text/{resourceId}";
        let output = sightline(
            &[
                "complete",
                "--template",
                template,
                "resourceId",
                "3",
                "--json",
            ],
            &server,
        );
        let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(answer["values"], serde_json::json!(["3"]), "{answer:#}");
    }
}

#[test]
fn complete_needs_a_prompt_or_a_template_and_json_context() {
    let output = sightline(&["complete", "destination", "Lo"], &[]);
    assert_eq!(output.status.code(), Some(2));
    let output = sightline(
        &[
            "complete",
            "--prompt",
            "plan_trip",
            "date",
            "",
            "--context",
            "{",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--context is not valid JSON"));
}
