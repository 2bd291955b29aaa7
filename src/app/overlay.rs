//! Which overlay is on top, decided here and only here: input, `update` and rendering all ask
//! [`AppState::overlay`].

use super::ask::AskPanel;
use super::audit_panel::AuditPanel;
use super::keys::Mode;
use super::state::{AppState, Focus};

/// A panel over the panes that takes the keys while it is open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Overlay<'a> {
    /// The key help (`?`, `F1`).
    Help,
    /// The server's question, waiting for the user's answer.
    Question(&'a AskPanel),
    /// The audit of a tool: its plan, running, or its table.
    Audit(&'a AuditPanel),
    /// The free-form request composer.
    Composer(&'a super::composer::Composer),
    /// The Chat pane: a model calling the server.
    Chat(&'a super::chat_pane::ChatPane),
    /// The server's name, era, instructions and capabilities.
    ServerInfo(&'a super::server_info::ServerInfoView),
}

impl AppState {
    /// The overlay on top, if any. Several can be open at once (the help over a question, a
    /// question asked by an audit's call); the first of help, question, composer, chat, server
    /// info and audit wins.
    pub fn overlay(&self) -> Option<Overlay<'_>> {
        if self.show_help {
            Some(Overlay::Help)
        } else if let Some(panel) = &self.asking {
            Some(Overlay::Question(panel))
        } else if self.composer.open {
            Some(Overlay::Composer(&self.composer))
        } else if self.chat.open {
            Some(Overlay::Chat(&self.chat))
        } else if let Some(info) = &self.server_info {
            Some(Overlay::ServerInfo(info))
        } else {
            self.audit.as_ref().map(Overlay::Audit)
        }
    }

    /// What keys mean now. The audit takes the browsing keys (↑↓, Enter, Esc).
    pub fn key_mode(&self) -> Mode {
        match self.overlay() {
            Some(Overlay::Help) => Mode::Help,
            Some(Overlay::Question(_)) => Mode::Answering,
            // Every key but Ctrl-S and Esc is text there, as in the editor.
            Some(Overlay::Composer(_) | Overlay::Chat(_)) => Mode::Editing,
            Some(Overlay::Audit(_) | Overlay::ServerInfo(_)) | None => {
                if self.editing && self.focus == Focus::Editor {
                    Mode::Editing
                } else {
                    Mode::Browsing
                }
            }
        }
    }
}
