//! Prompts: Enter on the Prompts shelf opens the argument form; a `prompts/get` that ends
//! shows its messages in Detail, by role with their content types.

use super::action::Effect;
use super::catalog::{failure_lines, show_view};
use super::state::AppState;
use super::status::{complain, inform};
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::present::prompts::message_lines;
use crate::sanitize;

/// Enter on the Prompts shelf: the selected prompt's form.
pub(super) fn open(state: &mut AppState) -> Vec<Effect> {
    match state.catalog.prompts.selected_prompt().cloned() {
        Some(prompt) => super::forms::open_prompt(state, &prompt),
        None => complain(state, "no prompt to get: the list is empty".into()),
    }
    Vec::new()
}

/// A `prompts/get` ended: its messages, or the answer that is not them.
pub(super) fn got(state: &mut AppState, name: &str, exchange: &Exchange) {
    let title = format!("prompt {}", sanitize::text(name));
    let messages = match exchange.reply() {
        Some(Reply::Result(result)) => message_lines(result),
        _ => None,
    };
    if let Some(lines) = messages {
        inform(state, format!("got prompt '{}'", sanitize::text(name)));
        show_view(state, title, lines, Vec::new());
    } else {
        let mut lines = failure_lines(exchange);
        if let (Some(Reply::Result(_)), Some(first)) = (exchange.reply(), lines.first_mut()) {
            *first = "a result sightline cannot read: no `messages` array".into();
        }
        show_view(state, title, lines, Vec::new());
    }
}
