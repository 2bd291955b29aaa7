//! The checks around SEP-1303 held to real programs: the official SDK clients' handling of a
//! result against the tool's `outputSchema`, run, against the host profiles' `output_check`
//! predictions; and text on a real server's stdout that is not MCP, as a finding.

#![allow(clippy::unwrap_used)]

#[path = "common/peers.rs"]
#[allow(dead_code)]
mod peers;

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use sightline::analysis::{self, CallContext};
use sightline::mcp::catalog::Catalog;
use sightline::mcp::session::Exchange;
use sightline::model_view::hosts::{HostProfile, OutputCheck, resolve};
use sightline::model_view::output_check::client_refusal;
use sightline::runner::{self, SessionEvent, SessionOptions};
use sightline::stream::EventSink;
use sightline::transport::{StdioCommand, Target};

const SERVER: &str = "tests/peers/structured_server.py";

/// What a session with `structured_server.py ARGS` shows: the tools, each tool called once
/// with `{}`, and every event of the session.
async fn session(args: &[&str]) -> (Catalog, Vec<(String, Exchange)>, Vec<SessionEvent>) {
    let target = Target::Stdio(StdioCommand {
        program: "python3".into(),
        args: std::iter::once(SERVER)
            .chain(args.iter().copied())
            .map(str::to_owned)
            .collect(),
        env: std::collections::HashMap::default(),
        cwd: None,
    });
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let sink =
        EventSink::taps_only().with_tap(move |event| seen.lock().unwrap().push(event.clone()));
    let options = SessionOptions {
        timeout: Duration::from_secs(20),
        ..SessionOptions::default()
    };
    let mut client = runner::connect(&target, options, sink).await.unwrap();
    let tools = Catalog::clone(&client.list_tools().await.unwrap());
    let mut calls = Vec::new();
    for tool in &tools {
        let exchange = client.call_tool(&tool.name, json!({})).await;
        calls.push((tool.name.to_string(), exchange));
    }
    client.shutdown().await;
    let events = events.lock().unwrap().clone();
    (tools, calls, events)
}

/// The JSON lines a driver script prints: one per tool, what the SDK's call returned or threw.
fn run_client(program: &str, args: &[&str]) -> Vec<Value> {
    let output = Command::new(program)
        .args(args)
        .args(["python3", SERVER])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{program} {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "one line per tool: {lines:?}");
    lines
}

/// The words of an SDK's error before the validator's own (`Structured content does not match
/// the tool's output schema`), without the TypeScript SDK's `MCP error CODE: `.
fn stem(message: &str) -> &str {
    let message = match message.strip_prefix("MCP error ") {
        Some(rest) => rest.split_once(": ").map_or(rest, |(_, after)| after),
        None => message,
    };
    message.split(": ").next().unwrap_or(message)
}

/// Holds `host`'s profile to what the real client did on each tool: it refuses exactly the
/// results the client threw on, with the client's code and words; and the model of the host
/// then reads nothing the server said.
fn holds(host: &HostProfile, observed: &[Value], tools: &Catalog, calls: &[(String, Exchange)]) {
    for line in observed {
        let tool = line["tool"].as_str().unwrap();
        let (_, exchange) = calls.iter().find(|(name, _)| name == tool).unwrap();
        let refusal = client_refusal(exchange, Some(tools), host);
        let context = CallContext {
            version: "2025-11-25",
            catalog: Some(tools),
            host,
            forward_protocol_errors: false,
        };
        let (outcome, _) = analysis::judge(exchange, &context);
        let view = analysis::view(exchange, &outcome, &context);
        if line["returned"] == true {
            assert_eq!(refusal, None, "{}: {line}", host.name);
            assert!(view.forwarded, "{}: {tool}", host.name);
            continue;
        }
        let refusal = refusal.unwrap_or_else(|| panic!("{}: {line} not predicted", host.name));
        let message = line["message"].as_str().unwrap();
        assert_eq!(
            stem(&refusal.message),
            stem(message),
            "{}: {tool}",
            host.name
        );
        match host.output_check {
            OutputCheck::TypescriptSdk => {
                assert_eq!(Some(line["code"].as_i64().unwrap()), refusal.code);
            }
            OutputCheck::PythonSdk => {
                assert_eq!(line["exception"], "RuntimeError");
                assert_eq!(refusal.code, None);
            }
            OutputCheck::None => unreachable!("the profiles held here check"),
        }
        assert!(
            !view.forwarded && view.server_called,
            "{}: {tool}",
            host.name
        );
        let text = view.text();
        assert!(
            !text.contains("boarding") && !text.contains("not found"),
            "{}: nothing of the server's result: {text}",
            host.name
        );
        assert!(view.reason.contains(&refusal.message), "{}", view.reason);
    }
}

/// The official TypeScript SDK's Client, both installed releases, run on the five answers:
/// -32600 for a success without structuredContent, -32602 for structuredContent that breaks
/// the schema on a success and on an isError result alike; an isError result without
/// structuredContent returned. Gemini CLI's profile (`typescript-sdk`) predicts each.
#[tokio::test]
async fn the_typescript_sdk_client_throws_where_its_profiles_predict() {
    peers::require_installed("package-lock.json", "node_modules/.installed-lock.json");
    let (tools, calls, _) = session(&[]).await;
    let gemini = resolve("gemini-cli", &[]).unwrap();
    assert_eq!(gemini.output_check, OutputCheck::TypescriptSdk);
    for (which, version) in [("current", "1.32.2"), ("pre-sep1303", "1.20.2")] {
        let observed = run_client("node", &["tests/peers/ts_output_schema_client.mjs", which]);
        let by_tool = |tool: &str| observed.iter().find(|line| line["tool"] == tool).unwrap();
        assert!(observed.iter().all(|line| line["sdk"] == version));
        assert_eq!(by_tool("success_missing")["code"], -32600, "{version}");
        assert_eq!(by_tool("success_mismatch")["code"], -32602, "{version}");
        assert_eq!(
            by_tool("error_mismatch")["code"],
            -32602,
            "{version}: on isError too"
        );
        assert_eq!(by_tool("error_missing")["isError"], true, "{version}");
        assert_eq!(by_tool("ok")["returned"], true, "{version}");
        holds(&gemini, &observed, &tools, &calls);
    }
}

/// The official Python SDK's `ClientSession`, in the two releases hosts embed (2.3.0 under
/// openai-agents 0.24.0, 1.30.0 under langchain-mcp-adapters 0.3.2): `RuntimeError` for a
/// success without structuredContent or with one that breaks the schema, isError results
/// returned unchecked. Each host's profile (`python-sdk`) predicts it.
#[tokio::test]
async fn the_python_sdk_client_raises_where_its_profiles_predict() {
    peers::require_installed("requirements.txt", ".venv/.installed-requirements.txt");
    let (tools, calls, _) = session(&[]).await;
    for (python, version, hosts) in [
        (
            "tests/peers/.venv/bin/python",
            "2.3.0",
            &["openai-agents", "openai-agents-structured"][..],
        ),
        (
            "tests/peers/.venv-langchain/bin/python",
            "1.30.0",
            &["langchain"][..],
        ),
    ] {
        let observed = run_client(python, &["tests/peers/py_output_schema_client.py"]);
        let by_tool = |tool: &str| observed.iter().find(|line| line["tool"] == tool).unwrap();
        assert!(
            observed.iter().all(|line| line["sdk"] == version),
            "{observed:?}"
        );
        assert_eq!(by_tool("success_missing")["exception"], "RuntimeError");
        assert_eq!(by_tool("success_mismatch")["exception"], "RuntimeError");
        assert_eq!(
            by_tool("error_mismatch")["isError"],
            true,
            "{version}: unchecked"
        );
        assert_eq!(by_tool("error_missing")["isError"], true, "{version}");
        for name in hosts {
            let host = resolve(name, &[]).unwrap();
            assert_eq!(host.output_check, OutputCheck::PythonSdk, "{name}");
            holds(&host, &observed, &tools, &calls);
        }
    }
    // LangChain ends its run on it, as on a protocol error: its model reads nothing.
    let langchain = resolve("langchain", &[]).unwrap();
    let (_, missing) = calls
        .iter()
        .find(|(name, _)| name == "success_missing")
        .unwrap();
    let context = CallContext {
        version: "2025-11-25",
        catalog: Some(&tools),
        host: &langchain,
        forward_protocol_errors: false,
    };
    let (outcome, _) = analysis::judge(missing, &context);
    assert!(
        analysis::view(missing, &outcome, &context)
            .blocks
            .is_empty()
    );
}

/// The findings say what the spec asks on each of the five answers (sightline's own check).
#[tokio::test]
async fn structured_content_findings_cover_success_and_is_error_results() {
    let (tools, calls, _) = session(&[]).await;
    let spec = resolve("spec", &[]).unwrap();
    let ids = |tool: &str| -> Vec<&'static str> {
        let (_, exchange) = calls.iter().find(|(name, _)| name == tool).unwrap();
        let context = CallContext {
            version: "2025-11-25",
            catalog: Some(&tools),
            host: &spec,
            forward_protocol_errors: false,
        };
        analysis::judge(exchange, &context)
            .1
            .iter()
            .map(|finding| finding.id)
            .collect()
    };
    assert_eq!(ids("ok"), Vec::<&str>::new());
    assert!(ids("success_missing").contains(&"structured-missing"));
    assert!(ids("success_mismatch").contains(&"output-schema-violation"));
    assert!(ids("error_missing").contains(&"structured-missing-on-error"));
    assert!(ids("error_mismatch").contains(&"output-schema-violation"));
}

/// `sightline audit --yes --json` (and `call`) on `structured_server.py ARGS`.
fn sightline(command: &[&str], args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(command)
        .arg("--")
        .args(["python3", SERVER])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// A real child that prints a banner before its first message and a line after tools/list:
/// one server-level finding, in every output of the audit, and among `call`'s findings; the
/// log keeps the lines themselves.
#[tokio::test]
async fn text_on_stdout_before_and_between_messages_is_a_server_finding() {
    let (_, _, events) = session(&["--banner", "--chatter"]).await;
    let invalid: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Logged(entry) => match &entry.event {
                sightline::runner::LogEvent::Invalid(line) => Some(line.raw.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        invalid,
        [
            "structured-server 1.0.0 listening on stdio",
            "debug: listed 5 tools"
        ],
        "the log keeps every line"
    );

    let dir = std::env::temp_dir().join(format!("sightline-audit-checks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sarif = dir.join("audit.sarif");
    let markdown = dir.join("audit.md");
    let sarif_arg = sarif.to_string_lossy().into_owned();
    let markdown_arg = markdown.to_string_lossy().into_owned();
    let flags = [
        "audit",
        "--yes",
        "--json",
        "--tool",
        "ok",
        "--sarif",
        &sarif_arg,
        "--markdown",
        &markdown_arg,
    ];
    let (_, stdout) = sightline(&flags, &["--banner", "--chatter"]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["id"], "stdout-not-json");
    assert_eq!(findings[0]["severity"], "warning");
    let message = findings[0]["message"].as_str().unwrap();
    assert!(
        message.contains("before the first message ('structured-server 1.0.0 listening on stdio')"),
        "{message}"
    );
    assert!(
        message.contains("between messages ('debug: listed 5 tools')"),
        "{message}"
    );
    assert!(message.contains("MUST NOT write anything to its stdout"));
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let run = &log["runs"][0];
    assert!(
        run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|rule| rule["id"] == "stdout-not-json")
    );
    assert!(
        run["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|result| result["ruleId"] == "stdout-not-json" && result["level"] == "warning")
    );
    assert!(
        std::fs::read_to_string(&markdown)
            .unwrap()
            .contains("server finding `stdout-not-json` (warning)")
    );
    let (_, text) = sightline(&["audit", "--yes", "--tool", "ok"], &["--banner"]);
    assert!(
        text.contains("server finding stdout-not-json (warning)"),
        "{text}"
    );

    // A clean stdout: no finding.
    let (_, clean) = sightline(&["audit", "--yes", "--json", "--tool", "ok"], &[]);
    let clean: Value = serde_json::from_str(&clean).unwrap();
    assert_eq!(clean["findings"], json!([]));

    let (_, call) = sightline(&["call", "ok", "--json"], &["--banner"]);
    let call: Value = serde_json::from_str(&call).unwrap();
    assert!(
        call["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|finding| finding["id"] == "stdout-not-json"),
        "{call}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
