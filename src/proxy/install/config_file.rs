//! A host's config file on disk: read (comments refused), a server's entry found in it, its
//! backup beside it, and the new text written atomically with the file's permissions.

use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{entry, json_text};

/// One config file, as read.
pub struct Config {
    /// The path as the user named it.
    shown: String,
    /// The file itself, symbolic links followed: what is written.
    file: PathBuf,
    /// Its text, and that parsed.
    pub text: String,
    root: Value,
    /// `<file>.sightline-backup`.
    pub backup: PathBuf,
}

/// Where a host may keep the entry: a label for messages (empty for the main list) and the
/// member names leading to the object of servers.
pub struct Location {
    pub label: String,
    pub path: Vec<String>,
}

/// A server's entry in a config file: where it is, what it says.
pub struct Found {
    pub name: String,
    /// The member names leading to it, its own last.
    path: Vec<String>,
    /// Its value's bytes in the file.
    pub span: std::ops::Range<usize>,
    pub entry: Map<String, Value>,
}

/// An entry as the backup has it.
pub struct Kept {
    pub entry: Map<String, Value>,
    /// Its text in the backup.
    pub text: String,
}

impl Config {
    pub fn read(path: &Path) -> Result<Self, String> {
        let shown = path.display().to_string();
        let file =
            std::fs::canonicalize(path).map_err(|error| format!("cannot read {shown}: {error}"))?;
        let text = std::fs::read_to_string(&file)
            .map_err(|error| format!("cannot read {shown}: {error}"))?;
        if json_text::has_comments(&text) {
            return Err(format!(
                "{shown} has comments, which sightline would lose, so it does not edit it: \
                 `sightline proxy print` gives the entry to paste by hand"
            ));
        }
        let root = parse(&shown, &text)?;
        let mut backup = file.clone().into_os_string();
        backup.push(".sightline-backup");
        Ok(Self {
            shown,
            file,
            text,
            root,
            backup: PathBuf::from(backup),
        })
    }

    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The entry `name` in the first of `locations` that has it; the error lists the names
    /// each has.
    pub fn locate(&self, locations: &[Location], name: &str) -> Result<Found, String> {
        let mut listed = Vec::new();
        for location in locations {
            let Some(servers) = at(&self.root, &location.path).and_then(Value::as_object) else {
                continue;
            };
            if let Some(found) = servers.get(name) {
                let Value::Object(entry) = found else {
                    return Err(format!("{}: server '{name}' must be an object", self.shown));
                };
                let mut path = location.path.clone();
                path.push(name.to_owned());
                let keys: Vec<&str> = path.iter().map(String::as_str).collect();
                let span = json_text::find(&self.text, &keys)
                    .map_err(|problem| format!("{}: {problem}", self.shown))?
                    .ok_or_else(|| {
                        format!("{}: server '{name}' not found in the text", self.shown)
                    })?;
                return Ok(Found {
                    name: name.to_owned(),
                    path,
                    span,
                    entry: entry.clone(),
                });
            }
            let names: Vec<&str> = servers.keys().map(String::as_str).collect();
            let names = if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            };
            listed.push(if location.label.is_empty() {
                names
            } else {
                format!("{}: {names}", location.label)
            });
        }
        if listed.is_empty() {
            let wanted: Vec<String> = locations
                .iter()
                .map(|location| location.path.join("."))
                .collect();
            return Err(format!(
                "{}: no `{}` object",
                self.shown,
                wanted.join("` or `")
            ));
        }
        Err(format!(
            "{}: no server named '{name}' (it has: {})",
            self.shown,
            listed.join("; ")
        ))
    }

    /// `problem` with the file and the entry named.
    pub fn problem(&self, found: &Found, problem: &str) -> String {
        format!("{}: server '{}': {problem}", self.shown, found.name)
    }

    /// The file's text with `found` replaced by `value`, in the file's style.
    pub fn replaced(&self, found: &Found, value: &Value) -> Result<String, String> {
        let rendered = json_text::render(&self.text, &found.span, value)?;
        Ok(json_text::splice(&self.text, &found.span, &rendered))
    }

    /// Whether the backup there can stay as it is: it holds `found` as it is now, or predates
    /// it (uninstall then unwraps it); `false` when there is none. A backup that holds another
    /// version of the entry is an earlier install's: refused, never overwritten.
    pub fn backup_fits(&self, found: &Found) -> Result<bool, String> {
        let Some(backup) = self.read_backup()? else {
            return Ok(false);
        };
        if backup == self.text {
            return Ok(true);
        }
        let kept =
            serde_json::from_str::<Value>(&backup).map(|root| at(&root, &found.path).cloned());
        match kept {
            Ok(None) => {
                eprintln!(
                    "{} predates '{}': kept as it is (uninstall unwraps the entry)",
                    self.backup.display(),
                    found.name
                );
                Ok(true)
            }
            Ok(Some(kept)) if kept == Value::Object(found.entry.clone()) => Ok(true),
            _ => Err(format!(
                "{} already exists and holds another version of '{}': a backup from an \
                 earlier install, which `sightline proxy uninstall` restores; move it away to \
                 install again. Nothing written",
                self.backup.display(),
                found.name
            )),
        }
    }

    /// The entry as the backup has it, parsed and as its text; `None` when there is no
    /// backup or it lacks the entry.
    pub fn backup_entry(&self, found: &Found) -> Result<Option<Kept>, String> {
        let Some(backup) = self.read_backup()? else {
            return Ok(None);
        };
        let Ok(root) = serde_json::from_str::<Value>(&backup) else {
            return Ok(None);
        };
        let Some(Value::Object(entry)) = at(&root, &found.path) else {
            return Ok(None);
        };
        let keys: Vec<&str> = found.path.iter().map(String::as_str).collect();
        let Ok(Some(span)) = json_text::find(&backup, &keys) else {
            return Ok(None);
        };
        Ok(Some(Kept {
            entry: entry.clone(),
            text: backup[span].to_owned(),
        }))
    }

    fn read_backup(&self) -> Result<Option<String>, String> {
        match std::fs::read_to_string(&self.backup) {
            Ok(text) => Ok(Some(text)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(format!("cannot read {}: {error}", self.backup.display())),
        }
    }

    /// The file as it was, to the backup.
    pub fn write_backup(&self) -> Result<(), String> {
        write_atomically(&self.backup, &self.text, self.mode()?)
    }

    /// `text` in place of the file, atomically, its permissions kept.
    pub fn write(&self, text: &str) -> Result<(), String> {
        write_atomically(&self.file, text, self.mode()?)
    }

    fn mode(&self) -> Result<u32, String> {
        std::fs::metadata(&self.file)
            .map(|metadata| metadata.permissions().mode() & 0o7777)
            .map_err(|error| format!("cannot read {}: {error}", self.shown))
    }
}

/// Whether any server of the config text (`mcpServers`, `servers`, Claude Code's projects')
/// still runs through sightline.
pub fn any_proxied(text: &str) -> bool {
    let Ok(root) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let projects = root
        .get("projects")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|projects| projects.values())
        .filter_map(|project| project.get("mcpServers"));
    ["mcpServers", "servers"]
        .iter()
        .filter_map(|key| root.get(*key))
        .chain(projects)
        .filter_map(Value::as_object)
        .flat_map(|servers| servers.values())
        .filter_map(Value::as_object)
        .any(|server| entry::unwrapped(server).is_some())
}

fn at<'a>(root: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(root, |value, key| value.get(key))
}

fn parse(shown: &str, text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|error| {
        format!(
            "{shown}: not JSON at line {} column {}: nothing written",
            error.line(),
            error.column()
        )
    })
}

/// `text` to a temporary file beside `path` with `mode`, then renamed over it.
fn write_atomically(path: &Path, text: &str, mode: u32) -> Result<(), String> {
    use std::io::Write;
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.sightline-{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&temp)?;
        // The umask may have taken bits off.
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    written.map_err(|error| {
        let _ = std::fs::remove_file(&temp);
        format!("cannot write {}: {error}", path.display())
    })
}
