//! The arguments of the headless commands for the rest of the protocol a user pokes at:
//! `resources`, `read`, `prompts`, `prompt`, `ping`, `request`; each with `--json`, the output
//! options and the server selection every command shares.

use clap::Args;

use super::{OutputArgs, ServerArgs};

/// `sightline resources`, `sightline prompts`, `sightline ping`: nothing but the common options.
#[derive(Debug, Clone, Args)]
pub struct PlainArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub server: ServerArgs,
}

/// `sightline read URI`.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// The resource's URI (a template filled in, too).
    pub uri: String,
    /// Write the first content's bytes to FILE: a blob decoded, a text as UTF-8.
    #[arg(long, value_name = "FILE")]
    pub save: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub common: PlainArgs,
}

/// `sightline prompt NAME [ARGS_JSON]`.
#[derive(Debug, Clone, Args)]
pub struct PromptArgs {
    /// The prompt's name.
    pub name: String,
    /// The `arguments` object as JSON, sent exactly as given (`-` reads stdin); left out
    /// when not given.
    #[arg(value_name = "ARGS_JSON")]
    pub args: Option<String>,
    #[command(flatten)]
    pub common: PlainArgs,
}

/// `sightline request METHOD [PARAMS_JSON]`.
#[derive(Debug, Clone, Args)]
pub struct RequestArgs {
    /// The JSON-RPC method, any one (`resources/list`, `completion/complete`, `nope`…).
    pub method: String,
    /// The `params` as JSON, sent exactly as given, any JSON value (`-` reads stdin); left
    /// out when not given. In 2026-07-28 the era's `_meta` is added to an object.
    #[arg(value_name = "PARAMS_JSON")]
    pub params: Option<String>,
    #[command(flatten)]
    pub common: PlainArgs,
}
