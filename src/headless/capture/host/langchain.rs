//! LangChain (`langchain` agents with `langchain-mcp-adapters`): an embedded runner script,
//! `ChatOpenAI` pointed at the mock's Chat Completions API.

use std::process::Output;

use super::{Host, Launch, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::Api;

const RUNNER: &str = include_str!("../runners/langchain.py");
const INSTALL: &str = "pip install langchain langchain-mcp-adapters langchain-openai";

pub struct Langchain;

impl Host for Langchain {
    fn name(&self) -> &'static str {
        "langchain"
    }

    fn title(&self) -> &'static str {
        "LangChain"
    }

    fn api(&self) -> Api {
        Api::Chat
    }

    fn names(&self, tool: &str) -> Vec<String> {
        vec![tool.to_owned()]
    }

    fn probe(&self, args: &CaptureArgs) -> Result<String, String> {
        super::python_version(&super::python(args), "langchain", INSTALL)
    }

    fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let runner = setup.dir.join("langchain_runner.py");
        let spec = serde_json::json!({"server": setup.server, "env": setup.server_env});
        Ok(Launch {
            program: super::python(setup.args),
            args: vec![runner.to_string_lossy().into_owned(), spec.to_string()],
            env: vec![
                ("OPENAI_BASE_URL".into(), format!("{}/v1", setup.model_url)),
                ("OPENAI_API_KEY".into(), "dummy".into()),
                ("LANGCHAIN_TRACING_V2".into(), "false".into()),
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
        "none (a Chat Completions tool message has no error flag)"
    }
}
