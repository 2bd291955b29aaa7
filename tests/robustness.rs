//! A hostile or broken server never panics sightline, never reaches the terminal raw, and
//! never makes a frame disappear: crash mid-call, escape sequences, huge payloads, garbage,
//! silence. The server is `tests/peers/hostile_server.py` (Python stdlib only).

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

fn against(mode: &str, args: &[&str]) -> Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    Command::new(BIN)
        .args(args)
        .args(["--era", "legacy", "--", "python3", script, mode])
        .output()
        .expect("sightline runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("sightline writes UTF-8")
}

fn assert_terminal_safe(output: &str) {
    for forbidden in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\u{8}'] {
        assert!(
            !output.contains(forbidden),
            "raw {forbidden:?} reached the terminal:\n{output}"
        );
    }
}

/// 100 MB of 2-byte stderr lines before the answer: drained as fast as the server writes, so a
/// 2 s call is not timed out for the server's logging (it was, at 35 MB/s).
#[test]
fn a_hundred_megabytes_of_short_stderr_lines_do_not_time_a_call_out() {
    let output = against(
        "stderr-flood",
        &["call", "boom", "--json", "--timeout", "2"],
    );
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["outcome"]["class"], "success", "{value:#}");
    assert_eq!(output.status.code(), Some(0));
}

/// A server that never stops logging and never answers: the timeout is ours, and the log says
/// the server was busy writing rather than silent.
#[test]
fn a_timeout_says_the_server_was_busy_writing_not_silent() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let output = Command::new(BIN)
        .args([
            "call",
            "boom",
            "--json",
            "--verbose",
            "--timeout",
            "1",
            "--era",
            "legacy",
        ])
        .args(["--", "python3", script, "stderr-flood"])
        .env("STDERR_BYTES", "20000000000")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.contains("bytes to stderr and") && log.contains("it was busy writing, not silent"),
        "{}",
        &log[log.len().saturating_sub(2000)..]
    );
}

/// A raw CR between a reply's tokens, and noncharacters, fillers and tag characters in its
/// strings: on every output, escaped (JSON escapes in `--json`, `\u{…}` in text), the value
/// unchanged.
#[test]
fn carriage_returns_and_invisible_code_points_reach_no_output_raw() {
    let odd = [
        '\u{ffff}',
        '\u{10ffff}',
        '\u{d7ff}',
        '\u{115f}',
        '\u{1160}',
        '\u{e0041}',
    ];
    let json = against("invisible", &["call", "boom", "--json"]);
    let stdout = text(&json.stdout);
    assert!(!stdout.contains('\r'), "a raw CR in --json:\n{stdout:?}");
    for c in odd {
        assert!(!stdout.contains(c), "raw {c:?} in --json");
    }
    let value: Value = serde_json::from_str(&stdout).unwrap();
    let text_block = value["response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        text_block.starts_with("failed\u{ffff}\u{10ffff}"),
        "the value is kept"
    );
    let human = against("invisible", &["call", "boom"]);
    let shown = text(&human.stdout);
    assert!(!shown.contains('\r'), "a raw CR in the text output");
    for c in odd {
        assert!(!shown.contains(c), "raw {c:?} in the text output");
    }
    assert!(shown.contains("\\u{ffff}"), "{shown}");
}

#[test]
fn a_server_that_exits_mid_call_is_a_transport_failure_with_status_and_stderr() {
    let output = against("crash", &["call", "boom"]);
    assert_eq!(output.status.code(), Some(4));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("← no response"), "{stdout}");
    assert!(
        stdout.contains("outcome  transport failure after ")
            && stdout.contains(" ms: server exited before answering (exit code 3)"),
        "{stdout}"
    );
    assert!(stdout.contains("  | fatal: the tool crashed"), "{stdout}");
    let json = against("crash", &["call", "boom", "--json"]);
    let value: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["outcome"]["class"], "transport_failure");
    assert_eq!(value["response"], Value::Null);
}

#[test]
fn escape_sequences_from_the_server_are_shown_never_interpreted() {
    let output = against("escape", &["call", "boom"]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = text(&output.stdout);
    assert_terminal_safe(&stdout);
    assert!(
        stdout.contains(r"\u001b[2J"),
        "escapes must stay visible: {stdout}"
    );
    assert!(
        stdout.contains(r"hostile\u{1b}]0;pwned\u{7}"),
        "server name: {stdout}"
    );
    let json = against("escape", &["call", "boom", "--json", "-v"]);
    let stdout = text(&json.stdout);
    assert_terminal_safe(&stdout);
    assert_terminal_safe(&text(&json.stderr));
    // Escaped, the JSON value is still exactly what the server sent.
    let value: Value = serde_json::from_str(&stdout).unwrap();
    let sent = value["response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        sent.starts_with("\u{1b}[2J\u{1b}[H\u{1b}]52;c;"),
        "{sent:?}"
    );
    assert!(sent.ends_with("\u{9b}31m \u{202e}evil"), "{sent:?}");
    let tools = against("escape", &["tools"]);
    assert_terminal_safe(&text(&tools.stdout));
}

/// A validator's report over several lines: `call`'s outcome keeps its lines, indented under
/// it, each terminal-safe (not one line of literal `\n`s).
#[test]
fn a_multi_line_message_reads_as_lines_each_terminal_safe() {
    let output = against("multiline", &["call", "boom"]);
    assert_eq!(output.status.code(), Some(3));
    let stdout = text(&output.stdout);
    assert_terminal_safe(&stdout);
    let outcome: Vec<&str> = stdout
        .lines()
        .skip_while(|line| !line.starts_with("outcome  "))
        .take(6)
        .collect();
    assert!(outcome[0].ends_with("Invalid arguments: ["), "{stdout}");
    assert_eq!(outcome[1], "           {", "{stdout}");
    assert_eq!(outcome[2], r#"             "path": ["date"],"#, "{stdout}");
    assert!(outcome[3].contains(r"bad \u{1b}[31mdate"), "{stdout}");
    assert!(
        outcome.iter().all(|line| !line.contains(r"\n")),
        "no literal \\n: {stdout}"
    );
}

#[test]
fn a_huge_result_arrives_whole_and_one_over_the_limit_is_reported_not_buffered() {
    let output = against("huge", &["call", "boom", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        value["response"]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .len(),
        10 * 1024 * 1024
    );
    let output = against(
        "huge",
        &["call", "boom", "--json", "--max-frame-bytes", "1000000"],
    );
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let detail = value["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("exceeds the 1000000-byte limit"),
        "{detail}"
    );
}

#[test]
fn garbage_on_stdout_is_logged_for_what_it_is_and_the_call_still_succeeds() {
    let output = against("garbage", &["call", "boom", "-v"]);
    assert_eq!(output.status.code(), Some(0));
    let log = text(&output.stderr);
    assert!(
        log.contains("✗ not JSON: expected value at line 1 column 1: Listening on stdio..."),
        "{log}"
    );
    assert!(log.contains("✗ not UTF-8 at byte 0"), "{log}");
    assert!(
        log.contains(r#"✗ not a JSON-RPC message: `jsonrpc` must be "2.0": {"hello": "world"}"#),
        "{log}"
    );
    assert!(
        log.contains("✗ not a JSON-RPC message: a batch array"),
        "{log}"
    );
    assert!(text(&output.stdout).contains("outcome  success"));
}

#[test]
fn a_silent_server_times_out_locally() {
    let output = against("silent", &["call", "boom", "--timeout", "0.5", "--json"]);
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        value["outcome"]["detail"]
            .as_str()
            .unwrap()
            .starts_with("timeout: no reply within 500 ms")
    );
}

/// A run against `mode` and how long it took.
fn timed(mode: &str, args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let output = against(mode, args);
    (output, start.elapsed())
}

#[test]
fn an_unreadable_reply_naming_our_id_ends_the_call_at_once() {
    let kinds = [
        ("esc", "not JSON: control character"),
        ("surrogate", "not JSON"),
        ("utf8", "not UTF-8"),
        ("bigcode", "not JSON: number out of range"),
        ("twoobjects", "not JSON: trailing characters"),
        ("batch", "a batch array"),
        ("bom", "not JSON"),
        ("deep", "recursion limit"),
        ("errorarray", "`error` must be an object"),
    ];
    for (kind, reason) in kinds {
        let mode = format!("unreadable-{kind}");
        let (output, took) = timed(&mode, &["call", "boom", "--timeout", "20", "--json"]);
        assert!(
            took < Duration::from_secs(5),
            "{kind}: {took:?}, not at once"
        );
        assert_eq!(output.status.code(), Some(4), "{kind}");
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        let detail = value["outcome"]["detail"].as_str().unwrap();
        assert!(detail.starts_with("malformed reply: "), "{kind}: {detail}");
        assert!(detail.contains(reason), "{kind}: {detail}");
        assert_terminal_safe(&text(&output.stdout));
        assert_terminal_safe(&text(&output.stderr));
    }
    // An error whose id is null is about no request: the call gets its own (successful) answer.
    let (output, took) = timed(
        "unreadable-nullid",
        &["call", "boom", "--timeout", "20", "--json", "--verbose"],
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["outcome"]["class"], "success");
    // The row's words, then the frame as it came.
    let log = text(&output.stderr);
    assert!(log.contains("(an error about no request)"), "{log}");
    assert!(log.contains(r#"    ← {"jsonrpc":"2.0","id":null"#), "{log}");
}

#[test]
fn a_server_flooding_pings_without_reading_cannot_stop_the_timeout() {
    let (output, took) = timed("pings", &["call", "boom", "--timeout", "2", "--json"]);
    assert!(
        took < Duration::from_secs(4),
        "{took:?}: past the timeout + 1 s + shutdown"
    );
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        value["outcome"]["detail"]
            .as_str()
            .unwrap()
            .starts_with("timeout: no reply within 2 s"),
        "{value:#}"
    );
}

#[test]
fn a_list_that_never_ends_is_stopped_with_the_page_count() {
    let (output, took) = timed("pages", &["tools", "--json"]);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["outcome"]["stage"], "list");
    let detail = value["outcome"]["detail"].as_str().unwrap();
    assert!(detail.contains("1000 pages"), "{detail}");
}

#[test]
fn a_reply_written_before_its_request_is_not_taken_for_the_answer() {
    let output = against("predict", &["call", "boom", "--json", "-v"]);
    assert_eq!(output.status.code(), Some(0));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["response"]["result"]["content"][0]["text"], "real");
    let log = text(&output.stderr);
    assert!(log.contains("(a reply to a request never sent)"), "{log}");
    assert!(log.contains(r#"    ← {"jsonrpc": "2.0", "id": 3"#), "{log}");
}

#[test]
fn verbose_prints_the_frames_after_the_awaited_reply_too() {
    let output = against("duplicate", &["call", "boom", "--json", "-v"]);
    assert_eq!(output.status.code(), Some(0));
    let log = text(&output.stderr);
    assert_eq!(log.matches(r#""text": "once""#).count(), 2, "{log}");
    assert!(log.contains("(duplicate response)"), "{log}");
}

/// Live (not zombie) processes whose command line is exactly `args`.
fn live_processes(args: &str) -> Vec<String> {
    let output = Command::new("ps")
        .args(["-eo", "stat=,args="])
        .output()
        .unwrap();
    text(&output.stdout)
        .lines()
        .filter(|line| !line.trim_start().starts_with('Z') && line.trim_end().ends_with(args))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_server_that_exits_while_a_helper_holds_its_output_is_an_exit_and_leaves_nothing() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let start = Instant::now();
    let output = Command::new(BIN)
        .args([
            "call",
            "boom",
            "--json",
            "--timeout",
            "20",
            "--era",
            "legacy",
        ])
        .args(["--", "python3", script, "orphan"])
        .env("ORPHAN_SECONDS", "47")
        .output()
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let detail = value["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("server exited before answering (exit code 3"),
        "{detail}"
    );
    assert_eq!(
        live_processes("sleep 47"),
        Vec::<String>::new(),
        "the helper survived"
    );
}

/// Whether process `pid` is alive (a zombie is not: it only waits to be reaped).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest.trim_start());
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// A helper left in the server's process group, its stdio closed, while the server answers and
/// exits at once: the group is stopped before sightline exits, in both output modes, every
/// time (a supervisor task did it, and lost the race with the runtime's end in 19 of 46 runs).
#[test]
fn a_helper_left_in_the_servers_group_is_gone_when_sightline_exits() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let pid_file = std::env::temp_dir().join(format!("sightline-helper-{}", std::process::id()));
    for json in [false, true] {
        for run in 1..=20 {
            let _ = std::fs::remove_file(&pid_file);
            let mut command = Command::new(BIN);
            command.args(["call", "boom", "--era", "legacy", "--timeout", "2"]);
            if json {
                command.arg("--json");
            }
            let output = command
                .args(["--", "python3", script, "detached"])
                .env("HELPER_PID_FILE", &pid_file)
                .env("HELPER_SECONDS", "41")
                .output()
                .unwrap();
            let helper = std::fs::read_to_string(&pid_file).unwrap();
            let left = alive(&helper);
            if left {
                let _ = Command::new("kill").arg(&helper).status();
            }
            assert!(
                !left,
                "run {run} (json: {json}): the helper outlived sightline"
            );
            assert_eq!(output.status.code(), Some(0), "run {run} (json: {json})");
        }
    }
    let _ = std::fs::remove_file(&pid_file);
}

/// A helper in a session of its own (out of the group sightline stops) keeps stdout and stderr
/// open: once the server itself is gone, nothing waits on grace periods, and the detail names
/// the process holding the pipe.
#[test]
fn a_setsid_helper_holding_the_pipes_costs_no_fixed_delay_and_is_named() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    for (mode, code) in [("setsid", 0), ("setsid-exit", 4)] {
        let start = Instant::now();
        let output = Command::new(BIN)
            .args(["call", "boom", "--json", "--era", "legacy"])
            .args(["--", "python3", script, mode])
            .env("ORPHAN_SECONDS", "53")
            .output()
            .unwrap();
        let took = start.elapsed();
        let _ = Command::new("pkill").args(["-f", "sleep 53"]).status();
        assert_eq!(output.status.code(), Some(code), "{mode}");
        // Was 3.0 s and 4.1 s: the grace periods, then the client waiting for the channel.
        assert!(took < Duration::from_millis(1500), "{mode}: {took:?}");
        if code == 4 {
            let value: Value = serde_json::from_slice(&output.stdout).unwrap();
            let detail = value["outcome"]["detail"].as_str().unwrap();
            assert!(
                detail.contains("a process it started still holds its output open: ")
                    && detail.contains("(sleep)"),
                "{detail}"
            );
        }
    }
}

#[test]
fn an_interrupted_headless_run_stops_the_server() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    for (signal, code) in [
        (nix::sys::signal::Signal::SIGINT, 130),
        (nix::sys::signal::Signal::SIGTERM, 143),
        (nix::sys::signal::Signal::SIGHUP, 129),
    ] {
        let tag = format!("interrupted-by-{signal}");
        let server = format!("{script} silent {tag}");
        let mut child = Command::new(BIN)
            .args(["call", "boom", "--timeout", "60", "--era", "legacy", "-v"])
            .args(["--", "python3", script, "silent", &tag])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The interrupt lands mid-call: once `-v` says the call went out.
        let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let (sent_call, call_went_out) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(stderr).map_while(Result::ok) {
                if line.contains("→ #3 tools/call") {
                    let _ = sent_call.send(());
                }
            }
        });
        call_went_out
            .recv_timeout(Duration::from_secs(10))
            .expect("the call never went out");
        assert!(!live_processes(&server).is_empty(), "the server is running");
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
        let sent = Instant::now();
        nix::sys::signal::kill(pid, signal).unwrap();
        let status = child.wait().unwrap();
        assert!(
            sent.elapsed() < Duration::from_secs(2),
            "{signal}: {:?}",
            sent.elapsed()
        );
        assert_eq!(status.code(), Some(code), "{signal}");
        assert_eq!(
            live_processes(&server),
            Vec::<String>::new(),
            "{signal}: server left"
        );
    }
}

#[test]
fn escapes_in_error_messages_and_cursors_never_reach_the_terminal() {
    let runs: [&[&str]; 4] = [
        &["tools", "-v"],
        &["tools", "--era", "modern", "-v"],
        &["call", "boom", "--timeout", "1", "-v"],
        &["tools", "--era", "modern", "--json"],
    ];
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    for args in runs {
        let output = Command::new(BIN)
            .args(args)
            .args(["--", "python3", script, "escapes"])
            .output()
            .unwrap();
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert_terminal_safe(&stdout);
        assert_terminal_safe(&stderr);
        assert!(
            stdout.contains("pwned") || stderr.contains("pwned"),
            "{args:?}: the server's words must still be shown:\n{stdout}\n{stderr}"
        );
    }
}

#[test]
fn the_deadline_ends_a_run_whatever_the_server_does_and_json_still_says_where() {
    let (output, took) = timed(
        "silent",
        &[
            "call",
            "boom",
            "--timeout",
            "60",
            "--deadline",
            "1",
            "--json",
        ],
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["outcome"]["class"], "transport_failure");
    assert_eq!(value["outcome"]["stage"], "call", "{value:#}");
    let detail = value["outcome"]["detail"].as_str().unwrap();
    assert!(detail.contains("deadline"), "{detail}");
    // A server that never answers the handshake: `tools` too, stopped at its stage.
    let output = Command::new(BIN)
        .args([
            "tools",
            "--json",
            "--timeout",
            "60",
            "--deadline",
            "0.5",
            "--era",
            "legacy",
        ])
        .args(["--", "python3", "-c", "import time; time.sleep(30)"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["outcome"]["stage"], "initialize", "{value:#}");
    assert_eq!(value["tools"], Value::Null);
}
