//! `sightline relay --log FILE -- SERVER…` (hidden): a stdio server behind a recording pipe
//! (`capture`'s, and the tests' witness of what passes the proxy). The bytes pass through
//! unchanged both ways; each line is appended to FILE before it is passed on, and the server's
//! exit status when it ends. `{pid}` in FILE is the relay's process id.

use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Command;

use super::exit;

/// One line that passed the relay, as the log keeps it (one JSON object a line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedFrame {
    /// `send` (host to server) or `recv` (server to host); `exit` is the server's end, its
    /// exit status in `frame` (as `ExitStatus` displays it: "exit status: 3").
    pub dir: String,
    /// Milliseconds since the Unix epoch when the line's end passed.
    pub ms: u64,
    /// The line without its newline, as it passed.
    pub frame: String,
}

/// Runs `server` with its stdin and stdout relayed through this process; its exit code is ours.
pub async fn relay(log: &str, cwd: Option<&str>, server: &[String]) -> u8 {
    let Some((program, args)) = server.split_first() else {
        eprintln!("sightline relay: no server command after --");
        return exit::USAGE;
    };
    let log = log.replace("{pid}", &std::process::id().to_string());
    let file = match File::options().create(true).append(true).open(&log) {
        Ok(file) => Arc::new(Mutex::new(file)),
        Err(error) => {
            eprintln!("sightline relay: cannot open {log}: {error}");
            return exit::USAGE;
        }
    };
    let mut command = Command::new(program);
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let mut child = match command
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(child) => child,
        Err(error) => {
            eprintln!("sightline relay: cannot start {program}: {error}");
            return exit::TRANSPORT_FAILURE;
        }
    };
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        return exit::TRANSPORT_FAILURE;
    };
    let to_server = tokio::spawn(pipe(tokio::io::stdin(), child_in, "send", file.clone()));
    let log_of_exit = file.clone();
    let from_server = pipe(child_out, tokio::io::stdout(), "recv", file);
    // The host closing our stdin closes the server's (inside `pipe`); the server's stdout
    // ending means it is done.
    from_server.await;
    to_server.abort();
    match child.wait().await {
        Ok(status) => {
            // The server's end, logged (`exit`) before the host can see ours: a call it never
            // answered ended with the server.
            write_entry(&log_of_exit, "exit", status.to_string().as_bytes());
            status
                .code()
                .and_then(|code| u8::try_from(code).ok())
                .unwrap_or(exit::TRANSPORT_FAILURE)
        }
        Err(_) => exit::TRANSPORT_FAILURE,
    }
}

/// Copies `from` to `to` chunk by chunk, logging each complete line; a last line without its
/// newline is logged when the stream ends.
async fn pipe(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    dir: &'static str,
    log: Arc<Mutex<File>>,
) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut line = Vec::new();
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        let chunk = &buffer[..read];
        // Logged before it is forwarded (a file append, microseconds): a host that has read a
        // frame may end the relay at once (closing its server on a busy machine), and the
        // record must already hold every frame the host saw, in the order they passed.
        for &byte in chunk {
            if byte == b'\n' {
                write_entry(&log, dir, &line);
                line.clear();
            } else {
                line.push(byte);
            }
        }
        if to.write_all(chunk).await.is_err() || to.flush().await.is_err() {
            break;
        }
    }
    if !line.is_empty() {
        write_entry(&log, dir, &line);
    }
    let _ = to.shutdown().await;
}

fn write_entry(log: &Mutex<File>, dir: &str, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let entry = LoggedFrame {
        dir: dir.to_owned(),
        ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            }),
        frame: text.strip_suffix('\r').unwrap_or(&text).to_owned(),
    };
    if let Ok(mut json) = serde_json::to_string(&entry) {
        json.push('\n');
        // A log that cannot be written loses the record, never the exchange.
        let _ = log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write_all(json.as_bytes());
    }
}
