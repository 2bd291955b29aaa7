//! OAuth from a 401, with the real binary against `sightline demo-server --http --auth` (a
//! protected resource and its authorization server): discovery, dynamic registration, the
//! authorization code with PKCE through a stand-in browser (`tests/peers/browser.py`, given as
//! `$BROWSER`), the token, the request again. Every step is in the log; the token never is.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::process::{Command, Output};

use common::servers::Server;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");
const FUTURE: &str = r#"{"departureDate":"12/12/2099"}"#;

fn protected() -> Server {
    Server::start(BIN, &["demo-server", "--http", "127.0.0.1:0", "--auth"])
}

/// `sightline ARGS --url URL` with the stand-in browser (in `mode`), from the repository root.
fn run(args: &[&str], url: &str, mode: &str) -> Output {
    let output = Command::new(BIN)
        .args(args)
        .args(["--url", url])
        .env("BROWSER", "python3 tests/peers/browser.py")
        .env("BROWSER_MODE", mode)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    output
}

fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_401_runs_the_whole_flow_and_the_call_goes_through() {
    let server = protected();
    let output = run(
        &["call", "book_flight", FUTURE, "--json", "-v"],
        &server.url,
        "follow",
    );
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["outcome"]["class"], "success");
    // `call --json` carries the flow's steps.
    let auth = json["auth"].as_array().unwrap();
    assert_eq!(auth[0]["step"], "starting OAuth discovery");
    let token = auth
        .iter()
        .find(|step| {
            step["http"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/auth/token"))
        })
        .unwrap();
    assert_eq!(token["http"]["status"], 200);
    assert_eq!(
        auth.last().unwrap()["step"],
        "done; the request is sent again with the token"
    );
    // The steps, in the spec's order, each an HTTP entry of the log.
    let steps: Vec<&str> = stderr
        .lines()
        .filter_map(|line| line.split_once(" ⇄ ").map(|(_, step)| step))
        .collect();
    let expected = [
        "POST /mcp → 401 Unauthorized",
        "GET /.well-known/oauth-protected-resource/mcp → 200 OK",
        "GET /.well-known/oauth-authorization-server/auth → 200 OK",
        "POST /auth/register → 201",
        "POST /auth/token → 200 OK",
        "POST /mcp → 200 OK",
    ];
    assert!(steps.len() >= expected.len(), "{steps:?}");
    for (step, want) in steps.iter().zip(expected) {
        assert!(
            step.starts_with(want),
            "{step:?} should start {want:?}\n{stderr}"
        );
    }
    assert!(stderr.contains("authorization: open this URL to authorize: http://127.0.0.1:"));
    assert!(stderr.contains("code_challenge_method=S256"), "{stderr}");
    assert!(
        stderr.contains("resource=http%3A%2F%2F127.0.0.1%3A"),
        "{stderr}"
    );
    assert!(
        stderr.contains("&scope=flights"),
        "the challenge's scope: {stderr}"
    );
    // The token is sent (the call went through), and never shown.
    for out in [&stdout, &stderr] {
        assert!(!out.contains("demo-token-"), "a token leaked:\n{out}");
        assert!(
            !out.contains("demo-refresh-"),
            "a refresh token leaked:\n{out}"
        );
    }
}

#[test]
fn without_v_the_user_still_sees_the_url_and_the_steps() {
    let server = protected();
    let output = run(&["call", "book_flight", FUTURE], &server.url, "follow");
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("sightline: authorization: registered as client demo-client-"));
    assert!(stderr.contains("sightline: authorization: open this URL to authorize:"));
    assert!(
        stdout.contains("Booked: one seat departing 12/12/2099"),
        "{stdout}"
    );
}

#[test]
fn a_forged_state_is_refused_and_nothing_is_sent_with_it() {
    let server = protected();
    let output = run(
        &["call", "book_flight", FUTURE, "--json"],
        &server.url,
        "forge-state",
    );
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(4));
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let detail = json["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("the redirect's state does not match the one sent: refused"),
        "{detail}"
    );
    assert!(
        detail.starts_with("server/discover failed") || detail.contains("HTTP 401"),
        "{detail}"
    );
}

#[test]
fn a_recorded_session_keeps_no_token() {
    let server = protected();
    let path = std::env::temp_dir().join(format!("sightline-oauth-{}.jsonl", std::process::id()));
    let output = run(
        &[
            "--record",
            path.to_str().unwrap(),
            "call",
            "book_flight",
            FUTURE,
        ],
        &server.url,
        "follow",
    );
    let recorded = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        recorded.contains("/auth/token"),
        "the flow is in the transcript"
    );
    assert!(
        recorded.contains("Bearer ****"),
        "the token's header, masked"
    );
    assert!(
        !recorded.contains("demo-token-"),
        "a token in the transcript"
    );
}

/// A spent token is refreshed, and a 403 `insufficient_scope` asks once more for the scope it
/// names (with the scopes held): `cancel_booking` needs `bookings:cancel`, and each token of
/// this server is good for two requests.
#[test]
fn a_refused_token_is_refreshed_and_too_little_scope_is_stepped_up_once() {
    let server = Server::start(
        BIN,
        &[
            "demo-server",
            "--http",
            "127.0.0.1:0",
            "--auth",
            "--token-uses",
            "2",
        ],
    );
    let output = run(
        &[
            "call",
            "cancel_booking",
            r#"{"bookingRef":"SL-1A2B3C"}"#,
            "--json",
            "-v",
        ],
        &server.url,
        "follow",
    );
    let (stdout, stderr) = text(&output);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        json["outcome"]["class"], "tool_error",
        "the call went through: {json}"
    );
    let notes: Vec<&str> = stderr
        .lines()
        .filter_map(|line| line.split_once(" • authorization: ").map(|(_, note)| note))
        .collect();
    let refreshing = notes
        .iter()
        .position(|n| n.starts_with("the token was refused; refreshing it"));
    let stepping = notes.iter().position(|n| {
        n.starts_with(
            r#"the token's scope is not enough; asking again for "flights bookings:cancel""#,
        )
    });
    assert!(refreshing.is_some() && stepping.is_some(), "{notes:#?}");
    assert!(refreshing < stepping, "{notes:#?}");
    assert_eq!(
        notes
            .iter()
            .filter(|n| n.starts_with("starting OAuth discovery"))
            .count(),
        2,
        "the first authorization and one step-up: {notes:#?}"
    );
    for out in [&stdout, &stderr] {
        assert!(
            !out.contains("demo-token-") && !out.contains("demo-refresh-"),
            "{out}"
        );
    }
}

/// Each discovery path of the spec, against `tests/peers/oauth_server.py`: where the metadata
/// is (or is not), how the client is known, and what a client must refuse.
#[test]
fn every_discovery_path_is_walked_and_what_must_be_refused_is() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/oauth_server.py");
    let cases: [(&str, &[&str], &str, &str); 8] = [
        (
            "well-known",
            &[],
            "success",
            "GET /.well-known/oauth-protected-resource/mcp → 200",
        ),
        (
            "root-metadata",
            &[],
            "success",
            "GET /.well-known/oauth-protected-resource → 200",
        ),
        (
            "openid",
            &[],
            "success",
            "GET /.well-known/openid-configuration/tenant1 → 200",
        ),
        (
            "legacy",
            &[],
            "success",
            "using the 2025-03-26 default endpoints",
        ),
        (
            "preregistered",
            &["--client-id", "pre-client", "--client-secret", "pre-secret"],
            "success",
            "using the client given, pre-client",
        ),
        (
            "preregistered",
            &[],
            "transport_failure",
            "offers no dynamic registration; give a client with --client-id",
        ),
        (
            "no-s256",
            &[],
            "transport_failure",
            "does not offer PKCE S256, which MCP clients MUST refuse",
        ),
        (
            "wrong-resource",
            &[],
            "transport_failure",
            "is not for this server: refused (RFC 9728 §3.3)",
        ),
    ];
    for (mode, flags, class, said) in cases {
        let server = Server::start("python3", &[script, mode]);
        let mut args = vec!["call", "echo", "{}", "--era", "legacy", "--json", "-v"];
        args.extend_from_slice(flags);
        let output = run(&args, &server.url, "follow");
        let (stdout, stderr) = text(&output);
        let json: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json["outcome"]["class"], class, "{mode}: {json}");
        assert!(
            stderr.contains(said) || json["outcome"]["detail"].as_str().unwrap().contains(said),
            "{mode}: {said:?}\n{stderr}"
        );
        assert!(!stdout.contains("scripted-token-") && !stderr.contains("scripted-token-"));
    }
    let server = Server::start("python3", &[script, "no-challenge"]);
    let output = run(
        &["call", "echo", "{}", "--era", "legacy"],
        &server.url,
        "follow",
    );
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stderr.contains("⚑ auth.401-without-www-authenticate"),
        "{stderr}"
    );
}

/// `--token-cache`: the second run uses the kept token (no flow), the file is its owner's
/// only, and `auth logout` forgets it, so the next run authorizes again.
#[test]
fn a_token_cache_spares_the_flow_until_logout() {
    use std::os::unix::fs::PermissionsExt;
    let server = protected();
    let cache = std::env::temp_dir().join(format!("sightline-tokens-{}.json", std::process::id()));
    let cache_arg = cache.to_str().unwrap();
    let flows = |output: &Output| text(output).1.matches("starting OAuth discovery").count();
    let call = ["call", "book_flight", FUTURE, "--token-cache", cache_arg];
    let first = run(&call, &server.url, "follow");
    assert_eq!((first.status.code(), flows(&first)), (Some(0), 1));
    let mode = std::fs::metadata(&cache).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    let second = run(&call, &server.url, "follow");
    assert_eq!(
        (second.status.code(), flows(&second)),
        (Some(0), 0),
        "the kept token"
    );
    let logout = Command::new(BIN)
        .args([
            "auth",
            "logout",
            "--token-cache",
            cache_arg,
            "--url",
            &server.url,
        ])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&logout.stdout).starts_with("forgot 1 token for http://127.0.0.1:")
    );
    let third = run(&call, &server.url, "follow");
    std::fs::remove_file(&cache).unwrap();
    assert_eq!(
        (third.status.code(), flows(&third)),
        (Some(0), 1),
        "authorized again"
    );
}

/// `--client-credentials`: a machine client gets its token with its own credentials, no
/// browser; a wrong secret is the token endpoint's `invalid_client`, said.
#[test]
fn a_machine_client_needs_no_browser() {
    let server = protected();
    let machine = [
        "--client-id",
        "demo-machine",
        "--client-secret",
        "demo-machine-secret",
        "--client-credentials",
    ];
    let mut args = vec!["call", "book_flight", FUTURE];
    args.extend_from_slice(&machine);
    let output = run(&args, &server.url, "follow");
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("as the machine client demo-machine (client credentials)"));
    assert!(!stderr.contains("open this URL"), "no browser: {stderr}");
    let mut wrong: Vec<&str> = args.clone();
    let secret = wrong
        .iter()
        .position(|a| *a == "demo-machine-secret")
        .unwrap();
    wrong[secret] = "not-the-secret";
    wrong.push("--json");
    let output = run(&wrong, &server.url, "follow");
    let json: Value = serde_json::from_str(&text(&output).0).unwrap();
    let detail = json["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("the token request failed (HTTP 401 Unauthorized: invalid_client)"),
        "{detail}"
    );
}

/// The user's time in the browser is not the server's: a request being authorized is not
/// timed out by `--timeout` while the flow goes on.
#[test]
fn a_slow_login_does_not_time_the_request_out() {
    let server = protected();
    let args = [
        "call",
        "book_flight",
        FUTURE,
        "--timeout",
        "1",
        "--era",
        "legacy",
    ];
    let output = run(&args, &server.url, "slow");
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("Booked"), "{stdout}");
}

/// `--client-metadata-url`: where the authorization server takes Client ID Metadata Documents
/// the document's URL is the client id (no registration); where it does not, sightline
/// registers itself, and says so.
#[test]
fn a_client_metadata_document_stands_in_for_registration_where_taken() {
    let server = protected();
    let document = server.url.replace("/mcp", "/clients/sightline.json");
    let args = [
        "call",
        "book_flight",
        FUTURE,
        "-v",
        "--client-metadata-url",
        &document,
    ];
    let output = run(&args, &server.url, "follow");
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(&format!("the client is its metadata document, {document}")));
    assert!(
        !stderr.contains("/auth/register"),
        "no registration: {stderr}"
    );

    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/oauth_server.py");
    let scripted = Server::start("python3", &[script, "well-known"]);
    let args = [
        "call",
        "echo",
        "{}",
        "--era",
        "legacy",
        "--client-metadata-url",
        &document,
    ];
    let output = run(&args, &scripted.url, "follow");
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("takes no Client ID Metadata Documents; registering instead"));
}

/// Interop with an official SDK's own auth middleware: the Python SDK's server as a protected
/// resource (`tests/peers/py_auth_server.py`: its RFC 9728 metadata and 401, a token verifier
/// asking the demo's introspection endpoint), with the demo as its authorization server. The
/// flow goes to the Python server's metadata, then to the demo's issuer, and the token the demo
/// binds to the Python server's URL is taken there.
#[test]
fn the_python_sdks_auth_middleware_takes_a_token_of_the_authorization_server_it_names() {
    common::peers::require_installed("requirements.txt", ".venv/.installed-requirements.txt");
    let demo = protected();
    let issuer = demo.url.replace("/mcp", "/auth");
    let python = Server::start(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/.venv/bin/python"),
        &[
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_auth_server.py"),
            &issuer,
        ],
    );
    let output = run(
        &["call", "echo", r#"{"text":"hi"}"#, "--json", "-v"],
        &python.url,
        "follow",
    );
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["outcome"]["class"], "success", "{json}");
    assert_eq!(json["response"]["result"]["content"][0]["text"], "hi");
    // Each HTTP exchange of the log, with the server it went to: the Python server's 401 and
    // metadata, then the demo's authorization server, then the Python server again.
    let origin = |url: &str| url.trim_end_matches("/mcp").to_owned();
    let (python_origin, demo_origin) = (origin(&python.url), origin(&demo.url));
    let auth = json["auth"].as_array().unwrap();
    let urls: Vec<&str> = auth
        .iter()
        .filter_map(|step| step["http"]["url"].as_str())
        .collect();
    let expected = [
        format!("{python_origin}/.well-known/oauth-protected-resource/mcp"),
        format!("{demo_origin}/.well-known/oauth-authorization-server/auth"),
        format!("{demo_origin}/auth/register"),
        format!("{demo_origin}/auth/token"),
    ];
    assert_eq!(urls, expected, "{auth:#?}");
    let steps: Vec<&str> = stderr
        .lines()
        .filter_map(|line| line.split_once(" ⇄ ").map(|(_, step)| step))
        .collect();
    assert!(
        steps[0].starts_with("POST /mcp → 401 Unauthorized")
            && steps[0].contains(&format!(
                r#"resource_metadata="{python_origin}/.well-known/oauth-protected-resource/mcp""#
            )),
        "the SDK's challenge: {stderr}"
    );
    assert!(
        steps.last().unwrap().starts_with("POST /mcp → 200 OK"),
        "{steps:?}"
    );
    // The token was asked for the Python server, from the demo's authorization endpoint.
    let resource = format!(
        "resource={}",
        python.url.replace(':', "%3A").replace('/', "%2F")
    );
    assert!(
        stderr.contains(&format!(
            "open this URL to authorize: {demo_origin}/auth/authorize?"
        )) && stderr.contains(&resource),
        "{stderr}"
    );
    for out in [&stdout, &stderr] {
        assert!(
            !out.contains("demo-token-") && !out.contains("demo-refresh-"),
            "a token leaked:\n{out}"
        );
    }
}

/// `call echo` against `tests/peers/oauth_server.py` in `mode`: its JSON and its log.
fn scripted(mode: &str) -> (Value, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/oauth_server.py");
    let server = Server::start("python3", &[script, mode]);
    let args = ["call", "echo", "{}", "--era", "legacy", "--json", "-v"];
    let output = run(&args, &server.url, "follow");
    let (stdout, stderr) = text(&output);
    assert!(!stdout.contains("scripted-token-") && !stderr.contains("scripted-token-"));
    (serde_json::from_str(&stdout).unwrap(), stderr)
}

/// RFC 9207 §2.4 (SEP-2468): the redirect's `iss` is compared with the issuer the request
/// went to, byte for byte, before the code reaches the token endpoint; advertised support
/// makes a missing `iss` a refusal; a mismatched response's own error is not repeated. The
/// scripted server only registers native applications (SEP-837), so each flow also shows
/// the registration says so.
#[test]
fn the_redirects_issuer_is_checked_before_the_code_is_used() {
    for mode in ["iss-right", "well-known"] {
        let (json, stderr) = scripted(mode);
        assert_eq!(
            json["outcome"]["class"], "success",
            "{mode}: {json}\n{stderr}"
        );
    }
    let cases = [
        ("iss-missing", "the redirect carried no iss although"),
        ("iss-slash", "is not the issuer"),
        (
            "iss-unadvertised",
            r#"iss "http://evil.example" is not the issuer"#,
        ),
        (
            "iss-wrong-error",
            r#"iss "http://evil.example" is not the issuer"#,
        ),
    ];
    for (mode, said) in cases {
        let (json, stderr) = scripted(mode);
        assert_eq!(
            json["outcome"]["class"], "transport_failure",
            "{mode}: {json}"
        );
        let detail = json["outcome"]["detail"].as_str().unwrap();
        assert!(detail.contains(said), "{mode}: {detail}");
        assert!(detail.contains("RFC 9207 §2.4"), "{mode}: {detail}");
        assert!(
            !stderr.contains("POST /token"),
            "{mode}: the code was used\n{stderr}"
        );
        for out in [detail, stderr.as_str()] {
            assert!(
                !out.contains("access_denied") && !out.contains("555 0100"),
                "{mode}: an unverified error was repeated: {out}"
            );
        }
    }
}

/// RFC 8414 §3.3: metadata naming an issuer other than the one its URL was built from is not
/// used: nothing is sent to its endpoints.
#[test]
fn metadata_of_another_issuer_is_refused_and_its_endpoints_left_alone() {
    let (json, stderr) = scripted("issuer-mismatch");
    assert_eq!(json["outcome"]["class"], "transport_failure", "{json}");
    let detail = json["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains(
            r#"names the issuer Some("http://attacker.example"), not "http://127.0.0.1:"#
        ) && detail.contains("refused, none of its endpoints used (RFC 8414 §3.3)"),
        "{detail}"
    );
    for endpoint in ["/register", "/authorize", "/token"] {
        assert!(!stderr.contains(endpoint), "{endpoint} was used:\n{stderr}");
    }
}

/// RFC 9728 §3.3: metadata at the origin's well-known URI may name the origin as its
/// resource; it is taken, and the `resource` asked for is the one it published.
#[test]
fn metadata_at_the_origin_may_name_the_origin() {
    let (json, stderr) = scripted("origin-resource");
    assert_eq!(json["outcome"]["class"], "success", "{json}\n{stderr}");
    assert!(
        stderr.contains("GET /.well-known/oauth-protected-resource → 200"),
        "{stderr}"
    );
    assert!(!stderr.contains("auth.resource-mismatch"), "{stderr}");
}

/// A 403 `insufficient_scope` authorizes again for the wider scope with the client already
/// registered (at the redirect URI it was registered with), in either era.
#[test]
fn a_step_up_reuses_the_registered_client() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/oauth_server.py");
    for era in ["legacy", "auto"] {
        let server = Server::start("python3", &[script, "step-up"]);
        let args = ["call", "echo", "{}", "--era", era, "--json", "-v"];
        let output = run(&args, &server.url, "follow");
        let (stdout, stderr) = text(&output);
        let json: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            json["outcome"]["class"], "success",
            "{era}: {json}\n{stderr}"
        );
        assert_eq!(
            stderr.matches("POST /register").count(),
            1,
            "{era}: {stderr}"
        );
        assert_eq!(
            stderr.matches("open this URL to authorize").count(),
            2,
            "{era}: {stderr}"
        );
        assert!(
            stderr.contains(r#"asking again for "write""#)
                && stderr
                    .contains("asking the same authorization server again, as the client dyn-"),
            "{era}: {stderr}"
        );
    }
}

/// A PEM file (mode 0600) of a fresh EC P-256 key, PKCS#8, as `openssl genpkey` writes one.
fn client_key_file(name: &str) -> std::path::PathBuf {
    use base64::Engine;
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let rng = ring::rand::SystemRandom::new();
    let der = ring::signature::EcdsaKeyPair::generate_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &rng,
    )
    .unwrap();
    let body = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
    let path = std::env::temp_dir().join(format!("sightline-{name}-{}.pem", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .unwrap();
    write!(
        file,
        "-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"
    )
    .unwrap();
    path
}

/// `--client-key`: a machine client authenticates with a `private_key_jwt` assertion (RFC
/// 7523) where the authorization server lists that method and ES256; where it does not, a
/// secret given too is used instead, and without one nothing reaches the token endpoint.
/// Neither the key nor the assertion is ever in the output.
#[test]
fn a_machine_client_signs_its_assertion_with_its_key() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/oauth_server.py");
    let key = client_key_file("client-key");
    let pem = std::fs::read_to_string(&key).unwrap();
    let secret_body = pem.lines().nth(1).unwrap();
    let key_arg = key.to_str().unwrap();
    let machine = [
        "--client-id",
        "jwt-client",
        "--client-credentials",
        "--client-key",
        key_arg,
    ];
    let call = |mode: &str, extra: &[&str]| {
        let server = Server::start("python3", &[script, mode]);
        let mut args = vec!["call", "echo", "{}", "--era", "legacy", "--json", "-v"];
        args.extend_from_slice(&machine);
        args.extend_from_slice(extra);
        let output = run(&args, &server.url, "follow");
        let (stdout, stderr) = text(&output);
        for out in [&stdout, &stderr] {
            assert!(!out.contains(&secret_body[..24]), "the key leaked:\n{out}");
            // An assertion's header, base64url: `{"alg":"ES256",…`.
            assert!(
                !out.contains("eyJhbGciOiJFUzI1NiIs"),
                "an assertion leaked:\n{out}"
            );
            assert!(!out.contains("scripted-token-"), "a token leaked:\n{out}");
        }
        let json: Value = serde_json::from_str(&stdout).unwrap();
        (json, stderr)
    };

    // Twice: a fresh assertion (a new jti) each time.
    for _ in 0..2 {
        let (json, stderr) = call("jwt", &[]);
        assert_eq!(json["outcome"]["class"], "success", "{json}\n{stderr}");
        assert!(
            stderr.contains("authenticating as jwt-client with a private_key_jwt assertion (ES256, audience http://127.0.0.1:"),
            "{stderr}"
        );
        assert!(!stderr.contains("open this URL"), "no browser: {stderr}");
    }

    // Assertions signed RS256 only: refused before the token endpoint, said why.
    let (json, stderr) = call("jwt-rs256", &[]);
    assert_eq!(json["outcome"]["class"], "transport_failure", "{json}");
    let detail = json["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("does not take the client key: its token_endpoint_auth_signing_alg_values_supported (RS256) does not list ES256")
            && detail.contains("no token request sent"),
        "{detail}"
    );
    assert!(!stderr.contains("POST /token"), "{stderr}");
    // With the secret too, the secret is used, and the log says why the key was not.
    let (json, stderr) = call("jwt-rs256", &["--client-secret", "jwt-secret"]);
    assert_eq!(json["outcome"]["class"], "success", "{json}\n{stderr}");
    assert!(
        stderr.contains("the client key is not used (its token_endpoint_auth_signing_alg_values_supported (RS256) does not list ES256"),
        "{stderr}"
    );

    // A server that lists no private_key_jwt (client_secret_basic only): refused, unsent.
    let server = Server::start("python3", &[script, "preregistered"]);
    let args = ["call", "echo", "{}", "--era", "legacy", "--json"];
    let mut args = args.to_vec();
    args.extend_from_slice(&machine);
    let output = run(&args, &server.url, "follow");
    let json: Value = serde_json::from_str(&text(&output).0).unwrap();
    let detail = json["outcome"]["detail"].as_str().unwrap();
    assert!(
        detail.contains(
            "its token_endpoint_auth_methods_supported (client_secret_basic) does not list private_key_jwt"
        ),
        "{detail}"
    );
    std::fs::remove_file(&key).unwrap();
}

/// A key sightline cannot sign with is said at once, as a usage error naming the option, before
/// any request: here a SEC 1 EC key, and a file that is not there.
#[test]
fn an_unusable_client_key_is_a_usage_error() {
    let sec1 = std::env::temp_dir().join(format!("sightline-sec1-{}.pem", std::process::id()));
    std::fs::write(
        &sec1,
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n",
    )
    .unwrap();
    let missing = std::env::temp_dir().join("sightline-no-such-key.pem");
    for (path, said) in [
        (
            &sec1,
            "a SEC 1 EC key (BEGIN EC PRIVATE KEY): convert it to PKCS#8",
        ),
        (&missing, "cannot read"),
    ] {
        let args = [
            "tools",
            "--client-id",
            "c",
            "--client-credentials",
            "--client-key",
            path.to_str().unwrap(),
        ];
        let output = run(&args, "http://127.0.0.1:9/mcp", "follow");
        let stderr = text(&output).1;
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--client-key") && stderr.contains(said),
            "{stderr}"
        );
    }
    std::fs::remove_file(&sec1).unwrap();
    // --client-credentials still needs a secret or a key.
    let output = run(
        &["tools", "--client-id", "c", "--client-credentials"],
        "http://127.0.0.1:9/mcp",
        "follow",
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output).1);
}
