//! The TUI's `K` as a user meets it: a call made by hand becomes a case of the `--test-file`,
//! which `sightline test` then runs: it passes against the server the call was made to and
//! fails against the other style. The real binary in tmux, driven by keystrokes.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

mod common;

use std::process::Command;

use common::tmux::*;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

#[test]
fn k_adds_the_selected_call_to_the_test_file_which_sightline_test_runs() {
    let file = std::env::temp_dir().join(format!("sightline-k-{}.toml", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let path = file.to_str().unwrap();
    let tmux = Tmux::start_sized(&["--demo", "legacy", "--test-file", path], 80, 24);
    tmux.wait_for_demo_server();
    // Without a call there is nothing to add: it says so.
    tmux.keys(&["K"]);
    tmux.wait_for("select a tools/call");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Editing · book_flight");
    tmux.type_text("12/12/2024");
    tmux.keys(&["C-s"]);
    tmux.wait_for("⚑ ← #3 protocol error");
    tmux.keys(&["Escape"]);
    tmux.wait_for("Request · book_flight");
    tmux.keys(&["K"]);
    tmux.wait_for("case added to");
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0);

    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("[server]\ndemo = \"legacy\""), "{text}");
    assert!(text.contains("class = \"protocol_error\""), "{text}");
    let run = |extra: &[&str]| {
        let output = Command::new(BIN)
            .arg("test")
            .arg(path)
            .args(extra)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (code, out) = run(&[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
    let (code, out) = run(&["--demo", "sep1303"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("class: expected protocol_error, got tool_error"),
        "{out}"
    );
    let _ = std::fs::remove_file(&file);
}
