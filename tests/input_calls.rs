//! Calls that need the client, end to end: the demo server's elicitation, sampling and roots
//! tools in both eras and both styles, over stdio and Streamable HTTP, answered by the flags;
//! and the official Python SDK's `ctx.elicit`.
#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::process::Command;

use serde_json::Value;

mod common;

use common::servers::Server;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");
const FUTURE: &str = r#"{"departureDate":"25/12/2099"}"#;

/// `sightline call TOOL ARGS --json` with these extra arguments: the object and the exit code.
fn call(tool: &str, arguments: &str, extra: &[&str]) -> (Value, i32) {
    let output = Command::new(BIN)
        .args(["call", tool, arguments, "--json", "--timeout", "10"])
        .args(extra)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "not JSON ({error}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (json, output.status.code().unwrap())
}

fn text(output: &Value) -> &str {
    output["model_view"]["text"].as_str().unwrap_or_default()
}

/// Every transport × era × style the demo server speaks, as server arguments.
fn servers(http: &[Server]) -> Vec<(String, Vec<String>)> {
    let mut servers = Vec::new();
    for era in ["legacy", "modern"] {
        for (style, demo) in ["sep1303", "legacy"].iter().zip(http) {
            let stdio = vec!["--demo".into(), (*style).into(), "--era".into(), era.into()];
            servers.push((format!("stdio {style} {era}"), stdio));
            let url = vec!["--url".into(), demo.url.clone(), "--era".into(), era.into()];
            servers.push((format!("http {style} {era}"), url));
        }
    }
    servers
}

#[test]
fn confirm_booking_books_only_when_the_user_accepts_in_every_era_and_transport() {
    let http = [Server::demo("sep1303"), Server::demo("legacy")];
    for (name, server) in servers(&http) {
        let with = |flags: &[&str]| {
            let mut args: Vec<&str> = server.iter().map(String::as_str).collect();
            args.extend(flags);
            call("confirm_booking", FUTURE, &args)
        };
        let (booked, code) = with(&["--elicit", r#"accept:{"confirm":true}"#]);
        assert_eq!(code, 0, "{name}: {booked}");
        assert!(
            text(&booked).starts_with("Booked: one window seat"),
            "{name}: {booked}"
        );
        let round = &booked["rounds"][0];
        assert_eq!(round["method"], "elicitation/create", "{name}");
        assert_eq!(round["params"]["message"], "Book the flight on 25/12/2099?");
        assert_eq!(
            round["answer"],
            serde_json::json!({"action": "accept", "content": {"confirm": true}})
        );
        // Without an answer the call says it needed input, and that it was declined.
        let (declined, code) = with(&[]);
        assert_eq!(code, 0, "{name}: {declined}");
        let detail = declined["outcome"]["detail"].as_str().unwrap();
        assert!(
            detail.ends_with(
                "the call needed input: elicitation \"Book the flight on 25/12/2099?\" → decline"
            ),
            "{name}: {detail}"
        );
        assert_eq!(text(&declined), "Not booked: the user declined to confirm.");
        // `accept` alone takes the schema's defaults: confirm false.
        let (defaults, _) = with(&["--elicit", "accept"]);
        assert_eq!(
            text(&defaults),
            "Not booked: the booking was not confirmed.",
            "{name}"
        );
        let (cancelled, _) = with(&["--elicit", "cancel"]);
        assert_eq!(
            text(&cancelled),
            "Not booked: the user dismissed the question.",
            "{name}"
        );
    }
}

#[test]
fn url_elicitation_sampling_and_roots_are_answered_by_their_flags() {
    let http = [Server::demo("sep1303"), Server::demo("legacy")];
    for (name, server) in servers(&http) {
        let with = |tool: &str, arguments: &str, flags: &[&str]| {
            let mut args: Vec<&str> = server.iter().map(String::as_str).collect();
            args.extend(flags);
            call(tool, arguments, &args)
        };
        let (paid, _) = with(
            "open_payment_page",
            r#"{"bookingRef":"SL-1"}"#,
            &["--elicit", "accept"],
        );
        assert_eq!(
            text(&paid),
            "Payment page opened for SL-1: the payment completes on that page.",
            "{name}"
        );
        assert_eq!(
            paid["rounds"][0]["params"]["url"],
            "https://pay.example.com/checkout?ref=SL-1"
        );
        let (summary, _) = with(
            "summarise",
            r#"{"text":"LH123 to Lisbon"}"#,
            &["--sample", "A flight to Lisbon."],
        );
        assert_eq!(
            text(&summary),
            "Summary: A flight to Lisbon. (written by sightline (--sample))",
            "{name}"
        );
        let (roots, _) = with(
            "list_roots",
            "{}",
            &["--root", "file:///work", "--root", "file:///tmp"],
        );
        assert_eq!(text(&roots), "Roots: file:///work, file:///tmp", "{name}");
        // Without an answer: legacy servers hear a refusal; modern ones were never told that
        // sightline could answer, and say which capability is missing (-32021).
        let (refused, code) = with("summarise", r#"{"text":"x"}"#, &[]);
        if name.ends_with("legacy") {
            assert_eq!(
                (refused["outcome"]["class"].as_str(), code),
                (Some("tool_error"), 1),
                "{name}"
            );
            assert_eq!(
                refused["rounds"][0]["refused"]["message"],
                "sampling declined: no --sample reply was given"
            );
        } else {
            assert_eq!(refused["outcome"]["code"], -32021, "{name}: {refused}");
            assert_eq!(code, 3);
        }
    }
}

#[test]
fn a_modern_retry_echoes_the_request_state_under_a_new_id() {
    let output = Command::new(BIN)
        .args([
            "call",
            "confirm_booking",
            FUTURE,
            "-v",
            "--era",
            "modern",
            "--elicit",
            "accept",
        ])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    let sent: Vec<Value> = log
        .lines()
        .filter_map(|line| line.split_once(" → ").map(|(_, frame)| frame))
        .filter_map(|frame| serde_json::from_str::<Value>(frame).ok())
        .filter(|frame| frame["method"] == "tools/call")
        .collect();
    let received: Vec<Value> = log
        .lines()
        .filter_map(|line| line.split_once(" ← ").map(|(_, frame)| frame))
        .filter_map(|frame| serde_json::from_str::<Value>(frame).ok())
        .collect();
    let asked = received
        .iter()
        .find(|frame| frame["result"]["resultType"] == "input_required")
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(sent.len(), 2, "the call and its retry: {log}");
    assert_ne!(sent[0]["id"], sent[1]["id"], "a new id");
    assert_eq!(
        sent[1]["params"]["requestState"],
        asked["result"]["requestState"]
    );
    assert!(sent[0]["params"].get("requestState").is_none());
    assert_eq!(
        sent[1]["params"]["inputResponses"]["confirm"]["action"],
        "accept"
    );
    assert!(log.contains("retrying #3 with inputResponses and its requestState under a new id"));
}

/// The official Python SDK's `ctx.elicit` (legacy era: a server request in the middle of the
/// call), from `tests/peers/py_server.py`.
#[test]
fn the_python_sdk_elicits_and_books_only_when_confirmed() {
    let peers = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers");
    let python = format!("{peers}/.venv/bin/python");
    let script = format!("{peers}/py_server.py");
    let server = ["--era", "legacy", "--", python.as_str(), script.as_str()];
    let mut confirmed: Vec<&str> = vec!["--elicit", r#"accept:{"confirm":true}"#];
    confirmed.extend(server);
    let (booked, code) = call("confirm_booking", FUTURE, &confirmed);
    assert_eq!(code, 0, "{booked}");
    assert!(
        text(&booked).starts_with("Booked flight on 25/12/2099"),
        "{booked}"
    );
    let (declined, _) = call("confirm_booking", FUTURE, &server);
    assert!(
        text(&declined).starts_with("Not booked (decline)"),
        "{declined}"
    );
    assert!(declined["outcome"]["detail"].as_str().unwrap().contains(
        "the call needed input: elicitation \"Book the flight on 25/12/2099?\" → decline"
    ));
}

#[test]
fn a_task_is_polled_to_its_end_and_classified_by_what_it_carries() {
    let http = Server::demo("sep1303");
    for server in [vec!["--demo", "sep1303"], vec!["--url", http.url.as_str()]] {
        let with = |outcome: &str, flags: &[&str]| {
            let arguments =
                format!(r#"{{"departureDate":"25/12/2099","seconds":1,"outcome":"{outcome}"}}"#);
            let mut args = server.clone();
            args.extend(flags);
            call("long_booking", &arguments, &args)
        };
        let (done, code) = with("complete", &["--tasks"]);
        assert_eq!(code, 0, "{done}");
        assert_eq!(
            text(&done),
            "Booked after a long search: one seat departing 25/12/2099."
        );
        assert!(
            done["outcome"]["detail"]
                .as_str()
                .unwrap()
                .starts_with("task task-")
        );
        let (failed, code) = with("fail", &["--tasks"]);
        assert_eq!(
            (failed["outcome"]["code"].as_i64(), code),
            (Some(-32000), 3),
            "{failed}"
        );
        // A failed task carries a JSON-RPC error: the input validation failure in it is the
        // SEP-1303 finding, as it would be on the call itself.
        let (invalid, _) = with("invalid", &["--tasks"]);
        assert_eq!(invalid["outcome"]["code"], -32602);
        assert_eq!(
            invalid["findings"][0]["id"], "sep1303.validation-as-protocol-error",
            "{invalid}"
        );
        // Without the extension declared, a task-only tool refuses: -32021.
        let (refused, _) = with("complete", &[]);
        assert_eq!(refused["outcome"]["code"], -32021, "{refused}");
    }
}

#[tokio::test]
async fn a_cancelled_task_ends_cancelled_after_tasks_cancel() {
    use sightline::mcp::era::EraChoice;
    use sightline::runner::{SessionOptions, SessionRunner};
    use sightline::stream::{Collector, EventSink};
    use sightline::transport::{StdioCommand, stdio};

    let command = StdioCommand {
        program: BIN.into(),
        args: vec!["demo-server".into(), "--style".into(), "sep1303".into()],
        env: std::collections::HashMap::default(),
        cwd: None,
    };
    let options = SessionOptions {
        era: EraChoice::Modern,
        tasks: true,
        ..SessionOptions::default()
    };
    let collected = Collector::default();
    let sink = EventSink::taps_only().with_tap(collected.tap());
    let mut client = SessionRunner::new(stdio::spawn(&command, 1 << 20).unwrap(), options, sink);
    client.negotiate().await.unwrap();
    let (cancel, cancelled) = tokio::sync::oneshot::channel();
    let watched = collected.clone();
    tokio::spawn(async move {
        // Cancelled once the server has made the call a task (its answer names the task).
        let created = || {
            watched.log().iter().any(|entry| {
                matches!(&entry.event, sightline::runner::LogEvent::Received { frame, .. } if frame.raw.contains("\"taskId\""))
            })
        };
        while !created() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let _ = cancel.send(());
    });
    let arguments = serde_json::json!({"departureDate": "25/12/2099", "seconds": 30});
    let exchange = client
        .call_tool_cancellable("long_booking", arguments, cancelled)
        .await;
    client.shutdown().await;
    let task = exchange.task.as_ref().expect("followed as a task");
    assert_eq!(task.status, "cancelled");
    let outcome = sightline::classify::classify(&exchange);
    assert_eq!(outcome.class, sightline::classify::Class::TransportFailure);
    assert!(
        outcome.detail.contains("was cancelled"),
        "{}",
        outcome.detail
    );
    let sent_cancel = collected.log().iter().any(|entry| {
        matches!(&entry.event, sightline::runner::LogEvent::Sent(frame) if frame.message.method() == Some("tasks/cancel"))
    });
    assert!(sent_cancel, "tasks/cancel went out");
}

#[test]
fn roots_come_from_root_flags_else_from_the_config_entry() {
    let dir = std::env::temp_dir().join(format!("sightline-roots-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    let config = serde_json::json!({"mcpServers": {"demo": {
        "command": BIN, "args": ["demo-server"], "roots": ["file:///from-config"],
    }}});
    std::fs::write(&file, config.to_string()).unwrap();
    let file = file.to_string_lossy().into_owned();
    let (listed, _) = call("list_roots", "{}", &["--config", &file]);
    assert_eq!(text(&listed), "Roots: file:///from-config");
    let (flagged, _) = call(
        "list_roots",
        "{}",
        &["--config", &file, "--root", "file:///flag"],
    );
    assert_eq!(text(&flagged), "Roots: file:///flag");
    let _ = std::fs::remove_dir_all(&dir);
}
