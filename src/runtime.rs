//! The TUI's impure loop: terminal events, session events and signals in; `update`; effects
//! executed; a redraw at once after the user's input, and paced while session events stream.

use std::io::{self, stdout};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crossterm::clipboard::CopyToClipboard;
use crossterm::execute;
use futures_util::StreamExt;
use ratatui::layout::Rect;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::state::{Settings, Stored};
use crate::app::workspace::{self, Workspace};
use crate::app::{Action, AppState, Effect};
use crate::live_session::{self, SessionCommand};
use crate::mcp::Timestamp;
use crate::mcp::log::{LogEntry, LogEvent, SessionEvent};
use crate::model_client::{self, Model};
use crate::recording::{Places, Recorder};
use crate::runner::SessionOptions;
use crate::stream::EventReceiver;
use crate::theme::Theme;
use crate::transport::Target;
use crate::{input, stream, terminal, ui};

/// Session events applied before a redraw, at most: bursts are batched, keys stay prompt.
const BATCH: usize = 4096;
/// How long quitting waits for the server to shut down.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(2);
/// While session events stream in, a frame at most this often (a flood is drawn a few dozen
/// times a second, not once per batch); the user's own input is drawn at once.
pub const FRAME_INTERVAL: Duration = Duration::from_millis(33);

/// When to draw the next frame.
#[derive(Debug, Clone, Copy)]
pub struct Redraw {
    last: Instant,
    owed: bool,
}

impl Redraw {
    /// Just drawn.
    pub fn new(now: Instant) -> Self {
        Self {
            last: now,
            owed: false,
        }
    }

    /// The state changed (by the user's input when `urgent`): whether to draw now. If not, a
    /// frame is owed and [`Redraw::due`] says when.
    pub fn changed(&mut self, urgent: bool, now: Instant) -> bool {
        if urgent || now.duration_since(self.last) >= FRAME_INTERVAL {
            self.drawn(now);
            true
        } else {
            self.owed = true;
            false
        }
    }

    /// When the owed frame is due, if one is.
    pub fn due(&self) -> Option<Instant> {
        self.owed.then_some(self.last + FRAME_INTERVAL)
    }

    pub fn drawn(&mut self, now: Instant) {
        self.last = now;
        self.owed = false;
    }
}

/// How the TUI ended: the user quit, or a signal ended it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Quit,
    /// SIGINT, SIGTERM or SIGHUP, by number: the exit code is 128 plus it, as a shell reports a
    /// process the signal killed, and as the headless commands exit.
    Signal(i32),
}

impl Ended {
    /// The process's exit code.
    pub fn exit_code(self) -> u8 {
        match self {
            Ended::Quit => 0,
            Ended::Signal(number) => u8::try_from(128 + number).unwrap_or(u8::MAX),
        }
    }
}

/// Runs the TUI until the user quits or a signal arrives; the terminal is always restored.
/// One server the TUI opens, resolved from the command line by the caller.
#[derive(Debug, Clone)]
pub struct Server {
    /// Its name on the server tabs.
    pub name: String,
    /// Where it is, or why it cannot be reached (shown in its log, beside the others).
    pub target: Result<Target, String>,
    pub options: SessionOptions,
    /// The arguments that open it again (the commands the TUI copies name it so).
    pub args: Vec<String>,
}

/// The model the Chat pane asks (`--model`), the client that asks it, and the recorder its turns
/// go to.
struct ModelLink {
    model: Arc<Model>,
    http: reqwest::Client,
    recorder: Option<Recorder>,
}

/// Every server opens at once, each with its own session; a server that fails shows why and
/// never holds up the others. `warnings` (e.g. about the theme file) are shown in the status bar
/// at start. `recorder` records the one server there is (several are refused before this), and
/// the Chat pane's model turns beside it; `model` is what the Chat pane asks.
pub async fn run(
    servers: Vec<Server>,
    settings: Settings,
    theme: &Theme,
    mut warnings: Vec<String>,
    recorder: Option<Recorder>,
    model: Option<Model>,
) -> io::Result<Ended> {
    let model = model.and_then(|model| match model_client::http_client() {
        Ok(http) => Some(ModelLink {
            model: Arc::new(model),
            http,
            recorder: recorder.clone(),
        }),
        Err(why) => {
            warnings.push(why);
            None
        }
    });
    // One stream for every server: each batch a session hands over reaches the loop whole.
    let (sinks, mut events) = stream::merged(servers.len());
    let mut commands = Vec::new();
    let mut names = Vec::new();
    let mut args = Vec::new();
    for (server, mut sink) in servers.into_iter().zip(sinks) {
        if let Some(recorder) = &recorder {
            sink = sink.with_tap(recorder.tap());
        }
        commands.push(live_session::spawn(server.target, server.options, sink));
        names.push(server.name);
        args.push(server.args);
    }
    let mut terminal = terminal::init()?;
    let result = match terminal.size() {
        Ok(size) => {
            let screen = Rect::new(0, 0, size.width, size.height);
            let mut workspace = Workspace::several(names, screen, |index, area| {
                let server_args = args.get(index).cloned().unwrap_or_default();
                AppState::new(settings.clone(), server_args, area)
            });
            for one in &mut workspace.servers {
                one.state.show_warnings(&warnings);
            }
            event_loop(
                &mut terminal,
                workspace,
                theme,
                &commands,
                &mut events,
                Outside {
                    replayed: None,
                    model: model.as_ref(),
                },
                mpsc::unbounded_channel(),
            )
            .await
        }
        Err(error) => Err(error),
    };
    terminal::restore();
    // Each session shuts its server down (stdin, SIGTERM, SIGKILL) and then ends.
    for session in &commands {
        let _ = session.send(SessionCommand::Shutdown).await;
    }
    let _ = tokio::time::timeout(SHUTDOWN_WAIT, async {
        while events.recv().await.is_some() {}
    })
    .await;
    result
}

/// The TUI on a transcript: its events, in their order, through the same `update` as a live
/// session; nothing is sent. A line that cannot be read ends the replay there, said in the log.
/// A `live` transcript (a running proxy's, followed) is shown event by event as it grows.
pub async fn replay<R: io::BufRead + Send + 'static>(
    path: &str,
    reader: crate::recording::Reader<R>,
    settings: Settings,
    theme: &Theme,
    warnings: &[String],
    live: bool,
) -> io::Result<Ended> {
    let (sink, mut events) = stream::channel();
    let file = path.to_owned();
    let places = Arc::new(Mutex::new(Places::default()));
    let noted = Arc::clone(&places);
    let batch = if live { 1 } else { FEED_BATCH };
    let (done, finished) = mpsc::unbounded_channel::<(usize, Action)>();
    let recorded = done.clone();
    tokio::task::spawn_blocking(move || {
        let turns = feed(reader, &sink, &noted, batch);
        // After every event: the Chat pane links each turn to the calls that followed it.
        if !turns.is_empty() {
            let _ = recorded.send((0, Action::ModelsRecorded(turns)));
        }
    });
    let stored = Transcript {
        path: file.clone(),
        places,
    };
    // Nothing answers commands: the app refuses to send in a replay.
    let (commands, _unanswered) = mpsc::channel(1);
    let commands = [commands];
    let mut terminal = terminal::init()?;
    let result = match terminal.size() {
        Ok(size) => {
            // `C` then copies a line that calls the recording, served, in the server's place.
            let server = ["--", "sightline", "replay", &file, "--serve"];
            let mut state = AppState::new(
                settings,
                server.iter().map(|arg| (*arg).to_owned()).collect(),
                Rect::new(0, 0, size.width, size.height),
            );
            state.replay = Some(file);
            state.watched.live = live;
            state.show_warnings(warnings);
            event_loop(
                &mut terminal,
                Workspace::one(state),
                theme,
                &commands,
                &mut events,
                Outside {
                    replayed: Some(&stored),
                    model: None,
                },
                (done, finished),
            )
            .await
        }
        Err(error) => Err(error),
    };
    terminal::restore();
    result
}

/// A replayed transcript, and where its frames and calls lie in it (noted as it is read).
#[derive(Clone)]
pub struct Transcript {
    pub path: String,
    pub places: Arc<Mutex<Places>>,
}

impl Transcript {
    /// What the app asked to read back, read from the file, as the action that brings it.
    pub fn read_back(&self, what: Stored) -> Action {
        let places = self.places.lock().unwrap_or_else(PoisonError::into_inner);
        match what {
            Stored::Frame(number) => Action::FrameRead {
                number,
                result: places.frame(&self.path, number),
            },
            Stored::Call(index) => Action::CallRead {
                index,
                result: places.call(&self.path, index).map(Box::new),
            },
        }
    }
}

/// Events in one batch of a replay, at most.
const FEED_BATCH: usize = 256;

/// Frame text in one batch of a replay's events, at most (one frame may pass it).
const FEED_BATCH_BYTES: usize = 256 * 1024;

/// The frame text an event carries (a call's frames were counted when they were logged).
fn frame_bytes(event: &SessionEvent) -> usize {
    match event {
        SessionEvent::Logged(LogEntry {
            event: LogEvent::Sent(frame) | LogEvent::Received { frame, .. },
            ..
        }) => frame.raw.len(),
        _ => 0,
    }
}

/// Emits a transcript's events in order, `at_most` at a time, noting where each lies; a bad
/// line becomes a note in the log, and the end. The model turns it held come back.
fn feed<R: io::BufRead>(
    mut reader: crate::recording::Reader<R>,
    sink: &stream::EventSink,
    places: &Mutex<Places>,
    at_most: usize,
) -> Vec<crate::transcript::ModelTurn> {
    let mut at = Timestamp(reader.header.started_ms);
    let mut batch = Vec::new();
    let mut bytes = 0;
    while let Some(event) = reader.next() {
        if let Ok(event) = &event {
            let mut places = places.lock().unwrap_or_else(PoisonError::into_inner);
            places.note(event, reader.offset());
        }
        let event = match event {
            Ok(event) => event,
            Err(error) => SessionEvent::Logged(LogEntry {
                at,
                event: LogEvent::Note(error.to_string()),
            }),
        };
        if let SessionEvent::Logged(entry) = &event {
            at = entry.at;
        }
        bytes += frame_bytes(&event);
        batch.push(event);
        // A batch is small in bytes too: the channel holds a few, not a file of big replies.
        if batch.len() >= at_most || bytes >= FEED_BATCH_BYTES {
            bytes = 0;
            tokio::runtime::Handle::current().block_on(sink.emit_from(&mut batch));
        }
    }
    tokio::runtime::Handle::current().block_on(sink.emit_from(&mut batch));
    std::mem::take(&mut reader.model_turns)
}

/// The channel effects done off the loop come back on, tagged with their server.
type Done = (
    mpsc::UnboundedSender<(usize, Action)>,
    mpsc::UnboundedReceiver<(usize, Action)>,
);

/// What effects reach besides the sessions: the replayed transcript, the model.
#[derive(Clone, Copy)]
struct Outside<'a> {
    replayed: Option<&'a Transcript>,
    model: Option<&'a ModelLink>,
}

async fn event_loop(
    terminal: &mut terminal::Tui,
    mut workspace: Workspace,
    theme: &Theme,
    commands: &[mpsc::Sender<SessionCommand>],
    events: &mut EventReceiver,
    outside: Outside<'_>,
    // Files are written and read off this task (a 1 GB copy must not freeze the screen); what
    // they come to arrives here as the action it is, for the server that asked.
    (done, mut finished): Done,
) -> io::Result<Ended> {
    let mut input = crossterm::event::EventStream::new();
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    // In raw mode Ctrl-C is a key; a SIGINT comes from elsewhere (`kill -INT`) and, unhandled,
    // would kill the process with the terminal left raw.
    let mut interrupt = signal(SignalKind::interrupt())?;
    terminal::draw(terminal, |frame| {
        ui::render_workspace(frame, &workspace, theme);
    })?;
    let mut redraw = Redraw::new(Instant::now());
    // Messages in the status line expire: the app counts seconds by these ticks.
    let mut seconds = tokio::time::interval(Duration::from_secs(1));
    seconds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let due = redraw.due();
        let (server, action) = tokio::select! {
            _ = seconds.tick() => {
                let shown = workspace.has_status();
                workspace::update(&mut workspace, Action::Tick);
                if (shown && !workspace.has_status()) || workspace.shown().counts_seconds() {
                    terminal::draw(terminal, |frame| ui::render_workspace(frame, &workspace, theme))?;
                    redraw.drawn(Instant::now());
                }
                continue;
            }
            () = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                terminal::draw(terminal, |frame| ui::render_workspace(frame, &workspace, theme))?;
                redraw.drawn(Instant::now());
                continue;
            }
            event = input.next() => match event {
                Some(Ok(event)) => match input::action_for(&event, workspace.shown()) {
                    Some(action) => (None, action),
                    None => continue,
                },
                Some(Err(error)) => return Err(error),
                None => return Ok(Ended::Quit),
            },
            Some((server, event)) = events.recv_from() => (Some(server), Action::Session(event)),
            Some((server, action)) = finished.recv() => (Some(server), action),
            _ = terminate.recv() => return Ok(Ended::Signal(signal_number::TERM)),
            _ = hangup.recv() => return Ok(Ended::Signal(signal_number::HUP)),
            _ = interrupt.recv() => return Ok(Ended::Signal(signal_number::INT)),
        };
        // A stream of events, a model's streamed words: drawn at the frame pace.
        let urgent = !matches!(action, Action::Session(_) | Action::ModelStreamed { .. });
        let mut effects = match server {
            Some(server) => workspace::update_for(&mut workspace, server, action),
            None => workspace::update(&mut workspace, action),
        };
        for _ in 0..BATCH {
            let Some((server, event)) = events.try_recv_from() else {
                break;
            };
            effects.extend(workspace::update_for(
                &mut workspace,
                server,
                Action::Session(event),
            ));
        }
        for (server, effect) in effects {
            if run_effect(server, effect, commands, &done, outside).await? {
                return Ok(Ended::Quit);
            }
        }
        if redraw.changed(urgent, Instant::now()) {
            terminal::draw(terminal, |frame| {
                ui::render_workspace(frame, &workspace, theme);
            })?;
        }
    }
}

/// The POSIX numbers of the signals that end the TUI.
mod signal_number {
    pub const HUP: i32 = 1;
    pub const INT: i32 = 2;
    pub const TERM: i32 = 15;
}

/// Carries out one effect for `server`; `true` when it is to quit.
async fn run_effect(
    server: usize,
    effect: Effect,
    commands: &[mpsc::Sender<SessionCommand>],
    done: &mpsc::UnboundedSender<(usize, Action)>,
    outside: Outside<'_>,
) -> io::Result<bool> {
    match effect {
        Effect::Quit => return Ok(true),
        Effect::Session(command) => {
            // The session ends only after Shutdown; a closed channel means it is gone.
            if let Some(session) = commands.get(server) {
                let _ = session.send(command).await;
            }
        }
        Effect::Copy(text) => execute!(stdout(), CopyToClipboard::to_clipboard_from(text))?,
        Effect::Save { path, text } => off_the_screen(done, server, move || {
            let result = std::fs::write(&path, &text)
                .map(|()| text.len())
                .map_err(|error| error.to_string());
            Action::Saved { path, result }
        }),
        Effect::AppendCase {
            path,
            server: header,
            case,
        } => off_the_screen(done, server, move || Action::CaseSaved {
            result: append_case(&path, header.as_deref(), &case),
            path,
        }),
        Effect::SaveBytes { path, bytes } => off_the_screen(done, server, move || {
            let result = std::fs::write(&path, &bytes)
                .map(|()| bytes.len())
                .map_err(|error| error.to_string());
            Action::BytesSaved { path, result }
        }),
        Effect::CopyFile { from, path } => off_the_screen(done, server, move || {
            let result = std::fs::copy(&from, &path)
                .map(|bytes| usize::try_from(bytes).unwrap_or(usize::MAX))
                .map_err(|error| error.to_string());
            Action::Saved { path, result }
        }),
        Effect::Capture {
            call,
            host,
            tool,
            arguments,
            server_args,
            host_bin,
        } => off_the_screen(done, server, move || {
            // Before the server's own arguments, which may end with `-- CMD`.
            let args: Vec<String> = host_bin
                .map(|bin| vec!["--host-bin".to_owned(), bin])
                .unwrap_or_default()
                .into_iter()
                .chain(server_args)
                .collect();
            let result = run_capture(&host, &tool, &arguments, &args);
            Action::Captured { call, host, result }
        }),
        Effect::AskModel { run, body } => {
            // Off the loop: a model can take a minute, and keys must not wait for it.
            let done = done.clone();
            let link = outside.model.map(|link| {
                (
                    Arc::clone(&link.model),
                    link.http.clone(),
                    link.recorder.clone(),
                )
            });
            tokio::spawn(async move {
                let result = match link {
                    Some((model, http, recorder)) => {
                        let progress = done.clone();
                        // Only what is new goes: a long answer is not copied once per piece.
                        let mut sent = 0;
                        let mut said = move |text: &str| {
                            let more = text.get(sent..).unwrap_or_default().to_owned();
                            sent = text.len();
                            let _ = progress.send((server, Action::ModelStreamed { run, more }));
                        };
                        model_client::turn_streamed(
                            &http,
                            &model,
                            &body,
                            &mut said,
                            recorder.as_ref(),
                        )
                        .await
                    }
                    None => Err("no model to ask (--model)".to_owned()),
                };
                let _ = done.send((server, Action::ModelAnswered { run, result }));
            });
        }
        Effect::ReadBack(what) => {
            if let Some(transcript) = outside.replayed.cloned() {
                off_the_screen(done, server, move || transcript.read_back(what));
            }
        }
    }
    Ok(false)
}

/// `sightline capture HOST TOOL ARGUMENTS --json SERVER_ARGS…`, this binary run as a child
/// (its own host and mock model); the object it printed, or why there is none.
fn run_capture(
    host: &str,
    tool: &str,
    arguments: &str,
    server_args: &[String],
) -> Result<serde_json::Value, String> {
    let me = std::env::current_exe().map_err(|error| error.to_string())?;
    let output = std::process::Command::new(me)
        .args(["capture", host, tool, arguments, "--json"])
        .args(server_args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|error| error.to_string())?;
    serde_json::from_slice(&output.stdout).map_err(|_| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        stderr
            .trim()
            .trim_start_matches("sightline capture: ")
            .lines()
            .next()
            .unwrap_or("the capture printed nothing")
            .to_owned()
    })
}

/// Runs `work` (file I/O) on a blocking thread; its action comes back through `done`, for
/// `server`.
fn off_the_screen(
    done: &mpsc::UnboundedSender<(usize, Action)>,
    server: usize,
    work: impl FnOnce() -> Action + Send + 'static,
) {
    let done = done.clone();
    tokio::task::spawn_blocking(move || {
        // The loop has ended if nobody listens: the result is no longer wanted.
        let _ = done.send((server, work()));
    });
}

/// Adds `case` to the test file at `path`: `server` first when the file is new or empty.
fn append_case(path: &str, server: Option<&str>, case: &str) -> Result<(), String> {
    use std::io::Write as _;
    let empty = std::fs::metadata(path).map_or(true, |file| file.len() == 0);
    let mut text = String::new();
    match server {
        Some(server) if empty => text.push_str(server),
        _ if !empty => text.push('\n'),
        _ => {}
    }
    text.push_str(case);
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_of_events_owes_a_frame_and_input_draws_at_once() {
        let start = Instant::now();
        let mut redraw = Redraw::new(start);
        let soon = start + Duration::from_millis(1);
        assert!(
            !redraw.changed(false, soon),
            "a session event right after a frame waits"
        );
        assert_eq!(redraw.due(), Some(start + FRAME_INTERVAL));
        assert!(
            redraw.changed(true, soon),
            "the user's key is drawn at once"
        );
        assert_eq!(redraw.due(), None);
        assert!(
            redraw.changed(false, soon + FRAME_INTERVAL),
            "a frame interval later, drawn"
        );
    }
}
