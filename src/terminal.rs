//! The terminal's setup and restoration: raw mode, alternate screen and mouse capture are undone
//! on every exit path, panics included.

use std::io::{self, BufWriter, Stdout, Write, stdout};

use crossterm::cursor::SetCursorStyle;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
    disable_raw_mode, enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::backend::CrosstermBackend;
use ratatui::{Frame, Terminal};

pub type Tui = Terminal<CrosstermBackend<FrameWriter>>;

/// Bytes the frame buffer holds: a full 200×60 redraw in colour fits, so a frame leaves in one
/// write where the standard output's line buffer would send it in 1 KiB pieces.
const FRAME_BUFFER: usize = 256 * 1024;

/// The terminal's output, a frame at a time. While a panic unwinds it writes nothing and throws
/// away what it holds: the panic hook has restored the terminal, and a half-made frame (or an
/// open synchronized update, or the cursor shown by the terminal's drop) written after that
/// would land on the user's screen.
pub struct FrameWriter(Option<BufWriter<Stdout>>);

impl FrameWriter {
    fn live(&mut self) -> Option<&mut BufWriter<Stdout>> {
        if std::thread::panicking()
            && let Some(writer) = self.0.take()
        {
            // Unflushed: the buffer goes with it.
            drop(writer.into_parts());
        }
        self.0.as_mut()
    }
}

impl Write for FrameWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self.live() {
            Some(writer) => writer.write(bytes),
            None => Ok(bytes.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.live() {
            Some(writer) => writer.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for FrameWriter {
    fn drop(&mut self) {
        self.live();
    }
}

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
    let writer = FrameWriter(Some(BufWriter::with_capacity(FRAME_BUFFER, stdout())));
    Terminal::new(CrosstermBackend::new(writer)).inspect_err(|_| restore())
}

/// Draws one frame as one synchronized update (DEC mode 2026): a terminal that knows the mode
/// shows the frame whole, never half old and half new; one that does not ignores it.
pub fn draw(terminal: &mut Tui, render: impl FnOnce(&mut Frame)) -> io::Result<()> {
    // Queued, so it leaves with the frame's own bytes.
    queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
    let drawn = terminal
        .draw(|frame| {
            render(frame);
            #[cfg(debug_assertions)]
            panic_if_asked();
        })
        .map(|_| ());
    // Ended even when the draw failed: a terminal left mid-update would stop showing anything.
    let ended = execute!(terminal.backend_mut(), EndSynchronizedUpdate);
    drawn.and(ended)
}

/// Debug builds only: `SIGHTLINE_DEBUG_PANIC_AT_DRAW=N` panics inside the Nth draw, so that
/// the tests can watch the terminal come back from a panic (release builds have no such switch).
#[cfg(debug_assertions)]
fn panic_if_asked() {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static AT: OnceLock<Option<usize>> = OnceLock::new();
    static DRAWS: AtomicUsize = AtomicUsize::new(0);
    let at = AT.get_or_init(|| {
        std::env::var("SIGHTLINE_DEBUG_PANIC_AT_DRAW")
            .ok()
            .and_then(|n| n.parse().ok())
    });
    if let Some(at) = at
        && DRAWS.fetch_add(1, Ordering::Relaxed) + 1 == *at
    {
        panic!("a panic inside draw {at}, asked for by SIGHTLINE_DEBUG_PANIC_AT_DRAW");
    }
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
