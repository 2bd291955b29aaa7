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
        Ok(super::python_runner(
            setup,
            super::python(setup.args),
            ("openai_agents_runner.py", RUNNER),
            &[("OPENAI_AGENTS_DISABLE_TRACING", "1")],
        ))
    }

    fn run_error(&self, output: &Output) -> Option<String> {
        super::runner_error(output)
    }

    fn flag_note(&self) -> &'static str {
        "none (the Agents SDK's function_call_output has no error flag)"
    }
}
