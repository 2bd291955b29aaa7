//! What a newcomer tripped on, headless by the real binary: the replay stand-in's refusals never judged as the recorded server's.

#![allow(clippy::unwrap_used)] // a panic is a failed test

use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

fn sightline(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "not JSON ({error}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}.jsonl", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_call_the_recording_does_not_hold_is_refused_by_the_stand_in_and_not_judged_as_the_server() {
    let recording = fixture("legacy_protocol_error");
    let unrecorded = sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"01/01/2024"}"#,
        "--json",
        "--",
        BIN,
        "replay",
        &recording,
        "--serve",
    ]);
    // Still the protocol error it is on the wire.
    assert_eq!(unrecorded.status.code(), Some(3));
    let unrecorded = json(&unrecorded);
    assert_eq!(unrecorded["outcome"]["class"], "protocol_error");
    assert_eq!(unrecorded["outcome"]["code"], -32602);
    assert_eq!(
        unrecorded["response"]["error"]["data"]["sightline"],
        "replay-stand-in"
    );
    let detail = unrecorded["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("from sightline's replay stand-in, not the recorded server"),
        "{detail}"
    );
    let findings: Vec<&str> = unrecorded["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["id"].as_str().unwrap())
        .collect();
    assert!(
        !findings.iter().any(|id| id.starts_with("sep1303.")),
        "the recorded server is not judged by the stand-in's answer: {findings:?}"
    );
    // The recorded call is still answered, and judged, as recorded.
    let recorded = json(&sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--json",
        "--",
        BIN,
        "replay",
        &recording,
        "--serve",
    ]));
    assert_eq!(
        recorded["findings"][0]["id"],
        "sep1303.validation-as-protocol-error"
    );
}
