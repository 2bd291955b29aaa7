//! The demo server's `long_booking` tasks in both forms: the tasks extension (2026-07-28) and
//! task-augmented calls (2025-11-25, whose result `tasks/result` gives); created by a call,
//! followed by `tasks/get` as the clock runs, cancelled by `tasks/cancel`.

use std::sync::PoisonError;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{DemoServer, Handled, TASKS, ToolOutcome, tools};
use crate::mcp::era::{self, META_CLIENT_CAPABILITIES};
use crate::mcp::jsonrpc::{ErrorObject, Id};

/// A `long_booking` task: its status follows the clock from when it was created.
#[derive(Debug, Clone)]
pub(super) struct DemoTask {
    created: Instant,
    seconds: u64,
    outcome: String,
    date: String,
    cancelled: bool,
}

impl DemoServer {
    /// `long_booking`: a task (2026-07-28, with the tasks extension declared), -32021 without
    /// the extension; in the legacy era a task when the call is task-augmented, else done at
    /// once.
    pub(super) fn long_booking(
        &self,
        name: &str,
        params: &Value,
        modern: bool,
        seconds: u64,
        outcome: String,
        date: String,
    ) -> Result<Value, ErrorObject> {
        if !modern && params.get("task").is_some() {
            let (id, task) = self.create(seconds, outcome, date);
            return Ok(json!({"task": augmented_state(&id, &task)}));
        }
        if !modern {
            return match task_end(&outcome, &date) {
                Ok(result) => Ok(result),
                Err(error) if outcome == "invalid" => {
                    self.finish(name, ToolOutcome::Invalid(error.message))
                }
                Err(error) => Err(error),
            };
        }
        let declared = params
            .pointer("/_meta")
            .and_then(|meta| meta.get(META_CLIENT_CAPABILITIES))
            .and_then(|capabilities| capabilities.pointer("/extensions"))
            .and_then(|extensions| extensions.get(TASKS))
            .is_some();
        if !declared {
            return Err(ErrorObject {
                code: era::MISSING_CLIENT_CAPABILITY,
                message: format!("Missing required client capability: {name} runs only as a task"),
                data: Some(json!({"requiredCapabilities": {"extensions": {TASKS: {}}}}).into()),
            });
        }
        let (id, task) = self.create(seconds, outcome, date);
        let mut handle = task_state(&id, &task);
        handle["resultType"] = "task".into();
        Ok(handle)
    }

    fn create(&self, seconds: u64, outcome: String, date: String) -> (String, DemoTask) {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let id = format!("task-{}", tasks.len() + 1);
        let task = DemoTask {
            created: Instant::now(),
            seconds,
            outcome,
            date,
            cancelled: false,
        };
        tasks.insert(id.clone(), task.clone());
        (id, task)
    }

    /// 2025-11-25 `tasks/get` and `tasks/cancel`: the task's state, without its result.
    pub(super) fn augmented_task_request(
        &self,
        method: &str,
        params: &Value,
    ) -> Result<Value, ErrorObject> {
        let id = task_id(params);
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let task = tasks.get_mut(id).ok_or_else(|| unknown_task(id))?;
        if method == "tasks/cancel" {
            if task.ended() {
                // 2025-11-25: a task in a terminal status MUST be refused with -32602.
                return Err(ErrorObject {
                    code: -32602,
                    message: format!("Invalid params: task '{id}' has already ended"),
                    data: None,
                });
            }
            task.cancelled = true;
        }
        Ok(augmented_state(id, task))
    }

    /// 2025-11-25 `tasks/result`: what the call would have returned, once the task has ended
    /// (the answer waits until then).
    pub(super) fn task_result(&self, id: Id, params: &Value) -> Handled {
        let task_id = task_id(params);
        let task = self
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(task_id)
            .cloned();
        let Some(task) = task else {
            return Handled::Send(self.respond(id, Err(unknown_task(task_id)), false));
        };
        let reply = match task_end(&task.outcome, &task.date) {
            _ if task.cancelled => Err(ErrorObject {
                code: -32800,
                message: format!("Request cancelled: task '{task_id}' was cancelled"),
                data: None,
            }),
            Err(error) if task.outcome == "invalid" => {
                self.finish("long_booking", ToolOutcome::Invalid(error.message))
            }
            end => end,
        };
        let message = self.respond(id.clone(), reply, false);
        let left = Duration::from_secs(task.seconds).saturating_sub(task.created.elapsed());
        if left.is_zero() || task.cancelled {
            Handled::Send(message)
        } else {
            Handled::Later {
                id,
                after: left,
                message,
            }
        }
    }

    /// `tasks/get`, `tasks/cancel`, `tasks/update` for the tasks this server runs.
    pub(super) fn task_request(&self, method: &str, params: &Value) -> Result<Value, ErrorObject> {
        let id = params
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(task) = tasks.get_mut(id) else {
            return Err(ErrorObject {
                code: -32602,
                message: format!("Invalid params: unknown task '{id}'"),
                data: None,
            });
        };
        match method {
            "tasks/cancel" => {
                task.cancelled = true;
                Ok(json!({}))
            }
            "tasks/update" => Ok(json!({})),
            _ => Ok(task_state(id, task)),
        }
    }
}

fn task_id(params: &Value) -> &str {
    params
        .get("taskId")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn unknown_task(id: &str) -> ErrorObject {
    ErrorObject {
        code: -32602,
        message: format!("Invalid params: unknown task '{id}'"),
        data: None,
    }
}

impl DemoTask {
    fn ended(&self) -> bool {
        self.cancelled || self.created.elapsed().as_secs() >= self.seconds
    }
}

/// A task in 2025-11-25's words: its status (a tool error ends it `failed`, as 2025-11-25
/// says), `pollInterval` and `ttl`; the result is `tasks/result`'s.
fn augmented_state(id: &str, task: &DemoTask) -> Value {
    let state = task_state(id, task);
    let status = state["status"].clone();
    let mut augmented = json!({
        "taskId": id,
        "status": status,
        "createdAt": state["createdAt"],
        "lastUpdatedAt": state["lastUpdatedAt"],
        "ttl": 600_000,
        "pollInterval": 200,
    });
    if let Some(message) = state.get("statusMessage") {
        augmented["statusMessage"] = message.clone();
    }
    augmented
}

/// A task as `tasks/get` reports it now: working until its time is up, then completed or failed
/// as it was asked to end (cancelled at once when cancelled while working).
fn task_state(id: &str, task: &DemoTask) -> Value {
    let elapsed = task.created.elapsed().as_secs();
    let done = elapsed >= task.seconds;
    let mut state = json!({
        "taskId": id,
        "createdAt": "1970-01-01T00:00:00Z",
        "lastUpdatedAt": "1970-01-01T00:00:00Z",
        "ttlMs": 600_000,
        "pollIntervalMs": 200,
    });
    match (
        task.cancelled && !done,
        done,
        task_end(&task.outcome, &task.date),
    ) {
        (true, _, _) => {
            state["status"] = "cancelled".into();
            state["statusMessage"] = "cancelled by the client".into();
        }
        (false, false, _) => {
            state["status"] = "working".into();
            state["statusMessage"] = format!("booking: {elapsed} of {} s", task.seconds).into();
        }
        (false, true, Ok(result)) => {
            state["status"] = "completed".into();
            state["result"] = result;
        }
        (false, true, Err(error)) => {
            state["status"] = "failed".into();
            state["error"] = json!({"code": error.code, "message": error.message});
        }
    }
    state
}

/// How a `long_booking` ends: `complete` books; `fail` is a server error; `invalid` is the
/// validation failure SEP-1303 says belongs in a tool result, sent as -32602.
fn task_end(outcome: &str, date: &str) -> Result<Value, ErrorObject> {
    match outcome {
        "fail" => Err(ErrorObject {
            code: -32000,
            message: "Booking system unavailable: try again later".into(),
            data: None,
        }),
        "invalid" => Err(ErrorObject {
            code: -32602,
            message: format!("Invalid arguments: departure date {date} is fully booked"),
            data: None,
        }),
        _ => Ok(tools::text_result(&format!(
            "Booked after a long search: one seat departing {date}."
        ))),
    }
}
