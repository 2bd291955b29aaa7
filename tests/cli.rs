//! The command line as a newcomer meets it: a mistake gets clap's words and, where one helps, a
//! hint; `--help` and `--version` are not errors.

#![allow(clippy::unwrap_used)]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

#[test]
fn a_server_command_without_dashes_gets_the_hint_to_put_them_before_it() {
    for args in [
        &["node", "server.mjs"][..],
        &["call", "echo", "{}", "node", "x.js"],
    ] {
        let output = Command::new(BIN).args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("unexpected argument 'node'"), "{stderr}");
        assert!(
            stderr.contains("goes after `--`") && stderr.contains("-- node …"),
            "{stderr}"
        );
    }
    let output = Command::new(BIN).arg("--bogus").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("goes after `--`"));
}

#[test]
fn a_misspelt_command_gets_the_command_it_is_near() {
    for (word, command) in [("cal", "call"), ("audti", "audit"), ("captrue", "capture")] {
        let output = Command::new(BIN)
            .args([word, "book_flight"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{word}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("a similar subcommand exists: '{command}'")),
            "{stderr}"
        );
        assert!(!stderr.contains("goes after `--`"), "{stderr}");
    }
}

#[test]
fn help_and_version_exit_zero_on_stdout() {
    for flag in ["--help", "--version"] {
        let output = Command::new(BIN).arg(flag).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{flag}");
        assert!(!output.stdout.is_empty(), "{flag}");
    }
}

/// Every URL sightline cannot reach is a usage error, found before anything runs: a scheme
/// other than http(s) as much as text that is no URL.
#[test]
fn a_url_of_another_scheme_is_a_usage_error_like_any_bad_url() {
    for url in ["notaurl", "ftp://example.com/mcp", "file:///tmp/x"] {
        for command in [&["tools"][..], &["call", "echo"]] {
            let output = Command::new(BIN)
                .args(command)
                .args(["--url", url])
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(2), "{command:?} --url {url}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains("is not a URL sightline can reach"),
                "{stderr}"
            );
        }
    }
}

/// The enterprise and workload grants and DPoP need what they name, said before anything
/// runs: a grant without its client, an ID token without its IdP, a key that is no key.
#[test]
fn enterprise_and_workload_flags_missing_their_part_are_usage_errors() {
    let url = ["tools", "--url", "http://127.0.0.1:9/mcp"];
    for (flags, said) in [
        (&["--workload-jwt", "env:JWT"][..], "--client-id"),
        (
            &["--client-id", "a", "--id-token", "f"],
            "--idp-token-endpoint",
        ),
        (
            &[
                "--client-id",
                "a",
                "--id-token",
                "f",
                "--idp-client-id",
                "b",
                "--idp-token-endpoint",
                "ftp://idp/token",
            ],
            "an http or https URL",
        ),
        (
            &["--client-id", "a", "--workload-jwt", "env:"],
            "env: needs a variable's name",
        ),
        (&["--dpop-key", "Cargo.toml"], "no PEM block"),
        (
            &[
                "--client-id",
                "a",
                "--client-secret",
                "s",
                "--client-credentials",
                "--workload-jwt",
                "f",
            ],
            "cannot be used with",
        ),
    ] {
        let output = Command::new(BIN).args(url).args(flags).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(said), "{flags:?}: {stderr}");
    }
}

/// `man --dir DIR` writes every page the pages name (`sightline-audit(1)`, …), each with its
/// command's options; `man` and `completions` offer no `--record` or `--no-redact`, which mean
/// nothing there.
#[test]
fn man_dir_writes_every_page_the_pages_name() {
    let dir = std::env::temp_dir().join(format!("sightline-man-{}", std::process::id()));
    let output = Command::new(BIN)
        .args(["man", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let written = String::from_utf8(output.stdout).unwrap();
    assert!(written.lines().count() > 20, "{written}");
    let mut named = Vec::new();
    for page in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(page.unwrap().path()).unwrap();
        for line in text.lines() {
            if let Some(name) = line.strip_suffix("(1)") {
                named.push(name.replace("\\-", "-"));
            }
        }
    }
    assert!(named.contains(&"sightline-audit".to_owned()), "{named:?}");
    for name in &named {
        assert!(
            dir.join(format!("{name}.1")).is_file(),
            "{name}(1) is named but not written"
        );
    }
    let audit = std::fs::read_to_string(dir.join("sightline-audit.1")).unwrap();
    assert!(
        audit.contains("\\-\\-sarif"),
        "the audit's page has its options"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    for command in [&["man", "--help"][..], &["completions", "--help"]] {
        let help = Command::new(BIN).args(command).output().unwrap();
        let help = String::from_utf8(help.stdout).unwrap();
        assert!(help.contains("Usage: sightline"), "{help}");
        assert!(
            !help.contains("--record") && !help.contains("--no-redact"),
            "{command:?}: {help}"
        );
    }
    let call = Command::new(BIN).args(["call", "--help"]).output().unwrap();
    assert!(String::from_utf8(call.stdout).unwrap().contains("--record"));
}

/// `sightline keys`: every command with its keys as a keys file binds them, and every entry the
/// file could not take, each named, with the nearest command; exit 1 then, 0 without a file.
#[test]
fn keys_lists_every_command_and_every_problem_of_the_keys_file() {
    let dir = std::env::temp_dir().join(format!("sightline-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("keys.toml");
    std::fs::write(
        &file,
        "[browsing]\nquit = \"Q\"\nopen_editr = \"e\"\nfocus_next = \"Ctrl-Nope\"\n",
    )
    .unwrap();
    let output = Command::new(BIN)
        .args(["keys", "--keys"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("browsing Q"), "{text}");
    assert!(text.contains("2 problems with the keys file:"), "{text}");
    assert!(text.contains("did you mean 'open_editor'?"), "{text}");
    assert!(text.contains("unknown key 'Ctrl-Nope'"), "{text}");
    let output = Command::new(BIN)
        .args(["keys", "--json"])
        .env("XDG_CONFIG_HOME", dir.join("none"))
        .env("HOME", dir.join("none"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let commands = json["commands"].as_array().unwrap();
    assert_eq!(
        commands.len(),
        sightline::app::action::Command::all().count(),
        "every command"
    );
    let chat = commands
        .iter()
        .find(|row| row["command"] == "open_chat")
        .unwrap();
    assert_eq!(chat["keys"], serde_json::json!(["browsing c"]));
    assert_eq!(json["problems"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}
