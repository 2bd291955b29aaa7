//! What a newcomer tripped on in the TUI, by the real binary in tmux: configuration errors before the terminal is touched, exit codes on signals, a replayed call's request, `J`'s file replayed, each frame one synchronized update.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::tmux::*;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// A fresh path in the temp dir, removed on drop (a directory too).
struct Temp(PathBuf);

impl Temp {
    fn file(name: &str, text: &str) -> Self {
        let path = std::env::temp_dir().join(format!("sightline-tn-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        Self(path)
    }

    fn dir(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("sightline-tn-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}.jsonl", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_configuration_error_is_exit_2_with_the_headless_message_and_no_screen() {
    let one = Temp::file(
        "one.json",
        r#"{"mcpServers": {"demo": {"command": "sightline", "args": ["demo-server"]}}}"#,
    );
    let comma = Temp::file(
        "comma.json",
        r#"{"mcpServers": {"demo": {"command": "sightline"},}}"#,
    );
    let unset = Temp::file(
        "unset.json",
        r#"{"mcpServers": {"demo": {"command": "sightline", "args": ["${SIGHTLINE_TN_UNSET}"]}}}"#,
    );
    // Root reads any file: a directory is what cannot be read as one.
    let unreadable = Temp::dir("unreadable.json");
    let cases: [(&[&str], &str); 4] = [
        (&["--config", one.path(), "--server", "nope"], "nope"),
        (&["--config", comma.path()], comma.path()),
        (&["--config", unset.path()], "SIGHTLINE_TN_UNSET"),
        (&["--config", unreadable.path()], unreadable.path()),
    ];
    for (args, named) in cases {
        let headless = Command::new(BIN).arg("tools").args(args).output().unwrap();
        assert_eq!(headless.status.code(), Some(2), "{args:?}");
        let said = String::from_utf8_lossy(&headless.stderr);
        let said = said.lines().next().unwrap().to_owned();
        assert!(said.contains(named), "{args:?}: {said}");
        for (width, height) in [(80, 24), (120, 40)] {
            let tmux = Tmux::start_sized(args, width, height);
            assert_eq!(tmux.wait_for_exit(), 2, "{args:?}");
            let screen = tmux.screen();
            // The pane wraps long lines: compare without the breaks.
            let flat: String = screen.lines().collect();
            let said_flat: String = said.split_whitespace().collect();
            assert!(
                flat.split_whitespace()
                    .collect::<String>()
                    .contains(&said_flat),
                "{args:?}: the headless message {said:?} on the screen:\n{screen}"
            );
            assert!(!screen.contains("not connected"), "{screen}");
        }
    }
}

#[test]
fn without_a_terminal_the_tui_says_it_needs_one_and_names_the_headless_commands() {
    for args in [&[][..], &["replay", &fixture("legacy_protocol_error")]] {
        let output = Command::new(BIN)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("the TUI needs a terminal"), "{stderr}");
        assert!(stderr.contains("tools, call"), "{stderr}");
        assert!(!stderr.contains("os error"), "{stderr}");
    }
}

#[test]
fn sigterm_and_sigint_end_the_tui_with_128_plus_the_signal_and_the_terminal_restored() {
    for (signal, code) in [(Signal::SIGTERM, 143), (Signal::SIGINT, 130)] {
        let tmux = Tmux::start_sized(&[], 80, 24);
        tmux.wait_for_demo_server();
        let sightline = tmux.sightline_pid();
        kill(Pid::from_raw(i32::try_from(sightline).unwrap()), signal).unwrap();
        assert_eq!(tmux.wait_for_exit(), code, "{signal}");
    }
}

#[test]
fn a_replayed_call_shows_its_recorded_arguments_in_the_request_pane() {
    for (width, height) in [(80, 24), (120, 40)] {
        let tmux = Tmux::start_sized(
            &["replay", &fixture("legacy_protocol_error")],
            width,
            height,
        );
        let screen = tmux.wait_for("protocol error");
        assert!(
            screen.contains(r#""departureDate": "12/12/2024"#),
            "the recorded arguments, not the skeleton:\n{screen}"
        );
        tmux.keys(&["q"]);
        assert_eq!(tmux.wait_for_exit(), 0);
    }
}

#[test]
fn a_call_saved_as_json_opens_in_replay_as_its_transcript_would_show_it() {
    let saved = Command::new(BIN)
        .args([
            "call",
            "book_flight",
            r#"{"departureDate":"12/12/2024"}"#,
            "--demo",
            "legacy",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(saved.status.code(), Some(3));
    let file = Temp::file(
        "book_flight-3.json",
        &String::from_utf8_lossy(&saved.stdout),
    );
    for (width, height) in [(80, 24), (120, 40)] {
        let tmux = Tmux::start_sized(&["replay", file.path()], width, height);
        let screen = tmux.wait_for("protocol error");
        assert!(screen.contains("-32602"), "{screen}");
        assert!(
            screen.contains(r#""departureDate": "12/12/2024"#),
            "the call's arguments in the Request pane:\n{screen}"
        );
        assert!(!screen.contains("not a sightline transcript"), "{screen}");
        tmux.keys(&["q"]);
        assert_eq!(tmux.wait_for_exit(), 0);
    }
}

#[test]
fn every_frame_reaches_the_terminal_as_one_synchronized_update() {
    const BEGIN: &[u8] = b"\x1b[?2026h";
    const END: &[u8] = b"\x1b[?2026l";
    let raw = Temp::file("frames.raw", "");
    let tmux = Tmux::start(&[]);
    tmux.pipe_output(raw.path());
    tmux.wait_for_demo_server();
    // Moving in the Tools pane redraws it and the Request pane.
    tmux.keys(&["Down"]);
    tmux.wait_for("Request · get_flight_status");
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0);
    let bytes = std::fs::read(raw.path()).unwrap();
    let marks: Vec<bool> = bytes
        .windows(BEGIN.len())
        .filter_map(|window| match window {
            w if w == BEGIN => Some(true),
            w if w == END => Some(false),
            _ => None,
        })
        .collect();
    let frames = marks.iter().filter(|begin| **begin).count();
    assert!(
        frames >= 1,
        "no synchronized frame in {} bytes",
        bytes.len()
    );
    // Each frame's update is ended before the next begins (the exit ends one more, for a draw
    // a panic would have cut short).
    assert!(
        !marks.windows(2).any(|pair| pair == [true, true]),
        "a frame began inside another: {marks:?}"
    );
    assert_eq!(
        marks.last(),
        Some(&false),
        "the exit ends any update left open"
    );
}

/// A panic in the middle of a draw (debug builds panic where told to): the terminal comes back
/// as it was, the panic's message is on the main screen, and nothing of the frame it cut short
/// is written after the restoration (no synchronized update left open).
#[test]
fn a_panic_inside_a_draw_leaves_the_terminal_restored() {
    const AT_DRAW: &str = "30";
    let raw = Temp::file("panic.raw", "");
    let tmux = Tmux::start_with_env(
        &[],
        120,
        40,
        None,
        // No backtrace: the message stays on the 40 rows.
        &[
            ("SIGHTLINE_DEBUG_PANIC_AT_DRAW", AT_DRAW),
            ("RUST_BACKTRACE", "0"),
        ],
    );
    tmux.pipe_output(raw.path());
    tmux.wait_for_demo_server();
    // Each key is a draw (Tab moves the focus, so each changes the screen), until the one that
    // panics; none is sent once the terminal is back, where the shell would echo it.
    for _ in 0..60 {
        let before = tmux.screen();
        tmux.keys(&["Tab"]);
        let restored = tmux.wait_until("the key's draw, or the panic", |screen| {
            screen != before || tmux.display("#{alternate_on}") == "0"
        });
        if tmux.display("#{alternate_on}") == "0" || restored.contains("EXITED ") {
            break;
        }
    }
    assert_eq!(tmux.wait_for_exit(), 101, "a panic's exit code");
    let screen = tmux.screen();
    assert!(
        screen.contains("asked for by SIGHTLINE_DEBUG_PANIC_AT_DRAW"),
        "the panic's message, readable:\n{screen}"
    );
    let bytes = std::fs::read(raw.path()).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let left = text
        .rfind("\x1b[?1049l")
        .expect("the alternate screen left");
    assert!(
        !text[left..].contains("\x1b[?2026h"),
        "a synchronized update begun after the restoration: {:?}",
        &text[left..]
    );
}
