//! Requests sent and not yet answered, with who asked for each: plain data in `AppState` (the
//! transitions that send them and route their answers are in `requests.rs`).

use std::collections::VecDeque;

/// Who asked for a request: its answer goes back there. A new kind of request adds a variant
/// here and a row in `requests::finished`.
#[derive(Debug, Clone, PartialEq)]
pub enum Asker {
    /// Nothing waits for the answer: the Exchange log shows it, like every exchange.
    Log,
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
