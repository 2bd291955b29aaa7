//! The hosts `capture` runs: how each is found, told where its model and server are, started
//! headless in an empty HOME, and what its run said. One module a host.

mod claude_code;
mod codex;
pub mod file;
mod gemini_cli;
mod langchain;
mod openai_agents;
mod vercel_ai;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use super::model::{Api, BridgeCall};
use crate::cli::CaptureArgs;
use crate::model_view::hosts::HostProfile;

/// The name every host is told the server has (its tools become `mcp__srv__x`, `mcp_srv_x`…).
pub const SERVER_NAME: &str = "srv";
/// What every host is asked to do.
pub const PROMPT: &str = "Call the tool.";

/// What a host's launch is given.
pub struct Setup<'a> {
    /// The capture's temporary directory (runner scripts and config files go here).
    pub dir: &'a Path,
    /// The host's HOME, empty.
    pub home: &'a Path,
    /// The mock model, `http://127.0.0.1:PORT`.
    pub model_url: &'a str,
    /// The server command, already behind the recording relay.
    pub server: &'a [String],
    pub server_env: &'a HashMap<String, String>,
    pub tool: &'a str,
    pub args: &'a CaptureArgs,
}

/// How to start the host: the program, its arguments, its environment on top of PATH and HOME,
/// and files to write first.
#[derive(Debug, Default)]
pub struct Launch {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub files: Vec<(PathBuf, String)>,
}

/// One host `capture` can run.
pub trait Host: Sync {
    /// Its name on the command line, and the name of the profile it calibrates.
    fn name(&self) -> &str;
    /// Its name in prose ("Claude Code").
    fn title(&self) -> &str;
    fn api(&self) -> Api;
    /// The names the model may call `tool` by in this host, most likely first.
    fn names(&self, tool: &str) -> Vec<String>;
    /// The host's version, or why it cannot be run (with the command that installs it).
    fn probe(&self, args: &CaptureArgs) -> Result<String, String>;
    fn launch(&self, setup: &Setup) -> Result<Launch, String>;
    /// The host's own failure of the run, from what it printed.
    fn run_error(&self, output: &Output) -> Option<String>;
    /// Where its message carries an error flag, in words ("the `tool_result`'s `is_error`").
    fn flag_note(&self) -> &str;
    /// The text its model read, with what differs on every run (a timing) written as its
    /// profile writes it; most hosts' texts are kept as they are.
    fn steadied(&self, text: String) -> String {
        text
    }
    /// The model's calls through the host's bridge to reach `tool` with `arguments` (JSON
    /// text); empty for a host that lists server tools to its model by name.
    fn bridge(&self, _tool: &str, _arguments: &str) -> Vec<BridgeCall> {
        Vec::new()
    }
}

/// The hosts written in Rust (the library hosts, run by embedded runners, and the first CLI
/// hosts); every other host is a host file.
const BUILT_IN: &[&dyn Host] = &[
    &claude_code::ClaudeCode,
    &gemini_cli::GeminiCli,
    &openai_agents::OpenaiAgents,
    &vercel_ai::VercelAi::RESPONSES,
    &vercel_ai::VercelAi::CHAT,
    &langchain::Langchain,
    &codex::Codex,
];

/// A host found for `capture`, with the profile its own host file carries, if it does.
pub struct Found {
    pub host: &'static dyn Host,
    pub profile: Option<HostProfile>,
}

/// The host named `name`: a built-in one, or a host file (`--host-file`, the user's
/// `hosts/NAME.toml`, the built-in files).
pub fn host(name: &str, args: &CaptureArgs) -> Result<Found, String> {
    let config_dir = crate::config::config_dir();
    let (run, profile) = file::find(name, args.host_file.as_deref(), config_dir.as_deref())?;
    let host: &'static dyn Host = match (run, BUILT_IN.iter().find(|host| host.name() == name)) {
        // One capture a process: the host lives as long as it.
        (Some(run), _) => Box::leak(Box::new(run)),
        (None, Some(host)) => *host,
        (None, None) => {
            return Err(format!(
                "unknown host '{name}'; sightline runs {} (or write a host file: see \"Add your own host\" in the README)",
                names().join(", ")
            ));
        }
    };
    Ok(Found { host, profile })
}

/// Every host `capture` runs without a file of the user's.
pub fn names() -> Vec<String> {
    BUILT_IN
        .iter()
        .map(|host| host.name().to_owned())
        .chain(file::builtins().iter().map(|run| run.name().to_owned()))
        .collect()
}

/// The interpreter used when `--python` is not given and the test venv exists.
const PEERS_PYTHON: &str = "tests/peers/.venv/bin/python";
/// The Node modules used when `--node-path` is not given and the test peers are installed.
const PEERS_NODE_MODULES: &str = "tests/peers/hosts/node_modules";
/// The CLI hosts whose npm packages cannot be installed from a lock file (they list other
/// platforms' binaries the registry may not serve): pinned in `tests/peers/install.sh`.
const PEERS_CLI_HOSTS: &str = "tests/peers/cli-hosts/node_modules";

/// `--python`, or the test venv's, or `python3`; made absolute (the host runs elsewhere).
pub fn python(args: &CaptureArgs) -> String {
    let chosen = args.python.clone().unwrap_or_else(|| {
        if Path::new(PEERS_PYTHON).exists() {
            PEERS_PYTHON.to_owned()
        } else {
            "python3".to_owned()
        }
    });
    absolute(chosen)
}

/// `--node-path`, or the test peers' host modules, or `./node_modules`; absolute.
pub fn node_modules(args: &CaptureArgs) -> String {
    let chosen = args.node_path.clone().unwrap_or_else(|| {
        if Path::new(PEERS_NODE_MODULES).exists() {
            PEERS_NODE_MODULES.to_owned()
        } else {
            "node_modules".to_owned()
        }
    });
    absolute(chosen)
}

/// `--host-bin`, or `program` from the test peers' host modules, or `program` on PATH.
pub fn host_bin(args: &CaptureArgs, program: &str) -> String {
    if let Some(bin) = &args.host_bin {
        return absolute(bin.clone());
    }
    for modules in [PEERS_NODE_MODULES, PEERS_CLI_HOSTS] {
        let peers = Path::new(modules).join(".bin").join(program);
        if peers.exists() {
            return absolute(peers.to_string_lossy().into_owned());
        }
    }
    program.to_owned()
}

/// The version a Python distribution reports, or why it cannot be found.
pub fn python_version(python: &str, distribution: &str, install: &str) -> Result<String, String> {
    let script = format!("import importlib.metadata as m; print(m.version('{distribution}'))");
    let found = run_quietly(python, &["-c", &script], None);
    match found {
        Ok(version) => Ok(version),
        Err(error) => Err(format!(
            "{distribution} is not installed for {python} ({error}); install it with \
             `{install}` (or name another interpreter with --python)"
        )),
    }
}

/// The output of a short command (its first stdout line), or why it failed.
pub fn run_quietly(
    program: &str,
    args: &[&str],
    env: Option<(&str, &str)>,
) -> Result<String, String> {
    let mut command = std::process::Command::new(program);
    command
        .args(args)
        .stdin(std::process::Stdio::null())
        .env("PYTHONNOUSERSITE", "1");
    if let Some((key, value)) = env {
        command.env(key, value);
    }
    let output = command
        .output()
        .map_err(|error| format!("cannot run {program}: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first = stdout.lines().next().unwrap_or_default().trim().to_owned();
    if output.status.success() && !first.is_empty() {
        return Ok(first);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(stderr
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("no output")
        .trim()
        .to_owned())
}

/// An embedded Python runner: written as `file` into the capture's directory, run by `python`
/// with the server spec as its argument, `OPENAI_BASE_URL` at the mock, and `env` besides.
pub fn python_runner(
    setup: &Setup,
    python: String,
    (file, text): (&str, &str),
    env: &[(&str, &str)],
) -> Launch {
    let runner = setup.dir.join(file);
    let spec = serde_json::json!({"server": setup.server, "env": setup.server_env});
    let mut all = vec![
        (
            "OPENAI_BASE_URL".to_owned(),
            format!("{}/v1", setup.model_url),
        ),
        ("OPENAI_API_KEY".to_owned(), "dummy".to_owned()),
        ("PYTHONNOUSERSITE".to_owned(), "1".to_owned()),
        ("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned()),
    ];
    all.extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    Launch {
        program: python,
        args: vec![runner.to_string_lossy().into_owned(), spec.to_string()],
        env: all,
        files: vec![(runner, text.to_owned())],
    }
}

/// The last JSON line a runner printed, with `run_error` in it.
pub fn runner_error(output: &Output) -> Option<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())?
        .get("run_error")?
        .as_str()
        .map(str::to_owned)
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

/// The server as the `mcpServers` entry the CLI hosts' config files take.
pub fn mcp_server_entry(setup: &Setup) -> serde_json::Value {
    let (command, args) = setup
        .server
        .split_first()
        .map_or(("", &[][..]), |(c, a)| (c.as_str(), a));
    serde_json::json!({"command": command, "args": args, "env": setup.server_env})
}

#[cfg(test)]
mod tests {
    use super::{BUILT_IN, names};
    use crate::model_view::hosts;

    #[test]
    fn every_host_calibrates_a_captured_profile_and_every_captured_profile_has_its_host() {
        let mut runnable = names();
        runnable.sort_unstable();
        let mut marked: Vec<String> = hosts::captured().iter().map(|p| p.name.clone()).collect();
        marked.sort_unstable();
        assert_eq!(
            runnable, marked,
            "hosts capture runs vs profiles marked captured"
        );
        assert!(BUILT_IN.iter().all(|host| !host.title().is_empty()));
    }
}
