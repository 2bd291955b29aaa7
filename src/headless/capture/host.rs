//! The hosts `capture` runs, each a host file's run table: how it is found, told where its
//! model and server are, started headless in an empty HOME, and what its run said.

pub mod file;
mod run;
mod runner;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use file::HostRun as Host;
pub use run::version_in;

use crate::cli::CaptureArgs;
use crate::model_view::hosts::HostProfile;

/// The name every host is told the server has (its tools become `mcp__srv__x`, `mcp_srv_x`…).
pub use crate::model_api::SERVER_NAME;
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

/// A host found for `capture`, with the profile its own host file carries, if it does.
pub struct Found {
    pub host: Host,
    pub profile: Option<HostProfile>,
}

/// The host named `name`, from its host file: `--host-file`, the user's `hosts/NAME.toml`, or
/// a built-in one.
pub fn host(name: &str, args: &CaptureArgs) -> Result<Found, String> {
    let config_dir = crate::config::config_dir();
    let (run, profile) = file::find(name, args.host_file.as_deref(), config_dir.as_deref())?;
    let Some(host) = run else {
        // A file given that does not run this host: say what it does hold.
        if let Some(file) = args.host_file.as_deref() {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            let runs: Vec<String> = file::parse(&text, file)
                .unwrap_or_default()
                .iter()
                .map(|run| run.name().to_owned())
                .collect();
            let holds = if runs.is_empty() {
                "no [run.*] table (a host file needs one to be run; its [hosts.*] profile alone \
                 only predicts)"
                    .to_owned()
            } else {
                format!("the run tables of {}", runs.join(", "))
            };
            return Err(format!(
                "--host-file {file} has no [run.{name}] table: it holds {holds}"
            ));
        }
        return Err(format!(
            "unknown host '{name}'; sightline runs {}, and the host files in {} (or write a \
             host file: see docs/hosts.md)",
            names().join(", "),
            config_dir.map_or_else(
                || "the config directory's hosts/".to_owned(),
                |dir| dir.join("hosts").display().to_string()
            )
        ));
    };
    Ok(Found { host, profile })
}

/// Every host `capture` runs without a file of the user's.
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = file::builtins()
        .iter()
        .map(|run| run.name().to_owned())
        .collect();
    names.sort_unstable();
    names
}

/// The interpreter used when `--python` is not given and the test venv exists.
const PEERS_PYTHON: &str = "tests/peers/.venv/bin/python";
/// The Node modules used when `--node-path` is not given and the test peers are installed.
const PEERS_NODE_MODULES: &str = "tests/peers/hosts/node_modules";
/// The CLI hosts whose npm packages cannot be installed from a lock file (they list other
/// platforms' binaries the registry may not serve): pinned in `tests/peers/install.sh`.
const PEERS_CLI_HOSTS: &str = "tests/peers/cli-hosts/node_modules";

/// `path` in the checkout sightline was built from, wherever it is run from.
pub(super) fn in_checkout(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// `--python`, or the checkout's test venv's, or `python3`; made absolute (the host runs
/// elsewhere).
pub fn python(args: &CaptureArgs) -> String {
    let chosen = args.python.clone().unwrap_or_else(|| {
        let peers = in_checkout(PEERS_PYTHON);
        if peers.exists() {
            peers.to_string_lossy().into_owned()
        } else {
            "python3".to_owned()
        }
    });
    absolute(chosen)
}

/// `--node-path`, or the checkout's test peers' host modules, or `./node_modules`; absolute.
pub fn node_modules(args: &CaptureArgs) -> String {
    let chosen = args.node_path.clone().unwrap_or_else(|| {
        let peers = in_checkout(PEERS_NODE_MODULES);
        if peers.exists() {
            peers.to_string_lossy().into_owned()
        } else {
            "node_modules".to_owned()
        }
    });
    absolute(chosen)
}

/// `--host-bin`, else the first of [`host_bin_places`] that has `program`, else `program` (for
/// the error to say it was looked for).
pub fn host_bin(args: &CaptureArgs, program: &str) -> String {
    if let Some(bin) = &args.host_bin {
        return absolute(bin.clone());
    }
    host_bin_places()
        .iter()
        .map(|place| place.join(program))
        .find(|candidate| candidate.is_file())
        .map_or_else(
            || program.to_owned(),
            |found| found.to_string_lossy().into_owned(),
        )
}

/// Where a host's program is looked for, in order: PATH, the folder of this sightline (a host
/// installed beside it), and the pinned hosts of the checkout it was built from
/// (`tests/peers/install.sh`), wherever it is run from.
pub fn host_bin_places() -> Vec<std::path::PathBuf> {
    let mut places: Vec<std::path::PathBuf> = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect())
        .unwrap_or_default();
    if let Some(beside) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        places.push(beside);
    }
    for modules in [PEERS_NODE_MODULES, PEERS_CLI_HOSTS] {
        places.push(in_checkout(modules).join(".bin"));
    }
    places
}

/// The places [`host_bin_places`] names that are not PATH, in words for an error.
pub fn host_bin_looked() -> String {
    let path_entries =
        std::env::var_os("PATH").map_or(0, |path| std::env::split_paths(&path).count());
    let rest: Vec<String> = host_bin_places()
        .into_iter()
        .skip(path_entries)
        .map(|place| place.display().to_string())
        .collect();
    format!("looked on PATH, then in {}", rest.join(", "))
}

/// The version a Python distribution reports, or why it cannot be found.
pub fn python_version(python: &str, distribution: &str, install: &str) -> Result<String, String> {
    let script = format!("import importlib.metadata as m; print(m.version('{distribution}'))");
    let found = run_quietly(python, &["-c", &script], &[]);
    match found {
        Ok(version) => Ok(version),
        Err(error) => Err(format!(
            "{distribution} is not installed for {python} ({error}); install it with \
             `{install}` (or name another interpreter with --python)"
        )),
    }
}

/// The output of a short command (its first stdout line), or why it failed.
pub fn run_quietly(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result<String, String> {
    let mut command = std::process::Command::new(program);
    command
        .args(args)
        .stdin(std::process::Stdio::null())
        .env("PYTHONNOUSERSITE", "1");
    command.envs(env.iter().copied());
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

#[cfg(test)]
mod tests {
    use super::names;
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
    }
}
