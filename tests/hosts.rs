//! What real hosts show the model: `sightline capture` runs the `OpenAI` Agents SDK (0.24.0, from
//! `tests/peers/install.sh`) against the demo server in both styles, and the built-in
//! `openai-agents` profile must predict exactly what the host sent its model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// The host's fixed sentence for any failure of the call (`default_tool_error_function`).
const SDK_FAILURE: &str = "An error occurred while running the tool. Please try again.";

/// What a case must show besides a matching prediction.
#[derive(Clone, Copy)]
enum Expect {
    /// The host called the server and the profile predicts the model's text exactly.
    Predicted,
    /// The host refused the arguments itself (its own schema check): the server is never
    /// called and the model reads the SDK's sentence.
    HostRefused,
    /// The host fails the run on a tool it did not list: no call, no tool result at all.
    RunFails,
}

const CASES: &[(&str, &str, &str, Expect)] = &[
    (
        "past date",
        "book_flight",
        r#"{"departureDate":"12/12/2024","destination":"Paris"}"#,
        Expect::Predicted,
    ),
    (
        "valid booking",
        "book_flight",
        r#"{"departureDate":"12/12/2099","destination":"Paris"}"#,
        Expect::Predicted,
    ),
    (
        "missing required argument",
        "book_flight",
        r#"{"destination":"Paris"}"#,
        Expect::HostRefused,
    ),
    (
        "business error",
        "cancel_booking",
        r#"{"bookingRef":"SL-1A2B3C"}"#,
        Expect::Predicted,
    ),
    (
        "structured content",
        "get_flight_status",
        r#"{"flightNumber":"LH123"}"#,
        Expect::Predicted,
    ),
    ("unknown tool", "no_such_tool", "{}", Expect::RunFails),
];

fn require_host() {
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    let installed = std::fs::read(peers.join(".venv/.installed-requirements.txt")).ok();
    assert!(
        installed.is_some() && installed == std::fs::read(peers.join("requirements.txt")).ok(),
        "openai-agents is not installed (or is out of date): run `tests/peers/install.sh`"
    );
}

fn capture(style: &str, tool: &str, args: &str) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args([
            "capture",
            "openai-agents",
            tool,
            args,
            "--json",
            "--demo",
            style,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("sightline starts");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "capture {style} {tool}: no JSON ({error}); stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// What is wrong with one case's capture, if anything.
fn problem(style: &str, case: &str, expect: Expect, got: &Value) -> Option<String> {
    let text = got["text"].as_str();
    let predicted = got["prediction"]["text"].as_str();
    let wrong = match expect {
        Expect::Predicted if got["server_called"] != true => "the host did not call the server",
        Expect::Predicted if got["matches"] != true => "the prediction differs",
        Expect::HostRefused if got["server_called"] != false || text != Some(SDK_FAILURE) => {
            "expected the host to refuse the arguments itself"
        }
        Expect::RunFails
            if got["server_called"] != false
                || !got["tool_result"].is_null()
                || !got["run_error"]
                    .as_str()
                    .is_some_and(|e| e.contains("not found")) =>
        {
            "expected the run to fail on the unlisted tool"
        }
        _ if got["host_version"] != "0.24.0" => "not openai-agents 0.24.0",
        _ if !got["error_flag"].is_null() => "the Agents SDK has no error flag",
        _ => return None,
    };
    Some(format!(
        "{style} / {case}: {wrong}\n  host sent:  {text:?}\n  predicted:  {predicted:?}\n  \
         run error:  {}",
        got["run_error"]
    ))
}

#[test]
fn the_openai_agents_profile_predicts_what_the_real_sdk_sends() {
    require_host();
    let runs: Vec<_> = ["legacy", "sep1303"]
        .into_iter()
        .flat_map(|style| CASES.iter().map(move |case| (style, *case)))
        .map(|(style, (case, tool, args, expect))| {
            std::thread::spawn(move || problem(style, case, expect, &capture(style, tool, args)))
        })
        .collect();
    let problems: Vec<String> = runs
        .into_iter()
        .filter_map(|run| run.join().unwrap())
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_capture_shows_the_tool_definition_and_the_relayed_exchange() {
    require_host();
    let got = capture(
        "sep1303",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
    );
    assert_eq!(got["tool_definition"]["name"], "book_flight");
    assert_eq!(got["tool_definition"]["type"], "function");
    let frames = got["exchange"].as_array().unwrap();
    let call = frames
        .iter()
        .find(|f| f["dir"] == "send" && f["frame"].as_str().unwrap().contains("tools/call"))
        .expect("the relay logged the host's tools/call");
    assert!(call["frame"].as_str().unwrap().contains("12/12/2024"));
    assert!(frames.iter().any(|f| f["dir"] == "recv"));
    assert_eq!(got["prediction"]["host"], "openai-agents");
}
