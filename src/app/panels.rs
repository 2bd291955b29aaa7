//! The composer's and the server info overlay's state: plain data held by `AppState` (their
//! transitions are in `composer.rs` and `server_info.rs`).

use tui_textarea::TextArea;

/// The composer's text and what is wrong with it, if anything.
#[derive(Debug, Clone, Default)]
pub struct Composer {
    pub textarea: TextArea<'static>,
    /// Why the last Ctrl-S sent nothing (JSON that does not parse), terminal-safe.
    pub problem: Option<String>,
    /// It shows (and takes the keys); closed, it keeps its text.
    pub open: bool,
}

impl PartialEq for Composer {
    fn eq(&self, other: &Self) -> bool {
        self.textarea.lines() == other.textarea.lines()
            && self.problem == other.problem
            && self.open == other.open
    }
}

/// The overlay's lines (wrapped when drawn) and its first visible line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerInfoView {
    pub lines: Vec<String>,
    pub scroll: usize,
}
