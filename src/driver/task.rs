//! The tasks extension: a call answered with a task handle is followed with `tasks/get` at the
//! interval the server asks, input it needs given with `tasks/update`, until the task ends; a
//! cancellation is `tasks/cancel` (cooperative: polling goes on to the end).

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Map, json};

use super::Event;
use super::asking::RoundAnswers;
use super::requests::Core;
use crate::classify::classify;
use crate::mcp::input::{self, Answer, ResultType, Round};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{ErrorObject, Reply};
use crate::mcp::session::{Exchange, TaskRun};

/// `tasks/get` requests for one task, at most.
const MAX_TASK_POLLS: u32 = 3600;
/// The polling interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// A task being followed.
#[derive(Debug)]
pub(crate) struct Follow {
    /// The call's exchange, whose reply is the handle; the run is added at the end.
    exchange: Exchange,
    id: String,
    run: TaskRun,
    interval: Duration,
    /// The last status said in the log.
    said: String,
    stage: Stage,
    cancel: Cancel,
}

#[derive(Debug)]
enum Stage {
    Sleeping,
    Cancelling,
    Polling,
    Answering(RoundAnswers),
    Updating,
}

/// The user's cancel: asked for once, sent once.
#[derive(Debug, PartialEq, Eq)]
enum Cancel {
    No,
    Wanted,
    Sent,
}

/// Where following is.
#[derive(Debug)]
pub(crate) enum Followed {
    Wait(Box<Follow>),
    /// The exchange, with its task run when there was one to follow.
    Ended(Exchange),
}

impl Follow {
    /// Follows `exchange`'s task when it is a handle and the extension is declared.
    pub fn start(core: &mut Core, exchange: Exchange) -> Followed {
        let handle = match exchange.reply() {
            Some(Reply::Result(result)) if input::result_type(result) == ResultType::Task => {
                result.clone()
            }
            _ => return Followed::Ended(exchange),
        };
        if !core.options.tasks || !core.modern() {
            return Followed::Ended(exchange);
        }
        let Some(id) = member_text(&handle, "taskId") else {
            core.note("a task handle without a taskId: nothing to poll".into());
            return Followed::Ended(exchange);
        };
        let run = TaskRun {
            id: id.clone(),
            status: member_text(&handle, "status").unwrap_or_else(|| "working".into()),
            polls: 0,
            reply: None,
        };
        let interval = poll_interval(&handle, DEFAULT_POLL);
        core.note(format!(
            "task {id} created ({}): polling tasks/get every {} ms",
            run.status,
            interval.as_millis()
        ));
        Self {
            exchange,
            id,
            run,
            interval,
            said: String::new(),
            stage: Stage::Sleeping,
            cancel: Cancel::No,
        }
        .sleep(core)
    }

    pub fn on(mut self, core: &mut Core, event: Event) -> Followed {
        match (std::mem::replace(&mut self.stage, Stage::Sleeping), event) {
            (Stage::Sleeping, Event::Timer) => self.poll(core),
            (Stage::Sleeping, Event::Cancel) if self.cancel != Cancel::Sent => {
                core.clear_job_timer();
                self.send_cancel(core)
            }
            (Stage::Cancelling, Event::Ended(ack)) => {
                core.note(format!(
                    "cancelled by the user: tasks/cancel sent ({}); the server may still finish \
                     the task (cancellation is cooperative)",
                    classify(&ack).class.label()
                ));
                self.poll(core)
            }
            (Stage::Polling, Event::Ended(polled)) => self.polled(core, &polled),
            (Stage::Answering(mut round), Event::Answered(answer)) => {
                if round.advance(core, Some(answer)) {
                    self.update(core, round)
                } else {
                    self.stage = Stage::Answering(round);
                    Followed::Wait(Box::new(self))
                }
            }
            (Stage::Updating, Event::Ended(_)) => self.sleep(core),
            (stage, event) => {
                if matches!(event, Event::Cancel) && self.cancel == Cancel::No {
                    self.cancel = Cancel::Wanted;
                }
                self.stage = stage;
                Followed::Wait(Box::new(self))
            }
        }
    }

    /// The run as far as it went, on the call's exchange.
    pub fn into_exchange(self) -> Exchange {
        let mut exchange = self.exchange;
        exchange.task = Some(Box::new(self.run));
        exchange
    }

    fn sleep(mut self, core: &mut Core) -> Followed {
        if self.run.polls >= MAX_TASK_POLLS {
            return Followed::Ended(self.into_exchange());
        }
        if self.cancel == Cancel::Wanted {
            return self.send_cancel(core);
        }
        core.set_job_timer(self.interval);
        self.stage = Stage::Sleeping;
        Followed::Wait(Box::new(self))
    }

    fn send_cancel(mut self, core: &mut Core) -> Followed {
        self.cancel = Cancel::Sent;
        core.request("tasks/cancel", Some(json!({"taskId": self.id})));
        self.stage = Stage::Cancelling;
        Followed::Wait(Box::new(self))
    }

    fn poll(mut self, core: &mut Core) -> Followed {
        core.request("tasks/get", Some(json!({"taskId": self.id})));
        self.stage = Stage::Polling;
        Followed::Wait(Box::new(self))
    }

    fn polled(mut self, core: &mut Core, polled: &Exchange) -> Followed {
        self.run.polls += 1;
        let Some(Reply::Result(task)) = polled.reply() else {
            core.note(format!(
                "tasks/get failed: {}; polling stopped",
                classify(polled).detail
            ));
            return Followed::Ended(self.into_exchange());
        };
        self.run.status = member_text(task, "status").unwrap_or_default();
        self.interval = poll_interval(task, self.interval);
        let message = member_text(task, "statusMessage").unwrap_or_default();
        let now = format!("{} {message}", self.run.status);
        if now != self.said {
            core.note(format!("task {}: {}", self.id, now.trim()));
            self.said = now;
        }
        match self.run.status.as_str() {
            "completed" => {
                self.run.reply = task.get("result").map(Reply::Result);
                Followed::Ended(self.into_exchange())
            }
            "failed" => {
                self.run.reply = task
                    .get("error")
                    .and_then(|error| serde_json::from_str::<ErrorObject>(error.text()).ok())
                    .map(Reply::Error);
                Followed::Ended(self.into_exchange())
            }
            "cancelled" => Followed::Ended(self.into_exchange()),
            "input_required" => {
                let required = input::input_required(task);
                let mut round = RoundAnswers::new(required.requests);
                if round.advance(core, None) {
                    self.update(core, round)
                } else {
                    self.stage = Stage::Answering(round);
                    Followed::Wait(Box::new(self))
                }
            }
            _ => self.sleep(core),
        }
    }

    /// A task that needs input: its `inputRequests` answered with `tasks/update`.
    fn update(mut self, core: &mut Core, round: RoundAnswers) -> Followed {
        let mut responses = Map::new();
        for (request, answer) in round.answered {
            core.note(format!(
                "task {} needs input: {}",
                self.id,
                input::describe(&request, &answer)
            ));
            if let (Some(key), Answer::Result(result)) = (&request.key, &answer) {
                responses.insert(key.clone(), result.clone());
            }
            core.rounds.push(Round {
                asked_by: None,
                request,
                answer,
            });
        }
        let params = json!({"taskId": self.id, "inputResponses": responses});
        core.request("tasks/update", Some(params));
        self.stage = Stage::Updating;
        Followed::Wait(Box::new(self))
    }
}

/// A string member of a result, owned.
fn member_text(json: &Json, name: &str) -> Option<String> {
    json.get(name)
        .and_then(|value| value.as_str().map(Cow::into_owned))
}

/// The task's `pollIntervalMs`, kept between 50 ms and 10 s; `otherwise` when it names none.
fn poll_interval(task: &Json, otherwise: Duration) -> Duration {
    task.get("pollIntervalMs")
        .and_then(|ms| ms.as_i64())
        .and_then(|ms| u64::try_from(ms).ok())
        .map_or(otherwise, |ms| Duration::from_millis(ms.clamp(50, 10_000)))
}
