//! The TUI under a flood (a bench binary, run once: `cargo bench --bench flood`): a server writes
//! `FLOOD_COUNT` (default 1,000,000) log notifications of about 110 bytes right after the
//! handshake, then answers `tools/list` (`FLOOD_KIND=stderr`: as many 2-byte stderr lines). The live session and the app take every event as the
//! TUI does (batches of events, frames paced by the runtime's `Redraw`); printed: how long after connecting the tools
//! are listed, how many entries the log keeps, and the peak memory against the bytes received.
//! The events reach the app as the runtime takes them, each batch whole with its server's index
//! (`FLOOD_VIA=task`: through a task that takes each batch apart and re-sends its events one by
//! one, tagged, as the runtime did before, for comparison).

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use sightline::app::state::Settings;
use sightline::app::{Action, AppState, update};
use sightline::live_session::{self, SessionCommand};
use sightline::mcp::era::EraChoice;
use sightline::runner::{LogEntry, LogEvent, SessionEvent, SessionOptions};
use sightline::runtime::Redraw;
use sightline::stream;
use sightline::theme::Theme;
use sightline::transport::{StdioCommand, Target};

/// Events applied before a frame is drawn, as in the runtime.
const BATCH: usize = 4096;

/// Where the app takes its events from.
enum Events {
    /// The session stream itself, batches whole (as the runtime takes them).
    Merged(stream::EventReceiver),
    /// Events one by one, re-sent by a task in between (as the runtime took them before).
    Tagged(tokio::sync::mpsc::Receiver<(usize, SessionEvent)>),
}

impl Events {
    fn new(events: stream::EventReceiver, via_task: bool) -> Self {
        if via_task {
            Events::Tagged(tagged(events))
        } else {
            Events::Merged(events)
        }
    }

    async fn recv(&mut self) -> Option<SessionEvent> {
        match self {
            Events::Merged(events) => events.recv_from().await.map(|(_, event)| event),
            Events::Tagged(events) => events.recv().await.map(|(_, event)| event),
        }
    }

    fn try_recv(&mut self) -> Option<SessionEvent> {
        match self {
            Events::Merged(events) => events.try_recv_from().map(|(_, event)| event),
            Events::Tagged(events) => events.try_recv().ok().map(|(_, event)| event),
        }
    }
}

/// The task the runtime had between a session and the app: each event re-sent, tagged.
fn tagged(mut events: stream::EventReceiver) -> tokio::sync::mpsc::Receiver<(usize, SessionEvent)> {
    let (merged, receiver) = tokio::sync::mpsc::channel(stream::CAPACITY * 64);
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if merged.send((0, event)).await.is_err() {
                return;
            }
        }
    });
    receiver
}

/// This process's resident and peak resident memory, in bytes.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches(" kB").parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn received_bytes(event: &SessionEvent) -> u64 {
    match event {
        SessionEvent::Logged(LogEntry {
            event: LogEvent::Received { frame, .. },
            ..
        }) => frame.raw.len() as u64 + 1,
        SessionEvent::Logged(LogEntry {
            event: LogEvent::Stderr(text),
            ..
        }) => text.len() as u64 + 1,
        _ => 0,
    }
}

fn main() {
    let count: usize = std::env::var("FLOOD_COUNT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let kind = std::env::var("FLOOD_KIND").unwrap_or_else(|_| "notifications".into());
    let stderr = kind == "stderr";
    let via_task = std::env::var("FLOOD_VIA").is_ok_and(|via| via == "task");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let settings = Settings::default();
    let mut state = AppState::new(settings, Vec::new(), Rect::new(0, 0, 120, 40));
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a test terminal");
    let theme = Theme::fallback();
    let (rss_before, _) = memory();
    let target = Target::Stdio(StdioCommand {
        program: "python3".into(),
        args: vec![
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py").into(),
            "flood".into(),
        ],
        env: [
            ("FLOOD_COUNT".to_owned(), count.to_string()),
            ("FLOOD_KIND".to_owned(), kind.clone()),
        ]
        .into(),
        cwd: None,
    });
    let options = SessionOptions {
        era: EraChoice::Legacy,
        timeout: Duration::from_secs(120),
        ..SessionOptions::default()
    };
    let (listed_after, bytes) = runtime.block_on(async {
        let (mut sinks, events) = stream::merged(1);
        let commands = live_session::spawn(Ok(target), options, sinks.remove(0));
        let mut events = Events::new(events, via_task);
        let mut connected = None;
        let mut seen_list = false;
        let mut redraw = Redraw::new(tokio::time::Instant::now());
        let mut bytes = 0;
        'session: while let Some(first) = events.recv().await {
            let mut batch = vec![first];
            while batch.len() < BATCH {
                match events.try_recv() {
                    Some(event) => batch.push(event),
                    None => break,
                }
            }
            for event in batch {
                bytes += received_bytes(&event);
                match &event {
                    SessionEvent::Connected(_) => connected = Some(Instant::now()),
                    SessionEvent::ToolsListed(_) | SessionEvent::ToolsFailed(_) => {
                        seen_list = true;
                    }
                    _ => {}
                }
                update(&mut state, Action::Session(event));
            }
            let listed = seen_list;
            if redraw.changed(listed, tokio::time::Instant::now()) {
                terminal
                    .draw(|frame| sightline::ui::render(frame, &state, &theme))
                    .expect("a frame");
            }
            // Stderr has its own pipe: wait for all of it too.
            if listed && (!stderr || state.log.console_lines >= count) {
                break 'session;
            }
        }
        let _ = commands.send(SessionCommand::Shutdown).await;
        (connected.map(|at| at.elapsed()), bytes)
    });
    let (rss_after, peak) = memory();
    let entries = state.log.lines.len();
    #[allow(clippy::cast_precision_loss)] // figures for a person to read
    let mb = |bytes: u64| bytes as f64 / 1e6;
    #[allow(clippy::cast_precision_loss)]
    let ratio = |grown: u64| grown as f64 / bytes.max(1) as f64;
    println!("flood/{count} {kind} ({:.1} MB received)", mb(bytes));
    match listed_after {
        Some(elapsed) => println!(
            "  tools listed (and every line taken) {:.2} s after connecting",
            elapsed.as_secs_f64()
        ),
        None => println!("  never connected"),
    }
    println!("  log entries kept: {entries}");
    println!(
        "  memory: resident +{:.1} MB ({:.2}x the bytes received), peak +{:.1} MB ({:.2}x)",
        mb(rss_after.saturating_sub(rss_before)),
        ratio(rss_after.saturating_sub(rss_before)),
        mb(peak.saturating_sub(rss_before)),
        ratio(peak.saturating_sub(rss_before)),
    );
}
