//! A stdio proxy's pipes: the host's stdin to the server's, the server's stdout to the host's,
//! its stderr to ours — each chunk passed on whole as it was read (the watch told of it
//! first), so bytes and order are the server's and the host's; each side's end is passed on as
//! the other would have seen it (EOF, then the server's exit status as ours).

use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Command;
use tokio::sync::mpsc;

use super::observe::Seen;
use super::watch::Side;
use crate::mcp::framing::{DEFAULT_MAX_FRAME_BYTES, LineFramer};
use crate::transport::now;

/// How much one read takes at most.
const CHUNK: usize = 64 * 1024;

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
async fn pipe(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    side: Option<Side>,
    seen: mpsc::Sender<Seen>,
) {
    let mut framer = LineFramer::new(DEFAULT_MAX_FRAME_BYTES);
    let mut buffer = vec![0u8; CHUNK];
    let (mut open, mut watching) = (true, true);
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
            watching = tell(&seen, side, &mut framer, chunk).await;
        }
        if open && (to.write_all(chunk).await.is_err() || to.flush().await.is_err()) {
            // The reader is gone; what the writer still says is watched, not lost.
            open = false;
        }
    }
    if let (true, Some(from), Some(line)) = (watching, side, framer.finish()) {
        let _ = seen
            .send(Seen::Line {
                from,
                line,
                at: now(),
            })
            .await;
    }
    let _ = to.shutdown().await;
}

/// Tells the watch of one chunk: the lines it completes, or stderr text. False once the watch
/// is gone.
async fn tell(
    seen: &mpsc::Sender<Seen>,
    side: Option<Side>,
    framer: &mut LineFramer,
    chunk: &[u8],
) -> bool {
    let at = now();
    let Some(from) = side else {
        let text = String::from_utf8_lossy(chunk).into_owned();
        return seen.send(Seen::Stderr { text, at }).await.is_ok();
    };
    for line in framer.push(chunk) {
        if seen.send(Seen::Line { from, line, at }).await.is_err() {
            return false;
        }
    }
    true
}
