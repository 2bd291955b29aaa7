//! A stdio proxy's pipes: the host's stdin to the server's, the server's stdout to the host's,
//! its stderr to ours — each chunk passed on whole the moment it is read, so bytes and order are
//! the server's and the host's; each side's end is passed on as the other would have seen it
//! (EOF, then the server's exit status as ours). Every chunk is queued for the watch before it
//! is passed on, all pipes into one queue: a request is always queued before the answer the
//! server could only send after it. Framing and judging happen off the forwarding path, on the
//! watch's thread.

use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

use bytes::{Bytes, BytesMut};
use futures_util::FutureExt;
use futures_util::future::{Fuse, FusedFuture};
use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Command;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError, mpsc};
use tokio::time::{Duration, Instant, sleep_until};

use super::host_pipes;
use super::observe::Seen;
use super::watch::Side;
use crate::mcp::Timestamp;
use crate::mcp::framing::{DEFAULT_MAX_FRAME_BYTES, Line, LineFramer};
use crate::transport::now;

/// How much one read takes at most: a large answer comes in a few large reads, not many small
/// ones (each read is a hand-over between processes).
const CHUNK: usize = 256 * 1024;

/// Buffers one pipe reads into, at most, before it allocates afresh: enough for the chunks the
/// framing has not finished with while it keeps up.
const BUFFERS: usize = 8;

/// Bytes of frames the framing may have in hand at once, at most: the line it is framing and
/// the lines the watch has not finished with, per side. One frame of the largest size fits; a
/// framing that gets this far ahead of the watch waits for it.
const IN_HAND: usize = DEFAULT_MAX_FRAME_BYTES;

/// Bytes read and passed on but not yet framed, at most: a pipe this far ahead of the framing
/// waits before it reads more (as it would for a slow reader), so a burst of large results
/// costs this and [`IN_HAND`], not the burst's size.
const QUEUED: usize = 4 * 1024 * 1024;

/// One read of a pipe, queued for the watch.
struct Chunk {
    /// The host's or the server's frames; `None` for the server's stderr.
    side: Option<Side>,
    /// The bytes read; empty: the pipe ended.
    bytes: Bytes,
    at: Timestamp,
    /// Its share of [`QUEUED`], given back once it is framed.
    _queued: Option<OwnedSemaphorePermit>,
}

/// How the server could not be run.
#[derive(Debug)]
pub struct NotStarted(pub String);

/// Runs `server` between our stdio and the host's, framing what passes on the `watch` runtime;
/// the server's exit code (128 + the signal when one killed it), `None` when it is unknown.
/// When a stop comes (the host stopped the proxy), the server is sent SIGTERM, as the host
/// would have sent it, and its end is awaited as any other; a server still running after
/// [`STOP_GRACE`], or when a second stop comes, is killed (SIGKILL) — else the host, giving up on
/// the proxy and killing it, would leave the server running behind it.
pub async fn run(
    server: &[String],
    seen: mpsc::Sender<Seen>,
    watch: &tokio::runtime::Handle,
    mut stops: mpsc::Receiver<()>,
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
    // Widened as our stdout is, so that one read can take a [`CHUNK`] the server wrote. A
    // failure leaves the pipe as it was: slower for a large answer, nothing else.
    let _ = rustix::pipe::fcntl_setpipe_size(&child_out, host_pipes::WIDE_PIPE);
    let gathered = Arc::new(Gathered::default());
    let queued = Arc::new(Semaphore::new(QUEUED));
    // Every pipe's queue is counted before the framing starts: a framing that ran first would
    // find no pipe and nothing queued, take that for the end, and leave the pipes waiting for
    // budget only it gives back (the proxy hung, now and then, before its first frame).
    let (host_queue, errors_queue, server_queue) = (
        Queue::new(&gathered, &queued),
        Queue::new(&gathered, &queued),
        Queue::new(&gathered, &queued),
    );
    // Framed where it is watched, off the thread that passes bytes on.
    let framing = watch.spawn(frame(Arc::clone(&gathered), seen.clone()));
    let to_server = tokio::spawn(pipe(
        host_pipes::host_in(),
        child_in,
        Some(Side::Host),
        host_queue,
    ));
    let mut errors = tokio::spawn(pipe(child_err, tokio::io::stderr(), None, errors_queue));
    // The server's stdout ending means it is done: the host sees our stdout end with it.
    let output = pipe(
        child_out,
        host_pipes::host_out(),
        Some(Side::Server),
        server_queue,
    );
    drop(gathered);
    let pid = child.id().and_then(|pid| i32::try_from(pid).ok());
    let status = ended(&mut child, pid, output, &mut stops).await;
    if tokio::time::timeout(DRAIN_GRACE, &mut errors)
        .await
        .is_err()
    {
        errors.abort();
        let _ = errors.await;
    }
    to_server.abort();
    let _ = to_server.await;
    // Everything the pipes read is watched before the server's end is.
    let _ = framing.await;
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

/// How long a stopped server may take to end before it is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long the pipes of a server that ended are read for what its leftovers still write.
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// Passes the server's output on to its end and waits for the server's exit, stopping it as
/// `stops` ask: SIGTERM at the first, SIGKILL at the next or [`STOP_GRACE`] later. A process
/// the server left behind, still holding its output once it is killed, is not waited for.
async fn ended(
    child: &mut tokio::process::Child,
    pid: Option<i32>,
    output: impl std::future::Future<Output = ()>,
    stops: &mut mpsc::Receiver<()>,
) -> std::io::Result<std::process::ExitStatus> {
    let signal = |signal| {
        if let Some(pid) = pid {
            // Not reaped before `wait` returns: the pid is still the server's.
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal);
        }
    };
    let mut output = Box::pin(output).fuse();
    let mut kill_at = None;
    let mut drain_until = None;
    loop {
        let kill = kill_at.filter(|_| drain_until.is_none());
        tokio::select! {
            () = &mut output => {}
            status = child.wait(), if output.is_terminated() => return status,
            Some(()) = stops.recv() => {
                if kill_at.is_none() {
                    signal(Signal::SIGTERM);
                    kill_at = Some(Instant::now() + STOP_GRACE);
                } else {
                    kill_at = Some(Instant::now());
                }
            }
            () = sleep_until(kill.unwrap_or_else(Instant::now)), if kill.is_some() => {
                signal(Signal::SIGKILL);
                drain_until = Some(Instant::now() + DRAIN_GRACE);
            }
            () = sleep_until(drain_until.unwrap_or_else(Instant::now)),
                if drain_until.is_some() && !output.is_terminated() =>
            {
                output = Fuse::terminated();
            }
        }
    }
}

/// How long the framing lets chunks gather before it takes them: while traffic flows it wakes
/// once a tick, not once a chunk (a wake is a switch of threads, dearer than the framing).
const TICK: std::time::Duration = std::time::Duration::from_micros(250);

/// Bytes taken at once from which the framing does not wait a tick before it takes more: a large
/// answer is flowing, the pipe may soon wait for [`QUEUED`] budget only the framing gives back,
/// and a tick is a millisecond of the timer's. It lets the watch have its turn instead (the two
/// share a thread), so a finished large line is given back while the next is read.
const BULK: usize = 256 * 1024;

/// The one queue of all pipes, in the order they read.
#[derive(Default)]
struct Gathered {
    chunks: std::sync::Mutex<std::collections::VecDeque<Chunk>>,
    /// Told of each chunk: wakes the framing only when it waits for one.
    ready: tokio::sync::Notify,
    /// Pipes still queueing.
    pipes: std::sync::atomic::AtomicUsize,
}

impl Gathered {
    fn take(&self) -> std::collections::VecDeque<Chunk> {
        std::mem::take(&mut *self.chunks.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn is_empty(&self) -> bool {
        self.chunks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }
}

/// Where a pipe queues what it reads: the one queue of all pipes, and the bytes it may hold.
struct Queue {
    gathered: Arc<Gathered>,
    queued: Arc<Semaphore>,
}

impl Queue {
    fn new(gathered: &Arc<Gathered>, queued: &Arc<Semaphore>) -> Self {
        gathered.pipes.fetch_add(1, Ordering::AcqRel);
        Self {
            gathered: Arc::clone(gathered),
            queued: Arc::clone(queued),
        }
    }

    /// Queues a chunk, once its bytes fit.
    async fn push(&self, side: Option<Side>, bytes: Bytes) {
        let wanted = u32::try_from(bytes.len().min(QUEUED)).unwrap_or(u32::MAX);
        // No wait, no hand-over to the scheduler, while the framing keeps up.
        let permit = match Arc::clone(&self.queued).try_acquire_many_owned(wanted) {
            Ok(permit) => Some(permit),
            Err(TryAcquireError::NoPermits) => {
                self.gathered.ready.notify_one();
                Arc::clone(&self.queued)
                    .acquire_many_owned(wanted)
                    .await
                    .ok()
            }
            Err(TryAcquireError::Closed) => None,
        };
        let chunk = Chunk {
            side,
            bytes,
            at: now(),
            _queued: permit,
        };
        self.gathered
            .chunks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(chunk);
        self.gathered.ready.notify_one();
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        self.gathered.pipes.fetch_sub(1, Ordering::AcqRel);
        self.gathered.ready.notify_one();
    }
}

/// Copies `from` to `to` as it comes, flushing each chunk, each queued for the watch just
/// before it is passed on: frames of `side`, or stderr text when `side` is `None`. `to` is
/// closed when `from` ends.
async fn pipe(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    side: Option<Side>,
    queue: Queue,
) {
    let mut buffers = Buffers::default();
    let mut open = true;
    loop {
        match from.read_buf(buffers.for_a_read()).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let chunk = buffers.take();
        queue.push(side, chunk.clone()).await;
        if open && (to.write_all(&chunk).await.is_err() || to.flush().await.is_err()) {
            // The reader is gone; what the writer still says is watched, not lost.
            open = false;
        }
    }
    queue.push(side, Bytes::new()).await;
    let _ = to.shutdown().await;
}

/// What one pipe reads into: a few buffers taken in turn, each read into again once the framing
/// is done with every chunk of it, so a stream of reads touches memory that is already the
/// process's (a fresh page costs a fault and a zeroing, dearer than the copy into it). Reads share
/// a buffer until it is used up: no allocation per frame.
#[derive(Default)]
struct Buffers {
    ring: Vec<BytesMut>,
    at: usize,
}

impl Buffers {
    /// A buffer with room for a read of at least a quarter [`CHUNK`].
    fn for_a_read(&mut self) -> &mut BytesMut {
        let full = self
            .ring
            .get(self.at)
            .is_none_or(|buffer| buffer.capacity() < CHUNK / 4);
        if full {
            let turns = self.ring.len();
            let free = (1..=turns)
                .map(|step| (self.at + step) % turns)
                .find(|&at| self.ring[at].try_reclaim(CHUNK));
            match free {
                Some(at) => self.at = at,
                None if turns < BUFFERS => {
                    self.ring.push(BytesMut::with_capacity(CHUNK));
                    self.at = turns;
                }
                // All still framed: a fresh one (the framing gives the old ones back as it goes).
                None => self.ring[self.at] = BytesMut::with_capacity(CHUNK),
            }
        }
        &mut self.ring[self.at]
    }

    /// What the last read put in the current buffer.
    fn take(&mut self) -> Bytes {
        self.ring
            .get_mut(self.at)
            .map_or_else(Bytes::new, |buffer| buffer.split().freeze())
    }
}

/// Bytes of the server's lines held back at most while the host is halfway through a line:
/// beyond them the watch hears them as they are (it must never hold the pipes up), as it does
/// when the server's next chunk would wait for the budget they hold.
const HELD: usize = 1024 * 1024;

/// Frames what the pipes read, in the order they queued it, for the watch: each side's lines,
/// stderr as text; a side's unfinished line when its pipe ends. A line of the server's that
/// comes while the host is halfway through writing one (a server that answers a request before
/// it has read all of it) is told after the host's line: the recording keeps a request before
/// its answer. Ends when every pipe has.
async fn frame(gathered: Arc<Gathered>, seen: mpsc::Sender<Seen>) {
    let mut host = Framing::new();
    let mut server = Framing::new();
    let mut errors = InHand::new();
    let mut held = Held::default();
    let mut watching = true;
    loop {
        let batch = gathered.take();
        if batch.is_empty() {
            // Every pipe is done once none queues and nothing is left.
            if gathered.pipes.load(Ordering::Acquire) == 0 && gathered.is_empty() {
                break;
            }
            gathered.ready.notified().await;
            continue;
        }
        let bulk = batch.iter().map(|chunk| chunk.bytes.len()).sum::<usize>() >= BULK;
        for chunk in batch {
            // A watch that is gone is not waited for: the queue is drained, nothing held.
            if !watching {
                continue;
            }
            watching = frame_one(
                &seen,
                chunk,
                (&mut host, &mut server),
                &mut errors,
                &mut held,
            )
            .await;
        }
        if bulk {
            tokio::task::yield_now().await;
        } else {
            tokio::time::sleep(TICK).await;
        }
    }
    for told in held.take() {
        let _ = seen.send(told).await;
    }
}

/// Frames one chunk for the watch; false once the watch is gone.
async fn frame_one(
    seen: &mpsc::Sender<Seen>,
    chunk: Chunk,
    (host, server): (&mut Framing, &mut Framing),
    errors: &mut InHand,
    held: &mut Held,
) -> bool {
    let Some(from) = chunk.side else {
        return chunk.bytes.is_empty() || stderr(seen, errors, &chunk).await;
    };
    let framing = match from {
        Side::Host => &mut *host,
        Side::Server => &mut *server,
    };
    // Held lines keep the server's budget: told now, as they are, rather than have this chunk
    // wait for budget only the host's next chunk, queued behind it, would free.
    if from == Side::Server && !framing.fits_now(&chunk.bytes) {
        for told in held.take() {
            if seen.send(told).await.is_err() {
                return false;
            }
        }
    }
    let Some(lines) = framing.lines(from, &chunk).await else {
        return false;
    };
    let host_unfinished = host.unfinished() && !(from == Side::Host && chunk.bytes.is_empty());
    let mut watching = true;
    for told in lines {
        if from == Side::Server && host_unfinished && held.fits(&told) {
            held.hold(told);
        } else {
            watching &= seen.send(told).await.is_ok();
        }
    }
    if !host_unfinished {
        for told in held.take() {
            watching &= seen.send(told).await.is_ok();
        }
    }
    watching
}

/// The server's lines held back until the host's line is done.
#[derive(Default)]
struct Held {
    lines: Vec<Seen>,
    bytes: usize,
}

impl Held {
    /// Whether `told` can be held within [`HELD`] (a larger line is told as it is).
    fn fits(&self, told: &Seen) -> bool {
        match told {
            Seen::Line { line, .. } => self.bytes + size(line) <= HELD,
            _ => true,
        }
    }

    fn hold(&mut self, told: Seen) {
        if let Seen::Line { line, .. } = &told {
            self.bytes += size(line);
        }
        self.lines.push(told);
    }

    fn take(&mut self) -> Vec<Seen> {
        self.bytes = 0;
        std::mem::take(&mut self.lines)
    }
}

/// Tells the watch of a chunk of stderr, once it fits; false once the watch is gone.
async fn stderr(seen: &mpsc::Sender<Seen>, in_hand: &mut InHand, chunk: &Chunk) -> bool {
    let Some(budget) = in_hand.stderr(&chunk.bytes).await else {
        return false;
    };
    let text = String::from_utf8_lossy(&chunk.bytes).into_owned();
    let told = Seen::Stderr {
        text,
        at: chunk.at,
        budget: Some(budget),
    };
    seen.send(told).await.is_ok()
}

/// One side's framing: its framer and its share of [`IN_HAND`].
struct Framing {
    framer: LineFramer,
    in_hand: InHand,
}

impl Framing {
    fn new() -> Self {
        Self {
            framer: LineFramer::new(DEFAULT_MAX_FRAME_BYTES),
            in_hand: InHand::new(),
        }
    }

    /// Whether `chunk` can be framed without waiting for the watch to give budget back.
    fn fits_now(&self, chunk: &[u8]) -> bool {
        let wanted = chunk.len().min(IN_HAND - self.in_hand.held());
        self.in_hand.budget.available_permits() >= wanted
    }

    /// Whether a line of this side is halfway through.
    fn unfinished(&self) -> bool {
        self.framer.pending() > 0
    }

    /// The lines one chunk completes (once it fits in the side's budget), each with its share
    /// of the budget; an empty chunk (the pipe ended) gives the unfinished line as it is.
    /// `None` once the budget is gone.
    async fn lines(&mut self, from: Side, chunk: &Chunk) -> Option<Vec<Seen>> {
        let told = |line, budget| Seen::Line {
            from,
            line,
            at: chunk.at,
            budget,
        };
        if chunk.bytes.is_empty() {
            return Some(match self.framer.finish() {
                Some(line) => {
                    let budget = self.in_hand.line(&line);
                    vec![told(line, budget)]
                }
                None => Vec::new(),
            });
        }
        if !self.in_hand.reading(&chunk.bytes).await {
            return None;
        }
        let lines = self
            .framer
            .push(&chunk.bytes)
            .into_iter()
            .map(|line| {
                let budget = self.in_hand.line(&line);
                told(line, budget)
            })
            .collect();
        self.in_hand.framed(self.framer.pending());
        Some(lines)
    }
}

/// A pipe's share of [`IN_HAND`]: what the line being framed holds (its bytes so far, up to
/// all of it), and the semaphore the watch gives the rest back to as it finishes each line.
struct InHand {
    budget: Arc<Semaphore>,
    framing: Option<OwnedSemaphorePermit>,
}

impl InHand {
    fn new() -> Self {
        Self {
            budget: Arc::new(Semaphore::new(IN_HAND)),
            framing: None,
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
        true
    }

    /// The share a line the framer completed takes with it.
    fn line(&mut self, line: &Line) -> Option<OwnedSemaphorePermit> {
        self.split(size(line))
    }

    /// After the chunk's lines: what they did not take beyond the `pending` bytes of the next
    /// line goes back.
    fn framed(&mut self, pending: usize) {
        let surplus = self.held().saturating_sub(pending.min(IN_HAND));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(buffers: &mut Buffers, bytes: usize) -> Bytes {
        buffers.for_a_read().extend_from_slice(&vec![b'x'; bytes]);
        buffers.take()
    }

    #[test]
    fn a_buffer_the_framing_is_done_with_is_read_into_again() {
        let mut buffers = Buffers::default();
        let first = read(&mut buffers, CHUNK);
        let at = first.as_ptr();
        drop(first);
        let second = read(&mut buffers, CHUNK);
        assert_eq!(second.as_ptr(), at, "the same memory, not a new allocation");
        assert_eq!(buffers.ring.len(), 1);
    }

    #[test]
    fn chunks_still_framed_keep_their_memory_and_reads_go_elsewhere() {
        let mut buffers = Buffers::default();
        let held: Vec<Bytes> = (0..BUFFERS + 2)
            .map(|_| read(&mut buffers, CHUNK))
            .collect();
        assert_eq!(buffers.ring.len(), BUFFERS, "bounded, however far behind");
        let starts: std::collections::HashSet<_> =
            held.iter().map(|chunk| chunk.as_ptr()).collect();
        assert_eq!(
            starts.len(),
            held.len(),
            "no chunk's memory was read into again"
        );
        assert!(held.iter().all(|chunk| chunk.iter().all(|&b| b == b'x')));
    }

    #[test]
    fn small_reads_share_a_buffer() {
        let mut buffers = Buffers::default();
        let chunks: Vec<Bytes> = (0..10).map(|_| read(&mut buffers, 100)).collect();
        assert_eq!(buffers.ring.len(), 1);
        assert_eq!(chunks[1].as_ptr(), chunks[0].as_ptr().wrapping_add(100));
    }
}
