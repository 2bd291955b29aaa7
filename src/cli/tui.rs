//! The TUI's own options (`sightline` without a subcommand): theme, host, keys, and the
//! model its Chat pane talks to.

use clap::Args;

/// Options of the TUI (`sightline` without a subcommand).
#[derive(Debug, Clone, Args)]
pub struct TuiArgs {
    /// Colour theme: default, light, high-contrast, colorblind, or one of your own.
    #[arg(long, value_name = "NAME", default_value = "default")]
    pub theme: String,
    /// Host profile for "what the model sees" (h cycles through them).
    #[arg(long, value_name = "PROFILE", default_value = "spec")]
    pub host: String,
    /// Start with the MAY rule on: forward protocol errors to the model.
    #[arg(long)]
    pub forward_protocol_errors: bool,
    /// Start with client-side argument validation on.
    #[arg(long)]
    pub validate: bool,
    /// Key bindings to use instead of ~/.config/sightline/keys.toml (see docs/tui.md).
    #[arg(long, value_name = "FILE")]
    pub keys: Option<std::path::PathBuf>,
    /// The host's program for `H` (as `capture --host-bin`), when it is not on PATH, beside
    /// sightline or among the checkout's pinned hosts.
    #[arg(long, value_name = "PATH")]
    pub host_bin: Option<String>,
    /// The test file K adds the selected call to, as a case expecting what came (`sightline
    /// test` runs it; created with the server when it does not exist).
    #[arg(long, value_name = "FILE")]
    pub test_file: Option<String>,
    /// The model the Chat pane (c) talks to, as PROVIDER:MODEL (as `sightline agent --model`).
    #[arg(long, value_name = "PROVIDER:MODEL")]
    pub model: Option<String>,
    /// The model API's base URL (a local llama.cpp, vLLM or Ollama server: no key needed).
    #[arg(long, value_name = "URL", requires = "model")]
    pub model_url: Option<String>,
    /// The variable that holds the model API's key (never shown, logged or recorded).
    #[arg(long, value_name = "NAME", requires = "model")]
    pub model_key_env: Option<String>,
    /// Model requests per Chat run at most.
    #[arg(long, value_name = "N", default_value_t = 4, requires = "model")]
    pub max_turns: u32,
}
