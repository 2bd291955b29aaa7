//! The `OpenAI` Codex CLI (`codex exec`): `$CODEX_HOME/config.toml` (inside the empty HOME) with
//! a model provider at the mock's Responses API (streamed), the one MCP server with its tools
//! approved, no approvals or sandbox, and nothing else it would fetch or report.

use std::process::Output;

use serde_json::Value;

use super::{Host, Launch, SERVER_NAME, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::Api;

const INSTALL: &str = "npm install -g @openai/codex@0.171.0";
/// The environment variable the mock provider's (dummy) key is read from.
const KEY_VAR: &str = "SIGHTLINE_MOCK_API_KEY";

pub struct Codex;

impl Host for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn title(&self) -> &'static str {
        "Codex CLI"
    }

    fn api(&self) -> Api {
        Api::Responses
    }

    fn names(&self, tool: &str) -> Vec<String> {
        vec![format!("mcp__{SERVER_NAME}__{tool}")]
    }

    fn probe(&self, args: &CaptureArgs) -> Result<String, String> {
        let bin = super::host_bin(args, "codex");
        let said = super::run_quietly(&bin, &["--version"], None).map_err(|error| {
            format!("the Codex CLI cannot be run ({error}); install it with `{INSTALL}` (or name the binary with --host-bin)")
        })?;
        // "codex-cli 0.171.0"
        Ok(said.split_whitespace().last().unwrap_or(&said).to_owned())
    }

    fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let codex_home = setup.home.join(".codex");
        Ok(Launch {
            program: super::host_bin(setup.args, "codex"),
            args: vec![
                "exec".into(),
                "--skip-git-repo-check".into(),
                "--ephemeral".into(),
                "--dangerously-bypass-approvals-and-sandbox".into(),
                "--color".into(),
                "never".into(),
                "--json".into(),
                super::PROMPT.into(),
            ],
            env: vec![
                (
                    "CODEX_HOME".into(),
                    codex_home.to_string_lossy().into_owned(),
                ),
                (KEY_VAR.into(), "sk-dummy".into()),
            ],
            files: vec![(codex_home.join("config.toml"), config(setup))],
        })
    }

    /// `--json` prints one event a line; an `error` or `turn.failed` event is a failed run.
    fn run_error(&self, output: &Output) -> Option<String> {
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find_map(|event| {
                let kind = event.get("type").and_then(Value::as_str)?;
                let message = match kind {
                    "error" => event.get("message"),
                    "turn.failed" => event.get("error").and_then(|e| e.get("message")),
                    _ => return None,
                };
                Some(
                    message
                        .and_then(Value::as_str)
                        .unwrap_or("the run failed")
                        .to_owned(),
                )
            })
    }

    fn flag_note(&self) -> &'static str {
        "none (a Responses function_call_output has no error flag)"
    }

    /// Codex starts the output of every call it made with "Wall time: S seconds\nOutput:"
    /// (S with four decimals): S as `<seconds>`, as the profile writes it.
    fn steadied(&self, text: String) -> String {
        let Some(rest) = text.strip_prefix(WALL_TIME) else {
            return text;
        };
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 || !rest[digits..].starts_with(" seconds\nOutput:") {
            return text;
        }
        format!("{WALL_TIME}{SECONDS}{}", &rest[digits..])
    }
}

/// How Codex's line before a call's output starts.
const WALL_TIME: &str = "Wall time: ";
/// A call's duration in a capture's text.
pub const SECONDS: &str = "<seconds>";

/// `config.toml`: the mock as the only model provider, the server, and everything that would
/// reach the network or wait for a person off.
fn config(setup: &Setup) -> String {
    let (command, args) = setup
        .server
        .split_first()
        .map_or(("", &[][..]), |(c, a)| (c.as_str(), a));
    let mut env: Vec<(&String, &String)> = setup.server_env.iter().collect();
    env.sort();
    let env: Vec<String> = env
        .into_iter()
        .map(|(key, value)| format!("{} = {}", toml_string(key), toml_string(value)))
        .collect();
    let args: Vec<String> = args.iter().map(|a| toml_string(a)).collect();
    format!(
        r#"model = "sightline-mock"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "sightline mock"
base_url = {base_url}
wire_api = "responses"
env_key = "{KEY_VAR}"
request_max_retries = 0
stream_max_retries = 0

[mcp_servers.{SERVER_NAME}]
command = {command}
args = [{args}]
env = {{ {env} }}
default_tools_approval_mode = "approve"
required = true
startup_timeout_sec = 30

[analytics]
enabled = false

[feedback]
enabled = false
"#,
        base_url = toml_string(&format!("{}/v1", setup.model_url)),
        command = toml_string(command),
        args = args.join(", "),
        env = env.join(", "),
    )
}

/// A TOML basic string: JSON's escapes are TOML's.
fn toml_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::{Codex, Host};

    #[test]
    fn the_wall_time_is_steadied_and_nothing_else() {
        let steadied =
            Codex.steadied("Wall time: 0.0123 seconds\nOutput:\nWall time: 2 seconds".into());
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
            assert_eq!(Codex.steadied(kept.into()), kept);
        }
    }
}
