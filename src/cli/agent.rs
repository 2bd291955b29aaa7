//! The arguments of `sightline agent`.

use clap::Args;

use super::{OutputArgs, ServerArgs};

/// `sightline agent`'s arguments.
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// What to ask the model.
    pub prompt: String,
    /// The model, as PROVIDER:MODEL: `openai:gpt-4.1` speaks Chat Completions (to
    /// api.openai.com, or to any OpenAI-compatible endpoint with --model-url);
    /// `openai-responses:` the Responses API, `anthropic:` Messages, `gemini:` generateContent.
    #[arg(long, value_name = "PROVIDER:MODEL")]
    pub model: String,
    /// The API's base URL, e.g. `http://127.0.0.1:8080/v1` for a local llama.cpp, vLLM or
    /// Ollama server (no key needed then).
    #[arg(long, value_name = "URL")]
    pub model_url: Option<String>,
    /// The variable that holds the API key (default `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` or
    /// `GEMINI_API_KEY`). The key goes in a header only: never in the output, a log or a
    /// transcript.
    #[arg(long, value_name = "NAME")]
    pub model_key_env: Option<String>,
    /// The host whose eyes the model sees through (`sightline hosts` lists them). Repeated,
    /// with `--demo` repeated or `--trials`: the experiment, a table of every server × host.
    #[arg(long, default_value = "spec")]
    pub host: Vec<String>,
    /// Model requests at most; a run still calling tools after them ends, exit 5.
    #[arg(long, default_value_t = 4)]
    pub max_turns: u32,
    /// Run the prompt this many times per server × host, and print the table: how often the
    /// task was completed, calls until success, calls repeated with identical arguments,
    /// tokens (--json: every run too).
    #[arg(long, default_value_t = 1)]
    pub trials: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub server: ServerArgs,
}
