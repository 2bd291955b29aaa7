//! `sightline capture HOST TOOL [ARGS]`: a real host run once against a mock model and the chosen
//! server (stdio, or `--url` through `sightline proxy`) behind the recording relay, each
//! session's lines read through the proxy's watch (the one that pairs requests and answers),
//! and what the host sent its model set beside the profile's prediction for the same exchange.

mod host;
mod model;
mod recorded;
mod report;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::relay::LoggedFrame;
use super::{exit, read_arguments};
use crate::cli::{CaptureArgs, ServerArgs};
use crate::mcp::catalog::Catalog;
use crate::mcp::session::Exchange;
use crate::sanitize;
use crate::transport::Target;
pub use host::version_in;
use host::{Host, Setup};
use model::{ModelRequest, Plan, ToolResult};
pub use report::{Replayed, answer_blocks, exchange_frames, predicted};

/// What a capture found, before it is printed.
struct Captured {
    host: Host,
    /// The profile of the host's own host file (a user's), when it has one; else the
    /// built-in or the user's profile of the host's name predicts.
    profile: Option<crate::model_view::hosts::HostProfile>,
    host_version: String,
    /// The tool as the user named it.
    tool: String,
    /// The name the mock called the tool by, and the arguments it sent.
    called: String,
    arguments: Value,
    tool_definition: Option<Value>,
    /// Every line the relay passed, session by session.
    sessions: Vec<Vec<LoggedFrame>>,
    /// The exchange of the host's `tools/call`, when it made one: answered, or ended without
    /// an answer (the server exited first).
    exchange: Option<Exchange>,
    version: String,
    catalog: Option<std::sync::Arc<Catalog>>,
    tool_result: Option<ToolResult>,
    run_error: Option<String>,
    /// The host asked its model before the server was connected: it offered none of the
    /// server's tools and never called the server.
    unready: bool,
}

/// The version of host `name` installed here (where `capture` would find it, `host_file`
/// first), or why none is.
pub fn installed_version(name: &str, host_file: Option<&str>) -> Result<String, String> {
    let args = CaptureArgs {
        host: name.to_owned(),
        host_file: host_file.map(str::to_owned),
        tool: String::new(),
        args: "{}".to_owned(),
        json: false,
        python: None,
        host_bin: None,
        node: None,
        node_path: None,
        model_requests: None,
        deadline: 60,
    };
    host::host(name, &args)?.host.probe(&args)
}

/// The `[run.NAME]` table of host `name` as a host file writes it (from `--host-file`, the
/// user's file or the built-in one).
pub fn run_table(name: &str, host_file: Option<&str>) -> Option<String> {
    let config_dir = crate::config::config_dir();
    let (run, _) = host::file::find(name, host_file, config_dir.as_deref()).ok()?;
    Some(run?.to_file())
}

/// How host `name`'s model is told the server's tools (`mcp__srv__book_flight` in Claude Code),
/// from its run table; the tools' own names for a profile without one (the spec's reading).
pub fn tool_naming(name: &str) -> crate::model_api::ToolNaming {
    let config_dir = crate::config::config_dir();
    host::file::find(name, None, config_dir.as_deref())
        .ok()
        .and_then(|(run, _)| Some(run?.naming()))
        .unwrap_or_default()
}

/// Runs the capture; prints text or (`--json`) one object; exit 0 when the prediction matches,
/// 1 when it differs, 2 for a usage problem (or a host that is not installed), 4 when the host
/// could not be run.
pub async fn capture(server: &ServerArgs, args: &CaptureArgs) -> u8 {
    match run(server, args).await {
        Ok(captured) => report::report(&captured, args),
        Err((code, message)) => {
            // A host's own output quoted in the message keeps its lines.
            eprintln!(
                "sightline capture: {}",
                sanitize::text_keeping_newlines(&message)
            );
            code
        }
    }
}

/// How many times a capture runs the host when the host asked its model before the server was
/// connected.
const ATTEMPTS: usize = 3;

/// Runs the host until its model is offered the server's tools, up to [`ATTEMPTS`] times: a
/// host that waits a bounded time for its MCP servers (Copilot CLI about 10 s) leaves a server
/// that starts slowly out of the session, and what its model then reads is not the answer asked
/// for.
async fn run(server: &ServerArgs, args: &CaptureArgs) -> Result<Captured, (u8, String)> {
    let mut title = "the host".to_owned();
    for attempt in 1..=ATTEMPTS {
        let captured = run_once(server, args).await?;
        if !captured.unready {
            return Ok(captured);
        }
        captured.host.title().clone_into(&mut title);
        if attempt < ATTEMPTS {
            eprintln!(
                "sightline capture: {} asked its model before the server was connected; running \
                 it again ({} of {ATTEMPTS})",
                title,
                attempt + 1
            );
        }
    }
    Err((
        exit::TRANSPORT_FAILURE,
        format!(
            "{title} offered its model none of the server's tools in {ATTEMPTS} runs: the server was \
             not connected when the host asked its model (a host waits a bounded time for its MCP \
             servers; start the server faster, or on a less loaded machine)"
        ),
    ))
}

async fn run_once(server: &ServerArgs, args: &CaptureArgs) -> Result<Captured, (u8, String)> {
    let found = host::host(&args.host, args).map_err(|message| (exit::USAGE, message))?;
    let host = found.host;
    let prober = host.clone();
    let arguments = read_arguments(&args.args).map_err(|message| (exit::USAGE, message))?;
    let target = server
        .target()
        .map_err(|error| (exit::USAGE, error.to_string()))?;
    let probe_args = args.clone();
    let host_version = tokio::task::spawn_blocking(move || prober.probe(&probe_args))
        .await
        .map_err(|error| (exit::TRANSPORT_FAILURE, error.to_string()))?
        .map_err(|missing| (exit::USAGE, missing))?;
    let dir = TempDir::new().map_err(|error| (exit::TRANSPORT_FAILURE, error))?;
    let home = dir.path.join("home");
    let relayed = relayed(&dir.path, &target)?;
    let no_env = std::collections::HashMap::new();
    let server_env = match &target {
        Target::Stdio(command) => &command.env,
        Target::Http(_) => &no_env,
    };
    let names = host.names(&args.tool);
    let mock = model::start(Plan {
        api: host.api(),
        names: names.clone(),
        arguments: arguments.to_string(),
        bridge: host.bridge(&args.tool, &arguments.to_string()),
    })
    .await
    .map_err(|error| (exit::TRANSPORT_FAILURE, format!("mock model: {error}")))?;
    let launch = host
        .launch(&Setup {
            dir: &dir.path,
            home: &home,
            model_url: &mock.base_url,
            server: &relayed,
            server_env,
            tool: &args.tool,
            args,
        })
        .map_err(|error| (exit::USAGE, error))?;
    write_files(&home, &launch.files)?;
    let output = run_host(&host, &launch, &dir.path, &home, args.deadline).await?;
    let requests = mock
        .requests
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    if let Some(file) = &args.model_requests {
        keep_requests(file, &requests)?;
    }
    let run_error = host.run_error(&output);
    if requests.is_empty() {
        return Err((exit::TRANSPORT_FAILURE, silent_host(&host, &output)));
    }
    let called = names.first().cloned().unwrap_or_default();
    Ok(assemble(
        Captured {
            host,
            profile: found.profile,
            host_version,
            tool: args.tool.clone(),
            called,
            arguments,
            tool_definition: None,
            sessions: Vec::new(),
            exchange: None,
            version: "unknown".to_owned(),
            catalog: None,
            tool_result: None,
            run_error,
            unready: false,
        },
        &requests,
        &names,
        &dir.path,
    ))
}

/// This binary's `relay` in front of the server, a log per session in `dir` (each line is
/// logged before it is passed on: a host may kill its server the moment it has its answer). A
/// stdio server starts in the user's directory (its relative paths are theirs; the host runs
/// elsewhere); a remote one is reached through `sightline proxy --url`.
fn relayed(dir: &Path, target: &Target) -> Result<Vec<String>, (u8, String)> {
    let me = std::env::current_exe()
        .map_err(|error| (exit::TRANSPORT_FAILURE, format!("own path: {error}")))?;
    let me = me.to_string_lossy().into_owned();
    let here = std::env::current_dir().map_err(|error| {
        (
            exit::TRANSPORT_FAILURE,
            format!("working directory: {error}"),
        )
    })?;
    let mut relayed = vec![
        me.clone(),
        "relay".to_owned(),
        "--log".to_owned(),
        dir.join(format!("{SESSION}{{pid}}.jsonl"))
            .to_string_lossy()
            .into_owned(),
        "--cwd".to_owned(),
        here.to_string_lossy().into_owned(),
        "--".to_owned(),
    ];
    match target {
        Target::Stdio(command) => {
            relayed.push(command.program.clone());
            relayed.extend(command.args.iter().cloned());
        }
        Target::Http(http) => {
            relayed.extend([me, "proxy".to_owned(), "--url".to_owned(), http.url.clone()]);
            for (name, value) in &http.headers {
                relayed.extend(["--header".to_owned(), format!("{name}: {value}")]);
            }
        }
    }
    Ok(relayed)
}

/// How each session's log is named in the capture's directory.
const SESSION: &str = "session-";

/// The empty HOME and the host's config files.
fn write_files(home: &Path, files: &[(PathBuf, String)]) -> Result<(), (u8, String)> {
    std::fs::create_dir(home)
        .and_then(|()| {
            files.iter().try_for_each(|(path, text)| {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(path, text)
            })
        })
        .map_err(|error| {
            (
                exit::TRANSPORT_FAILURE,
                format!("temporary directory: {error}"),
            )
        })
}

/// `--model-requests FILE`: every request the host made, one JSON object a line.
fn keep_requests(file: &str, requests: &[ModelRequest]) -> Result<(), (u8, String)> {
    let mut lines = String::new();
    for request in requests {
        lines.push_str(&json!({"path": request.path, "body": request.body}).to_string());
        lines.push('\n');
    }
    std::fs::write(file, lines)
        .map_err(|error| (exit::USAGE, format!("--model-requests {file}: {error}")))
}

/// Runs the host to its end or the deadline, in a clean environment, in its own process group
/// (killed afterwards, with whatever it started).
async fn run_host(
    host: &Host,
    launch: &host::Launch,
    dir: &Path,
    home: &Path,
    deadline: u64,
) -> Result<std::process::Output, (u8, String)> {
    let mut child = tokio::process::Command::new(&launch.program);
    child
        .args(&launch.args)
        // Nothing of the user's configuration: a clean environment and an empty HOME.
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("TMPDIR", dir)
        .envs(launch.env.iter().map(|(key, value)| (key, value)))
        .current_dir(home)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        // Its own group, so the server it starts goes with it at the deadline.
        .process_group(0)
        .kill_on_drop(true);
    let child = child.spawn().map_err(|error| {
        (
            exit::USAGE,
            format!("cannot run {}: {error}", launch.program),
        )
    })?;
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(nix::unistd::Pid::from_raw);
    let ran = tokio::time::timeout(Duration::from_secs(deadline), child.wait_with_output()).await;
    if let Some(group) = group {
        // Whatever the host left behind (its server, a helper) ends with the capture.
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    }
    match ran {
        Err(_) => Err((
            exit::TRANSPORT_FAILURE,
            format!("{} did not finish within {deadline} s", host.title()),
        )),
        Ok(Err(error)) => Err((
            exit::TRANSPORT_FAILURE,
            format!("{}: {error}", launch.program),
        )),
        Ok(Ok(output)) => Ok(output),
    }
}

/// Why a host that never asked the model anything failed: its output's tail.
fn silent_host(host: &Host, output: &std::process::Output) -> String {
    let said = [&output.stderr, &output.stdout]
        .iter()
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
        .collect::<Vec<_>>()
        .join("\n");
    let tail: Vec<&str> = said
        .lines()
        .filter(|l| !l.trim().is_empty())
        .rev()
        .take(15)
        .collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    format!(
        "{} never asked the model anything ({}):\n{}",
        host.title(),
        output.status,
        tail.join("\n")
    )
}

/// Puts the model requests and the relay's frames into the capture.
fn assemble(
    mut captured: Captured,
    requests: &[ModelRequest],
    names: &[String],
    dir: &Path,
) -> Captured {
    let api = captured.host.api();
    if let Some((definition, name)) = requests.iter().find_map(|request| {
        let (name, definition) = model::tool_definition(api, &request.body, names)?;
        Some((definition.clone(), name))
    }) {
        captured.tool_definition = Some(definition);
        captured.called = name;
    }
    captured.tool_result = requests
        .iter()
        .find_map(|request| api.tool_result(&request.body))
        .map(|mut result| {
            result.text = captured
                .host
                .steadied(without_saved_paths(&result.text, &dir.to_string_lossy()));
            result
        });
    captured.sessions = recorded::sessions(dir, SESSION);
    let judged = recorded::judged(&captured.sessions);
    captured.exchange = judged.exchange;
    captured.version = judged.version;
    captured.catalog = judged.catalog;
    // The tools the server listed; the one asked for when it never listed any.
    let server_tools: Vec<String> = match &captured.catalog {
        Some(tools) => tools.iter().map(|tool| tool.name.to_string()).collect(),
        None => vec![captured.tool.clone()],
    };
    // A bridged host lists its bridge, never the server's tools.
    let host = &captured.host;
    let unready_now = captured.exchange.is_none()
        && host.bridge(&captured.tool, "{}").is_empty()
        && unready(api, |tool| host.names(tool), &server_tools, requests);
    captured.unready = unready_now;
    captured
}

/// Whether the host asked its model before the server was connected: the first request that
/// lists tools names none of the server's tools (`names` gives the names the host lists a tool
/// by), and the server was never called.
fn unready(
    api: model::Api,
    names: impl Fn(&str) -> Vec<String>,
    server_tools: &[String],
    requests: &[ModelRequest],
) -> bool {
    let Some(first) = requests.iter().find(|r| !api.tools(&r.body).is_empty()) else {
        return false;
    };
    // A server that lists no tools was connected all the same.
    if server_tools.is_empty() {
        return false;
    }
    let offered: Vec<String> = api
        .listed(&first.body)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    !server_tools
        .iter()
        .flat_map(|tool| names(tool))
        .any(|name| offered.contains(&name))
}

/// Where a host saved output (under the capture's temporary HOME) the text says
/// `<saved file>`: the path differs every run, and the profile cannot know it.
fn without_saved_paths(text: &str, dir: &str) -> String {
    if dir.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(dir) {
        out.push_str(&rest[..at]);
        let path = &rest[at..];
        let end = path.find(char::is_whitespace).unwrap_or(path.len());
        // A sentence's full stop or comma after the path is not part of it.
        let kept = path[..end].trim_end_matches(['.', ',', ')']);
        out.push_str(SAVED_FILE);
        rest = &path[kept.len()..];
    }
    out.push_str(rest);
    out
}

/// What a saved file's path reads as in a captured text.
pub const SAVED_FILE: &str = "<saved file>";

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_that_asks_its_model_before_listing_any_server_tool_is_unready() {
        let names = |tool: &str| vec![format!("srv-{tool}")];
        let listing = |tools: &[&str]| ModelRequest {
            path: "/v1/chat/completions".to_owned(),
            body: serde_json::json!({"tools": tools.iter().map(|name| serde_json::json!(
                {"type": "function", "function": {"name": name}})).collect::<Vec<_>>()}),
        };
        let server = ["book_flight".to_owned(), "long_text".to_owned()];
        let early = [listing(&["bash", "view"])];
        assert!(unready(model::Api::Chat, names, &server, &early));
        // A server whose listing is empty has nothing to offer: it was connected.
        assert!(!unready(model::Api::Chat, names, &[], &early));
        // An unknown tool asked for on purpose: the server's other tools were offered.
        let connected = [listing(&["bash", "srv-book_flight", "srv-long_text"])];
        assert!(!unready(model::Api::Chat, names, &server, &connected));
        // Only the first listing counts: the one the mock answered with the call.
        let late = [listing(&["bash"]), listing(&["bash", "srv-long_text"])];
        assert!(unready(model::Api::Chat, names, &server, &late));
        // A request without tools (a title, a summary) is not the one judged.
        let untooled = ModelRequest {
            path: "/v1/chat/completions".to_owned(),
            body: serde_json::json!({"messages": []}),
        };
        assert!(!unready(
            model::Api::Chat,
            names,
            &server,
            &[untooled, connected[0].clone()]
        ));
    }
}
