//! Transcripts end to end, by the real binary: `--record` then `replay --json` gives the live
//! analysis back; a SIGKILL loses nothing received; secrets stay out; broken files are named.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

fn sightline(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// A fresh path in the temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str) -> Self {
        Self(std::env::temp_dir().join(format!("sightline-{name}-{}.jsonl", std::process::id())))
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.0).unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
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

#[test]
fn record_then_replay_json_reproduces_the_live_outcome_findings_and_model_view() {
    for style in ["legacy", "sep1303"] {
        let file = TempFile::new(&format!("call-{style}"));
        // The issue's own command line: --record before the command's name.
        let live = sightline(&[
            "--record",
            file.path(),
            "call",
            "book_flight",
            r#"{"departureDate":"12/12/2024"}"#,
            "--demo",
            style,
            "--json",
        ]);
        let live = json(&live);
        let replayed = sightline(&["replay", file.path(), "--json"]);
        assert_eq!(replayed.status.code(), Some(0), "{style}");
        let replayed = json(&replayed);
        assert_eq!(replayed["stopped"], Value::Null);
        assert_eq!(replayed["transcript"]["command"], "call");
        let call = &replayed["calls"][0];
        for member in [
            "request",
            "response",
            "outcome",
            "findings",
            "model_view",
            "server",
        ] {
            assert_eq!(call[member], live[member], "{style}: {member}");
        }
        let class = if style == "legacy" {
            "protocol_error"
        } else {
            "tool_error"
        };
        assert_eq!(call["outcome"]["class"], class);
        // Another host, chosen at replay time, judges the same recorded frames.
        let agents = json(&sightline(&[
            "replay",
            file.path(),
            "--json",
            "--host",
            "openai-agents",
        ]));
        assert_eq!(agents["calls"][0]["model_view"]["host"], "openai-agents");
        // Judged as that host: its message has no error flag (the default `spec` one does).
        assert_eq!(agents["calls"][0]["model_view"]["error_flag"], false);
    }
}

#[test]
fn a_transcript_holds_every_frame_received_before_a_sigkill() {
    let file = TempFile::new("killed");
    let mut child = Command::new(BIN)
        .args([
            "call",
            "slow_search",
            r#"{"seconds":30}"#,
            "-v",
            "--record",
            file.path(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // `-v` shows each frame after it was recorded: wait for two progress notifications.
    let mut shown = Vec::new();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let start = Instant::now();
    while shown
        .iter()
        .filter(|line: &&String| {
            line.starts_with("    ← ") && line.contains("notifications/progress")
        })
        .count()
        < 2
    {
        assert!(start.elapsed() < Duration::from_secs(20), "{shown:?}");
        let mut line = String::new();
        let read = stderr.read_line(&mut line).unwrap();
        assert!(read > 0, "sightline ended early: {shown:?}");
        shown.push(line);
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = file.text();
    let received = text
        .lines()
        .filter(|line| line.contains(r#""type":"received""#))
        .count();
    // Each frame shown as it crossed the wire (after its row's words).
    let shown_received = shown
        .iter()
        .filter(|line| line.starts_with("    ← "))
        .count();
    assert!(
        received >= shown_received && shown_received >= 4,
        "{received} received lines recorded, {shown_received} shown:\n{text}"
    );
    assert!(
        text.contains(r#"\"method\":\"tools/call\""#),
        "the call was recorded as sent"
    );
    for (number, line) in text.lines().enumerate() {
        serde_json::from_str::<Value>(line)
            .unwrap_or_else(|error| panic!("line {}: {error}: {line}", number + 1));
    }
    let replayed = sightline(&["replay", file.path(), "--json"]);
    assert_eq!(replayed.status.code(), Some(0));
    assert_eq!(
        json(&replayed)["calls"],
        Value::Array(Vec::new()),
        "no call finished"
    );
}

#[test]
fn secrets_never_reach_the_file_unless_no_redact() {
    let server = common::servers::Server::demo("sep1303");
    let record = |file: &TempFile, redact: bool| {
        let mut args = vec![
            "call",
            "book_flight",
            r#"{"departureDate":"12/12/2099"}"#,
            "--url",
            &server.url,
            "-H",
            "Authorization: Bearer sk-live-abcdef123",
            "-H",
            "X-Tenant: tenant-778899",
            "--record",
            file.path(),
        ];
        if !redact {
            args.push("--no-redact");
        }
        assert_eq!(sightline(&args).status.code(), Some(0));
        file.text()
    };
    let redacted = record(&TempFile::new("redacted-http"), true);
    for secret in ["sk-live-abcdef123", "tenant-778899"] {
        assert!(!redacted.contains(secret), "{secret} leaked");
    }
    assert!(
        redacted.contains(r#"["authorization","Bearer ****"]"#),
        "{redacted}"
    );
    assert!(redacted.contains(r#""redacted":true"#));
    let kept = record(&TempFile::new("kept-http"), false);
    assert!(kept.contains("sk-live-abcdef123") && kept.contains(r#""redacted":false"#));

    // A secret-named -e value, even where the server prints it.
    let file = TempFile::new("redacted-env");
    let output = sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2099"}"#,
        "-e",
        "FLIGHTS_API_KEY=key-5566778899",
        "--record",
        file.path(),
        "--",
        "sh",
        "-c",
        &format!("echo \"starting with $FLIGHTS_API_KEY\" >&2; exec {BIN} demo-server"),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let text = file.text();
    assert!(!text.contains("key-5566778899"), "{text}");
    assert!(text.contains("starting with ****"), "{text}");
}

#[test]
fn broken_transcripts_are_named_with_their_line() {
    let file = TempFile::new("broken");
    let run = |content: &str| {
        std::fs::write(&file.0, content).unwrap();
        let output = sightline(&["replay", file.path(), "--json"]);
        (output.status.code(), output)
    };
    let (code, output) = run("");
    assert_eq!(code, Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("transcript '{}', line 1: empty", file.path())),
        "{stderr}"
    );
    let (code, output) = run("{\"sightline_transcript\":9}\n");
    assert_eq!(code, Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("version 9 is newer"));
    // A good recording with its last line cut: the calls before it are still there.
    let good = TempFile::new("good");
    sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--record",
        good.path(),
    ]);
    let text = good.text();
    let lines: Vec<&str> = text.lines().collect();
    let cut = format!("{}\n{}", lines.join("\n"), &lines[2][..20]);
    let (code, output) = run(&cut);
    assert_eq!(code, Some(2));
    let value = json(&output);
    assert_eq!(value["calls"].as_array().unwrap().len(), 1);
    let stopped = value["stopped"].as_str().unwrap();
    assert!(
        stopped.ends_with(&format!("line {}: cut short: the recording stopped in the middle of this line; everything before it is shown", lines.len() + 1)),
        "{stopped}"
    );
    let (_, output) = run(&format!("{}\n{{not json\n", lines[..4].join("\n")));
    assert!(
        json(&output)["stopped"]
            .as_str()
            .unwrap()
            .contains("line 5: not JSON")
    );
    let (code, output) = run("just text\n");
    assert_eq!(code, Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("line 1: not a sightline transcript"));
}

#[test]
fn a_transcript_that_cannot_be_written_is_a_usage_error() {
    let output = sightline(&[
        "call",
        "book_flight",
        "{}",
        "--record",
        "/nonexistent-dir/s.jsonl",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("cannot write the transcript '/nonexistent-dir/s.jsonl'")
    );
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}.jsonl", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_recording_stands_in_for_its_server_on_stdio_and_over_http() {
    // The issue's own line: a call answered by `replay --serve` gives the recorded outcome.
    let legacy = fixture("legacy_protocol_error");
    let served = sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--json",
        "--",
        BIN,
        "replay",
        &legacy,
        "--serve",
    ]);
    assert_eq!(served.status.code(), Some(3));
    let served = json(&served);
    let recorded = json(&sightline(&["replay", &legacy, "--json"]));
    for member in ["outcome", "findings", "model_view"] {
        assert_eq!(served[member], recorded["calls"][0][member], "{member}");
    }
    // A request that was not recorded is told so, in the protocol's words.
    let other = json(&sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"01/01/2024"}"#,
        "--json",
        "--",
        BIN,
        "replay",
        &legacy,
        "--serve",
    ]));
    assert_eq!(other["outcome"]["code"], -32602);
    assert!(
        other["outcome"]["detail"]
            .as_str()
            .unwrap()
            .contains("not with these params")
    );
    // Over HTTP, a modern-era recording.
    let http_server = common::servers::Server::start(
        BIN,
        &[
            "replay",
            &fixture("sep1303_tool_error"),
            "--serve",
            "--http",
        ],
    );
    let over_http = json(&sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--json",
        "--url",
        &http_server.url,
    ]));
    assert_eq!(over_http["outcome"]["class"], "tool_error");
    assert_eq!(over_http["server"]["name"], "sightline-demo");
}

#[test]
fn diff_names_every_call_whose_class_changed_and_every_tool_change() {
    let before = fixture("legacy_protocol_error");
    let after = fixture("sep1303_tool_error");
    let output = sightline(&["diff", &before, &after]);
    assert_eq!(output.status.code(), Some(1), "something changed");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains(
            "  book_flight {\"departureDate\":\"12/12/2024\"}\n    before: protocol error -32602 · not forwarded (MAY, off): the model does not see why\n    after:  tool error · forwarded (SHOULD)\n    finding gone: sep1303.validation-as-protocol-error"
        ),
        "{text}"
    );
    let same = sightline(&["diff", &before, &before]);
    assert_eq!(same.status.code(), Some(0));
    assert!(
        String::from_utf8(same.stdout)
            .unwrap()
            .contains("0 judged differently, 1 the same")
    );
    // A tool whose schema changed, one removed, one added: a copy of the recording edited.
    let edited = TempFile::new("edited");
    let text = std::fs::read_to_string(&after).unwrap().replace(
        r#""pattern":"^\\d{2}/\\d{2}/\\d{4}$"},"destination""#,
        r#""pattern":"^\\d{4}-\\d{2}-\\d{2}$"},"destination""#,
    );
    let text = text.replace(
        r#"{"tool":{"name":"list_roots""#,
        r#"{"tool":{"name":"list_roots_v2""#,
    );
    std::fs::write(&edited.0, text).unwrap();
    let output = sightline(&["diff", &after, edited.path(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let value = json(&output);
    let tools = &value["diff"]["tools"];
    assert_eq!(tools["added"], serde_json::json!(["list_roots_v2"]));
    assert_eq!(tools["removed"], serde_json::json!(["list_roots"]));
    let changes = tools["changed"].as_array().unwrap();
    assert!(
        changes.iter().any(|tool| tool["name"] == "book_flight"
            && tool["changes"][0]["path"] == "inputSchema.properties.departureDate.pattern"),
        "{changes:?}"
    );
    assert_eq!(value["changed"], true);
}

/// A transcript of a hostile server is safe to `cat`: every control character a server sent
/// is written as a JSON escape, and the file reads back. So are the other recorded fixtures.
#[test]
fn recorded_escapes_and_garbage_stay_escaped_on_disk() {
    let dir = format!("{}/tests/fixtures", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".jsonl").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 20, "every fixture: {names:?}");
    for name in &names {
        let name = name.as_str();
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        let unsafe_char =
            |c: char| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c);
        assert!(
            !text.chars().any(unsafe_char),
            "{name}: a control or bidi character on disk"
        );
        let replayed = json(&sightline(&["replay", &fixture(name), "--json"]));
        assert_eq!(replayed["stopped"], Value::Null, "{name}");
    }
    let escape = std::fs::read_to_string(fixture("hostile_escape")).unwrap();
    assert!(escape.contains(r"\u001b[2J"), "the escape is kept, escaped");
}

/// A recording of a host (its first request names it, as through `sightline proxy`) is judged
/// by that host's profile in `replay --json`, as the TUI's replay judges it, unless a profile is
/// chosen: the two never disagree on the same file.
#[test]
fn replay_json_judges_a_recorded_host_by_its_profile_as_the_tui_does() {
    let recorded = TempFile::new("host-named");
    let output = sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--demo",
        "legacy",
        "--era",
        "legacy",
        "--record",
        recorded.path(),
    ]);
    assert_eq!(output.status.code(), Some(3), "a protocol error");
    // As Claude Code sends it.
    let named = TempFile::new("host-named-claude");
    let text = recorded.text().replace(
        r#"\"clientInfo\":{\"name\":\"sightline\""#,
        r#"\"clientInfo\":{\"name\":\"claude-code\""#,
    );
    assert!(text.contains("claude-code"));
    std::fs::write(&named.0, text).unwrap();
    let view = |file: &TempFile, extra: &[&str]| -> Value {
        let output = sightline(&[&["replay", file.path(), "--json"], extra].concat());
        let replayed: Value = serde_json::from_slice(&output.stdout).unwrap();
        replayed["calls"][0]["model_view"].clone()
    };
    let view_named = view(&named, &[]);
    assert_eq!(view_named["host"], "claude-code");
    assert_eq!(view_named["forwarded"], true, "{view_named}");
    let chosen = view(&named, &["--host", "openai-agents"]);
    assert_eq!(chosen["host"], "openai-agents", "a chosen profile wins");
    // sightline's own clientInfo names no host: the spec's reading.
    assert_eq!(view(&recorded, &[])["host"], "spec");
    // The TUI's replay of the same file.
    let tmux = common::tmux::Tmux::start(&["replay", named.path()]);
    tmux.wait_for_all(&["host 'claude-code'", "forwarded (MAY, on"]);
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}
