//! `keys.toml` over the built-in table: per scope, a command and the keys that now mean it. Every
//! problem is a warning naming the file, the section and the entry, and what is wrong is left
//! out, so the built-in keys hold for it; a file is never a reason not to start.

use std::collections::HashSet;

use crossterm::event::{KeyCode, KeyModifiers};

use super::{Binding, Keymap, SCOPES, Scope, names, same};
use crate::app::action::Command;

type Key = (KeyCode, KeyModifiers);

impl Keymap {
    /// The built-in keys rebound by `text`, a `keys.toml` that messages call `file`, and what
    /// was wrong with it.
    pub fn from_toml(text: &str, file: &str) -> (Keymap, Vec<String>) {
        let mut keymap = Keymap::default();
        let mut warnings = Vec::new();
        let table: toml::Table = match toml::from_str(text) {
            Ok(table) => table,
            Err(error) => {
                let message = error.message().trim().replace('\n', "; ");
                warnings.push(format!(
                    "{file}: not valid TOML ({message}); the built-in keys are used"
                ));
                return (keymap, warnings);
            }
        };
        for (section, entries) in &table {
            let scope = SCOPES.iter().find(|scope| scope.section() == section);
            match (scope, entries.as_table()) {
                (Some(&scope), Some(entries)) => {
                    let rebound = section_bindings(&keymap, scope, entries, file, &mut warnings);
                    keymap.rebind(scope, &rebound);
                }
                (_, None) => warnings.push(format!(
                    "{file}: '{section}' is outside a section: commands go under one of {}; \
                     ignored",
                    sections()
                )),
                (None, Some(_)) => warnings.push(format!(
                    "{file}: unknown section '{section}' (one of {}); ignored",
                    sections()
                )),
            }
        }
        (keymap, warnings)
    }

    /// Gives each command of `rebound` exactly its keys in `scope`. A key it takes from another
    /// command there is that command's no more. Help rows whose label named a changed command
    /// are rewritten from the keys; the others stay as they were.
    fn rebind(&mut self, scope: Scope, rebound: &[(Command, Vec<Key>)]) {
        let new_keys = |command: Command| {
            rebound
                .iter()
                .find(|(bound, _)| *bound == command)
                .map(|(_, keys)| keys)
        };
        let taken: Vec<Key> = rebound.iter().flat_map(|(_, keys)| keys.clone()).collect();
        let is_taken = |b: &Binding| taken.iter().any(|&key| same(key, (b.code, b.modifiers)));
        let mut touched: HashSet<Command> = rebound.iter().map(|(command, _)| *command).collect();
        touched.extend(
            self.bindings
                .iter()
                .filter(|b| b.scope == scope && is_taken(b))
                .map(|b| b.command),
        );
        let mut rows = Vec::with_capacity(self.bindings.len());
        let mut placed = HashSet::new();
        for group in groups(&self.bindings) {
            let head = &group[0];
            let named = head.scope == scope || head.also == Some(scope);
            if !named || !group.iter().any(|b| touched.contains(&b.command)) {
                rows.extend(group.iter().cloned());
                continue;
            }
            let single = group.iter().all(|b| b.command == head.command);
            let mut commands: Vec<Command> = Vec::new();
            for b in group {
                if !commands.contains(&b.command) {
                    commands.push(b.command);
                }
            }
            for command in commands {
                let keys: Vec<Key> = match new_keys(command) {
                    Some(keys) if head.scope == scope => {
                        if !placed.insert(command) {
                            // Its keys are on the row of an earlier group.
                            continue;
                        }
                        keys.clone()
                    }
                    _ => group
                        .iter()
                        .filter(|b| b.command == command)
                        .filter(|b| head.scope != scope || !is_taken(b))
                        .map(|b| (b.code, b.modifiers))
                        .collect(),
                };
                let help = if single { head.help } else { command.help() };
                rows.extend(labelled(head.scope, command, &keys, help));
            }
        }
        // Commands the built-in table has no key for in this scope: after its last row.
        let at = rows
            .iter()
            .rposition(|b| b.scope == scope)
            .map_or(rows.len(), |last| last + 1);
        let added: Vec<Binding> = rebound
            .iter()
            .filter(|(command, _)| !placed.contains(command))
            .flat_map(|(command, keys)| labelled(scope, *command, keys, command.help()))
            .collect();
        rows.splice(at..at, added);
        self.bindings = rows;
    }
}

/// The entries of one section as commands and their keys; each bad entry is a warning and is
/// left out.
fn section_bindings(
    keymap: &Keymap,
    scope: Scope,
    entries: &toml::Table,
    file: &str,
    warnings: &mut Vec<String>,
) -> Vec<(Command, Vec<Key>)> {
    let section = scope.section();
    let mut rebound: Vec<(Command, Vec<Key>)> = Vec::new();
    for (name, value) in entries {
        let ignored = |why: String| {
            format!("{file}: [{section}] {name}: {why}; ignored, its built-in keys stay")
        };
        let Some(command) = Command::named(name) else {
            let hint = closest(keymap, name).map_or_else(
                || "`sightline keys` lists them".to_owned(),
                |near| format!("did you mean '{near}'?"),
            );
            warnings.push(format!(
                "{file}: [{section}] '{name}' is not a command ({hint}); ignored"
            ));
            continue;
        };
        let specs: Option<Vec<&str>> = match value {
            toml::Value::String(spec) => Some(vec![spec.as_str()]),
            toml::Value::Array(items) => items.iter().map(toml::Value::as_str).collect(),
            _ => None,
        };
        let Some(specs) = specs else {
            warnings.push(ignored(
                "expected a key such as \"ctrl-s\", or a list of keys".to_owned(),
            ));
            continue;
        };
        let keys: Result<Vec<Key>, String> = specs.iter().map(|spec| names::parse(spec)).collect();
        let keys = match keys {
            Ok(keys) => keys,
            Err(why) => {
                warnings.push(ignored(why));
                continue;
            }
        };
        if let Some(text) = typed_here(scope, &keys) {
            warnings.push(ignored(format!(
                "'{text}' is a character typed as text {}; bind a chord (ctrl-…, alt-…) or a \
                 named key",
                where_typed(scope)
            )));
            continue;
        }
        for (other, theirs) in &mut rebound {
            let before = theirs.len();
            theirs.retain(|key| !keys.iter().any(|mine| same(*key, *mine)));
            if theirs.len() < before {
                warnings.push(format!(
                    "{file}: [{section}] {name} and {} are given the same key; {name} has it",
                    other.name()
                ));
            }
        }
        rebound.push((command, keys));
    }
    rebound
}

/// The help rows of a command's keys: the first names them all, the rest are its aliases.
fn labelled(scope: Scope, command: Command, keys: &[Key], help: &'static str) -> Vec<Binding> {
    let label = keys
        .iter()
        .map(|&(code, modifiers)| names::name(code, modifiers))
        .collect::<Vec<_>>()
        .join(" / ");
    keys.iter()
        .enumerate()
        .map(|(at, &(code, modifiers))| Binding {
            code,
            modifiers,
            keys: if at == 0 {
                label.clone().into()
            } else {
                "".into()
            },
            command,
            scope,
            help: if at == 0 { help } else { "" },
            also: None,
        })
        .collect()
}

/// The table's rows in help groups: a listed row and the aliases after it.
fn groups(bindings: &[Binding]) -> Vec<&[Binding]> {
    let mut groups = Vec::new();
    let mut start = 0;
    for at in 1..=bindings.len() {
        let ends = bindings
            .get(at)
            .is_none_or(|b| !b.keys.is_empty() || b.scope != bindings[start].scope);
        if ends {
            groups.push(&bindings[start..at]);
            start = at;
        }
    }
    groups
}

/// A key of `keys` that would stop being text where `scope` applies: plain characters, in the
/// editor and in a question's answer.
fn typed_here(scope: Scope, keys: &[Key]) -> Option<String> {
    let types = matches!(scope, Scope::Global | Scope::Editing | Scope::Answering);
    keys.iter()
        .find(|(code, modifiers)| {
            types
                && matches!(code, KeyCode::Char(_))
                && !modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        })
        .map(|&(code, modifiers)| names::name(code, modifiers))
}

fn where_typed(scope: Scope) -> &'static str {
    match scope {
        Scope::Editing => "in the editor",
        Scope::Answering => "in a question's answer",
        Scope::Global | Scope::Browsing | Scope::Help => "in the editor and in answers",
    }
}

/// The sections, as messages list them.
fn sections() -> String {
    SCOPES
        .iter()
        .map(|scope| format!("[{}]", scope.section()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The command name nearest to `name`, when it is near enough to be a typo.
fn closest(keymap: &Keymap, name: &str) -> Option<String> {
    let mut names: Vec<&str> = keymap.bindings.iter().map(|b| b.command.name()).collect();
    names.sort_unstable();
    names.dedup();
    crate::present::nearest::nearest(name, names).map(str::to_owned)
}
