//! The user's configuration files (the I/O edge of host profiles, themes and key bindings).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::app::Keymap;
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

/// The user's host profiles: `hosts.toml`, then each host file `hosts/NAME.toml` (none when
/// neither exists).
pub fn user_host_profiles() -> Result<Vec<HostProfile>, String> {
    let Some(dir) = config_dir() else {
        return Ok(Vec::new());
    };
    let path = dir.join("hosts.toml");
    let mut profiles = match std::fs::read_to_string(&path) {
        Ok(text) => {
            hosts::parse(&text, &path.to_string_lossy()).map_err(|error| error.to_string())?
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(error) => return Err(format!("cannot read '{}': {error}", path.display())),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("hosts"))
        .map(|entries| {
            entries
                .filter_map(|entry| Some(entry.ok()?.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .map_err(|error| format!("cannot read '{}': {error}", file.display()))?;
        profiles.extend(
            hosts::parse(&text, &file.to_string_lossy()).map_err(|error| error.to_string())?,
        );
    }
    Ok(profiles)
}

/// `default_host` of the user's `hosts.toml`: the profile to judge by when `--host` is not
/// given (a file that cannot be read names none; its profiles' errors are said where they are
/// read).
pub fn default_host() -> Option<String> {
    let text = std::fs::read_to_string(config_dir()?.join("hosts.toml")).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    table.get("default_host")?.as_str().map(str::to_owned)
}

/// Every host profile: built-ins, overridden and extended by the user's.
pub fn all_host_profiles() -> Result<Vec<HostProfile>, String> {
    let user = user_host_profiles()?;
    let mut all = hosts::builtins();
    all.retain(|builtin| user.iter().all(|u| u.name != builtin.name));
    all.extend(user);
    Ok(all)
}

/// The key bindings: the built-in ones, rebound by `file` (`--keys`), else by `keys.toml` in
/// the config dir when there is one; and what was wrong, as warnings. A file that cannot be
/// read or has mistakes never stops the start: the built-in keys hold where it fails.
pub fn keys(file: Option<&Path>) -> (Keymap, Vec<String>) {
    let (path, named) = match file {
        Some(file) => (file.to_owned(), true),
        None => match config_dir() {
            Some(dir) => (dir.join("keys.toml"), false),
            None => return (Keymap::default(), Vec::new()),
        },
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Keymap::from_toml(&text, &path.display().to_string()),
        Err(error) if !named && error.kind() == std::io::ErrorKind::NotFound => {
            (Keymap::default(), Vec::new())
        }
        Err(error) => (
            Keymap::default(),
            vec![format!(
                "cannot read the keys file '{}': {error}; the built-in keys are used",
                path.display()
            )],
        ),
    }
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

    #[test]
    fn a_named_keys_file_rebinds_and_one_that_cannot_be_read_is_a_warning() {
        use crossterm::event::{KeyCode, KeyModifiers};
        let dir = std::env::temp_dir().join(format!("sightline-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("keys.toml");
        std::fs::write(&file, "[browsing]\nquit = \"Q\"\n").unwrap();
        let (keys, warnings) = super::keys(Some(&file));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            keys.command(
                KeyCode::Char('Q'),
                KeyModifiers::NONE,
                crate::app::Mode::Browsing
            ),
            Some(crate::app::Command::Quit)
        );
        let missing = dir.join("nowhere.toml");
        let (keys, warnings) = super::keys(Some(&missing));
        assert_eq!(keys, Keymap::default());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("cannot read the keys file '")
                && warnings[0].ends_with("; the built-in keys are used"),
            "{warnings:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
