//! The terminal's setup and restoration: raw mode, alternate screen and mouse capture are undone
//! on every exit path, panics included.

use std::io::{self, Stdout, stdout};

use crossterm::cursor::SetCursorStyle;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

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
    Terminal::new(CrosstermBackend::new(stdout())).inspect_err(|_| restore())
}

/// Leaves the TUI mode. Safe to call more than once.
pub fn restore() {
    // Each step is best effort: a failing one must not keep the others from running.
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        SetCursorStyle::DefaultUserShape,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}
