//! `sightline keys`: every command of the TUI with the keys that run it, as the built-in table
//! and the user's `keys.toml` (or `--keys FILE`) bind them, and every problem with that file.

use std::io::Write;

use serde::Serialize;

use super::exit;
use super::output::{emit, print_json};
use crate::app::action::Command;
use crate::app::keys::Keymap;
use crate::app::keys::names::name;
use crate::sanitize;

/// The exit code when the keys file has problems (the table is printed all the same).
const FILE_PROBLEMS: u8 = 1;

/// One command and where its keys are.
#[derive(Debug, Serialize)]
struct Row {
    command: &'static str,
    /// `section key` pairs: `browsing c`, `editing Alt-r`.
    keys: Vec<String>,
    help: &'static str,
}

/// Prints the table (or `--json`) and the keys file's problems; exit 0, 1 when the file has
/// problems (each entry it could not take is named).
pub fn keys(file: Option<&std::path::Path>, as_json: bool) -> u8 {
    let (keymap, warnings) = crate::config::keys(file);
    let rows = rows(&keymap);
    if as_json {
        print_json(&serde_json::json!({"commands": rows, "problems": warnings}));
    } else {
        emit(|out| write_text(out, &rows, &warnings));
    }
    if warnings.is_empty() {
        exit::SUCCESS
    } else {
        FILE_PROBLEMS
    }
}

fn rows(keymap: &Keymap) -> Vec<Row> {
    Command::all()
        .map(|command| Row {
            command: command.name(),
            keys: keymap
                .bindings()
                .iter()
                .filter(|binding| binding.command == command)
                .map(|binding| {
                    format!(
                        "{} {}",
                        binding.scope.section(),
                        name(binding.code, binding.modifiers)
                    )
                })
                .collect(),
            help: command.help(),
        })
        .collect()
}

fn write_text(out: &mut dyn Write, rows: &[Row], warnings: &[String]) -> std::io::Result<()> {
    let width = rows.iter().map(|row| row.command.len()).max().unwrap_or(0);
    for row in rows {
        let keys = if row.keys.is_empty() {
            "(no key)".to_owned()
        } else {
            row.keys.join(", ")
        };
        writeln!(out, "{:width$}  {keys}  · {}", row.command, row.help)?;
    }
    if !warnings.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{} problem{} with the keys file:",
            warnings.len(),
            if warnings.len() == 1 { "" } else { "s" }
        )?;
        for warning in warnings {
            writeln!(out, "  {}", sanitize::text(warning))?;
        }
    }
    Ok(())
}
