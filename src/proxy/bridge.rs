//! A proxy to a remote server: the host speaks stdio to sightline, sightline speaks Streamable
//! HTTP to the server (its session, headers and event streams, as `sightline --url` does). Each
//! message the host writes is posted as written; each the server sends, whatever stream carries
//! it, goes to the host's stdin as one line, its text unchanged. Nothing is ever answered on the
//! server's behalf: an HTTP failure is said on stderr and in the transcript.

use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use super::observe::Seen;
use super::watch::Side;
use crate::mcp::framing::{DEFAULT_MAX_FRAME_BYTES, Line, LineFramer};
use crate::mcp::log::LogEvent;
use crate::sanitize;
use crate::transport::{self, HttpTarget, Target, TransportEvent, now};

/// Bridges our stdio to `target` until the host closes our stdin (the session is then ended as
/// the transport ends it) or the server's side is gone.
pub async fn run(target: &HttpTarget, seen: mpsc::Sender<Seen>) -> Result<(), String> {
    let mut server = transport::open(&Target::Http(target.clone()), DEFAULT_MAX_FRAME_BYTES)
        .map_err(|error| error.to_string())?;
    let (lines_tx, mut lines) =
        mpsc::channel::<crate::mcp::SharedText>(transport::OUTGOING_CAPACITY);
    let host_seen = seen.clone();
    tokio::spawn(async move {
        read_host(lines_tx, host_seen).await;
    });
    let mut stdout = super::host_pipes::host_out();
    let mut host_open = true;
    loop {
        tokio::select! {
            line = lines.recv(), if host_open => {
                let Some(line) = line else {
                    // The host is done: the session ends as the transport ends it.
                    host_open = false;
                    server.shutdown();
                    continue;
                };
                if let Err(not_sent) = server.send_line(line) {
                    say(&seen, format!("a message of the host's was not posted: {not_sent}")).await;
                }
            }
            event = server.recv() => {
                let Some(event) = event else { break };
                if !pass(event, &mut stdout, &seen).await {
                    break;
                }
            }
        }
    }
    let _ = seen
        .send(Seen::Closed {
            status: "the HTTP connection ended".into(),
            at: now(),
        })
        .await;
    Ok(())
}

/// The host's lines, each as written, to be posted; each also watched.
async fn read_host(lines: mpsc::Sender<crate::mcp::SharedText>, seen: mpsc::Sender<Seen>) {
    let mut stdin = super::host_pipes::host_in();
    let mut framer = LineFramer::new(DEFAULT_MAX_FRAME_BYTES);
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match stdin.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        for line in framer.push(&buffer[..read]) {
            let text = match &line {
                Line::Text(text) if text.trim().is_empty() => continue,
                Line::Text(text) => Some(Arc::clone(text)),
                Line::Bytes(_) | Line::Oversized { .. } => None,
            };
            // The watch first: it must never see an answer before the request it answers.
            let _ = seen.send(Seen::line_now(Side::Host, line)).await;
            if let Some(text) = text
                && lines.send(text).await.is_err()
            {
                return;
            }
        }
    }
}

/// Hands one transport event on: frames to the host, the rest to the watch. False once the
/// server's side is gone.
async fn pass(
    event: TransportEvent,
    stdout: &mut super::host_pipes::HostOut,
    seen: &mpsc::Sender<Seen>,
) -> bool {
    match event {
        TransportEvent::Received { lines, at, .. } => {
            for line in lines {
                match line {
                    Ok(frame) => {
                        let written = stdout.write_all(frame.raw.as_bytes()).await.is_ok()
                            && stdout.write_all(b"\n").await.is_ok()
                            && stdout.flush().await.is_ok();
                        let _ = seen
                            .send(Seen::Frame {
                                from: Side::Server,
                                frame,
                                at,
                            })
                            .await;
                        if !written {
                            return false;
                        }
                    }
                    Err(invalid) => {
                        let _ = seen
                            .send(Seen::Logged(LogEvent::Invalid(invalid), at))
                            .await;
                    }
                }
            }
        }
        TransportEvent::Http { exchange, at } => {
            let _ = seen.send(Seen::Logged(LogEvent::Http(exchange), at)).await;
        }
        TransportEvent::RequestFailed { id, reason, .. } => {
            say(
                seen,
                format!("request {id} got no answer from the server: {reason} (the host's own timeout ends it)"),
            )
            .await;
        }
        TransportEvent::StreamLost { id, reason, .. } => {
            say(
                seen,
                format!("the stream of request {id} was lost: {reason}"),
            )
            .await;
        }
        TransportEvent::WriteFailed { reason, .. } => {
            say(seen, format!("posting failed: {reason}")).await;
        }
        TransportEvent::Note { text, .. } => say(seen, text).await,
        TransportEvent::Authorization { fact, at } => {
            let _ = seen
                .send(Seen::Logged(LogEvent::Authorization(fact), at))
                .await;
        }
        TransportEvent::StderrLines { text, at } => {
            let _ = seen
                .send(Seen::Stderr {
                    text,
                    at,
                    budget: None,
                })
                .await;
        }
        TransportEvent::SessionStarted { id, .. } => {
            say(seen, format!("the server opened HTTP session {id}")).await;
        }
        TransportEvent::SessionExpired { .. } => {
            say(
                seen,
                "the server ended the HTTP session (404): the host's next requests need a new \
                 initialize, which only the host can send"
                    .into(),
            )
            .await;
        }
        TransportEvent::Closed { .. } => return false,
    }
    true
}

/// A diagnostic: on stderr, and in the transcript.
async fn say(seen: &mpsc::Sender<Seen>, text: String) {
    eprintln!("sightline proxy: {}", sanitize::text(&text));
    let _ = seen.send(Seen::Logged(LogEvent::Note(text), now())).await;
}
