//! The stdio transport: a child process (or any reader/writer pair, for tests), with a writer
//! task for stdin, a framing reader for stdout, a line reader for stderr and a supervisor that
//! reports the exit only after both outputs are drained, and stops the whole process group.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::{EVENT_CAPACITY, Outgoing, Transport, TransportError, TransportEvent, now};
use crate::mcp::framing::{LineFramer, decode};

/// How long the supervisor waits for the outputs to drain while the server's processes may
/// still write, and for exit after stdout closes.
const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// Once no process of the server's group is left, what is in the pipes is read at once: a
/// process still holding them has left the group (`setsid`) and is no longer the server.
const DRAIN_GONE: Duration = Duration::from_millis(50);
/// Each step of a shutdown waits this long: stdin closed, then SIGTERM, then SIGKILL.
const SHUTDOWN_STEP: Duration = Duration::from_millis(300);
/// Longest stderr line kept whole; longer ones are cut, not buffered.
const MAX_STDERR_LINE: usize = 64 * 1024;
/// How many stderr lines a server exit quotes.
const STDERR_TAIL: usize = 20;
const READ_CHUNK: usize = 64 * 1024;

/// A server command line with extra environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    pub program: String,
    pub args: Vec<String>,
    pub env: HashMap<String, String>,
    /// The directory to start it in (the current one when `None`).
    pub cwd: Option<String>,
}

impl StdioCommand {
    /// The command as a user would type it.
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The child's process group (it leads its own), which shutdown signals as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ProcessGroup(nix::unistd::Pid);

/// The servers' process groups not yet seen gone. A supervisor stops its group on a task, and
/// the runtime may end before that task runs (a server that exited on its own leaves its
/// helpers behind, and the run ends at once): [`stop_every_server`] stops what is left.
static LIVE_GROUPS: Mutex<Vec<ProcessGroup>> = Mutex::new(Vec::new());

/// Stops every server process group still alive: SIGTERM to all, a grace period only while
/// one of them lingers, then SIGKILL. Called as sightline exits, on every path.
pub fn stop_every_server() {
    let groups = std::mem::take(&mut *LIVE_GROUPS.lock().unwrap_or_else(PoisonError::into_inner));
    let alive: Vec<ProcessGroup> = groups.into_iter().filter(|g| g.is_alive()).collect();
    for group in &alive {
        group.signal(Signal::SIGTERM);
    }
    let deadline = std::time::Instant::now() + SHUTDOWN_STEP;
    while alive.iter().any(|group| group.is_alive()) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    for group in alive.iter().filter(|group| group.is_alive()) {
        group.signal(Signal::SIGKILL);
    }
}

impl ProcessGroup {
    fn register(self) {
        LIVE_GROUPS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(self);
    }

    /// Seen gone: its id may be reused, and must never be signalled again.
    fn forget(self) {
        LIVE_GROUPS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|group| *group != self);
    }

    /// SIGTERM, a short wait, SIGKILL: for when nothing async is left to wait with.
    pub(super) fn stop_now(self) {
        self.signal(Signal::SIGTERM);
        let deadline = std::time::Instant::now() + SHUTDOWN_STEP;
        while self.is_alive() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if self.is_alive() {
            self.signal(Signal::SIGKILL);
        }
        self.forget();
    }

    fn signal(self, signal: Signal) {
        // The group may already be gone (ESRCH): that is the outcome we wanted.
        let _ = nix::sys::signal::killpg(self.0, signal);
    }

    /// Whether a member of the group is alive; zombies are not (see `holders`).
    fn is_alive(self) -> bool {
        nix::sys::signal::killpg(self.0, None).is_ok()
            && super::holders::group_has_live_member(self.0.as_raw()) != Some(false)
    }
}

/// The last lines of the server's stderr, shared by its reader and the supervisor.
type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// What the stdout reader and the hand-over of a request share, so that a line the server wrote
/// before the request is never taken for its answer however late the reader gets to it: how
/// many bytes were read, and where the bytes already waiting in the pipe ended at each
/// hand-over. A read and its mark, and a hand-over's count and its mark, are each taken under
/// the lock, so every byte is either read before a hand-over's mark or counted by it.
#[derive(Debug)]
pub(super) struct ReadLedger {
    /// A duplicate of the server's stdout, to count what waits in the pipe (`FIONREAD`);
    /// `None` once the reader is done.
    pipe: Option<OwnedFd>,
    read: u64,
    /// (offset the waiting bytes ended at, the hand-over's mark), oldest first.
    waiting: VecDeque<(u64, u64)>,
}

impl ReadLedger {
    fn new(pipe: Option<OwnedFd>) -> Arc<Mutex<Self>> {
        Arc::new(Mutex::new(Self {
            pipe,
            read: 0,
            waiting: VecDeque::new(),
        }))
    }

    /// A mark for a request about to be handed over: bytes already waiting in the pipe are
    /// tagged with an earlier mark, so their lines count as read before the request went out.
    pub(super) fn hand_over(ledger: &Mutex<Self>) -> u64 {
        let mut ledger = ledger.lock().unwrap_or_else(PoisonError::into_inner);
        let waiting = ledger
            .pipe
            .as_ref()
            .and_then(|pipe| rustix::io::ioctl_fionread(pipe).ok())
            .unwrap_or(0);
        if waiting > 0 {
            let end = ledger.read + waiting;
            let before = super::wire_mark();
            ledger.waiting.push_back((end, before));
        }
        super::wire_mark()
    }

    /// Records a read of `len` bytes: its mark, and where in it the bytes that waited at a
    /// hand-over end (offsets into the read, with that hand-over's mark).
    fn record(&mut self, len: usize) -> (u64, Vec<(usize, u64)>) {
        let mark = super::wire_mark();
        let start = self.read;
        self.read += len as u64;
        let mut cuts = Vec::new();
        while let Some(&(end, before)) = self.waiting.front() {
            if end > self.read {
                break;
            }
            self.waiting.pop_front();
            // A count can only cover bytes not read yet, so `end` lies in this read.
            let cut = usize::try_from(end.saturating_sub(start)).unwrap_or(len);
            cuts.push((cut.min(len), before));
        }
        (mark, cuts)
    }
}

/// Spawns `command` and connects to it.
pub fn spawn(command: &StdioCommand, max_frame_bytes: usize) -> Result<Transport, TransportError> {
    let spawn_error = |source| TransportError::Spawn {
        program: command.program.clone(),
        source,
    };
    let mut child = Command::new(&command.program);
    if let Some(cwd) = &command.cwd {
        child.current_dir(cwd);
    }
    let mut child = child
        .args(&command.args)
        .envs(&command.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: terminal signals don't reach it and shutdown reaches its children.
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(spawn_error)?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(spawn_error(std::io::Error::other(
            "stdio pipes were not created",
        )));
    };
    let group = child
        .id()
        .and_then(|pid| i32::try_from(pid).ok())
        .map(|pid| ProcessGroup(nix::unistd::Pid::from_raw(pid)))
        .ok_or_else(|| spawn_error(std::io::Error::other("the child has no process id")))?;
    group.register();
    // The pipes by name, to say later which process keeps them open.
    let pipes = [stdout.as_raw_fd(), stderr.as_raw_fd()].map(super::holders::pipe_of);
    // A copy that cannot fail to be made would be nicer; without one, no early line is told.
    let ledger = ReadLedger::new(stdout.as_fd().try_clone_to_owned().ok());
    let (events_tx, events) = mpsc::channel(EVENT_CAPACITY);
    let outgoing = start_writer(stdin, events_tx.clone());
    let tail = StderrTail::default();
    let stdout_task = tokio::spawn(read_frames(
        stdout,
        max_frame_bytes,
        Arc::clone(&ledger),
        events_tx.clone(),
    ));
    let stderr_task = tokio::spawn(read_stderr(stderr, Arc::clone(&tail), events_tx.clone()));
    let (stop, stop_rx) = oneshot::channel();
    let supervisor = Supervisor {
        child,
        group,
        tail,
        events: events_tx,
        pipes,
    };
    tokio::spawn(supervisor.run(stdout_task, stderr_task, stop_rx));
    Ok(Transport {
        outgoing: Some(outgoing),
        events,
        stop: Some(stop),
        group: Some(group),
        ledger: Some(ledger),
        http: false,
        description: format!("stdio: {}", command.display()),
    })
}

/// Connects to a peer over any reader/writer pair (tests use `tokio::io::duplex`).
pub fn connect_io<R, W>(reader: R, writer: W, max_frame_bytes: usize) -> Transport
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (events_tx, events) = mpsc::channel(EVENT_CAPACITY);
    let outgoing = start_writer(writer, events_tx.clone());
    let ledger = ReadLedger::new(None);
    tokio::spawn(async move {
        read_frames(reader, max_frame_bytes, ledger, events_tx.clone()).await;
        let closed = TransportEvent::Closed {
            status: "the peer closed its output".into(),
            stderr_tail: Vec::new(),
            at: now(),
        };
        // The receiver may be gone already; then nobody is waiting for this event.
        let _ = events_tx.send(closed).await;
    });
    Transport {
        outgoing: Some(outgoing),
        events,
        stop: None,
        group: None,
        ledger: None,
        http: false,
        description: "stdio".into(),
    }
}

fn start_writer<W>(mut writer: W, events: mpsc::Sender<TransportEvent>) -> mpsc::Sender<Outgoing>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::channel::<Outgoing>(super::OUTGOING_CAPACITY);
    tokio::spawn(async move {
        while let Some(outgoing) = rx.recv().await {
            let line = match outgoing {
                Outgoing::Line(line) | Outgoing::WithHeaders { line, .. } => line,
                // A stdio server has one stream for everything: nothing to close alone.
                Outgoing::CloseStream(_) => continue,
            };
            let written = async {
                writer.write_all(line.as_bytes()).await?;
                writer.write_all(b"\n").await?;
                writer.flush().await
            };
            if let Err(error) = written.await {
                let failed = TransportEvent::WriteFailed {
                    reason: error.to_string(),
                    at: now(),
                };
                // If nobody listens any more, the failure has no one to tell.
                let _ = events.send(failed).await;
                return;
            }
        }
        // Dropping the writer closes the server's stdin: the polite shutdown signal.
        let _ = writer.shutdown().await;
    });
    tx
}

async fn read_frames<R>(
    mut reader: R,
    max_frame_bytes: usize,
    ledger: Arc<Mutex<ReadLedger>>,
    events: mpsc::Sender<TransportEvent>,
) where
    R: AsyncRead + Unpin,
{
    let mut framer = LineFramer::new(max_frame_bytes);
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        let Some((read, mark, cuts)) = read_marked(&mut reader, &ledger, &mut chunk).await else {
            break;
        };
        // Lines completed by bytes that waited at a hand-over carry that hand-over's mark.
        let mut from = 0;
        let pieces = cuts
            .into_iter()
            .chain(std::iter::once((read, mark)))
            .map(|(to, mark)| (std::mem::replace(&mut from, to), to, mark));
        for (from, to, mark) in pieces {
            let limit = framer.limit();
            let lines: Vec<_> = framer
                .push(&chunk[from..to])
                .into_iter()
                .map(|line| decode(line, limit))
                .collect();
            if lines.is_empty() {
                continue;
            }
            let event = TransportEvent::Received {
                lines,
                at: now(),
                mark,
                body_of: None,
            };
            if events.send(event).await.is_err() {
                return;
            }
        }
    }
    ledger.lock().unwrap_or_else(PoisonError::into_inner).pipe = None;
    if let Some(line) = framer.finish() {
        let lines = vec![decode(line, framer.limit())];
        let _ = events
            .send(TransportEvent::Received {
                lines,
                at: now(),
                mark: super::wire_mark(),
                body_of: None,
            })
            .await;
    }
}

/// One read, its mark and where the bytes that waited at a hand-over end in it, recorded
/// together under the ledger's lock (held only while the read is polled, never across a wait);
/// `None` at the end of the output.
async fn read_marked<R>(
    reader: &mut R,
    ledger: &Mutex<ReadLedger>,
    chunk: &mut [u8],
) -> Option<(usize, u64, Vec<(usize, u64)>)>
where
    R: AsyncRead + Unpin,
{
    std::future::poll_fn(|cx| {
        let mut ledger = ledger.lock().unwrap_or_else(PoisonError::into_inner);
        let mut buffer = tokio::io::ReadBuf::new(chunk);
        match std::pin::Pin::new(&mut *reader).poll_read(cx, &mut buffer) {
            std::task::Poll::Pending => std::task::Poll::Pending,
            std::task::Poll::Ready(Err(_)) => std::task::Poll::Ready(None),
            std::task::Poll::Ready(Ok(())) => {
                let read = buffer.filled().len();
                if read == 0 {
                    return std::task::Poll::Ready(None);
                }
                let (mark, cuts) = ledger.record(read);
                std::task::Poll::Ready(Some((read, mark, cuts)))
            }
        }
    })
    .await
}

async fn read_stderr<R>(mut reader: R, tail: StderrTail, events: mpsc::Sender<TransportEvent>)
where
    R: AsyncRead + Unpin,
{
    let mut splitter = super::stderr_lines::StderrLines::new(MAX_STDERR_LINE);
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        let (text, done) = match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => (splitter.finish(), true),
            Ok(read) => (splitter.push(&chunk[..read]), false),
        };
        if !text.is_empty() {
            {
                let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
                let last: Vec<&str> = text.rsplit('\n').take(STDERR_TAIL).collect();
                tail.extend(last.into_iter().rev().map(str::to_owned));
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
            let event = TransportEvent::StderrLines { text, at: now() };
            if events.send(event).await.is_err() {
                return;
            }
        }
        if done {
            return;
        }
    }
}

/// Owns the child: reports how it ended, and stops its whole process group when asked.
struct Supervisor {
    child: Child,
    group: ProcessGroup,
    tail: StderrTail,
    events: mpsc::Sender<TransportEvent>,
    /// The server's stdout and stderr pipes (`pipe:[…]`), where `/proc` names them.
    pipes: [Option<String>; 2],
}

impl Supervisor {
    /// Reports the exit only after stdout and stderr are drained, so no line follows `Closed`.
    /// A stop request (or the transport being dropped) shuts the server down; a server that
    /// ended on its own still has its group stopped then, so no helper process is left behind.
    async fn run(
        mut self,
        mut stdout_task: JoinHandle<()>,
        mut stderr_task: JoinHandle<()>,
        mut stop: oneshot::Receiver<()>,
    ) {
        let first = tokio::select! {
            _ = &mut stdout_task => First::OutputEnded,
            exit = self.child.wait() => First::Exited(exit),
            _ = &mut stop => First::StopAsked,
        };
        let stopping = matches!(first, First::StopAsked);
        let status = match first {
            First::StopAsked => {
                let status = self.stop_group().await;
                // A helper may hold stdout open after the leader died; don't wait for it forever.
                if Self::drain(&mut stdout_task, self.grace()).await {
                    status
                } else {
                    format!("{status}; {}", self.held())
                }
            }
            First::OutputEnded => {
                match tokio::time::timeout(DRAIN_GRACE, self.child.wait()).await {
                    Ok(exit) => describe(exit),
                    Err(_) => "closed its stdout but is still running".to_owned(),
                }
            }
            // The server is gone even if a process it started keeps its output open.
            First::Exited(exit) => {
                if Self::drain(&mut stdout_task, self.grace()).await {
                    describe(exit)
                } else {
                    format!("{}; {}", describe(exit), self.held())
                }
            }
        };
        // Its sender must go too, or the client would wait for the channel to close.
        Self::drain(&mut stderr_task, self.grace()).await;
        let stderr_tail = self
            .tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect();
        let closed = TransportEvent::Closed {
            status,
            stderr_tail,
            at: now(),
        };
        let _ = self.events.send(closed).await;
        if !stopping {
            // Whether asked to stop or dropped, the group goes.
            let _ = stop.await;
            self.stop_group().await;
        }
        self.group.forget();
    }

    /// Lets a reader finish what was written; stops it after `grace` (a helper process holds
    /// the pipe). Whether it finished on its own.
    async fn drain(task: &mut JoinHandle<()>, grace: Duration) -> bool {
        let finished = tokio::time::timeout(grace, &mut *task).await.is_ok();
        task.abort();
        finished
    }

    /// How long output may still take: no time to speak of once the group is gone.
    fn grace(&self) -> Duration {
        if self.group.is_alive() {
            DRAIN_GRACE
        } else {
            DRAIN_GONE
        }
    }

    /// Who keeps the server's output open after it is gone, as far as `/proc` tells.
    fn held(&self) -> String {
        let mut holders: Vec<String> = self
            .pipes
            .iter()
            .flatten()
            .flat_map(|pipe| super::holders::holders(pipe, 4))
            .collect();
        holders.dedup();
        if holders.is_empty() {
            "a process it started still holds its output open".to_owned()
        } else {
            format!(
                "a process it started still holds its output open: {}",
                holders.join(", ")
            )
        }
    }

    /// Stdin is already closed: wait, SIGTERM the group, wait, SIGKILL it. Whatever the leader
    /// did first, the group is signalled until no member is left.
    async fn stop_group(&mut self) -> String {
        let mut status = None;
        for signal in [None, Some(Signal::SIGTERM), Some(Signal::SIGKILL)] {
            if let Some(signal) = signal {
                self.group.signal(signal);
            }
            if status.is_none()
                && let Ok(Ok(exit)) = tokio::time::timeout(SHUTDOWN_STEP, self.child.wait()).await
            {
                status = Some(describe_exit(exit));
            }
            // After SIGKILL nothing can linger but zombies waiting for their reaper.
            if signal == Some(Signal::SIGKILL) || (status.is_some() && !self.group_lingers().await)
            {
                break;
            }
        }
        status.unwrap_or_else(|| "still running after SIGKILL".to_owned())
    }

    /// Whether members of the group are still alive after a short wait.
    async fn group_lingers(&self) -> bool {
        let deadline = tokio::time::Instant::now() + SHUTDOWN_STEP;
        while self.group.is_alive() {
            if tokio::time::Instant::now() >= deadline {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }
}

/// What ended the supervisor's first wait.
enum First {
    OutputEnded,
    Exited(std::io::Result<std::process::ExitStatus>),
    StopAsked,
}

fn describe(exit: std::io::Result<std::process::ExitStatus>) -> String {
    match exit {
        Ok(status) => describe_exit(status),
        Err(error) => format!("exit status unknown: {error}"),
    }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => status.to_string(),
    }
}
