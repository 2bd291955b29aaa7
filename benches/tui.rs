//! Benchmarks of the TUI core: drawing a frame with 100,000 log entries, ingesting frames into
//! the app state (with and without `--record`), and handling a key right after a 50 MB tool
//! result arrived.
//! Run: `cargo bench --bench tui`.

use sightline::app::action::Move;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::json;
use sightline::app::state::Settings;
use sightline::app::{Action, AppState, Command, update};
use sightline::mcp::Timestamp;
use sightline::mcp::framing::{DEFAULT_MAX_FRAME_BYTES, LineFramer, decode};
use sightline::mcp::jsonrpc::{Frame, Id, parse};
use sightline::mcp::log::SessionEvent;
use sightline::mcp::messages::Tool;
use sightline::mcp::session::{Correlation, Session};
use sightline::recording::Recorder;
use sightline::runner::{LogEntry, LogEvent, Role};
use sightline::theme::Theme;
use sightline::transcript::Redactor;

fn fresh_state() -> AppState {
    let settings = Settings::default();
    let mut state = AppState::new(settings, Vec::new(), Rect::new(0, 0, 120, 40));
    let tools = std::sync::Arc::new(
        sightline::demo_server::tools::definitions()
            .into_iter()
            .map(|raw| Tool::from_value(&raw))
            .collect(),
    );
    update(
        &mut state,
        Action::Session(SessionEvent::ToolsListed(tools)),
    );
    state
}

fn logged(frame: Frame, role: Role) -> Action {
    Action::Session(SessionEvent::Logged(LogEntry {
        at: Timestamp(0),
        event: LogEvent::Received { frame, role },
    }))
}

fn progress(n: usize) -> Frame {
    parse(&format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":1,"progress":{n}}}}}"#)).expect("a valid fixture")
}

fn state_with_entries(count: usize) -> AppState {
    let mut state = fresh_state();
    for n in 0..count {
        update(&mut state, logged(progress(n), Role::Notification));
    }
    state
}

fn render(c: &mut Criterion) {
    let theme = Theme::fallback();
    let state = state_with_entries(100_000);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a valid fixture");
    c.bench_function("render/120x40_with_100k_log_entries", |b| {
        b.iter(|| {
            terminal
                .draw(|frame| sightline::ui::render(frame, black_box(&state), &theme))
                .map(|_| ())
        });
    });
}

/// Raw replies on the wire → framed, parsed, correlated, logged into the app state.
fn ingest(c: &mut Criterion) {
    const FRAMES: usize = 10_000;
    let mut wire = Vec::new();
    for n in 1..=FRAMES {
        wire.extend_from_slice(format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{"content":[{{"type":"text","text":"ok {n}"}}]}}}}"#).as_bytes());
        wire.push(b'\n');
    }
    let setup = || {
        let mut session = Session::new();
        for _ in 0..FRAMES {
            session.start_request("tools/call", None, Timestamp(0));
        }
        (session, fresh_state())
    };
    let mut group = c.benchmark_group("ingest");
    group.throughput(Throughput::Elements(FRAMES as u64));
    // The same frames without and with `--record` (a recorder tap writing each event to a
    // transcript, flushed line by line, before the app sees it).
    let transcript =
        std::env::temp_dir().join(format!("sightline-bench-{}.jsonl", std::process::id()));
    for recording in [false, true] {
        let name = if recording {
            "frames_into_the_app_state_recorded"
        } else {
            "frames_into_the_app_state"
        };
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let recorder = recording.then(|| {
                        Recorder::create(
                            transcript.to_str().unwrap_or_default(),
                            "bench",
                            "stdio: bench",
                            Redactor::default(),
                        )
                        .expect("a writable temp dir")
                    });
                    (setup(), recorder.map(|recorder| recorder.tap()))
                },
                |((mut session, mut state), tap)| {
                    let mut framer = LineFramer::new(DEFAULT_MAX_FRAME_BYTES);
                    for line in framer.push(&wire) {
                        let Ok(frame) = decode(line, DEFAULT_MAX_FRAME_BYTES) else {
                            continue;
                        };
                        let role = match session.on_frame(frame.clone(), Timestamp(1)) {
                            Correlation::Completed(exchange) => Role::Reply {
                                method: exchange.method,
                            },
                            _ => Role::UnknownId,
                        };
                        let Action::Session(event) = logged(frame, role) else {
                            continue;
                        };
                        if let Some(tap) = &tap {
                            tap(&event);
                        }
                        update(&mut state, Action::Session(event));
                    }
                    state
                },
                BatchSize::LargeInput,
            );
        });
    }
    let _ = std::fs::remove_file(&transcript);
    group.finish();
}

/// The UI's share of a 50 MB result: log it, finish the call, then a key and a frame drawn.
fn huge_result(c: &mut Criterion) {
    let text = "x".repeat(50 * 1024 * 1024);
    let request = parse(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "book_flight", "arguments": {}}}).to_string()).expect("a valid fixture");
    let response = parse(&json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": text}]}}).to_string()).expect("a valid fixture");
    let exchange = sightline::mcp::session::Exchange {
        id: Id::Number(3),
        method: "tools/call".into(),
        request,
        sent_at: Timestamp(0),
        end: sightline::mcp::session::End::Replied(response.clone()),
        ended_at: Timestamp(1),
        http: None,
        rounds: Vec::new(),
        task: None,
    };
    let theme = Theme::fallback();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a valid fixture");
    let mut group = c.benchmark_group("huge_result");
    group.sample_size(10);
    group.bench_function("50MB_arrives_then_a_key_is_handled_and_drawn", |b| {
        b.iter_batched(
            || {
                (
                    state_with_entries(1_000),
                    response.clone(),
                    exchange.clone(),
                )
            },
            |(mut state, response, exchange)| {
                update(
                    &mut state,
                    logged(
                        response,
                        Role::Reply {
                            method: "tools/call".into(),
                        },
                    ),
                );
                // The session judges the call as it ends (once); the app takes that judgement.
                let judged = Some(sightline::classify::judge(&exchange, "2025-11-25", None));
                let finished = sightline::mcp::verdict::Finished { exchange, judged };
                update(
                    &mut state,
                    Action::Session(SessionEvent::CallFinished(Box::new(finished))),
                );
                update(&mut state, Action::Command(Command::Move(Move::SelectPrev)));
                terminal
                    .draw(|frame| sightline::ui::render(frame, &state, &theme))
                    .expect("a TestBackend draws");
                state
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

/// Finished calls into the app state while recording, as the live TUI takes them: each call's
/// reply logged, then the call finished, judged once by the session (before this release the
/// app and the recorder each judged it again). The calls are to a tool with an outputSchema,
/// whose judgement validates the structured content.
fn calls(c: &mut Criterion) {
    const CALLS: usize = 2_000;
    let tools: std::sync::Arc<sightline::mcp::catalog::Catalog> = std::sync::Arc::new(
        sightline::demo_server::tools::definitions()
            .into_iter()
            .map(|raw| Tool::from_value(&raw))
            .collect(),
    );
    let exchanges: Vec<sightline::mcp::session::Exchange> = (1..=CALLS)
        .map(|n| {
            let request = parse(&json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "get_flight_status", "arguments": {"flightNumber": "LH404"}}}).to_string()).expect("a valid fixture");
            // A status its outputSchema does not allow: judging it validates the structured
            // content against the schema, and finds the violation.
            let structured = json!({"flightNumber": "LH404", "status": "lost", "gate": "B12", "delayMinutes": 0});
            let response = parse(&json!({"jsonrpc": "2.0", "id": n, "result": {"content": [{"type": "text", "text": structured.to_string()}], "structuredContent": structured}}).to_string()).expect("a valid fixture");
            sightline::mcp::session::Exchange {
                id: Id::Number(i64::try_from(n).unwrap_or_default()),
                method: "tools/call".into(),
                request,
                sent_at: Timestamp(0),
                end: sightline::mcp::session::End::Replied(response),
                ended_at: Timestamp(1),
                http: None,
                rounds: Vec::new(),
                task: None,
            }
        })
        .collect();
    let transcript = std::env::temp_dir().join(format!(
        "sightline-bench-calls-{}.jsonl",
        std::process::id()
    ));
    let mut group = c.benchmark_group("calls");
    group.throughput(Throughput::Elements(CALLS as u64));
    group.sample_size(10);
    group.bench_function("finished_into_the_app_state_recorded", |b| {
        b.iter_batched(
            || {
                let recorder = Recorder::create(
                    transcript.to_str().unwrap_or_default(),
                    "bench",
                    "stdio: bench",
                    Redactor::default(),
                )
                .expect("a writable temp dir");
                let tap = recorder.tap();
                let listed = SessionEvent::ToolsListed(std::sync::Arc::clone(&tools));
                tap(&listed);
                (fresh_state(), tap, exchanges.clone())
            },
            |(mut state, tap, exchanges)| {
                for exchange in exchanges {
                    let reply = exchange.response().cloned().expect("a reply");
                    let Action::Session(event) = logged(
                        reply,
                        Role::Reply {
                            method: "tools/call".into(),
                        },
                    ) else {
                        continue;
                    };
                    tap(&event);
                    update(&mut state, Action::Session(event));
                    let judged = Some(sightline::classify::judge(
                        &exchange,
                        "2025-11-25",
                        Some(&tools),
                    ));
                    let finished = sightline::mcp::verdict::Finished { exchange, judged };
                    let event = SessionEvent::CallFinished(Box::new(finished));
                    tap(&event);
                    update(&mut state, Action::Session(event));
                }
                state
            },
            BatchSize::LargeInput,
        );
    });
    let _ = std::fs::remove_file(&transcript);
    group.finish();
}

criterion_group!(benches, render, ingest, huge_result, calls);
criterion_main!(benches);
