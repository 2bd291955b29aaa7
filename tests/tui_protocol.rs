//! End to end through the TUI, the rest of the protocol: the real binary in tmux against the
//! demo server and the official everything server, driven as a user would: ping with its round
//! trip, the server info, a composed request (JSON that does not parse said first), and a
//! call to a tool the server did not list, judged like any call.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

mod common;

use common::peers::{everything, ts};
use common::tmux::Tmux;

/// `:`, the text typed line by line, Ctrl-S.
fn compose(tmux: &Tmux, lines: &[&str]) {
    tmux.keys(&[":"]);
    tmux.wait_for("Compose a request");
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            tmux.keys(&["Enter"]);
        }
        tmux.type_text(line);
    }
    tmux.keys(&["C-s"]);
}

#[test]
fn against_the_demo_ping_info_a_malformed_composition_and_an_unlisted_tool() {
    let tmux = Tmux::start(&["--era", "legacy"]);
    tmux.wait_for_demo_server();
    tmux.keys(&["p"]);
    tmux.wait_for_all(&["ping answered: round trip", "← #3 success · ping result"]);
    tmux.keys(&["i"]);
    tmux.wait_for_all(&[
        "┏ Server",
        "era        legacy (initialize) · protocol 2025-11-25",
        "Call book_flight with a past departureDate",
        "\"subscribe\": true",
    ]);
    tmux.keys(&["Escape"]);
    // Closed before the next key: an Esc and a ':' read together would be Alt-:.
    tmux.wait_until("the server panel closed", |screen| {
        !screen.contains("┏ Server")
    });
    compose(&tmux, &["resources/read", r#"{"uri": }"#]);
    tmux.wait_for("✗ the params are not JSON");
    // Nothing went out: the log still ends with the ping.
    assert!(!tmux.screen().contains("→ #4"), "{}", tmux.screen());
    // Esc keeps the text to fix: the value goes before the closing brace.
    tmux.keys(&["Escape"]);
    tmux.wait_until("the composer closed", |screen| {
        !screen.contains("Compose a request")
    });
    tmux.keys(&[":", "Left"]);
    tmux.type_text(r#""demo://departures""#);
    tmux.keys(&["C-s"]);
    tmux.wait_for("← #4 success · resources/read");
    compose(
        &tmux,
        &["tools/call", r#"{"name": "not_listed", "arguments": {}}"#],
    );
    tmux.wait_for_all(&[
        "→ #5 tools/call not_listed",
        "← #5 protocol error · -32602",
        "latest: #5 not_listed protocol",
    ]);
    tmux.keys(&["l"]);
    tmux.wait_for("logging/setLevel: success");
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}

#[test]
fn against_the_everything_server_at_80x24_ping_level_and_an_unlisted_tool() {
    let mut args = vec!["--".to_owned()];
    args.extend(everything());
    args.push("stdio".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let tmux = Tmux::start_sized(&args, 80, 24);
    tmux.wait_until("the everything server's tools", |screen| {
        screen.contains("Tools (") && screen.contains("echo")
    });
    tmux.keys(&["p"]);
    tmux.wait_for("ping answered: round trip");
    tmux.keys(&["l"]);
    tmux.wait_for("logging/setLevel: success");
    tmux.keys(&["i"]);
    tmux.wait_for_all(&["┏ Server", "mcp-servers/everything"]);
    tmux.keys(&["Escape"]);
    compose(
        &tmux,
        &["tools/call", r#"{"name": "not_listed", "arguments": {}}"#],
    );
    tmux.wait_until("the unlisted call judged", |screen| {
        screen.contains("tools/call not_listed") && screen.contains("latest: #")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}

/// `auto` probes with `server/discover`; the official TypeScript SDK's server refuses it and
/// the session falls back to `initialize`. Live, the refusal's row says it was the probe's
/// expected answer (the negotiation said which request was the probe), dimmed, not an error.
#[test]
fn the_era_probes_refusal_reads_as_expected_live_against_the_typescript_sdk() {
    let mut args = vec!["--".to_owned()];
    args.extend(ts());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Wide enough for the row's whole label in the Exchange pane.
    let tmux = Tmux::start_sized(&args, 240, 40);
    let screen = tmux.wait_until("the probe's row labelled", |screen| {
        screen.contains("#1 server/discover refused: -32601")
            && screen.contains("the era probe's expected")
    });
    assert!(screen.contains("Tools ("), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}
