//! A stdio proxy's pipes: the host's stdin to the server's, the server's stdout to the host's,
//! its stderr to ours — each chunk passed on whole as it was read (the watch told of it
//! first), so bytes and order are the server's and the host's; each side's end is passed on as
//! the other would have seen it (EOF, then the server's exit status as ours).

use std::process::Stdio;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Command;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::observe::Seen;
use super::watch::Side;
use crate::mcp::framing::{DEFAULT_MAX_FRAME_BYTES, Line, LineFramer};
use crate::transport::now;

/// How much one read takes at most.
const CHUNK: usize = 64 * 1024;

/// Bytes of frames a pipe may have in hand at once, at most: the line it is framing and the
/// lines the watch has not finished with. One frame of the largest size fits; a pipe that
/// gets this far ahead of the watch waits before it passes more on, so a burst of large
/// results costs this much memory, not the burst's size.
const IN_HAND: usize = DEFAULT_MAX_FRAME_BYTES;

/// How the server could not be run.
#[derive(Debug)]
pub struct NotStarted(pub String);

/// Runs `server` between our stdio and the host's; the server's exit code (128 + the signal
/// when one killed it), `None` when it is unknown. When `stop` comes (the host stopped the proxy), the server is sent
/// SIGTERM, as the host would have sent it, and its end is awaited as any other.
pub async fn run(
    server: &[String],
    seen: mpsc::Sender<Seen>,
    stop: impl std::future::Future<Output = ()>,
) -> Result<Option<i32>, NotStarted> {
    let Some((program, args)) = server.split_first() else {
        return Err(NotStarted("no server command after --".into()));
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|error| NotStarted(format!("cannot start {program}: {error}")))?;
    let (Some(child_in), Some(child_out), Some(child_err)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(NotStarted(format!("{program}: no pipes")));
    };
    let to_server = tokio::spawn(pipe(
        tokio::io::stdin(),
        child_in,
        Some(Side::Host),
        seen.clone(),
    ));
    let errors = tokio::spawn(pipe(child_err, tokio::io::stderr(), None, seen.clone()));
    // The server's stdout ending means it is done: the host sees our stdout end with it.
    let output = pipe(
        child_out,
        tokio::io::stdout(),
        Some(Side::Server),
        seen.clone(),
    );
    tokio::pin!(output);
    tokio::select! {
        () = &mut output => {}
        () = stop => {
            if let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGTERM,
                );
            }
            output.await;
        }
    }
    let status = child.wait().await;
    let _ = errors.await;
    to_server.abort();
    let (code, words) = match &status {
        // Killed by a signal: the shell's 128 + the signal, as the host would have seen it.
        Ok(status) => (
            status.code().or_else(|| {
                std::os::unix::process::ExitStatusExt::signal(status).map(|signal| 128 + signal)
            }),
            status.to_string(),
        ),
        Err(error) => (None, format!("unknown ({error})")),
    };
    let _ = seen
        .send(Seen::Closed {
            status: words,
            at: now(),
        })
        .await;
    Ok(code)
}

/// Copies `from` to `to` as it comes, flushing each chunk, telling the watch what passed:
/// frames of `side`, or stderr text when `side` is `None`. `to` is closed when `from` ends.
/// A pipe [`IN_HAND`] bytes ahead of the watch passes on more only as the watch catches up
/// (the writer waits, as it would for a slow reader): memory is bounded whatever the traffic.
async fn pipe(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    side: Option<Side>,
    seen: mpsc::Sender<Seen>,
) {
    let mut framer = LineFramer::new(DEFAULT_MAX_FRAME_BYTES);
    let mut buffer = vec![0u8; CHUNK];
    let (mut open, mut watching) = (true, true);
    let mut in_hand = InHand::new();
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        let chunk = &buffer[..read];
        // The watch hears of a chunk before it is passed on, so it can never see an answer
        // before the request it answers; that costs a channel send, and a watch that is gone
        // is not waited for.
        if watching {
            watching = tell(&seen, side, &mut framer, &mut in_hand, chunk).await;
        }
        if open && (to.write_all(chunk).await.is_err() || to.flush().await.is_err()) {
            // The reader is gone; what the writer still says is watched, not lost.
            open = false;
        }
    }
    if let (true, Some(from), Some(line)) = (watching, side, framer.finish()) {
        let budget = in_hand.line(&line);
        let _ = seen
            .send(Seen::Line {
                from,
                line,
                at: now(),
                budget,
            })
            .await;
    }
    let _ = to.shutdown().await;
}

/// Tells the watch of one chunk (once it fits in the pipe's budget): the lines it completes,
/// each with its share of the budget, or stderr text. False once the watch is gone.
async fn tell(
    seen: &mpsc::Sender<Seen>,
    side: Option<Side>,
    framer: &mut LineFramer,
    in_hand: &mut InHand,
    chunk: &[u8],
) -> bool {
    let at = now();
    let Some(from) = side else {
        let Some(budget) = in_hand.stderr(chunk).await else {
            return false;
        };
        let text = String::from_utf8_lossy(chunk).into_owned();
        let stderr = Seen::Stderr {
            text,
            at,
            budget: Some(budget),
        };
        return seen.send(stderr).await.is_ok();
    };
    if !in_hand.reading(chunk).await {
        return false;
    }
    for line in framer.push(chunk) {
        let budget = in_hand.line(&line);
        let told = Seen::Line {
            from,
            line,
            at,
            budget,
        };
        if seen.send(told).await.is_err() {
            return false;
        }
    }
    in_hand.framed();
    true
}

/// A pipe's share of [`IN_HAND`]: what the line being framed holds (its bytes so far, up to
/// all of it), and the semaphore the watch gives the rest back to as it finishes each line.
struct InHand {
    budget: Arc<Semaphore>,
    framing: Option<OwnedSemaphorePermit>,
    /// Bytes of the line being framed.
    partial: usize,
}

impl InHand {
    fn new() -> Self {
        Self {
            budget: Arc::new(Semaphore::new(IN_HAND)),
            framing: None,
            partial: 0,
        }
    }

    fn held(&self) -> usize {
        self.framing
            .as_ref()
            .map_or(0, OwnedSemaphorePermit::num_permits)
    }

    /// Waits until `chunk`, about to be framed, fits; `false` if it never will.
    async fn reading(&mut self, chunk: &[u8]) -> bool {
        let wanted = chunk.len().min(IN_HAND - self.held());
        if wanted > 0 {
            let Ok(permit) = self.acquire(wanted).await else {
                return false;
            };
            match &mut self.framing {
                Some(framing) => framing.merge(permit),
                None => self.framing = Some(permit),
            }
        }
        self.partial = match memchr::memrchr(b'\n', chunk) {
            Some(at) => chunk.len() - at - 1,
            None => self.partial + chunk.len(),
        };
        true
    }

    /// The share a line the framer completed takes with it.
    fn line(&mut self, line: &Line) -> Option<OwnedSemaphorePermit> {
        self.split(size(line))
    }

    /// After the chunk's lines: what they did not take beyond the next line's bytes goes back.
    fn framed(&mut self) {
        let surplus = self.held().saturating_sub(self.partial.min(IN_HAND));
        drop(self.split(surplus));
    }

    /// Waits until a chunk of stderr fits, and gives its share.
    async fn stderr(&self, chunk: &[u8]) -> Option<OwnedSemaphorePermit> {
        self.acquire(chunk.len().min(IN_HAND)).await.ok()
    }

    async fn acquire(&self, n: usize) -> Result<OwnedSemaphorePermit, tokio::sync::AcquireError> {
        Arc::clone(&self.budget)
            .acquire_many_owned(u32::try_from(n).unwrap_or(u32::MAX))
            .await
    }

    /// `n` of the permits held (fewer if fewer are), split off.
    fn split(&mut self, n: usize) -> Option<OwnedSemaphorePermit> {
        let held = self.framing.as_mut()?;
        if n >= held.num_permits() {
            self.framing.take()
        } else {
            held.split(n)
        }
    }
}

/// The bytes a line keeps in memory.
fn size(line: &Line) -> usize {
    match line {
        Line::Text(text) => text.len(),
        Line::Bytes(bytes) => bytes.len(),
        Line::Oversized { .. } => 0,
    }
}
