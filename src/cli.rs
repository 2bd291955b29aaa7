//! The command line (product.md §1): subcommands and the server selection they share.

use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::demo_server::Style;
use crate::mcp::era::EraChoice;
use crate::mcp::framing::DEFAULT_MAX_FRAME_BYTES;
use crate::mcp::input::{Answers, Elicit};
use crate::recording::Recorder;
use crate::runner::{Ends, SessionOptions};
use crate::server_config;
use crate::transcript::Redactor;
use crate::transport::{HttpTarget, StdioCommand, Target, TransportError};

mod agent;
mod auth;
mod commands;
mod default_host;
mod inspect;
mod proxy;
mod record;
mod several;
mod tui;

pub use agent::AgentArgs;
pub use auth::AuthArgs;
pub use commands::{AuditArgs, CalibrateArgs, CallArgs, CaptureArgs, LintArgs, TestArgs};
pub use default_host::with_default_host;
pub use inspect::{
    CompleteArgs, PlainArgs, PromptArgs, ReadArgs, RequestArgs, SkillsArgs, SubscribeArgs,
};
pub use proxy::{AttachArgs, ConfigHost, ProxyArgs, ProxyCommand, ProxyInstallArgs};
pub use record::{RecordArgs, parser, record_args_after_command};
pub use tui::TuiArgs;

#[derive(Debug, Parser)]
#[command(
    name = "sightline",
    version,
    about = "Inspect MCP servers: see which tool errors reach the model (SEP-1303)",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub server: ServerArgs,
    #[command(flatten)]
    pub tui: TuiArgs,
    #[command(flatten)]
    pub record: RecordArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the server's tools (all pages) with their input schemas.
    Tools {
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// 2026-07-28 over HTTP: also send one tools/list whose Mcp-Method header disagrees
        /// with its body, to see whether the server rejects it as it must.
        #[arg(long)]
        check_headers: bool,
        #[command(flatten)]
        output: OutputArgs,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Lint the server's tool definitions: schema spellings hosts refuse or mishandle (the
    /// official Inspector's --strict ids), and what a description demands that no schema can
    /// check. Exit 6 when a finding is an error or a warning
    Lint {
        #[command(flatten)]
        lint: LintArgs,
        #[command(flatten)]
        output: OutputArgs,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Send one tools/call exactly as given: the reply, its class, findings, what the model sees.
    Call {
        #[command(flatten)]
        call: CallArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        output: OutputArgs,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// List the server's resources and resource templates (all pages of each).
    Resources(PlainArgs),
    /// Read one resource (resources/read): text shown, a blob as its type and size.
    Read(ReadArgs),
    /// Subscribe to one resource and print each update until --for ends; then unsubscribe
    /// (2026-07-28: a subscriptions/listen stream, ended by sightline).
    Subscribe(SubscribeArgs),
    /// List the server's skills (SEP-2640 `skills/list`, all pages): each skill's name,
    /// description and files, none of them read; --verify loads and checks each.
    Skills(SkillsArgs),
    /// List the server's prompts (all pages) with their arguments.
    Prompts(PlainArgs),
    /// Get one prompt (prompts/get) with its arguments: the messages, by role.
    Prompt(PromptArgs),
    /// Ask the server to complete a prompt argument or a template variable
    /// (completion/complete): the values it offers. (`completions` prints shell scripts.)
    Complete(CompleteArgs),
    /// Send ping and time the round trip (2025-11-25 and earlier: 2026-07-28 removed ping).
    Ping(PlainArgs),
    /// Send any request, its params exactly as given: the reply and its class.
    Request(RequestArgs),
    /// SEP-1303 conformance: deliberately invalid calls from each tool's input schema, and
    /// whether the model could read each answer. Exit 1 when a case fails (see --fail-on).
    Audit {
        #[command(flatten)]
        audit: AuditArgs,
        #[command(flatten)]
        output: OutputArgs,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Run test files: each case's call and what must hold of its answer, down to what named
    /// hosts' models read. Exit 0 when every case passes, 1 when one fails
    Test {
        #[command(flatten)]
        test: TestArgs,
        #[command(flatten)]
        output: OutputArgs,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Open a transcript written by --record: the TUI as it was (read-only), or with --json
    /// each call's outcome, findings and model view, judged again by this sightline.
    Replay {
        /// The transcript.
        file: String,
        /// Print one JSON object instead of opening the TUI.
        #[arg(long)]
        json: bool,
        /// With --json: add each `model_view.payload`.
        #[arg(long)]
        payload: bool,
        /// Be the server instead: answer each request with the reply recorded for it, on stdio
        /// (or over Streamable HTTP with --http).
        #[arg(long, conflicts_with = "json")]
        serve: bool,
        /// With --serve: serve HTTP on this address (port 0 picks one; the URL is printed).
        #[arg(long, value_name = "ADDR", requires = "serve", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
        http: Option<std::net::SocketAddr>,
        #[command(flatten)]
        tui: TuiArgs,
    },
    /// What changed between two recordings: tools added, removed or changed, and the same
    /// calls judged differently. Exit 1 when anything changed.
    Diff {
        /// The recording before (a transcript written by --record).
        before: String,
        /// The recording after.
        after: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Judge what the model sees as this host would.
        #[arg(long, value_name = "PROFILE", default_value = "spec")]
        host: String,
    },
    /// OAuth tokens kept with --token-cache.
    Auth {
        #[command(subcommand)]
        command: AuthCommand,
    },
    /// Every command of the TUI with the keys that run it (the built-in keys, rebound by
    /// ~/.config/sightline/keys.toml or --keys FILE), and every problem with that file. Exit 1
    /// when the file has problems.
    Keys {
        /// The keys file to read instead of ~/.config/sightline/keys.toml.
        #[arg(long, value_name = "FILE")]
        keys: Option<std::path::PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The host profiles (built-in and yours), with the source each was taken from.
    Hosts {
        #[command(subcommand)]
        show: Option<HostsCommand>,
        /// Print JSON instead of text (before or after `show NAME`).
        #[arg(long, global = true)]
        json: bool,
        /// A host file (TOML) whose profiles come first, as under `capture` and `calibrate`.
        #[arg(long, global = true, value_name = "FILE")]
        host_file: Option<String>,
    },
    /// A real model calls the server through a host's eyes: the tools offered under the host's
    /// names, each result sent back exactly as that host sends it, until the model answers,
    /// --max-turns run out, or the host ends the run. Exit 0 when the model answered, 5 when
    /// the turns ran out, 6 when the host ended the run.
    Agent(AgentArgs),
    /// Run a real host (a CLI such as Claude Code, or a library such as the `OpenAI` Agents SDK)
    /// once against a mock model and the server (stdio, or --url): the tool definition and
    /// tool result it sent its model, beside the host profile's prediction. Exit 0 when they
    /// match, 1 when they differ.
    Capture {
        #[command(flatten)]
        capture: CaptureArgs,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Run the capture matrix (every answer class of the demo server in both styles, schema
    /// breaks, structured content, mixed blocks, an unknown tool, and its host cases: a
    /// throwing tool, image, audio, an embedded resource, long texts, a crash) through a real
    /// host: a table of the cases its profile predicts and those it does not. Exit 1 with
    /// --check on any difference.
    Calibrate(CalibrateArgs),
    /// Sit between a real host and its server: frames pass unchanged both ways, each one
    /// watched as the TUI watches a session (findings, what the host's model sees), recorded
    /// with --record and open to `sightline attach`. The host runs `sightline proxy -- SERVER`
    /// instead of the server (see `proxy install`).
    Proxy(ProxyArgs),
    /// Open the TUI on a running proxy, read-only: the host's calls as they happen.
    Attach(AttachArgs),
    /// Print a shell completion script: `source <(sightline completions bash)`. (`complete`
    /// asks a server to complete a prompt argument.)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `sightline man > sightline.1`; with `--dir DIR`, write it and
    /// a page for every command (`sightline-audit.1`, …) there.
    Man {
        /// Write every page into this folder (e.g. ~/.local/share/man/man1) instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
    /// Relay a stdio server, logging each line that passes (used by `capture`).
    #[command(hide = true)]
    Relay {
        /// Append each line to this file, one JSON object a line.
        #[arg(long, value_name = "FILE")]
        log: String,
        /// Start the server in this directory (the host runs elsewhere).
        #[arg(long, value_name = "DIR")]
        cwd: Option<String>,
        /// The server: `-- CMD [ARGS…]`.
        #[arg(last = true, value_name = "CMD", required = true)]
        command: Vec<String>,
    },
    /// Run the built-in demo server on stdio, or over Streamable HTTP with --http.
    DemoServer {
        /// How input validation failures are reported.
        #[arg(long, value_enum, default_value_t)]
        style: Style,
        /// Serve Streamable HTTP on this address instead (port 0 picks one; the URL is printed
        /// on stdout). Loopback unless you name another address.
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
        http: Option<std::net::SocketAddr>,
        /// With --http: the endpoint wants an OAuth token, and a small authorization server
        /// beside it issues one (registration, authorization code with PKCE, refresh).
        #[arg(long, requires = "http")]
        auth: bool,
        /// With --auth: each access token is good for this many requests (to show refreshing).
        #[arg(long, value_name = "N", requires = "auth")]
        token_uses: Option<u32>,
        /// Also list the tools whose results hosts handle most differently (a throwing tool,
        /// long texts, an image, audio, an embedded resource, structured content without an
        /// output schema, a crash): what `calibrate` measures a host with.
        #[arg(long)]
        host_cases: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Forget the tokens kept for a server (--url), or for every server.
    Logout {
        /// The token cache file.
        #[arg(long, value_name = "FILE")]
        token_cache: std::path::PathBuf,
        /// Only this server's tokens.
        #[arg(long, value_name = "URL")]
        url: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum HostsCommand {
    /// Print one profile as a file to copy into ~/.config/sightline/hosts.toml.
    Show {
        /// The profile's name.
        name: String,
    },
}

#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Also print the whole session log (every frame, stderr line and decision) to stderr.
    #[arg(short, long)]
    pub verbose: bool,
    /// Give up on the whole run after this many seconds, whatever the server does.
    #[arg(long, value_name = "SECS", default_value = "600", value_parser = parse_seconds)]
    pub deadline: Duration,
}

/// Which server to talk to, and how (shared by every subcommand).
// Each bool is a flag of its own on the command line, as clap wants it; none combine.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// Use the built-in demo server in this style (the default server). `call` takes it
    /// repeated (`--demo legacy --demo sep1303`): the same call to each, side by side, in the
    /// order given (--json: an array); exit code the worst of theirs, 4 > 3 > 1 > 0.
    #[arg(long, value_enum, value_name = "STYLE", conflicts_with_all = ["command", "url"])]
    pub demo: Vec<Style>,
    /// A Streamable HTTP server at this URL (instead of a stdio command).
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// A server from an mcp.json-style file (`mcpServers` or `servers`); `claude`, `cursor` or
    /// `vscode` name those tools' own files.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["command", "url", "demo"])]
    pub config: Option<String>,
    /// With --config: the entry to use (needed when the file has several). `call` takes it
    /// repeated (`--server a --server b`), as it takes --demo repeated.
    #[arg(long, value_name = "NAME", requires = "config")]
    pub server: Vec<String>,
    /// With --url: add this header to every request (repeatable), `-H 'Name: value'`.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = parse_header, requires = "url")]
    pub headers: Vec<(String, String)>,
    #[command(flatten)]
    pub auth: AuthArgs,
    /// With --url: call a tool whose `x-mcp-header` declaration is invalid, as a deliberate
    /// test (2026-07-28 clients MUST exclude such tools; sightline does unless told so).
    #[arg(long, requires = "url")]
    pub allow_invalid_tool_headers: bool,
    /// Show secret header values (Authorization, Cookie, token-like names) wherever HTTP
    /// details are shown, instead of masking them.
    #[arg(long)]
    pub show_secrets: bool,
    /// Add KEY=VALUE to the server's environment (repeatable).
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// How to answer a server's elicitation: `accept` (the schema's defaults), `accept:JSON`
    /// (this content), `decline` (the default) or `cancel`.
    #[arg(long, value_name = "ANSWER", value_parser = parse_elicit)]
    pub elicit: Option<Elicit>,
    /// The reply to give a server's sampling request (refused without it).
    #[arg(long, value_name = "TEXT")]
    pub sample: Option<String>,
    /// A root to give a server's roots/list (repeatable; refused without any).
    #[arg(long = "root", value_name = "URI")]
    pub roots: Vec<String>,
    /// Use tasks: declare the tasks extension (2026-07-28), or task-augment tools whose
    /// taskSupport is optional (2025-11-25; required ones always are); follow each to its end.
    #[arg(long)]
    pub tasks: bool,
    /// Protocol era: probe with server/discover and fall back (auto), or force one.
    #[arg(long, value_enum, default_value_t)]
    pub era: EraChoice,
    /// Per-request timeout in seconds.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_seconds)]
    pub timeout: Duration,
    /// How long --era auto waits for an answer to server/discover.
    #[arg(long, value_name = "SECS", default_value = "2", value_parser = parse_seconds)]
    pub probe_timeout: Duration,
    /// Longest line accepted from the server; longer ones are reported and skipped.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FRAME_BYTES)]
    pub max_frame_bytes: usize,
    /// A stdio server to spawn: `-- CMD [ARGS…]`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

impl ServerArgs {
    /// The recorder `--record` asks for (none without it), its header naming `command`.
    pub fn recorder(&self, record: &RecordArgs, command: &str) -> Result<Option<Recorder>, String> {
        let Some(path) = &record.record else {
            return Ok(None);
        };
        let (transport, headers, env) = match self.target() {
            Ok(Target::Http(target)) => (target.display(), target.headers, Vec::new()),
            Ok(Target::Stdio(command)) => {
                let env: Vec<(String, String)> = command.env.clone().into_iter().collect();
                (format!("stdio: {}", command.display()), Vec::new(), env)
            }
            // The run reports the problem itself; the transcript still says what was tried.
            Err(error) => (error.to_string(), self.headers.clone(), self.env.clone()),
        };
        let redactor = Redactor::new(!record.no_redact, &headers, &env);
        Recorder::create(path, command, &transport, redactor).map(Some)
    }

    /// The one server these arguments select (several are refused: see [`ServerArgs::several`]).
    pub fn target(&self) -> Result<Target, TransportError> {
        if let Some(problem) = self.several() {
            return Err(TransportError::Several(problem));
        }
        if let Some(config) = &self.config {
            return self.configured(config).map_err(TransportError::Config);
        }
        if let Some(url) = &self.url {
            match reqwest::Url::parse(url) {
                Err(error) => {
                    return Err(TransportError::BadUrl {
                        url: url.clone(),
                        reason: error.to_string(),
                    });
                }
                // A usage error like any other bad URL, before anything runs.
                Ok(parsed) if !matches!(parsed.scheme(), "http" | "https") => {
                    return Err(TransportError::BadUrl {
                        url: url.clone(),
                        reason: "only http and https URLs can be reached".into(),
                    });
                }
                Ok(_) => {}
            }
            return Ok(Target::Http(HttpTarget {
                url: url.clone(),
                headers: self.headers.clone(),
                client: self.auth.client(),
                token_cache: self.auth.token_cache.clone(),
                client_metadata_url: self.auth.client_metadata_url.clone(),
                grant: self.auth.grant(),
                dpop: self.auth.dpop(),
            }));
        }
        self.stdio_command()
            .map(Target::Stdio)
            .map_err(TransportError::NoDemoServer)
    }

    /// The entry `--server` names (or the only one) in the `--config` file.
    fn configured(&self, config: &str) -> Result<Target, String> {
        let (path, text) = read_config(config)?;
        let env = |name: &str| std::env::var(name).ok();
        server_config::select(&path, &text, self.entry(), &env)
    }

    /// The `--server` entry named, when one is.
    fn entry(&self) -> Option<&str> {
        self.server.first().map(String::as_str)
    }

    /// The roots to give `roots/list`: `--root`, else the chosen `--config` entry's `roots`.
    pub fn roots(&self) -> Vec<String> {
        if !self.roots.is_empty() {
            return self.roots.clone();
        }
        let Some(config) = &self.config else {
            return Vec::new();
        };
        let env = |name: &str| std::env::var(name).ok();
        read_config(config)
            .and_then(|(path, text)| server_config::roots(&path, &text, self.entry(), &env))
            .unwrap_or_default()
    }

    /// The `--config` file and its entries, when it has several and `--server` names none:
    /// the servers the TUI opens.
    pub fn config_choices(&self) -> Option<(String, Vec<(String, String)>)> {
        let config = self.config.as_ref().filter(|_| self.server.is_empty())?;
        let (path, text) = read_config(config).ok()?;
        let env = |name: &str| std::env::var(name).ok();
        let choices = server_config::choices(&path, &text, &env).ok()?;
        (choices.len() > 1).then_some((path, choices))
    }

    /// The command to spawn: the given one, or this executable's demo server.
    pub fn stdio_command(&self) -> std::io::Result<StdioCommand> {
        let env = self.env.iter().cloned().collect();
        if let Some((program, args)) = self.command.split_first() {
            return Ok(StdioCommand {
                program: program.clone(),
                args: args.to_vec(),
                env,
                cwd: None,
            });
        }
        let style = match self.demo.first().copied().unwrap_or_default() {
            Style::Sep1303 => "sep1303",
            Style::Legacy => "legacy",
        };
        Ok(StdioCommand {
            program: std::env::current_exe()?.to_string_lossy().into_owned(),
            args: vec!["demo-server".into(), "--style".into(), style.into()],
            env,
            cwd: None,
        })
    }

    /// These settings as command-line words (for a copied `sightline call` line).
    pub fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for style in &self.demo {
            match style {
                Style::Sep1303 if self.demo.len() == 1 => {}
                Style::Sep1303 => args.extend(["--demo".to_owned(), "sep1303".to_owned()]),
                Style::Legacy => args.extend(["--demo".to_owned(), "legacy".to_owned()]),
            }
        }
        match self.era {
            EraChoice::Auto => {}
            EraChoice::Legacy => args.extend(["--era".to_owned(), "legacy".to_owned()]),
            EraChoice::Modern => args.extend(["--era".to_owned(), "modern".to_owned()]),
        }
        for (key, value) in &self.env {
            args.extend(["-e".to_owned(), format!("{key}={value}")]);
        }
        if let Some(url) = &self.url {
            args.extend(["--url".to_owned(), url.clone()]);
        }
        if let Some(config) = &self.config {
            args.extend(["--config".to_owned(), config.clone()]);
        }
        for server in &self.server {
            args.extend(["--server".to_owned(), server.clone()]);
        }
        for (name, value) in &self.headers {
            args.extend(["-H".to_owned(), format!("{name}: {value}")]);
        }
        if !self.command.is_empty() {
            args.push("--".to_owned());
            args.extend(self.command.iter().cloned());
        }
        args
    }

    pub fn client_options(&self) -> SessionOptions {
        SessionOptions {
            answers: Answers {
                elicit: self.elicit.clone().unwrap_or_default(),
                sample: self.sample.clone(),
                roots: self.roots(),
            },
            tasks: self.tasks,
            ask: false,
            follow_list_changes: false,
            ends: Ends::Awaited,
            era: self.era,
            timeout: self.timeout,
            probe_timeout: self.probe_timeout,
            max_frame_bytes: self.max_frame_bytes,
        }
    }
}

/// The path `--config` names (a file, or `claude`/`cursor`/`vscode`) and its text.
fn read_config(config: &str) -> Result<(String, String), String> {
    let home = std::env::var("HOME").unwrap_or_default();
    let path = match server_config::well_known(config, &home) {
        Some(known) if !std::path::Path::new(config).exists() => known,
        _ => config.to_owned(),
    };
    let text =
        std::fs::read_to_string(&path).map_err(|error| format!("cannot read {path}: {error}"))?;
    Ok((path, text))
}

fn parse_elicit(text: &str) -> Result<Elicit, String> {
    match text.split_once(':') {
        None if text == "accept" => Ok(Elicit::Accept(None)),
        None if text == "decline" => Ok(Elicit::Decline),
        None if text == "cancel" => Ok(Elicit::Cancel),
        Some(("accept", content)) => match serde_json::from_str::<serde_json::Value>(content) {
            Ok(serde_json::Value::Object(_)) => Ok(Elicit::Accept(Some(content.to_owned()))),
            Ok(_) => Err("accept:JSON needs a JSON object".into()),
            Err(error) => Err(format!("accept:JSON is not JSON: {error}")),
        },
        _ => Err(format!(
            "'{text}' is not accept, accept:JSON, decline or cancel"
        )),
    }
}

fn parse_header(text: &str) -> Result<(String, String), String> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!("'{text}' is not 'Name: value'")),
    }
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("'{text}' is not KEY=VALUE")),
    }
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if seconds.is_finite() && seconds > 0.0 && seconds < 1e9 {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(format!("'{text}' must be a positive number of seconds"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn call_takes_a_command_after_double_dash() {
        let cli = Cli::try_parse_from([
            "sightline",
            "call",
            "echo",
            r#"{"text":"hi"}"#,
            "-e",
            "A=1",
            "--",
            "node",
            "server.js",
        ])
        .unwrap();
        let Some(Command::Call { call, server, .. }) = cli.command else {
            panic!()
        };
        assert_eq!(
            (call.tool.as_str(), call.args.as_str()),
            ("echo", r#"{"text":"hi"}"#)
        );
        assert_eq!(call.host, "spec");
        let command = server.stdio_command().unwrap();
        assert_eq!(command.program, "node");
        assert_eq!(command.args, ["server.js"]);
        assert_eq!(command.env.get("A").map(String::as_str), Some("1"));
    }

    #[test]
    fn the_default_server_is_our_own_demo() {
        let cli = Cli::try_parse_from(["sightline", "tools", "--demo", "legacy"]).unwrap();
        let Some(Command::Tools { server, .. }) = cli.command else {
            panic!()
        };
        let command = server.stdio_command().unwrap();
        assert_eq!(command.args, ["demo-server", "--style", "legacy"]);
    }

    #[test]
    fn bad_values_are_usage_errors() {
        assert!(Cli::try_parse_from(["sightline", "tools", "--timeout", "-1"]).is_err());
        assert!(Cli::try_parse_from(["sightline", "tools", "-e", "NOEQUALS"]).is_err());
        assert!(
            Cli::try_parse_from(["sightline", "tools", "--demo", "legacy", "--", "x"]).is_err()
        );
        assert!(Cli::try_parse_from(["sightline", "tools", "--era", "future"]).is_err());
    }
}
