//! What a host file's run table does: the names a host gives a tool, its version, its launch
//! (a program with its MCP config, or a library's runner) and what its output says of a failure.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use super::file::{ApiName, ConfigFormat, HostRun, McpConfig, NameRule};
use super::{Launch, SERVER_NAME, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::{Api, BridgeCall};
use crate::model_view::hosts;

impl HostRun {
    /// Its name on the command line, and the name of the profile it calibrates.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its name in prose ("Claude Code").
    pub fn title(&self) -> &str {
        &self.title
    }

    pub fn api(&self) -> Api {
        match self.api {
            ApiName::Chat => Api::Chat,
            ApiName::Responses => Api::Responses,
            ApiName::Anthropic => Api::Anthropic,
            ApiName::Gemini => Api::Gemini,
        }
    }

    /// How the host names tools to its model: its first template, under its rule.
    pub fn naming(&self) -> crate::model_api::ToolNaming {
        crate::model_api::ToolNaming {
            template: self.tool_names.first().cloned().unwrap_or_default(),
            rule: self.name_rule.as_ref().map(NameRule::as_pair),
        }
    }

    /// The names the model may call `tool` by in this host, most likely first.
    pub fn names(&self, tool: &str) -> Vec<String> {
        self.tool_names
            .iter()
            .map(|name| hosts::fill_exact(name, &[("server", SERVER_NAME), ("tool", tool)]))
            .map(|name| match &self.name_rule {
                Some(rule) => rule.valid(&name),
                None => name,
            })
            .collect()
    }

    /// The host's version, or why it cannot be run (with the command that installs it).
    pub fn probe(&self, args: &CaptureArgs) -> Result<String, String> {
        if let Some(runner) = &self.runner {
            return runner.probe(args, &self.install);
        }
        let bin = self.program(args);
        let version_args: Vec<&str> = self.version_args.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = self
            .version_env
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()))
            .collect();
        let said = super::run_quietly(&bin, &version_args, &env).map_err(|error| {
            format!(
                "{} cannot be run ({error}; {}); install it with `{}` (or name the binary with --host-bin)",
                self.title,
                super::host_bin_looked(),
                self.install
            )
        })?;
        version_in(&said).ok_or_else(|| format!("{} printed no version: {said:?}", self.title))
    }

    /// How to start it for one capture.
    pub fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let mut values = values(setup, &self.names(setup.tool));
        let env = |values: &[(&str, String)]| -> Vec<(String, String)> {
            self.env
                .iter()
                .map(|(key, value)| (key.clone(), fill(value, values)))
                .collect()
        };
        if let Some(runner) = &self.runner {
            let mut launch = runner.launch(setup)?;
            launch.env.extend(env(&values));
            return Ok(launch);
        }
        let mut files = Vec::new();
        if let Some(config) = &self.mcp_config {
            let text = fill(&config.text, &config_values(config, setup, &values));
            match &config.file {
                Some(file) => {
                    let path: PathBuf = setup.home.join(fill(file, &values));
                    values.push(("mcp_config", path.to_string_lossy().into_owned()));
                    files.push((path, text));
                }
                None => values.push(("mcp_config", text)),
            }
        }
        Ok(Launch {
            program: self.program(setup.args),
            args: self.args.iter().map(|arg| fill(arg, &values)).collect(),
            env: env(&values),
            files,
        })
    }

    /// The host's own failure of the run, from what it printed.
    pub fn run_error(&self, output: &Output) -> Option<String> {
        if self.runner.is_some() {
            return super::runner::error(output);
        }
        if !self.run_errors.is_empty() {
            return printed_json(&output.stdout).find_map(|printed| {
                self.run_errors.iter().find_map(|rule| {
                    let found = printed.pointer(&rule.when)?;
                    if rule.equals.as_ref().is_some_and(|equals| equals != found) {
                        return None;
                    }
                    let message = rule.message.as_deref().and_then(|at| printed.pointer(at));
                    Some(match message.or(Some(found)) {
                        Some(Value::String(text)) => text.clone(),
                        Some(Value::Bool(_) | Value::Null) | None => "the run failed".to_owned(),
                        Some(other) => other.to_string(),
                    })
                })
            });
        }
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

    /// Where its message carries an error flag, in words.
    pub fn flag_note(&self) -> &str {
        &self.error_mark
    }

    /// The text its model read, with what differs on every run (a timing) written as its
    /// profile writes it.
    pub fn steadied(&self, text: String) -> String {
        for steady in &self.steady {
            let Some(rest) = text.strip_prefix(&steady.prefix) else {
                continue;
            };
            let digits = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            if digits > 0 && rest[digits..].starts_with(&steady.then) {
                return format!("{}{}{}", steady.prefix, steady.written_as, &rest[digits..]);
            }
        }
        text
    }

    /// The model's calls through the host's bridge to reach `tool` with `arguments` (JSON
    /// text); empty for a host that lists server tools to its model by name.
    pub fn bridge(&self, tool: &str, arguments: &str) -> Vec<BridgeCall> {
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

    fn program(&self, args: &CaptureArgs) -> String {
        super::host_bin(args, self.program.as_deref().unwrap_or_default())
    }
}

impl NameRule {
    fn valid(&self, name: &str) -> String {
        crate::model_api::valid_name(name, &self.allowed, self.max)
    }

    /// The rule as the pure naming carries it.
    pub(super) fn as_pair(&self) -> (String, usize) {
        (self.allowed.clone(), self.max)
    }
}

/// The JSON a host printed: its whole output as one value, else each line that is one.
fn printed_json(stdout: &[u8]) -> Box<dyn Iterator<Item = Value> + '_> {
    if let Ok(whole) = serde_json::from_slice::<Value>(stdout) {
        return Box::new(std::iter::once(whole));
    }
    Box::new(
        stdout
            .split(|byte| *byte == b'\n')
            .filter_map(|line| serde_json::from_slice(line).ok()),
    )
}

/// The values every template may use (the MCP config's own are added to them).
fn values(setup: &Setup, names: &[String]) -> Vec<(&'static str, String)> {
    vec![
        ("prompt", super::PROMPT.to_owned()),
        ("base_url", setup.model_url.to_owned()),
        ("home", setup.home.to_string_lossy().into_owned()),
        ("dir", setup.dir.to_string_lossy().into_owned()),
        ("server", SERVER_NAME.to_owned()),
        ("tool_name", names.first().cloned().unwrap_or_default()),
    ]
}

/// The values of an MCP config: the common ones and the server's, written in its format.
fn config_values(
    config: &McpConfig,
    setup: &Setup,
    common: &[(&'static str, String)],
) -> Vec<(&'static str, String)> {
    let (program, server_args) = setup
        .server
        .split_first()
        .map_or(("", &[][..]), |(program, args)| (program.as_str(), args));
    let mut env: Vec<(&String, &String)> = setup.server_env.iter().collect();
    env.sort();
    let server_env = match config.format {
        ConfigFormat::Json => Value::Object(
            env.iter()
                .map(|(key, value)| ((*key).clone(), Value::from(value.as_str())))
                .collect(),
        )
        .to_string(),
        ConfigFormat::Toml => toml_table(&env),
    };
    let mut values = common.to_vec();
    // JSON strings and arrays of strings are also TOML's.
    values.extend([
        (
            "server_command",
            Value::from(setup.server.to_vec()).to_string(),
        ),
        ("server_program", Value::from(program).to_string()),
        ("server_args", Value::from(server_args.to_vec()).to_string()),
        ("server_env", server_env),
    ]);
    values
}

/// A TOML inline table of strings (keys quoted: JSON's escapes are TOML's).
fn toml_table(entries: &[(&String, &String)]) -> String {
    if entries.is_empty() {
        return "{}".to_owned();
    }
    let pairs: Vec<String> = entries
        .iter()
        .map(|(key, value)| {
            format!(
                "{} = {}",
                Value::from(key.as_str()),
                Value::from(value.as_str())
            )
        })
        .collect();
    format!("{{ {} }}", pairs.join(", "))
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::os::unix::process::ExitStatusExt;
    use std::process::{ExitStatus, Output};

    use super::super::file;

    fn built_in(name: &str) -> super::HostRun {
        file::builtins()
            .into_iter()
            .find(|run| run.name() == name)
            .unwrap()
    }

    fn output(code: i32, stdout: &str, stderr: &str) -> Output {
        Output {
            status: ExitStatus::from_raw(code << 8),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_version_is_the_first_word_starting_with_a_digit() {
        assert_eq!(
            super::version_in("GitHub Copilot CLI 1.0.102.").as_deref(),
            Some("1.0.102")
        );
        assert_eq!(super::version_in("1.18.33").as_deref(), Some("1.18.33"));
        assert_eq!(
            super::version_in("fast-agent-mcp v0.2.36").as_deref(),
            Some("0.2.36")
        );
        assert_eq!(super::version_in("no version"), None);
    }

    #[test]
    fn gemini_cli_makes_tool_names_valid_as_the_cli_does() {
        let gemini = built_in("gemini-cli");
        assert_eq!(gemini.names("book_flight"), ["mcp_srv_book_flight"]);
        assert_eq!(gemini.names("a b/c\u{e9}\u{1f600}"), ["mcp_srv_a_b_c___"]);
        let long = gemini.names(&"x".repeat(80)).remove(0);
        assert_eq!(long.len(), 63);
        assert_eq!(&long[..33], "mcp_srv_xxxxxxxxxxxxxxxxxxxxxx...");
        // Hosts without a rule keep the name as the template makes it.
        assert_eq!(built_in("codex").names("a b"), ["mcp__srv__a b"]);
    }

    #[test]
    fn codex_s_wall_time_is_steadied_and_nothing_else() {
        let codex = built_in("codex");
        let steadied =
            codex.steadied("Wall time: 0.0123 seconds\nOutput:\nWall time: 2 seconds".into());
        assert_eq!(
            steadied,
            "Wall time: <seconds> seconds\nOutput:\nWall time: 2 seconds"
        );
        for kept in [
            "unsupported call: mcp__srvx",
            "Wall time: soon seconds\nOutput:",
            "Wall time: 1.5 seconds, then more",
            "text\nWall time: 0.1 seconds\nOutput:",
        ] {
            assert_eq!(codex.steadied(kept.into()), kept);
        }
    }

    #[test]
    fn a_run_error_is_read_by_the_host_s_rules_or_else_from_a_failed_exit() {
        let claude = built_in("claude-code");
        let failed = r#"{"is_error":true,"result":"API Error: 500"}"#;
        assert_eq!(
            claude.run_error(&output(1, failed, "")).as_deref(),
            Some("API Error: 500")
        );
        assert_eq!(
            claude.run_error(&output(0, r#"{"is_error":false,"result":"done"}"#, "")),
            None
        );
        // With rules, a failed exit alone says nothing: the rules are how it fails.
        assert_eq!(claude.run_error(&output(1, "", "boom")), None);
        let codex = built_in("codex");
        let events = "{\"type\":\"thread.started\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream closed\"}}\n";
        assert_eq!(
            codex.run_error(&output(1, events, "")).as_deref(),
            Some("stream closed")
        );
        let gemini = built_in("gemini-cli");
        let pretty = "{\n  \"error\": {\n    \"type\": \"x\"\n  }\n}\n";
        assert_eq!(
            gemini.run_error(&output(1, pretty, "")).as_deref(),
            Some(r#"{"type":"x"}"#)
        );
        let opencode = built_in("opencode");
        assert_eq!(
            opencode
                .run_error(&output(2, "", "first\nlast words\n\n"))
                .as_deref(),
            Some("last words")
        );
        assert_eq!(opencode.run_error(&output(0, "", "noise")), None);
        let agents = built_in("openai-agents");
        assert_eq!(
            agents
                .run_error(&output(0, "{\"run_error\":\"MaxTurnsExceeded: 3\"}\n", ""))
                .as_deref(),
            Some("MaxTurnsExceeded: 3")
        );
    }
}
