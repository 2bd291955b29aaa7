//! End to end against the built-in demo server: the real binary, spawned as a user would,
//! for each style × era and each kind of call that SEP-1303 cares about.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};
use sightline::classify::{Class, classify};
use sightline::mcp::era::EraChoice;
use sightline::runner::{LogEvent, SessionOptions, SessionRunner};
use sightline::stream::{Collector, EventSink};
use sightline::transport::{StdioCommand, stdio};

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

fn sightline(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("sightline runs")
}

fn call_json(style: &str, era: &str, tool: &str, arguments: &str) -> (i32, Value) {
    let output = sightline(&[
        "call", tool, arguments, "--json", "--demo", style, "--era", era,
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON ({error}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap(), value)
}

struct Case {
    name: &'static str,
    tool: &'static str,
    arguments: &'static str,
    validation: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "past date",
        tool: "book_flight",
        arguments: r#"{"departureDate":"12/12/2024"}"#,
        validation: true,
    },
    Case {
        name: "malformed date",
        tool: "book_flight",
        arguments: r#"{"departureDate":"2024-12-12"}"#,
        validation: true,
    },
    Case {
        name: "missing argument",
        tool: "book_flight",
        arguments: r#"{"destination":"Lisbon"}"#,
        validation: true,
    },
    Case {
        name: "wrong type",
        tool: "book_flight",
        arguments: r#"{"departureDate":20241212}"#,
        validation: true,
    },
    Case {
        name: "out of range",
        tool: "slow_search",
        arguments: r#"{"seconds":0}"#,
        validation: true,
    },
    Case {
        name: "unknown tool",
        tool: "no_such_tool",
        arguments: "{}",
        validation: false,
    },
    Case {
        name: "non-object arguments",
        tool: "book_flight",
        arguments: r#""12/12/2024""#,
        validation: false,
    },
];

#[test]
fn every_case_in_every_style_and_era_is_classified_as_the_wire_says() {
    for style in ["sep1303", "legacy"] {
        for era in ["legacy", "modern"] {
            let (code, value) = call_json(
                style,
                era,
                "book_flight",
                r#"{"departureDate":"12/12/2099","destination":"Lisbon"}"#,
            );
            assert_eq!(
                (code, value["outcome"]["class"].as_str()),
                (0, Some("success")),
                "{style}/{era} valid"
            );
            assert_eq!(value["server"]["era"], era);
            for case in CASES {
                let (code, value) = call_json(style, era, case.tool, case.arguments);
                let label = format!("{style}/{era} {}: {value}", case.name);
                assert_eq!(value["server"]["era"], era, "{label}");
                if case.validation && style == "sep1303" {
                    assert_eq!(code, 1, "{label}");
                    assert_eq!(value["outcome"]["class"], "tool_error", "{label}");
                    assert_eq!(value["response"]["result"]["isError"], true, "{label}");
                } else {
                    assert_eq!(code, 3, "{label}");
                    assert_eq!(value["outcome"]["class"], "protocol_error", "{label}");
                    assert_eq!(value["outcome"]["code"], -32602, "{label}");
                    assert_eq!(value["response"]["error"]["code"], -32602, "{label}");
                }
            }
        }
    }
}

#[test]
fn the_sep1303_example_reaches_the_model_only_as_a_tool_error() {
    let (code, value) = call_json(
        "sep1303",
        "auto",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
    );
    assert_eq!(code, 1);
    let text = value["response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.starts_with("Invalid departure date: must be in the future. Current date is "),
        "{text}"
    );
    let view = &value["model_view"];
    assert_eq!(
        (view["forwarded"].as_bool(), view["rule"].as_str()),
        (Some(true), Some("SHOULD"))
    );
    assert_eq!(view["text"], text, "the model reads today's date");
    assert_eq!(value["findings"], json!([]));

    let (code, value) = call_json(
        "legacy",
        "auto",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
    );
    assert_eq!(code, 3);
    let message = value["response"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("Current date is "), "{message}");
    assert_eq!(
        value["findings"][0]["id"],
        "sep1303.validation-as-protocol-error"
    );
    assert_eq!(value["findings"][0]["severity"], "warning");
    let view = &value["model_view"];
    assert_eq!(
        (view["forwarded"].as_bool(), view["rule"].as_str()),
        (Some(false), Some("MAY"))
    );
    assert!(
        !view["text"].as_str().unwrap().contains("Current date"),
        "{view}"
    );

    let output = sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--json",
        "--demo",
        "legacy",
        "--forward-protocol-errors",
    ]);
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let view = &value["model_view"];
    assert_eq!(
        (view["forwarded"].as_bool(), view["rule"].as_str()),
        (Some(true), Some("MAY"))
    );
    assert_eq!(view["less_likely_to_help"], true);
    assert!(
        view["text"].as_str().unwrap().contains("Current date is "),
        "{view}"
    );
}

#[test]
fn host_profiles_decide_what_structured_content_the_model_reads() {
    let run = |host: &str| {
        let output = sightline(&[
            "call",
            "get_flight_status",
            r#"{"flightNumber":"LH123"}"#,
            "--json",
            "--host",
            host,
        ]);
        assert_eq!(output.status.code(), Some(0));
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        (
            value["response"]["result"].clone(),
            value["model_view"].clone(),
        )
    };
    let (result, view) = run("content-only");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        view["blocks"],
        json!([{"kind": "text", "bytes": text.len()}])
    );
    assert_eq!(view["text"], text);
    let (result, view) = run("structured-first");
    let structured = result["structuredContent"].to_string();
    assert_eq!(
        view["blocks"],
        json!([{"kind": "structured", "bytes": structured.len()}])
    );
    assert_eq!(view["text"], structured);
    let output = sightline(&["call", "get_flight_status", "{}", "--host", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("unknown host profile 'nope'; available: spec")
    );
}

/// The SEP-1303 call as real hosts pass it on: the issue's three sentences, by the real binary.
#[test]
fn real_host_profiles_forward_in_their_own_words() {
    let run = |style: &str, host: &str| {
        let args = [
            "call",
            "book_flight",
            r#"{"departureDate":"12/12/2024"}"#,
            "--demo",
            style,
            "--host",
            host,
            "--json",
            "--payload",
        ];
        let output = sightline(&args);
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        (output.status.code(), value["model_view"].clone())
    };
    let (code, agents) = run("legacy", "openai-agents");
    assert_eq!(code, Some(3), "a protocol error");
    // openai-agents 0.24.0 (captured, tests/hosts.rs) does not forward the server's message.
    assert_eq!(agents["forwarded"], false);
    assert_eq!(
        agents["text"],
        "An error occurred while running the tool. Please try again."
    );
    let (_, anthropic) = run("legacy", "anthropic-messages");
    assert_eq!(anthropic["forwarded"], false);
    assert!(!anthropic["text"].as_str().unwrap().contains("future"));
    assert_eq!(anthropic["payload"]["is_error"], true);
    let (code, chat) = run("sep1303", "openai-chat");
    assert_eq!(code, Some(1), "a tool error");
    assert_eq!(
        (&chat["forwarded"], &chat["is_error"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(chat["error_flag"], false);
    assert_eq!(chat["payload"]["role"], "tool");
    assert_eq!(chat["payload"]["content"], chat["text"]);
    assert!(chat["payload"].get("is_error").is_none());
    // A generic profile says first what the calibrated hosts do with this answer.
    let notes = chat["notes"].as_array().unwrap();
    assert!(
        notes[0].as_str().unwrap().starts_with(&format!(
            "measured: of the {} calibrated hosts, ",
            sightline::model_view::hosts::captured().len()
        )),
        "{notes:?}"
    );
    assert_eq!(
        notes[1..],
        [json!(
            "this host has no error flag: the model sees this text as an ordinary result"
        )]
    );
    let output = sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--demo",
        "sep1303",
        "--host",
        "openai-chat",
    ]);
    let shown = String::from_utf8(output.stdout).unwrap();
    assert!(
        shown.contains("── what the model sees ── host 'openai-chat' · forwarded (SHOULD)")
            && shown.contains(
                "▸ this host has no error flag: the model sees this text as an ordinary result"
            ),
        "{shown}"
    );
}

#[test]
fn hosts_lists_every_profile_and_shows_one_to_copy() {
    let output = sightline(&["hosts"]);
    assert_eq!(output.status.code(), Some(0));
    let listed = String::from_utf8(output.stdout).unwrap();
    for name in [
        "spec",
        "anthropic-messages",
        "openai-chat",
        "openai-responses",
        "openai-agents",
    ] {
        assert!(
            listed
                .lines()
                .any(|line| line.starts_with(&format!("{name} "))),
            "{name}"
        );
    }
    assert!(listed.contains("from anthropics/anthropic-sdk-typescript sdk-v0.120.0"));
    let output = sightline(&["hosts", "--json"]);
    let all: Value = serde_json::from_slice(&output.stdout).unwrap();
    let agents = all
        .as_array()
        .unwrap()
        .iter()
        .find(|host| host["name"] == "openai-agents")
        .unwrap();
    assert_eq!(
        agents["forward_protocol_errors"], false,
        "calibrated: 0.24.0 hides them"
    );
    assert_eq!(
        agents["source"]["repository"],
        "openai/openai-agents-python"
    );
    // A profile shown is a file the user can copy: it loads as their own.
    let output = sightline(&["hosts", "show", "openai-chat"]);
    let file = String::from_utf8(output.stdout).unwrap();
    assert!(
        file.starts_with('#') && file.contains("[hosts.openai-chat]"),
        "{file}"
    );
    let config = std::env::temp_dir().join(format!("sightline-show-{}", std::process::id()));
    std::fs::create_dir_all(config.join("sightline")).unwrap();
    std::fs::write(
        config.join("sightline/hosts.toml"),
        file.replace("[hosts.openai-chat", "[hosts.my-chat"),
    )
    .unwrap();
    let output = Command::new(BIN)
        .args(["hosts"])
        .env("XDG_CONFIG_HOME", &config)
        .output()
        .unwrap();
    let listed = String::from_utf8(output.stdout).unwrap();
    assert!(listed.contains("my-chat (yours)"), "{listed}");
    // The same file named with --host-file is listed, and `show` finds its profile.
    let file_arg = config.join("sightline/hosts.toml");
    let file_arg = file_arg.to_str().unwrap();
    let listed = String::from_utf8(sightline(&["hosts", "--host-file", file_arg]).stdout).unwrap();
    assert!(listed.contains("my-chat (yours)"), "{listed}");
    let shown = sightline(&["hosts", "show", "my-chat", "--host-file", file_arg]);
    assert!(
        String::from_utf8(shown.stdout)
            .unwrap()
            .contains("[hosts.my-chat]")
    );
    let missing = sightline(&["hosts", "--host-file", "/no/such/hosts.toml"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read '/no/such/hosts.toml'"));
    std::fs::remove_dir_all(&config).unwrap();
    let shown: Value =
        serde_json::from_slice(&sightline(&["hosts", "show", "codex", "--json"]).stdout).unwrap();
    assert_eq!(shown["limit"]["bytes"], 11967);
    assert_eq!(shown["limit"]["then"]["bytes"], 11964);
    let output = sightline(&["hosts", "show", "nope"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn user_host_profiles_load_from_the_config_dir_and_bad_ones_are_named() {
    let config = std::env::temp_dir().join(format!("sightline-hosts-{}", std::process::id()));
    std::fs::create_dir_all(config.join("sightline")).unwrap();
    let file = config.join("sightline/hosts.toml");
    let with_config = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .env("XDG_CONFIG_HOME", &config)
            .output()
            .unwrap()
    };
    std::fs::write(
        &file,
        "[hosts.chatty]\nshape = \"openai-chat\"\nforward_protocol_errors = true\n",
    )
    .unwrap();
    let args = ["call", "no_such_tool", "{}", "--json", "--host", "chatty"];
    let output = with_config(&args);
    assert_eq!(output.status.code(), Some(3));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        value["model_view"].get("payload").is_none(),
        "the payload repeats the text: only with --payload"
    );
    let output = with_config(&[&args[..], &["--payload"]].concat());
    assert_eq!(output.status.code(), Some(3));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["model_view"]["payload"]["role"], "tool");
    assert!(
        value["model_view"]["payload"]["content"]
            .as_str()
            .unwrap()
            .starts_with("MCP error -32602: Unknown tool")
    );
    std::fs::write(&file, "[hosts.chatty]\nshape = \"telegram\"\n").unwrap();
    let output = with_config(&["call", "book_flight", "{}", "--host", "chatty"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("'{}', line 2, key 'shape'", file.display())),
        "{stderr}"
    );
    std::fs::remove_dir_all(&config).unwrap();
}

#[test]
fn auto_negotiates_modern_with_the_demo_server() {
    let (_, value) = call_json(
        "sep1303",
        "auto",
        "get_flight_status",
        r#"{"flightNumber":"LH123"}"#,
    );
    assert_eq!(value["server"]["era"], "modern");
    assert_eq!(value["server"]["protocol_version"], "2026-07-28");
    assert_eq!(value["server"]["name"], "sightline-demo");
    let result = &value["response"]["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["structuredContent"]["flightNumber"], "LH123");
}

#[test]
fn call_json_embeds_the_response_bytes_verbatim() {
    // The hostile server writes `{"jsonrpc": "2.0", …}` with spaces, as Python's json does.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let output = Command::new(BIN)
        .args([
            "call", "boom", "--json", "--era", "legacy", "--", "python3", script, "escape",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains(r#""response": {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "\u001b[2J"#), "{stdout}");
}

#[test]
fn call_json_carries_the_request_exactly_as_sent() {
    let (_, value) = call_json(
        "sep1303",
        "legacy",
        "book_flight",
        r#"{"z":1,"departureDate":"12/12/2099","a":[true]}"#,
    );
    let arguments = serde_json::to_string(&value["request"]["params"]["arguments"]).unwrap();
    assert_eq!(
        arguments,
        r#"{"z":1,"departureDate":"12/12/2099","a":[true]}"#
    );
    assert_eq!(value["request"]["method"], "tools/call");
    assert_eq!(value["server"]["protocol_version"], "2025-11-25");
}

#[test]
fn tools_json_lists_the_demo_tools_with_schemas_book_flight_first() {
    for era in ["legacy", "modern"] {
        let output = sightline(&["tools", "--json", "--era", era]);
        assert_eq!(output.status.code(), Some(0));
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        let tools = value["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "book_flight",
                "get_flight_status",
                "cancel_booking",
                "slow_search",
                "confirm_booking",
                "open_payment_page",
                "summarise",
                "long_booking",
                "list_roots",
                "boarding_pass"
            ]
        );
        assert_eq!(
            tools[0]["inputSchema"]["required"],
            json!(["departureDate"])
        );
        assert!(tools[1]["outputSchema"].is_object());
    }
}

#[test]
fn human_output_shows_request_response_and_the_class_in_words() {
    let output = sightline(&["call", "cancel_booking", r#"{"bookingRef":"SL-1"}"#]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains(" bytes)\n{\n  \"jsonrpc\": \"2.0\","),
        "{stdout}"
    );
    assert!(stdout.contains("← response ("), "{stdout}");
    assert!(
        stdout.contains("outcome  tool error after ")
            && stdout.contains(" ms: Booking 'SL-1' cannot be cancelled"),
        "{stdout}"
    );
    let output = sightline(&["tools"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("10 tools") && stdout.contains("book_flight — Book a flight"),
        "{stdout}"
    );
}

#[test]
fn invalid_args_json_is_a_usage_error_showing_where_it_breaks() {
    let output = sightline(&["call", "book_flight", r#"{"departureDate": 12/12}"#]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("ARGS_JSON is not valid JSON") && stderr.contains("column 21"),
        "{stderr}"
    );
    assert!(stderr.lines().last().unwrap().ends_with('^'), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn args_can_come_from_stdin() {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(["call", "book_flight", "-", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"departureDate":"01/01/2099"}"#)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_timeout_on_the_slow_tool_sends_cancelled_and_exits_4() {
    let output = sightline(&[
        "call",
        "slow_search",
        r#"{"seconds":20}"#,
        "--timeout",
        "1",
        "--json",
        "-v",
    ]);
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["outcome"]["class"], "transport_failure");
    assert_eq!(value["response"], Value::Null);
    assert!(
        value["outcome"]["detail"]
            .as_str()
            .unwrap()
            .contains("sightline's own timeout")
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(r#""method":"notifications/cancelled","params":{"requestId":3"#),
        "{stderr}"
    );
}

#[test]
fn a_spawn_failure_is_a_transport_failure() {
    let output = sightline(&["tools", "--", "/nonexistent/server"]);
    assert_eq!(output.status.code(), Some(4));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("could not start '/nonexistent/server'")
    );
}

/// The one JSON object a `--json` run printed, whatever happened, and its exit code.
fn json_of(output: &Output) -> (i32, Value) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let value: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("stdout is not one JSON value ({error}): {stdout:?}"));
    assert!(value.is_object(), "{value}");
    (output.status.code().unwrap(), value)
}

#[test]
fn json_is_one_object_with_a_stage_when_the_run_fails_before_the_call() {
    let hostile = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let cases: [(&[&str], i32, &str, &str); 5] = [
        (&["--", "/bin/false"], 4, "transport_failure", "discover"),
        (
            &["--era", "legacy", "--", "/bin/false"],
            4,
            "transport_failure",
            "initialize",
        ),
        (
            &["--", "/nonexistent/server"],
            4,
            "transport_failure",
            "spawn",
        ),
        // A legacy-only server refusing the forced modern era: its own -32601, exit 3.
        (
            &["--era", "modern", "--", "python3", hostile, "crash"],
            3,
            "protocol_error",
            "discover",
        ),
        (
            &[
                "--era",
                "legacy",
                "--",
                "python3",
                "-c",
                "print('not json')",
            ],
            4,
            "transport_failure",
            "initialize",
        ),
    ];
    for (server, code, class, stage) in cases {
        for command in [&["call", "x", "--json"][..], &["tools", "--json"]] {
            let output = sightline(&[command, server].concat());
            let (exit, value) = json_of(&output);
            let outcome = &value["outcome"];
            assert_eq!(
                (exit, outcome["class"].as_str(), outcome["stage"].as_str()),
                (code, Some(class), Some(stage)),
                "{command:?} {server:?}: {value:#}"
            );
            assert!(outcome["detail"].as_str().is_some_and(|d| !d.is_empty()));
            assert_eq!(value["server"], Value::Null);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                !stderr.contains('→'),
                "the session log goes to stderr only with -v: {stderr}"
            );
        }
    }
    let output = sightline(&[
        "call", "x", "--json", "--era", "modern", "--", "python3", hostile,
    ]);
    let (_, value) = json_of(&output);
    assert_eq!(value["request"]["method"], "server/discover", "{value:#}");
    assert_eq!(value["response"]["error"]["code"], -32601, "{value:#}");
    assert_eq!(value["findings"], json!([]));
    assert_eq!(value["model_view"], Value::Null);
}

#[test]
fn verbose_streams_the_session_log_to_stderr_and_only_there() {
    let output = sightline(&[
        "call",
        "get_flight_status",
        r#"{"flightNumber":"LH1"}"#,
        "--json",
        "-v",
    ]);
    let (code, value) = json_of(&output);
    assert_eq!(code, 0, "{value:#}");
    assert_eq!(value["outcome"]["stage"], "call");
    let stderr = String::from_utf8_lossy(&output.stderr);
    for expected in [
        // The TUI's row for the frame, then the frame as it went out.
        "→ #1 server/discover\n    → {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\"",
        "tools/call",
        "■ server output closed",
    ] {
        assert!(
            stderr.contains(expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
}

fn demo(style: &str) -> StdioCommand {
    StdioCommand {
        program: BIN.into(),
        args: vec!["demo-server".into(), "--style".into(), style.into()],
        env: std::collections::HashMap::default(),
        cwd: None,
    }
}

#[tokio::test]
async fn the_demo_server_stops_a_cancelled_search_and_reports_progress() {
    for era in [EraChoice::Legacy, EraChoice::Modern] {
        let options = SessionOptions {
            era,
            timeout: Duration::from_millis(1500),
            ..SessionOptions::default()
        };
        let collected = Collector::default();
        let sink = EventSink::taps_only().with_tap(collected.tap());
        let transport = stdio::spawn(&demo("sep1303"), 1 << 20).unwrap();
        let mut client = SessionRunner::new(transport, options, sink);
        client.negotiate().await.unwrap();
        let exchange = client
            .call_tool("slow_search", json!({"seconds": 30}))
            .await;
        assert_eq!(classify(&exchange).class, Class::TransportFailure);
        // One more request proves the server is still serving after the cancellation.
        let listed = client.list_tools().await.unwrap();
        assert_eq!(listed.len(), 10);
        client.shutdown().await;
        let log = collected.log();
        let progress = log.iter().filter(|e| matches!(&e.event, LogEvent::Received { frame, .. } if frame.message.method() == Some("notifications/progress"))).count();
        assert!(progress >= 1, "{era:?}: no progress notifications");
        assert!(
            log.iter().any(|e| matches!(&e.event, LogEvent::Stderr(line) if line.contains("cancelled by the client"))),
            "{era:?}: the server did not see the cancellation: {log:#?}"
        );
        assert!(
            log.iter().any(
                |e| matches!(&e.event, LogEvent::Closed { status } if status == "exit code 0")
            )
        );
    }
}

/// The demo's LH404 answers a status its own `outputSchema` does not allow: sightline's local
/// check names it, and the class stays what the wire says (success), in every style and era.
#[test]
fn a_result_that_breaks_its_output_schema_is_a_local_finding_not_a_class() {
    for style in ["sep1303", "legacy"] {
        for era in ["legacy", "modern"] {
            let (code, value) = call_json(
                style,
                era,
                "get_flight_status",
                r#"{"flightNumber":"LH404"}"#,
            );
            assert_eq!(code, 0, "{style} {era}: {value}");
            assert_eq!(value["outcome"]["class"], "success");
            let finding = &value["findings"][0];
            assert_eq!(finding["id"], "output-schema-violation", "{value}");
            assert!(
                finding["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("local check (sightline's, not the server's answer)")
            );
        }
    }
}
