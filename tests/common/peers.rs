//! The reference MCP peers the end-to-end tests run: servers built with the official SDKs
//! (`tests/peers/install.sh` installs the TypeScript and Python ones; without it the tests that
//! need them fail and say so, never skip) and the stdlib-only Python peers.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// The rmcp peer, built (or found fresh) by cargo: `cargo test --test interop` alone does not
/// build examples, and a stale binary would test old code.
pub fn rmcp() -> Vec<String> {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    let path = PATH.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let output = Command::new(cargo)
            .args(["build", "--example", "rmcp_peer"])
            .arg("--message-format=json-render-diagnostics")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .output()
            .expect("cargo starts");
        assert!(
            output.status.success(),
            "`cargo build --example rmcp_peer` failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find(|message| message["target"]["name"] == "rmcp_peer")
            .and_then(|message| message["executable"].as_str().map(PathBuf::from))
            .expect("cargo reported no rmcp_peer executable")
    });
    vec![path.to_string_lossy().into_owned()]
}

/// Fails (never skips) when `tests/peers/install.sh` has not installed this lock file's SDK.
pub fn require_installed(lock: &str, stamp: &str) {
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    let installed = std::fs::read(peers.join(stamp)).ok();
    assert!(
        installed.is_some() && installed == std::fs::read(peers.join(lock)).ok(),
        "the reference MCP peers are not installed (or are out of date): \
         run `tests/peers/install.sh` (needs node >= 18 with npm and python3 >= 3.10)"
    );
}

pub fn ts() -> Vec<String> {
    require_installed("package-lock.json", "node_modules/.installed-lock.json");
    vec!["node".into(), "tests/peers/ts_server.mjs".into()]
}

/// The TypeScript SDK server that serves skills (SEP-2640), in `mode` (honest, tampered, bare).
pub fn ts_skills(mode: &str) -> Vec<String> {
    require_installed("package-lock.json", "node_modules/.installed-lock.json");
    vec![
        "node".into(),
        "tests/peers/ts_skills_server.mjs".into(),
        mode.into(),
    ]
}

pub fn py() -> Vec<String> {
    require_installed("requirements.txt", ".venv/.installed-requirements.txt");
    vec![
        "tests/peers/.venv/bin/python".into(),
        "tests/peers/py_server.py".into(),
    ]
}

/// The TypeScript SDK from before its SEP-1303 change (1.20.2: -32602 for invalid arguments).
pub fn ts_pre1303() -> Vec<String> {
    require_installed("package-lock.json", "node_modules/.installed-lock.json");
    vec!["node".into(), "tests/peers/ts_server_pre1303.mjs".into()]
}

/// `tests/peers/odd_server.py` (stdlib only).
pub fn odd() -> Vec<String> {
    vec!["python3".into(), "tests/peers/odd_server.py".into()]
}

/// The official "everything" server (`@modelcontextprotocol/server-everything`), on stdio.
pub fn everything() -> Vec<String> {
    require_installed("package-lock.json", "node_modules/.installed-lock.json");
    vec![
        "node".into(),
        "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js".into(),
    ]
}
