//! Gemini CLI (`gemini -p`): a settings file with the one server and API-key auth,
//! `GOOGLE_GEMINI_BASE_URL` pointing at the mock's Gemini API, tools approved (`yolo`).

use std::process::Output;

use serde_json::{Value, json};

use super::{Host, Launch, SERVER_NAME, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::Api;

const INSTALL: &str = "npm install -g @google/gemini-cli@0.61.0";

pub struct GeminiCli;

impl Host for GeminiCli {
    fn name(&self) -> &'static str {
        "gemini-cli"
    }

    fn title(&self) -> &'static str {
        "Gemini CLI"
    }

    fn api(&self) -> Api {
        Api::Gemini
    }

    fn names(&self, tool: &str) -> Vec<String> {
        vec![
            format!("mcp_{SERVER_NAME}_{tool}"),
            tool.to_owned(),
            format!("{SERVER_NAME}__{tool}"),
        ]
    }

    fn probe(&self, args: &CaptureArgs) -> Result<String, String> {
        let bin = super::host_bin(args, "gemini");
        super::run_quietly(&bin, &["--version"], None).map_err(|error| {
            format!("Gemini CLI cannot be run ({error}); install it with `{INSTALL}` (or name the binary with --host-bin)")
        })
    }

    fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let settings_dir = setup.home.join(".gemini");
        let settings = json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "mcpServers": {SERVER_NAME: super::mcp_server_entry(setup)},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
        });
        Ok(Launch {
            program: super::host_bin(setup.args, "gemini"),
            args: vec![
                "-p".into(),
                super::PROMPT.into(),
                "--approval-mode".into(),
                "yolo".into(),
                "--skip-trust".into(),
                "--allowed-mcp-server-names".into(),
                SERVER_NAME.into(),
                "-o".into(),
                "json".into(),
            ],
            env: vec![
                ("GOOGLE_GEMINI_BASE_URL".into(), setup.model_url.to_owned()),
                ("GEMINI_API_KEY".into(), "dummy".into()),
            ],
            files: vec![(settings_dir.join("settings.json"), settings.to_string())],
        })
    }

    /// `-o json` prints one object; an `error` in it is a failed run.
    fn run_error(&self, output: &Output) -> Option<String> {
        let printed: Value = serde_json::from_slice(&output.stdout).ok()?;
        let error = printed.get("error")?;
        Some(
            error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned),
        )
    }

    fn flag_note(&self) -> &'static str {
        "none (a Gemini functionResponse has no error flag)"
    }
}
