//! Questions for the user, one at a time: what a legacy server asks (answered as a reply to its
//! request) and what a job needs (an input round, a task's input); each is a
//! `SessionEvent::Asked`, and its answer one `Command::Answer`.

use std::time::Duration;

use super::questions::{Asker, Asking, Question};
use super::requests::Core;
use crate::mcp::input::{self, Answer, InputRequest};
use crate::mcp::log::SessionEvent;

impl Core {
    /// The answer to the job's question `request`: at once from the answers given in advance,
    /// or `None` when the user is asked (the answer then comes to the job as an event).
    pub fn ask(&mut self, request: &InputRequest) -> Option<Answer> {
        let proposed = input::answer(request, &self.options.answers);
        if !self.options.ask {
            return Some(proposed);
        }
        self.questions.waiting.push_back(Question {
            asker: Asker::Job,
            request: request.clone(),
            proposed,
        });
        self.pump_questions();
        None
    }

    /// Asks the next question, when none is asked.
    pub fn pump_questions(&mut self) {
        if self.questions.asking.is_some() {
            return;
        }
        let Some(question) = self.questions.waiting.pop_front() else {
            return;
        };
        self.questions.asked += 1;
        let number = self.questions.asked;
        self.emit(SessionEvent::Asked {
            number,
            request: Box::new(question.request.clone()),
            proposed: Box::new(question.proposed.clone()),
        });
        self.questions.asking = Some(Asking {
            number,
            question,
            since: self.now.mono,
        });
    }

    /// The user answered question `number`; an answer to another question is stale.
    pub fn answered(&mut self, number: u64, answer: Answer) {
        if self.questions.asking.as_ref().map(|asking| asking.number) != Some(number) {
            return;
        }
        let Some(asking) = self.questions.asking.take() else {
            return;
        };
        let waited = self.now.mono.saturating_sub(asking.since);
        self.deliver(asking.question, answer, waited);
        self.pump_questions();
    }

    fn deliver(&mut self, question: Question, answer: Answer, waited: Duration) {
        match question.asker {
            Asker::Server(id) => {
                self.reply_to_question(id, question.request, answer);
                self.extend_deadline(waited);
            }
            Asker::Job => self.questions.for_job = Some(answer),
        }
    }

    /// The answer the job waits for, once given.
    pub fn take_job_answer(&mut self) -> Option<Answer> {
        self.questions.for_job.take()
    }

    /// The session ends: each server question still open gets the answer given in advance;
    /// the job's are dropped with the job.
    pub fn drop_questions(&mut self) {
        let asked = self.questions.asking.take().map(|asking| asking.question);
        let open: Vec<Question> = asked
            .into_iter()
            .chain(self.questions.waiting.drain(..))
            .collect();
        for question in open {
            if let Asker::Server(id) = question.asker {
                self.reply_to_question(id, question.request, question.proposed);
            }
        }
        self.questions.for_job = None;
    }
}

/// One round of input requests answered in order: the first [`input::MAX_QUESTIONS`] by
/// asking, the rest refused (left out of `inputResponses`: the server may ask again).
#[derive(Debug)]
pub(crate) struct RoundAnswers {
    requests: Vec<InputRequest>,
    pub answered: Vec<(InputRequest, Answer)>,
}

impl RoundAnswers {
    pub fn new(requests: Vec<InputRequest>) -> Self {
        Self {
            requests,
            answered: Vec::new(),
        }
    }

    /// Takes `answer` for the question asked, then asks on: `true` once every request is
    /// answered, `false` while the user is asked.
    pub fn advance(&mut self, core: &mut Core, answer: Option<Answer>) -> bool {
        if let (Some(answer), Some(request)) = (answer, self.requests.get(self.answered.len())) {
            self.answered.push((request.clone(), answer));
        }
        while let Some(request) = self.requests.get(self.answered.len()) {
            let answer = if self.answered.len() < input::MAX_QUESTIONS {
                match core.ask(request) {
                    Some(answer) => answer,
                    None => return false,
                }
            } else {
                Answer::Refused(crate::mcp::jsonrpc::ErrorObject {
                    code: -32603,
                    message: format!(
                        "more than {} input requests in one round: not asked",
                        input::MAX_QUESTIONS
                    ),
                    data: None,
                })
            };
            self.answered.push((request.clone(), answer));
        }
        true
    }
}
