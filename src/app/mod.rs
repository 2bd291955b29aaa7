//! The deterministic core of the TUI: state, actions and `update`. No async, no I/O, no clock.

pub mod action;
pub mod ask;
pub mod audit;
mod capture;
pub mod describe;
mod editor;
mod export;
pub mod layout;
pub mod placeholders;
pub mod state;
pub mod update;

#[cfg(test)]
mod tests;

pub use action::{Action, Command, Effect, Mouse};
pub use state::AppState;
pub use update::update;
