//! `--record FILE` and `--no-redact`: their arguments, where on the line they may stand, and the
//! commands that do not offer them.

use clap::Args;

/// The arguments with a `--record FILE`/`--no-redact` given before a command's name moved after
/// it, where the command reads them: `sightline --record s.jsonl call …` reads as the README
/// writes it (clap lets options before a command belong to the TUI only).
pub fn record_args_after_command(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    const COMMANDS: [&str; 19] = [
        "tools",
        "lint",
        "test",
        "call",
        "resources",
        "read",
        "subscribe",
        "prompts",
        "prompt",
        "complete",
        "ping",
        "request",
        "audit",
        "auth",
        "hosts",
        "demo-server",
        "replay",
        "diff",
        "proxy",
    ];
    let mut args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let Some(command) = args.iter().position(|arg| {
        arg.to_str()
            .is_some_and(|arg| COMMANDS.contains(&arg) || arg == "--")
    }) else {
        return args;
    };
    if args[command] == "--" {
        return args;
    }
    let mut moved = Vec::new();
    let mut i = 1;
    let mut end = command;
    while i < end {
        let arg = args[i].to_str().unwrap_or_default();
        let taken = match arg {
            "--record" if i + 1 < end => 2,
            "--no-redact" => 1,
            _ if arg.starts_with("--record=") => 1,
            _ => 0,
        };
        if taken == 0 {
            i += 1;
        } else {
            moved.extend(args.drain(i..i + taken));
            end -= taken;
        }
    }
    args.splice((end + 1)..=end, moved);
    args
}

/// `--record`, for every command that talks to a server (before or after the command's name).
#[derive(Debug, Clone, Default, Args)]
pub struct RecordArgs {
    /// Record the session to this transcript (JSON lines, written as it happens).
    #[arg(long, value_name = "FILE", global = true)]
    pub record: Option<String>,
    /// With --record: keep secrets (header values, secret-named -e values) in the transcript.
    #[arg(long, global = true)]
    pub no_redact: bool,
}

/// The command-line parser: [`super::Cli`]'s, with `--record`/`--no-redact` (global, for every
/// command that talks to a server) hidden where they mean nothing: `man` and `completions`.
pub fn parser() -> clap::Command {
    let mut command = <super::Cli as clap::CommandFactory>::command();
    for name in ["man", "completions"] {
        // A global is not copied to a subcommand that has an argument of its id already.
        command = command.mut_subcommand(name, |sub| {
            sub.arg(
                clap::Arg::new("record")
                    .long("record")
                    .value_name("FILE")
                    .hide(true),
            )
            .arg(
                clap::Arg::new("no_redact")
                    .long("no-redact")
                    .action(clap::ArgAction::SetTrue)
                    .hide(true),
            )
        });
    }
    command
}
