//! The deterministic core of the TUI: state, actions and `update`. No async, no I/O, no clock.

pub mod action;
mod answers;
pub mod ask;
pub mod ask_check;
pub mod ask_form;
pub mod audit;
pub mod audit_panel;
mod capture;
mod catalog;
pub mod catalog_state;
pub mod chat;
mod chat_pane;
mod chat_recorded;
mod commands;
mod completion;
pub mod composer;
pub mod describe;
mod detail;
mod editor;
mod export;
mod forms;
pub mod keys;
pub mod layout;
mod modals;
mod model_pane;
mod navigation;
pub mod overlay;
pub mod panels;
pub mod pending;
pub mod placeholders;
mod prompts;
mod read_back;
mod replayed;
pub mod requests;
mod resources;
pub mod server_info;
mod session_events;
mod shelves;
mod skills;
pub mod state;
mod status;
mod stderr_text;
mod subscriptions;
mod toggles;
pub mod update;
mod waiting;
pub mod workspace;

#[cfg(test)]
mod tests;

pub use action::{Action, Command, Effect, Mouse};
pub use keys::{Keymap, Mode};
pub use overlay::Overlay;
pub use state::AppState;
pub use update::update;
