//! A stdio proxy's pipes: the host's stdin to the server's, the server's stdout to the host's,
//! its stderr to ours — each chunk written on before it is looked at, so bytes, order and
//! timing are the server's and the host's; each side's end is passed on as the other would have
//! seen it (EOF, then the server's exit status as ours).

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
/// gets this far ahead of the watch waits before it reads more, so a burst of large results
/// costs this much memory, not the burst's size.
const IN_HAND: usize = DEFAULT_MAX_FRAME_BYTES;

/// How the server could not be run.
#[derive(Debug)]
pub struct NotStarted(pub String);

/// Runs `server` between our stdio and the host's; the server's exit code, or `None` when it
/// was killed by a signal.
pub async fn run(server: &[String], seen: mpsc::Sender<Seen>) -> Result<Option<i32>, NotStarted> {
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
    pipe(
        child_out,
        tokio::io::stdout(),
        Some(Side::Server),
        seen.clone(),
    )
    .await;
    let status = child.wait().await;
    let _ = errors.await;
    to_server.abort();
    let (code, words) = match &status {
        Ok(status) => (status.code(), status.to_string()),
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

/// Copies `from` to `to` as it comes, flushing each chunk, then tells the watch what passed:
/// frames of `side`, or stderr text when `side` is `None`. `to` is closed when `from` ends.
/// A pipe [`IN_HAND`] bytes ahead of the watch reads on only as the watch catches up (the
/// writer waits, as it would for a slow reader): memory is bounded whatever the traffic.
async fn pipe(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    side: Option<Side>,
    seen: mpsc::Sender<Seen>,
) {
    let mut framer = LineFramer::new(DEFAULT_MAX_FRAME_BYTES);
    let mut buffer = vec![0u8; CHUNK];
    let mut open = true;
    let mut in_hand = InHand::new();
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        let chunk = &buffer[..read];
        // The other side first: watching never delays a frame.
        if open && (to.write_all(chunk).await.is_err() || to.flush().await.is_err()) {
            // The reader is gone; what the writer still says is watched, not lost.
            open = false;
        }
        let at = now();
        let told = if let Some(from) = side {
            if !in_hand.reading(chunk).await {
                return;
            }
            let mut told = true;
            for line in framer.push(chunk) {
                let budget = in_hand.line(&line);
                told &= seen
                    .send(Seen::Line {
                        from,
                        line,
                        at,
                        budget,
                    })
                    .await
                    .is_ok();
            }
            in_hand.framed();
            told
        } else {
            let Some(budget) = in_hand.stderr(chunk).await else {
                return;
            };
            let text = String::from_utf8_lossy(chunk).into_owned();
            seen.send(Seen::Stderr {
                text,
                at,
                budget: Some(budget),
            })
            .await
            .is_ok()
        };
        if !told {
            return;
        }
    }
    if let (Some(from), Some(line)) = (side, framer.finish()) {
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
