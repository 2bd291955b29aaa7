//! `sightline proxy` between a real client and real servers: the Python SDK's stdio client gets
//! through it what it gets directly, every frame passes unchanged (the same bytes, in the same
//! order, either side of it), each call is recorded and judged, and either side's end reaches
//! the other.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use common::peers::{everything, py};

fn sightline() -> String {
    env!("CARGO_BIN_EXE_sightline").to_owned()
}

fn demo(style: &str) -> Vec<String> {
    vec![
        sightline(),
        "demo-server".into(),
        "--style".into(),
        style.into(),
    ]
}

fn proxied(server: &[String], extra: &[&str]) -> Vec<String> {
    let mut command = vec![sightline(), "proxy".into()];
    command.extend(extra.iter().map(|arg| (*arg).to_owned()));
    command.push("--".into());
    command.extend(server.iter().cloned());
    command
}

fn relayed(log: &Path, server: &[String]) -> Vec<String> {
    let mut command = vec![
        sightline(),
        "relay".into(),
        "--log".into(),
        log.to_string_lossy().into_owned(),
        "--".into(),
    ];
    command.extend(server.iter().cloned());
    command
}

/// The Python SDK's stdio client (`tests/peers/py_client.py`) running `calls` against `server`:
/// the tools it listed and what each call gave it.
fn python_client(calls: &Value, server: &[String]) -> Value {
    py(); // the virtualenv is installed
    let output = Command::new("tests/peers/.venv/bin/python")
        .arg("tests/peers/py_client.py")
        .arg(calls.to_string())
        .args(server)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("python starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!(
            "the client printed no JSON ({error}): {stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sightline-proxy-test-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The frames a relay logged, by direction, in order.
fn frames(log: &Path, dir: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|entry| entry["dir"] == dir)
        .map(|entry| entry["frame"].as_str().unwrap().to_owned())
        .collect()
}

const DEMO_CALLS: &str = r#"[["book_flight", {"departureDate": "12/12/2024", "destination": "Paris"}],
    ["book_flight", {"departureDate": "12/12/2099", "destination": "Paris"}],
    ["no_such_tool", {}]]"#;

#[test]
fn the_python_sdk_client_gets_through_the_proxy_what_it_gets_directly() {
    let demo_calls: Value = serde_json::from_str(DEMO_CALLS).unwrap();
    let everything_calls = json!([["echo", {"message": "hi"}], ["get-sum", {"a": 1, "b": 2}], ["get-sum", {"a": "one"}]]);
    for (server, calls) in [
        (demo("legacy"), &demo_calls),
        (demo("sep1303"), &demo_calls),
        (
            [everything(), vec!["stdio".into()]].concat(),
            &everything_calls,
        ),
    ] {
        let direct = python_client(calls, &server);
        let through = python_client(calls, &proxied(&server, &[]));
        assert_eq!(
            through, direct,
            "through the proxy, as directly: {server:?}"
        );
        assert_eq!(
            direct["calls"].as_array().unwrap().len(),
            calls.as_array().unwrap().len(),
            "{direct:#}"
        );
    }
}

/// client → relay (outer log) → proxy → relay (inner log) → server: what the proxy took in on
/// either side, it gave out on the other, byte for byte and in order.
#[test]
fn every_frame_passes_the_proxy_unchanged_both_ways() {
    let dir = temp_dir("bytes");
    let (outer, inner) = (dir.join("outer.jsonl"), dir.join("inner.jsonl"));
    let server = [everything(), vec!["stdio".into()]].concat();
    let chain = relayed(&outer, &proxied(&relayed(&inner, &server), &[]));
    let calls =
        json!([["echo", {"message": "through"}], ["get-sum", {"a": "one"}], ["get-env", {}]]);
    let got = python_client(&calls, &chain);
    assert_eq!(got["calls"].as_array().unwrap().len(), 3, "{got:#}");
    let sent = frames(&outer, "send");
    assert!(
        sent.len() >= 5,
        "initialize, initialized, list, three calls: {sent:?}"
    );
    assert_eq!(
        frames(&inner, "send"),
        sent,
        "the host's frames reach the server as sent"
    );
    let received = frames(&inner, "recv");
    assert!(
        received
            .iter()
            .any(|frame| frame.contains("notifications/")),
        "the server's own notifications pass too"
    );
    assert_eq!(
        frames(&outer, "recv"),
        received,
        "the server's frames reach the host as sent"
    );
}

#[test]
fn each_call_is_recorded_and_judged_and_the_host_named() {
    let dir = temp_dir("record");
    let transcript = dir.join("proxy.jsonl");
    let calls: Value = serde_json::from_str(DEMO_CALLS).unwrap();
    let record = transcript.to_string_lossy().into_owned();
    let command = proxied(&demo("legacy"), &["--record", &record]);
    let got = python_client(&calls, &command);
    assert_eq!(got["calls"][0]["code"], -32602, "{got:#}");
    let replayed = Command::new(sightline())
        .args(["replay", &record, "--json"])
        .output()
        .unwrap();
    let replayed: Value = serde_json::from_slice(&replayed.stdout).unwrap();
    let calls = replayed["calls"].as_array().unwrap();
    let classes: Vec<&str> = calls
        .iter()
        .map(|call| call["outcome"]["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        classes,
        ["protocol_error", "success", "protocol_error"],
        "{replayed:#}"
    );
    let findings: Vec<&str> = calls[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["id"].as_str().unwrap())
        .collect();
    assert!(
        findings.contains(&"sep1303.validation-as-protocol-error"),
        "{findings:?}"
    );
    let text = std::fs::read_to_string(&transcript).unwrap();
    // The Python SDK names itself with its default clientInfo, which names no host.
    assert!(
        text.contains("the Python SDK's default clientInfo"),
        "the host note is in the transcript"
    );
}

/// `{pid}` in `--record`: a host that starts its server once per session (`langchain-mcp-adapters`
/// does) gets a transcript of each, named by the proxy's process id, none overwritten.
#[test]
fn a_proxy_per_session_records_each_session_in_its_own_transcript() {
    let dir = temp_dir("per-session");
    let record = dir
        .join("session-{pid}.jsonl")
        .to_string_lossy()
        .into_owned();
    let command = proxied(&demo("legacy"), &["--record", &record]);
    let calls: Value = serde_json::from_str(DEMO_CALLS).unwrap();
    let mut written = Vec::new();
    for _ in 0..2 {
        let got = python_client(&calls, &command);
        assert_eq!(got["calls"][0]["code"], -32602, "{got:#}");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        written.push(names);
    }
    assert_eq!(written[0].len(), 1, "{written:?}");
    assert_eq!(
        written[1].len(),
        2,
        "a second session, a second file: {written:?}"
    );
    for name in &written[1] {
        let digits = name
            .trim_start_matches("session-")
            .trim_end_matches(".jsonl");
        assert!(digits.parse::<u32>().is_ok(), "named by a pid: {name}");
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(
            text.contains("tools/call"),
            "{name} has its session's calls"
        );
    }
}

/// A host that writes `lines` to the proxy and reads until the proxy's stdout ends: what it
/// read, and the proxy's exit code and stderr.
fn host(server: &[String], lines: &[&str]) -> (Vec<String>, i32, String) {
    let mut child = Command::new(sightline())
        .args(["proxy", "--"])
        .args(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let read: Vec<String> = stdout.lines().map_while(Result::ok).collect();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    (
        read,
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_server_that_dies_mid_call_ends_the_hosts_stdout_and_its_status_is_the_proxys() {
    let server = [
        "sh".to_owned(),
        "-c".to_owned(),
        r#"read line; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; read line; echo dying >&2; exit 3"#.to_owned(),
    ];
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}"#;
    let (read, code, stderr) = host(&server, &[init, call]);
    assert_eq!(
        read,
        [r#"{"jsonrpc":"2.0","id":1,"result":{}}"#],
        "only the server's frame"
    );
    assert_eq!(code, 3, "the server's exit status: {stderr}");
    assert!(
        stderr.contains("dying"),
        "the server's stderr passes: {stderr}"
    );
}

#[test]
fn garbage_from_the_server_passes_on_as_it_came() {
    let server = [
        "sh".to_owned(),
        "-c".to_owned(),
        r#"printf 'banner \033[31mred\033[0m\n'; read line; echo '{"jsonrpc":"2.0","id":1,"result":{}}'"#
            .to_owned(),
    ];
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    let (read, code, _) = host(&server, &[init]);
    assert_eq!(
        read[0], "banner \u{1b}[31mred\u{1b}[0m",
        "never the proxy's to clean up"
    );
    assert_eq!(code, 0);
}

#[test]
fn a_running_proxy_is_listed_for_attach_and_only_its_user_can_reach_it() {
    let runtime = temp_dir("runtime");
    let mut child = Command::new(sightline())
        .args(["proxy", "--"])
        .args(demo("sep1303"))
        .env("XDG_RUNTIME_DIR", &runtime)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let socket = runtime
        .join("sightline")
        .join(format!("proxy-{}.sock", child.id()));
    let started = std::time::Instant::now();
    while !socket.exists() && started.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&runtime.join("sightline")), 0o700);
    assert_eq!(mode(&socket), 0o600);
    let list = Command::new(sightline())
        .args(["attach", "--list"])
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains(&child.id().to_string()), "{listed}");
    assert!(listed.contains("demo-server --style sep1303"), "{listed}");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(!socket.exists(), "the socket goes with the proxy");
}

/// A remote server (`--url`): the host speaks stdio to the proxy, the proxy Streamable HTTP to
/// the server; the Python SDK's client gets what it gets from the same server on stdio.
#[test]
fn a_remote_server_is_reached_through_the_proxy_as_over_stdio() {
    let (mut server, url) = http_demo();
    let calls: Value = serde_json::from_str(DEMO_CALLS).unwrap();
    let remote = python_client(&calls, &[sightline(), "proxy".into(), "--url".into(), url]);
    let _ = server.kill();
    let _ = server.wait();
    let local = python_client(&calls, &demo("legacy"));
    assert_eq!(remote, local, "over HTTP through the proxy, as over stdio");
}

/// The demo server over Streamable HTTP, and the URL it printed.
fn http_demo() -> (std::process::Child, String) {
    let mut server = Command::new(sightline())
        .args(["demo-server", "--style", "legacy", "--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("a URL: {first}"))
        .to_owned();
    (server, url)
}

/// An HTTP host (`--listen`): the Python SDK's Streamable HTTP client talks to the proxy's
/// endpoint and gets what the same server gives on stdio; each call is judged on the way; a
/// SIGTERM ends the proxy and takes its socket with it.
#[test]
fn an_http_host_reaches_the_server_through_the_proxys_endpoint() {
    let (mut server, url) = http_demo();
    let runtime = temp_dir("listen");
    let record = runtime.join("listen.jsonl");
    let mut proxy = Command::new(sightline())
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--url",
            &url,
            "--record",
        ])
        .arg(&record)
        .env("XDG_RUNTIME_DIR", &runtime)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(proxy.stderr.take().unwrap());
    let mut said = String::new();
    stderr.read_line(&mut said).unwrap();
    let endpoint = said
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("the endpoint: {said}"))
        .to_owned();
    let calls: Value = serde_json::from_str(DEMO_CALLS).unwrap();
    let through = python_client(&calls, &["--url".into(), endpoint]);
    let direct = python_client(&calls, &demo("legacy"));
    assert_eq!(
        through, direct,
        "an HTTP host through the proxy, as on stdio"
    );
    let pid = nix::unistd::Pid::from_raw(i32::try_from(proxy.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    assert!(
        proxy.wait().unwrap().success(),
        "a SIGTERM is the end it expects"
    );
    let socket = runtime.join("sightline").join(format!("proxy-{pid}.sock"));
    assert!(!socket.exists(), "its socket went with it");
    let _ = server.kill();
    let _ = server.wait();
    let replayed = Command::new(sightline())
        .arg("replay")
        .arg(&record)
        .arg("--json")
        .output()
        .unwrap();
    let replayed: Value = serde_json::from_slice(&replayed.stdout).unwrap();
    let classes: Vec<&str> = replayed["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["outcome"]["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        classes,
        ["protocol_error", "success", "protocol_error"],
        "{replayed:#}"
    );
}

/// The host stopping the proxy (SIGTERM) stops the server as the host would have: SIGTERM, its
/// end awaited, its status the proxy's.
#[test]
fn a_sigterm_to_the_proxy_reaches_the_server_and_its_status_comes_back() {
    let script =
        "trap 'echo terminated >&2; exit 7' TERM; echo ready >&2; while true; do sleep 0.05; done";
    let (mut proxy, mut stderr, first) = proxy_of(script);
    assert_eq!(first, "ready");
    signal(&proxy, nix::sys::signal::Signal::SIGTERM);
    let status = proxy.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(
        rest.contains("terminated"),
        "the server got the SIGTERM: {rest}"
    );
    assert_eq!(status.code(), Some(7), "the server's status is the proxy's");
}

/// `sightline proxy -- sh -c SCRIPT`, its stderr, and the first line the server wrote there.
fn proxy_of(
    script: &str,
) -> (
    std::process::Child,
    BufReader<std::process::ChildStderr>,
    String,
) {
    let mut proxy = Command::new(sightline())
        .args(["proxy", "--", "sh", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(proxy.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    (proxy, stderr, line.trim().to_owned())
}

/// A proxy whose server ignores SIGTERM, the pid that server printed on its stderr, and the
/// rest of that stderr: the server writes `got-term` there at each SIGTERM, and goes on.
fn proxy_of_a_server_that_ignores_sigterm() -> (
    std::process::Child,
    nix::unistd::Pid,
    BufReader<std::process::ChildStderr>,
) {
    let script =
        "trap 'echo got-term >&2' TERM; trap '' INT; echo $$ >&2; while true; do sleep 0.05; done";
    let (proxy, stderr, pid) = proxy_of(script);
    (
        proxy,
        nix::unistd::Pid::from_raw(pid.parse().unwrap()),
        stderr,
    )
}

/// Reads the proxy's stderr up to the line the server writes when it gets a SIGTERM. The proxy
/// kills the server after the grace at the latest, which ends the stderr: no hang.
fn wait_for_the_servers_sigterm(stderr: &mut BufReader<std::process::ChildStderr>) {
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        let read = stderr.read_line(&mut line).unwrap();
        assert!(
            read > 0,
            "the server never got a SIGTERM; its stderr: {seen}"
        );
        if line.trim() == "got-term" {
            return;
        }
        seen.push_str(&line);
    }
}

fn signal(proxy: &std::process::Child, signal: nix::sys::signal::Signal) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(proxy.id()).unwrap());
    nix::sys::signal::kill(pid, signal).unwrap();
}

/// Whether a process is still there (a zombie not yet reaped counts).
fn alive(pid: nix::unistd::Pid) -> bool {
    nix::sys::signal::kill(pid, None).is_ok()
}

/// A hung server does not hang the proxy: SIGTERM first, as the host sent it; SIGKILL once the
/// grace is spent. The host sees the status a kill gives, and no server is left behind.
#[test]
fn a_server_that_ignores_sigterm_is_killed_after_the_grace_and_nothing_is_left_running() {
    let (mut proxy, server, mut stderr) = proxy_of_a_server_that_ignores_sigterm();
    let stopped = std::time::Instant::now();
    signal(&proxy, nix::sys::signal::Signal::SIGTERM);
    wait_for_the_servers_sigterm(&mut stderr);
    assert!(alive(server), "SIGTERM alone does not end this server");
    let status = proxy.wait().unwrap();
    assert!(
        stopped.elapsed() >= Duration::from_secs(2),
        "the grace is waited first"
    );
    assert_eq!(status.code(), Some(128 + 9), "killed, as the host sees it");
    assert!(!alive(server), "the server is gone with the proxy");
}

/// A host that sends a second signal (Claude Code: SIGINT, then SIGTERM) has stopped waiting:
/// the server is killed at once, before the proxy is killed and would leave it running.
#[test]
fn a_second_stop_kills_the_server_at_once() {
    let (mut proxy, server, mut stderr) = proxy_of_a_server_that_ignores_sigterm();
    signal(&proxy, nix::sys::signal::Signal::SIGINT);
    // The second signal once the first has reached the server as the proxy's SIGTERM.
    wait_for_the_servers_sigterm(&mut stderr);
    let second = std::time::Instant::now();
    signal(&proxy, nix::sys::signal::Signal::SIGTERM);
    let status = proxy.wait().unwrap();
    assert!(
        second.elapsed() < Duration::from_millis(1700),
        "not the grace: {:?}",
        second.elapsed()
    );
    assert_eq!(status.code(), Some(128 + 9));
    assert!(!alive(server), "the server is gone with the proxy");
}

/// A server that answers a request as soon as it has read its id, before the host has written
/// the rest of it: the answer passes on at once, and the recording still has the request
/// first, paired with its answer.
#[test]
fn an_answer_the_server_sends_before_the_request_is_fully_written_is_recorded_after_it() {
    let dir = temp_dir("eager");
    let transcript = dir.join("eager.jsonl");
    let record = transcript.to_string_lossy().into_owned();
    let eager = r#"
import sys
line = b""
while True:
    byte = sys.stdin.buffer.read(1)
    if not byte:
        break
    line = b"" if byte == b"\n" else line + byte
    for n, result in ((1, b'{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"eager","version":"1"}}'),
                      (2, b'{"content":[{"type":"text","text":"early"}]}')):
        if line == b'{"jsonrpc":"2.0","id":%d,' % n:
            sys.stdout.buffer.write(b'{"jsonrpc":"2.0","id":%d,"result":%s}\n' % (n, result))
            sys.stdout.flush()
"#;
    let server = ["python3".to_owned(), "-c".to_owned(), eager.to_owned()];
    let mut child = Command::new(sightline())
        .args(["proxy", "--record", &record, "--"])
        .args(&server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let requests = [
        (
            1,
            r#""method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"eager-host","version":"1"}}}"#,
        ),
        (
            2,
            r#""method":"tools/call","params":{"name":"x","arguments":{}}}"#,
        ),
    ];
    for (id, rest) in requests {
        write!(stdin, r#"{{"jsonrpc":"2.0","id":{id},"#).unwrap();
        stdin.flush().unwrap();
        // The answer is through the proxy before the request is whole.
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        assert!(answer.contains(&format!(r#""id":{id}"#)), "{answer}");
        writeln!(stdin, "{rest}").unwrap();
        stdin.flush().unwrap();
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let replayed = Command::new(sightline())
        .args(["replay", &record, "--json"])
        .output()
        .unwrap();
    let replayed: Value = serde_json::from_slice(&replayed.stdout).unwrap();
    let call = &replayed["calls"][0];
    assert_eq!(call["outcome"]["class"], "success", "{replayed:#}");
    assert!(call.to_string().contains("early"), "{call:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A server that sends more than the framing's budget (two 40 MiB lines) while the host is
/// halfway through its request: the lines held back for the request's sake are told as they
/// are once the budget runs short, instead of the framing waiting for the host's rest, queued
/// behind them (this hung a run of `cargo bench --bench proxy`).
#[test]
fn answers_beyond_the_framing_budget_while_the_host_is_halfway_through_a_line_do_not_hang() {
    let dir = temp_dir("budget");
    let record = dir.join("budget.jsonl").to_string_lossy().into_owned();
    let eager = r#"
import sys
seen = b""
while not seen.endswith(b'"id":1,'):
    byte = sys.stdin.buffer.read(1)
    if not byte:
        sys.exit(1)
    seen += byte
for n in (1, 2):
    sys.stdout.buffer.write(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % n)
    sys.stdout.buffer.write(b"x" * (40 << 20))
    sys.stdout.buffer.write(b'"}]}}\n')
    sys.stdout.flush()
sys.stdin.buffer.read()
"#;
    let mut child = Command::new(sightline())
        .args(["proxy", "--record", &record, "--", "python3", "-c", eager])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    write!(stdin, r#"{{"jsonrpc":"2.0","id":1,"#).unwrap();
    stdin.flush().unwrap();
    let pid = child.id();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    // A hang is a failure, not a test that never ends.
    let watchdog = std::thread::spawn(move || {
        if finished
            .recv_timeout(std::time::Duration::from_secs(120))
            .is_err()
        {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
    });
    for id in [1, 2] {
        let mut answer = Vec::new();
        stdout.read_until(b'\n', &mut answer).unwrap();
        assert!(
            answer.len() > 40 << 20
                && answer.starts_with(format!(r#"{{"jsonrpc":"2.0","id":{id},"#).as_bytes()),
            "answer {id}: {} bytes (the proxy hung and was killed?)",
            answer.len()
        );
    }
    writeln!(stdin, r#""method":"ping"}}"#).unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let _ = done.send(());
    watchdog.join().unwrap();
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert_eq!(recorded.matches(r#""type":"received""#).count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}
