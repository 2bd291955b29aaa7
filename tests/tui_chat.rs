//! The Chat pane in the real binary, in tmux: the scripted model (`tests/peers/scripted_model.py`,
//! which reacts to what it reads) books a flight through a host's eyes on both demo styles at
//! once (`Alt-b`), and the SEP-1303 difference shows on the model: behind `openai-agents` the
//! legacy demo's -32602 leaves it retrying blindly until the turns run out, the sep1303 demo's
//! tool error lets it correct itself; `Alt-h` then `Alt-r` run it again behind Claude Code,
//! which forwards the -32602 message, and the model recovers on the legacy demo too.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use common::scripted_model::ScriptedModel;
use common::tmux::Tmux;

#[test]
fn the_chat_pane_runs_a_real_model_loop_on_both_demo_styles_side_by_side() {
    let model = ScriptedModel::start("tui-chat");
    let url = model.url();
    for (width, height) in [(120, 40), (80, 24)] {
        let tmux = Tmux::start_sized(
            &[
                "--demo",
                "legacy",
                "--demo",
                "sep1303",
                "--host",
                "openai-agents",
                "--model",
                "openai:any",
                "--model-url",
                &url,
            ],
            width,
            height,
        );
        tmux.wait_until("both demos ready", |screen| {
            screen
                .lines()
                .next()
                .unwrap_or_default()
                .matches("ready")
                .count()
                == 2
        });
        tmux.keys(&["c"]);
        tmux.wait_for("Enter run");
        tmux.type_text("Book a flight departing 12/12");
        tmux.keys(&["M-b"]);
        let screen = tmux.wait_for_all(&["legacy: ✗ the turns ran out", "sep1303: ✓ answered"]);
        // The shown server is the legacy demo: its own run, the same call three times over.
        assert!(screen.contains("· the same call"), "{screen}");
        assert!(screen.contains("CHAT"), "{screen}");
        // Every call the model made landed in the log, marked.
        tmux.keys(&["Escape"]);
        let screen = tmux.wait_until("the pane closed", |screen| !screen.contains("Enter run"));
        assert!(
            screen.contains("◆"),
            "the model's calls are marked:\n{screen}"
        );
        // Claude Code forwards the -32602 message: the model recovers on the legacy demo.
        tmux.keys(&["c"]);
        tmux.wait_for("Enter run");
        // Alt-h steps through the profiles, as h does outside the pane.
        for _ in 0..40 {
            if tmux.screen().contains("Alt-h host (claude-code)") {
                break;
            }
            let before = tmux.screen();
            tmux.keys(&["M-h"]);
            tmux.wait_until("the next profile", |screen| screen != before);
        }
        tmux.keys(&["M-r"]);
        let screen = tmux.wait_until("the second run answered", |screen| {
            screen.matches("✓ answered").count() >= 2
        });
        assert!(screen.contains("through claude-code's eyes"), "{screen}");
        assert!(
            screen.contains("must be in the future"),
            "the model read the server's reason:\n{screen}"
        );
        tmux.keys(&["Escape"]);
        tmux.wait_until("the pane closed", |screen| !screen.contains("Enter run"));
        tmux.keys(&["q"]);
        assert_eq!(tmux.wait_for_exit(), 0);
    }
    // The model was asked by the binary, not made up: its requests carry the host's names, and
    // the pane asked for its answers streamed (the script streams them word by word).
    let requests = model.requests();
    assert!(requests.len() >= 10, "{}", requests.len());
    assert!(
        requests
            .iter()
            .all(|request| request["body"]["stream"] == true
                && request["body"]["stream_options"]["include_usage"] == true),
        "every request streamed"
    );
    assert!(
        requests
            .iter()
            .any(|request| request.to_string().contains("mcp__srv__book_flight")),
        "Claude Code's run offered the tool under its name"
    );
}

/// Each of the four model APIs through the Chat pane of the real binary, streamed (Gemini at its
/// `:streamGenerateContent`), with a sentinel key that reaches the model API's header and
/// nothing else: not the screen, not the transcript `--record` writes, not the scripted model's
/// bodies. Each recording then replays in the TUI, its run told in the Chat pane.
#[test]
fn every_model_api_streams_through_the_chat_pane_and_the_key_stays_in_its_header() {
    const KEY: &str = "sk-sentinel-c4a7e19b02";
    let model = ScriptedModel::start("tui-chat-apis");
    let base = format!("http://127.0.0.1:{}", model.port);
    let v1 = model.url();
    let cases = [
        (
            "openai:any",
            v1.as_str(),
            "OPENAI_API_KEY",
            "claude-code",
            "/v1/chat/completions",
        ),
        (
            "openai-responses:any",
            v1.as_str(),
            "OPENAI_API_KEY",
            "openai-agents",
            "/v1/responses",
        ),
        (
            "anthropic:any",
            base.as_str(),
            "ANTHROPIC_API_KEY",
            "claude-code",
            "/v1/messages",
        ),
        (
            "gemini:any",
            base.as_str(),
            "GEMINI_API_KEY",
            "gemini-cli",
            ":streamGenerateContent?alt=sse",
        ),
    ];
    for (index, (name, url, variable, host, path)) in cases.into_iter().enumerate() {
        let transcript = model.dir.join(format!("chat-{index}.jsonl"));
        let transcript = transcript.to_str().unwrap();
        let tmux = Tmux::start_with_env(
            &[
                "--demo",
                "sep1303",
                "--host",
                host,
                "--model",
                name,
                "--model-url",
                url,
                "--record",
                transcript,
            ],
            120,
            40,
            None,
            &[(variable, KEY)],
        );
        tmux.wait_for("Tools (10)");
        tmux.keys(&["c"]);
        tmux.wait_for("Enter run");
        tmux.type_text("Book a flight departing 12/12");
        tmux.keys(&["Enter"]);
        let screen = tmux.wait_for("✓ answered after 3 turns");
        assert!(!screen.contains(KEY), "{name}: the key on screen");
        tmux.keys(&["Escape"]);
        tmux.wait_until("the pane closed", |screen| !screen.contains("Enter run"));
        tmux.keys(&["q"]);
        assert_eq!(tmux.wait_for_exit(), 0, "{name}");
        replays_as_recorded(name, transcript);
        let recorded = std::fs::read_to_string(transcript).unwrap();
        assert_eq!(
            recorded.matches(r#""type":"model""#).count(),
            3,
            "{name}: each turn recorded"
        );
        assert!(!recorded.contains(KEY), "{name}: the key in the transcript");
        let requests: Vec<_> = model
            .requests()
            .into_iter()
            .filter(|request| request["path"].as_str().unwrap().ends_with(path))
            .collect();
        assert_eq!(requests.len(), 3, "{name}: three requests to {path}");
        for request in &requests {
            if !name.starts_with("gemini") {
                assert_eq!(request["body"]["stream"], true, "{name}: streamed");
            }
            assert!(
                !request["body"].to_string().contains(KEY),
                "{name}: the key in a body"
            );
            assert!(
                request["headers"].to_string().contains(KEY),
                "{name}: the key in a header"
            );
        }
    }
}

/// The recording replays with no model and no server: `c` tells its run, each call linked to
/// the replayed call it made, with what the model read of it.
fn replays_as_recorded(name: &str, transcript: &str) {
    let replay = Tmux::start(&["replay", transcript]);
    replay.wait_for("Tools (10)");
    replay.keys(&["c"]);
    let screen = replay.wait_for_all(&[
        "as recorded",
        "#3 · turn 1",
        "#4 · turn 2",
        "✓ answered after 3 turns",
    ]);
    assert!(
        screen.contains("← tool error · the model read:")
            && screen.contains("Invalid departure date"),
        "{name}: what the model read, as recorded:\n{screen}"
    );
    replay.keys(&["Escape"]);
    replay.wait_until("the pane closed", |screen| {
        !screen.contains("Chat · as recorded")
    });
    replay.keys(&["q"]);
    assert_eq!(replay.wait_for_exit(), 0, "{name}");
}
