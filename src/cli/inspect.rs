//! The arguments of the headless commands for the rest of the protocol a user pokes at:
//! `resources`, `read`, `subscribe`, `prompts`, `prompt`, `complete`, `ping`, `request`; each
//! with `--json`, the output options and the server selection every command shares.

use clap::{ArgGroup, Args};

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

/// `sightline skills`.
#[derive(Debug, Clone, Args)]
pub struct SkillsArgs {
    /// One skill to load, by name (or its SKILL.md URI): it is read and checked as --verify
    /// does, and its SKILL.md printed once it holds. The other skills' files are not read.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// Load every skill as a host would, one at a time: read its SKILL.md, check it against the
    /// listing (size, sha256 digest, frontmatter field by field), and only then its other files,
    /// each checked. A skill that fails is not read further. Exit 7 when a file does not match
    /// its listing, 8 when one could not be read.
    #[arg(long)]
    pub verify: bool,
    /// With --verify: exit 9 when every file matched but some were listed without a digest (or
    /// the skill's files are "dynamic").
    #[arg(long, requires = "verify")]
    pub require_digests: bool,
    #[command(flatten)]
    pub common: PlainArgs,
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

/// `sightline subscribe URI [--for SECS] [--read]`.
#[derive(Debug, Clone, Args)]
pub struct SubscribeArgs {
    /// The resource's URI.
    pub uri: String,
    /// How long to listen, in seconds; then sightline unsubscribes (or ends the listen stream).
    #[arg(long = "for", value_name = "SECS", default_value_t = 10.0)]
    pub seconds: f64,
    /// Read the resource again at each update, and show what it holds now.
    #[arg(long)]
    pub read: bool,
    #[command(flatten)]
    pub common: PlainArgs,
}

/// `sightline complete (--prompt NAME | --template URI) ARGUMENT VALUE`.
#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("reference").required(true).args(["prompt", "template"])))]
pub struct CompleteArgs {
    /// Complete an argument of this prompt (`ref/prompt`).
    #[arg(long, value_name = "NAME")]
    pub prompt: Option<String>,
    /// Complete a variable of this resource template (`ref/resource`), e.g. `flights://{number}`.
    #[arg(long, value_name = "URI_TEMPLATE")]
    pub template: Option<String>,
    /// The argument (or template variable) to complete.
    pub argument: String,
    /// What is typed of it so far ('' for nothing yet).
    pub value: String,
    /// The arguments already filled in, as JSON (sent as `context.arguments`, exactly as given).
    #[arg(long, value_name = "JSON")]
    pub context: Option<String>,
    #[command(flatten)]
    pub common: PlainArgs,
}
