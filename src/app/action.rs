//! The vocabulary of the app: intents from the user are imperative [`Command`]s, facts from the
//! world are past tense ([`SessionEvent`]s, in the order the session stream delivers them); [`Effect`]s are the work `update` asks for.

use serde_json::Value;

pub use crate::mcp::log::SessionEvent;

/// Everything that can change the app state.
#[derive(Debug, Clone)]
pub enum Action {
    /// A bindable user intent.
    Command(Command),
    /// A key for the request editor.
    EditorInput(tui_textarea::Input),
    /// Something happened in the live session.
    Session(SessionEvent),
    /// A mouse click or scroll at a screen cell.
    Mouse(Mouse),
    /// The terminal was resized.
    Resized { width: u16, height: u16 },
    /// A second passed (messages in the status line expire).
    Tick,
    /// The replay's `number`-th frame, read back from the transcript, or why not.
    FrameRead {
        number: u64,
        result: Result<crate::mcp::jsonrpc::Frame, String>,
    },
    /// The replay's call `index`, read back from the transcript, or why not.
    CallRead {
        index: usize,
        result: Result<Box<crate::mcp::session::Exchange>, String>,
    },
    /// What a real host sent its model for call `call`, asked for by [`Effect::Capture`]: the
    /// `capture --json` object, or why the capture could not run.
    Captured {
        call: usize,
        host: String,
        result: Result<serde_json::Value, String>,
    },
    /// A file asked for by [`Effect::Save`] was written (its size), or why not.
    Saved {
        path: String,
        result: Result<usize, String>,
    },
    /// A case asked for by [`Effect::AppendCase`] was added to the test file, or why not.
    CaseSaved {
        path: String,
        result: Result<(), String>,
    },
    /// Contents asked for by [`Effect::SaveBytes`] were written (their size), or why not.
    BytesSaved {
        path: String,
        result: Result<usize, String>,
    },
    /// The model's turn in Chat run `run`, asked for by [`Effect::AskModel`], or why there is
    /// none.
    ModelAnswered {
        run: usize,
        result: Result<crate::model_api::Turn, String>,
    },
    /// More of the model's text in Chat run `run`, as its answer streams in.
    ModelStreamed { run: usize, more: String },
    /// A replayed transcript's model turns, after all its events.
    ModelsRecorded(Vec<crate::transcript::ModelTurn>),
}

/// Mouse input, in screen cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mouse {
    /// The left button was pressed here.
    Clicked { column: u16, row: u16 },
    /// The wheel turned up here.
    ScrolledUp { column: u16, row: u16 },
    /// The wheel turned down here.
    ScrolledDown { column: u16, row: u16 },
}

/// Declares a group of commands: each variant with its `keys.toml` name and its words in the
/// help, in one place, so a new command is named and described where it is declared.
macro_rules! group {
    ($(#[$meta:meta])* $group:ident {
        $($(#[$doc:meta])* $variant:ident = $name:literal, $help:literal;)*
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $group {
            $($(#[$doc])* $variant,)*
        }

        impl $group {
            /// Every command of the group, in the order declared.
            pub const ALL: &'static [$group] = &[$($group::$variant,)*];

            /// Its name in `keys.toml`.
            pub fn name(self) -> &'static str {
                match self {
                    $($group::$variant => $name,)*
                }
            }

            /// What it does, in a few words.
            pub fn help(self) -> &'static str {
                match self {
                    $($group::$variant => $help,)*
                }
            }
        }
    };
}

/// User intents, bound to keys by the keymap: the few every screen knows, and groups that each
/// handler takes or lets pass as a whole. `keys.toml` names each command flat, in snake case
/// (`send_request`, `copy_model_view`, `show_server_2`), as it always has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// Leave sightline.
    Quit,
    /// Show or hide the key help.
    Help,
    /// Leave the editor, close an overlay, or cancel the question.
    Back,
    Move(Move),
    View(View),
    Edit(Edit),
    ToServer(ToServer),
    Lens(Lens),
    Output(Output),
    Shelves(Shelves),
    Question(Question),
    Servers(Servers),
    Chat(Chat),
}

/// Every group of commands, as one pattern. An overlay takes the commands it handles by name
/// and lets the rest wait behind it with `any_group!()`: its match stays exhaustive without a
/// catch-all, and a group added to [`Command`] is added here once (the compiler asks).
macro_rules! any_group {
    () => {
        Command::Move(_)
            | Command::View(_)
            | Command::Edit(_)
            | Command::ToServer(_)
            | Command::Lens(_)
            | Command::Output(_)
            | Command::Shelves(_)
            | Command::Question(_)
            | Command::Servers(_)
            | Command::Chat(_)
    };
}
pub(crate) use any_group;

group! {
    /// Moving the focus, the selection or the scroll.
    Move {
        /// Move the focus to the next pane.
        FocusNext = "focus_next", "next pane";
        /// Move the focus to the previous pane.
        FocusPrev = "focus_prev", "previous pane";
        SelectNext = "select_next", "next row";
        SelectPrev = "select_prev", "previous row";
        PageDown = "page_down", "page down";
        PageUp = "page_up", "page up";
        SelectFirst = "select_first", "first row";
        /// Select the last row (and follow new entries).
        SelectLast = "select_last", "last row; follow new entries";
        /// Scroll Detail or the model view left (when not wrapped).
        ScrollLeft = "scroll_left", "scroll Detail / the model view left (wrap off)";
        ScrollRight = "scroll_right", "scroll Detail / the model view right (wrap off)";
    }
}

group! {
    /// What the panes show of the selection.
    View {
        /// The selected tool's input schema, in full.
        Schema = "toggle_schema", "the selected tool's description and schema, in full";
        /// The server console (stderr, log notifications) instead of the exchange log.
        Console = "toggle_console", "server console (stderr, log messages)";
        /// Wrap Detail and the model view, or not.
        Wrap = "toggle_wrap", "wrap Detail and the model view on / off";
    }
}

group! {
    /// Writing a request: the tool's editor, the free-form composer.
    Edit {
        OpenEditor = "open_editor", "edit the request of the selected tool";
        /// Open the free-form request composer (any method, params as typed).
        OpenComposer = "open_composer", "compose any request: method, then params as JSON";
        /// In the editor: select the next placeholder value.
        NextPlaceholder = "next_placeholder", "next value";
        PrevPlaceholder = "prev_placeholder", "previous value";
        /// In a prompt or template form: take the first completion suggestion.
        AcceptCompletion = "accept_completion", "take the first completion suggestion";
    }
}

group! {
    /// What goes to the server (or, for a capture, through a real host).
    ToServer {
        /// Send the request in the editor.
        Request = "send_request", "send the request";
        /// Cancel the pending call.
        Cancel = "cancel_call", "cancel the pending call";
        /// Send the editor's request to every connected server and compare their answers (again
        /// when the comparison is open; reopened when the request is the last one compared).
        SideBySide = "side_by_side", "send the request to every server, answers side by side";
        Ping = "ping", "ping the server (its round trip)";
        /// Send `logging/setLevel` with the next level.
        SetLogLevel = "set_log_level", "logging/setLevel: the next level (debug, info, …)";
        Reconnect = "reconnect", "restart the server and reconnect";
        /// Audit the selected tool (SEP-1303 cases), after showing the plan.
        Audit = "audit", "audit the selected tool: what the model reads of invalid calls";
        /// Re-run the selected call through the real host of the current profile.
        CaptureOnHost = "capture_on_host", "re-run the call through the real host of this profile";
    }
}

group! {
    /// How every call is judged, or what every session declares: one lens for all servers, so
    /// that their answers compare.
    Lens {
        /// Client-side argument validation on or off.
        Validation = "toggle_validation", "client-side validation on / off";
        /// The MAY rule (forward protocol errors to the model) on or off.
        Forwarding = "toggle_forwarding", "MAY rule: forward protocol errors on / off";
        /// The next host profile.
        Host = "cycle_host", "next host profile";
        /// Declare the tasks extension, or stop declaring it.
        Tasks = "toggle_tasks", "tasks extension on / off (2026-07-28)";
        /// Whether tools with an invalid `x-mcp-header` may be called.
        InvalidHeaders = "toggle_invalid_headers", "call tools with an invalid x-mcp-header: on / off";
    }
}

group! {
    /// Taking things out: the clipboard, files.
    Output {
        CopyRequest = "copy_request", "copy the request (OSC 52)";
        CopyResponse = "copy_response", "copy the response";
        CopyModelView = "copy_model_view", "copy what the model sees";
        /// Copy the equivalent `sightline call …` command line.
        CopyCommandLine = "copy_command_line", "copy the `sightline call` command line";
        SaveCall = "save_call", "save the selected call as a transcript (for replay)";
        SaveCallJson = "save_call_json", "save the selected call as JSON, with what the model sees";
        /// Add the selected call to the `--test-file` as a case expecting what came.
        SaveCase = "save_case", "add the selected call to the test file (--test-file)";
        SaveLog = "save_log", "save the whole log as a transcript";
        /// Save the contents Detail shows (a read, an embedded resource) to a file.
        SaveContents = "save_contents", "save the read contents to a file (bytes for a blob)";
    }
}

group! {
    /// What the left column shows, and what a shelf's row leads to.
    Shelves {
        Tools = "show_tools", "left column: the tools";
        Resources = "show_resources", "left column: the resources and templates";
        Prompts = "show_prompts", "left column: the prompts";
        /// SEP-2640's skills, listed without reading a file; Enter loads one.
        Skills = "show_skills", "left column: the skills";
        /// The server's name, era, transport, instructions and capabilities.
        ServerInfo = "show_server_info", "the server: era, transport, instructions, capabilities";
        /// Open the next resource the current call's result links to or embeds.
        OpenLink = "open_link", "open the next resource the call's result links to or embeds";
        /// Subscribe to the selected resource's updates, or unsubscribe.
        Subscription = "toggle_subscription", "subscribe to the selected resource / unsubscribe";
    }
}

group! {
    /// Answering the server's question (elicitation, sampling, roots).
    Question {
        /// Send the answer the question panel shows.
        Accept = "accept", "accept: send the answer as shown";
        Decline = "decline", "decline the server's question";
    }
}

group! {
    /// A model calling the server through the current host's eyes.
    Chat {
        /// Open the Chat pane (its prompt line takes the keys).
        Open = "open_chat", "chat: a model calls the server through this host's eyes";
        /// Run the last prompt again (under the host shown now).
        Rerun = "rerun_chat", "chat: run the last prompt again (after h, another host)";
    }
}

/// Which of several open servers is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Servers {
    Next,
    Prev,
    /// The server at this index, from 0 (`show_server_1` is 0); nine have keys.
    Show(u8),
}

/// The `show_server_N` names, by index.
const SHOW_SERVER: [&str; 9] = [
    "show_server_1",
    "show_server_2",
    "show_server_3",
    "show_server_4",
    "show_server_5",
    "show_server_6",
    "show_server_7",
    "show_server_8",
    "show_server_9",
];

/// The `show_server_N` help, by index.
const SHOW_SERVER_HELP: [&str; 9] = [
    "show server 1 (several open)",
    "show server 2 (several open)",
    "show server 3 (several open)",
    "show server 4 (several open)",
    "show server 5 (several open)",
    "show server 6 (several open)",
    "show server 7 (several open)",
    "show server 8 (several open)",
    "show server 9 (several open)",
];

impl Servers {
    /// Every server command a key can name.
    pub fn all() -> impl Iterator<Item = Servers> {
        [Servers::Next, Servers::Prev]
            .into_iter()
            .chain((0..9).map(Servers::Show))
    }

    pub fn name(self) -> &'static str {
        match self {
            Servers::Next => "next_server",
            Servers::Prev => "prev_server",
            Servers::Show(index) => SHOW_SERVER.get(usize::from(index)).copied().unwrap_or(""),
        }
    }

    pub fn help(self) -> &'static str {
        match self {
            Servers::Next => "next server (several open)",
            Servers::Prev => "previous server (several open)",
            Servers::Show(index) => SHOW_SERVER_HELP
                .get(usize::from(index))
                .copied()
                .unwrap_or(""),
        }
    }
}

impl Command {
    /// Every command a key can name, group by group.
    pub fn all() -> impl Iterator<Item = Command> {
        [Command::Quit, Command::Help, Command::Back]
            .into_iter()
            .chain(Move::ALL.iter().copied().map(Command::Move))
            .chain(View::ALL.iter().copied().map(Command::View))
            .chain(Edit::ALL.iter().copied().map(Command::Edit))
            .chain(ToServer::ALL.iter().copied().map(Command::ToServer))
            .chain(Lens::ALL.iter().copied().map(Command::Lens))
            .chain(Output::ALL.iter().copied().map(Command::Output))
            .chain(Shelves::ALL.iter().copied().map(Command::Shelves))
            .chain(Question::ALL.iter().copied().map(Command::Question))
            .chain(Servers::all().map(Command::Servers))
            .chain(Chat::ALL.iter().copied().map(Command::Chat))
    }

    /// The command `keys.toml` names `name`.
    pub fn named(name: &str) -> Option<Command> {
        Command::all().find(|command| command.name() == name)
    }

    /// The command's name in `keys.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Help => "toggle_help",
            Command::Back => "back",
            Command::Move(command) => command.name(),
            Command::View(command) => command.name(),
            Command::Edit(command) => command.name(),
            Command::ToServer(command) => command.name(),
            Command::Lens(command) => command.name(),
            Command::Output(command) => command.name(),
            Command::Shelves(command) => command.name(),
            Command::Question(command) => command.name(),
            Command::Servers(command) => command.name(),
            Command::Chat(command) => command.name(),
        }
    }

    /// What the command does, in a few words: the help's text for a key that `keys.toml` binds
    /// where the built-in table has no row of its own to reuse.
    pub fn help(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Help => "this help",
            Command::Back => "back",
            Command::Move(command) => command.help(),
            Command::View(command) => command.help(),
            Command::Edit(command) => command.help(),
            Command::ToServer(command) => command.help(),
            Command::Lens(command) => command.help(),
            Command::Output(command) => command.help(),
            Command::Shelves(command) => command.help(),
            Command::Question(command) => command.help(),
            Command::Servers(command) => command.help(),
            Command::Chat(command) => command.help(),
        }
    }
}

/// Work for the runtime; data, so transitions can be tested.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Tell the live session to do something.
    Session(SessionCommand),
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Write a file (relative to the current directory); the outcome comes back as
    /// [`Action::Saved`].
    Save { path: String, text: String },
    /// Add a case to a test file: `server` first when the file is new (or empty), then `case`;
    /// the outcome comes back as [`Action::CaseSaved`].
    AppendCase {
        path: String,
        server: Option<String>,
        case: String,
    },
    /// Copy a file (a replay's transcript, saved as the whole log); the outcome comes back as
    /// [`Action::Saved`].
    CopyFile { from: String, path: String },
    /// Read back what a replay left in its transcript; it comes back as
    /// [`Action::FrameRead`] or [`Action::CallRead`].
    ReadBack(Stored),
    /// Run `sightline capture HOST TOOL ARGUMENTS --json SERVER_ARGS…`; the outcome comes back
    /// as [`Action::Captured`].
    Capture {
        call: usize,
        host: String,
        tool: String,
        arguments: String,
        server_args: Vec<String>,
        /// `--host-bin`, passed on.
        host_bin: Option<String>,
    },
    /// Write bytes to a file (relative to the current directory): saved contents; the outcome
    /// comes back as [`Action::BytesSaved`].
    SaveBytes { path: String, bytes: Vec<u8> },
    /// Ask the model for Chat run `run`'s next turn with this request body (the runtime adds
    /// the URL and the key); the turn comes back as [`Action::ModelAnswered`].
    AskModel { run: usize, body: Value },
    /// Restore the terminal and exit.
    Quit,
}

/// What the UI asks the session to do.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionCommand {
    /// Send `tools/call` with these arguments, exactly as given.
    Call { tool: String, arguments: Value },
    /// Send one request other than `tools/call`, exactly as given; it ends with
    /// `SessionEvent::Requested`.
    Request {
        method: String,
        params: Option<Value>,
    },
    /// Hold a request open as `key` beside everything else (a 2026-07-28
    /// `subscriptions/listen`); it ends with `SessionEvent::Listened`.
    Listen {
        key: String,
        method: String,
        params: Option<Value>,
    },
    /// Cancel the request held open as `key`.
    StopListening { key: String },
    /// Stop waiting for the pending call and cancel it.
    CancelCall,
    /// Shut the server down and connect again.
    Reconnect,
    /// Shut the server down and end the task.
    Shutdown,
    /// Declare the tasks extension from now on (`true`), or stop.
    SetTasks(bool),
    /// The user's answer to question `number` (see `SessionEvent::Asked`).
    Answer {
        number: u64,
        answer: crate::mcp::input::Answer,
    },
}

/// Something a replay left in its transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// The n-th frame sent or received (see [`Raw::Stored`]).
    Frame(u64),
    /// A call, by its index in [`AppState::calls`].
    Call(usize),
}
