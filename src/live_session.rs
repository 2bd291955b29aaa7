//! The live session behind the TUI: a [`Client`] on its own task that takes commands and reports
//! facts, so the UI never awaits I/O. Log entries stream as they happen.

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

pub use crate::app::action::{SessionCommand, SessionEvent};
use crate::cli::ServerArgs;
use crate::client::{Client, LogEntry};
use crate::transport::stdio;

/// Starts the session task for `server`.
pub fn spawn(server: ServerArgs) -> (mpsc::Sender<SessionCommand>, mpsc::Receiver<SessionEvent>) {
    let (commands_tx, commands) = mpsc::channel(16);
    let (events, events_rx) = mpsc::channel(256);
    tokio::spawn(run(server, commands, events));
    (commands_tx, events_rx)
}

async fn run(
    server: ServerArgs,
    mut commands: mpsc::Receiver<SessionCommand>,
    events: mpsc::Sender<SessionEvent>,
) {
    loop {
        let Some(mut client) = connect(&server, &events).await else {
            if wait_for_reconnect(&mut commands).await {
                continue;
            }
            return;
        };
        let reconnect = serve(&mut client, &mut commands, &events).await;
        client.shutdown().await;
        // Shutdown's own log lines have been streamed; the UI may already be gone.
        let _ = events.send(SessionEvent::Disconnected).await;
        if !reconnect {
            return;
        }
    }
}

async fn wait_for_reconnect(commands: &mut mpsc::Receiver<SessionCommand>) -> bool {
    while let Some(command) = commands.recv().await {
        match command {
            SessionCommand::Reconnect => return true,
            SessionCommand::Shutdown => return false,
            SessionCommand::Call { .. } | SessionCommand::CancelCall => {}
        }
    }
    false
}

/// Forwards streamed log entries to the UI, in order, with backpressure from the UI channel.
fn forward_log(events: &mpsc::Sender<SessionEvent>) -> mpsc::UnboundedSender<LogEntry> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let events = events.clone();
    tokio::spawn(async move {
        while let Some(entry) = rx.recv().await {
            if events.send(SessionEvent::Logged(entry)).await.is_err() {
                return;
            }
        }
    });
    tx
}

async fn connect(server: &ServerArgs, events: &mpsc::Sender<SessionEvent>) -> Option<Client> {
    let command = match server.stdio_command() {
        Ok(command) => command,
        Err(error) => {
            let _ = events
                .send(SessionEvent::ConnectFailed(format!(
                    "cannot locate the demo server: {error}"
                )))
                .await;
            return None;
        }
    };
    let transport = match stdio::spawn(&command, server.max_frame_bytes) {
        Ok(transport) => transport,
        Err(error) => {
            let _ = events
                .send(SessionEvent::ConnectFailed(error.to_string()))
                .await;
            return None;
        }
    };
    let _ = events
        .send(SessionEvent::Connecting {
            transport: transport.description.clone(),
        })
        .await;
    let mut client = Client::new(transport, server.client_options());
    client.stream_log(forward_log(events));
    match client.negotiate().await {
        Ok(connection) => {
            let _ = events
                .send(SessionEvent::Connected(connection.clone()))
                .await;
        }
        Err(error) => {
            let _ = events
                .send(SessionEvent::ConnectFailed(error.to_string()))
                .await;
            client.shutdown().await;
            return None;
        }
    }
    list_tools(&mut client, events).await;
    Some(client)
}

async fn list_tools(client: &mut Client, events: &mpsc::Sender<SessionEvent>) {
    let event = match client.list_tools().await {
        Ok(tools) => SessionEvent::ToolsListed(tools),
        Err(error) => SessionEvent::ToolsFailed(error.to_string()),
    };
    let _ = events.send(event).await;
}

/// Serves commands until shutdown (`false`) or reconnect (`true`).
async fn serve(
    client: &mut Client,
    commands: &mut mpsc::Receiver<SessionCommand>,
    events: &mpsc::Sender<SessionEvent>,
) -> bool {
    let mut alive = true;
    loop {
        if client.take_tools_changed() {
            list_tools(client, events).await;
        }
        let command = if alive {
            tokio::select! {
                command = commands.recv() => command,
                still_alive = client.pump() => {
                    alive = still_alive;
                    if !alive {
                        let _ = events.send(SessionEvent::Disconnected).await;
                    }
                    continue;
                }
            }
        } else {
            commands.recv().await
        };
        match command {
            Some(SessionCommand::Call { tool, arguments }) => {
                if let Some(reconnect) = call(client, &tool, arguments, commands, events).await {
                    return reconnect;
                }
            }
            Some(SessionCommand::CancelCall) => {}
            Some(SessionCommand::Reconnect) => return true,
            Some(SessionCommand::Shutdown) | None => return false,
        }
    }
}

/// Runs one call, still taking commands meanwhile. `Some(reconnect)` when the session must end.
async fn call(
    client: &mut Client,
    tool: &str,
    arguments: Value,
    commands: &mut mpsc::Receiver<SessionCommand>,
    events: &mpsc::Sender<SessionEvent>,
) -> Option<bool> {
    let (cancel, cancelled) = oneshot::channel();
    let mut cancel = Some(cancel);
    let mut ending = None;
    let exchange = {
        let call = client.call_tool_cancellable(tool, arguments, cancelled);
        tokio::pin!(call);
        loop {
            tokio::select! {
                exchange = &mut call => break exchange,
                command = commands.recv() => match command {
                    Some(SessionCommand::CancelCall) => {
                        if let Some(cancel) = cancel.take() {
                            let _ = cancel.send(());
                        }
                    }
                    // The UI sends one call at a time; a second one cannot overtake the first.
                    Some(SessionCommand::Call { .. }) => {}
                    end @ (Some(SessionCommand::Reconnect | SessionCommand::Shutdown) | None) => {
                        ending = Some(end == Some(SessionCommand::Reconnect));
                        if let Some(cancel) = cancel.take() {
                            let _ = cancel.send(());
                        }
                    }
                },
            }
        }
    };
    let _ = events
        .send(SessionEvent::CallFinished(Box::new(exchange)))
        .await;
    ending
}
