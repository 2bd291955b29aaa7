//! Where the answer to each request the app sent goes: to whoever asked for it (see
//! `waiting::Asker`), the oldest waiting request of the answer's method first.

use super::action::Effect;
use super::state::AppState;
use super::waiting::Asker;
use crate::mcp::session::Exchange;

/// A request the app sent ended: its answer goes to whoever asked. One nobody waits for (sent
/// on a connection that has ended) is in the log, and that is all.
pub fn finished(state: &mut AppState, exchange: &Exchange) -> Vec<Effect> {
    let Some(asker) = state.requests.take(&exchange.method) else {
        return Vec::new();
    };
    match asker {
        Asker::Log => Vec::new(),
        Asker::Ping | Asker::SetLevel | Asker::Composer => {
            super::composer::finished(state, &asker, exchange);
            Vec::new()
        }
        Asker::Listing { kind, generation } => {
            super::catalog::page(state, kind, generation, exchange)
        }
        Asker::Read { uri } => {
            super::resources::read_finished(state, &uri, exchange);
            Vec::new()
        }
        Asker::Prompt { name } => {
            super::prompts::got(state, &name, exchange);
            Vec::new()
        }
        Asker::Subscription { uri, subscribe } => {
            super::subscriptions::subscription_finished(state, uri, subscribe, exchange);
            Vec::new()
        }
        Asker::Completion => super::completion::finished(state, exchange),
        Asker::SkillFile { generation } => super::skills::file_read(state, generation, exchange),
        Asker::SkillDirectory { generation } => {
            super::skills::directory_read(state, generation, exchange)
        }
    }
}
