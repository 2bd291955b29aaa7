//! `sightline capture HOST TOOL [ARGS]`: a real host run once against a mock model and the chosen
//! stdio server (through the recording relay), and what it sent its model set beside the
//! built-in profile's prediction for the same exchange.

mod model;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::relay::LoggedFrame;
use super::{emit, exit, pretty, print_json, read_arguments};
use crate::analysis::{CallContext, analyze};
use crate::cli::{CaptureArgs, CaptureHost, ServerArgs};
use crate::mcp::Timestamp;
use crate::mcp::jsonrpc::{self, Frame, Message, Reply};
use crate::mcp::messages::{Tool, tools_page};
use crate::mcp::session::{End, Exchange};
use crate::model_view::hosts;
use crate::sanitize;
use crate::transport::Target;
use model::ModelRequest;

/// The runner for the `OpenAI` Agents SDK, written to a temporary directory for each run.
const OPENAI_AGENTS_RUNNER: &str = include_str!("capture/openai_agents.py");
/// What to install when the SDK is missing (the release the profile is calibrated against).
const OPENAI_AGENTS_INSTALL: &str = "pip install openai-agents==0.24.0";
/// The interpreter used when `--python` is not given and the test venv exists.
const PEERS_PYTHON: &str = "tests/peers/.venv/bin/python";

/// How much of each relayed frame the text output shows.
const FRAME_PREVIEW: usize = 160;

/// What a capture found, before it is printed.
struct Captured {
    host_version: String,
    tool_definition: Option<Value>,
    frames: Vec<LoggedFrame>,
    /// The exchange of the host's `tools/call`, when it made one and the server answered.
    exchange: Option<Exchange>,
    version: String,
    catalog: Option<Vec<Tool>>,
    tool_result: Option<Value>,
    run_error: Option<String>,
}

/// Runs the capture; prints text or (`--json`) one object; exit 0 when the prediction matches,
/// 1 when it differs, 2 for a usage problem, 4 when the host could not be run.
pub async fn capture(server: &ServerArgs, args: &CaptureArgs) -> u8 {
    match run(server, args).await {
        Ok(captured) => report(&captured, args),
        Err((code, message)) => {
            eprintln!("sightline capture: {}", sanitize::text(&message));
            code
        }
    }
}

async fn run(server: &ServerArgs, args: &CaptureArgs) -> Result<Captured, (u8, String)> {
    let CaptureHost::OpenaiAgents = args.host;
    let arguments = read_arguments(&args.args).map_err(|message| (exit::USAGE, message))?;
    let command = match server.target() {
        Ok(Target::Stdio(command)) => command,
        Ok(Target::Http(_)) => {
            return Err((
                exit::USAGE,
                "capture drives stdio servers only (this slice); not --url".to_owned(),
            ));
        }
        Err(error) => return Err((exit::USAGE, error.to_string())),
    };
    let dir = TempDir::new().map_err(|error| (exit::TRANSPORT_FAILURE, error))?;
    let runner = dir.path.join("openai_agents_runner.py");
    let home = dir.path.join("home");
    let log = dir.path.join("exchange.jsonl");
    std::fs::write(&runner, OPENAI_AGENTS_RUNNER)
        .and_then(|()| std::fs::create_dir(&home))
        .map_err(|error| {
            (
                exit::TRANSPORT_FAILURE,
                format!("temporary directory: {error}"),
            )
        })?;
    let me = std::env::current_exe()
        .map_err(|error| (exit::TRANSPORT_FAILURE, format!("own path: {error}")))?;
    let mut relayed = vec![
        me.to_string_lossy().into_owned(),
        "relay".to_owned(),
        "--log".to_owned(),
        log.to_string_lossy().into_owned(),
        "--".to_owned(),
        command.program.clone(),
    ];
    relayed.extend(command.args.iter().cloned());
    let spec = json!({"server": relayed, "env": command.env});
    let mock = model::start(args.tool.clone(), arguments.to_string())
        .await
        .map_err(|error| (exit::TRANSPORT_FAILURE, format!("mock model: {error}")))?;
    let python = absolute(args.python.clone().unwrap_or_else(default_python));
    let mut host = tokio::process::Command::new(&python);
    host.arg(&runner)
        .arg(spec.to_string())
        // Nothing of the user's configuration: a clean environment and an empty HOME.
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("OPENAI_BASE_URL", &mock.base_url)
        .env("OPENAI_API_KEY", "dummy")
        .env("OPENAI_AGENTS_DISABLE_TRACING", "1")
        .env("PYTHONNOUSERSITE", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&home)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let ran = tokio::time::timeout(Duration::from_secs(args.deadline), host.output()).await;
    let output = match ran {
        Err(_) => {
            return Err((
                exit::TRANSPORT_FAILURE,
                format!("the host did not finish within {} s", args.deadline),
            ));
        }
        Ok(Err(error)) => {
            return Err((
                exit::USAGE,
                format!("cannot run {python}: {error} (--python names the interpreter)"),
            ));
        }
        Ok(Ok(output)) => output,
    };
    let said = host_report(&output)?;
    if let Some(missing) = said.get("missing").and_then(Value::as_str) {
        return Err((
            exit::USAGE,
            format!(
                "the OpenAI Agents SDK is not installed for {python} ({missing}); install it \
                 with `{OPENAI_AGENTS_INSTALL}` (or name another interpreter with --python)"
            ),
        ));
    }
    let requests = mock
        .requests
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let frames = read_log(&log);
    Ok(assemble(&said, &requests, frames, &args.tool))
}

/// The runner's last JSON line; without one, the tail of its stderr says why.
fn host_report(output: &std::process::Output) -> Result<Value, (u8, String)> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<Value>(line).ok())
        .ok_or_else(|| {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            (
                exit::TRANSPORT_FAILURE,
                format!(
                    "the host runner failed ({}):\n{}",
                    output.status,
                    tail.join("\n")
                ),
            )
        })
}

/// Puts the host's report, the model requests and the relay's frames together.
fn assemble(
    said: &Value,
    requests: &[ModelRequest],
    frames: Vec<LoggedFrame>,
    tool: &str,
) -> Captured {
    let tool_definition = requests
        .first()
        .and_then(|first| model::tool_definition(&first.body, tool))
        .cloned();
    let tool_result = requests
        .iter()
        .find_map(|request| model::tool_output(&request.body))
        .cloned();
    let (exchange, version, catalog) = exchange_of(&frames);
    Captured {
        host_version: said
            .get("host_version")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned(),
        tool_definition,
        frames,
        exchange,
        version,
        catalog,
        tool_result,
        run_error: said
            .get("run_error")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// The host's `tools/call` and its answer among the relay's frames, with the negotiated
/// version and the listed tools.
fn exchange_of(frames: &[LoggedFrame]) -> (Option<Exchange>, String, Option<Vec<Tool>>) {
    let parsed: Vec<(&LoggedFrame, Frame)> = frames
        .iter()
        .filter_map(|logged| Some((logged, jsonrpc::parse(&logged.frame).ok()?)))
        .collect();
    let answer_to = |id: &jsonrpc::Id| {
        parsed.iter().find(|(logged, frame)| {
            logged.dir == "recv"
                && matches!(&frame.message, Message::Response { id: Some(answered), .. } if answered == id)
        })
    };
    let mut version = "unknown".to_owned();
    let mut catalog: Option<Vec<Tool>> = None;
    let mut exchange = None;
    for (logged, frame) in &parsed {
        let Message::Request { id, method, .. } = &frame.message else {
            continue;
        };
        if logged.dir != "send" {
            continue;
        }
        let Some((answered_at, answer)) = answer_to(id) else {
            continue;
        };
        let result = match &answer.message {
            Message::Response {
                reply: Reply::Result(result),
                ..
            } => Some(result),
            _ => None,
        };
        match method.as_str() {
            "initialize" | "server/discover" => {
                if let Some(named) = result
                    .and_then(|r| r.get("protocolVersion"))
                    .and_then(|v| v.as_str().map(std::borrow::Cow::into_owned))
                {
                    version = named;
                }
            }
            "tools/list" => {
                if let Some(page) = result.and_then(tools_page) {
                    catalog.get_or_insert_with(Vec::new).extend(page.tools);
                }
            }
            "tools/call" if exchange.is_none() => {
                // A modern request names its version in `_meta`; no result repeats it.
                if let Some(named) = modern_version(frame) {
                    version = named;
                }
                exchange = Some(Exchange {
                    id: id.clone(),
                    method: method.clone(),
                    request: frame.clone(),
                    sent_at: Timestamp(logged.ms),
                    end: End::Replied(answer.clone()),
                    ended_at: Timestamp(answered_at.ms),
                    http: None,
                    rounds: Vec::new(),
                    task: None,
                });
            }
            _ => {}
        }
    }
    (exchange, version, catalog)
}

fn modern_version(frame: &Frame) -> Option<String> {
    let Message::Request {
        params: Some(params),
        ..
    } = &frame.message
    else {
        return None;
    };
    params
        .get("_meta")?
        .get(crate::mcp::era::META_PROTOCOL_VERSION)?
        .as_str()
        .map(str::to_owned)
}

fn read_log(log: &Path) -> Vec<LoggedFrame> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The text the model reads of a tool output: a string as it is, a list of parts one per line
/// (text parts as their text, others as their JSON), as sightline's model view joins blocks.
fn output_text(output: &Value) -> String {
    match output {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().map(part_text).collect::<Vec<_>>().join("\n"),
        other => part_text(other),
    }
}

fn part_text(part: &Value) -> String {
    match part.get("text").and_then(Value::as_str) {
        Some(text) if part.get("type").and_then(Value::as_str) != Some("input_image") => {
            text.to_owned()
        }
        _ => part.to_string(),
    }
}

fn report(captured: &Captured, args: &CaptureArgs) -> u8 {
    let profile = hosts::resolve("openai-agents", &[]).unwrap_or_else(|_| hosts::spec().clone());
    let analysis = captured.exchange.as_ref().map(|exchange| {
        analyze(
            exchange,
            &CallContext {
                version: &captured.version,
                catalog: captured.catalog.as_deref(),
                host: &profile,
                forward_protocol_errors: false,
            },
        )
    });
    let text = captured.tool_result.as_ref().map(output_text);
    let predicted = analysis.as_ref().map(|analysis| analysis.view.text());
    let matches = match (&text, &predicted) {
        (Some(text), Some(predicted)) => Some(text == predicted),
        _ => None,
    };
    if args.json {
        let frames: Vec<Value> = captured
            .frames
            .iter()
            .map(|f| json!({"dir": f.dir, "ms": f.ms, "frame": f.frame}))
            .collect();
        print_json(&json!({
            "host": "openai-agents",
            "host_version": captured.host_version,
            "tool_definition": captured.tool_definition,
            "exchange": frames,
            "server_called": captured.exchange.is_some(),
            "tool_result": captured.tool_result,
            "text": text,
            "error_flag": Value::Null,
            "run_error": captured.run_error,
            "prediction": analysis.as_ref().map(|a| a.view.to_json(false)),
            "matches": matches,
        }));
    } else {
        emit(|out| {
            write_text(
                out,
                captured,
                text.as_deref(),
                predicted.as_deref(),
                matches,
            )
        });
    }
    match matches {
        Some(true) => exit::SUCCESS,
        Some(false) => exit::TOOL_ERROR,
        None if captured.tool_result.is_some() || captured.run_error.is_some() => exit::TOOL_ERROR,
        None => exit::TRANSPORT_FAILURE,
    }
}

fn write_text(
    out: &mut dyn Write,
    captured: &Captured,
    text: Option<&str>,
    predicted: Option<&str>,
    matches: Option<bool>,
) -> std::io::Result<()> {
    writeln!(
        out,
        "host      openai-agents {} (the OpenAI Agents SDK, run once)",
        sanitize::text(&captured.host_version)
    )?;
    writeln!(out, "\ntool definition sent to the model")?;
    match &captured.tool_definition {
        Some(definition) => writeln!(out, "{}", pretty(&definition.to_string()))?,
        None => writeln!(out, "(none: the tool is not in the host's tool list)")?,
    }
    writeln!(out, "\nserver exchange (through the relay)")?;
    if captured.exchange.is_none() {
        writeln!(out, "(the host did not call the server)")?;
    }
    for frame in &captured.frames {
        let arrow = if frame.dir == "send" { "→" } else { "←" };
        // One line a frame, clipped: the full frames are in --json.
        let shown = crate::model_view::clip(&frame.frame, FRAME_PREVIEW);
        let more = if shown.len() < frame.frame.len() {
            "…"
        } else {
            ""
        };
        writeln!(out, "{arrow} {}{more}", sanitize::text(shown))?;
    }
    writeln!(out, "\ntool result sent to the model (verbatim)")?;
    match &captured.tool_result {
        Some(result) => writeln!(out, "{}", pretty(&result.to_string()))?,
        None => writeln!(out, "(none)")?,
    }
    if let Some(error) = &captured.run_error {
        writeln!(out, "host run error  {}", sanitize::text(error))?;
    }
    writeln!(
        out,
        "\ntext        {}",
        text.map_or_else(|| "(none)".into(), sanitize::text)
    )?;
    writeln!(
        out,
        "error flag  none (the Agents SDK's function_call_output has no error flag)"
    )?;
    writeln!(
        out,
        "predicted   {} (profile 'openai-agents')",
        predicted.map_or_else(|| "(no prediction)".into(), sanitize::text)
    )?;
    let verdict = match matches {
        Some(true) => "matches",
        Some(false) => "differs",
        None => "cannot compare",
    };
    writeln!(out, "verdict     {verdict}")
}

fn default_python() -> String {
    if Path::new(PEERS_PYTHON).exists() {
        PEERS_PYTHON.to_owned()
    } else {
        "python3".to_owned()
    }
}

/// A path with a `/` made absolute: the host runs in its own empty HOME, not here.
fn absolute(program: String) -> String {
    if !program.contains('/') {
        return program;
    }
    // Joined, not canonicalized: a venv's python is a symlink that must stay one.
    std::env::current_dir().map_or(program.clone(), |here| {
        here.join(&program).to_string_lossy().into_owned()
    })
}

/// A directory removed when the capture ends.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new() -> Result<TempDir, String> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos());
        let path =
            std::env::temp_dir().join(format!("sightline-capture-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&path)
            .map_err(|error| format!("temporary directory {}: {error}", path.display()))?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
