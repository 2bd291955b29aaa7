//! What real hosts show the model: `sightline capture` runs each host installed by
//! `tests/peers/install.sh` (pinned releases) over a matrix of cases — each answer class, both
//! demo styles, schema breaks, an unknown tool, a throwing tool, structured content with and
//! without an output schema, images, audio, embedded resources, a very long text, a server
//! that exits during the call (no reply) — and the host's built-in profile must predict
//! exactly what the host sent its model. A host update that changes behaviour fails here,
//! naming the host, the case and the difference.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use serde_json::Value;

mod common;

/// Where a case's server comes from.
#[derive(Clone, Copy)]
enum Server {
    Demo(&'static str),
    /// The official Python SDK peer with the content cases (`tests/peers/py_host_cases.py`).
    Cases,
}

/// The matrix: a name, the server, the tool and the arguments the mock model calls it with.
const CASES: &[(&str, Server, &str, &str)] = &[
    (
        "protocol error (-32602, a past date)",
        Server::Demo("legacy"),
        "book_flight",
        r#"{"departureDate":"12/12/2024","destination":"Paris"}"#,
    ),
    (
        "tool error (SEP-1303, a past date)",
        Server::Demo("sep1303"),
        "book_flight",
        r#"{"departureDate":"12/12/2024","destination":"Paris"}"#,
    ),
    (
        "success",
        Server::Demo("sep1303"),
        "book_flight",
        r#"{"departureDate":"12/12/2099","destination":"Paris"}"#,
    ),
    (
        "success (legacy style)",
        Server::Demo("legacy"),
        "book_flight",
        r#"{"departureDate":"12/12/2099"}"#,
    ),
    (
        "missing required argument (legacy)",
        Server::Demo("legacy"),
        "book_flight",
        r#"{"destination":"Paris"}"#,
    ),
    (
        "missing required argument (SEP-1303)",
        Server::Demo("sep1303"),
        "book_flight",
        r#"{"destination":"Paris"}"#,
    ),
    (
        "schema break: pattern (legacy)",
        Server::Demo("legacy"),
        "book_flight",
        r#"{"departureDate":"2099-12-12"}"#,
    ),
    (
        "schema break: pattern (SEP-1303)",
        Server::Demo("sep1303"),
        "book_flight",
        r#"{"departureDate":"2099-12-12"}"#,
    ),
    (
        "schema break: wrong type",
        Server::Demo("sep1303"),
        "book_flight",
        r#"{"departureDate":20991212}"#,
    ),
    (
        "business error",
        Server::Demo("sep1303"),
        "cancel_booking",
        r#"{"bookingRef":"SL-1A2B3C"}"#,
    ),
    (
        "structured content with an output schema (demo)",
        Server::Demo("sep1303"),
        "get_flight_status",
        r#"{"flightNumber":"LH123"}"#,
    ),
    (
        "text, image and resource link",
        Server::Demo("sep1303"),
        "boarding_pass",
        r#"{"bookingRef":"SL-1A2B3C"}"#,
    ),
    (
        "unknown tool",
        Server::Demo("sep1303"),
        "no_such_tool",
        "{}",
    ),
    (
        "unknown tool (legacy)",
        Server::Demo("legacy"),
        "no_such_tool",
        "{}",
    ),
    ("throwing tool", Server::Cases, "throws", "{}"),
    (
        "structured content with an output schema (Python SDK)",
        Server::Cases,
        "flight_status",
        r#"{"flightNumber":"LH123"}"#,
    ),
    (
        "structured content without an output schema",
        Server::Cases,
        "flight_unschemed",
        r#"{"flightNumber":"LH123"}"#,
    ),
    ("text and image", Server::Cases, "picture", "{}"),
    ("audio", Server::Cases, "sound", "{}"),
    ("embedded text resource", Server::Cases, "document", "{}"),
    (
        "long text (40 KB)",
        Server::Cases,
        "long_text",
        r#"{"size":40000}"#,
    ),
    (
        "long text (80 KB)",
        Server::Cases,
        "long_text",
        r#"{"size":80000}"#,
    ),
    (
        "very long text (400 KB)",
        Server::Cases,
        "long_text",
        r#"{"size":400000}"#,
    ),
    ("server exits during the call", Server::Cases, "crash", "{}"),
];

/// How many captures run at once (each host is a process tree of its own).
const PARALLEL: usize = 3;

/// Cases where a host does what its profile's language cannot say yet: each must still differ
/// (a match fails the test, so the list only shrinks), and the README says so. Qwen Code's hold
/// for both its tool modes.
const KNOWN: &[(&str, &str, &str)] = &[];

fn require_hosts() {
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    let stamp = |installed: &str, wanted: &str| {
        let installed = std::fs::read(peers.join(installed)).ok();
        installed.is_some() && installed == std::fs::read(peers.join(wanted)).ok()
    };
    assert!(
        stamp(".venv/.installed-requirements.txt", "requirements.txt")
            && stamp(
                ".venv-langchain/.installed-requirements.txt",
                "requirements-langchain.txt"
            )
            && stamp(
                "hosts/node_modules/.installed-lock.json",
                "hosts/package-lock.json"
            )
            && stamp("cli-hosts/.installed-versions.txt", "cli-hosts.txt"),
        "the hosts are not installed (or are out of date): run `tests/peers/install.sh`"
    );
}

fn capture(host: &str, server: Server, tool: &str, args: &str) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sightline"));
    // A deadline for a loaded CI machine: opencode alone takes 10-20 s a run.
    command.args(["capture", host, tool, args, "--json", "--deadline", "180"]);
    match server {
        Server::Demo(style) => command.args(["--demo", style]),
        Server::Cases => command.args([
            "--",
            "tests/peers/.venv/bin/python",
            "tests/peers/py_host_cases.py",
        ]),
    };
    let output = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("sightline starts");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "capture {host} {tool}: no JSON ({error}); stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Captures every case on `host` and fails with every difference between the host and its
/// profile, each named by host and case.
fn calibrate(host: &str, version: &str) {
    require_hosts();
    let queue = Mutex::new(CASES.iter());
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().unwrap().next();
                    let Some((case, server, tool, args)) = next else {
                        break;
                    };
                    let got = capture(host, *server, tool, args);
                    let found = problem(host, version, case, &got);
                    let family = if host == "qwen-code-direct" {
                        "qwen-code"
                    } else {
                        host
                    };
                    let known = KNOWN
                        .iter()
                        .find(|(h, c, _)| *h == family && c == case)
                        .map(|(.., why)| why);
                    match (found, known) {
                        (Some(problem), None) => problems.lock().unwrap().push(problem),
                        // A known difference is still checked: the day it is gone, say so.
                        (None, Some(why)) => problems.lock().unwrap().push(format!(
                            "{host} / {case}: the known difference ({why}) is gone: remove it from KNOWN"
                        )),
                        _ => {}
                    }
                }
            });
        }
    });
    let problems = problems.into_inner().unwrap();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// What is wrong with one case's capture, if anything.
fn problem(host: &str, version: &str, case: &str, got: &Value) -> Option<String> {
    let mut wrong: Vec<String> = Vec::new();
    if got["host_version"] != version {
        wrong.push(format!("not {host} {version}: {}", got["host_version"]));
    }
    // The profile names the version it was calibrated on: the one run here.
    if got["other_version"] != false {
        wrong.push(format!(
            "the profile was calibrated on {}, not on the {} run here",
            got["profile_version"], got["host_version"]
        ));
    }
    // The proxy picks the profile from the clientInfo the host sends: it must name this one.
    let expected = match host {
        // One client library (@ai-sdk/mcp) on either API: the Responses profile is picked.
        "vercel-ai-chat" => Some("vercel-ai"),
        // One client in either tool mode: tool search, its default, is picked.
        "qwen-code-direct" => Some("qwen-code"),
        // The Python SDK's default clientInfo ("mcp"): it names no host.
        "openai-agents" | "langchain" => None,
        other => Some(other),
    };
    let named = client_name(got);
    let picked = named
        .as_deref()
        .and_then(sightline::model_view::clients::for_client);
    if picked != expected {
        wrong.push(format!(
            "its clientInfo {named:?} picks the profile {picked:?}, not {expected:?}"
        ));
    }
    if got["matches"] != true {
        wrong.extend(
            got["differences"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| d.as_str().unwrap_or_default().to_owned()),
        );
    }
    if wrong.is_empty() {
        return None;
    }
    Some(format!(
        "{host} / {case}:\n  - {}\n  host sent:  {}\n  predicted:  {}\n  run error:  {}",
        wrong.join("\n  - "),
        clipped(&got["tool_result"]),
        clipped(&got["prediction"]["text"]),
        got["run_error"]
    ))
}

/// The `clientInfo.name` of the host's first request, as the proxy recorded it.
fn client_name(got: &Value) -> Option<String> {
    let first = got["exchange"]
        .as_array()?
        .iter()
        .find(|frame| frame["dir"] == "send")?;
    let request: Value = serde_json::from_str(first["frame"].as_str()?).ok()?;
    let info = if request["method"] == "initialize" {
        &request["params"]["clientInfo"]
    } else {
        &request["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]
    };
    info["name"].as_str().map(str::to_owned)
}

fn clipped(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(400) {
        Some((at, _)) => format!("{}… ({} bytes)", &text[..at], text.len()),
        None => text,
    }
}

#[test]
fn openai_agents_sends_what_its_profile_predicts() {
    calibrate("openai-agents", "0.24.0");
}

#[test]
fn claude_code_sends_what_its_profile_predicts() {
    calibrate("claude-code", "2.1.332");
}

/// Claude Code with `sightline proxy` in its server's place reads what it reads without it: the
/// proxy passes the legacy demo's -32602 on unchanged.
#[test]
fn claude_code_through_the_proxy_reads_what_it_reads_directly() {
    require_hosts();
    let args = r#"{"departureDate":"12/12/2024","destination":"Paris"}"#;
    let direct = capture("claude-code", Server::Demo("legacy"), "book_flight", args);
    let sightline = env!("CARGO_BIN_EXE_sightline");
    let output = Command::new(sightline)
        .args([
            "capture",
            "claude-code",
            "book_flight",
            args,
            "--json",
            "--",
        ])
        .args([
            sightline,
            "proxy",
            "--",
            sightline,
            "demo-server",
            "--style",
            "legacy",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("sightline starts");
    let through: Value = serde_json::from_slice(&output.stdout).expect("capture JSON");
    assert_eq!(through["server_called"], true, "{through:#}");
    assert_eq!(through["tool_result"], direct["tool_result"], "{through:#}");
    assert_eq!(through["error_flag"], direct["error_flag"], "{through:#}");
    assert_eq!(
        through["matches"], true,
        "the profile still predicts it: {through:#}"
    );
}

#[test]
fn vercel_ai_sends_what_its_profile_predicts() {
    calibrate("vercel-ai", "6.0.326");
}

#[test]
fn vercel_ai_chat_sends_what_its_profile_predicts() {
    calibrate("vercel-ai-chat", "6.0.326");
}

#[test]
fn langchain_sends_what_its_profile_predicts() {
    calibrate("langchain", "1.5.0");
}

#[test]
fn gemini_cli_sends_what_its_profile_predicts() {
    calibrate("gemini-cli", "0.61.0");
}

#[test]
fn codex_sends_what_its_profile_predicts() {
    calibrate("codex", "0.171.0");
}

#[test]
fn opencode_sends_what_its_profile_predicts() {
    calibrate("opencode", "1.18.33");
}

#[test]
fn copilot_cli_sends_what_its_profile_predicts() {
    calibrate("copilot-cli", "1.0.102");
}

#[test]
fn qwen_code_sends_what_its_profile_predicts() {
    calibrate("qwen-code", "0.24.4");
}

#[test]
fn qwen_code_direct_sends_what_its_profile_predicts() {
    calibrate("qwen-code-direct", "0.24.4");
}

#[test]
fn the_capture_shows_the_tool_definition_and_the_recorded_exchange() {
    require_hosts();
    let got = capture(
        "claude-code",
        Server::Demo("sep1303"),
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
    );
    assert_eq!(got["tool_definition"]["name"], "mcp__srv__book_flight");
    assert_eq!(got["called_as"], "mcp__srv__book_flight");
    let frames = got["exchange"].as_array().unwrap();
    let call = frames
        .iter()
        .find(|f| f["dir"] == "send" && f["frame"].as_str().unwrap().contains("tools/call"))
        .expect("the proxy recorded the host's tools/call");
    assert!(call["frame"].as_str().unwrap().contains("12/12/2024"));
    assert!(frames.iter().any(|f| f["dir"] == "recv"));
    assert_eq!(got["prediction"]["host"], "claude-code");
    assert_eq!(got["error_flag"], true);
}

/// `capture --url`: the host is given the proxy as its stdio server, and the proxy speaks
/// Streamable HTTP to the demo server; the exchange and the verdict are those of stdio.
#[test]
fn capture_drives_a_remote_server_through_the_proxy() {
    require_hosts();
    let server = common::servers::Server::demo("sep1303");
    let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["capture", "claude-code", "book_flight"])
        .args([
            r#"{"departureDate":"12/12/2024"}"#,
            "--json",
            "--deadline",
            "180",
        ])
        .args(["--url", &server.url])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("sightline starts");
    drop(server);
    let got: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "no JSON ({error}); stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(got["server_called"], true, "{got:#}");
    assert_eq!(got["matches"], true, "{got:#}");
    assert_eq!(got["error_flag"], true);
    let sent_call = got["exchange"].as_array().unwrap().iter().any(|frame| {
        frame["dir"] == "send" && frame["frame"].as_str().unwrap().contains("tools/call")
    });
    assert!(sent_call, "{got:#}");
    assert!(
        got["text"]
            .as_str()
            .unwrap()
            .contains("must be in the future"),
        "{got:#}"
    );
}

/// The hosts of the README's table, in its column order, with the release each was captured at.
const README_HOSTS: &[(&str, &str)] = &[
    ("claude-code", "2.1.332"),
    ("gemini-cli", "0.61.0"),
    ("openai-agents", "0.24.0"),
    ("vercel-ai", "6.0.326"),
    ("vercel-ai-chat", "6.0.326"),
    ("langchain", "1.5.0"),
    ("codex", "0.171.0"),
    ("opencode", "1.18.33"),
    ("copilot-cli", "1.0.102"),
    ("qwen-code", "0.24.4"),
];

/// The README's rows: cases of the matrix, by name.
const README_CASES: &[&str] = &[
    "protocol error (-32602, a past date)",
    "tool error (SEP-1303, a past date)",
    "missing required argument (SEP-1303)",
    "schema break: pattern (SEP-1303)",
    "unknown tool",
    "structured content with an output schema (demo)",
    "very long text (400 KB)",
];

const README_START: &str =
    "<!-- captured: generated by tests/hosts.rs; SIGHTLINE_WRITE_README=1 rewrites it -->";
const README_END: &str = "<!-- captured: end -->";

/// One cell: what the model read, short, and how (flag, server not called, nothing at all).
fn cell(got: &Value) -> String {
    let Some(text) = got["text"].as_str() else {
        return "*nothing: the run fails*".to_owned();
    };
    // Today's date is in the demo's message; the table must not change every day.
    let mut text = text.to_owned();
    if let Some(at) = text.find("Current date is ") {
        let end = (at + "Current date is dd/mm/yyyy".len()).min(text.len());
        text.replace_range(at..end, "Current date is …");
    }
    let mut shown: String = text.chars().take(90).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    let shown = shown
        .replace('|', "\\|")
        .replace('\n', " ↵ ")
        .replace('`', "'");
    let mut out = format!("`{shown}`");
    // A flag (Claude's `is_error`) or a key the model reads (Gemini's `response.error`).
    if got["error_flag"] == true {
        out.push_str(" · error mark");
    }
    if got["server_called"] == false {
        out.push_str(" · *server not called*");
    }
    out
}

fn readme_table() -> String {
    let mut rows = Vec::new();
    for case in README_CASES {
        let (_, server, tool, args) = CASES.iter().find(|(name, ..)| name == case).unwrap();
        let cells: Vec<String> = std::thread::scope(|scope| {
            let runs: Vec<_> = README_HOSTS
                .iter()
                .map(|(host, _)| scope.spawn(move || cell(&capture(host, *server, tool, args))))
                .collect();
            runs.into_iter().map(|run| run.join().unwrap()).collect()
        });
        rows.push(format!("| {case} | {} |", cells.join(" | ")));
    }
    let hosts: Vec<String> = README_HOSTS
        .iter()
        .map(|(host, version)| format!("{host} {version}"))
        .collect();
    format!(
        "{README_START}\n| case | {} |\n|---|{}\n{}\n{README_END}",
        hosts.join(" | "),
        "---|".repeat(README_HOSTS.len()),
        rows.join("\n")
    )
}

#[test]
fn the_readme_table_is_what_the_hosts_sent() {
    require_hosts();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme
        .find(README_START)
        .expect("the README has the table's start marker");
    let end = readme[start..]
        .find(README_END)
        .expect("and its end marker")
        + start
        + README_END.len();
    let table = readme_table();
    if std::env::var_os("SIGHTLINE_WRITE_README").is_some() {
        let written = format!("{}{table}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, written).unwrap();
        return;
    }
    let written = &readme[start..end];
    // Each cell that differs, named by its case and host (a whole row is too long to read).
    let hosts: Vec<&str> = table
        .lines()
        .nth(1)
        .unwrap_or_default()
        .split(" | ")
        .collect();
    let mut changed = Vec::new();
    for (was, now) in written.lines().zip(table.lines()) {
        let (was, now): (Vec<&str>, Vec<&str>) =
            (was.split(" | ").collect(), now.split(" | ").collect());
        for (column, (a, b)) in was.iter().zip(&now).enumerate() {
            if a != b {
                let host = hosts.get(column).unwrap_or(&"?");
                changed.push(format!("{} / {host}:\n  README {a}\n  hosts  {b}", now[0]));
            }
        }
    }
    assert!(
        written == table,
        "the README's table is not what the hosts send now (rerun with SIGHTLINE_WRITE_README=1 \
         to rewrite it); the rows that differ:\n{}",
        changed.join("\n")
    );
}

/// `sightline ARGS` from the checkout, stdin closed, run to its end.
fn sightline(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `calibrate --write` from a host file that has only its run table (a host sightline knows
/// nothing of: the Agents SDK under another name) writes a whole host file whose profile
/// predicts what the table says it does, and `--check` with that file finds the same.
#[test]
fn calibrate_writes_a_host_file_that_its_check_confirms() {
    require_hosts();
    let dir = std::env::temp_dir().join(format!("sightline-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let built_in = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("hosts/openai-agents.toml"),
    )
    .unwrap();
    let run = &built_in[built_in.find("\n[run.openai-agents]").unwrap()..];
    let table = dir.join("mine.toml");
    std::fs::write(&table, run.replace("[run.openai-agents", "[run.mine")).unwrap();
    let written = dir.join("written.toml");
    let wrote = sightline(&[
        "calibrate",
        "mine",
        "--host-file",
        table.to_str().unwrap(),
        "--write",
        written.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&wrote.stdout).into_owned();
    // No profile yet: every case is "no prediction", and what the model read is shown.
    assert!(said.contains("0 of 22 cases match"), "{said}");
    let predicted: usize = said
        .split("its profile predicting ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no count in:\n{said}"));
    // What it could not fit (the SDK's own check of a missing argument, its words for a
    // server that died) is named; the rest, 19 cases, it must keep predicting.
    assert!(predicted >= 19, "{said}");
    let file = std::fs::read_to_string(&written).unwrap();
    assert!(
        file.contains("[hosts.mine]") && file.contains("[run.mine]"),
        "{file}"
    );
    let checked = sightline(&[
        "calibrate",
        "mine",
        "--host-file",
        written.to_str().unwrap(),
        "--check",
        "--json",
    ]);
    let checked: Value = serde_json::from_slice(&checked.stdout).unwrap();
    let matched = checked["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|case| case["matches"] == true)
        .count();
    assert_eq!(matched, predicted, "{checked:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A host that matches its built-in profile gets that profile back from `--write`, both of
/// Claude Code's cuts (the saved preview above 50,000 bytes, the notice above 100,001) kept.
#[test]
fn calibrate_writes_back_a_profile_the_host_matches() {
    require_hosts();
    let written = std::env::temp_dir().join(format!(
        "sightline-calibrate-cc-{}.toml",
        std::process::id()
    ));
    let wrote = sightline(&[
        "calibrate",
        "claude-code",
        "--write",
        written.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&wrote.stdout).into_owned();
    assert!(said.contains("22 of 22 cases match the profile"), "{said}");
    assert!(said.contains("its profile predicting 22 of 22"), "{said}");
    let file = std::fs::read_to_string(&written).unwrap();
    assert!(
        file.contains("[hosts.claude-code.persist]") && file.contains("bytes = 100001"),
        "{file}"
    );
    let checked = sightline(&[
        "calibrate",
        "claude-code",
        "--host-file",
        written.to_str().unwrap(),
        "--check",
    ]);
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    let _ = std::fs::remove_file(&written);
}

/// The keys of a JSON object (none for anything else).
fn keys(value: &Value) -> std::collections::BTreeSet<String> {
    value
        .as_object()
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default()
}

/// What a request that carries a tool result is made of, API by API: the keys of the offered
/// tool, of the model's call and of the result, and the kind of the result's content.
fn skeleton(api: &str, body: &Value) -> Vec<(String, std::collections::BTreeSet<String>)> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let tool = body["tools"]
        .as_array()
        .and_then(|tools| {
            tools.iter().find(|tool| {
                let name = tool["name"].as_str().or(tool["function"]["name"].as_str());
                name.is_some_and(|name| name.ends_with("book_flight"))
            })
        })
        .cloned()
        .unwrap_or_default();
    let kind = |content: &Value| {
        std::collections::BTreeSet::from([match content {
            Value::String(_) => "string".to_owned(),
            Value::Array(parts) => format!(
                "array of {}",
                keys(&parts[0]).into_iter().collect::<Vec<_>>().join(",")
            ),
            other => other.to_string(),
        }])
    };
    if api == "gemini" {
        return gemini_skeleton(body);
    }
    if api == "responses" {
        let items = body["input"].as_array().cloned().unwrap_or_default();
        let of_type = |kind: &str| {
            items
                .iter()
                .rev()
                .find(|item| item["type"] == kind)
                .cloned()
                .unwrap_or_default()
        };
        let (call, result) = (of_type("function_call"), of_type("function_call_output"));
        return vec![
            ("tool".into(), keys(&tool)),
            ("call".into(), keys(&call)),
            ("result".into(), keys(&result)),
            ("result content".into(), kind(&result["output"])),
        ];
    }
    if api == "anthropic" {
        let call = messages.iter().rev().find_map(|message| {
            message["content"]
                .as_array()?
                .iter()
                .find(|block| block["type"] == "tool_use")
                .cloned()
        });
        let result = messages
            .last()
            .and_then(|message| message["content"].as_array()?.first().cloned());
        let (call, result) = (call.unwrap_or_default(), result.unwrap_or_default());
        vec![
            ("tool".into(), keys(&tool)),
            ("call".into(), keys(&call)),
            ("result".into(), keys(&result)),
            ("result content".into(), kind(&result["content"])),
        ]
    } else {
        let call = messages
            .iter()
            .rev()
            .find_map(|message| message["tool_calls"].as_array()?.first().cloned())
            .unwrap_or_default();
        let result = messages
            .iter()
            .rev()
            .find(|message| message["role"] == "tool")
            .cloned()
            .unwrap_or_default();
        vec![
            ("tool".into(), keys(&tool)),
            ("tool function".into(), keys(&tool["function"])),
            ("call".into(), keys(&call)),
            ("call function".into(), keys(&call["function"])),
            ("result".into(), keys(&result)),
            ("result content".into(), kind(&result["content"])),
        ]
    }
}

/// [`skeleton`] of a `generateContent` request: the declaration, the `functionCall`, the
/// `functionResponse` and the keys of its `response`.
fn gemini_skeleton(body: &Value) -> Vec<(String, std::collections::BTreeSet<String>)> {
    let contents = body["contents"].as_array().cloned().unwrap_or_default();
    let part = |key: &str| {
        contents
            .iter()
            .rev()
            .find_map(|content| {
                content["parts"]
                    .as_array()?
                    .iter()
                    .find_map(|part| part.get(key).cloned())
            })
            .unwrap_or_default()
    };
    let declaration = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["functionDeclarations"].as_array())
        .flatten()
        .find(|d| {
            d["name"]
                .as_str()
                .is_some_and(|n| n.ends_with("book_flight"))
        })
        .cloned()
        .unwrap_or_default();
    let (call, result) = (part("functionCall"), part("functionResponse"));
    vec![
        ("tool".into(), keys(&declaration)),
        ("call".into(), keys(&call)),
        ("result".into(), keys(&result)),
        ("result content".into(), keys(&result["response"])),
    ]
}

/// `sightline agent` asks a model the way the host it sees through does: the request that
/// carries the tool result has the real host's shape, API by API (Claude Code: Messages;
/// `LangChain`: Chat Completions; the Agents SDK: Responses; Gemini CLI: `generateContent`). Each part of sightline's has no key the host's lacks, and the
/// result's content is of the same kind; the tool result itself is the host's (its text, its
/// error flag), which `calibrate` checks.
#[test]
fn the_agents_requests_have_the_shape_of_the_real_hosts() {
    require_hosts();
    let dir = std::env::temp_dir().join(format!("sightline-agent-shape-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // LangChain ends its run on the legacy demo's protocol error: its result is the SEP-1303
    // demo's tool error.
    for (host, api, provider, style) in [
        ("claude-code", "anthropic", "anthropic", "legacy"),
        ("langchain", "chat", "openai", "sep1303"),
        ("openai-agents", "responses", "openai-responses", "sep1303"),
        ("gemini-cli", "gemini", "gemini", "legacy"),
    ] {
        let requests = dir.join(format!("{host}.jsonl"));
        let captured = sightline(&[
            "capture",
            host,
            "book_flight",
            r#"{"departureDate":"12/12/2024"}"#,
            "--demo",
            style,
            "--json",
            "--model-requests",
            requests.to_str().unwrap(),
        ]);
        assert!(
            captured.status.code().is_some_and(|code| code <= 1),
            "{host}: {}",
            String::from_utf8_lossy(&captured.stderr)
        );
        let theirs: Vec<Value> = std::fs::read_to_string(&requests)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let theirs = theirs
            .iter()
            .map(|request| &request["body"])
            .find(|body| body.to_string().contains("Current date is"))
            .unwrap_or_else(|| panic!("{host}: no request carried the tool result"));
        let model = common::scripted_model::ScriptedModel::start(host);
        let url = if api == "anthropic" || api == "gemini" {
            format!("http://127.0.0.1:{}", model.port)
        } else {
            model.url()
        };
        let ran = sightline(&[
            "agent",
            "Book a flight departing 12/12",
            "--model",
            &format!("{provider}:any"),
            "--model-url",
            &url,
            "--host",
            host,
            "--demo",
            style,
            "--max-turns",
            "2",
        ]);
        assert!(
            ran.status
                .code()
                .is_some_and(|code| code == 0 || code == 5 || code == 6),
            "{host}: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
        let ours = model.requests();
        let ours = &ours
            .get(1)
            .unwrap_or_else(|| panic!("{host}: one turn only"))["body"];
        for ((part, mine), (_, host_keys)) in
            skeleton(api, ours).into_iter().zip(skeleton(api, theirs))
        {
            if part == "result content" {
                assert_eq!(mine, host_keys, "{host}: the {part}");
            } else {
                assert!(
                    mine.is_subset(&host_keys) && !mine.is_empty(),
                    "{host}: the {part}: ours {mine:?}, the host's {host_keys:?}"
                );
            }
        }
    }
}

/// From a folder outside the checkout (a user's, after `cargo install --path .` with the hosts
/// installed the documented way), `capture` and the TUI's `H` find the checkout's pinned hosts;
/// `--host-bin` reaches `H` too; a host found nowhere says where it was looked for.
#[test]
fn capture_and_h_find_the_pinned_hosts_from_another_folder() {
    require_hosts();
    let elsewhere =
        std::env::temp_dir().join(format!("sightline-elsewhere-{}", std::process::id()));
    std::fs::create_dir_all(&elsewhere).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sightline"))
            .args(args)
            .current_dir(&elsewhere)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let past = r#"{"departureDate":"12/12/2024"}"#;
    let found = run(&[
        "capture",
        "claude-code",
        "book_flight",
        past,
        "--json",
        "--demo",
        "legacy",
    ]);
    let got: Value = serde_json::from_slice(&found.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&found.stderr)));
    assert_eq!(got["matches"], true, "{got:#}");

    // A host whose program is nowhere: the error names the places.
    let file = elsewhere.join("nowhere.toml");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/hosts/claude-code.toml"
    ))
    .unwrap()
    .replace("[hosts.claude-code", "[hosts.nowhere")
    .replace("[run.claude-code", "[run.nowhere")
    .replace(
        "program = \"claude\"",
        "program = \"sightline-no-such-host\"",
    );
    std::fs::write(&file, text).unwrap();
    let missing = run(&[
        "capture",
        "nowhere",
        "book_flight",
        past,
        "--host-file",
        file.to_str().unwrap(),
        "--demo",
        "legacy",
    ]);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_ne!(missing.status.code(), Some(0));
    let pinned = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/peers/hosts/node_modules/.bin"
    );
    assert!(
        stderr.contains("looked on PATH, then in") && stderr.contains(pinned),
        "{stderr}"
    );

    // The TUI's `H`, started there: the pinned host found; then the program --host-bin names.
    let claude = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/peers/hosts/node_modules/.bin/claude"
    );
    for (host_bin, expected) in [
        (claude, "exactly"),
        ("/nonexistent/claude", "could not be run"),
    ] {
        let args = [
            "--demo",
            "legacy",
            "--host",
            "claude-code",
            "--host-bin",
            host_bin,
        ];
        let tmux = common::tmux::Tmux::start_in(&args, &elsewhere, &[]);
        tmux.wait_for("book_flight");
        tmux.keys(&["Enter"]);
        tmux.wait_for("┏ Editing · book_flight");
        tmux.type_text("12/12/2024");
        tmux.keys(&["C-s"]);
        tmux.wait_for("protocol error ·");
        // Out of the editor, where H is a letter.
        tmux.keys(&["Escape"]);
        tmux.keys(&["H"]);
        let screen = tmux.wait_until("the real host's answer", |screen| {
            screen.contains("(H)") || screen.contains("could not be run")
        });
        assert!(screen.contains(expected), "{host_bin}: {screen}");
        tmux.keys(&["q"]);
        tmux.wait_for("EXITED 0");
    }
    std::fs::remove_dir_all(&elsewhere).unwrap();
}
