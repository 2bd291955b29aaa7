//! The demo server on stdin and stdout: one line a message, slow searches on their own tasks,
//! legacy questions kept until the client answers.

use std::collections::HashMap;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::questions::Asking;
use super::{DemoServer, Handled, NAME, Style, slow_search, today};
use crate::mcp::jsonrpc::{self, Id, Message};

/// Serves the demo server on stdin/stdout until stdin closes.
pub async fn run_stdio(style: Style) -> std::io::Result<()> {
    let server = DemoServer::new(style);
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
    let mut running: HashMap<Id, AbortHandle> = HashMap::new();
    let mut asking = Asking::default();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        running.retain(|_, task| !task.is_finished());
        let handled = match jsonrpc::parse(&line) {
            Ok(frame) => match asking.answered(&server, &frame.message) {
                Some(reply) => Handled::Send(reply),
                None => server.handle(frame.message.clone(), today()),
            },
            Err(error) => server
                .handle_invalid(&error)
                .map_or(Handled::Nothing, Handled::Send),
        };
        match handled {
            Handled::Send(message) => {
                if out_tx.send(message).await.is_err() {
                    break;
                }
            }
            Handled::StartSlow {
                id,
                seconds,
                progress_token,
                modern,
            } => {
                let task = tokio::spawn(slow_search(
                    server.clone(),
                    id.clone(),
                    seconds,
                    progress_token,
                    modern,
                    out_tx.clone(),
                ));
                running.insert(id, task.abort_handle());
            }
            Handled::Later { id, after, message } => {
                let out = out_tx.clone();
                let task = tokio::spawn(async move {
                    tokio::time::sleep(after).await;
                    let _ = out.send(message).await;
                });
                running.insert(id, task.abort_handle());
            }
            Handled::Cancel(id) => {
                if let Some(task) = running.remove(&id) {
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
                let question = asking.ask(id, name, arguments, ask);
                if out_tx.send(question).await.is_err() {
                    break;
                }
            }
            Handled::Nothing => {}
        }
    }
    drop(out_tx);
    for task in running.values() {
        task.abort();
    }
    writer.await.map_err(std::io::Error::other)?
}
