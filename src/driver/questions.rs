//! The questions waiting for the user, as data: who asked each, what the answers given in
//! advance propose, and the one being asked (see `asking` for how they are asked).

use std::collections::VecDeque;
use std::time::Duration;

use crate::mcp::input::{Answer, InputRequest};
use crate::mcp::jsonrpc::Id;

/// Who waits for a question's answer.
#[derive(Debug, Clone)]
pub(super) enum Asker {
    /// A legacy server's request, by its id.
    Server(Id),
    /// The running job.
    Job,
}

#[derive(Debug, Clone)]
pub(super) struct Question {
    pub(super) asker: Asker,
    pub(super) request: InputRequest,
    /// What the answers given in advance say: the answer when nobody else gives one.
    pub(super) proposed: Answer,
}

#[derive(Debug)]
pub(super) struct Asking {
    pub(super) number: u64,
    pub(super) question: Question,
    pub(super) since: Duration,
}

/// The questions waiting, the one asked, and an answer the job has yet to take.
#[derive(Debug, Default)]
pub(crate) struct Questions {
    pub(super) waiting: VecDeque<Question>,
    pub(super) asking: Option<Asking>,
    /// Questions asked so far (their numbers).
    pub(super) asked: u64,
    pub(super) for_job: Option<Answer>,
}

impl Questions {
    /// Server requests waiting for the user, the one asked included.
    pub fn for_server(&self) -> usize {
        let asked = self.asking.iter().map(|asking| &asking.question);
        asked
            .chain(&self.waiting)
            .filter(|question| matches!(question.asker, Asker::Server(_)))
            .count()
    }

    pub fn ask_for_server(&mut self, id: Id, request: InputRequest, proposed: Answer) {
        self.waiting.push_back(Question {
            asker: Asker::Server(id),
            request,
            proposed,
        });
    }

    /// Whether the user is answering what a server asked (its request's deadline waits).
    pub fn asking_for_server(&self) -> bool {
        self.asking
            .as_ref()
            .is_some_and(|asking| matches!(asking.question.asker, Asker::Server(_)))
    }
}
