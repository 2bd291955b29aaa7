//! One `tools/call` to its end: retried once after listing the tools again when the server
//! reports a header mismatch (2026-07-28), retried with `inputResponses` while it answers
//! `input_required`, followed as a task when it answers with a handle; emitted once finished.

use serde_json::{Value, json};

use super::asking::RoundAnswers;
use super::listing::Listing;
use super::requests::{Core, Spec};
use super::task::{self, Follow, Followed};
use super::{Done, Event, StepOf};
use crate::classify;
use crate::mcp::era;
use crate::mcp::input::{self, Answer, InputRequest, InputRequired, ResultType, Round};
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::mcp::verdict::Finished;

/// A call under way.
#[derive(Debug)]
pub(crate) struct Call {
    /// The last `tools/call` params sent (a retry carries the round's answers).
    params: Value,
    stage: Stage,
    /// The input rounds answered so far (2026-07-28 multi round-trip).
    rounds: Vec<Round>,
    retries: usize,
    /// The user cancelled while no request of the call could be.
    cancelled: bool,
}

#[derive(Debug)]
enum Stage {
    /// A `tools/call` went out; the first may be retried after a header mismatch.
    Sent {
        first: bool,
    },
    /// Listing the tools again after a header mismatch, to retry.
    Relisting {
        listing: Listing,
        mismatched: Box<Exchange>,
    },
    /// Answering the input requests of `exchange`.
    Answering {
        exchange: Box<Exchange>,
        required: InputRequired,
        round: RoundAnswers,
    },
    Task(Box<Follow>),
}

impl Call {
    /// Sends `tools/call` with `arguments` exactly as given, asking for progress notifications
    /// as hosts do.
    pub fn start(core: &mut Core, tool: &str, arguments: &Value) -> StepOf<Self> {
        core.progress_tokens += 1;
        let meta = json!({"progressToken": core.progress_tokens});
        let mut params = json!({"name": tool, "arguments": arguments, "_meta": meta});
        if let Some(task) = task::augmentation(core, tool) {
            params["task"] = task;
        }
        core.rounds.clear();
        send(core, &params);
        StepOf::Wait(Self {
            params,
            stage: Stage::Sent { first: true },
            rounds: Vec::new(),
            retries: 0,
            cancelled: false,
        })
    }

    pub fn on(mut self, core: &mut Core, event: Event) -> StepOf<Self> {
        let stage = std::mem::replace(&mut self.stage, Stage::Sent { first: false });
        match (stage, event) {
            (Stage::Sent { first }, Event::Ended(exchange)) => {
                let mismatch = matches!(
                    exchange.reply(),
                    Some(Reply::Error(error)) if error.code == era::HEADER_MISMATCH
                );
                if first && mismatch && core.modern() {
                    // 2026-07-28: the server read other values from the headers than the body
                    // holds; the client lists the tools again and retries once, under a new id.
                    core.note(
                        "HeaderMismatch (-32020): listing the tools again and retrying the call \
                         once"
                            .into(),
                    );
                    let StepOf::Wait(listing) = Listing::start(core) else {
                        return ended(core, exchange);
                    };
                    self.stage = Stage::Relisting {
                        listing,
                        mismatched: Box::new(exchange),
                    };
                    return StepOf::Wait(self);
                }
                self.replied(core, exchange)
            }
            (Stage::Sent { first }, Event::Cancel) => {
                self.stage = Stage::Sent { first };
                // Its end comes as the next event.
                core.cancel_by_user();
                StepOf::Wait(self)
            }
            (
                Stage::Relisting {
                    listing,
                    mismatched,
                },
                event,
            ) => {
                if matches!(event, Event::Cancel) {
                    self.cancelled = true;
                }
                match listing.on(core, event) {
                    StepOf::Wait(listing) => {
                        self.stage = Stage::Relisting {
                            listing,
                            mismatched,
                        };
                        StepOf::Wait(self)
                    }
                    StepOf::Done(_) if self.cancelled => ended(core, *mismatched),
                    StepOf::Done(_) => {
                        send(core, &self.params);
                        self.stage = Stage::Sent { first: false };
                        StepOf::Wait(self)
                    }
                }
            }
            (
                Stage::Answering {
                    exchange,
                    required,
                    mut round,
                },
                Event::Answered(answer),
            ) => {
                if round.advance(core, Some(answer)) {
                    self.retry(core, &exchange, &required, round)
                } else {
                    self.stage = Stage::Answering {
                        exchange,
                        required,
                        round,
                    };
                    StepOf::Wait(self)
                }
            }
            (Stage::Answering { exchange, .. }, Event::Cancel) => {
                core.drop_questions();
                self.after_rounds(core, *exchange)
            }
            (Stage::Task(follow), event) => {
                let followed = follow.on(core, event);
                self.following(core, followed)
            }
            (stage, _) => {
                self.stage = stage;
                StepOf::Wait(self)
            }
        }
    }

    /// Ends the call now (the session is shutting down), with what it has.
    pub fn abort(self, core: &mut Core) -> Done {
        let exchange = match self.stage {
            Stage::Sent { .. } => {
                core.cancel_by_user();
                core.take_ended()
            }
            Stage::Relisting { mismatched, .. } => Some(*mismatched),
            Stage::Answering { exchange, .. } => Some(*exchange),
            Stage::Task(follow) => Some(follow.into_exchange()),
        };
        match exchange {
            Some(mut exchange) => {
                exchange.rounds.extend(self.rounds);
                finish(core, exchange)
            }
            // The call's request was not one the user may cancel (a new session's
            // `initialize` went first): the server's end ends it.
            None => Done::ShutDown,
        }
    }

    /// A reply to the call: 2026-07-28 `input_required` is answered and the call retried.
    fn replied(mut self, core: &mut Core, exchange: Exchange) -> StepOf<Self> {
        let required = match exchange.reply() {
            Some(Reply::Result(result))
                if core.modern() && input::result_type(result) == ResultType::InputRequired =>
            {
                input::input_required(result)
            }
            _ => return self.after_rounds(core, exchange),
        };
        if self.retries == input::MAX_ROUNDS {
            core.note(format!(
                "#{} still answered input_required after {} rounds: sightline stopped retrying",
                exchange.id,
                input::MAX_ROUNDS
            ));
            return self.after_rounds(core, exchange);
        }
        let mut round = RoundAnswers::new(required.requests.clone());
        if round.advance(core, None) {
            return self.retry(core, &exchange, &required, round);
        }
        self.stage = Stage::Answering {
            exchange: Box::new(exchange),
            required,
            round,
        };
        StepOf::Wait(self)
    }

    /// Retries the call with the round's `inputResponses` and its `requestState` echoed,
    /// under a new id.
    fn retry(
        mut self,
        core: &mut Core,
        exchange: &Exchange,
        required: &InputRequired,
        round: RoundAnswers,
    ) -> StepOf<Self> {
        let answered = round.answered;
        for (request, answer) in &answered {
            core.note(format!(
                "#{} needs input: {}",
                exchange.id,
                input::describe(request, answer)
            ));
        }
        self.params = input::retry_params(&self.params, required, &answered);
        core.note(format!(
            "retrying #{} with inputResponses and its requestState under a new id (2026-07-28 \
             multi round-trip)",
            exchange.id
        ));
        let asked_by = exchange.id.clone();
        self.rounds
            .extend(answered.into_iter().map(|(request, answer)| Round {
                asked_by: Some(asked_by.clone()),
                request,
                answer,
            }));
        if required.requests.is_empty() {
            // State only (load shedding): still one round of the call.
            self.rounds.push(Round {
                asked_by: Some(asked_by),
                request: InputRequest {
                    key: None,
                    method: "(requestState only)".into(),
                    params: Value::Null,
                },
                answer: Answer::Result(Value::Null),
            });
        }
        self.retries += 1;
        send(core, &self.params);
        self.stage = Stage::Sent { first: false };
        StepOf::Wait(self)
    }

    /// No more rounds: the rounds go on the exchange, and a task handle is followed.
    fn after_rounds(mut self, core: &mut Core, mut exchange: Exchange) -> StepOf<Self> {
        exchange.rounds = std::mem::take(&mut self.rounds);
        let followed = Follow::start(core, exchange);
        self.following(core, followed)
    }

    fn following(mut self, core: &mut Core, followed: Followed) -> StepOf<Self> {
        match followed {
            Followed::Wait(follow) => {
                self.stage = Stage::Task(follow);
                StepOf::Wait(self)
            }
            Followed::Ended(exchange) => ended(core, exchange),
        }
    }
}

/// Every `tools/call` of a call may be cancelled by the user.
fn send(core: &mut Core, params: &Value) {
    let spec = Spec {
        method: "tools/call".into(),
        params: Some(params.clone()),
        timeout: core.options.timeout,
        cancel_on_timeout: true,
        cancellable: true,
    };
    core.send(spec);
}

/// The call's end, on the session stream after the reply's own log entry (so a consumer can
/// link the two), with the questions the server asked on the way first among its rounds.
fn finish(core: &mut Core, mut exchange: Exchange) -> Done {
    exchange
        .rounds
        .splice(0..0, std::mem::take(&mut core.rounds));
    // Judged here, once: the app, the recorder and headless take this judgement.
    let version = core
        .connection
        .as_ref()
        .map_or("unknown", |connection| connection.protocol_version.as_str());
    let catalog = core.catalog.as_deref();
    let judged = Some(classify::judge(&exchange, version, catalog));
    Done::Called(Box::new(Finished { exchange, judged }))
}

fn ended<J>(core: &mut Core, exchange: Exchange) -> StepOf<J> {
    StepOf::Done(Some(finish(core, exchange)))
}
