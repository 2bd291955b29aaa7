//! The user's configuration files (the I/O edge of host profiles and themes).

use std::ffi::OsString;
use std::path::PathBuf;

use crate::model_view::hosts::{self, HostProfile};

/// `$XDG_CONFIG_HOME/sightline`, else `~/.config/sightline`.
pub fn config_dir() -> Option<PathBuf> {
    config_dir_from(
        std::env::var_os("XDG_CONFIG_HOME"),
        std::env::var_os("HOME"),
    )
}

fn config_dir_from(xdg_config_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    // The XDG spec says a relative `XDG_CONFIG_HOME` is invalid and must be ignored.
    let base = xdg_config_home
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| {
            home.filter(|home| !home.is_empty())
                .map(|home| PathBuf::from(home).join(".config"))
        })?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_dir_prefers_an_absolute_xdg_config_home() {
        let dir = |xdg: Option<&str>, home: Option<&str>| {
            config_dir_from(xdg.map(OsString::from), home.map(OsString::from))
        };
        assert_eq!(
            dir(Some("/x"), Some("/h")),
            Some(PathBuf::from("/x/sightline"))
        );
        assert_eq!(
            dir(Some("rel"), Some("/h")),
            Some(PathBuf::from("/h/.config/sightline"))
        );
        assert_eq!(
            dir(None, Some("/h")),
            Some(PathBuf::from("/h/.config/sightline"))
        );
        assert_eq!(dir(None, Some("")), None);
        assert_eq!(dir(None, None), None);
    }
}
