//! The host profile a command judges by when `--host` is not given, pure: from the parsed
//! line, the config's `default_host` and the host whose own file `--config` named.

use super::{Cli, Command, ServerArgs};

/// The host profile a command judges by when `--host` is not given: `configured` (the config's
/// `default_host`), else the calibrated host whose own file `--config` named (`claude`: Claude
/// Code), else `spec`. `matches` are the parsed line's, which say whether `--host` was given.
pub fn with_default_host(cli: &mut Cli, matches: &clap::ArgMatches, configured: Option<&str>) {
    let command = matches.subcommand().map_or(matches, |(_, sub)| sub);
    let given = command.ids().any(|id| id.as_str() == "host")
        && command.value_source("host") != Some(clap::parser::ValueSource::DefaultValue);
    if given {
        return;
    }
    let named = |server: &ServerArgs| match server.config.as_deref() {
        Some("claude") => Some("claude-code"),
        _ => None,
    };
    let host = match &mut cli.command {
        None => {
            let fallback = named(&cli.server);
            configured
                .or(fallback)
                .map(|name| (&mut cli.tui.host, name))
        }
        Some(Command::Call { call, server, .. }) => configured
            .or(named(server))
            .map(|name| (&mut call.host, name)),
        Some(Command::Audit { audit, server, .. }) => configured
            .or(named(server))
            .map(|name| (&mut audit.host, name)),
        Some(Command::Replay { tui, .. }) => configured.map(|name| (&mut tui.host, name)),
        Some(Command::Diff { host, .. }) => configured.map(|name| (host, name)),
        _ => None,
    };
    if let Some((host, name)) = host {
        name.clone_into(host);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host each line judges by, with `configured` as the config's `default_host`.
    fn host_of(line: &[&str], configured: Option<&str>) -> String {
        use clap::{CommandFactory, FromArgMatches};
        let matches = Cli::command().try_get_matches_from(line).unwrap();
        let mut cli = Cli::from_arg_matches(&matches).unwrap();
        with_default_host(&mut cli, &matches, configured);
        match cli.command {
            None => cli.tui.host,
            Some(Command::Call { call, .. }) => call.host,
            Some(Command::Audit { audit, .. }) => audit.host,
            Some(Command::Diff { host, .. }) => host,
            Some(Command::Replay { tui, .. }) => tui.host,
            Some(_) => panic!("no host"),
        }
    }

    #[test]
    fn the_default_host_is_the_configured_one_then_the_configs_host_then_spec() {
        let call = ["sightline", "call", "t", "--demo", "sep1303"];
        assert_eq!(host_of(&call, None), "spec");
        assert_eq!(host_of(&call, Some("codex")), "codex");
        let given = [
            "sightline",
            "call",
            "t",
            "--host",
            "spec",
            "--demo",
            "sep1303",
        ];
        assert_eq!(host_of(&given, Some("codex")), "spec", "--host wins");
        let claude = ["sightline", "call", "t", "--config", "claude"];
        assert_eq!(host_of(&claude, None), "claude-code");
        assert_eq!(host_of(&claude, Some("codex")), "codex");
        let cursor = ["sightline", "call", "t", "--config", "cursor"];
        assert_eq!(
            host_of(&cursor, None),
            "spec",
            "no calibrated profile of Cursor"
        );
        assert_eq!(
            host_of(&["sightline", "--config", "claude"], None),
            "claude-code"
        );
        assert_eq!(
            host_of(&["sightline", "--demo", "legacy"], Some("opencode")),
            "opencode"
        );
        let audit = ["sightline", "audit", "--yes", "--config", "claude"];
        assert_eq!(host_of(&audit, None), "claude-code");
        assert_eq!(
            host_of(&["sightline", "diff", "a", "b"], Some("codex")),
            "codex"
        );
        assert_eq!(
            host_of(&["sightline", "replay", "a"], Some("codex")),
            "codex"
        );
    }
}
