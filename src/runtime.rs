//! The TUI's impure loop: terminal events, session events and signals in; `update`; effects
//! executed; a redraw after every batch that changed something.

use std::io::{self, stdout};
use std::time::Duration;

use crossterm::clipboard::CopyToClipboard;
use crossterm::execute;
use futures_util::StreamExt;
use ratatui::layout::Rect;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

use crate::app::state::{Settings, Tone};
use crate::app::{Action, AppState, Effect, update};
use crate::cli::ServerArgs;
use crate::live_session::{self, SessionCommand};
use crate::mcp::log::SessionEvent;
use crate::theme::Theme;
use crate::{input, stream, terminal, ui};

/// Session events applied before a redraw, at most: bursts are batched, keys stay prompt.
const BATCH: usize = 4096;
/// How long quitting waits for the server to shut down.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(2);

/// Runs the TUI until the user quits or a signal arrives; the terminal is always restored.
/// `warnings` (e.g. about the theme file) are shown in the status bar at start.
pub async fn run(
    server: &ServerArgs,
    settings: Settings,
    theme: &Theme,
    warnings: Vec<String>,
) -> io::Result<()> {
    let (sink, mut events) = stream::channel();
    let target = server.target().map_err(|error| error.to_string());
    let commands = live_session::spawn(target, server.client_options(), sink);
    let mut terminal = terminal::init()?;
    let result = match terminal.size() {
        Ok(size) => {
            let mut state = AppState::new(
                settings,
                server.to_args(),
                Rect::new(0, 0, size.width, size.height),
            );
            if !warnings.is_empty() {
                state.status = Some((Tone::Error, warnings.join("; ")));
            }
            event_loop(&mut terminal, state, theme, &commands, &mut events).await
        }
        Err(error) => Err(error),
    };
    terminal::restore();
    // The session shuts the server down (stdin, SIGTERM, SIGKILL) and then ends.
    let _ = commands.send(SessionCommand::Shutdown).await;
    let _ = tokio::time::timeout(SHUTDOWN_WAIT, async {
        while events.recv().await.is_some() {}
    })
    .await;
    result
}

async fn event_loop(
    terminal: &mut terminal::Tui,
    mut state: AppState,
    theme: &Theme,
    commands: &mpsc::Sender<SessionCommand>,
    events: &mut mpsc::Receiver<SessionEvent>,
) -> io::Result<()> {
    let mut input = crossterm::event::EventStream::new();
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    terminal.draw(|frame| ui::render(frame, &state, theme))?;
    loop {
        let action = tokio::select! {
            event = input.next() => match event {
                Some(Ok(event)) => match input::action_for(&event, &state) {
                    Some(action) => action,
                    None => continue,
                },
                Some(Err(error)) => return Err(error),
                None => return Ok(()),
            },
            Some(event) = events.recv() => Action::Session(event),
            _ = terminate.recv() => return Ok(()),
            _ = hangup.recv() => return Ok(()),
        };
        let mut effects = update(&mut state, action);
        for _ in 0..BATCH {
            let Ok(event) = events.try_recv() else { break };
            effects.extend(update(&mut state, Action::Session(event)));
        }
        for effect in effects {
            match effect {
                Effect::Quit => return Ok(()),
                Effect::Session(command) => {
                    // The session ends only after Shutdown; a closed channel means it is gone.
                    let _ = commands.send(command).await;
                }
                Effect::Copy(text) => execute!(stdout(), CopyToClipboard::to_clipboard_from(text))?,
            }
        }
        terminal.draw(|frame| ui::render(frame, &state, theme))?;
    }
}
