//! The demo server on stdin and stdout: one line a message, slow searches and listen streams
//! on their own tasks, legacy questions kept until the client answers, the board's changes told
//! to a connection subscribed to it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::questions::Asking;
use super::subscriptions::{self, DEPARTURES, Peer};
use super::{
    DemoServer, Handled, NAME, listen_stream, slow_search, today, unix_seconds, until_next_tick,
};
use crate::mcp::jsonrpc::{self, Id, Message};

/// Serves the demo server on stdin/stdout until stdin closes.
pub async fn run_stdio(server: DemoServer) -> std::io::Result<()> {
    let (out_tx, mut out_rx) = mpsc::channel::<Message>(256);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(message) = out_rx.recv().await {
            let mut line = message.to_value().to_string();
            line.push('\n');
            stdout.write_all(line.as_bytes()).await?;
            stdout.flush().await?;
        }
        Ok::<_, std::io::Error>(())
    });
    eprintln!(
        "{NAME}: serving on stdio ({}); stderr is for logs only",
        server.server_info()["version"]
    );
    let peer = Arc::new(Mutex::new(Peer::default()));
    let ticker = tokio::spawn(tell_subscribed(Arc::clone(&peer), out_tx.clone()));
    let mut connection = Connection {
        server,
        out: out_tx,
        running: HashMap::new(),
        asking: Asking::default(),
        peer,
        exit: None,
    };
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        connection.running.retain(|_, task| !task.is_finished());
        let handled = connection.handle(&line);
        if !connection.carry_out(handled).await {
            break;
        }
    }
    ticker.abort();
    for task in connection.running.values() {
        task.abort();
    }
    let exit = connection.exit.take();
    drop(connection);
    let written = writer.await.map_err(std::io::Error::other)?;
    // What a crashing server does, once every earlier answer is out: no answer, a word on
    // stderr, a status.
    if let Some((status, why)) = exit {
        eprintln!("{why}");
        std::process::exit(status);
    }
    written
}

/// One client on stdio: what runs for it, the questions it was asked, what it subscribed to.
struct Connection {
    server: DemoServer,
    out: mpsc::Sender<Message>,
    running: HashMap<Id, AbortHandle>,
    asking: Asking,
    peer: Arc<Mutex<Peer>>,
    /// A host case asked the server to exit.
    exit: Option<(i32, &'static str)>,
}

impl Connection {
    fn handle(&mut self, line: &str) -> Handled {
        match jsonrpc::parse(line) {
            Ok(frame) => {
                if let Some(reply) = self.asking.answered(&self.server, &frame.message) {
                    return Handled::Send(reply);
                }
                let mut peer = self.peer.lock().unwrap_or_else(PoisonError::into_inner);
                let message = frame.message.clone();
                self.server
                    .handle_on(message, today(), unix_seconds(), &mut peer)
            }
            Err(error) => self
                .server
                .handle_invalid(&error)
                .map_or(Handled::Nothing, Handled::Send),
        }
    }

    /// Does what `handled` says; `false` once the writer is gone.
    async fn carry_out(&mut self, handled: Handled) -> bool {
        match handled {
            Handled::Send(message) => return self.out.send(message).await.is_ok(),
            Handled::SendAll(messages) => {
                for message in messages {
                    if self.out.send(message).await.is_err() {
                        return false;
                    }
                }
            }
            Handled::StartSlow {
                id,
                seconds,
                progress_token,
                modern,
            } => {
                let task = tokio::spawn(slow_search(
                    self.server.clone(),
                    id.clone(),
                    seconds,
                    progress_token,
                    modern,
                    self.out.clone(),
                ));
                self.running.insert(id, task.abort_handle());
            }
            Handled::Later { id, after, message } => {
                let out = self.out.clone();
                let task = tokio::spawn(async move {
                    tokio::time::sleep(after).await;
                    let _ = out.send(message).await;
                });
                self.running.insert(id, task.abort_handle());
            }
            Handled::Listen { id, uris } => {
                let task = tokio::spawn(listen_stream(id.clone(), uris, self.out.clone()));
                self.running.insert(id, task.abort_handle());
            }
            Handled::Cancel(id) => {
                if let Some(task) = self.running.remove(&id) {
                    task.abort();
                    eprintln!("{NAME}: request {id} cancelled by the client");
                }
            }
            Handled::Ask {
                id,
                name,
                arguments,
                ask,
            } => {
                let question = self.asking.ask(id, name, arguments, ask);
                return self.out.send(question).await.is_ok();
            }
            Handled::Exit { status, why } => {
                self.exit = Some((status, why));
                return false;
            }
            Handled::Nothing => {}
        }
        true
    }
}

/// Each time the board changes, `notifications/resources/updated` if the connection is
/// subscribed to it (legacy era).
async fn tell_subscribed(peer: Arc<Mutex<Peer>>, out: mpsc::Sender<Message>) {
    loop {
        tokio::time::sleep(until_next_tick()).await;
        let hears = peer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .hears_departures();
        if hears
            && out
                .send(subscriptions::updated(DEPARTURES, None))
                .await
                .is_err()
        {
            return;
        }
    }
}
