//! End to end through the Resources and Prompts shelves: the real binary in tmux against the
//! demo server and the official server-everything (stdio), driven by keystrokes as a user would.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

mod common;

use common::peers::everything;
use common::tmux::*;

/// Keys given one at a time, each once the screen shows what the one before did: `Esc` then a
/// letter in one read would be Alt-letter.
fn key(tmux: &Tmux, key: &str) {
    tmux.press(key);
}

/// Moves the selection of the focused shelf until the row `label` is selected.
fn select(tmux: &Tmux, label: &str) {
    key(tmux, "Home");
    for _ in 0..30 {
        if tmux
            .screen()
            .lines()
            .any(|line| line.contains(&format!("▸ {label}")))
        {
            return;
        }
        key(tmux, "Down");
    }
    panic!("no row '{label}' on:\n{}", tmux.screen());
}

fn everything_stdio(width: u16, height: u16) -> Tmux {
    let mut args = vec!["--".to_owned()];
    args.extend(everything());
    args.push("stdio".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let tmux = Tmux::start_sized(&args, width, height);
    tmux.wait_for("Tools (16)");
    tmux
}

#[test]
fn the_demo_lists_and_reads_a_resource_and_fills_a_template_at_80x24() {
    let tmux = Tmux::start_sized(&[], 80, 24);
    tmux.wait_for_demo_server();
    key(&tmux, "R");
    tmux.wait_for_all(&[
        "Resources (3+1) · T 10 · P ?",
        "← #3 success · resources/list",
    ]);
    key(&tmux, "Enter");
    tmux.wait_for_all(&["Detail · read demo://timetable", "LH123"]);
    select(&tmux, "flights://{number}");
    key(&tmux, "Enter");
    tmux.wait_for("Editing · template flights://");
    tmux.type_text("LH123");
    tmux.wait_for(r#""number": "LH123""#);
    key(&tmux, "C-s");
    tmux.wait_for_all(&["Detail · read flights://LH123", "boarding"]);
}

#[test]
fn everything_lists_reads_and_fills_a_template() {
    let tmux = everything_stdio(120, 40);
    key(&tmux, "R");
    tmux.wait_for("Resources (7+2)");
    key(&tmux, "Enter");
    tmux.wait_for_all(&["← #", "Detail · read demo://resource/static/docu"]);
    select(&tmux, "demo://resource/dynamic/text/");
    key(&tmux, "Enter");
    tmux.wait_for(r#""resourceId": """#);
    tmux.type_text("3");
    key(&tmux, "C-s");
    tmux.wait_for_all(&[
        "Resource 3: This is a plaintext",
        "Detail · read demo://resource/dynamic/tex",
    ]);
}

#[test]
fn everything_sends_an_update_for_a_subscribed_resource() {
    let tmux = everything_stdio(120, 40);
    key(&tmux, "R");
    tmux.wait_for("Resources (7+2)");
    key(&tmux, "S");
    tmux.wait_for("subscribed to demo://resource/static/document/");
    tmux.wait_for("● ");
    // The server sends updates for subscribed resources only once this tool turns them on.
    key(&tmux, "T");
    select(&tmux, "toggle-subscriber-updates");
    key(&tmux, "Enter");
    key(&tmux, "C-s");
    tmux.wait_for("Started simulated resource updated");
    key(&tmux, "Escape");
    key(&tmux, "Escape");
    key(&tmux, "R");
    tmux.wait_for_all(&["↻ ", "↻ updated at", "notifications/resources/update"]);
}

#[test]
fn everything_gets_a_prompt_with_a_completion_taken() {
    let tmux = everything_stdio(120, 40);
    key(&tmux, "P");
    tmux.wait_for("Prompts (4)");
    select(&tmux, "completable-prompt");
    key(&tmux, "Enter");
    tmux.wait_for("Editing · prompt completable");
    tmux.type_text("E");
    // The suggestions wrap in the editor's 32 columns.
    tmux.wait_for_all(&["department: Engineering", "takes 'Engineering'"]);
    key(&tmux, "M-c");
    tmux.wait_for(r#""department": "Engineering""#);
    key(&tmux, "Tab");
    tmux.type_text("A");
    // Narrowed to Alice by the 'A' (Tab asked for every name first: "Alice, Bob, Charlie").
    tmux.wait_for_all(&["name: Alice · Alt-c takes", "'Alice'"]);
    key(&tmux, "M-c");
    tmux.wait_for(r#""name": "Alice""#);
    key(&tmux, "C-s");
    tmux.wait_for_all(&[
        "Detail · prompt completable-prompt",
        "── user · text",
        "Please promote Alice to the head of the",
    ]);
}

#[test]
fn everything_over_http_reads_a_blob_template_and_gets_a_prompt_at_80x24() {
    let server = common::servers::Server::everything();
    let tmux = Tmux::start_sized(&["--url", &server.url], 80, 24);
    tmux.wait_for("Tools (16)");
    key(&tmux, "R");
    tmux.wait_for("Resources (7+2)");
    select(&tmux, "demo://resource/dynamic/blo");
    key(&tmux, "Enter");
    tmux.wait_for(r#""resourceId": """#);
    tmux.type_text("2");
    key(&tmux, "C-s");
    tmux.wait_for_all(&["bytes decoded", "D saves the decoded bytes"]);
    key(&tmux, "Escape");
    key(&tmux, "Escape");
    key(&tmux, "P");
    tmux.wait_for("Prompts (4)");
    select(&tmux, "args-prompt");
    key(&tmux, "Enter");
    tmux.type_text("Lisbon");
    key(&tmux, "C-s");
    tmux.wait_for_all(&["Detail · prompt args-prompt", "── user · text"]);
}

/// 2026-07-28 (the demo's default era): `S` holds a `subscriptions/listen` stream open, the
/// updates mark the row, a call goes through while the stream is open, and a second `S`
/// cancels the stream. Over stdio at 80×24, over HTTP at 120×40.
#[test]
fn the_modern_demo_subscribes_with_a_listen_stream_beside_a_call() {
    let http = common::servers::Server::demo("sep1303");
    let url = http.url.clone();
    let runs: [(&[&str], u16, u16); 2] = [(&[], 80, 24), (&["--url", &url], 120, 40)];
    for (args, width, height) in runs {
        let tmux = Tmux::start_sized(args, width, height);
        tmux.wait_for("Tools (10)");
        key(&tmux, "R");
        tmux.wait_for("Resources (3+1)");
        select(&tmux, "Departures board");
        key(&tmux, "S");
        tmux.wait_for_all(&[
            "subscribed to demo://departures (its listen stream is acknowledged)",
            "→ #5 subscriptions/listen",
        ]);
        // The board changes every 2 s.
        tmux.wait_for("▸ ↻ Departures board");
        key(&tmux, "T");
        key(&tmux, "Enter");
        key(&tmux, "C-s");
        tmux.wait_for("← #6 tool error");
        key(&tmux, "Escape");
        key(&tmux, "R");
        key(&tmux, "S");
        let screen = tmux.wait_for("unsubscribed from demo://departures");
        assert!(
            screen.contains("▸ Departures board"),
            "{width}x{height}:\n{screen}"
        );
        assert!(
            screen.contains("cancelled #5") || screen.contains("closed the stream of #5"),
            "{width}x{height}:\n{screen}"
        );
    }
}

/// At 80×24 the shelf shows a window of server-everything's nine rows: the row under it counts
/// what it hides, above and below, and a cut description says so.
#[test]
fn a_long_shelf_says_what_its_window_hides_at_80x24() {
    let tmux = everything_stdio(80, 24);
    key(&tmux, "R");
    tmux.wait_for_all(&["Resources (7+2)", "  ↓ 5 more", "… more below"]);
    key(&tmux, "End");
    let screen = tmux.wait_for("  ↑ 5 above");
    assert!(!screen.contains("↓ 5 more"), "{screen}");
}
