//! The live session behind the TUI: the session runner on its own task, fed the app's
//! commands as they come (also while a call runs), reporting everything on one ordered session
//! stream, so the UI never awaits I/O.

use tokio::sync::mpsc;

pub use crate::app::action::SessionCommand;
use crate::runner::{
    self, Command, Done, Ends, SessionEvent, SessionOptions, SessionRunner, Stage, Wake,
};
use crate::stream::EventSink;
use crate::transport::Target;

/// Starts the session task for `target` (or the reason there is none); its events go to `sink`.
/// Questions a server asks go to the user: each is a `SessionEvent::Asked`, answered by a
/// `SessionCommand::Answer`.
pub fn spawn(
    target: Result<Target, String>,
    mut options: SessionOptions,
    sink: EventSink,
) -> mpsc::Sender<SessionCommand> {
    let (commands_tx, commands) = mpsc::channel(16);
    options.ask = true;
    options.follow_list_changes = true;
    options.ends = Ends::OnStream;
    tokio::spawn(run(target, options, sink, commands));
    commands_tx
}

/// How a connection ended.
enum Ending {
    Reconnect,
    Quit,
}

async fn run(
    target: Result<Target, String>,
    mut options: SessionOptions,
    sink: EventSink,
    mut commands: mpsc::Receiver<SessionCommand>,
) {
    loop {
        let opened = match &target {
            Ok(target) => runner::open(target, options.clone(), sink.clone())
                .await
                .ok(),
            Err(reason) => {
                let stage = Stage::Spawn;
                let reason = reason.clone();
                sink.emit(SessionEvent::ConnectFailed { stage, reason })
                    .await;
                None
            }
        };
        let ending = match opened {
            Some(mut client) => serve(&mut client, &mut commands, &mut options).await,
            None => None,
        };
        match ending {
            Some(Ending::Reconnect) => {}
            Some(Ending::Quit) => return,
            // Not connected: wait for a reason to try again.
            None => {
                if !wait_for_reconnect(&mut commands, &mut options).await {
                    return;
                }
            }
        }
    }
}

/// Waits for a reason to connect again: `true` to try the server again, `false` to end.
async fn wait_for_reconnect(
    commands: &mut mpsc::Receiver<SessionCommand>,
    options: &mut SessionOptions,
) -> bool {
    while let Some(command) = commands.recv().await {
        match command {
            SessionCommand::SetTasks(on) => options.tasks = on,
            SessionCommand::Reconnect => return true,
            SessionCommand::Shutdown => return false,
            // Not connected: the app forgets what it asked when the connection ends.
            SessionCommand::Call { .. }
            | SessionCommand::Request { .. }
            | SessionCommand::Listen { .. }
            | SessionCommand::StopListening { .. }
            | SessionCommand::CancelCall
            | SessionCommand::Answer { .. } => {}
        }
    }
    false
}

/// Connects, lists the tools, and serves the app's commands; `None` when connecting failed
/// (said on the stream), else how the connection ended. The server is shut down either way.
async fn serve(
    client: &mut SessionRunner,
    commands: &mut mpsc::Receiver<SessionCommand>,
    options: &mut SessionOptions,
) -> Option<Ending> {
    client.start(Command::Connect);
    let ending = loop {
        let command = match client.next(Some(commands)).await {
            Wake::Done(Done::Connected(Ok(_))) => {
                // The list (or why there is none) is on the stream; calls work either way.
                client.start(Command::ListTools);
                continue;
            }
            Wake::Done(Done::Connected(Err(_))) => {
                client.shutdown().await;
                return None;
            }
            // Every other end is on the stream already, said by the driver.
            Wake::Done(_) => continue,
            Wake::Gone => {
                client.emit(SessionEvent::Disconnected).await;
                continue;
            }
            Wake::Command(command) => command,
            Wake::Closed => break Ending::Quit,
        };
        match command {
            SessionCommand::Call { tool, arguments } => {
                client.start(Command::Call { tool, arguments });
            }
            SessionCommand::Request { method, params } => {
                client.start(Command::Request { method, params });
            }
            SessionCommand::Listen {
                key,
                method,
                params,
            } => client.start(Command::Listen {
                key,
                method,
                params,
            }),
            SessionCommand::StopListening { key } => {
                client.start(Command::StopListening { key });
            }
            SessionCommand::CancelCall => client.start(Command::Cancel),
            SessionCommand::Answer { number, answer } => {
                client.start(Command::Answer { number, answer });
            }
            SessionCommand::SetTasks(on) => {
                // At once, for this connection (a call running included) and the next ones.
                options.tasks = on;
                client.start(Command::SetTasks(on));
            }
            SessionCommand::Reconnect => break Ending::Reconnect,
            SessionCommand::Shutdown => break Ending::Quit,
        }
    };
    // A call still running is cancelled and reported; a question still open gets the answer
    // given in advance.
    client.shutdown().await;
    client.emit(SessionEvent::Disconnected).await;
    Some(ending)
}
