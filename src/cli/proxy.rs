//! The arguments of `sightline proxy` (and its `install`, `uninstall`, `print`) and `attach`.

use clap::{Args, Subcommand};

use super::TuiArgs;

#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ProxyArgs {
    #[command(subcommand)]
    pub command: Option<ProxyCommand>,
    /// The server is remote: this Streamable HTTP endpoint (the host gets a stdio server, or
    /// with --listen a local HTTP one).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// With --url: serve the host Streamable HTTP on this address (loopback unless you name
    /// another; port 0 picks one, printed on stderr).
    #[arg(long, value_name = "ADDR", requires = "url")]
    pub listen: Option<std::net::SocketAddr>,
    /// With --url: an HTTP header for every request to the server (repeatable, `NAME: VALUE`).
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// The server: `-- CMD [ARGS…]` (stdio).
    #[arg(last = true, value_name = "CMD")]
    pub server: Vec<String>,
}

/// The hosts whose own configuration `proxy install` edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ConfigHost {
    /// Claude Code (`~/.claude.json`: the user's `mcpServers`, else the current project's).
    ClaudeCode,
    /// Claude Desktop (`claude_desktop_config.json`).
    ClaudeDesktop,
    /// Cursor (`~/.cursor/mcp.json`).
    Cursor,
    /// VS Code (`.vscode/mcp.json` of the current folder).
    Vscode,
    /// Gemini CLI (`~/.gemini/settings.json`).
    GeminiCli,
}

#[derive(Debug, Clone, Subcommand)]
pub enum ProxyCommand {
    /// Put sightline between a host and one of its configured servers: shows the change to
    /// the host's config file, writes it after you confirm (or with --yes), keeps a backup.
    Install(ProxyInstallArgs),
    /// Undo `proxy install`: the server's entry as it was before.
    Uninstall(ProxyInstallArgs),
    /// Print the config entry that runs a server through sightline, to paste by hand.
    Print {
        #[arg(long, value_enum)]
        host: ConfigHost,
        /// The name the entry has in the host's config.
        #[arg(long, value_name = "NAME")]
        server: String,
        /// The server: `-- CMD [ARGS…]`, or --url.
        #[arg(long, value_name = "URL")]
        url: Option<String>,
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
}

#[derive(Debug, Clone, Args)]
pub struct ProxyInstallArgs {
    /// The host whose config file to edit.
    #[arg(long, value_enum)]
    pub host: ConfigHost,
    /// The server's name in the host's config.
    #[arg(long, value_name = "NAME")]
    pub server: String,
    /// Write without asking.
    #[arg(long)]
    pub yes: bool,
    /// Edit this file instead of the host's own (a copy, say).
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// With install: also write each session's transcript to this file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct AttachArgs {
    /// List the running proxies instead.
    #[arg(long)]
    pub list: bool,
    /// Which proxy: its pid, or the name of its server; the newest when omitted.
    pub proxy: Option<String>,
    #[command(flatten)]
    pub tui: TuiArgs,
}
