//! Several servers in one TUI, driven in tmux as a user would: a config of three real servers (one killed while the others go on), the SEP-1303 pair side by side, a broken entry beside a working one.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::PathBuf;

use common::peers::{everything, py};
use common::tmux::{BIN, TIMEOUT, Tmux, assert_ends, process, status_bar};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A config file of these `mcpServers` entries, in a directory of its own.
fn config(name: &str, servers: &serde_json::Value) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("sightline-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    let text = serde_json::json!({ "mcpServers": servers }).to_string();
    std::fs::write(&file, text).unwrap();
    let path = file.to_string_lossy().into_owned();
    (dir, path)
}

/// The first line of the screen: the server bar.
fn bar(screen: &str) -> &str {
    screen.lines().next().unwrap_or_default()
}

/// `Esc` out of the editor, waiting for it: a key sent right after an `Esc` would arrive as an
/// Alt chord.
fn stop_editing(tmux: &Tmux) {
    tmux.wait_for("Editing ·");
    tmux.keys(&["Escape"]);
    tmux.wait_until("the editing mode to end", |screen| {
        !screen.contains("Editing ·") && !status_bar(screen).contains("EDITING")
    });
}

/// A live child of `parent` whose command line contains `needle`.
fn child_running(parent: u32, needle: &str) -> u32 {
    let start = std::time::Instant::now();
    while start.elapsed() < TIMEOUT {
        let found = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .find(|&pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                process(pid).is_some_and(|(state, ppid, _)| ppid == parent && state != 'Z')
                    && String::from_utf8_lossy(&cmdline).contains(needle)
            });
        if let Some(pid) = found {
            return pid;
        }
        std::thread::sleep(common::tmux::POLL);
    }
    panic!("no child of {parent} running {needle}");
}

/// The demo, server-everything and the Python SDK server from one config: all three open; the
/// Python server killed shows as ended, and the other two still list their tools and answer.
#[test]
fn a_config_of_three_servers_opens_all_and_one_dying_leaves_the_others_working() {
    let everything = everything();
    let python = py();
    let absolute = |relative: &str| format!("{ROOT}/{relative}");
    let (dir, file) = config(
        "three",
        &serde_json::json!({
            "demo": {"command": BIN, "args": ["demo-server"]},
            "everything": {"command": everything[0], "args": [absolute(&everything[1]), "stdio"]},
            "python": {"command": absolute(&python[0]), "args": [absolute(&python[1])]},
        }),
    );
    let tmux = Tmux::start_sized(&["--config", &file], 120, 40);
    let screen = tmux.wait_until("three servers ready, the demo's tools listed", |screen| {
        bar(screen).matches("ready").count() == 3 && screen.contains("Tools (10)")
    });
    assert!(bar(&screen).contains("1 demo ready · modern"), "{screen}");
    assert!(
        screen.contains("Tools (10)"),
        "the demo is shown first:\n{screen}"
    );
    assert!(status_bar(&screen).contains("▸ demo"), "{screen}");

    let sightline = tmux.sightline_pid();
    let server = child_running(sightline, "py_server.py");
    let demo = child_running(sightline, "demo-server");
    let node = child_running(sightline, "server-everything");
    std::process::Command::new("kill")
        .args(["-9", &server.to_string()])
        .status()
        .unwrap();
    let screen = tmux.wait_until("python shown ended", |screen| {
        bar(screen).contains("3 python ended")
    });
    assert!(
        bar(&screen).contains("1 demo ready") && bar(&screen).contains("2 everything ready"),
        "the others are untouched:\n{screen}"
    );

    // The demo still answers a call.
    tmux.keys(&["Enter"]);
    tmux.type_text("12/12/2024");
    tmux.wait_for("12/12/2024");
    tmux.keys(&["C-s"]);
    tmux.wait_for("← #3 tool error");

    // server-everything still lists its tools and answers one (its echo).
    stop_editing(&tmux);
    tmux.keys(&["]"]);
    let screen = tmux.wait_for("▸ everything");
    assert!(
        !screen.contains("Tools (10)"),
        "everything's own list:\n{screen}"
    );
    assert!(screen.contains("echo"), "{screen}");
    let rows = screen
        .lines()
        .position(|line| line.contains("echo"))
        .unwrap();
    let tools_top = screen
        .lines()
        .position(|line| line.contains(" Tools ("))
        .unwrap();
    for _ in 0..(rows - tools_top - 1) {
        tmux.keys(&["Down"]);
    }
    tmux.keys(&["Enter"]);
    tmux.type_text("hello");
    tmux.wait_for("hello");
    tmux.keys(&["C-s"]);
    tmux.wait_for("echo success");

    // The python server shown: it says what happened to it.
    stop_editing(&tmux);
    tmux.keys(&["]"]);
    let screen = tmux.wait_for("▸ python");
    assert!(status_bar(&screen).contains("disconnected"), "{screen}");
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0);
    // Quitting shut every server down.
    assert_ends(demo, "the demo server");
    assert_ends(node, "server-everything");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--demo legacy --demo sep1303`, `book_flight` with a past date, `B`: a protocol error
/// (-32602, not forwarded, ⚑) beside a tool error (forwarded: the model reads the message).
#[test]
fn the_sep1303_pair_side_by_side_at_both_sizes() {
    for (width, height) in [(80, 24), (120, 40)] {
        let tmux = Tmux::start_sized(&["--demo", "legacy", "--demo", "sep1303"], width, height);
        tmux.wait_until("both demos ready, the shown one's tools listed", |screen| {
            bar(screen).matches("ready").count() == 2 && screen.contains("Tools (10)")
        });
        tmux.keys(&["Enter"]);
        tmux.type_text("12/12/2024");
        tmux.wait_for("12/12/2024");
        stop_editing(&tmux);
        tmux.keys(&["B"]);
        let screen = tmux.wait_until("both answers", |screen| {
            screen.contains("Side by side") && !screen.contains("pending")
        });
        assert!(screen.contains("⚑ protocol error · -32602"), "{screen}");
        assert!(screen.contains("tool error"), "{screen}");
        assert!(screen.contains("not forwarded"), "{screen}");
        assert!(screen.contains("the model: forwarded"), "{screen}");
        assert!(
            screen.contains("Invalid departure date"),
            "the tool error's text:\n{screen}"
        );
        if width == 80 {
            // The legacy column is cut at 80×24: End scrolls to its last row.
            assert!(screen.contains("more ┘"), "{screen}");
            tmux.keys(&["End"]);
            let screen = tmux.wait_for("above ┘");
            assert!(screen.contains("not why"), "its last row:\n{screen}");
        }
        tmux.keys(&["Escape"]);
        let screen = tmux.wait_until("the comparison closed", |screen| {
            !screen.contains("Side by side")
        });
        assert!(
            screen.contains("protocol error"),
            "legacy's own log:\n{screen}"
        );
        tmux.keys(&["B"]);
        tmux.wait_for("Side by side");
        tmux.keys(&["Escape"]);
        tmux.wait_until("the comparison closed", |screen| {
            !screen.contains("Side by side")
        });
        tmux.keys(&["q"]);
        assert_eq!(tmux.wait_for_exit(), 0);
    }
}

/// A click on a server's entry in the bar shows that server, at both sizes (at 80 columns the
/// entries are shortened, and the click lands where they are drawn).
#[test]
fn a_click_on_the_bar_shows_that_server() {
    for (width, height) in [(80, 24), (120, 40)] {
        let tmux = Tmux::start_sized(&["--demo", "legacy", "--demo", "sep1303"], width, height);
        let screen = tmux.wait_until("both demos ready, the shown one's tools listed", |screen| {
            bar(screen).matches("ready").count() == 2 && screen.contains("Tools (10)")
        });
        assert!(status_bar(&screen).contains("▸ legacy"), "{screen}");
        // The second entry begins after the first one's separator.
        let column = bar(&screen).find(" 2 sep1303").unwrap();
        let column = u16::try_from(bar(&screen)[..column].chars().count()).unwrap() + 2;
        tmux.click(column, 0);
        let screen = tmux.wait_until("the second server shown", |screen| {
            status_bar(screen).contains("▸ sep1303")
        });
        assert!(screen.contains("server sep1303: ready"), "{screen}");
        tmux.click(1, 0);
        tmux.wait_until("the first server shown again", |screen| {
            status_bar(screen).contains("▸ legacy")
        });
        tmux.keys(&["q"]);
        assert_eq!(tmux.wait_for_exit(), 0);
    }
}

/// A config with an entry that cannot work beside one that does: the broken one shows failed
/// and why, the other connects and answers.
#[test]
fn a_broken_entry_fails_beside_a_working_one() {
    let (dir, file) = config(
        "broken",
        &serde_json::json!({
            "broken": {"type": "ws"},
            "missing": {"command": "/nonexistent/server"},
            "needs-var": {"url": "http://127.0.0.1:1/${SIGHTLINE_TEST_NEVER_SET}"},
            "legacy-demo": {"command": BIN, "args": ["demo-server", "--style", "legacy"]},
        }),
    );
    let tmux = Tmux::start_sized(&["--config", &file], 80, 24);
    let screen = tmux.wait_until("the demo ready", |screen| {
        bar(screen).contains("4 legacy-… ✓")
    });
    assert!(bar(&screen).contains("1 broken failed"), "{screen}");
    assert!(
        screen.contains("unknown type 'ws'"),
        "the shown server says why:\n{screen}"
    );
    tmux.keys(&["]"]);
    let screen = tmux.wait_for("▸ missing");
    assert!(bar(&screen).contains("failed: "), "{screen}");
    tmux.keys(&["]"]);
    let screen = tmux.wait_for("▸ needs-var");
    assert!(
        screen.contains("SIGHTLINE_TEST_NEVER_SET"),
        "why it failed:\n{screen}"
    );
    tmux.keys(&["]"]);
    let screen = tmux.wait_for("▸ legacy-demo");
    assert!(screen.contains("Tools (10)"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.type_text("12/12/2024");
    tmux.wait_for("12/12/2024");
    tmux.keys(&["C-s"]);
    tmux.wait_for("protocol error");
    stop_editing(&tmux);
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
