//! The session driver, sans I/O: transport events, commands and fired timers in; lines to send,
//! session events, timers to set and finished commands out. Every decision of a session (the
//! era, retries, re-issues, task polling, input rounds, deadlines) is made here, without a
//! runtime; `runner` runs it against a real transport.

mod asking;
mod call;
mod error;
mod handshake;
mod ingest;
mod listens;
mod listing;
mod negotiate;
mod questions;
mod requests;
mod task;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::classify::findings::Finding;
use crate::mcp::Timestamp;
use crate::mcp::catalog::Catalog;
use crate::mcp::input::Answer;
use crate::mcp::jsonrpc::Id;
use crate::mcp::log::{Connection, SessionEvent};
use crate::mcp::session::Exchange;
use crate::mcp::wire::{Outgoing, TransportEvent};

pub use error::{Ends, SessionError, SessionOptions};

use call::Call;
use listing::{HeaderCheck, Listing};
use negotiate::Negotiation;
use requests::Core;

/// The moment an input is handled, as the runner read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Now {
    /// Monotonic time since the runner started: deadlines and timers are on this clock.
    pub mono: Duration,
    /// The wall clock, for the log.
    pub wall: Timestamp,
    /// The wire order mark: a request created now goes out after every read marked before.
    pub mark: u64,
}

/// A timer the driver set; the runner feeds it back as [`Input::Timer`] when it fires. A timer
/// the driver no longer needs is ignored when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId(pub u64);

/// What the driver reacts to.
#[derive(Debug)]
pub enum Input {
    Transport(TransportEvent),
    Command(Command),
    Timer(TimerId),
    /// The transport did not take what the driver asked to send (its `request`, if it was one).
    NotSent {
        request: Option<Id>,
        reason: String,
    },
}

/// What the session is asked to do. The ones that take a while end with one [`Done`]; the
/// others (cancel, answer, settings) apply at once, also while something else runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Negotiate the era and the protocol version, as `--era` asks.
    Connect,
    /// List every tool, all pages.
    ListTools,
    /// `tools/call` with these arguments exactly (even when not an object).
    Call { tool: String, arguments: Value },
    /// Any one request, with the configured timeout.
    Request {
        method: String,
        params: Option<Value>,
    },
    /// A request held open beside everything else (a 2026-07-28 `subscriptions/listen`),
    /// known as `key`: sent at once when connected, without a deadline; it ends with
    /// [`Done::Listened`] when the server ends it, the connection goes, or
    /// [`Command::StopListening`] cancels it.
    Listen {
        key: String,
        method: String,
        params: Option<Value>,
    },
    /// Cancel the request held open as `key`, the way the era cancels a request (2026-07-28:
    /// how a subscription ends).
    StopListening { key: String },
    /// 2026-07-28 over HTTP: whether the server rejects a header that contradicts the body.
    CheckHeaders,
    /// Cancel the running call.
    Cancel,
    /// Declare the tasks extension (and follow task handles) from now on, or stop.
    SetTasks(bool),
    /// The user's answer to question `number`.
    Answer { number: u64, answer: Answer },
    /// Stop the server and report everything until it is gone.
    Shutdown,
}

/// How a command ended.
#[derive(Debug)]
pub enum Done {
    Connected(Result<Box<Connection>, SessionError>),
    Tools(Result<Arc<Catalog>, SessionError>),
    Called(Box<crate::mcp::verdict::Finished>),
    Requested(Box<Exchange>),
    /// The request held open as `key` ended.
    Listened {
        key: String,
        exchange: Box<Exchange>,
    },
    HeadersChecked(Option<Box<Finding>>),
    ShutDown,
}

impl Done {
    /// What the stream and the caller each get of an end. A connection, a call's, a request's
    /// and a held request's end are events; the [`Done`] of the last three goes to the caller
    /// only when one awaits ends (headless), so a live session's call result is never copied.
    fn split(self, awaited: bool) -> (Option<SessionEvent>, Option<Done>) {
        match self {
            Done::Called(finished) if awaited => (
                Some(SessionEvent::CallFinished(finished.clone())),
                Some(Done::Called(finished)),
            ),
            Done::Called(finished) => (Some(SessionEvent::CallFinished(finished)), None),
            Done::Requested(exchange) if awaited => (
                Some(SessionEvent::Requested(exchange.clone())),
                Some(Done::Requested(exchange)),
            ),
            Done::Requested(exchange) => (Some(SessionEvent::Requested(exchange)), None),
            Done::Listened { key, exchange } if awaited => {
                let event = SessionEvent::Listened {
                    key: key.clone(),
                    exchange: exchange.clone(),
                };
                (Some(event), Some(Done::Listened { key, exchange }))
            }
            Done::Listened { key, exchange } => {
                (Some(SessionEvent::Listened { key, exchange }), None)
            }
            // Every caller needs to know it is connected (or why not): said both ways.
            Done::Connected(Ok(connection)) => (
                Some(SessionEvent::Connected(connection.clone())),
                Some(Done::Connected(Ok(connection))),
            ),
            Done::Connected(Err(error)) => {
                (Some(error.as_event()), Some(Done::Connected(Err(error))))
            }
            done @ (Done::Tools(_) | Done::HeadersChecked(_) | Done::ShutDown) => {
                (None, Some(done))
            }
        }
    }
}

/// What the driver asks of the world, in the order it must happen.
#[derive(Debug)]
pub enum Output {
    /// Hand this to the transport; `request` names the request it carries, if any.
    Send {
        outgoing: Outgoing,
        request: Option<Id>,
    },
    /// The next event of the session stream.
    Event(SessionEvent),
    /// Feed [`Input::Timer`] back at `at` (on [`Now::mono`]'s clock).
    Timer { id: TimerId, at: Duration },
    /// Stop the server the way its transport does.
    Close,
    /// A command ended.
    Done(Done),
    /// The server's side ended (its output closed), whatever was running.
    Gone,
}

/// Facts about the transport the driver runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Wire {
    /// Streamable HTTP: requests have streams of their own, and 2026-07-28 mirrors headers.
    pub http: bool,
}

/// A command that takes a while, as it goes.
#[derive(Debug)]
enum Job {
    Negotiate(Negotiation),
    List(Listing),
    Call(Box<Call>),
    Request,
    HeaderCheck(HeaderCheck),
    /// Listing again because the server said the list changed: nobody waits for its end.
    Relist(Listing),
    ShutDown,
}

/// What a job reacts to.
#[derive(Debug)]
pub(crate) enum Event {
    /// The request the job waited for ended.
    Ended(Exchange),
    /// The user answered the job's question.
    Answered(Answer),
    /// The job's timer fired.
    Timer,
    /// The user cancelled.
    Cancel,
}

/// Where a job is after reacting.
#[derive(Debug)]
enum Step {
    Wait(Job),
    Done(Option<Done>),
}

/// The session, as a state machine.
#[derive(Debug)]
pub struct Driver {
    core: Core,
    job: Option<Job>,
    /// Commands that take a while, waiting for the running one to end.
    queue: VecDeque<Command>,
}

impl Driver {
    pub fn new(options: SessionOptions, wire: Wire) -> Self {
        Self {
            core: Core::new(options, wire),
            job: None,
            queue: VecDeque::new(),
        }
    }

    /// Handles inputs in order; the jobs move on once all are recorded, so that lines read
    /// together are logged before anything they lead the driver to send.
    pub fn handle(&mut self, now: Now, inputs: impl IntoIterator<Item = Input>) -> Vec<Output> {
        self.core.now = now;
        for input in inputs {
            match input {
                Input::Transport(event) => self.core.on_transport(event),
                Input::Timer(id) => self.on_timer(id),
                Input::Command(command) => self.on_command(command),
                Input::NotSent { request, reason } => self.core.not_sent(request.as_ref(), &reason),
            }
        }
        self.settle();
        self.core.take_output()
    }

    /// The negotiated connection, once there is one.
    pub fn connection(&self) -> Option<&Connection> {
        self.core.connection.as_ref()
    }

    fn on_command(&mut self, command: Command) {
        match command {
            Command::Cancel => self.hand_to_job(Event::Cancel),
            Command::SetTasks(on) => self.core.set_tasks(on),
            // Beside whatever runs, once connected; queued behind the connecting otherwise.
            Command::Listen {
                key,
                method,
                params,
            } if self.core.connection.is_some() => self.core.listen(key, &method, params),
            Command::StopListening { key } => self.core.stop_listening(&key),
            Command::Answer { number, answer } => self.core.answered(number, answer),
            Command::Shutdown => {
                if let Some(job) = self.job.take() {
                    self.abort(job);
                }
                // Nothing more is done after the end.
                self.queue.clear();
                self.queue.push_back(Command::Shutdown);
            }
            Command::Connect
            | Command::ListTools
            | Command::Call { .. }
            | Command::Request { .. }
            | Command::Listen { .. }
            | Command::CheckHeaders => self.queue.push_back(command),
        }
    }

    fn on_timer(&mut self, id: TimerId) {
        if self.core.is_deadline(id) {
            self.core.deadline_passed();
        } else if self.core.take_job_timer(id) {
            self.hand_to_job(Event::Timer);
        } else if self.core.take_shutdown_timer(id) {
            self.core.shutdown_budget_spent();
        }
    }

    /// Hands `event` to the running job, if any, and keeps where it is.
    fn hand_to_job(&mut self, event: Event) {
        let Some(job) = self.job.take() else {
            return;
        };
        let step = self.react(job, event);
        self.land(step);
    }

    fn land(&mut self, step: Step) {
        match step {
            Step::Wait(job) => self.job = Some(job),
            Step::Done(done) => {
                if let Some(done) = done {
                    self.core.end(done);
                }
            }
        }
    }

    /// Moves the jobs on until nothing more can happen without new input.
    fn settle(&mut self) {
        loop {
            if let Some((key, exchange)) = self.core.listens.take_ended() {
                let exchange = Box::new(exchange);
                self.core.end(Done::Listened { key, exchange });
                continue;
            }
            if let Some(exchange) = self.core.take_ended() {
                // With no job, nobody waits for it any more (a job aborted at shutdown).
                self.hand_to_job(Event::Ended(exchange));
                continue;
            }
            if let Some(answer) = self.core.take_job_answer() {
                self.hand_to_job(Event::Answered(answer));
                continue;
            }
            if matches!(self.job, Some(Job::ShutDown)) && self.core.shut_down() {
                self.job = None;
                self.core.end(Done::ShutDown);
                continue;
            }
            if self.job.is_some() {
                return;
            }
            if let Some(command) = self.queue.pop_front() {
                let step = self.start(command);
                self.land(step);
                continue;
            }
            if self.core.relist_due() {
                let step = Listing::start(&mut self.core).wrap(Job::Relist);
                self.land(step);
                continue;
            }
            return;
        }
    }

    fn start(&mut self, command: Command) -> Step {
        let core = &mut self.core;
        match command {
            Command::Connect => Negotiation::start(core).wrap(Job::Negotiate),
            Command::ListTools => Listing::start(core).wrap(Job::List),
            Command::Call { tool, arguments } => {
                Call::start(core, &tool, &arguments).wrap(|call| Job::Call(Box::new(call)))
            }
            Command::Request { method, params } => {
                core.request(&method, params);
                Step::Wait(Job::Request)
            }
            Command::Listen {
                key,
                method,
                params,
            } => {
                core.listen(key, &method, params);
                Step::Done(None)
            }
            Command::CheckHeaders => HeaderCheck::start(core).wrap(Job::HeaderCheck),
            Command::Shutdown => {
                core.shutdown();
                Step::Wait(Job::ShutDown)
            }
            // Applied at once, never queued.
            Command::Cancel
            | Command::SetTasks(_)
            | Command::Answer { .. }
            | Command::StopListening { .. } => Step::Done(None),
        }
    }

    fn react(&mut self, job: Job, event: Event) -> Step {
        let core = &mut self.core;
        match job {
            Job::Negotiate(negotiation) => negotiation.on(core, event).wrap(Job::Negotiate),
            Job::List(listing) => listing.on(core, event).wrap(Job::List),
            Job::Relist(listing) => match listing.on(core, event) {
                StepOf::Done(_) => Step::Done(None),
                StepOf::Wait(listing) => Step::Wait(Job::Relist(listing)),
            },
            Job::Call(call) => call.on(core, event).wrap(|call| Job::Call(Box::new(call))),
            Job::Request => match event {
                Event::Ended(exchange) => Step::Done(Some(Done::Requested(Box::new(exchange)))),
                // A plain request is not the user's to cancel: it goes on.
                Event::Cancel | Event::Answered(_) | Event::Timer => Step::Wait(Job::Request),
            },
            Job::HeaderCheck(check) => check.on(core, event).wrap(Job::HeaderCheck),
            // It ends when the server is gone (see `settle`), not by any event.
            Job::ShutDown => Step::Wait(Job::ShutDown),
        }
    }

    /// Ends `job` now (the session is shutting down): a call is cancelled and reported with
    /// what it has; anything else is dropped.
    fn abort(&mut self, job: Job) {
        if let Job::Call(call) = job {
            let done = call.abort(&mut self.core);
            self.core.end(done);
        }
        self.core.drop_questions();
    }
}

/// An exchange for a request that cannot be found (`reason` says why): only reachable if a
/// request vanished, it is reported as a send failure instead of a panic.
pub fn no_exchange(reason: String, at: Timestamp) -> Exchange {
    let request = crate::mcp::jsonrpc::Frame::encode(crate::mcp::jsonrpc::Message::Notification {
        method: "?".into(),
        params: None,
    });
    Exchange {
        id: Id::Number(0),
        method: String::new(),
        request,
        sent_at: at,
        end: crate::mcp::session::End::Failed(crate::mcp::session::Failure::SendFailed { reason }),
        ended_at: at,
        http: None,
        rounds: Vec::new(),
        task: None,
    }
}

/// A job's own step, before it is wrapped as a [`Job`].
#[derive(Debug)]
pub(crate) enum StepOf<J> {
    Wait(J),
    Done(Option<Done>),
}

impl<J> StepOf<J> {
    fn wrap(self, job: impl FnOnce(J) -> Job) -> Step {
        match self {
            StepOf::Wait(waiting) => Step::Wait(job(waiting)),
            StepOf::Done(done) => Step::Done(done),
        }
    }
}
