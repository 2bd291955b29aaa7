//! End-to-end interop: the real `sightline` binary against MCP servers built with the official
//! SDKs, driven exactly as a user would (`sightline tools|call … --json -- <server command>`).
//!
//! Peers: `examples/rmcp_peer.rs` (Rust SDK `rmcp`, both eras), `tests/peers/ts_server.mjs`
//! (TypeScript SDK 1.x, legacy only) and `tests/peers/py_server.py` (Python SDK 2.x, both eras).
//! The last two need `tests/peers/install.sh` first; without it these tests fail and say so.
//!
//! Each case asserts what sightline reports (exit code, `outcome`, `server`) and that `response`
//! is the peer's reply as it came off the wire, even where an SDK answers unusually.

use std::process::{Command, Stdio};

use serde_json::{Value, json};

mod common;

use common::peers::{everything, odd, py, rmcp, ts};

const BOTH_ERAS: [&str; 2] = ["legacy", "modern"];
const FUTURE_DATE: &str = r#"{"departureDate":"12/12/2099"}"#;
const PAST_DATE: &str = r#"{"departureDate":"12/12/2024"}"#;

/// Runs `sightline ARGS --json -- SERVER…` from the repository root: the exit code and stdout as
/// JSON (`null` when stdout is empty). Stderr is echoed, so a failing test shows sightline's words.
fn run(args: &[&str], server: &[String]) -> (i32, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .args(["--json", "--"])
        .args(server)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("sightline starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    eprintln!(
        "$ sightline {} --json -- {}\n{}",
        args.join(" "),
        server.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    // `--json` always prints exactly one object, whatever happened.
    let value: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("stdout is not one JSON value ({error}):\n{stdout}"));
    assert!(value.is_object(), "stdout is not a JSON object: {stdout}");
    (output.status.code().unwrap_or(-1), value)
}

fn tool_names(listing: &Value) -> Vec<&str> {
    let tools = listing["tools"].as_array();
    let tools = tools.unwrap_or_else(|| panic!("no `tools` array: {listing:#}"));
    tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

/// The text of the first content block of a `call` result.
fn first_text(out: &Value) -> &str {
    let text = out["response"]["result"]["content"][0]["text"].as_str();
    text.unwrap_or_else(|| panic!("no text content: {out:#}"))
}

/// The fields every `call --json` shares: the server, and a response that answers the request.
fn assert_call_from(out: &Value, era: &str, name: &str, arguments: &Value) {
    assert_eq!(out["server"]["era"], era, "{out:#}");
    assert_eq!(out["server"]["name"], name, "{out:#}");
    assert_eq!(out["request"]["method"], "tools/call", "{out:#}");
    assert_eq!(
        &out["request"]["params"]["arguments"], arguments,
        "sent as given: {out:#}"
    );
    assert_eq!(out["response"]["jsonrpc"], "2.0", "{out:#}");
    assert_eq!(out["response"]["id"], out["request"]["id"], "{out:#}");
}

// ---------------------------------------------------------------------------------------------
// rmcp (official Rust SDK): serves both eras from one binary.

#[test]
fn rmcp_lists_its_tools_with_schemas_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["tools", "--era", era], &rmcp());
        assert_eq!(code, 0, "{era}: {out:#}");
        assert_eq!(out["server"]["era"], era, "{out:#}");
        assert_eq!(out["server"]["name"], "rmcp-peer", "{out:#}");
        assert_eq!(
            tool_names(&out),
            ["confirm", "divide", "echo", "summarise"],
            "{out:#}"
        );
        let tools = out["tools"].as_array().unwrap();
        assert!(
            tools
                .iter()
                .all(|tool| tool["inputSchema"]["type"] == "object")
        );
        assert_eq!(
            tools[2]["inputSchema"]["required"],
            json!(["text"]),
            "{out:#}"
        );
    }
}

/// rmcp's `Peer::create_elicitation` and `create_message` (legacy era: requests in the middle
/// of the call), answered by the flags and refused visibly without them.
#[test]
fn rmcp_asks_the_client_mid_call_and_gets_the_answers_given() {
    let confirm = [
        "call",
        "confirm",
        r#"{"date":"25/12/2099"}"#,
        "--era",
        "legacy",
    ];
    let mut accepted = confirm.to_vec();
    accepted.extend(["--elicit", r#"accept:{"confirm":true}"#]);
    let (code, out) = run(&accepted, &rmcp());
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["model_view"]["text"], "Confirmed 25/12/2099");
    assert_eq!(out["rounds"][0]["method"], "elicitation/create");
    assert_eq!(out["rounds"][0]["params"]["message"], "Confirm 25/12/2099?");
    let (_, declined) = run(&confirm, &rmcp());
    assert_eq!(declined["model_view"]["text"], "not confirmed (decline)");
    let summarise = [
        "call",
        "summarise",
        r#"{"text":"LH123"}"#,
        "--era",
        "legacy",
    ];
    let mut sampled = summarise.to_vec();
    sampled.extend(["--sample", "A flight."]);
    let (code, out) = run(&sampled, &rmcp());
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["model_view"]["text"], "Summary: A flight.");
    // Refused: rmcp turns the client's error into its own -32603, which sightline shows as is.
    let (code, refused) = run(&summarise, &rmcp());
    assert_eq!(code, 3, "{refused:#}");
    assert_eq!(refused["rounds"][0]["refused"]["code"], -1);
}

#[test]
fn rmcp_auto_era_discovers_a_modern_server() {
    let (code, out) = run(&["tools", "--era", "auto"], &rmcp());
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["server"]["era"], "modern", "{out:#}");
    assert_eq!(out["server"]["name"], "rmcp-peer", "{out:#}");
    assert_eq!(
        tool_names(&out),
        ["confirm", "divide", "echo", "summarise"],
        "{out:#}"
    );
}

#[test]
fn rmcp_echo_succeeds_in_each_era() {
    for era in BOTH_ERAS {
        let args = r#"{"text":"hello"}"#;
        let (code, out) = run(&["call", "echo", args, "--era", era], &rmcp());
        assert_eq!(code, 0, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "success", "{out:#}");
        assert_call_from(&out, era, "rmcp-peer", &json!({"text": "hello"}));
        assert_eq!(out["response"]["result"]["isError"], false, "{out:#}");
        assert_eq!(first_text(&out), "hello");
    }
}

#[test]
fn rmcp_echo_without_text_is_a_tool_error_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["call", "echo", "{}", "--era", era], &rmcp());
        assert_eq!(code, 1, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "tool_error", "{out:#}");
        assert_call_from(&out, era, "rmcp-peer", &json!({}));
        assert_eq!(out["response"]["result"]["isError"], true, "{out:#}");
        let text = first_text(&out);
        assert!(text.contains("failed to deserialize parameters"), "{out:#}");
    }
}

#[test]
fn rmcp_division_by_zero_is_a_tool_error_in_each_era() {
    for era in BOTH_ERAS {
        let args = r#"{"a":1,"b":0}"#;
        let (code, out) = run(&["call", "divide", args, "--era", era], &rmcp());
        assert_eq!(code, 1, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "tool_error", "{out:#}");
        assert_eq!(out["outcome"]["detail"], "division by zero", "{out:#}");
        assert_call_from(&out, era, "rmcp-peer", &json!({"a": 1, "b": 0}));
        assert_eq!(out["response"]["result"]["isError"], true, "{out:#}");
        assert_eq!(first_text(&out), "division by zero");
    }
}

#[test]
fn rmcp_missing_argument_is_an_invalid_params_protocol_error_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["call", "divide", r#"{"a":1}"#, "--era", era], &rmcp());
        assert_eq!(code, 3, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "protocol_error", "{out:#}");
        assert_eq!(out["outcome"]["code"], -32602, "{out:#}");
        assert_call_from(&out, era, "rmcp-peer", &json!({"a": 1}));
        assert_eq!(out["response"]["error"]["code"], -32602, "{out:#}");
        assert_eq!(
            out["response"]["error"]["message"],
            "missing required argument `b`"
        );
        assert!(out["response"].get("result").is_none(), "{out:#}");
    }
}

#[test]
fn rmcp_unknown_tool_is_an_invalid_params_protocol_error_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["call", "nope", "{}", "--era", era], &rmcp());
        assert_eq!(code, 3, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "protocol_error", "{out:#}");
        assert_eq!(out["outcome"]["code"], -32602, "{out:#}");
        assert_call_from(&out, era, "rmcp-peer", &json!({}));
        assert_eq!(out["response"]["error"]["code"], -32602, "{out:#}");
        assert_eq!(
            out["response"]["error"]["message"], "tool not found",
            "{out:#}"
        );
    }
}

/// rmcp quirk: `arguments` that is not an object fails to parse as a `tools/call` request, and
/// rmcp answers -32601 "method not found" (message `tools/call`) rather than -32602. sightline
/// reports the code the wire carries; it does not second-guess the server.
#[test]
fn rmcp_non_object_arguments_get_method_not_found_as_the_wire_says_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["call", "echo", r#""oops""#, "--era", era], &rmcp());
        assert_eq!(code, 3, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "protocol_error", "{out:#}");
        assert_eq!(out["outcome"]["code"], -32601, "{out:#}");
        assert_call_from(&out, era, "rmcp-peer", &json!("oops"));
        assert_eq!(out["response"]["error"]["code"], -32601, "{out:#}");
    }
}

// ---------------------------------------------------------------------------------------------
// TypeScript SDK 1.x: legacy only; throws from a handler and SDK validation become `isError`.

#[test]
fn ts_lists_both_tools_with_schemas() {
    let (code, out) = run(&["tools", "--era", "legacy"], &ts());
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["server"]["era"], "legacy", "{out:#}");
    assert_eq!(out["server"]["name"], "sightline-ts-peer", "{out:#}");
    assert_eq!(tool_names(&out), ["echo", "book_flight"], "{out:#}");
    let schema = &out["tools"][1]["inputSchema"];
    assert_eq!(schema["required"], json!(["departureDate"]), "{out:#}");
    assert_eq!(schema["properties"]["departureDate"]["type"], "string");
}

/// The TS SDK answers `server/discover` with -32601, so `--era auto` falls back to `initialize`.
#[test]
fn ts_auto_era_falls_back_to_legacy() {
    let (code, out) = run(&["tools", "--era", "auto"], &ts());
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["server"]["era"], "legacy", "{out:#}");
    assert_eq!(out["server"]["name"], "sightline-ts-peer", "{out:#}");
    assert_eq!(tool_names(&out), ["echo", "book_flight"], "{out:#}");

    let args = ["call", "book_flight", FUTURE_DATE, "--era", "auto"];
    let (code, out) = run(&args, &ts());
    assert_eq!(code, 0, "{out:#}");
    assert_call_from(
        &out,
        "legacy",
        "sightline-ts-peer",
        &json!({"departureDate": "12/12/2099"}),
    );
}

#[test]
fn ts_forcing_the_modern_era_is_refused_as_a_protocol_error() {
    for command in [
        &["tools", "--era", "modern"][..],
        &["call", "echo", "--era", "modern"],
    ] {
        let (code, out) = run(command, &ts());
        assert_eq!(code, 3, "{out:#}");
        let outcome = &out["outcome"];
        assert_eq!(outcome["class"], "protocol_error", "{out:#}");
        assert_eq!(outcome["stage"], "discover", "{out:#}");
        assert_eq!(outcome["code"], -32601, "{out:#}");
        assert_eq!(out["server"], Value::Null, "no session, no server: {out:#}");
    }
}

#[test]
fn ts_booking_a_future_date_succeeds() {
    let (code, out) = run(
        &["call", "book_flight", FUTURE_DATE, "--era", "legacy"],
        &ts(),
    );
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["outcome"]["class"], "success", "{out:#}");
    assert_call_from(
        &out,
        "legacy",
        "sightline-ts-peer",
        &json!({"departureDate": "12/12/2099"}),
    );
    assert_eq!(first_text(&out), "Booked flight on 12/12/2099");
    // As received: the TS SDK writes `result` before `jsonrpc` and `id`, and sightline keeps it.
    let keys: Vec<&String> = out["response"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["result", "jsonrpc", "id"], "{out:#}");
}

#[test]
fn ts_booking_a_past_date_is_a_tool_error() {
    let (code, out) = run(
        &["call", "book_flight", PAST_DATE, "--era", "legacy"],
        &ts(),
    );
    assert_eq!(code, 1, "{out:#}");
    assert_eq!(out["outcome"]["class"], "tool_error", "{out:#}");
    assert_call_from(
        &out,
        "legacy",
        "sightline-ts-peer",
        &json!({"departureDate": "12/12/2024"}),
    );
    assert_eq!(out["response"]["result"]["isError"], true, "{out:#}");
    let text = first_text(&out);
    assert!(text.contains("must be in the future"), "{out:#}");
    assert_eq!(out["outcome"]["detail"], text, "{out:#}");
}

/// The TS SDK reports an unknown tool as a result with `isError`, so it is a tool error.
#[test]
fn ts_unknown_tool_is_a_tool_error_as_the_sdk_sends_it() {
    let (code, out) = run(&["call", "nope", "{}", "--era", "legacy"], &ts());
    assert_eq!(code, 1, "{out:#}");
    assert_eq!(out["outcome"]["class"], "tool_error", "{out:#}");
    assert_call_from(&out, "legacy", "sightline-ts-peer", &json!({}));
    assert_eq!(out["response"]["result"]["isError"], true, "{out:#}");
    assert!(out["response"].get("error").is_none(), "{out:#}");
}

/// The TS SDK turns schema validation failures into `isError` text "MCP error -32602: …".
#[test]
fn ts_invalid_argument_type_is_a_tool_error_whose_text_names_the_code() {
    let args = r#"{"text":5}"#;
    let (code, out) = run(&["call", "echo", args, "--era", "legacy"], &ts());
    assert_eq!(code, 1, "{out:#}");
    assert_eq!(out["outcome"]["class"], "tool_error", "{out:#}");
    assert!(out["outcome"].get("code").is_none(), "{out:#}");
    assert_call_from(&out, "legacy", "sightline-ts-peer", &json!({"text": 5}));
    let text = first_text(&out);
    assert!(text.starts_with("MCP error -32602:"), "{out:#}");
}

/// The TS SDK rejects a non-object `arguments` while parsing the request, with -32603.
#[test]
fn ts_non_object_arguments_are_an_internal_error_protocol_error() {
    let (code, out) = run(&["call", "echo", r#""oops""#, "--era", "legacy"], &ts());
    assert_eq!(code, 3, "{out:#}");
    assert_eq!(out["outcome"]["class"], "protocol_error", "{out:#}");
    assert_eq!(out["outcome"]["code"], -32603, "{out:#}");
    assert_call_from(&out, "legacy", "sightline-ts-peer", &json!("oops"));
    assert_eq!(out["response"]["error"]["code"], -32603, "{out:#}");
}

// ---------------------------------------------------------------------------------------------
// Python SDK 2.x: answers `server/discover` (modern) and `initialize` (legacy).

#[test]
fn py_lists_its_tools_with_schemas_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["tools", "--era", era], &py());
        assert_eq!(code, 0, "{era}: {out:#}");
        assert_eq!(out["server"]["era"], era, "{out:#}");
        assert_eq!(out["server"]["name"], "sightline-py-peer", "{out:#}");
        assert_eq!(
            tool_names(&out),
            ["echo", "book_flight", "confirm_booking"],
            "{out:#}"
        );
        let schema = &out["tools"][1]["inputSchema"];
        assert_eq!(schema["required"], json!(["departureDate"]), "{out:#}");
        assert_eq!(schema["properties"]["departureDate"]["type"], "string");
    }
}

/// With the default probe timeout: a Python start-up slower than the probe (a loaded CI machine)
/// must still end modern, through the late answer to `server/discover`.
#[test]
fn py_auto_era_discovers_a_modern_server() {
    let auto = ["--era", "auto"];
    let (code, out) = run(&[&["tools"], &auto[..]].concat(), &py());
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["server"]["era"], "modern", "{out:#}");
    assert_eq!(out["server"]["name"], "sightline-py-peer", "{out:#}");

    let call = ["call", "book_flight", FUTURE_DATE];
    let (code, out) = run(&[&call, &auto[..]].concat(), &py());
    assert_eq!(code, 0, "{out:#}");
    assert_call_from(
        &out,
        "modern",
        "sightline-py-peer",
        &json!({"departureDate": "12/12/2099"}),
    );
}

#[test]
fn py_booking_a_future_date_succeeds_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["call", "book_flight", FUTURE_DATE, "--era", era], &py());
        assert_eq!(code, 0, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "success", "{out:#}");
        let arguments = json!({"departureDate": "12/12/2099"});
        assert_call_from(&out, era, "sightline-py-peer", &arguments);
        let result = &out["response"]["result"];
        assert_eq!(result["isError"], false, "{out:#}");
        assert_eq!(result["content"][0]["text"], "Booked flight on 12/12/2099");
        assert_eq!(
            result["structuredContent"]["result"],
            "Booked flight on 12/12/2099"
        );
    }
}

#[test]
fn py_booking_a_past_date_is_a_tool_error_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["call", "book_flight", PAST_DATE, "--era", era], &py());
        assert_eq!(code, 1, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "tool_error", "{out:#}");
        let arguments = json!({"departureDate": "12/12/2024"});
        assert_call_from(&out, era, "sightline-py-peer", &arguments);
        assert_eq!(out["response"]["result"]["isError"], true, "{out:#}");
        let text = first_text(&out);
        assert!(text.contains("must be in the future"), "{out:#}");
    }
}

/// The Python SDK reports an unknown tool as a result with `isError`, so it is a tool error.
#[test]
fn py_unknown_tool_is_a_tool_error_as_the_sdk_sends_it_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["call", "nope", "{}", "--era", era], &py());
        assert_eq!(code, 1, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "tool_error", "{out:#}");
        assert_eq!(out["outcome"]["detail"], "Unknown tool: nope", "{out:#}");
        assert_call_from(&out, era, "sightline-py-peer", &json!({}));
        assert_eq!(out["response"]["result"]["isError"], true, "{out:#}");
    }
}

#[test]
fn py_non_object_arguments_are_an_invalid_params_protocol_error_in_each_era() {
    for era in BOTH_ERAS {
        let (code, out) = run(&["call", "echo", r#""oops""#, "--era", era], &py());
        assert_eq!(code, 3, "{era}: {out:#}");
        assert_eq!(out["outcome"]["class"], "protocol_error", "{out:#}");
        assert_eq!(out["outcome"]["code"], -32602, "{out:#}");
        assert_call_from(&out, era, "sightline-py-peer", &json!("oops"));
        assert_eq!(out["response"]["error"]["code"], -32602, "{out:#}");
    }
}

/// The same peer over rmcp's own Streamable HTTP service (`--http`): its event streams open
/// with priming events, and the three classes come out as over stdio, in every era.
#[test]
fn the_rmcp_peer_over_streamable_http() {
    use std::io::BufRead;
    let mut peer = Command::new(&rmcp()[0])
        .arg("--http")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the rmcp peer starts");
    let mut url = String::new();
    std::io::BufReader::new(peer.stdout.take().expect("its stdout"))
        .read_line(&mut url)
        .expect("it prints its URL");
    let cases = [
        (r#"{"a":1,"b":0}"#, "tool_error", Value::Null, 1),
        (r#"{"a":"x"}"#, "protocol_error", Value::from(-32602), 3),
        (r#"{"a":6,"b":3}"#, "success", Value::Null, 0),
    ];
    let mut failures = Vec::new();
    for era in ["legacy", "modern", "auto"] {
        for (arguments, class, code, exit) in &cases {
            let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
                .args(["call", "divide", arguments, "--json", "--era", era])
                .args(["--url", url.trim()])
                .output()
                .expect("sightline runs");
            let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
            let got = (
                &json["outcome"]["class"],
                &json["outcome"]["code"],
                output.status.code(),
            );
            if got != (&Value::from(*class), code, Some(*exit)) {
                failures.push(format!("{era} {arguments}: {json}"));
            }
        }
    }
    let _ = peer.kill();
    let _ = peer.wait();
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Over Streamable HTTP every POST used to go out at once, so `tools/list` could overtake
/// `notifications/initialized`: the everything server then listed 12 of its 15 tools, at
/// random. Ordered sending makes HTTP list what stdio lists, every time.
#[test]
fn the_everything_server_lists_the_same_tools_over_http_as_over_stdio_every_run() {
    let (code, listing) = run(&["tools"], &everything());
    assert_eq!(code, 0, "{listing:#}");
    let over_stdio: Vec<String> = tool_names(&listing)
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert!(over_stdio.len() >= 15, "{over_stdio:?}");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new("node")
        .arg(&everything()[1])
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    common::servers::listening(&url);
    for attempt in 1..=20 {
        let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
            .args(["tools", "--json", "--url", &url])
            .output()
            .unwrap();
        let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            tool_names(&listing),
            over_stdio,
            "run {attempt} of 20 over HTTP: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let _ = server.kill();
    let _ = server.wait();
}

/// server-everything's `simulate-research-query` requires a 2025-11-25 task: the call goes out
/// task-augmented without being asked, is polled, its question (an ambiguous topic) is answered
/// on the `tasks/result` stream, and the result `tasks/result` returns is what is judged.
#[test]
fn the_everything_servers_task_tool_is_called_as_a_task_and_followed_to_its_result() {
    let arguments = r#"{"topic":"rust","ambiguous":true}"#;
    let (code, out) = run(
        &["call", "simulate-research-query", arguments],
        &everything(),
    );
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["request"]["params"]["task"], json!({}), "{out:#}");
    assert!(
        out["response"]["result"]["task"]["taskId"].is_string(),
        "{out:#}"
    );
    let task = &out["task"];
    assert_eq!(task["form"], "augmented", "{out:#}");
    assert_eq!(task["status"], "completed", "{out:#}");
    let report = task["result"]["content"][0]["text"].as_str().unwrap();
    assert!(report.contains("# Research Report: rust"), "{report}");
    assert_eq!(out["outcome"]["class"], "success", "{out:#}");
    let rounds = out["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 1, "the clarification question: {out:#}");
    assert_eq!(rounds[0]["method"], "elicitation/create", "{out:#}");
}

/// A task that ends `failed` on a tool error (`odd_server.py`'s `failed_task`): against
/// SEP-2663 in the 2026-07-28 extension, a warning; what 2025-11-25 itself asked, a note.
#[test]
fn a_task_failed_on_a_tool_error_is_a_finding_by_the_form_of_tasks() {
    for (era, extra, severity) in [
        ("modern", Some("--tasks"), "warning"),
        ("legacy", None, "info"),
    ] {
        let mut args = vec!["call", "failed_task", "{}", "--era", era];
        args.extend(extra);
        let (code, out) = run(&args, &odd());
        assert_eq!(code, 1, "a tool error: {out:#}");
        assert_eq!(out["task"]["status"], "failed", "{out:#}");
        assert_eq!(out["outcome"]["class"], "tool_error", "{out:#}");
        let finding = out["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|finding| finding["id"] == "tasks.tool-error-as-failed")
            .unwrap_or_else(|| panic!("the finding, {era}: {out:#}"));
        assert_eq!(finding["severity"], severity, "{era}: {out:#}");
    }
}
