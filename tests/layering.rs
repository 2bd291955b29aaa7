//! The pure core stays pure: no module of `mcp`, `driver`, `classify`, `model_view`,
//! `analysis`, `schema`, `app` or `audit` reaches for I/O, async, the clock, or the impure
//! modules around it.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// The pure core, as paths under `src/`.
const PURE: &[&str] = &[
    "mcp",
    "driver",
    "classify",
    "model_view",
    "analysis.rs",
    "schema",
    "app",
    "audit",
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

/// Each line of `source` that names something forbidden, as `line: word: text` (comments
/// are not code).
fn violations(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        for word in FORBIDDEN {
            if code.contains(word) {
                found.push(format!("{}: {word}: {line}", number + 1));
            }
        }
    }
    found
}

#[test]
fn the_pure_core_names_no_io_async_clock_or_impure_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for module in PURE {
        rust_files(&src.join(module), &mut files);
    }
    assert!(files.len() >= 20, "the pure core was not found: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&src).unwrap().display();
        let text = std::fs::read_to_string(file).unwrap();
        found.extend(
            violations(&text)
                .into_iter()
                .map(|v| format!("src/{name}:{v}")),
        );
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_check_catches_what_main_had_and_ignores_comments() {
    // Two imports the pure core had before this check existed, and a comment that names tokio.
    let source = "use crate::transport::framing::InvalidLine;\n\
                  use crate::ui::layout::{self, areas};\n\
                  // no tokio here, by design\n\
                  let t = std::time::Instant::now();";
    let found = violations(source);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].starts_with("1: crate::transport"));
    assert!(found[2].starts_with("4: Instant"));
}
