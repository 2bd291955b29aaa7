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

    /// One name: `mcp_SERVER_TOOL`, made valid as the CLI makes it (`generateValidName`,
    /// tools/mcp-tool.js).
    fn names(&self, tool: &str) -> Vec<String> {
        vec![valid_name(&format!("{SERVER_NAME}_{tool}"))]
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
        "the functionResponse's `response.error` key (no flag; a result is under `output`)"
    }
}

/// The CLI's `generateValidName`: an `mcp_` prefix, characters outside `[A-Za-z0-9_.:-]` as
/// `_` (one for each UTF-16 unit, as its regex replaces them), `_` before a name that does not
/// start with a letter or `_`, and a name past 63 characters cut to its first and last 30 with
/// `...` between.
fn valid_name(name: &str) -> String {
    let prefixed = if name.starts_with("mcp_") {
        name.to_owned()
    } else {
        format!("mcp_{name}")
    };
    let mut valid: String = prefixed
        .chars()
        .flat_map(|c| {
            let kept = c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':');
            let (c, times) = if kept { (c, 1) } else { ('_', c.len_utf16()) };
            std::iter::repeat_n(c, times)
        })
        .collect();
    if !valid.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        valid.insert(0, '_');
    }
    // All ASCII now: bytes are characters.
    if valid.len() > 63 {
        valid = format!("{}...{}", &valid[..30], &valid[valid.len() - 30..]);
    }
    valid
}

#[cfg(test)]
mod tests {
    use super::valid_name;

    #[test]
    fn tool_names_are_made_valid_as_the_cli_makes_them() {
        assert_eq!(valid_name("srv_book_flight"), "mcp_srv_book_flight");
        assert_eq!(valid_name("srv_a b/c\u{e9}\u{1f600}"), "mcp_srv_a_b_c___");
        let long = valid_name(&format!("srv_{}", "x".repeat(80)));
        assert_eq!(long.len(), 63);
        assert_eq!(&long[..33], "mcp_srv_xxxxxxxxxxxxxxxxxxxxxx...");
    }
}
