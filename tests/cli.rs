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
fn help_and_version_exit_zero_on_stdout() {
    for flag in ["--help", "--version"] {
        let output = Command::new(BIN).arg(flag).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{flag}");
        assert!(!output.stdout.is_empty(), "{flag}");
    }
}
