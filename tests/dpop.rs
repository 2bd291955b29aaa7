//! DPoP end to end (RFC 9449), against `tests/peers/dpop_server.py`, a server and authorization
//! server that check every proof with `PyJWT`: the token is asked for with a proof, every request
//! presents it as `DPoP` with a fresh proof, a used-up token is refreshed with a proof by the
//! same key, and `--token-cache` keeps the key with the tokens, so a later run proves with it.
//! The conformance suite's `auth/dpop` and `auth/dpop-nonce` run in `tests/conformance.rs`.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::servers::Server;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

struct Peer {
    server: Server,
    log: PathBuf,
}

fn peer(name: &str) -> Peer {
    common::peers::py();
    let log = std::env::temp_dir().join(format!(
        "sightline-dpop-{name}-{}.jsonl",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&log);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("tests/peers/.venv/bin/python");
    let script = root.join("tests/peers/dpop_server.py");
    let server = Server::start(
        python.to_str().unwrap(),
        &[script.to_str().unwrap(), log.to_str().unwrap()],
    );
    Peer { server, log }
}

impl Peer {
    /// The token and MCP requests the server saw, in order.
    fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn call(&self, extra: &[&str]) -> Output {
        let output = Command::new(BIN)
            .args(["call", "echo", "{}", "--era", "legacy", "--json", "-v"])
            .args(["--url", &self.server.url])
            .args(extra)
            .env("BROWSER", "python3 tests/peers/browser.py")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        eprintln!("{stderr}");
        for out in [String::from_utf8_lossy(&output.stdout), stderr] {
            assert!(
                !out.contains("dpop-token-")
                    && !out.contains("dpop-refresh-")
                    && !out.contains(".eyJ"),
                "a token or proof leaked:\n{out}"
            );
        }
        output
    }
}

fn class(output: &Output) -> String {
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    json["outcome"]["class"].as_str().unwrap().to_owned()
}

fn tokens(events: &[Value]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter(|event| event["event"] == "token")
        .map(|event| {
            (
                event["grant"].as_str().unwrap().to_owned(),
                event["ok"] == true,
            )
        })
        .collect()
}

#[test]
fn a_bound_token_is_presented_with_fresh_proofs_and_refreshed_with_the_same_key() {
    let peer = peer("refresh");
    let cache =
        std::env::temp_dir().join(format!("sightline-dpop-cache-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&cache);
    let cache_arg = ["--token-cache", cache.to_str().unwrap()];
    let output = peer.call(&cache_arg);
    assert_eq!(class(&output), "success");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("binding the token to the DPoP key")
            && stderr.contains("the server challenges with DPoP; a key made for this server"),
        "{stderr}"
    );
    let events = peer.events();
    // The first request has no token; each token is good for two requests, so the third is
    // refused and refreshed; every request the server took was proven by one key.
    assert_eq!(
        tokens(&events),
        [
            ("authorization_code".to_owned(), true),
            ("refresh_token".to_owned(), true)
        ],
        "{events:#?}"
    );
    let keys: Vec<&str> = events
        .iter()
        .filter(|event| event["ok"] == true)
        .map(|event| event["jkt"].as_str().unwrap())
        .collect();
    assert!(
        keys.len() >= 5 && keys.iter().all(|key| *key == keys[0]),
        "{events:#?}"
    );
    let taken = events
        .iter()
        .filter(|event| event["event"] == "mcp" && event["ok"] == true)
        .count();
    assert!(taken >= 3, "{events:#?}");

    // A later run: the cached token, then its refresh, proven with the key the cache kept.
    let _ = std::fs::remove_file(&peer.log);
    let again = peer.call(&cache_arg);
    assert_eq!(class(&again), "success");
    let events = peer.events();
    assert!(
        tokens(&events)
            .iter()
            .all(|(grant, ok)| grant == "refresh_token" && *ok),
        "no new authorization, only refreshes by the kept key: {events:#?}"
    );
    assert!(
        events
            .iter()
            .filter(|event| event["ok"] == true)
            .all(|event| event["jkt"] == keys[0]),
        "{events:#?}"
    );
    let _ = std::fs::remove_file(&cache);
}

#[test]
fn no_dpop_sends_no_proof_and_the_refusal_is_said() {
    let peer = peer("none");
    let output = peer.call(&["--no-dpop"]);
    assert_eq!(class(&output), "transport_failure");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let detail = json["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("the token request failed (HTTP 400 Bad Request: invalid_dpop_proof)"),
        "{detail}"
    );
    assert_eq!(
        peer.events()
            .iter()
            .find(|event| event["event"] == "token")
            .map(|event| event["why"].clone()),
        Some(Value::from("no DPoP proof"))
    );
}
