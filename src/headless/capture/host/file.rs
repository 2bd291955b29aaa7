//! Hosts as data: a host file's `[run.NAME]` table says how `capture` finds, configures and
//! starts a command-line host, so a host is added without a release of sightline.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model_view::hosts;

/// The model API a host speaks, as a host file names it.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum ApiName {
    Chat,
    Responses,
    Anthropic,
    Gemini,
}

/// How to run one host: a host file's `[run.NAME]` table. A host is a program (`program`,
/// `args`, `mcp_config`) or a library run by a runner script (`runner`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostRun {
    #[serde(skip)]
    pub(super) name: String,
    /// Its name in prose.
    pub(super) title: String,
    pub(super) api: ApiName,
    /// The program: `--host-bin`, else on PATH, beside sightline, or the checkout's pinned
    /// copy (`tests/peers/hosts/node_modules/.bin/PROGRAM`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) program: Option<String>,
    /// A library host: the script that runs it, and what it needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) runner: Option<Runner>,
    /// The command that installs the version its profile was calibrated on.
    pub(super) install: String,
    /// What makes it print its version (the first word that starts with a digit is taken).
    #[serde(default = "version_args")]
    pub(super) version_args: Vec<String>,
    /// The environment it is asked its version in, on top of this one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) version_env: BTreeMap<String, String>,
    /// Its arguments; `{prompt}`, `{base_url}`, `{home}`, `{dir}`, `{server}`, `{tool_name}`
    /// and `{mcp_config}` are filled in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) args: Vec<String>,
    /// Its environment on top of PATH and HOME, with the same keys.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) env: BTreeMap<String, String>,
    /// The names the model may call a server tool by: `{server}` and `{tool}`.
    pub(super) tool_names: Vec<String>,
    /// How the host makes a tool's name valid for its model, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) name_rule: Option<NameRule>,
    /// Where its message marks an error, in words.
    #[serde(default = "no_mark")]
    pub(super) error_mark: String,
    /// The MCP configuration it reads (a program host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) mcp_config: Option<McpConfig>,
    /// A host that offers server tools through tools of its own (Qwen Code's `tool_search`,
    /// then `tool_call`): the model's calls in order, the last one's result being the one
    /// captured. `{name}` is the tool's first name of `tool_names`, `{arguments}` its
    /// arguments as JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) bridge: Vec<BridgeStep>,
    /// How its output says the run itself failed; without any, a failed exit does (its last
    /// line on stderr, else stdout).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) run_errors: Vec<RunErrorRule>,
    /// A number in its model's text that changes every run (a timing), written as its profile
    /// writes it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) steady: Vec<Steady>,
}

/// A library host's runner: a script sightline embeds (`openai_agents.py`, `langchain.py`,
/// `vercel_ai.mjs`) or one of the user's (a path), run by Python (`.py`) or Node (`.mjs`,
/// `.js`) with one argument, a JSON object: `server` (the command, an array), `env` (an
/// object), `modules` (Node: the `node_modules` directory) and `options`' members. It prints
/// a JSON line with `run_error` when the run fails.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Runner {
    pub(super) script: String,
    /// The package whose version is the host's (a `PyPI` distribution, or an npm package under
    /// the Node modules).
    pub(super) package: String,
    /// Node: the other packages it needs, each looked for before a run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) requires: Vec<String>,
    /// Python: the interpreter used when `--python` is not given, if it exists (a test venv
    /// of its own); else the peers' venv, else `python3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) python: Option<String>,
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub(super) options: serde_json::Map<String, Value>,
}

/// How a host makes a tool's name valid (Gemini CLI's `generateValidName`): characters other
/// than ASCII letters, digits and `allowed` become `_` (one for each UTF-16 unit, as a
/// JavaScript regex replaces them), a name that does not start with a letter or `_` gets one,
/// and a name longer than `max` keeps its first and last `(max - 3) / 2` characters around
/// `...`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NameRule {
    pub(super) allowed: String,
    pub(super) max: usize,
}

/// One way a host's output says its run failed: a JSON object it printed (the whole output,
/// or one of its lines) with a value at `when` (a JSON pointer), equal to `equals` if given;
/// the message is the text at `message` (a pointer), else the value at `when`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RunErrorRule {
    pub(super) when: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) equals: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) message: Option<String>,
}

/// A text that starts with `prefix`, a number, then `then`: the number is written as `as`
/// (Codex's "Wall time: 0.0123 seconds\nOutput:" as "Wall time: <seconds> seconds\nOutput:").
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Steady {
    pub(super) prefix: String,
    pub(super) then: String,
    #[serde(rename = "as")]
    pub(super) written_as: String,
}

/// One call through a host's bridge, as a template.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BridgeStep {
    pub(super) tool: String,
    pub(super) arguments: String,
}

/// The MCP configuration a host reads, as a template.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct McpConfig {
    /// The file it is written to, under the host's empty HOME (`{mcp_config}` is then that
    /// path); absent: `{mcp_config}` is the text itself (an argument or a variable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) file: Option<String>,
    /// How the server's values are written into the text: `json` (the default) or `toml`.
    #[serde(default)]
    pub(super) format: ConfigFormat,
    /// The text: `{server}`, `{base_url}`, `{home}`, and the server as values of the format:
    /// `{server_command}` (program and arguments, one array), `{server_program}` (a string),
    /// `{server_args}` (an array), `{server_env}` (an object, or a TOML inline table).
    pub(super) text: String,
}

/// The language of an MCP configuration's values.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum ConfigFormat {
    #[default]
    Json,
    Toml,
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
    let parsed: RunFile = toml::from_str(text).map_err(|error| {
        let offset = error.span().map_or(0, |span| span.start);
        let line = text[..offset.min(text.len())].matches('\n').count() + 1;
        format!("{file}:{line}: {}", error.message().trim())
    })?;
    parsed
        .run
        .into_iter()
        .map(|(name, mut run)| {
            let kind = match (&run.program, &run.runner, &run.mcp_config) {
                (Some(_), None, Some(_)) | (None, Some(_), None) => None,
                (Some(_), None, None) => Some("a program host needs an `mcp_config` table"),
                (None, Some(_), Some(_)) => Some("a runner reads no `mcp_config`"),
                (Some(_), Some(_), _) => Some("give `program` or `runner`, not both"),
                (None, None, _) => Some("give `program` (a host that is a program) or `runner`"),
            };
            if let Some(problem) = kind {
                return Err(format!("{file}: [run.{name}]: {problem}"));
            }
            run.unknown_key().map_or(Ok(()), |problem| {
                Err(format!("{file}: [run.{name}]: {problem}"))
            })?;
            run.name = name;
            Ok(run)
        })
        .collect()
}

/// The keys every launch template may use.
const LAUNCH_KEYS: &[&str] = &["prompt", "base_url", "home", "dir", "server", "tool_name"];
/// The keys an MCP config's text may use besides those.
const SERVER_KEYS: &[&str] = &[
    "server_command",
    "server_program",
    "server_args",
    "server_env",
];

impl HostRun {
    /// A template's `{key}` that no value fills (a typo would reach the host as it is), said
    /// with the keys that template may use.
    fn unknown_key(&self) -> Option<String> {
        let with_config: Vec<&str> = LAUNCH_KEYS.iter().copied().chain(["mcp_config"]).collect();
        let in_config: Vec<&str> = LAUNCH_KEYS.iter().chain(SERVER_KEYS).copied().collect();
        let mut templates: Vec<(&str, &str, &[&str])> = Vec::new();
        templates.extend(
            self.args
                .iter()
                .map(|arg| ("args", arg.as_str(), &with_config[..])),
        );
        templates
            .extend((self.env.values()).map(|value| ("env", value.as_str(), &with_config[..])));
        templates.extend(
            self.tool_names
                .iter()
                .map(|name| ("tool_names", name.as_str(), &["server", "tool"][..])),
        );
        templates.extend(self.bridge.iter().map(|step| {
            (
                "bridge",
                step.arguments.as_str(),
                &["name", "arguments"][..],
            )
        }));
        if let Some(config) = &self.mcp_config {
            templates.push(("mcp_config.text", config.text.as_str(), &in_config[..]));
            if let Some(file) = &config.file {
                templates.push(("mcp_config.file", file.as_str(), LAUNCH_KEYS));
            }
        }
        templates.into_iter().find_map(|(key, template, known)| {
            let unknown = hosts::template_keys(template).find(|used| !known.contains(used))?;
            Some(format!(
                "{key}: {{{unknown}}} is no key sightline fills in; the keys are {}",
                known
                    .iter()
                    .map(|known| format!("{{{known}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }

    /// This run table as a host file writes it.
    pub fn to_file(&self) -> String {
        #[derive(Serialize)]
        struct One<'a> {
            run: BTreeMap<&'a str, &'a HostRun>,
        }
        toml::to_string(&One {
            run: BTreeMap::from([(self.name.as_str(), self)]),
        })
        .unwrap_or_default()
    }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

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
    fn a_run_table_is_a_program_with_its_mcp_config_or_a_runner() {
        let head = "[run.x]\ntitle = \"X\"\napi = \"chat\"\ninstall = \"\"\ntool_names = []\n";
        let program = "program = \"x\"\n";
        let runner = "runner = { script = \"r.py\", package = \"x\" }\n";
        let config = "[run.x.mcp_config]\ntext = \"\"\n";
        assert!(parse(&format!("{head}{program}{config}"), "x.toml").is_ok());
        assert!(parse(&format!("{head}{runner}"), "x.toml").is_ok());
        for (text, said) in [
            (format!("{head}{program}"), "needs an `mcp_config`"),
            (format!("{head}{runner}{config}"), "reads no `mcp_config`"),
            (format!("{head}{program}{runner}"), "not both"),
            (head.to_owned(), "give `program`"),
        ] {
            let error = parse(&text, "x.toml").unwrap_err();
            assert!(error.starts_with("x.toml: [run.x]: "), "{error}");
            assert!(error.contains(said), "{error}");
        }
    }

    #[test]
    fn every_built_in_run_table_is_written_as_it_reads() {
        for run in builtins() {
            let written = run.to_file();
            let again = parse(&written, "again.toml").unwrap().remove(0);
            assert_eq!(again.name, run.name);
            assert_eq!(again.to_file(), written, "{}", run.name);
        }
    }

    #[test]
    fn a_template_key_no_value_fills_is_an_error_naming_the_keys_there_are() {
        let text = |config: &str| {
            format!(
                "[run.x]\ntitle = \"X\"\napi = \"chat\"\nprogram = \"x\"\ninstall = \"\"\n\
                 args = [\"{{prompt}}\"]\ntool_names = [\"{{server}}_{{tool}}\"]\n\
                 [run.x.mcp_config]\ntext = '{config}'\n"
            )
        };
        // JSON's braces and the config's own keys are fine.
        assert!(
            parse(
                &text(r#"{"s":{"command":{server_command},"env":{}}}"#),
                "x.toml"
            )
            .is_ok()
        );
        let error = parse(&text(r#"{"s":{"command":{server_cmd}}}"#), "x.toml").unwrap_err();
        assert!(
            error.starts_with("x.toml: [run.x]: mcp_config.text: {server_cmd} is no key"),
            "{error}"
        );
        assert!(error.contains("{server_command}"), "{error}");
    }

    #[test]
    fn a_host_file_with_an_unknown_key_is_an_error_naming_the_file() {
        let text = "[run.x]\ntitle = \"X\"\napi = \"chat\"\nprogram = \"x\"\ninstall = \"\"\n\
                    args = []\ntool_names = []\nmistake = 1\n[run.x.mcp_config]\ntext = \"\"\n";
        let error = parse(text, "x.toml").unwrap_err();
        assert!(error.starts_with("x.toml:8: "), "{error}");
        assert!(error.contains("mistake"), "{error}");
    }
}
