//! Requests sent and not yet answered, with who asked for each: plain data in `AppState` (the
//! transitions that send them and route their answers are in `requests.rs`).

use std::collections::VecDeque;

/// Who asked for a request: its answer goes back there. A new kind of request adds a variant
/// here and a row in `answers::finished`.
#[derive(Debug, Clone, PartialEq)]
pub enum Asker {
    /// Nothing waits for the answer: the Exchange log shows it, like every exchange.
    Log,
    /// `p`: the status line says the round trip.
    Ping,
    /// `l`: the status line says how the server took the level.
    SetLevel,
    /// The composer: the status line says the class.
    Composer,
    /// A page of a catalog listing (`generation` tells a listing from the one after it).
    Listing {
        kind: super::catalog_state::ListKind,
        generation: u64,
    },
    /// `resources/read` of `uri`: Detail shows the contents.
    Read { uri: String },
    /// `prompts/get` of `name`: Detail shows the messages.
    Prompt { name: String },
    /// `resources/subscribe` (or unsubscribe) of `uri`.
    Subscription { uri: String, subscribe: bool },
    /// `completion/complete` for the form in the editor.
    Completion,
    /// `resources/read` of the next file of the skill being loaded (`generation` tells a load
    /// from the one after it).
    SkillFile { generation: u64 },
    /// `resources/directory/read` of a page of the dynamic skill being loaded.
    SkillDirectory { generation: u64 },
}

/// Requests sent and not yet answered, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Requests {
    waiting: VecDeque<(String, Asker)>,
}

impl Requests {
    /// Whether a request waiting for its answer matches `wanted`.
    pub fn any(&self, wanted: impl Fn(&str, &Asker) -> bool) -> bool {
        self.waiting
            .iter()
            .any(|(method, asker)| wanted(method, asker))
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// The asker of the oldest waiting request of `method`: the driver answers in the order
    /// sent, so that is the one an answer of this method ends.
    pub(super) fn take(&mut self, method: &str) -> Option<Asker> {
        let index = self.waiting.iter().position(|(sent, _)| sent == method)?;
        self.waiting.remove(index).map(|(_, asker)| asker)
    }

    pub(super) fn push(&mut self, method: &str, asker: Asker) {
        self.waiting.push_back((method.to_owned(), asker));
    }

    /// The connection ended: nothing sent on it will be answered.
    pub fn clear(&mut self) {
        self.waiting.clear();
    }
}
