//! The terminal's setup and restoration: raw mode, alternate screen and mouse capture are undone
//! on every exit path, panics included.

use std::io::{self, BufWriter, Stdout, stdout};

use crossterm::cursor::SetCursorStyle;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
    disable_raw_mode, enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::backend::CrosstermBackend;
use ratatui::{Frame, Terminal};

pub type Tui = Terminal<CrosstermBackend<BufWriter<Stdout>>>;

/// Bytes the frame buffer holds: a full 200×60 redraw in colour fits, so a frame leaves in one
/// write where the standard output's line buffer would send it in 1 KiB pieces.
const FRAME_BUFFER: usize = 256 * 1024;

/// Enters the TUI mode; installs a panic hook that restores the terminal first.
pub fn init() -> io::Result<Tui> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    enable_raw_mode()?;
    // The editor's cursor: a blinking bar where the terminal can draw one.
    let setup = execute!(
        stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        SetCursorStyle::BlinkingBar
    );
    if let Err(error) = setup {
        restore();
        return Err(error);
    }
    Terminal::new(CrosstermBackend::new(BufWriter::with_capacity(
        FRAME_BUFFER,
        stdout(),
    )))
    .inspect_err(|_| restore())
}

/// Draws one frame as one synchronized update (DEC mode 2026): a terminal that knows the mode
/// shows the frame whole, never half old and half new; one that does not ignores it.
pub fn draw(terminal: &mut Tui, render: impl FnOnce(&mut Frame)) -> io::Result<()> {
    // Queued, so it leaves with the frame's own bytes.
    queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
    let drawn = terminal.draw(render).map(|_| ());
    // Ended even when the draw failed: a terminal left mid-update would stop showing anything.
    let ended = execute!(terminal.backend_mut(), EndSynchronizedUpdate);
    drawn.and(ended)
}

/// Leaves the TUI mode. Safe to call more than once.
pub fn restore() {
    // Each step is best effort: a failing one must not keep the others from running.
    // A panic inside a draw leaves its synchronized update open: ended first.
    let _ = execute!(
        stdout(),
        EndSynchronizedUpdate,
        DisableMouseCapture,
        LeaveAlternateScreen,
        SetCursorStyle::DefaultUserShape,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}
