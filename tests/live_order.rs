//! The app fed exactly as the live TUI is: a real session against the demo server, captured
//! from the session stream in the order it produced its events, then applied to the app state.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use sightline::app::action::{Lens, Move, Output};
use std::time::Duration;

use serde_json::json;
use sightline::app::state::LineKind;
use sightline::app::{Action, Command, update};
use sightline::classify::Class;
use sightline::live_session::{self, SessionCommand};
use sightline::mcp::era::EraChoice;
use sightline::mcp::jsonrpc::{Id, Message};
use sightline::recording::{Places, Recorder};
use sightline::runner::{LogEvent, SessionEvent, SessionOptions};
use sightline::stream;
use sightline::theme::Theme;
use sightline::transcript::Redactor;
use sightline::transport::{StdioCommand, Target};

/// Runs the live session against `sightline demo-server --style STYLE`, sends `calls` one at a
/// time, and returns every event in the order the stream delivered it.
async fn capture(style: &str, era: EraChoice, calls: &[serde_json::Value]) -> Vec<SessionEvent> {
    capture_recorded(style, era, calls, None).await
}

/// The same, recording the session to `transcript` as `--record` does.
async fn capture_recorded(
    style: &str,
    era: EraChoice,
    calls: &[serde_json::Value],
    transcript: Option<&std::path::Path>,
) -> Vec<SessionEvent> {
    let target = Target::Stdio(StdioCommand {
        program: env!("CARGO_BIN_EXE_sightline").into(),
        args: vec!["demo-server".into(), "--style".into(), style.into()],
        env: std::collections::HashMap::default(),
        cwd: None,
    });
    capture_from(target, "book_flight", era, calls, transcript).await
}

/// Runs the live session against `target`, calls `tool` with each of `calls` one at a time,
/// and returns every event in stream order (recorded to `transcript` when given).
async fn capture_from(
    target: Target,
    tool: &str,
    era: EraChoice,
    calls: &[serde_json::Value],
    transcript: Option<&std::path::Path>,
) -> Vec<SessionEvent> {
    let options = SessionOptions {
        era,
        timeout: Duration::from_secs(10),
        ..SessionOptions::default()
    };
    let (mut sink, mut events) = stream::channel();
    if let Some(path) = transcript {
        let recorder = Recorder::create(
            path.to_str().unwrap(),
            "tui",
            "stdio: demo",
            Redactor::default(),
        )
        .unwrap();
        sink = sink.with_tap(recorder.tap());
    }
    let commands = live_session::spawn(Ok(target), options, sink);
    let mut seen = Vec::new();
    while !matches!(
        next(&mut events, &mut seen).await,
        SessionEvent::ToolsListed(_)
    ) {}
    for arguments in calls {
        let call = SessionCommand::Call {
            tool: tool.into(),
            arguments: arguments.clone(),
        };
        commands.send(call).await.unwrap();
        while !matches!(
            next(&mut events, &mut seen).await,
            SessionEvent::CallFinished(_)
        ) {}
    }
    commands.send(SessionCommand::Shutdown).await.unwrap();
    while let Ok(Some(event)) = tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
        seen.push(event);
    }
    assert!(
        matches!(seen.last(), Some(SessionEvent::Disconnected)),
        "the stream must end with the session: {:?}",
        seen.last()
    );
    seen
}

/// The next event, also kept in `seen`.
async fn next(events: &mut stream::EventReceiver, seen: &mut Vec<SessionEvent>) -> SessionEvent {
    let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
        .await
        .expect("the session went quiet")
        .expect("the stream ended");
    seen.push(event.clone());
    event
}

fn past() -> serde_json::Value {
    json!({"departureDate": "12/12/2024", "destination": "Lisbon"})
}

fn future() -> serde_json::Value {
    json!({"departureDate": "12/12/2099", "destination": "Lisbon"})
}

/// Where the reply to `id` was logged and where its call finished, in stream order.
fn positions(events: &[SessionEvent], id: &Id) -> (usize, usize) {
    let reply = events
        .iter()
        .position(|event| {
            matches!(event, SessionEvent::Logged(entry) if matches!(&entry.event,
                LogEvent::Received { frame, .. }
                    if matches!(&frame.message, Message::Response { id: Some(reply), .. } if reply == id)))
        })
        .expect("the reply was logged");
    let finished = events
        .iter()
        .position(
            |event| matches!(event, SessionEvent::CallFinished(exchange) if &exchange.exchange.id == id),
        )
        .expect("the call finished");
    (reply, finished)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_finishes_on_the_stream_after_its_reply_is_logged() {
    for (style, era) in [("legacy", EraChoice::Auto), ("sep1303", EraChoice::Modern)] {
        let events = capture(style, era, &[past(), future()]).await;
        for exchange in events.iter().filter_map(|event| match event {
            SessionEvent::CallFinished(exchange) => Some(exchange),
            _ => None,
        }) {
            let (reply, finished) = positions(&events, &exchange.exchange.id);
            assert!(
                reply < finished,
                "{style}: call {} finished at {finished}, before its reply was logged at {reply}",
                exchange.exchange.id
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_live_order_flags_the_reply_row_and_links_it_to_its_call() {
    let events = capture("legacy", EraChoice::Auto, &[past(), future()]).await;
    let mut session = common::Session::new(120, 40);
    for event in events {
        update(&mut session.state, Action::Session(event));
    }
    let state = &mut session.state;
    assert_eq!(state.calls.len(), 2);
    assert_eq!(state.calls[0].outcome.class, Class::ProtocolError);
    assert_eq!(state.calls[1].outcome.class, Class::Success);
    let rows: Vec<_> = state
        .log
        .lines
        .iter()
        .enumerate()
        .filter(|(_, line)| matches!(line.kind, LineKind::Response(_)) && line.exchange.is_some())
        .map(|(row, line)| (row, line.exchange, line.flagged))
        .collect();
    assert_eq!(
        rows.iter()
            .map(|(_, call, flagged)| (*call, *flagged))
            .collect::<Vec<_>>(),
        [(Some(0), true), (Some(1), false)],
        "each reply row belongs to its call; only the -32602 one carries a finding"
    );
    let screen = common::screen(state, &Theme::fallback());
    let flagged_row = screen
        .lines()
        .find(|row| row.contains("⚑ ← #3 protocol error"))
        .unwrap_or_else(|| panic!("no ⚑ on the reply row:\n{screen}"));
    assert!(flagged_row.contains("-32602"), "{flagged_row}");

    // Selecting the flagged reply row shows its own call, not the latest.
    update(state, Action::Command(Command::Move(Move::FocusNext)));
    update(state, Action::Command(Command::Move(Move::FocusNext)));
    let (row, ..) = rows[0];
    let up = state.log.lines.len() - 1 - row;
    for _ in 0..up {
        update(state, Action::Command(Command::Move(Move::SelectPrev)));
    }
    assert_eq!(state.log.selected, Some(row));
    let current = state.current_call().unwrap();
    assert_eq!(current.exchange.id, Id::Number(3));
    assert_eq!(
        current.findings[0].id,
        "sep1303.validation-as-protocol-error"
    );
    assert_eq!(state.model.as_ref().map(|pane| pane.call), Some(0));
}

/// `sightline replay` shows the screens the live session showed: the transcript reads back into
/// the very events the live stream delivered, and each step draws the same screen.
#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_session_replays_into_the_same_events_and_screens() {
    let path = std::env::temp_dir().join(format!("sightline-replay-{}.jsonl", std::process::id()));
    let live = capture_recorded("legacy", EraChoice::Auto, &[past(), future()], Some(&path)).await;
    let replayed: Vec<SessionEvent> = sightline::recording::open(path.to_str().unwrap())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    std::fs::remove_file(&path).unwrap();
    // A call reads back unjudged (the app judges it as it shows it, as the screens below
    // check); everything else reads back as it was.
    let facts: Vec<SessionEvent> = live
        .iter()
        .filter(|event| !matches!(event, SessionEvent::Asked { .. }))
        .map(unjudged)
        .collect();
    assert_eq!(replayed, facts);
    for (width, height) in [(120, 40), (80, 24)] {
        let mut from_live = common::Session::new(width, height);
        let mut from_file = common::Session::new(width, height);
        for (live, replayed) in live.iter().zip(&replayed) {
            update(&mut from_live.state, Action::Session(live.clone()));
            update(&mut from_file.state, Action::Session(replayed.clone()));
            assert_eq!(
                common::screen(&from_file.state, &Theme::fallback()),
                common::screen(&from_live.state, &Theme::fallback())
            );
        }
        let screen = common::screen(&from_file.state, &Theme::fallback());
        assert!(screen.contains("⚑ ← #3 protocol error"), "{screen}");
    }
}

/// `E` saves the selected call as a transcript that replays it and, as a server, answers it.
#[tokio::test(flavor = "multi_thread")]
async fn a_saved_call_replays_and_serves_its_answers_again() {
    let events = capture("legacy", EraChoice::Auto, &[past(), future()]).await;
    let mut session = common::Session::new(120, 40);
    for event in events {
        update(&mut session.state, Action::Session(event));
    }
    let state = &mut session.state;
    let effects = update(state, Action::Command(Command::Output(Output::SaveCall)));
    let [sightline::app::Effect::Save { path, text }] = &effects[..] else {
        panic!("{effects:?}");
    };
    assert_eq!(path, "sightline-book_flight-4.jsonl", "the latest call");
    let file = std::env::temp_dir().join(format!("sightline-saved-{}.jsonl", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let loaded = sightline::recording::load(file.to_str().unwrap()).unwrap();
    std::fs::remove_file(&file).unwrap();
    assert!(loaded.stopped.is_none());
    assert_eq!(loaded.calls.len(), 1);
    assert_eq!(loaded.calls[0].exchange, state.calls[1].exchange);
    assert_eq!(
        loaded.calls[0].version(),
        "2026-07-28",
        "auto negotiated the modern era"
    );
    assert_eq!(loaded.tools.as_ref().map(|tools| tools.len()), Some(10));
    let mut served = sightline::replay_server::Recorded::new(&loaded, "saved");
    let discover = served
        .answer(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#)
        .unwrap();
    assert!(discover.contains("supportedVersions"), "{discover}");
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"book_flight","arguments":{}}}}}"#,
        future()
    );
    let answer: serde_json::Value = serde_json::from_str(&served.answer(&call).unwrap()).unwrap();
    assert_eq!(answer["id"], 7);
    let booked = answer["result"]["content"][0]["text"].as_str();
    assert!(
        booked.is_some_and(|text| text.contains("Booked")),
        "{answer}"
    );
    // J: the same call as pretty JSON, with the model's side under the current host.
    let effects = update(state, Action::Command(Command::Lens(Lens::Host)));
    assert!(effects.is_empty());
    let effects = update(
        state,
        Action::Command(Command::Output(Output::SaveCallJson)),
    );
    let [
        sightline::app::Effect::Save {
            path: json_path,
            text: json_text,
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}");
    };
    assert_eq!(json_path, "sightline-book_flight-4.json");
    let document: serde_json::Value = serde_json::from_str(json_text).unwrap();
    assert_eq!(document["request"]["params"]["name"], "book_flight");
    assert_eq!(document["response"]["id"], 4);
    assert_eq!(document["outcome"]["class"], "success");
    assert_eq!(document["model_view"]["host"], "content-only");
    assert_eq!(document["model_view"]["payload"]["type"], "tool_result");
    assert!(json_text.contains("\n  \"request\": {"), "pretty");
    // The document `call --json` prints: the server and what was asked on the way too.
    assert!(
        document["server"]["name"]
            .as_str()
            .is_some_and(|name| name.starts_with("sightline-demo")),
        "{document:#}"
    );
    assert_eq!(document["outcome"]["stage"], "call");
    assert!(document["rounds"].is_array());
    let update_saved = Action::Saved {
        path: path.clone(),
        result: Ok(text.len()),
    };
    update(state, update_saved);
    let status = &state.status.as_ref().unwrap().text;
    assert_eq!(
        status,
        "saved sightline-book_flight-4.jsonl: `sightline replay` opens it"
    );
}

/// `L` saves the whole log: every frame and every call, reloadable as a transcript.
#[tokio::test(flavor = "multi_thread")]
async fn the_whole_log_saved_reloads_with_every_frame_and_call() {
    let events = capture("sep1303", EraChoice::Modern, &[past(), future()]).await;
    let count = |events: &[SessionEvent], sent: bool| {
        events
            .iter()
            .filter(|event| match event {
                SessionEvent::Logged(entry) => match &entry.event {
                    LogEvent::Sent(_) => sent,
                    LogEvent::Received { .. } => !sent,
                    _ => false,
                },
                _ => false,
            })
            .count()
    };
    let (sent, received) = (count(&events, true), count(&events, false));
    let mut session = common::Session::new(120, 40);
    for event in events {
        update(&mut session.state, Action::Session(event));
    }
    let state = &mut session.state;
    let effects = update(state, Action::Command(Command::Output(Output::SaveLog)));
    let [sightline::app::Effect::Save { path, text }] = &effects[..] else {
        panic!("{effects:?}");
    };
    assert!(
        path.strip_prefix("sightline-log-")
            .is_some_and(|rest| rest.split_once('.').map(|(_, ext)| ext) == Some("jsonl")),
        "{path}"
    );
    let file = std::env::temp_dir().join(format!("sightline-log-{}.jsonl", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let loaded = sightline::recording::load(file.to_str().unwrap()).unwrap();
    let replayed: Vec<SessionEvent> = sightline::recording::open(file.to_str().unwrap())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    std::fs::remove_file(&file).unwrap();
    assert!(loaded.stopped.is_none());
    let exchanges: Vec<_> = loaded.calls.iter().map(|call| &call.exchange).collect();
    let live: Vec<_> = state.calls.iter().map(|call| &call.exchange).collect();
    assert_eq!(exchanges, live);
    assert_eq!(loaded.calls[0].version(), "2026-07-28");
    assert_eq!(
        count(&replayed, true),
        sent,
        "every frame sent is in the saved log"
    );
    assert_eq!(
        count(&replayed, false),
        received,
        "and every frame received"
    );
    assert!(
        text.contains(r#""type":"stderr""#),
        "the server's stderr too"
    );
}

/// Applies `action` and every read-back it asks for, as the replay's runtime does.
fn apply(
    state: &mut sightline::app::AppState,
    action: Action,
    transcript: &sightline::runtime::Transcript,
) -> Vec<sightline::app::Effect> {
    let mut others = Vec::new();
    let mut pending = std::collections::VecDeque::from(update(state, action));
    while let Some(effect) = pending.pop_front() {
        match effect {
            sightline::app::Effect::ReadBack(what) => {
                pending.extend(update(state, transcript.read_back(what)));
            }
            other => others.push(other),
        }
    }
    others
}

/// All but the status line (a replay's says REPLAY).
/// The screen but its status line and its Request pane: a replay shows the recorded arguments
/// there, where this live session (its calls sent without typing) shows the skeleton.
fn panes(state: &sightline::app::AppState) -> String {
    let screen = common::screen(state, &Theme::fallback());
    let mut lines: Vec<String> = screen.lines().map(str::to_owned).collect();
    lines.pop();
    if let Some(top) = lines.iter().position(|line| line.contains("Request ·")) {
        let width = lines[top]
            .chars()
            .position(|c| c == '╮' || c == '┓')
            .map_or(0, |at| at + 1);
        for line in &mut lines[top..] {
            let rest: String = line.chars().skip(width).collect();
            *line = " ".repeat(width) + &rest;
        }
    }
    lines.join("\n")
}

/// The live session against the hostile server's `huge-logged` mode (three calls, each with a
/// 40 KB log notification and a 40 KB reply), and its recording replayed step by step beside
/// it, with every read-back the replay asked for answered from the file.
struct Stored {
    live: common::Session,
    replayed: common::Session,
    transcript: sightline::runtime::Transcript,
}

async fn stored_replay(tag: &str) -> Stored {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let target = Target::Stdio(StdioCommand {
        program: "python3".into(),
        args: vec![script.into(), "huge-logged".into()],
        env: [("HUGE_BYTES".to_owned(), "40000".to_owned())].into(),
        cwd: None,
    });
    let name = format!("sightline-stored-{tag}-{}.jsonl", std::process::id());
    let path = std::env::temp_dir().join(name);
    let calls = [json!({"n": 1}), json!({"n": 2}), json!({"n": 3})];
    let events = capture_from(target, "boom", EraChoice::Legacy, &calls, Some(&path)).await;
    let file = path.to_str().unwrap().to_owned();
    let mut reader = sightline::recording::open(&file).unwrap();
    let places = std::sync::Arc::new(std::sync::Mutex::new(Places::default()));
    let transcript = sightline::runtime::Transcript {
        path: file.clone(),
        places: places.clone(),
    };
    let mut live = common::Session::new(120, 40);
    let mut replayed = common::Session::new(120, 40);
    replayed.state.replay = Some(file);
    for event in events
        .iter()
        .filter(|e| !matches!(e, SessionEvent::Asked { .. }))
    {
        let read = reader.next().unwrap().unwrap();
        assert_eq!(read, unjudged(event));
        places.lock().unwrap().note(&read, reader.offset());
        update(&mut live.state, Action::Session(event.clone()));
        let asked = apply(&mut replayed.state, Action::Session(read), &transcript);
        assert!(asked.is_empty(), "{asked:?}");
        assert_eq!(panes(&replayed.state), panes(&live.state));
    }
    Stored {
        live,
        replayed,
        transcript,
    }
}

impl Stored {
    /// The same command to both; the replay's effects other than its read-backs.
    fn both(
        &mut self,
        command: Command,
    ) -> (Vec<sightline::app::Effect>, Vec<sightline::app::Effect>) {
        let live = update(&mut self.live.state, Action::Command(command));
        let replayed = apply(
            &mut self.replayed.state,
            Action::Command(command),
            &self.transcript,
        );
        (live, replayed)
    }
}

impl Drop for Stored {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.transcript.path);
    }
}

/// A replay keeps the big frames in the transcript, not in memory: the outlines of the calls
/// hold no frame text, and walking the log reads back each call and notification as it is
/// shown, every pane as live.
#[tokio::test(flavor = "multi_thread")]
async fn a_replay_holds_only_the_big_frames_it_shows() {
    use sightline::app::state::{Raw, STORED_BYTES};
    let mut stored = stored_replay("walk").await;
    let state = &stored.replayed.state;
    let on_disk: Vec<bool> = state.calls.iter().map(|call| call.stored).collect();
    assert_eq!(
        on_disk,
        [true, true, true],
        "every call's frames stay on disk"
    );
    assert_eq!(
        state.read_back.call.as_ref().map(|(index, _)| *index),
        Some(2),
        "the latest, shown, is held whole"
    );
    let held: usize = state
        .calls
        .iter()
        .map(|call| {
            let reply = call.exchange.response().map_or(0, |frame| frame.raw.len());
            call.exchange.request.raw.len() + reply
        })
        .sum();
    assert_eq!(held, 0, "outlines hold no frame text");
    let big = |line: &&sightline::app::state::LogLine| matches!(&line.raw, Some(Raw::Frame(frame)) if frame.raw.len() > STORED_BYTES);
    assert_eq!(state.log.lines.iter().filter(big).count(), 0);
    let notices = state
        .log
        .lines
        .iter()
        .filter(|line| matches!(line.raw, Some(Raw::Stored { .. })))
        .count();
    assert_eq!(notices, 3, "the three big log notifications are stored");

    let mut reads = 0;
    for command in [
        Command::Move(Move::FocusNext),
        Command::Move(Move::FocusNext),
        Command::Move(Move::SelectFirst),
    ] {
        stored.both(command);
    }
    for _ in 0..stored.replayed.state.log.lines.len() {
        let before = stored.replayed.state.read_back.clone();
        stored.both(Command::Move(Move::SelectNext));
        let after = &stored.replayed.state.read_back;
        reads += usize::from(before.call != after.call) + usize::from(before.frame != after.frame);
        assert!(after.failed.is_none());
        let shown = panes(&stored.replayed.state);
        assert_eq!(shown, panes(&stored.live.state));
        let state = &stored.replayed.state;
        let line = &state.log.lines[state.log.selected.unwrap()];
        if line.exchange.is_none() {
            // The model pane stays on the latest call, and says so.
            assert!(shown.contains("latest: #5 boom"), "{shown}");
        }
    }
    assert!(
        reads >= 5,
        "the calls and notifications were read back: {reads}"
    );
}

/// On a call read back, another host, the copies and the exports are the live session's; `L`
/// saves the replay's own transcript.
#[tokio::test(flavor = "multi_thread")]
async fn a_replayed_call_read_back_copies_and_exports_as_live() {
    let mut stored = stored_replay("export").await;
    for command in [
        Command::Move(Move::FocusNext),
        Command::Move(Move::FocusNext),
        Command::Move(Move::SelectFirst),
    ] {
        stored.both(command);
    }
    while stored.live.state.current_call_index() != Some(0) {
        stored.both(Command::Move(Move::SelectNext));
    }
    assert_eq!(
        stored
            .replayed
            .state
            .read_back
            .call
            .as_ref()
            .map(|(index, _)| *index),
        Some(0)
    );
    for command in [
        Command::Lens(Lens::Host),
        Command::Output(Output::CopyResponse),
        Command::Output(Output::CopyModelView),
        Command::Output(Output::SaveCall),
        Command::Output(Output::SaveCallJson),
    ] {
        let (live, replayed) = stored.both(command);
        assert_eq!(replayed, live, "{command:?}");
        assert_eq!(panes(&stored.replayed.state), panes(&stored.live.state));
    }
    let (_, effects) = stored.both(Command::Output(Output::SaveLog));
    let [sightline::app::Effect::CopyFile { from, .. }] = &effects[..] else {
        panic!("{effects:?}");
    };
    assert_eq!(from, &stored.transcript.path);
}

/// A transcript changed under the replay is said, never shown as if it were the call.
#[tokio::test(flavor = "multi_thread")]
async fn a_transcript_changed_under_its_replay_is_said() {
    let mut stored = stored_replay("changed").await;
    std::fs::write(&stored.transcript.path, "{}\n".repeat(100_000)).unwrap();
    for command in [
        Command::Move(Move::FocusNext),
        Command::Move(Move::FocusNext),
        Command::Move(Move::SelectFirst),
    ] {
        stored.both(command);
    }
    while stored.live.state.current_call_index() != Some(0) {
        stored.both(Command::Move(Move::SelectNext));
    }
    let state = &stored.replayed.state;
    let status = &state.status.as_ref().unwrap().text;
    assert!(
        status.starts_with("could not read the transcript again:"),
        "{status}"
    );
    assert!(
        state.log.detail[0].starts_with("could not read this back from the transcript"),
        "{:?}",
        state.log.detail
    );
    let screen = common::screen(state, &Theme::fallback());
    assert!(
        screen.contains("This call could not be read back"),
        "{screen}"
    );
}

/// `t` while a call waits (here, for the user's answer to its input round) applies at once:
/// the call's retry already declares the tasks extension.
#[tokio::test]
async fn tasks_switched_on_during_a_pending_call_apply_to_its_next_request() {
    let target = Target::Stdio(StdioCommand {
        program: env!("CARGO_BIN_EXE_sightline").into(),
        args: vec!["demo-server".into(), "--style".into(), "sep1303".into()],
        env: std::collections::HashMap::default(),
        cwd: None,
    });
    let options = SessionOptions {
        era: EraChoice::Modern,
        timeout: Duration::from_secs(10),
        ..SessionOptions::default()
    };
    let (sink, mut events) = stream::channel();
    let commands = live_session::spawn(Ok(target), options, sink);
    let mut seen = Vec::new();
    while !matches!(
        next(&mut events, &mut seen).await,
        SessionEvent::ToolsListed(_)
    ) {}
    let call = SessionCommand::Call {
        tool: "confirm_booking".into(),
        arguments: json!({"departureDate": "12/12/2099"}),
    };
    commands.send(call).await.unwrap();
    let number = loop {
        if let SessionEvent::Asked { number, .. } = next(&mut events, &mut seen).await {
            break number;
        }
    };
    // The call waits for the user; the user presses `t`, then answers.
    commands.send(SessionCommand::SetTasks(true)).await.unwrap();
    let answer = sightline::mcp::input::Answer::Result(json!({"action": "accept", "content": {}}));
    commands
        .send(SessionCommand::Answer { number, answer })
        .await
        .unwrap();
    while !matches!(
        next(&mut events, &mut seen).await,
        SessionEvent::CallFinished(_)
    ) {}
    commands.send(SessionCommand::Shutdown).await.unwrap();
    let calls: Vec<serde_json::Value> = seen
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Logged(entry) => match &entry.event {
                LogEvent::Sent(frame) if frame.message.method() == Some("tools/call") => {
                    Some(serde_json::from_str(&frame.raw).unwrap())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2, "the call and its retry with the answer");
    let declares = |call: &serde_json::Value| {
        call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            .get("io.modelcontextprotocol/tasks")
            .is_some()
    };
    // The session judged the call once; the app and the recorder take that judgement.
    assert!(seen.iter().any(|event| matches!(event,
        SessionEvent::CallFinished(finished) if finished.judged.is_some())));
    assert!(!declares(&calls[0]), "before `t`: {}", calls[0]);
    assert!(declares(&calls[1]), "after `t`, at once: {}", calls[1]);
}

/// `event`, a finished call without the judgement the live session gave it (a transcript keeps
/// the verdict for people and tools, not for reading back).
fn unjudged(event: &SessionEvent) -> SessionEvent {
    match event {
        SessionEvent::CallFinished(finished) => SessionEvent::CallFinished(Box::new(
            sightline::mcp::verdict::Finished::unjudged(finished.exchange.clone()),
        )),
        other => other.clone(),
    }
}
