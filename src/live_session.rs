//! The live session behind the TUI: a [`Client`] on its own task that takes commands and reports
//! everything on one ordered session stream, so the UI never awaits I/O.

use std::collections::HashMap;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

pub use crate::app::action::SessionCommand;
use crate::client::{self, Client, ClientOptions, SessionEvent, Stage};
use crate::mcp::input::Answer;
use crate::stream::EventSink;
use crate::transport::Target;

/// Resolves the name of a `--config` entry chosen in the server picker.
/// It gives the entry's server and the roots it lists.
pub type Pick = Box<dyn Fn(&str) -> Result<(Target, Vec<String>), String> + Send>;

/// For a session with one fixed server: nothing to pick from.
pub fn no_picker() -> Pick {
    Box::new(|name: &str| Err(format!("no server list to pick '{name}' from")))
}

/// Starts the session task for `target` (or the reason there is none); its events go to `sink`.
/// Questions a server asks go to the user: each is a `SessionEvent::Asked`, answered by a
/// `SessionCommand::Answer`.
pub fn spawn(
    target: Result<Target, String>,
    pick: Pick,
    mut options: ClientOptions,
    sink: EventSink,
) -> mpsc::Sender<SessionCommand> {
    let (commands_tx, commands) = mpsc::channel(16);
    let (asker, questions_in) = mpsc::unbounded_channel();
    options.asker = Some(asker);
    let questions = Questions {
        asked: questions_in,
        waiting: HashMap::new(),
    };
    tokio::spawn(run(target, pick, options, sink, commands, questions));
    commands_tx
}

/// The questions the client waits on, by number, until the user's answer comes.
struct Questions {
    asked: mpsc::UnboundedReceiver<(u64, oneshot::Sender<Answer>)>,
    waiting: HashMap<u64, oneshot::Sender<Answer>>,
}

impl Questions {
    fn answer(&mut self, number: u64, answer: Answer) {
        if let Some(waiting) = self.waiting.remove(&number) {
            let _ = waiting.send(answer);
        }
    }

    /// Whoever still waits gets the answers given in advance (the session is ending).
    fn drop_all(&mut self) {
        self.waiting.clear();
    }
}

async fn run(
    mut target: Result<Target, String>,
    pick: Pick,
    mut options: ClientOptions,
    sink: EventSink,
    mut commands: mpsc::Receiver<SessionCommand>,
    mut questions: Questions,
) {
    loop {
        let connected = match &target {
            Ok(target) => client::connect(target, options.clone(), sink.clone())
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
        let Some(mut client) = connected else {
            match wait_for_reconnect(&mut commands, &mut options).await {
                Some(Some(name)) => {
                    target = pick(&name).map(|(chosen, roots)| {
                        // The chosen entry's roots, unless `--root` gave some.
                        if options.answers.roots.is_empty() {
                            options.answers.roots = roots;
                        }
                        chosen
                    });
                }
                Some(None) => {}
                None => return,
            }
            continue;
        };
        // The list (or why there is none) is on the stream; calls work either way.
        let _ = client.list_tools().await;
        let reconnect = serve(&mut client, &mut commands, &mut questions, &mut options).await;
        questions.drop_all();
        client.shutdown().await;
        client.emit(SessionEvent::Disconnected).await;
        if !reconnect {
            return;
        }
    }
}

/// Waits for a reason to connect: `Some(None)` to try the same server again, `Some(Some(name))`
/// for the picker's choice, `None` to end.
async fn wait_for_reconnect(
    commands: &mut mpsc::Receiver<SessionCommand>,
    options: &mut ClientOptions,
) -> Option<Option<String>> {
    while let Some(command) = commands.recv().await {
        match command {
            SessionCommand::SetTasks(on) => options.tasks = on,
            SessionCommand::Reconnect => return Some(None),
            SessionCommand::Use(target) => return Some(Some(target)),
            SessionCommand::Shutdown => return None,
            SessionCommand::Call { .. }
            | SessionCommand::CancelCall
            | SessionCommand::Answer { .. } => {}
        }
    }
    None
}

/// Serves commands until shutdown (`false`) or reconnect (`true`).
async fn serve(
    client: &mut Client,
    commands: &mut mpsc::Receiver<SessionCommand>,
    questions: &mut Questions,
    options: &mut ClientOptions,
) -> bool {
    let mut alive = true;
    loop {
        if client.has_questions()
            && let Some(reconnect) = answer_idle(client, commands, questions, options).await
        {
            return reconnect;
        }
        if client.take_tools_changed() {
            let _ = client.list_tools().await;
        }
        let command = if alive {
            tokio::select! {
                command = commands.recv() => command,
                event = client.next_event() => {
                    // Recorded outside the race: a command must not cut a read in half.
                    alive = match event {
                        Some(event) => client.ingest_idle(event).await,
                        None => false,
                    };
                    if !alive {
                        client.emit(SessionEvent::Disconnected).await;
                    }
                    continue;
                }
            }
        } else {
            commands.recv().await
        };
        match command {
            Some(SessionCommand::Call { tool, arguments }) => {
                if let Some(reconnect) =
                    call(client, &tool, arguments, commands, questions, options).await
                {
                    return reconnect;
                }
            }
            Some(SessionCommand::Answer { number, answer }) => questions.answer(number, answer),
            Some(SessionCommand::SetTasks(on)) => {
                // For this connection and the next ones.
                options.tasks = on;
                client.set_tasks(on);
            }
            // A server is connected: the picker is not open.
            Some(SessionCommand::CancelCall | SessionCommand::Use(_)) => {}
            Some(SessionCommand::Reconnect) => return true,
            Some(SessionCommand::Shutdown) | None => return false,
        }
    }
}

/// Answers what the server asked while no call ran, serving the user's answers meanwhile.
/// `Some(reconnect)` when the session must end.
async fn answer_idle(
    client: &mut Client,
    commands: &mut mpsc::Receiver<SessionCommand>,
    questions: &mut Questions,
    options: &mut ClientOptions,
) -> Option<bool> {
    let mut ending = None;
    // Changed while answering: applied once done (the answering holds the client).
    let mut tasks = None;
    {
        let answering = client.answer_idle_questions();
        tokio::pin!(answering);
        loop {
            tokio::select! {
                () = &mut answering => break,
                Some((number, waiting)) = questions.asked.recv() => {
                    questions.waiting.insert(number, waiting);
                }
                command = commands.recv() => match command {
                    Some(SessionCommand::Answer { number, answer }) => questions.answer(number, answer),
                    Some(SessionCommand::SetTasks(on)) => tasks = Some(on),
                    end @ (Some(SessionCommand::Reconnect | SessionCommand::Shutdown) | None) => {
                        ending = Some(end == Some(SessionCommand::Reconnect));
                        questions.drop_all();
                    }
                    Some(_) => {}
                },
            }
        }
    }
    if let Some(on) = tasks {
        options.tasks = on;
        client.set_tasks(on);
    }
    ending
}

/// Runs one call (its end is on the stream), still taking commands meanwhile.
/// `Some(reconnect)` when the session must end.
async fn call(
    client: &mut Client,
    tool: &str,
    arguments: Value,
    commands: &mut mpsc::Receiver<SessionCommand>,
    questions: &mut Questions,
    options: &mut ClientOptions,
) -> Option<bool> {
    let (cancel, cancelled) = oneshot::channel();
    // Changed during the call: applied once it ends (the call holds the client).
    let mut tasks = None;
    let mut cancel = Some(cancel);
    let mut ending = None;
    {
        let call = client.call_tool_cancellable(tool, arguments, cancelled);
        tokio::pin!(call);
        loop {
            tokio::select! {
                _ = &mut call => break,
                Some((number, waiting)) = questions.asked.recv() => {
                    questions.waiting.insert(number, waiting);
                }
                command = commands.recv() => match command {
                    Some(SessionCommand::Answer { number, answer }) => questions.answer(number, answer),
                    Some(SessionCommand::SetTasks(on)) => tasks = Some(on),
                    Some(SessionCommand::CancelCall) => {
                        if let Some(cancel) = cancel.take() {
                            let _ = cancel.send(());
                        }
                    }
                    // The UI sends one call at a time; a second one cannot overtake the first.
                    Some(SessionCommand::Call { .. } | SessionCommand::Use(_)) => {}
                    end @ (Some(SessionCommand::Reconnect | SessionCommand::Shutdown) | None) => {
                        ending = Some(end == Some(SessionCommand::Reconnect));
                        if let Some(cancel) = cancel.take() {
                            let _ = cancel.send(());
                        }
                        // A question still open must not hold the call: its answer is the
                        // one given in advance.
                        questions.drop_all();
                    }
                },
            }
        }
    }
    if let Some(on) = tasks {
        options.tasks = on;
        client.set_tasks(on);
    }
    ending
}
