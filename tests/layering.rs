//! The pure core stays pure: no module of `mcp`, `classify`, `model_view`, `analysis`, `schema`
//! or `app` reaches for I/O, async, the clock, or the impure modules around it.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// The pure core, as paths under `src/`.
const PURE: &[&str] = &[
    "mcp",
    "classify",
    "model_view",
    "analysis.rs",
    "schema",
    "app",
];

/// What the pure core must not name: async, I/O, processes, the clock, and the impure modules.
const FORBIDDEN: &[&str] = &[
    "tokio",
    "std::fs",
    "std::net",
    "std::process",
    "std::thread",
    "SystemTime",
    "Instant",
    "crate::transport",
    "crate::client",
    "crate::stream",
    "crate::live_session",
    "crate::runtime",
    "crate::terminal",
    "crate::headless",
    "crate::config",
    "crate::ui",
    "crossterm::event::read",
];

fn rust_files(path: &Path, found: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            rust_files(&entry.unwrap().path(), found);
        }
    } else if path.extension().is_some_and(|ext| ext == "rs") {
        found.push(path.to_owned());
    }
}

#[test]
fn the_pure_core_names_no_io_async_clock_or_impure_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for module in PURE {
        rust_files(&src.join(module), &mut files);
    }
    assert!(files.len() >= 20, "the pure core was not found: {files:?}");
    let mut violations = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for word in FORBIDDEN {
                if code.contains(word) {
                    let name = file.strip_prefix(&src).unwrap().display();
                    violations.push(format!("src/{name}:{}: {word}: {line}", number + 1));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_check_itself_catches_a_forbidden_import() {
    let line = "use crate::transport::framing::InvalidLine;";
    assert!(FORBIDDEN.iter().any(|word| line.contains(word)));
    let line = "let t = std::time::Instant::now();";
    assert!(FORBIDDEN.iter().any(|word| line.contains(word)));
}
