//! What a newcomer tripped on, headless by the real binary: `J`'s file opened by `replay`, and the replay stand-in's refusals never judged as the recorded server's.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::path::PathBuf;
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

/// A fresh path in the temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn with(name: &str, text: &[u8]) -> Self {
        let path = std::env::temp_dir().join(format!("sightline-nc-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        Self(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
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

#[test]
fn a_call_saved_as_json_replays_with_json_as_its_transcript_would_and_serve_says_why_not() {
    let saved = sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--demo",
        "legacy",
        "--json",
    ]);
    assert_eq!(saved.status.code(), Some(3));
    let live = json(&saved);
    let file = TempFile::with("book_flight-3.json", &saved.stdout);
    let replayed = sightline(&["replay", file.path(), "--json"]);
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    let replayed = json(&replayed);
    assert_eq!(replayed["stopped"], Value::Null);
    let call = &replayed["calls"][0];
    for member in ["request", "response", "outcome", "server"] {
        assert_eq!(call[member], live[member], "{member}");
    }
    // Without the tool's listing (call --json has none) nothing can say the tool was listed.
    assert_eq!(call["model_view"]["text"], live["model_view"]["text"]);
    // Compacted (jq -c), it is the same document.
    let compact = TempFile::with(
        "book_flight-3.compact.json",
        (serde_json::to_string(&live).unwrap() + "\n").as_bytes(),
    );
    let again = json(&sightline(&["replay", compact.path(), "--json"]));
    assert_eq!(again["calls"][0]["outcome"], live["outcome"]);
    // Serving needs a handshake, which the document does not hold: said, with what works.
    let served = sightline(&["replay", file.path(), "--serve"]);
    assert_eq!(served.status.code(), Some(2));
    let said = String::from_utf8_lossy(&served.stderr);
    assert!(said.contains("one call saved as JSON"), "{said}");
    assert!(said.contains("E in the TUI"), "{said}");
    // Not a transcript nor a call: still named as before.
    let other = TempFile::with("other.json", b"{\n  \"a\": 1\n}\n");
    let refused = sightline(&["replay", other.path(), "--json"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("line 1"));
}

#[test]
fn a_call_saved_with_j_replays_judged_as_the_live_session_judged_it() {
    let recording = fixture("legacy_protocol_error");
    let mut session = common::Session::new(120, 40);
    for event in sightline::recording::open(&recording).unwrap() {
        sightline::app::update(
            &mut session.state,
            sightline::app::Action::Session(event.unwrap()),
        );
    }
    let effects = sightline::app::update(
        &mut session.state,
        sightline::app::Action::Command(sightline::app::action::Command::Output(
            sightline::app::action::Output::SaveCallJson,
        )),
    );
    let [sightline::app::Effect::Save { path, text }] = &effects[..] else {
        panic!("{effects:?}");
    };
    assert_eq!(path, "sightline-book_flight-3.json");
    let file = TempFile::with("j.json", text.as_bytes());
    let from_j = json(&sightline(&["replay", file.path(), "--json"]));
    let from_transcript = json(&sightline(&["replay", &recording, "--json"]));
    let (j, transcript) = (&from_j["calls"][0], &from_transcript["calls"][0]);
    for member in ["request", "response", "outcome", "findings", "server"] {
        assert_eq!(j[member], transcript[member], "{member}");
    }
    assert_eq!(j["model_view"]["text"], transcript["model_view"]["text"]);
    assert_eq!(
        j["findings"][0]["id"],
        "sep1303.validation-as-protocol-error"
    );
}
