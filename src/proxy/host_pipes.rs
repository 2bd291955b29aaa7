//! The proxy's own stdin and stdout, the host's ends: a pipe or a socket (what hosts give their
//! servers) is read and written through the reactor, with no hop to tokio's blocking pool and
//! back for every chunk; a terminal or a file falls back to tokio's stdin and stdout.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::FileTypeExt;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::unix::pipe;

/// What the host writes: our stdin.
pub enum HostIn {
    Pipe(pipe::Receiver),
    Std(tokio::io::Stdin),
}

/// What the host reads: our stdout.
pub enum HostOut {
    Pipe(pipe::Sender),
    Std(tokio::io::Stdout),
}

/// Our stdin, through the reactor when it is a pipe or a socket. Needs a runtime.
pub fn host_in() -> HostIn {
    piped(io::stdin().as_fd())
        .and_then(|file| pipe::Receiver::from_file_unchecked(file).ok())
        .map_or_else(|| HostIn::Std(tokio::io::stdin()), HostIn::Pipe)
}

/// Our stdout, through the reactor when it is a pipe or a socket. Needs a runtime.
pub fn host_out() -> HostOut {
    piped(io::stdout().as_fd())
        .inspect(|file| {
            // As wide as the server's: a large answer passes in a few writes, not one wake of
            // the host per 64 KiB. Refused (a socket; the user's quota of pipe memory, which
            // two such pipes a proxy take little of): as it was.
            let _ = rustix::pipe::fcntl_setpipe_size(file, WIDE_PIPE);
        })
        .and_then(|file| pipe::Sender::from_file_unchecked(file).ok())
        .map_or_else(|| HostOut::Std(tokio::io::stdout()), HostOut::Pipe)
}

/// The size the pipes large answers pass through are widened to (the server's stdout, ours):
/// Linux's default ceiling for any process.
pub const WIDE_PIPE: usize = 1024 * 1024;

/// A copy of `fd` when it is a pipe or a socket, which the reactor can wait on (a socket is
/// read and written as a pipe is: Node gives its children socket pairs).
fn piped(fd: BorrowedFd) -> Option<File> {
    let file = File::from(fd.try_clone_to_owned().ok()?);
    let kind = file.metadata().ok()?.file_type();
    if !(kind.is_fifo() || kind.is_socket()) {
        return None;
    }
    // The reactor reads until the pipe would block: it must never block instead.
    rustix::io::ioctl_fionbio(&file, true).ok()?;
    Some(file)
}

impl AsyncRead for HostIn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            HostIn::Pipe(pipe) => Pin::new(pipe).poll_read(cx, buf),
            HostIn::Std(stdin) => Pin::new(stdin).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for HostOut {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            HostOut::Pipe(pipe) => Pin::new(pipe).poll_write(cx, buf),
            HostOut::Std(stdout) => Pin::new(stdout).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            HostOut::Pipe(pipe) => Pin::new(pipe).poll_flush(cx),
            HostOut::Std(stdout) => Pin::new(stdout).poll_flush(cx),
        }
    }

    /// Flushed, never closed: our stdout stays ours until we exit (the host sees its end
    /// then, as before).
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}
