//! Benchmarks of the engine: frames framed, parsed, correlated and classified per second (the
//! ingestion path of every frame), the same path for two large replies (one 50 MB text, a
//! million empty blocks), server-sent events parsed per second, and one whole `sightline call`
//! against the demo server, over stdio and over HTTP; and what the model sees of the large
//! replies, per host profile; frames written to a transcript (`--record`); and the DPoP proof
//! each request to a server with bound tokens carries.
//! Run: `cargo bench --bench engine`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use sightline::classify::classify;
use sightline::mcp::Timestamp;
use sightline::mcp::framing::{DEFAULT_MAX_FRAME_BYTES, LineFramer, decode};
use sightline::mcp::log::{LogEntry, LogEvent, Role, SessionEvent};
use sightline::mcp::session::{Correlation, Session};
use sightline::recording::Recorder;
use sightline::transcript::Redactor;

const FRAMES: usize = 10_000;

/// A session with `FRAMES` pending `tools/call`s, and the server's replies as one byte stream,
/// alternating success, tool error and protocol error.
fn workload() -> (Session, Vec<u8>) {
    let mut session = Session::new();
    let mut wire = Vec::new();
    for n in 1..=FRAMES {
        session.start_request("tools/call", None, Timestamp(0));
        let body = match n % 3 {
            0 => {
                r#""result":{"content":[{"type":"text","text":"Booked: one seat departing 12/12/2027."}]}"#
            }
            1 => {
                r#""result":{"content":[{"type":"text","text":"Invalid departure date: must be in the future."}],"isError":true}"#
            }
            _ => r#""error":{"code":-32602,"message":"Invalid arguments for tool book_flight"}"#,
        };
        wire.extend_from_slice(format!(r#"{{"jsonrpc":"2.0","id":{n},{body}}}"#).as_bytes());
        wire.push(b'\n');
    }
    (session, wire)
}

fn ingest(session: &mut Session, wire: &[u8]) -> usize {
    let mut framer = LineFramer::new(DEFAULT_MAX_FRAME_BYTES);
    let mut classified = 0;
    // 64 KiB reads, as the stdio reader does.
    for chunk in wire.chunks(64 * 1024) {
        for line in framer.push(chunk) {
            let Ok(frame) = decode(line, framer.limit()) else {
                continue;
            };
            if let Correlation::Completed(exchange) = session.on_frame(frame, Timestamp(1)) {
                black_box(classify(&exchange));
                classified += 1;
            }
        }
    }
    classified
}

fn ingestion(c: &mut Criterion) {
    let mut group = c.benchmark_group("ingest");
    group.throughput(Throughput::Elements(FRAMES as u64));
    group.bench_function("small_frames", |b| {
        b.iter_batched(
            workload,
            |(mut session, wire)| assert_eq!(ingest(&mut session, &wire), FRAMES),
            BatchSize::LargeInput,
        );
    });
    for (name, reply) in large_replies() {
        group.throughput(Throughput::Bytes(reply.len() as u64));
        group.sample_size(10);
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let mut session = Session::new();
                    session.start_request("tools/call", None, Timestamp(0));
                    session
                },
                |mut session| assert_eq!(ingest(&mut session, reply.as_bytes()), 1),
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

/// A reply made of one 50 MB text, and one made of 1,000,000 empty text blocks (26 MB).
fn large_replies() -> [(&'static str, String); 2] {
    let text = "x".repeat(50 * 1024 * 1024);
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}
"#
    );
    let blocks = vec![r#"{"type":"text","text":""}"#; 1_000_000].join(",");
    let many = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{blocks}]}}}}
"#
    );
    [
        ("reply_of_one_50MB_text", huge),
        ("reply_of_1M_blocks", many),
    ]
}

/// What the model sees of each large reply, as the pane builds it (the view, then the first
/// 4 KiB of its text), per host profile: `spec` passes the text whole, `codex` cuts it to its
/// 12,000-byte limit, `openai-chat` turns a million empty blocks into one placeholder-free text.
fn model_view(c: &mut Criterion) {
    let mut group = c.benchmark_group("model_view");
    group.sample_size(10);
    for (name, reply) in large_replies() {
        let mut session = Session::new();
        session.start_request("tools/call", None, Timestamp(0));
        let mut framer = LineFramer::new(DEFAULT_MAX_FRAME_BYTES);
        let line = framer
            .push(reply.as_bytes())
            .into_iter()
            .next()
            .expect("one line");
        let frame = decode(line, DEFAULT_MAX_FRAME_BYTES).expect("a frame");
        let Correlation::Completed(exchange) = session.on_frame(frame, Timestamp(1)) else {
            panic!("the reply completes the call");
        };
        let outcome = classify(&exchange);
        for host in ["spec", "codex", "openai-chat"] {
            // A profile this build does not have is skipped (for before/after runs).
            let Ok(host) = sightline::model_view::hosts::resolve(host, &[]) else {
                continue;
            };
            let context = sightline::analysis::CallContext {
                version: "2025-11-25",
                catalog: None,
                host: &host,
                forward_protocol_errors: false,
            };
            group.bench_function(format!("{name}/{}", host.name), |b| {
                b.iter(|| {
                    let view = sightline::analysis::view(&exchange, &outcome, &context);
                    black_box(view.text_within(4096))
                });
            });
        }
    }
    group.finish();
}

/// Frames written to a transcript per second: the recorder's tap alone (serialize, mask, write,
/// flush each line), over the received frames of the ingest workload.
fn record(c: &mut Criterion) {
    let (mut session, wire) = workload();
    let mut framer = LineFramer::new(DEFAULT_MAX_FRAME_BYTES);
    let events: Vec<SessionEvent> = framer
        .push(&wire)
        .into_iter()
        .filter_map(|line| decode(line, DEFAULT_MAX_FRAME_BYTES).ok())
        .map(|frame| {
            let _ = session.on_frame(frame.clone(), Timestamp(1));
            SessionEvent::Logged(LogEntry {
                at: Timestamp(1),
                event: LogEvent::Received {
                    frame,
                    role: Role::Reply {
                        method: "tools/call".into(),
                    },
                },
            })
        })
        .collect();
    let path = std::env::temp_dir().join(format!("sightline-record-{}.jsonl", std::process::id()));
    let path = path.to_str().unwrap_or_default().to_owned();
    let mut group = c.benchmark_group("record");
    group.throughput(Throughput::Elements(events.len() as u64));
    group.bench_function("frames_written", |b| {
        b.iter_batched(
            || {
                Recorder::create(&path, "bench", "stdio: bench", Redactor::default())
                    .expect("a writable temp dir")
                    .tap()
            },
            |tap| {
                for event in &events {
                    tap(event);
                }
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
    let _ = std::fs::remove_file(&path);
}

/// `book_flight` with a past date: a tool error, exit 1.
const PAST_DATE: [&str; 2] = ["book_flight", r#"{"departureDate":"12/12/2024"}"#];

fn headless_call(c: &mut Criterion) {
    bench_call(c, "demo_server_book_flight", PAST_DATE, &[], 1);
    // A call that needs the user's answer: one question, answered by flag (legacy: a server
    // request mid-call; 2026-07-28: input_required and a retry).
    let confirm = ["confirm_booking", r#"{"departureDate":"25/12/2099"}"#];
    for era in ["legacy", "modern"] {
        let flags = ["--era", era, "--elicit", r#"accept:{"confirm":true}"#];
        bench_call(
            c,
            &format!("demo_server_confirm_booking_{era}"),
            confirm,
            &flags,
            0,
        );
    }
}

/// One `sightline call TOOL ARGS --json` with these server arguments, ending with `code`.
fn bench_call(c: &mut Criterion, name: &str, call: [&str; 2], server: &[&str], code: i32) {
    let mut group = c.benchmark_group("call");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    group.bench_function(name, |b| {
        b.iter(|| {
            let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
                .args(["call", call[0], call[1], "--json"])
                .args(server)
                .output()
                .expect("sightline runs");
            assert_eq!(output.status.code(), Some(code));
        });
    });
    group.finish();
}

/// Server-sent events parsed per second: 10,000 events, as one stream read in 64 KiB chunks.
fn sse(c: &mut Criterion) {
    const EVENTS: usize = 10_000;
    let mut stream = String::new();
    for n in 0..EVENTS {
        let _ = write!(
            stream,
            "id: {n}\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progress\":{n}}}}}\n\n"
        );
    }
    let mut group = c.benchmark_group("sse");
    group.throughput(Throughput::Elements(EVENTS as u64));
    group.bench_function("events_parsed", |b| {
        b.iter(|| {
            let mut parser = sightline::mcp::sse::SseParser::new(DEFAULT_MAX_FRAME_BYTES);
            let parsed: usize = stream
                .as_bytes()
                .chunks(64 * 1024)
                .map(|chunk| parser.push(chunk).len())
                .sum();
            assert_eq!(parsed, EVENTS);
        });
    });
    group.finish();
}

/// One whole `sightline call --url` against `sightline demo-server --http` (process start,
/// the era probe, tools/list, the call, the session's end).
fn http_call(c: &mut Criterion) {
    use std::io::BufRead;
    let mut server = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["demo-server", "--http"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the demo server starts");
    let mut url = String::new();
    let stdout = server.stdout.take().expect("its stdout");
    std::io::BufReader::new(stdout)
        .read_line(&mut url)
        .expect("it prints its URL");
    let url = url.trim().to_owned();
    bench_call(
        c,
        "demo_server_book_flight_over_http",
        PAST_DATE,
        &["--url", &url],
        1,
    );
    let _ = server.kill();
    let _ = server.wait();
}

/// The audit: cases planned per second from the demo server's tools (pure), and cases planned,
/// sent and judged per second by a whole `sightline audit --yes --json` against the demo server
/// (process start, negotiation and listing included).
fn audit(c: &mut Criterion) {
    let tools: sightline::mcp::catalog::Catalog = sightline::demo_server::tools::definitions()
        .iter()
        .map(sightline::mcp::messages::Tool::from_value)
        .collect();
    let options = sightline::audit::Options::default();
    let planned = sightline::audit::plan(&tools, &options).cases.len();
    let mut group = c.benchmark_group("audit");
    group.throughput(Throughput::Elements(planned as u64));
    group.bench_function("cases_planned", |b| {
        b.iter(|| {
            let plan = sightline::audit::plan(&tools, &options);
            assert_eq!(plan.cases.len(), planned);
        });
    });
    for style in ["sep1303", "legacy"] {
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(15));
        group.bench_function(format!("cases_run_demo_{style}"), |b| {
            b.iter(|| {
                let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
                    .args(["audit", "--yes", "--json", "--demo", style])
                    .output()
                    .expect("sightline runs");
                assert_eq!(output.status.code(), Some(i32::from(style == "legacy")));
            });
        });
    }
    group.finish();
}

/// What a DPoP-bound token adds to each HTTP request: one proof signed (ES256), its JWK and
/// the token's hash included (RFC 9449 §4.2, §7.1).
fn dpop_proof(c: &mut Criterion) {
    use sightline::mcp::dpop::{DpopKey, ProofRequest};
    let rng = ring::rand::SystemRandom::new();
    let key = DpopKey::generate(&rng).expect("a key");
    let url = url::Url::parse("https://mcp.example.com/mcp").expect("url");
    let token = "x".repeat(800);
    let mut group = c.benchmark_group("dpop");
    group.throughput(Throughput::Elements(1));
    group.bench_function("proof_per_request", |b| {
        b.iter(|| {
            let request = ProofRequest {
                method: "POST",
                url: &url,
                access_token: Some(&token),
                nonce: Some("nonce"),
                now: 1_700_000_000,
                jti: "jti",
            };
            black_box(key.proof(&request, &rng).expect("signed"));
        });
    });
    group.finish();
}

criterion_group!(
    benches,
    dpop_proof,
    ingestion,
    model_view,
    record,
    headless_call,
    sse,
    http_call,
    audit
);
criterion_main!(benches);
