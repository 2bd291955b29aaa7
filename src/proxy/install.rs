//! `sightline proxy install | uninstall | print`: a host's own config entry for a server,
//! rewritten to run the server through `sightline proxy` (and back).

use crate::cli::{ConfigHost, ProxyInstallArgs};

/// Shows the change to the host's config, writes it after confirmation, keeps a backup.
pub fn install(args: &ProxyInstallArgs) -> Result<(), String> {
    let _ = args;
    Err("proxy install: not built yet".into())
}

/// Restores the entry `install` rewrote.
pub fn uninstall(args: &ProxyInstallArgs) -> Result<(), String> {
    let _ = args;
    Err("proxy uninstall: not built yet".into())
}

/// The entry that runs `server` through the proxy, in the host's config format.
pub fn print(
    host: ConfigHost,
    name: &str,
    url: Option<&str>,
    command: &[String],
) -> Result<String, String> {
    let _ = (host, name, url, command);
    Err("proxy print: not built yet".into())
}
