//! End to end through the TUI: the real binary in a real terminal (a private tmux server), driven
//! by keystrokes, read back from the screen, and checked to restore the terminal on every exit.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

mod common;

use std::process::Command;

use common::tmux::*;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The README's first minute, keystroke for keystroke: Enter on `book_flight`, type a past date,
/// Ctrl-S; waits for the answer in the exchange log.
fn send_past_date(tmux: &Tmux, answer: &str) {
    tmux.keys(&["Enter"]);
    let editor = tmux.wait_for("┏ Editing · book_flight");
    assert!(
        editor.contains(r#""departureDate": "","#) && editor.contains(r#""destination": """#),
        "the editor is pre-filled with the tool's arguments:\n{editor}"
    );
    // No cursor keys: Enter put the cursor inside departureDate's quotes.
    tmux.type_text("12/12/2024");
    // At 80 columns the editor wraps the line before its closing quote.
    tmux.wait_for(r#""departureDate": "12/12/2024"#);
    tmux.keys(&["C-s"]);
    tmux.wait_until(&format!("'{answer}' in the exchange log"), |screen| {
        screen
            .lines()
            .any(|line| line.contains('←') && line.contains(answer))
    });
}

#[test]
fn tool_error_is_forwarded_to_the_model_then_q_quits() {
    let tmux = Tmux::start(&[]);
    tmux.wait_for_demo_server();
    let server = tmux.demo_server_pid();

    send_past_date(&tmux, "tool error ·");
    tmux.wait_for_all(&["forwarded (SHOULD)", "Current date is"]);

    // Esc stops editing (the Request pane keeps the focus), a second Esc goes back to the
    // tools; each waited for, so that the terminal never sees `Esc q` in one read (Alt-q).
    tmux.keys(&["Escape"]);
    tmux.wait_until("the editing mode to end", |screen| {
        !screen.contains("Editing ·") && !status_bar(screen).contains("EDITING")
    });
    tmux.keys(&["x"]);
    tmux.wait_for("no call is pending");
    let screen = tmux.screen();
    assert!(
        !screen.contains(r#""12/12/2024x""#),
        "x is a command outside the editor, never text:\n{screen}"
    );
    tmux.keys(&["Escape"]);
    tmux.wait_for("┏ Tools (10)");
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0, "exit code after q");
    assert_ends(server, "the demo server");
}

#[test]
fn legacy_protocol_error_is_not_forwarded_and_flagged_then_ctrl_c_quits() {
    let tmux = Tmux::start(&["--demo", "legacy"]);
    tmux.wait_for_demo_server();
    let server = tmux.demo_server_pid();

    send_past_date(&tmux, "protocol error ·");
    let screen = tmux.wait_for_all(&[
        "not forwarded (MAY, off)",
        "⚑ ← #3 protocol error",
        "sep1303.validation-as-protocol",
    ]);
    assert!(
        !model_pane(&screen, 120).contains("Current date is"),
        "the model must not see the server's message:\n{screen}"
    );

    // Still in the editor: Ctrl-C quits from anywhere.
    tmux.keys(&["C-c"]);
    assert_eq!(tmux.wait_for_exit(), 0, "exit code after Ctrl-C");
    assert_ends(server, "the demo server");
}

#[test]
fn the_readme_path_at_80x24_then_the_reply_row_answers_for_its_call() {
    let tmux = Tmux::start_sized(&["--demo", "legacy"], 80, 24);
    tmux.wait_for_demo_server();
    send_past_date(&tmux, "protocol error ·");
    tmux.wait_for_all(&["⚑ ← #3 protocol error", "not forwarded (MAY, off)"]);
    // A valid date: select its value again (Shift-Tab wraps to it), type over it, send.
    tmux.keys(&["BTab", "BTab"]);
    tmux.type_text("12/12/2099");
    tmux.wait_for(r#""departureDate": "12/12/2099"#);
    tmux.keys(&["C-s"]);
    tmux.wait_for_all(&["← #4 success", "latest: #4 book_flight success"]);
    // Esc, then to the Exchange and up to the #3 reply row: both panes answer for #3.
    tmux.keys(&["Escape"]);
    tmux.wait_until("the editing mode to end", |screen| {
        !screen.contains("Editing ·")
    });
    tmux.keys(&["Tab"]);
    tmux.wait_for("┏ Exchange");
    tmux.keys(&["Up", "Up"]);
    let screen = tmux.wait_for_all(&["Detail · selected #3", "selected: #3 book_flight protocol"]);
    assert!(screen.contains("not forwarded (MAY, off)"), "{screen}");
    // The status line is whole at 80 columns: a copy says so.
    tmux.keys(&["y"]);
    tmux.wait_until("the copy message in the status line", |screen| {
        status_bar(screen).contains("copied the request")
    });
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0, "exit code after q");
}

/// `A` audits the selected tool against the live legacy demo at 80×24: the plan, Enter sends
/// it, the table fills, and Enter on a row opens that call in the log.
#[test]
fn the_audit_key_runs_the_plan_and_a_row_opens_its_exchange() {
    let tmux = Tmux::start_sized(&["--demo", "legacy"], 80, 24);
    tmux.wait_for_demo_server();
    tmux.keys(&["A"]);
    tmux.wait_for_all(&["Audit book_flight: 6 calls", "Enter send these calls"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(&[
        "Audit book_flight · 6/6 · 2 conformant · 4 model-blind",
        "Esc close",
    ]);
    // The first row: departureDate missing, the call #3.
    tmux.keys(&["g", "Enter"]);
    let screen = tmux.wait_for("Detail · selected #3 book_flight");
    assert!(
        !screen.contains("Audit book_flight"),
        "the table closed:\n{screen}"
    );
    assert!(screen.contains("⚑ ← #3 protocol error"), "{screen}");
    assert!(
        status_bar(&screen).contains("audit done: 2 conformant · 4 model-blind"),
        "{screen}"
    );
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0, "exit code after q");
}

#[test]
fn a_hostile_server_cannot_hang_the_tui_reach_the_terminal_or_outlive_it() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let args = [
        "--era",
        "legacy",
        "--timeout",
        "60",
        "--",
        "python3",
        script,
        "pings",
    ];
    let tmux = Tmux::start(&args);
    tmux.wait_until("the hostile server connected", |screen| {
        screen.contains("Tools (1)") && status_bar(screen).contains("hostile")
    });
    let server = child_named(tmux.sightline_pid(), "python3").expect("the server runs");
    // Its name carries an OSC 0 title sequence: shown escaped, the title stays ours.
    let screen = tmux.screen();
    assert!(screen.contains(r"hostile\u{1b}]0;pwned\u{7}"), "{screen}");
    assert!(!tmux.display("#{pane_title}").contains("pwned"));

    // The call is answered by thousands of pings from a server that never reads again.
    tmux.keys(&["C-s"]);
    // The log follows its end: the pings' rows, or the answers to them that could not be written
    // once the server stopped reading (which of the two ends the screen depends on the load).
    tmux.wait_until("the server's pings, or our answers to them", |screen| {
        screen.contains("ping (req") || screen.contains("write failed: not written")
    });
    // The UI still answers, and so does the session: x cancels the call at once.
    tmux.keys(&["x"]);
    tmux.wait_for("cancelled by you");
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0, "exit code after q");
    assert_ends(server, "the hostile server");
}

#[test]
fn help_lists_the_keys_and_sigterm_restores_the_terminal() {
    let tmux = Tmux::start(&[]);
    tmux.wait_for_demo_server();

    tmux.keys(&["?"]);
    tmux.wait_until("the help listing 'Ctrl-S  send the request'", |screen| {
        screen
            .lines()
            .any(|line| line.contains("Ctrl-S") && line.contains("send the request"))
    });
    tmux.keys(&["Escape"]);
    tmux.wait_until("the help to close after Esc", |screen| {
        !screen.contains("Esc closes")
    });

    let sightline = tmux.sightline_pid();
    let server = tmux.demo_server_pid();
    kill(
        Pid::from_raw(i32::try_from(sightline).unwrap()),
        Signal::SIGTERM,
    )
    .unwrap();
    tmux.wait_for_exit();
    assert_ends(server, "the demo server");
}

#[test]
fn help_scrolls_to_its_end_at_80x24_and_closes_with_its_own_key() {
    let tmux = Tmux::start_sized(&[], 80, 24);
    tmux.wait_for_demo_server();

    tmux.keys(&["?"]);
    tmux.wait_for("Keys · Esc closes");
    // A key with no meaning in the help leaves it open: once the key after it has taken
    // effect (keys are handled in order), the help is still there.
    tmux.keys(&["z"]);
    tmux.keys(&["End"]);
    let screen = tmux.wait_for("set-clipboard on");
    assert!(screen.contains("Keys · Esc closes"), "{screen}");
    tmux.keys(&["?"]);
    tmux.wait_until("the help to close after '?'", |screen| {
        !screen.contains("Esc closes")
    });

    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0, "exit code after q");
}

#[test]
fn a_keys_file_rebinds_the_keys_the_help_lists_and_its_mistake_is_in_the_status_bar() {
    let config = std::env::temp_dir().join(format!("sightline-e2e-keys-{}", std::process::id()));
    std::fs::create_dir_all(config.join("sightline")).unwrap();
    std::fs::write(
        config.join("sightline").join("keys.toml"),
        "[browsing]\nquit = \"Q\"\ntoggle_help = \"f2\"\nfrobnicate = \"z\"\n",
    )
    .unwrap();
    let tmux = Tmux::start_configured(&[], 120, 40, Some(&config));
    // The warning takes the status bar's room, so the server's name is not there to wait for.
    let screen = tmux.wait_for_all(&["Tools (10)", "'frobnicate' is not a command"]);
    assert!(
        status_bar(&screen).starts_with(" F2 help "),
        "the status bar names the help's key as bound: {}",
        status_bar(&screen)
    );

    // q quits no more; the help opens with F2 and lists Q.
    tmux.keys(&["q"]);
    tmux.keys(&["F2"]);
    tmux.wait_for("Keys · Esc closes");
    tmux.keys(&["End"]);
    tmux.wait_until("the help listing 'Q  quit'", |screen| {
        screen.lines().any(|line| line.contains(" Q  quit"))
    });
    tmux.keys(&["Escape"]);
    tmux.wait_until("the help to close", |screen| !screen.contains("Esc closes"));
    tmux.keys(&["Q"]);
    assert_eq!(tmux.wait_for_exit(), 0, "exit code after Q");
    std::fs::remove_dir_all(&config).unwrap();
}

/// The same flow against a server built on an official SDK (installed by `tests/peers/install.sh`):
/// its `book_flight` takes only `departureDate` and throws on a past date.
fn official_sdk_server_reports_a_tool_error(command: &[&str], server_name: &str, tools: usize) {
    let mut args = vec!["--"];
    args.extend_from_slice(command);
    let tmux = Tmux::start(&args);
    let listed = format!("Tools ({tools})");
    tmux.wait_until(&format!("'{listed}' and '{server_name}'"), |screen| {
        screen.contains(&listed) && status_bar(screen).contains(server_name)
    });
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("┏ Editing · book_flight");
    tmux.type_text("12/12/2024");
    tmux.wait_for(r#""departureDate": "12/12/2024""#);
    tmux.keys(&["C-s"]);
    tmux.wait_for_all(&["tool error ·", "forwarded (SHOULD)", "Current date is"]);
    tmux.keys(&["C-c"]);
    assert_eq!(tmux.wait_for_exit(), 0, "exit code after Ctrl-C");
}

#[test]
fn the_typescript_sdk_server_works_the_same_way() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/ts_server.mjs");
    official_sdk_server_reports_a_tool_error(&["node", script], "sightline-ts-peer", 2);
}

#[test]
fn the_python_sdk_server_works_the_same_way() {
    let python = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/.venv/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_server.py");
    official_sdk_server_reports_a_tool_error(&[python, script], "sightline-py-peer", 3);
}

/// A tool that asks the user before it books: the question panel opens over the screen, and
/// its answer (accept with the box ticked, decline, cancel) decides what the model reads.
#[test]
fn the_question_panel_accepts_declines_and_cancels() {
    let tmux = Tmux::start(&[]);
    tmux.wait_for_demo_server();
    tmux.keys(&["Down", "Down", "Down", "Down"]);
    tmux.wait_for("▸ confirm_booking");
    tmux.keys(&["Enter"]);
    tmux.wait_for("┏ Editing · confirm_booking");
    tmux.type_text("25/12/2099");
    tmux.wait_for(r#""departureDate": "25/12/2099""#);
    let answers: [(&[&str], &str); 3] = [
        (&["Space", "Enter"], "Booked: one window seat"),
        (&["C-d"], "Not booked: the user declined to"),
        (&["Escape"], "Not booked: the user dismissed"),
    ];
    for (keys, booked) in answers {
        tmux.keys(&["C-s"]);
        let panel = tmux.wait_for("The server asks · elicitation (form)");
        assert!(panel.contains("Book the flight on 25/12/2099?"), "{panel}");
        assert!(
            panel.contains("[ ] no"),
            "the default is shown first: {panel}"
        );
        for key in keys {
            tmux.keys(&[key]);
        }
        tmux.wait_until(&format!("'{booked}' in the model pane"), |screen| {
            !screen.contains("The server asks") && model_pane(screen, 120).contains(booked)
        });
    }
    tmux.keys(&["C-c"]);
    assert_eq!(tmux.wait_for_exit(), 0);
}

/// A host talking to the legacy demo through `sightline proxy`, one message at a time: each
/// request's reply is read before the next goes.
struct ProxiedHost {
    proxy: std::process::Child,
    replies: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl ProxiedHost {
    fn start(record: &std::path::Path) -> ProxiedHost {
        let mut proxy = Command::new(BIN)
            .args(["proxy", "--record"])
            .arg(record)
            .args(["--", BIN, "demo-server", "--style", "legacy"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let replies =
            std::io::BufRead::lines(std::io::BufReader::new(proxy.stdout.take().unwrap()));
        ProxiedHost { proxy, replies }
    }

    fn send(&mut self, message: &serde_json::Value) -> Option<String> {
        use std::io::Write;
        let stdin = self.proxy.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        message.get("id")?;
        self.replies.next().map(Result::unwrap)
    }
}

#[test]
fn attach_shows_a_hosts_calls_live_as_its_profile_sees_them_and_the_recording_replays_alike() {
    use serde_json::json;
    let record =
        std::env::temp_dir().join(format!("sightline-e2e-attach-{}.jsonl", std::process::id()));
    let mut host = ProxiedHost::start(&record);
    host.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "2.1.332"}}}),
    );
    host.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    host.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let pid = host.proxy.id().to_string();
    let tmux = Tmux::start(&["attach", &pid]);
    tmux.wait_for_all(&["ATTACHED · read-only", "book_flight", "host claude-code"]);
    // A call made while attached appears as it happens, flagged.
    let reply = host.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "book_flight", "arguments": {"departureDate": "12/12/2024", "destination": "Paris"}}}));
    assert!(
        reply.unwrap().contains("-32602"),
        "the server's answer reached the host"
    );
    tmux.wait_for_all(&["⚑ ← #3 protocol error", "sep1303.validation-as-protocol"]);
    drop(host.proxy.stdin.take());
    assert!(host.proxy.wait().unwrap().success());
    let attached = tmux.wait_for("the proxy's server ended");
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_for_exit(), 0);
    let replaying = Tmux::start(&["replay", record.to_str().unwrap()]);
    let replayed = replaying.wait_for_all(&["REPLAY · read-only", "⚑ ← #3 protocol error"]);
    let panes = |screen: &str| screen.lines().take(39).collect::<Vec<_>>().join("\n");
    assert_eq!(
        panes(&replayed),
        panes(&attached),
        "the recording replays to the same screen"
    );
    let _ = std::fs::remove_file(&record);
}

/// A slow call at 80×24, as a user makes it: while it runs, the status line shows its
/// progress (bar, count, the server's message), Detail and the model pane show this call
/// waiting, not the previous one; when it ends they show it as any other.
#[test]
fn a_pending_call_shows_its_progress_then_its_answer() {
    let tmux = Tmux::start_sized(&[], 80, 24);
    tmux.wait_for_demo_server();
    tmux.keys(&["Down", "Down", "Down"]);
    tmux.wait_for("▸ slow_search");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Editing · slow_search");
    tmux.type_text("3");
    tmux.keys(&["C-s"]);
    let running = tmux.wait_until("the progress in the status line", |screen| {
        status_bar(screen).contains("slow_search pending") && status_bar(screen).contains("/6")
    });
    assert!(status_bar(&running).contains('▕'), "{running}");
    assert!(
        running.contains("Detail · pending call #3 slow_search"),
        "{running}"
    );
    assert!(running.contains("waiting for the answer"), "{running}");
    assert!(running.contains("progress ▕"), "{running}");
    let done = tmux.wait_for("latest call #3 slow_search");
    assert!(!status_bar(&done).contains("pending"), "{done}");
    assert!(done.contains("latest: #3 slow_search success"), "{done}");
    // A longer one, cancelled (Ctrl-K: still editing): a transport failure, labelled as the
    // user's own doing in the log and the model pane.
    tmux.keys(&["Tab"]);
    tmux.type_text("30");
    tmux.keys(&["C-s"]);
    tmux.wait_until("the second call pending", |screen| {
        status_bar(screen).contains("slow_search pending")
    });
    tmux.keys(&["C-k"]);
    let cancelled = tmux.wait_for("⊘ #4 tools/call: cancelled by");
    let model = model_pane(&cancelled, 80);
    assert!(
        model.contains("transport failure ·") && model.contains("cancelled by you"),
        "{model}"
    );
    tmux.keys(&["C-c"]);
    assert_eq!(tmux.wait_for_exit(), 0);
}
