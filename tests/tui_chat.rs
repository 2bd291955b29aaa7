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
