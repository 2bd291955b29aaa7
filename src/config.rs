//! The user's configuration files (the I/O edge of host profiles and themes).

use std::path::PathBuf;

use crate::model_view::hosts::{self, HostProfile};

/// `$XDG_CONFIG_HOME/sightline`, else `~/.config/sightline`.
pub fn config_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("sightline"))
}

/// The user's host profiles from `hosts.toml` (none when the file does not exist).
pub fn user_host_profiles() -> Result<Vec<HostProfile>, String> {
    let Some(path) = config_dir().map(|dir| dir.join("hosts.toml")) else {
        return Ok(Vec::new());
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => hosts::parse(&text, &path.to_string_lossy()).map_err(|error| error.to_string()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(error) => Err(format!("cannot read '{}': {error}", path.display())),
    }
}

/// Every host profile: built-ins, overridden and extended by the user's.
pub fn all_host_profiles() -> Result<Vec<HostProfile>, String> {
    let user = user_host_profiles()?;
    let mut all = hosts::builtins();
    all.retain(|builtin| user.iter().all(|u| u.name != builtin.name));
    all.extend(user);
    Ok(all)
}
