//! The `OpenAI` Agents SDK for Python: an embedded runner script, `OPENAI_BASE_URL` pointing at
//! the mock's Responses API.

use std::process::Output;

use super::{Host, Launch, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::Api;

const RUNNER: &str = include_str!("../runners/openai_agents.py");
/// What to install when the SDK is missing (the release the profile is calibrated against).
const INSTALL: &str = "pip install openai-agents==0.24.0";

pub struct OpenaiAgents;

impl Host for OpenaiAgents {
    fn name(&self) -> &'static str {
        "openai-agents"
    }

    fn title(&self) -> &'static str {
        "the OpenAI Agents SDK"
    }

    fn api(&self) -> Api {
        Api::Responses
    }

    fn names(&self, tool: &str) -> Vec<String> {
        vec![tool.to_owned()]
    }

    fn probe(&self, args: &CaptureArgs) -> Result<String, String> {
        super::python_version(&super::python(args), "openai-agents", INSTALL)
    }

    fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let runner = setup.dir.join("openai_agents_runner.py");
        let spec = serde_json::json!({"server": setup.server, "env": setup.server_env});
        Ok(Launch {
            program: super::python(setup.args),
            args: vec![runner.to_string_lossy().into_owned(), spec.to_string()],
            env: vec![
                ("OPENAI_BASE_URL".into(), format!("{}/v1", setup.model_url)),
                ("OPENAI_API_KEY".into(), "dummy".into()),
                ("OPENAI_AGENTS_DISABLE_TRACING".into(), "1".into()),
                ("PYTHONNOUSERSITE".into(), "1".into()),
                ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
            ],
            files: vec![(runner, RUNNER.to_owned())],
        })
    }

    fn run_error(&self, output: &Output) -> Option<String> {
        super::runner_error(output)
    }

    fn flag_note(&self) -> &'static str {
        "none (the Agents SDK's function_call_output has no error flag)"
    }
}
