//! Claude Code (`claude -p`): an MCP config with the one server, `ANTHROPIC_BASE_URL` pointing at
//! the mock's Messages API, non-essential traffic, telemetry and updates off.

use std::process::Output;

use serde_json::{Value, json};

use super::{Host, Launch, SERVER_NAME, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::Api;

const INSTALL: &str = "npm install -g @anthropic-ai/claude-code@2.1.332";

pub struct ClaudeCode;

impl Host for ClaudeCode {
    fn name(&self) -> &'static str {
        "claude-code"
    }

    fn title(&self) -> &'static str {
        "Claude Code"
    }

    fn api(&self) -> Api {
        Api::Anthropic
    }

    fn names(&self, tool: &str) -> Vec<String> {
        vec![format!("mcp__{SERVER_NAME}__{tool}")]
    }

    fn probe(&self, args: &CaptureArgs) -> Result<String, String> {
        let bin = super::host_bin(args, "claude");
        let said = super::run_quietly(&bin, &["--version"], Some(("DISABLE_AUTOUPDATER", "1")))
            .map_err(|error| {
                format!("Claude Code cannot be run ({error}); install it with `{INSTALL}` (or name the binary with --host-bin)")
            })?;
        // "2.1.332 (Claude Code)"
        Ok(said.split_whitespace().next().unwrap_or(&said).to_owned())
    }

    fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let config = setup.dir.join("mcp.json");
        let servers = json!({"mcpServers": {SERVER_NAME: super::mcp_server_entry(setup)}});
        let tool = format!("mcp__{SERVER_NAME}__{}", setup.tool);
        Ok(Launch {
            program: super::host_bin(setup.args, "claude"),
            args: vec![
                "-p".into(),
                super::PROMPT.into(),
                "--mcp-config".into(),
                config.to_string_lossy().into_owned(),
                "--strict-mcp-config".into(),
                "--allowedTools".into(),
                tool,
                "--output-format".into(),
                "json".into(),
                "--no-session-persistence".into(),
            ],
            env: vec![
                ("ANTHROPIC_BASE_URL".into(), setup.model_url.to_owned()),
                ("ANTHROPIC_API_KEY".into(), "sk-ant-dummy".into()),
                (
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                    "1".into(),
                ),
                ("DISABLE_TELEMETRY".into(), "1".into()),
                ("DISABLE_AUTOUPDATER".into(), "1".into()),
                ("DISABLE_ERROR_REPORTING".into(), "1".into()),
                // MCP tools in the tool list itself, not deferred behind ToolSearch: the model
                // gets their definitions as a host without deferral sends them.
                ("ENABLE_TOOL_SEARCH".into(), "false".into()),
            ],
            files: vec![(config, servers.to_string())],
        })
    }

    /// `--output-format json` prints one object; `is_error: true` is a failed run.
    fn run_error(&self, output: &Output) -> Option<String> {
        let printed: Value = serde_json::from_slice(&output.stdout).ok()?;
        (printed.get("is_error").and_then(Value::as_bool) == Some(true)).then(|| {
            printed
                .get("result")
                .and_then(Value::as_str)
                .unwrap_or("the run failed")
                .to_owned()
        })
    }

    fn flag_note(&self) -> &'static str {
        "the tool_result block's is_error"
    }
}
