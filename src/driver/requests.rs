//! The driver's request layer: one awaited request at a time with its deadline (and the
//! requests held open beside it, sent by `listens.rs`), every transport event recorded in order
//! and correlated, server requests answered, and the outputs that all of this asks for.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::questions::Questions;
use super::{Done, Ends, Now, Output, SessionOptions, TimerId, Wire};
use crate::mcp::Timestamp;
use crate::mcp::era;
use crate::mcp::input::{self, Answer, InputRequest, Round};
use crate::mcp::jsonrpc::{Frame, Id, Message, Reply};
use crate::mcp::log::{Connection, LogEntry, LogEvent, SessionEvent};
use crate::mcp::oauth::AuthFact;
use crate::mcp::session::{End, Exchange, Failure, Session};
use crate::mcp::wire::{Outgoing, TransportEvent};

/// While the transport runs an OAuth flow for a request, its deadline is at least this far
/// off after each step: the user may be logging in.
const AUTHORIZATION_WAIT: Duration = Duration::from_secs(300);
/// The tasks extension's identifier.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// Re-issues of a 2026-07-28 request whose stream was lost, at most.
const MAX_REISSUES: u32 = 2;
/// How long a shutdown waits for the transport to report the server gone, at most.
const SHUTDOWN_BUDGET: Duration = Duration::from_secs(3);

/// A request to send, and how to wait for it.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub method: String,
    /// Without the era's `_meta`: added as the request goes out, so a setting changed since
    /// shows in a retry.
    pub params: Option<Value>,
    pub timeout: Duration,
    /// Send a cancellation when the deadline passes (`initialize` and a probe must not).
    pub cancel_on_timeout: bool,
    /// The user's cancel ends it.
    pub cancellable: bool,
}

/// The request the driver waits for.
#[derive(Debug)]
pub(super) struct Awaited {
    id: Id,
    spec: Spec,
    deadline: Duration,
    timer: TimerId,
    /// Bytes of stderr and lines of stdout read before it went out.
    read_before: (u64, u64),
    reissued: u32,
    /// Sent for the session's own sake before the job's request (a new legacy HTTP session).
    then: Option<Spec>,
}

/// The requests held open, and the ends their callers have not been told of yet.
#[derive(Debug, Default)]
pub(crate) struct Listens {
    pub(super) open: Vec<(String, Id)>,
    pub(super) ended: VecDeque<(String, Exchange)>,
}

impl Listens {
    /// The next end to tell its caller of, oldest first.
    pub(super) fn take_ended(&mut self) -> Option<(String, Exchange)> {
        self.ended.pop_front()
    }

    /// Whether `key` names a request held open now.
    pub(super) fn is_open(&self, key: &str) -> bool {
        self.open.iter().any(|(open, _)| open == key)
    }
}

/// A shutdown under way.
#[derive(Debug, Default)]
pub(super) struct Shutdown {
    asked: bool,
    /// The transport said something since the shutdown began (an end that came before it
    /// does not end the shutdown: the transport still stops what the server left behind).
    heard: bool,
    budget_spent: bool,
    timer: Option<TimerId>,
}

/// How the server's side ended, as the transport reported it.
#[derive(Debug, Clone)]
pub(crate) struct ServerEnd {
    pub status: String,
    pub stderr_tail: Vec<String>,
}

/// The session's state below the jobs.
#[derive(Debug)]
pub(crate) struct Core {
    pub now: Now,
    pub options: SessionOptions,
    pub(super) wire: Wire,
    pub(super) session: Session,
    pub connection: Option<Connection>,
    /// `_meta` sent on every request in the modern era.
    pub meta: Option<Map<String, Value>>,
    pub(super) closed: Option<ServerEnd>,
    pub tools_changed: bool,
    /// The tools the server listed last: the calls are judged against them.
    pub catalog: Option<Arc<crate::mcp::catalog::Catalog>>,
    /// Progress tokens issued so far; each `tools/call` gets a fresh one.
    pub progress_tokens: u64,
    /// A `server/discover` result that arrived after the probe timed out.
    pub late_discover: Option<crate::mcp::json::Json>,
    /// The HTTP session ended (legacy era): the next request first initializes again.
    pub(super) session_expired: bool,
    /// The current legacy HTTP session's id.
    pub http_session: Option<String>,
    /// A 2026-07-28 request whose event stream broke before its response: re-issued.
    pub(super) lost_stream: Option<Id>,
    /// Header values for the next request instead of the computed ones (a deliberate probe).
    pub next_overrides: Option<Vec<(String, String)>>,
    /// What the server asked during the current call, and the answers.
    pub rounds: Vec<Round>,
    pub questions: Questions,
    /// Bytes of stderr and lines of stdout read so far: a timeout says whether the server was
    /// busy writing while it was awaited, or silent.
    pub(super) output_read: (u64, u64),
    awaited: Option<Awaited>,
    /// The awaited request's end, for the job.
    pub(super) ended: Option<Exchange>,
    pub(super) next_timer: u64,
    pub(super) job_timer: Option<TimerId>,
    /// Requests held open beside the awaited one (see `listens.rs`).
    pub(super) listens: Listens,
    shutdown: Shutdown,
    pub(super) out: Vec<Output>,
}

impl Core {
    pub fn new(options: SessionOptions, wire: Wire) -> Self {
        Self {
            now: Now::default(),
            options,
            wire,
            session: Session::new(),
            connection: None,
            meta: None,
            closed: None,
            tools_changed: false,
            catalog: None,
            progress_tokens: 0,
            late_discover: None,
            session_expired: false,
            http_session: None,
            lost_stream: None,
            next_overrides: None,
            rounds: Vec::new(),
            questions: Questions::default(),
            output_read: (0, 0),
            awaited: None,
            ended: None,
            next_timer: 0,
            job_timer: None,
            listens: Listens::default(),
            shutdown: Shutdown::default(),
            out: Vec::new(),
        }
    }

    pub fn push(&mut self, output: Output) {
        self.out.push(output);
    }

    pub fn take_output(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.out)
    }

    pub fn emit(&mut self, event: SessionEvent) {
        self.push(Output::Event(event));
    }

    /// A command ended: the one place an end becomes an event of the session stream.
    pub fn end(&mut self, done: Done) {
        let (event, done) = done.split(self.options.ends == Ends::Awaited);
        if let Some(event) = event {
            self.emit(event);
        }
        if let Some(done) = done {
            self.push(Output::Done(done));
        }
    }

    pub fn is_http(&self) -> bool {
        self.wire.http
    }

    pub fn modern(&self) -> bool {
        self.meta.is_some()
    }

    /// The capabilities sightline can honour with its answers: elicitation always (declining
    /// is an answer), sampling with a `--sample` reply, roots with a `--root`.
    pub fn capabilities(&self) -> Value {
        let answers = &self.options.answers;
        let mut capabilities = json!({"elicitation": {"form": {}, "url": {}}});
        // Someone to ask can write a sample.
        if answers.sample.is_some() || self.options.ask {
            capabilities["sampling"] = json!({});
        }
        if !answers.roots.is_empty() {
            capabilities["roots"] = json!({"listChanged": false});
        }
        if self.options.tasks {
            capabilities["extensions"] = json!({TASKS_EXTENSION: {}});
        }
        capabilities
    }

    pub fn client_info() -> Value {
        json!({"name": "sightline", "version": env!("CARGO_PKG_VERSION")})
    }

    /// Declares the tasks extension from the next request on, or stops declaring it.
    pub fn set_tasks(&mut self, on: bool) {
        self.options.tasks = on;
        let capabilities = self.capabilities();
        if let Some(meta) = &mut self.meta {
            meta.insert(era::META_CLIENT_CAPABILITIES.into(), capabilities);
        }
    }

    /// Sends one request with the configured timeout, cancelled when its deadline passes.
    pub fn request(&mut self, method: &str, params: Option<Value>) {
        let spec = Spec {
            method: method.to_owned(),
            params,
            timeout: self.options.timeout,
            cancel_on_timeout: true,
            cancellable: false,
        };
        self.send(spec);
    }

    /// Sends `spec` and waits for its end (in [`Core::take_ended`]). Legacy Streamable HTTP:
    /// after a 404 ended the session, a new `initialize` goes first, as the client MUST.
    pub fn send(&mut self, spec: Spec) {
        if std::mem::take(&mut self.session_expired) && spec.method != "initialize" {
            self.note("starting a new HTTP session: initialize again".into());
            let initialize = self.initialize_spec();
            self.send_now(initialize, 0, Some(spec));
            return;
        }
        self.send_now(spec, 0, None);
    }

    fn send_now(&mut self, spec: Spec, reissued: u32, then: Option<Spec>) {
        let params = match &self.meta {
            Some(meta) => Some(era::with_meta(spec.params.clone(), meta)),
            None => spec.params.clone(),
        };
        let (id, frame) = self
            .session
            .start_request(&spec.method, params, self.now.wall);
        if let Some(end) = self.closed.clone() {
            self.ended = self.server_exited(Some(&id), end);
            return;
        }
        self.record(LogEvent::Sent(frame.clone()));
        self.session.mark_sent(&id, self.now.mark);
        let line = Arc::clone(&frame.raw);
        let outgoing = match self.next_overrides.take() {
            Some(headers) => Outgoing::WithHeaders { line, headers },
            None => Outgoing::Line(line),
        };
        self.push(Output::Send {
            outgoing,
            request: Some(id.clone()),
        });
        let deadline = self.now.mono + spec.timeout;
        let timer = self.timer(deadline);
        self.awaited = Some(Awaited {
            id,
            spec,
            deadline,
            timer,
            read_before: self.output_read,
            reissued,
            then,
        });
    }

    /// The end of the awaited request, once it came (taken once).
    pub fn take_ended(&mut self) -> Option<Exchange> {
        self.ended.take()
    }

    pub(super) fn timer(&mut self, at: Duration) -> TimerId {
        self.next_timer += 1;
        let id = TimerId(self.next_timer);
        self.push(Output::Timer { id, at });
        id
    }

    pub fn set_job_timer(&mut self, after: Duration) {
        let at = self.now.mono + after;
        self.job_timer = Some(self.timer(at));
    }

    /// The job's timer is no longer wanted: when it fires, nothing happens.
    pub fn clear_job_timer(&mut self) {
        self.job_timer = None;
    }

    pub fn take_job_timer(&mut self, id: TimerId) -> bool {
        let mine = self.job_timer == Some(id);
        if mine {
            self.job_timer = None;
        }
        mine
    }

    pub fn is_deadline(&self, id: TimerId) -> bool {
        self.awaited
            .as_ref()
            .is_some_and(|awaited| awaited.timer == id)
    }

    /// The awaited request's deadline passed. Not while the user answers what the server asked
    /// for it: that time is the user's, and the deadline moves by it when the answer comes.
    pub fn deadline_passed(&mut self) {
        if self.questions.asking_for_server() {
            return;
        }
        let Some(awaited) = self.awaited.take() else {
            return;
        };
        let ended = self.time_out(&awaited);
        self.finish(awaited, ended);
    }

    /// Moves the awaited request's deadline by `by` (the user's time answering).
    pub fn extend_deadline(&mut self, by: Duration) {
        let Some(deadline) = self.awaited.as_ref().map(|awaited| awaited.deadline + by) else {
            return;
        };
        let timer = self.timer(deadline);
        if let Some(awaited) = &mut self.awaited {
            awaited.deadline = deadline;
            awaited.timer = timer;
        }
    }

    /// The user's cancel: ends the awaited request if it may be cancelled. `false` if none.
    pub fn cancel_by_user(&mut self) -> bool {
        if !self
            .awaited
            .as_ref()
            .is_some_and(|awaited| awaited.spec.cancellable)
        {
            return false;
        }
        let Some(awaited) = self.awaited.take() else {
            return false;
        };
        let end = End::Failed(Failure::CancelledByUser);
        let ended = self.session.abandon(&awaited.id, end, self.now.wall);
        if ended.is_some() {
            self.cancel_request(&awaited.id, "cancelled by the user");
        }
        self.ended = Some(ended.unwrap_or_else(|| self.missing_exchange(&awaited.id)));
        true
    }

    /// A request ended: re-issued if its stream was lost (2026-07-28), the job's own request
    /// sent after a new session's `initialize`, or handed to the job.
    fn finish(&mut self, awaited: Awaited, exchange: Exchange) {
        let lost = self.lost_stream.take().as_ref() == Some(&exchange.id);
        if lost && self.modern() && awaited.reissued < MAX_REISSUES {
            let reissued = awaited.reissued + 1;
            self.note(format!(
                "the stream of #{} ({}) was lost before its response: re-issuing the request \
                 under a new id, as 2026-07-28 asks ({reissued} of {MAX_REISSUES})",
                exchange.id, awaited.spec.method
            ));
            self.send_now(awaited.spec, reissued, awaited.then);
            return;
        }
        if let Some(then) = awaited.then {
            match self.read_initialize(exchange) {
                Ok(connection) => self.connection = Some(connection),
                Err(error) => self.note(format!("the new session was refused: {error}")),
            }
            self.send_now(then, 0, None);
            return;
        }
        self.ended = Some(exchange);
    }

    /// Tells the server to stop working on `id`: over Streamable HTTP in the 2026-07-28 era by
    /// closing its stream (which the server MUST take as cancellation), else by
    /// `notifications/cancelled`.
    pub fn cancel_request(&mut self, id: &Id, reason: &str) {
        if self.modern() && self.wire.http {
            self.push(Output::Send {
                outgoing: Outgoing::CloseStream(id.clone()),
                request: None,
            });
            self.note(format!(
                "closed the stream of #{id} ({reason}): the 2026-07-28 cancellation over HTTP"
            ));
        } else {
            let params = json!({"requestId": Value::from(id.clone()), "reason": reason});
            self.notify("notifications/cancelled", Some(params));
        }
    }

    fn time_out(&mut self, awaited: &Awaited) -> Exchange {
        let id = &awaited.id;
        let after_ms = u64::try_from(awaited.spec.timeout.as_millis()).unwrap_or(u64::MAX);
        let at = self.now.wall;
        let Some(ended) = self.session.abandon(id, End::TimedOut { after_ms }, at) else {
            return self.missing_exchange(id);
        };
        self.record_at(
            at,
            LogEvent::TimedOut {
                id: id.clone(),
                method: ended.method.clone(),
                after_ms,
            },
        );
        let (stderr, lines) = (
            self.output_read.0 - awaited.read_before.0,
            self.output_read.1 - awaited.read_before.1,
        );
        if stderr > 0 || lines > 0 {
            // Not silent: a server blocked writing its logging looks like one that never answers.
            self.note(format!(
                "while #{id} waited, the server wrote {stderr} bytes to stderr and {lines} other \
                 lines to stdout: it was busy writing, not silent"
            ));
        }
        if awaited.spec.cancel_on_timeout {
            self.cancel_request(id, &format!("sightline timed out after {after_ms} ms"));
        }
        ended
    }

    /// Records one transport event, and ends the awaited request if the event does.
    pub fn on_transport(&mut self, event: TransportEvent) {
        self.shutdown.heard = self.shutdown.asked;
        if let TransportEvent::Authorization {
            fact: AuthFact::Step(_),
            ..
        } = &event
            && let Some(awaited) = &self.awaited
        {
            // The transport is authorizing this request: the user's time in the browser is
            // not the server's.
            let deadline = self.now.mono + awaited.spec.timeout.max(AUTHORIZATION_WAIT);
            let timer = self.timer(deadline);
            if let Some(awaited) = &mut self.awaited {
                awaited.deadline = deadline;
                awaited.timer = timer;
            }
        }
        let waiting = self.awaited.as_ref().map(|awaited| awaited.id.clone());
        if let Some(ended) = self.ingest(event, waiting.as_ref())
            && let Some(awaited) = self.awaited.take()
        {
            self.finish(awaited, ended);
        }
        self.pump_questions();
    }

    /// Sends the answer to a legacy server request and keeps it as a round of the call.
    pub fn reply_to_question(&mut self, id: Id, request: InputRequest, answer: Answer) {
        self.note(format!(
            "the server asked: {}",
            input::describe(&request, &answer)
        ));
        let reply = match &answer {
            Answer::Result(result) => Reply::Result(result.clone().into()),
            Answer::Refused(error) => Reply::Error(error.clone()),
        };
        self.rounds.push(Round {
            asked_by: None,
            request,
            answer,
        });
        self.write(Frame::encode(Message::Response {
            id: Some(id),
            reply,
        }));
    }

    pub fn notify(&mut self, method: &str, params: Option<Value>) {
        let message = Message::Notification {
            method: method.to_owned(),
            params: params.map(Into::into),
        };
        self.write(Frame::encode(message));
    }

    /// Sends a notification or an answer without waiting; one the transport does not take
    /// comes back as [`super::Input::NotSent`].
    pub(super) fn write(&mut self, frame: Frame) {
        let line = Arc::clone(&frame.raw);
        self.record(LogEvent::Sent(frame));
        self.push(Output::Send {
            outgoing: Outgoing::Line(line),
            request: None,
        });
    }

    /// The transport did not take a line: a request's ends at once, anything else is said.
    pub fn not_sent(&mut self, request: Option<&Id>, reason: &str) {
        let awaited = request.filter(|id| {
            self.awaited
                .as_ref()
                .is_some_and(|awaited| &awaited.id == *id)
        });
        if let Some(id) = awaited.cloned() {
            let end = End::Failed(Failure::SendFailed {
                reason: reason.to_owned(),
            });
            if let (Some(ended), Some(awaited)) = (
                self.session.abandon(&id, end, self.now.wall),
                self.awaited.take(),
            ) {
                self.finish(awaited, ended);
            }
            return;
        }
        if request.is_none() {
            self.record(LogEvent::WriteFailed(format!("not written: {reason}")));
        }
    }

    pub fn note(&mut self, text: String) {
        self.record(LogEvent::Note(text));
    }

    pub(super) fn record(&mut self, event: LogEvent) {
        self.record_at(self.now.wall, event);
    }

    pub(super) fn record_at(&mut self, at: Timestamp, event: LogEvent) {
        self.emit(SessionEvent::Logged(LogEntry { at, event }));
    }

    pub(super) fn missing_exchange(&self, id: &Id) -> Exchange {
        let mut exchange =
            super::no_exchange(format!("request {id} was no longer pending"), self.now.wall);
        exchange.id = id.clone();
        exchange
    }

    /// Whether to list the tools again, unasked: the server said they changed.
    pub fn relist_due(&mut self) -> bool {
        let due = self.options.follow_list_changes
            && self.tools_changed
            && self.connection.is_some()
            && self.closed.is_none()
            && !self.shutdown.asked;
        if due {
            self.tools_changed = false;
        }
        due
    }

    /// Starts stopping the server; [`Core::shut_down`] says when it is gone, or the budget for
    /// waiting is spent.
    pub fn shutdown(&mut self) {
        self.shutdown.asked = true;
        self.push(Output::Close);
        let at = self.now.mono + SHUTDOWN_BUDGET;
        self.shutdown.timer = Some(self.timer(at));
    }

    pub fn shut_down(&self) -> bool {
        let Shutdown {
            asked,
            heard,
            budget_spent,
            ..
        } = self.shutdown;
        asked && (budget_spent || (self.closed.is_some() && heard))
    }

    pub fn take_shutdown_timer(&mut self, id: TimerId) -> bool {
        let mine = self.shutdown.timer == Some(id);
        if mine {
            self.shutdown.timer = None;
        }
        mine
    }

    pub fn shutdown_budget_spent(&mut self) {
        self.shutdown.budget_spent = true;
    }
}
