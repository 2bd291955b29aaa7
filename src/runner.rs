//! The runner of a session: a [`Transport`] and the sans-I/O [`Driver`], whose outputs it
//! carries out in order (lines sent, timers set, events emitted on one ordered session stream).
//! The TUI's live session, headless commands and the audit all run their sessions here.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::classify::findings::Finding;
use crate::driver::{Driver, Input, Now, Output, TimerId, Wire};
use crate::mcp::catalog::Catalog;
use crate::mcp::session::Exchange;
use crate::mcp::verdict::Finished;
use crate::stream::EventSink;
use crate::transport::{self, Target, Transport, TransportEvent, now};

pub use crate::driver::{Command, Done, Ends, SessionError, SessionOptions};
pub use crate::mcp::log::{Connection, LogEntry, LogEvent, Role, SessionEvent, Stage};

/// Transport events handed to the driver together, at most: lines read together are logged
/// before what they lead to, and a flood still lets commands and timers in.
const BATCH: usize = 64;

/// Session events handed to the consumer in one batch, at most: the stream's bound is in
/// batches, so a batch stays about the size of one read's worth (a flood drained together
/// must not put sixty-four reads in each of its slots).
const FLUSH_BATCH: usize = 512;

/// Reaches `target`, negotiates, and hands back the client; every step is on `sink`'s stream,
/// a failure too (`ConnectFailed`, with the stage that failed).
pub async fn connect(
    target: &Target,
    options: SessionOptions,
    sink: EventSink,
) -> Result<SessionRunner, SessionError> {
    let mut client = open(target, options, sink).await?;
    // The failure is on the stream already, said by the driver.
    if let Err(error) = client.negotiate().await {
        client.shutdown().await;
        return Err(error);
    }
    Ok(client)
}

/// Reaches `target` (`Connecting` first on the stream); nothing is sent yet.
pub async fn open(
    target: &Target,
    options: SessionOptions,
    sink: EventSink,
) -> Result<SessionRunner, SessionError> {
    sink.emit(SessionEvent::Connecting {
        transport: target.describe(),
    })
    .await;
    match transport::open(target, options.max_frame_bytes) {
        Ok(transport) => Ok(SessionRunner::new(transport, options, sink)),
        Err(error) => {
            let error = SessionError::Transport(error);
            sink.emit(error.as_event()).await;
            Err(error)
        }
    }
}

/// What woke the runner up.
#[derive(Debug)]
pub enum Wake<C> {
    /// A command ended.
    Done(Done),
    /// The server's side ended.
    Gone,
    /// A command from the caller's channel, for the caller to start (or act on).
    Command(C),
    /// The caller's channel closed.
    Closed,
}

/// A session with one server: the driver, run against a transport.
#[derive(Debug)]
pub struct SessionRunner {
    transport: Transport,
    /// Whether the transport's event channel may still bring something.
    open: bool,
    driver: Driver,
    sink: EventSink,
    /// Events the driver emitted, not yet handed to the sink; handed over, in order, before
    /// the runner waits again.
    unsent: Vec<SessionEvent>,
    /// Timers set, earliest first.
    timers: Vec<(Duration, TimerId)>,
    started: Instant,
    done: VecDeque<Done>,
    /// Ends of held-open requests that came while a command was awaited (see
    /// [`SessionRunner::take_listened`]).
    listened: VecDeque<(String, Box<Exchange>)>,
    gone: bool,
}

impl SessionRunner {
    /// Wraps a transport; start with [`SessionRunner::negotiate`] (or [`Command::Connect`]).
    /// Everything that happens from now on is emitted on `sink`.
    pub fn new(transport: Transport, options: SessionOptions, sink: EventSink) -> Self {
        let wire = Wire {
            http: transport.is_http(),
        };
        Self {
            transport,
            open: true,
            driver: Driver::new(options, wire),
            sink,
            unsent: Vec::new(),
            timers: Vec::new(),
            started: Instant::now(),
            listened: VecDeque::new(),
            done: VecDeque::new(),
            gone: false,
        }
    }

    /// Emits an event on the session stream, after everything that happened before it.
    pub async fn emit(&mut self, event: SessionEvent) {
        self.unsent.push(event);
        self.flush().await;
    }

    /// Hands the emitted events to the sink. Cancel-safe: dropped while the consumer is full,
    /// it loses nothing.
    async fn flush(&mut self) {
        while !self.unsent.is_empty() {
            self.sink.emit_first(&mut self.unsent, FLUSH_BATCH).await;
        }
    }

    pub fn connection(&self) -> Option<&Connection> {
        self.driver.connection()
    }

    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    fn now(&self) -> Now {
        Now {
            mono: self.started.elapsed(),
            wall: now(),
            mark: self.transport.hand_over_mark(),
        }
    }

    /// Hands a command to the driver, after every transport event ready now: lines read before
    /// a request goes out are recorded first and can never be taken for its answer.
    pub fn start(&mut self, command: Command) {
        let mut inputs = self.ready_events();
        inputs.push(Input::Command(command));
        self.feed(inputs);
    }

    fn ready_events(&mut self) -> Vec<Input> {
        let mut inputs = Vec::new();
        while inputs.len() < BATCH
            && let Some(event) = self.transport.try_recv()
        {
            inputs.push(Input::Transport(event));
        }
        inputs
    }

    fn feed(&mut self, inputs: Vec<Input>) {
        let now = self.now();
        let mut outputs = self.driver.handle(now, inputs);
        loop {
            let refused = self.execute(outputs);
            if refused.is_empty() {
                return;
            }
            outputs = self.driver.handle(now, refused);
        }
    }

    /// Carries out the driver's outputs in order; what the transport refused comes back.
    fn execute(&mut self, outputs: Vec<Output>) -> Vec<Input> {
        let mut refused = Vec::new();
        for output in outputs {
            match output {
                Output::Send { outgoing, request } => {
                    if let Err(not_sent) = self.transport.send(outgoing) {
                        let reason = not_sent.to_string();
                        refused.push(Input::NotSent { request, reason });
                    }
                }
                Output::Event(event) => self.unsent.push(event),
                Output::Timer { id, at } => {
                    let place = self.timers.partition_point(|(when, _)| *when <= at);
                    self.timers.insert(place, (at, id));
                }
                Output::Close => self.transport.shutdown(),
                Output::Done(done) => self.done.push_back(done),
                Output::Gone => self.gone = true,
            }
        }
        refused
    }

    /// Runs the session until a command ends, the server goes, or `commands` brings one.
    /// The one loop every kind of session runs.
    pub async fn next<C>(&mut self, mut commands: Option<&mut mpsc::Receiver<C>>) -> Wake<C> {
        loop {
            // What led to a wake is on the stream before the caller hears of it.
            self.flush().await;
            if let Some(done) = self.done.pop_front() {
                return Wake::Done(done);
            }
            if std::mem::take(&mut self.gone) {
                return Wake::Gone;
            }
            let timer = self.timers.first().copied();
            let woken = tokio::select! {
                event = self.transport.recv(), if self.open => Woken::Transport(event),
                () = sleep_until(self.started + timer.map_or(Duration::ZERO, |(at, _)| at)),
                    if timer.is_some() => Woken::Timer,
                command = next_command(&mut commands) => Woken::Command(command),
            };
            match woken {
                Woken::Transport(event) => {
                    let event = event.unwrap_or_else(|| {
                        self.open = false;
                        transport_ended()
                    });
                    let mut inputs = vec![Input::Transport(event)];
                    inputs.extend(self.ready_events());
                    self.feed(inputs);
                }
                Woken::Timer => {
                    let (_, id) = self.timers.remove(0);
                    let mut inputs = self.ready_events();
                    inputs.push(Input::Timer(id));
                    self.feed(inputs);
                }
                Woken::Command(Some(command)) => return Wake::Command(command),
                Woken::Command(None) => return Wake::Closed,
            }
        }
    }

    /// Starts `command` and runs the session until it ends.
    async fn perform(&mut self, command: Command) -> Done {
        self.start(command);
        self.until_done::<()>(None).await
    }

    async fn until_done<C>(&mut self, mut commands: Option<&mut mpsc::Receiver<C>>) -> Done {
        loop {
            match self.next(commands.as_deref_mut()).await {
                // Not this command's end: kept for whoever holds the request open.
                Wake::Done(Done::Listened { key, exchange }) => {
                    self.listened.push_back((key, exchange));
                }
                Wake::Done(done) => return done,
                Wake::Gone | Wake::Command(_) => {}
                Wake::Closed => commands = None,
            }
        }
    }

    /// Establishes the era and protocol version as `--era` asks.
    /// A failure is on the stream (`ConnectFailed`), said by the driver.
    pub async fn negotiate(&mut self) -> Result<&Connection, SessionError> {
        match self.perform(Command::Connect).await {
            Done::Connected(Ok(_)) => {}
            Done::Connected(Err(error)) => return Err(error),
            // Unreachable (each command ends with its own kind of `Done`); said all the same.
            other => {
                let error = unexpected(&other);
                self.emit(error.as_event()).await;
                return Err(error);
            }
        }
        self.driver
            .connection()
            .ok_or_else(|| unread("server/discover"))
    }

    /// Lists every tool, following all pages, and re-fetches if the list changes meanwhile.
    /// The list (or why there is none) is emitted too.
    pub async fn list_tools(&mut self) -> Result<Arc<Catalog>, SessionError> {
        match self.perform(Command::ListTools).await {
            Done::Tools(listed) => listed,
            other => Err(unexpected(&other)),
        }
    }

    /// 2026-07-28 over HTTP: a finding when the server does not reject a header that
    /// contradicts the body; `None` when it does, or when there is nothing to check.
    pub async fn check_header_validation(&mut self) -> Option<Finding> {
        match self.perform(Command::CheckHeaders).await {
            Done::HeadersChecked(finding) => finding.map(|finding| *finding),
            _ => None,
        }
    }

    /// Sends `tools/call` with `arguments` exactly as given (even when not an object), asking
    /// for progress notifications as hosts do.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Exchange {
        self.call(name, arguments).await.exchange
    }

    /// [`SessionRunner::call_tool`], with the judgement the session made of the call.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Finished {
        let command = Command::Call {
            tool: name.to_owned(),
            arguments,
        };
        match self.perform(command).await {
            Done::Called(finished) => *finished,
            other => Finished::unjudged(exchange_of(other)),
        }
    }

    /// Like [`SessionRunner::call_tool`], ended early (and cancelled) when `cancel` fires.
    pub async fn call_tool_cancellable(
        &mut self,
        name: &str,
        arguments: Value,
        cancel: oneshot::Receiver<()>,
    ) -> Exchange {
        let (cancels, mut cancelled) = mpsc::channel(1);
        tokio::spawn(async move {
            if cancel.await.is_ok() {
                let _ = cancels.send(()).await;
            }
        });
        self.start(Command::Call {
            tool: name.to_owned(),
            arguments,
        });
        let mut cancels = Some(&mut cancelled);
        loop {
            match self.next(cancels.as_deref_mut()).await {
                Wake::Done(done) => return exchange_of(done),
                Wake::Command(()) => self.start(Command::Cancel),
                Wake::Closed => cancels = None,
                Wake::Gone => {}
            }
        }
    }

    /// The end of a held-open request ([`Command::Listen`]) that came while another command
    /// was awaited, oldest first.
    pub fn take_listened(&mut self) -> Option<(String, Box<Exchange>)> {
        self.listened.pop_front()
    }

    /// Sends one request and waits for its end, with the configured timeout.
    pub async fn request(&mut self, method: &str, params: Option<Value>) -> Exchange {
        let command = Command::Request {
            method: method.to_owned(),
            params,
        };
        exchange_of(self.perform(command).await)
    }

    /// Stops the server the way its transport does, and records everything until the
    /// transport has nothing more to say (or the shutdown budget is spent).
    pub async fn shutdown(&mut self) {
        self.start(Command::Shutdown);
        loop {
            match self.next::<()>(None).await {
                Wake::Done(Done::ShutDown) => break,
                Wake::Done(_) | Wake::Gone | Wake::Command(()) | Wake::Closed => {}
            }
        }
        self.flush().await;
    }
}

/// What woke the runner's wait.
enum Woken<C> {
    Transport(Option<TransportEvent>),
    Timer,
    Command(Option<C>),
}

/// The next command, or never when there is no channel.
async fn next_command<C>(commands: &mut Option<&mut mpsc::Receiver<C>>) -> Option<C> {
    match commands {
        Some(commands) => commands.recv().await,
        None => std::future::pending().await,
    }
}

fn transport_ended() -> TransportEvent {
    TransportEvent::Closed {
        status: "the transport ended".into(),
        stderr_tail: Vec::new(),
        at: now(),
    }
}

/// The exchange a call or a request ended with.
fn exchange_of(done: Done) -> Exchange {
    match done {
        Done::Called(finished) => finished.exchange,
        Done::Requested(exchange) => *exchange,
        // Each command ends with its own kind of `Done`, one at a time: said, never a panic.
        other => crate::driver::no_exchange(format!("the session ended with {other:?}"), now()),
    }
}

fn unread(method: &str) -> SessionError {
    SessionError::UnexpectedResult {
        method: method.into(),
        reason: "no answer".into(),
    }
}

fn unexpected(done: &Done) -> SessionError {
    SessionError::UnexpectedResult {
        method: "session".into(),
        reason: format!("the session ended with {done:?}"),
    }
}
