//! The stdio transport: a child process (or any reader/writer pair, for tests), with a writer
//! task for stdin, a framing reader for stdout, a line reader for stderr and a supervisor that
//! reports the exit status only after both outputs are drained.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::framing::{Line, LineFramer, decode};
use super::{EVENT_CAPACITY, Transport, TransportError, TransportEvent, now};

/// How long the supervisor waits for the outputs to drain, and for exit after stdout closes.
const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// Longest stderr line kept whole; longer ones are cut, not buffered.
const MAX_STDERR_LINE: usize = 64 * 1024;
const READ_CHUNK: usize = 64 * 1024;

/// A server command line with extra environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    pub program: String,
    pub args: Vec<String>,
    pub env: HashMap<String, String>,
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

/// Signals for a child process group.
#[derive(Debug)]
pub(super) struct ProcessHandle {
    pid: u32,
}

impl ProcessHandle {
    pub(super) fn signal(&self, force: bool) {
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        let signal = if force {
            Signal::SIGKILL
        } else {
            Signal::SIGTERM
        };
        let Ok(pid) = i32::try_from(self.pid) else {
            return;
        };
        // The group may already be gone (ESRCH): that is the outcome we wanted.
        let _ = killpg(Pid::from_raw(pid), signal);
    }
}

/// Spawns `command` and connects to it.
pub fn spawn(command: &StdioCommand, max_frame_bytes: usize) -> Result<Transport, TransportError> {
    let mut child = Command::new(&command.program)
        .args(&command.args)
        .envs(&command.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: terminal signals don't reach it and shutdown reaches its children.
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| TransportError::Spawn {
            program: command.program.clone(),
            source,
        })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let source = std::io::Error::other("stdio pipes were not created");
        return Err(TransportError::Spawn {
            program: command.program.clone(),
            source,
        });
    };
    let (events_tx, events) = mpsc::channel(EVENT_CAPACITY);
    let outgoing = start_writer(stdin, events_tx.clone());
    let stdout_task = tokio::spawn(read_frames(stdout, max_frame_bytes, events_tx.clone()));
    let stderr_task = tokio::spawn(read_stderr(stderr, events_tx.clone()));
    let pid = child.id().unwrap_or_default();
    tokio::spawn(supervise(child, stdout_task, stderr_task, events_tx));
    Ok(Transport {
        outgoing: Some(outgoing),
        events,
        process: Some(ProcessHandle { pid }),
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
    tokio::spawn(async move {
        read_frames(reader, max_frame_bytes, events_tx.clone()).await;
        let closed = TransportEvent::Closed {
            status: "the peer closed its output".into(),
            at: now(),
        };
        // The receiver may be gone already; then nobody is waiting for this event.
        let _ = events_tx.send(closed).await;
    });
    Transport {
        outgoing: Some(outgoing),
        events,
        process: None,
        description: "stdio".into(),
    }
}

fn start_writer<W>(mut writer: W, events: mpsc::Sender<TransportEvent>) -> mpsc::Sender<String>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::channel::<String>(64);
    tokio::spawn(async move {
        while let Some(mut line) = rx.recv().await {
            line.push('\n');
            let written = async {
                writer.write_all(line.as_bytes()).await?;
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

async fn read_frames<R>(mut reader: R, max_frame_bytes: usize, events: mpsc::Sender<TransportEvent>)
where
    R: AsyncRead + Unpin,
{
    let mut framer = LineFramer::new(max_frame_bytes);
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        let read = match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        for line in framer.push(&chunk[..read]) {
            let event = TransportEvent::Received {
                frame: decode(line, framer.limit()),
                at: now(),
            };
            if events.send(event).await.is_err() {
                return;
            }
        }
    }
    if let Some(line) = framer.finish() {
        let event = TransportEvent::Received {
            frame: decode(line, framer.limit()),
            at: now(),
        };
        let _ = events.send(event).await;
    }
}

async fn read_stderr<R>(mut reader: R, events: mpsc::Sender<TransportEvent>)
where
    R: AsyncRead + Unpin,
{
    let mut framer = LineFramer::new(MAX_STDERR_LINE);
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        let (lines, done) = match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => (framer.finish().into_iter().collect(), true),
            Ok(read) => (framer.push(&chunk[..read]), false),
        };
        for line in lines {
            let line = match line {
                Line::Complete(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Line::Oversized { len } => format!("[a stderr line of {len} bytes was skipped]"),
            };
            if events
                .send(TransportEvent::StderrLine { line, at: now() })
                .await
                .is_err()
            {
                return;
            }
        }
        if done {
            return;
        }
    }
}

/// Reports the exit only after stdout and stderr are drained, so no line follows `Closed`.
async fn supervise(
    mut child: Child,
    stdout_task: JoinHandle<()>,
    stderr_task: JoinHandle<()>,
    events: mpsc::Sender<TransportEvent>,
) {
    // A finished reader can only have failed by panicking, which its own event stream shows.
    let _ = stdout_task.await;
    let status = match tokio::time::timeout(DRAIN_GRACE, child.wait()).await {
        Ok(Ok(status)) => describe_exit(status),
        Ok(Err(error)) => format!("exit status unknown: {error}"),
        Err(_) => "closed its stdout but is still running".to_owned(),
    };
    // A grandchild may hold stderr open; don't wait for it forever.
    let _ = tokio::time::timeout(DRAIN_GRACE, stderr_task).await;
    let _ = events
        .send(TransportEvent::Closed { status, at: now() })
        .await;
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => status.to_string(),
    }
}
