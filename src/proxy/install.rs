//! `sightline proxy install | uninstall | print`: a host's own config entry for a server,
//! rewritten to run the server through `sightline proxy` (and back), shown as a diff, written
//! only once confirmed, beside a backup.

mod ask;
mod config_file;
mod entry;
mod json_text;

use std::path::{Path, PathBuf};

use serde_json::Value;

use self::config_file::{Config, Location, any_proxied};
use self::entry::Kind;
use crate::cli::{ConfigHost, ProxyInstallArgs};

/// Shows the change to the host's config, writes it after confirmation, keeps a backup.
pub fn install(args: &ProxyInstallArgs) -> Result<(), String> {
    let config = Config::read(&config_path(args)?)?;
    let found = config.locate(&locations(args.host)?, &args.server)?;
    let wrapped =
        match entry::kind(&found.entry).map_err(|problem| config.problem(&found, &problem))? {
            Kind::Proxied => {
                eprintln!(
                    "{}: '{}' already runs through sightline proxy: nothing to change",
                    config.shown(),
                    args.server
                );
                return Ok(());
            }
            Kind::Remote(url) => {
                return Err(format!(
                    "{}: '{}' is a remote server ({url}): install rewrites stdio entries only; \
                 `sightline proxy print --host … --server NAME --url {url}` gives a stdio entry \
                 that reaches it through the proxy (add its headers as --header); nothing written",
                    config.shown(),
                    args.server
                ));
            }
            Kind::Stdio => {
                let mut options = Vec::new();
                if let Some(record) = &args.record {
                    options.push("--record".to_owned());
                    options.push(absolute(Path::new(record))?);
                }
                entry::wrap(&found.entry, &sightline()?, &options)
                    .map_err(|problem| config.problem(&found, &problem))?
            }
        };
    let after = config.replaced(&found, &Value::Object(wrapped))?;
    let keep_backup = config.backup_fits(&found)?;
    show(&config, &after);
    ask::confirm(config.shown(), args.yes)?;
    if !keep_backup {
        config.write_backup()?;
    }
    config.write(&after)?;
    let config_flag = args
        .config
        .as_ref()
        .map(|path| format!(" --config {}", path.display()))
        .unwrap_or_default();
    eprintln!(
        "wrote {} (the original is in {}): {} runs '{}' through sightline from its next start; \
         `sightline proxy uninstall --host {} --server {}{config_flag}` puts it back",
        config.shown(),
        config.backup.display(),
        host_name(args.host),
        args.server,
        host_flag(args.host),
        args.server,
    );
    Ok(())
}

/// Restores the entry `install` rewrote: from the backup when the entry is still what
/// install made of it, else by unwrapping it; the backup goes once nothing is proxied.
pub fn uninstall(args: &ProxyInstallArgs) -> Result<(), String> {
    let config = Config::read(&config_path(args)?)?;
    let found = config.locate(&locations(args.host)?, &args.server)?;
    let Some(unwrapped) = entry::unwrapped(&found.entry) else {
        eprintln!(
            "{}: '{}' does not run through sightline proxy: nothing to change",
            config.shown(),
            args.server
        );
        return Ok(());
    };
    let after = match config.backup_entry(&found)? {
        Some(kept)
            if entry::wrap(&kept.entry, &unwrapped.sightline, &unwrapped.options).as_ref()
                == Ok(&found.entry) =>
        {
            json_text::splice(&config.text, &found.span, &kept.text)
        }
        backup => {
            if backup.is_some() {
                eprintln!(
                    "'{}' changed since install: unwrapped as it is now, not restored from {}",
                    args.server,
                    config.backup.display()
                );
            }
            config.replaced(&found, &Value::Object(unwrapped.entry))?
        }
    };
    show(&config, &after);
    ask::confirm(config.shown(), args.yes)?;
    config.write(&after)?;
    eprintln!(
        "wrote {}: '{}' runs without sightline",
        config.shown(),
        args.server
    );
    if config.backup.exists() {
        if any_proxied(&after) {
            eprintln!(
                "kept {}: other servers there still run through sightline",
                config.backup.display()
            );
        } else {
            std::fs::remove_file(&config.backup)
                .map_err(|error| format!("cannot remove {}: {error}", config.backup.display()))?;
            eprintln!("removed {}", config.backup.display());
        }
    }
    Ok(())
}

/// The entry that runs `server` through the proxy, in the host's config format.
pub fn print(
    host: ConfigHost,
    name: &str,
    url: Option<&str>,
    command: &[String],
) -> Result<String, String> {
    let proxy_args: Vec<String> = match url {
        Some(url) => vec!["--url".to_owned(), url.to_owned()],
        None => std::iter::once("--".to_owned())
            .chain(command.iter().cloned())
            .collect(),
    };
    if url.is_none() && command.is_empty() {
        return Err(
            "no server: `sightline proxy print --host HOST --server NAME -- CMD [ARGS…]`".into(),
        );
    }
    eprintln!(
        "paste this into `{}` of {}:",
        servers_key(host),
        default_path(host).map_or_else(
            |_| host_name(host).to_owned(),
            |path| path.display().to_string()
        )
    );
    Ok(entry::printed(
        name,
        &sightline()?,
        &proxy_args,
        host == ConfigHost::Vscode,
    ))
}

/// The host's file, or the one `--config` names.
fn config_path(args: &ProxyInstallArgs) -> Result<PathBuf, String> {
    match &args.config {
        Some(path) => Ok(path.clone()),
        None => default_path(args.host),
    }
}

/// Where the host keeps its servers, found as the host itself finds it.
fn default_path(host: ConfigHost) -> Result<PathBuf, String> {
    let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let home = var("HOME").ok_or("HOME is not set: name the file with --config")?;
    let home_text = home.to_string_lossy();
    let known = |name| crate::server_config::well_known(name, &home_text).map(PathBuf::from);
    let path = match host {
        // Claude Code: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`.
        ConfigHost::ClaudeCode => var("CLAUDE_CONFIG_DIR")
            .map_or_else(|| PathBuf::from(&home), PathBuf::from)
            .join(".claude.json"),
        // Gemini CLI: its home is `$GEMINI_CLI_HOME`, else the user's.
        ConfigHost::GeminiCli => var("GEMINI_CLI_HOME")
            .map_or_else(|| PathBuf::from(&home), PathBuf::from)
            .join(".gemini/settings.json"),
        ConfigHost::ClaudeDesktop => known("claude").ok_or("no path for Claude Desktop")?,
        ConfigHost::Cursor => known("cursor").ok_or("no path for Cursor")?,
        ConfigHost::Vscode => known("vscode").ok_or("no path for VS Code")?,
    };
    Ok(path)
}

/// The object that holds a host's servers: VS Code's `servers`, everyone else's `mcpServers`.
fn servers_key(host: ConfigHost) -> &'static str {
    match host {
        ConfigHost::Vscode => "servers",
        _ => "mcpServers",
    }
}

fn host_name(host: ConfigHost) -> &'static str {
    match host {
        ConfigHost::ClaudeCode => "Claude Code",
        ConfigHost::ClaudeDesktop => "Claude Desktop",
        ConfigHost::Cursor => "Cursor",
        ConfigHost::Vscode => "VS Code",
        ConfigHost::GeminiCli => "Gemini CLI",
    }
}

fn host_flag(host: ConfigHost) -> &'static str {
    match host {
        ConfigHost::ClaudeCode => "claude-code",
        ConfigHost::ClaudeDesktop => "claude-desktop",
        ConfigHost::Cursor => "cursor",
        ConfigHost::Vscode => "vscode",
        ConfigHost::GeminiCli => "gemini-cli",
    }
}

/// The running sightline, by its absolute path: the host starts it from anywhere.
fn sightline() -> Result<String, String> {
    let exe = std::env::current_exe()
        .map_err(|error| format!("cannot tell where sightline is: {error}"))?;
    exe.to_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{}: sightline's path is not UTF-8", exe.display()))
}

/// `path` from the current directory: the host runs the proxy from its own.
fn absolute(path: &Path) -> Result<String, String> {
    let absolute =
        std::path::absolute(path).map_err(|error| format!("{}: {error}", path.display()))?;
    absolute
        .to_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{}: not UTF-8", absolute.display()))
}

/// Where the host keeps the entry: its list of servers and, for Claude Code, the current
/// directory's project's (used when the server is only there).
fn locations(host: ConfigHost) -> Result<Vec<Location>, String> {
    let mut locations = vec![Location {
        label: String::new(),
        path: vec![servers_key(host).to_owned()],
    }];
    if host == ConfigHost::ClaudeCode {
        let here = std::env::current_dir()
            .map_err(|error| format!("cannot tell the current directory: {error}"))?;
        let here = here.to_string_lossy().into_owned();
        locations.push(Location {
            label: format!("project {here}"),
            path: vec!["projects".into(), here, "mcpServers".into()],
        });
    }
    Ok(locations)
}

/// The diff on stdout (nothing when nothing changes).
fn show(config: &Config, after: &str) {
    print!("{}", ask::diff(config.shown(), &config.text, after));
}
