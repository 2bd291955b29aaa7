//! `LangChain` (`langchain` agents with `langchain-mcp-adapters`): an embedded runner script,
//! `ChatOpenAI` pointed at the mock's Chat Completions API, run by the interpreter of the
//! `LangChain` test venv (its adapters need mcp < 2, the peers' venv has mcp 2).

use std::path::Path;
use std::process::Output;

use super::{Host, Launch, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::Api;

const RUNNER: &str = include_str!("../runners/langchain.py");
/// What to install when `LangChain` is missing (the releases the profile is calibrated against).
const INSTALL: &str =
    "pip install langchain==1.5.0 langchain-mcp-adapters==0.3.2 langchain-openai==1.7.4";
/// The interpreter used when `--python` is not given and the `LangChain` test venv exists.
const PEERS_PYTHON: &str = "tests/peers/.venv-langchain/bin/python";

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
        super::python_version(&python(args), "langchain", INSTALL)
    }

    fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        Ok(super::python_runner(
            setup,
            python(setup.args),
            ("langchain_runner.py", RUNNER),
            // No traces leave the machine.
            &[
                ("LANGCHAIN_TRACING_V2", "false"),
                ("LANGSMITH_TRACING", "false"),
            ],
        ))
    }

    fn run_error(&self, output: &Output) -> Option<String> {
        super::runner_error(output)
    }

    fn flag_note(&self) -> &'static str {
        "none (a Chat Completions tool message has no error flag)"
    }
}

/// `--python`, or the `LangChain` test venv's, or what the other Python hosts use.
fn python(args: &CaptureArgs) -> String {
    if args.python.is_none() && Path::new(PEERS_PYTHON).exists() {
        let mut chosen = args.clone();
        chosen.python = Some(PEERS_PYTHON.to_owned());
        return super::python(&chosen);
    }
    super::python(args)
}
