//! DPoP end to end (RFC 9449), against `tests/peers/dpop_server.py`, a server and authorization
//! server that check every proof with `PyJWT`: the token is asked for with a proof, every request
//! presents it as `DPoP` with a fresh proof, a used-up token is refreshed with a proof by the
//! same key, and `--token-cache` keeps the key with the tokens, so a later run proves with it;
//! the workload's JWT and the enterprise IdP's ID-JAG as grants for bound tokens, a refused
//! grant not retried, and how the client authenticates at the IdP.
//! The conformance suite's `auth/dpop` and `auth/dpop-nonce` run in `tests/conformance.rs`.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::servers::Server;
use serde_json::{Value, json};

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
        self.call_with(extra, &[], &[])
    }

    /// `call echo` with `extra` flags and `env`; `secrets` (and every token and proof) must
    /// appear nowhere in what it prints.
    fn call_with(&self, extra: &[&str], env: &[(&str, &str)], secrets: &[&str]) -> Output {
        let output = Command::new(BIN)
            .args(["call", "echo", "{}", "--era", "legacy", "--json", "-v"])
            .args(["--url", &self.server.url])
            .args(extra)
            .envs(env.iter().copied())
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
                    && !out.contains(".eyJ")
                    && !secrets.iter().any(|secret| out.contains(secret)),
                "a token, proof or secret leaked:\n{out}"
            );
        }
        output
    }

    fn origin(&self) -> &str {
        self.server.url.strip_suffix("/mcp").unwrap()
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

/// Workload identity: the platform's JWT is the grant, no browser; the token it gets is bound
/// like any other, and a refused JWT ends the call with the error, not retried.
#[test]
fn a_workload_jwt_is_the_grant_for_a_bound_token_and_a_refusal_is_not_retried() {
    let peer = peer("workload");
    let jwt = "workload.claims.signature";
    let flags = [
        "--client-id",
        "ci-runner",
        "--workload-jwt",
        "env:SIGHTLINE_TEST_WORKLOAD",
    ];
    let output = peer.call_with(&flags, &[("SIGHTLINE_TEST_WORKLOAD", jwt)], &[jwt]);
    assert_eq!(class(&output), "success");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("with the workload's JWT from $SIGHTLINE_TEST_WORKLOAD"),
        "{stderr}"
    );
    let events = peer.events();
    let grants: Vec<&Value> = events
        .iter()
        .filter(|event| event["event"] == "token")
        .collect();
    // The grant once; the token it gave, used up, refreshed with the same key.
    assert_eq!(grants.len(), 2, "{events:#?}");
    assert!(
        grants[1]["grant"] == "refresh_token" && grants[1]["ok"] == true,
        "{events:#?}"
    );
    assert_eq!(
        grants[0]["grant"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(
        (&grants[0]["assertion"], &grants[0]["client_id"]),
        (&json!("workload"), &json!("ci-runner"))
    );
    let calls: Vec<&Value> = events
        .iter()
        .filter(|event| event["event"] == "mcp" && event["ok"] == true)
        .collect();
    assert!(
        !calls.is_empty() && calls.iter().all(|call| call["jkt"] == grants[0]["jkt"]),
        "{events:#?}"
    );

    let _ = std::fs::remove_file(&peer.log);
    let refused = "refused.claims.signature";
    let output = peer.call_with(&flags, &[("SIGHTLINE_TEST_WORKLOAD", refused)], &[refused]);
    assert_eq!(class(&output), "transport_failure");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let detail = json["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("the token request failed (HTTP 400 Bad Request: invalid_grant)"),
        "{detail}"
    );
    assert_eq!(
        tokens(&peer.events()),
        [(
            "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned(),
            false
        )]
    );
}

/// Cross-app access: the ID token exchanged at the IdP (authenticated there by HTTP Basic when
/// it has a secret, by its id in the form when not), for the authorization server's issuer and
/// the MCP resource; the ID-JAG then the grant, for a bound token.
#[test]
fn an_enterprise_id_token_is_exchanged_for_an_id_jag_that_is_the_grant() {
    let peer = peer("enterprise");
    let folder = std::env::temp_dir().join(format!("sightline-xaa-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let id_token = folder.join("id-token.jwt");
    std::fs::write(&id_token, "idtoken.claims.signature\n").unwrap();
    let endpoint = format!("{}/idp/token", peer.origin());
    let mut flags = vec![
        "--client-id",
        "mcp-client",
        "--client-secret",
        "mcp-s3cret",
        "--id-token",
        id_token.to_str().unwrap(),
        "--idp-token-endpoint",
        &endpoint,
        "--idp-client-id",
        "sightline-at-idp",
    ];
    let secrets = ["idtoken.claims", "jag.idtoken", "mcp-s3cret", "idp-s3cret"];
    let with_secret = peer.call_with(
        &[&flags[..], &["--idp-client-secret", "idp-s3cret"]].concat(),
        &[],
        &secrets,
    );
    assert_eq!(class(&with_secret), "success");
    let events = peer.events();
    let exchange = events
        .iter()
        .find(|event| event["event"] == "exchange")
        .unwrap();
    assert_eq!(exchange["basic"], json!(["sightline-at-idp", "idp-s3cret"]));
    assert_eq!(exchange["form_client_id"], Value::Null);
    assert_eq!(
        exchange["grant"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(
        exchange["subject_token_type"],
        "urn:ietf:params:oauth:token-type:id_token"
    );
    assert_eq!(
        exchange["requested_token_type"],
        "urn:ietf:params:oauth:token-type:id-jag"
    );
    assert_eq!(
        (&exchange["audience"], &exchange["resource"]),
        (&json!(peer.origin()), &json!(peer.server.url))
    );
    assert_eq!(exchange["subject"], "idtoken");
    let grant = events
        .iter()
        .find(|event| event["event"] == "token")
        .unwrap();
    assert_eq!(
        (&grant["assertion"], &grant["ok"]),
        (&json!("jag"), &json!(true)),
        "{events:#?}"
    );
    assert!(events.iter().any(|event| event["event"] == "mcp"
        && event["ok"] == true
        && event["jkt"] == grant["jkt"]));

    let _ = std::fs::remove_file(&peer.log);
    flags.push("--no-dpop");
    let without_secret = peer.call_with(&flags, &[], &secrets);
    // This authorization server binds every token: without a proof, the grant is refused.
    assert_eq!(class(&without_secret), "transport_failure");
    let events = peer.events();
    let exchange = events
        .iter()
        .find(|event| event["event"] == "exchange")
        .unwrap();
    assert_eq!(
        (&exchange["basic"], &exchange["form_client_id"]),
        (&Value::Null, &json!("sightline-at-idp"))
    );
    let _ = std::fs::remove_dir_all(folder);
}
