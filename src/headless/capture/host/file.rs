//! Hosts as data: a host file's `[run.NAME]` table says how `capture` finds, configures and
//! starts a command-line host, so a host is added without a release of sightline.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde::Deserialize;
use serde_json::Value;

use super::{Host, Launch, SERVER_NAME, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::{Api, BridgeCall};
use crate::model_view::hosts;

/// The model API a host speaks, as a host file names it.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum ApiName {
    Chat,
    Responses,
    Anthropic,
    Gemini,
}

/// How to run one host: a host file's `[run.NAME]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostRun {
    #[serde(skip)]
    name: String,
    /// Its name in prose.
    title: String,
    api: ApiName,
    /// The program: `--host-bin`, else the test peers' copy
    /// (`tests/peers/hosts/node_modules/.bin/PROGRAM`), else PATH.
    program: String,
    /// The command that installs the version its profile was calibrated on.
    install: String,
    /// What makes it print its version (the first word that starts with a digit is taken).
    #[serde(default = "version_args")]
    version_args: Vec<String>,
    /// Its arguments; `{prompt}`, `{base_url}`, `{home}`, `{dir}`, `{server}` and
    /// `{mcp_config}` are filled in.
    args: Vec<String>,
    /// Its environment on top of PATH and HOME, with the same keys.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// The names the model may call a server tool by: `{server}` and `{tool}`.
    tool_names: Vec<String>,
    /// Where its message marks an error, in words.
    #[serde(default = "no_mark")]
    error_mark: String,
    /// The MCP configuration it reads.
    mcp_config: McpConfig,
    /// A host that offers server tools through tools of its own (Qwen Code's `tool_search`,
    /// then `tool_call`): the model's calls in order, the last one's result being the one
    /// captured. `{name}` is the tool's first name of `tool_names`, `{arguments}` its
    /// arguments as JSON.
    #[serde(default)]
    bridge: Vec<BridgeStep>,
}

/// One call through a host's bridge, as a template.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct BridgeStep {
    tool: String,
    arguments: String,
}

/// The MCP configuration a host reads, as a template.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct McpConfig {
    /// The file it is written to, under the host's empty HOME (`{mcp_config}` is then that
    /// path); absent: `{mcp_config}` is the text itself (an argument or a variable).
    #[serde(default)]
    file: Option<String>,
    /// The text: `{server}`, `{base_url}`, `{home}`, and the server as JSON:
    /// `{server_command}` (program and arguments, one array), `{server_program}` (a string),
    /// `{server_args}` (an array), `{server_env}` (an object).
    text: String,
}

fn version_args() -> Vec<String> {
    vec!["--version".to_owned()]
}

fn no_mark() -> String {
    "none".to_owned()
}

#[derive(Deserialize)]
struct RunFile {
    #[serde(default)]
    run: BTreeMap<String, HostRun>,
}

/// The `[run.*]` tables of a host file (its `[hosts.*]` profiles are read by `hosts::parse`).
pub fn parse(text: &str, file: &str) -> Result<Vec<HostRun>, String> {
    let parsed: RunFile =
        toml::from_str(text).map_err(|error| format!("{file}: {}", error.message().trim()))?;
    Ok(parsed
        .run
        .into_iter()
        .map(|(name, mut run)| {
            run.name = name;
            run
        })
        .collect())
}

/// What the host files say of host `name`: how to run it and the profile that predicts it,
/// each from `--host-file` first, then the user's `hosts/NAME.toml` in the config directory,
/// then (the run only) the built-in host files.
pub fn find(
    name: &str,
    host_file: Option<&str>,
    config_dir: Option<&Path>,
) -> Result<(Option<HostRun>, Option<hosts::HostProfile>), String> {
    let mut files: Vec<(String, String)> = Vec::new();
    if let Some(file) = host_file {
        let text = std::fs::read_to_string(file)
            .map_err(|error| format!("--host-file {file}: {error}"))?;
        files.push((file.to_owned(), text));
    }
    if let Some(path) = config_dir.map(|dir| dir.join("hosts").join(format!("{name}.toml")))
        && let Ok(text) = std::fs::read_to_string(&path)
    {
        files.push((path.to_string_lossy().into_owned(), text));
    }
    let (mut run, mut profile) = (None, None);
    for (file, text) in &files {
        if run.is_none() {
            run = parse(text, file)?.into_iter().find(|run| run.name == name);
        }
        if profile.is_none() {
            profile = hosts::parse(text, file)
                .map_err(|error| error.to_string())?
                .into_iter()
                .find(|profile| profile.name == name);
        }
    }
    Ok((run.or_else(|| builtin(name)), profile))
}

/// The built-in host files' runs.
pub fn builtins() -> Vec<HostRun> {
    hosts::builtin_files()
        .iter()
        .flat_map(|(file, text)| parse(text, file).unwrap_or_default())
        .collect()
}

fn builtin(name: &str) -> Option<HostRun> {
    builtins().into_iter().find(|run| run.name == name)
}

impl HostRun {
    fn program(&self, args: &CaptureArgs) -> String {
        super::host_bin(args, &self.program)
    }
}

/// The values every template may use (the MCP config's own are added to them).
fn values(setup: &Setup) -> Vec<(&'static str, String)> {
    vec![
        ("prompt", super::PROMPT.to_owned()),
        ("base_url", setup.model_url.to_owned()),
        ("home", setup.home.to_string_lossy().into_owned()),
        ("dir", setup.dir.to_string_lossy().into_owned()),
        ("server", SERVER_NAME.to_owned()),
    ]
}

fn fill(template: &str, values: &[(&str, String)]) -> String {
    let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    hosts::fill_exact(template, &values)
}

/// The first word that starts with a digit (or a `v` and a digit), without the `v` or a
/// trailing full stop or comma: "GitHub Copilot CLI 1.0.102." gives "1.0.102",
/// "fast-agent-mcp v0.2.36" "0.2.36".
pub fn version_in(said: &str) -> Option<String> {
    said.split_whitespace()
        .map(|word| match word.strip_prefix('v') {
            Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest,
            _ => word,
        })
        .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))
        .map(|word| word.trim_end_matches(['.', ',']).to_owned())
}

impl Host for HostRun {
    fn name(&self) -> &str {
        &self.name
    }

    fn title(&self) -> &str {
        &self.title
    }

    fn api(&self) -> Api {
        match self.api {
            ApiName::Chat => Api::Chat,
            ApiName::Responses => Api::Responses,
            ApiName::Anthropic => Api::Anthropic,
            ApiName::Gemini => Api::Gemini,
        }
    }

    fn names(&self, tool: &str) -> Vec<String> {
        self.tool_names
            .iter()
            .map(|name| hosts::fill_exact(name, &[("server", SERVER_NAME), ("tool", tool)]))
            .collect()
    }

    fn probe(&self, args: &CaptureArgs) -> Result<String, String> {
        let bin = self.program(args);
        let version_args: Vec<&str> = self.version_args.iter().map(String::as_str).collect();
        let said = super::run_quietly(&bin, &version_args, None).map_err(|error| {
            format!(
                "{} cannot be run ({error}); install it with `{}` (or name the binary with --host-bin)",
                self.title, self.install
            )
        })?;
        version_in(&said).ok_or_else(|| format!("{} printed no version: {said:?}", self.title))
    }

    fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let mut values = values(setup);
        let (program, server_args) = setup
            .server
            .split_first()
            .map_or(("", &[][..]), |(program, args)| (program.as_str(), args));
        let mut config_values = values.clone();
        config_values.extend([
            (
                "server_command",
                Value::from(setup.server.to_vec()).to_string(),
            ),
            ("server_program", Value::from(program).to_string()),
            ("server_args", Value::from(server_args.to_vec()).to_string()),
            (
                "server_env",
                serde_json::to_string(setup.server_env).unwrap_or_default(),
            ),
        ]);
        let config = fill(&self.mcp_config.text, &config_values);
        let mut files = Vec::new();
        match &self.mcp_config.file {
            Some(file) => {
                let path: PathBuf = setup.home.join(fill(file, &values));
                values.push(("mcp_config", path.to_string_lossy().into_owned()));
                files.push((path, config));
            }
            None => values.push(("mcp_config", config)),
        }
        Ok(Launch {
            program: self.program(setup.args),
            args: self.args.iter().map(|arg| fill(arg, &values)).collect(),
            env: self
                .env
                .iter()
                .map(|(key, value)| (key.clone(), fill(value, &values)))
                .collect(),
            files,
        })
    }

    /// A failed exit: its last line on stderr (or stdout).
    fn run_error(&self, output: &Output) -> Option<String> {
        if output.status.success() {
            return None;
        }
        let last = |bytes: &[u8]| {
            String::from_utf8_lossy(bytes)
                .lines()
                .rev()
                .find(|line| !line.trim().is_empty())
                .map(|line| line.trim().to_owned())
        };
        Some(
            last(&output.stderr)
                .or_else(|| last(&output.stdout))
                .unwrap_or_else(|| format!("{} exited with {}", self.title, output.status)),
        )
    }

    fn flag_note(&self) -> &str {
        &self.error_mark
    }

    fn bridge(&self, tool: &str, arguments: &str) -> Vec<BridgeCall> {
        let name = self.names(tool).into_iter().next().unwrap_or_default();
        // The name goes inside a JSON string: escaped as one, without the quotes.
        let quoted = Value::from(name).to_string();
        let name = &quoted[1..quoted.len() - 1];
        self.bridge
            .iter()
            .map(|step| BridgeCall {
                tool: step.tool.clone(),
                arguments: hosts::fill_exact(
                    &step.arguments,
                    &[("name", name), ("arguments", arguments)],
                ),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_version_is_the_first_word_starting_with_a_digit() {
        assert_eq!(
            version_in("GitHub Copilot CLI 1.0.102.").as_deref(),
            Some("1.0.102")
        );
        assert_eq!(version_in("1.18.33").as_deref(), Some("1.18.33"));
        assert_eq!(
            version_in("fast-agent-mcp v0.2.36").as_deref(),
            Some("0.2.36")
        );
        assert_eq!(version_in("no version"), None);
    }

    #[test]
    fn every_built_in_host_file_parses_and_has_its_profile() {
        let runs = builtins();
        assert!(runs.len() >= 2, "{runs:?}");
        for run in runs {
            let profile = hosts::resolve(&run.name, &[]).unwrap();
            assert!(
                profile
                    .source
                    .as_ref()
                    .is_some_and(|source| source.captured),
                "{}: its profile is calibrated",
                run.name
            );
        }
    }

    #[test]
    fn a_bridge_fills_each_call_with_the_tool_s_name_and_arguments() {
        let text = r#"
[run.q]
title = "Q"
api = "chat"
program = "q"
install = ""
args = []
tool_names = ["mcp__{server}__{tool}"]
bridge = [
    { tool = "tool_search", arguments = '{"query":"select:{name}"}' },
    { tool = "tool_call", arguments = '{"name":"{name}","arguments":{arguments}}' },
]
[run.q.mcp_config]
text = ""
"#;
        let run = parse(text, "q.toml").unwrap().remove(0);
        let calls = run.bridge("book_flight", r#"{"to":"LHR"}"#);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].tool, "tool_search");
        let search: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(search["query"], "select:mcp__srv__book_flight");
        let call: Value = serde_json::from_str(&calls[1].arguments).unwrap();
        assert_eq!(call["name"], "mcp__srv__book_flight");
        assert_eq!(call["arguments"]["to"], "LHR");
        // Without a bridge the tool is called by name.
        let start = text.find("bridge = [").unwrap();
        let end = text.find("[run.q.mcp_config]").unwrap();
        let plain = format!("{}{}", &text[..start], &text[end..]);
        assert!(
            parse(&plain, "q.toml").unwrap()[0]
                .bridge("x", "{}")
                .is_empty()
        );
    }

    #[test]
    fn a_host_file_with_an_unknown_key_is_an_error_naming_the_file() {
        let text = "[run.x]\ntitle = \"X\"\napi = \"chat\"\nprogram = \"x\"\ninstall = \"\"\n\
                    args = []\ntool_names = []\nmistake = 1\n[run.x.mcp_config]\ntext = \"\"\n";
        let error = parse(text, "x.toml").unwrap_err();
        assert!(error.starts_with("x.toml: "), "{error}");
        assert!(error.contains("mistake"), "{error}");
    }
}
