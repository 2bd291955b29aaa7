//! Tasks in both forms, followed to their end with `tasks/get` at the interval the server asks:
//! the 2026-07-28 extension (`resultType: "task"`; input given with `tasks/update`; the end
//! carried by `tasks/get`) and 2025-11-25 task-augmented requests (`params.task`; the result
//! fetched with `tasks/result`, which also carries the server's questions); a cancellation is
//! `tasks/cancel` (cooperative: polling goes on to the end).

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::Event;
use super::asking::RoundAnswers;
use super::requests::{Core, Spec};
use crate::classify::classify;
use crate::mcp::input::{self, Answer, ResultType, Round};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{ErrorObject, Reply};
use crate::mcp::session::{Exchange, TaskForm, TaskRun};

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
    /// 2025-11-25: `tasks/result` sent; it answers once the task has ended.
    Fetching,
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
        let Some((form, handle)) = handle(core, &exchange) else {
            return Followed::Ended(exchange);
        };
        let Some(id) = member_text(&handle, "taskId") else {
            core.note("a task handle without a taskId: nothing to poll".into());
            return Followed::Ended(exchange);
        };
        let run = TaskRun {
            id: id.clone(),
            form,
            status: member_text(&handle, "status").unwrap_or_else(|| "working".into()),
            polls: 0,
            reply: None,
            ended_at: None,
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
            (Stage::Fetching, Event::Ended(fetched)) => self.fetched(core, &fetched),
            (Stage::Fetching, Event::Cancel) if self.cancel == Cancel::No => {
                // `tasks/result` may wait as long as the task runs: it is dropped, then the
                // task cancelled.
                self.cancel = Cancel::Wanted;
                core.cancel_by_user();
                self.stage = Stage::Fetching;
                Followed::Wait(Box::new(self))
            }
            (stage, event) => {
                if matches!(event, Event::Cancel) && self.cancel == Cancel::No {
                    self.cancel = Cancel::Wanted;
                }
                self.stage = stage;
                Followed::Wait(Box::new(self))
            }
        }
    }

    /// The task ended (or sightline stopped following it) now.
    fn end(mut self, core: &Core) -> Followed {
        self.run.ended_at = Some(core.now.wall);
        Followed::Ended(self.into_exchange())
    }

    /// The run as far as it went, on the call's exchange.
    pub fn into_exchange(self) -> Exchange {
        let mut exchange = self.exchange;
        exchange.task = Some(Box::new(self.run));
        exchange
    }

    fn sleep(mut self, core: &mut Core) -> Followed {
        if self.run.polls >= MAX_TASK_POLLS {
            return self.end(core);
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
            return self.end(core);
        };
        self.run.status = member_text(task, "status").unwrap_or_default();
        self.interval = poll_interval(task, self.interval);
        let message = member_text(task, "statusMessage").unwrap_or_default();
        let now = format!("{} {message}", self.run.status);
        if now != self.said {
            core.note(format!("task {}: {}", self.id, now.trim()));
            self.said = now;
        }
        match (self.run.form, self.run.status.as_str()) {
            (TaskForm::Augmented, "completed" | "failed") if self.run.reply.is_none() => {
                self.fetch(core)
            }
            (TaskForm::Augmented, "input_required") if self.run.reply.is_none() => {
                // 2025-11-25: the questions come on the `tasks/result` stream, which the
                // requestor SHOULD open now; it answers when the task ends.
                core.note(format!(
                    "task {} needs input: tasks/result opened for the server's requests",
                    self.id
                ));
                self.fetch(core)
            }
            (_, "completed" | "failed" | "cancelled") => {
                if self.run.form == TaskForm::Extension {
                    self.run.reply = ended_with(task);
                }
                self.end(core)
            }
            (TaskForm::Extension, "input_required") => {
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

    /// 2025-11-25: the task's result, as `tasks/result` returns it (the tool result, or the
    /// JSON-RPC error the call would have returned).
    fn fetch(mut self, core: &mut Core) -> Followed {
        let spec = Spec {
            method: "tasks/result".into(),
            params: Some(json!({"taskId": self.id})),
            timeout: core.options.timeout,
            cancel_on_timeout: true,
            cancellable: true,
        };
        core.send(spec);
        self.stage = Stage::Fetching;
        Followed::Wait(Box::new(self))
    }

    fn fetched(mut self, core: &mut Core, fetched: &Exchange) -> Followed {
        if self.cancel == Cancel::Wanted {
            return self.send_cancel(core);
        }
        let Some(reply) = fetched.reply() else {
            core.note(format!(
                "tasks/result failed: {}; the task's result is unknown",
                classify(fetched).detail
            ));
            return self.end(core);
        };
        self.run.reply = Some(reply.clone());
        if matches!(self.run.status.as_str(), "completed" | "failed") {
            return self.end(core);
        }
        // The result came while the task still read `input_required`: one more `tasks/get`
        // says how it ended.
        self.poll(core)
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

/// The task's `pollIntervalMs` (2026-07-28) or `pollInterval` (2025-11-25), kept between 50 ms
/// and 10 s; `otherwise` when it names none.
fn poll_interval(task: &Json, otherwise: Duration) -> Duration {
    task.get("pollIntervalMs")
        .or_else(|| task.get("pollInterval"))
        .and_then(|ms| ms.as_i64())
        .and_then(|ms| u64::try_from(ms).ok())
        .map_or(otherwise, |ms| Duration::from_millis(ms.clamp(50, 10_000)))
}

/// The task handle `exchange` answered with, when sightline follows it: a `resultType: "task"`
/// result with the extension declared (2026-07-28), or a `CreateTaskResult` to a task-augmented
/// call (2025-11-25).
fn handle(core: &Core, exchange: &Exchange) -> Option<(TaskForm, Json)> {
    let Some(Reply::Result(result)) = exchange.reply() else {
        return None;
    };
    if core.modern() {
        let task = input::result_type(result) == ResultType::Task && core.options.tasks;
        return task.then(|| (TaskForm::Extension, result.clone()));
    }
    let augmented = exchange
        .params()
        .is_some_and(|params| params.get("task").is_some());
    let task = result.get("task").filter(Json::is_object)?;
    augmented.then_some((TaskForm::Augmented, task))
}

/// What an ended extension task carries: its `result` (completed, and a `failed` task that
/// carries a result against SEP-2663) or its `error`.
fn ended_with(task: &Json) -> Option<Reply> {
    let error = task
        .get("error")
        .and_then(|error| serde_json::from_str::<ErrorObject>(error.text()).ok())
        .map(Reply::Error);
    error.or_else(|| task.get("result").map(Reply::Result))
}

/// The `task` member of a 2025-11-25 `tools/call` to `tool`: when the server declares
/// task-augmented `tools/call` and the tool's `execution.taskSupport` is `required` (the client
/// MUST), or `optional` and `--tasks` asks. Said in the log either way.
pub(crate) fn augmentation(core: &mut Core, tool: &str) -> Option<Value> {
    if core.modern() {
        return None;
    }
    let support = core
        .catalog
        .as_deref()
        .and_then(|tools| tools.iter().find(|listed| listed.name == tool))
        .and_then(|listed| listed.raw.get("execution"))
        .and_then(|execution| execution.get("taskSupport"))
        .and_then(|support| support.as_str().map(Cow::into_owned))?;
    let wanted = match support.as_str() {
        "required" => true,
        "optional" => core.options.tasks,
        _ => false,
    };
    if !wanted {
        return None;
    }
    let declared = core
        .connection
        .as_ref()
        .and_then(|connection| connection.capabilities.as_ref())
        .and_then(|capabilities| capabilities.get("tasks"))
        .and_then(|tasks| tasks.get("requests"))
        .and_then(|requests| requests.get("tools"))
        .is_some_and(|tools| tools.get("call").is_some());
    if !declared {
        core.note(format!(
            "'{tool}' has taskSupport '{support}', but the server does not declare \
             tasks.requests.tools.call: sent as a plain call (clients MUST NOT augment it, \
             2025-11-25)"
        ));
        return None;
    }
    core.note(format!(
        "'{tool}' has taskSupport '{support}': the call is task-augmented (2025-11-25 tasks)"
    ));
    Some(json!({}))
}
