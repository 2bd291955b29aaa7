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
    /// Contents asked for by [`Effect::SaveBytes`] were written (their size), or why not.
    BytesSaved {
        path: String,
        result: Result<usize, String>,
    },
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

/// User intents, bound to keys by the keymap. `keys.toml` names them in snake case
/// (`send_request`, `copy_model_view`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// Leave sightline.
    Quit,
    /// Send the answer the question panel shows.
    Accept,
    /// Declare the tasks extension, or stop declaring it.
    ToggleTasks,
    /// Whether tools with an invalid `x-mcp-header` may be called.
    ToggleInvalidHeaders,
    /// Decline the server's question.
    Decline,
    /// Move the focus to the next pane.
    FocusNext,
    /// Move the focus to the previous pane.
    FocusPrev,
    /// Select the next row of the focused pane.
    SelectNext,
    /// Select the previous row of the focused pane.
    SelectPrev,
    /// Move a page down.
    PageDown,
    /// Move a page up.
    PageUp,
    /// Select the first row.
    SelectFirst,
    /// Select the last row (and follow new entries).
    SelectLast,
    /// Open the editor for the selected tool.
    OpenEditor,
    /// Leave the editor, or close the help.
    Back,
    /// Send the request in the editor.
    SendRequest,
    /// Show or hide the key help.
    ToggleHelp,
    /// Show or hide the selected tool's input schema.
    ToggleSchema,
    /// Show the server console (stderr, log notifications) instead of the exchange log.
    ToggleConsole,
    /// Turn client-side argument validation on or off.
    ToggleValidation,
    /// Turn the MAY rule (forward protocol errors to the model) on or off.
    ToggleForwarding,
    /// Use the next host profile.
    CycleHost,
    /// Copy the selected exchange's request.
    CopyRequest,
    /// Copy the selected exchange's response.
    CopyResponse,
    /// Copy what the model sees.
    CopyModelView,
    /// Copy the equivalent `sightline call …` command line.
    CopyCommandLine,
    /// Re-run the selected call through the real host of the current profile.
    CaptureOnHost,
    /// Save the selected call as a transcript.
    SaveCall,
    /// Save the selected call as pretty JSON, with what the model sees.
    SaveCallJson,
    /// Save the whole log as a transcript.
    SaveLog,
    /// Audit the selected tool (SEP-1303 cases), after showing the plan.
    Audit,
    /// Restart the server and connect again.
    Reconnect,
    /// Cancel the pending call.
    CancelCall,
    /// In the editor: select the next placeholder value.
    NextPlaceholder,
    /// In the editor: select the previous placeholder value.
    PrevPlaceholder,
    /// Wrap Detail and the model view, or not.
    ToggleWrap,
    /// Scroll Detail or the model view left (when not wrapped).
    ScrollLeft,
    /// Scroll Detail or the model view right (when not wrapped).
    ScrollRight,
    /// Show the next server, when several are open.
    NextServer,
    /// Show the previous server, when several are open.
    PrevServer,
    /// Send the editor's request to every connected server and compare their answers (again
    /// when the comparison is open; reopened when the request is the last one compared).
    SideBySide,
    /// Show server 1 (of several open).
    #[serde(rename = "show_server_1")]
    ShowServer1,
    /// Show server 2 (of several open).
    #[serde(rename = "show_server_2")]
    ShowServer2,
    /// Show server 3 (of several open).
    #[serde(rename = "show_server_3")]
    ShowServer3,
    /// Show server 4 (of several open).
    #[serde(rename = "show_server_4")]
    ShowServer4,
    /// Show server 5 (of several open).
    #[serde(rename = "show_server_5")]
    ShowServer5,
    /// Show server 6 (of several open).
    #[serde(rename = "show_server_6")]
    ShowServer6,
    /// Show server 7 (of several open).
    #[serde(rename = "show_server_7")]
    ShowServer7,
    /// Show server 8 (of several open).
    #[serde(rename = "show_server_8")]
    ShowServer8,
    /// Show server 9 (of several open).
    #[serde(rename = "show_server_9")]
    ShowServer9,
    /// Open the free-form request composer (any method, params as typed).
    OpenComposer,
    /// Send `ping` and show its round trip.
    Ping,
    /// Send `logging/setLevel` with the next level.
    SetLogLevel,
    /// Show the server's name, era, transport, instructions and capabilities.
    ShowServerInfo,
    /// Show the tools in the left column.
    ShowTools,
    /// Show the resources and resource templates in the left column.
    ShowResources,
    /// Show the prompts in the left column.
    ShowPrompts,
    /// Save the contents Detail shows (a read, an embedded resource) to a file.
    SaveContents,
    /// Subscribe to the selected resource's updates, or unsubscribe.
    ToggleSubscription,
    /// In a prompt or template form: take the first completion suggestion.
    AcceptCompletion,
    /// Open the next resource the current call's result links to or embeds.
    OpenLink,
}

impl Command {
    /// What the command does, in a few words: the help's text for a key that `keys.toml` binds
    /// where the built-in table has no row of its own to reuse.
    // Each by name, so that a new command must say what it does.
    #[deny(clippy::wildcard_enum_match_arm)]
    pub fn help(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Accept => "accept: send the answer as shown",
            Command::Decline => "decline the server's question",
            Command::ToggleTasks => "tasks extension on / off (2026-07-28)",
            Command::ToggleInvalidHeaders => "call tools with an invalid x-mcp-header: on / off",
            Command::FocusNext => "next pane",
            Command::FocusPrev => "previous pane",
            Command::SelectNext => "next row",
            Command::SelectPrev => "previous row",
            Command::PageDown => "page down",
            Command::PageUp => "page up",
            Command::SelectFirst => "first row",
            Command::SelectLast => "last row; follow new entries",
            Command::OpenEditor => "edit the request of the selected tool",
            Command::Back => "back",
            Command::SendRequest => "send the request",
            Command::ToggleHelp => "this help",
            Command::ToggleSchema => "the selected tool's description and schema, in full",
            Command::ToggleConsole => "server console (stderr, log messages)",
            Command::ToggleValidation => "client-side validation on / off",
            Command::ToggleForwarding => "MAY rule: forward protocol errors on / off",
            Command::CycleHost => "next host profile",
            Command::CopyRequest => "copy the request (OSC 52)",
            Command::CopyResponse => "copy the response",
            Command::CopyModelView => "copy what the model sees",
            Command::CopyCommandLine => "copy the `sightline call` command line",
            Command::CaptureOnHost => "re-run the call through the real host of this profile",
            Command::SaveCall => "save the selected call as a transcript (for replay)",
            Command::SaveCallJson => "save the selected call as JSON, with what the model sees",
            Command::SaveLog => "save the whole log as a transcript",
            Command::Audit => {
                "audit the selected tool: invalid calls, and what the model could read"
            }
            Command::Reconnect => "restart the server and reconnect",
            Command::CancelCall => "cancel the pending call",
            Command::NextPlaceholder => "next value",
            Command::PrevPlaceholder => "previous value",
            Command::ToggleWrap => "wrap Detail and the model view on / off",
            Command::ScrollLeft => "scroll Detail / the model view left (wrap off)",
            Command::ScrollRight => "scroll Detail / the model view right (wrap off)",
            Command::NextServer => "next server (several open)",
            Command::PrevServer => "previous server (several open)",
            Command::SideBySide => "send the request to every server, answers side by side",
            Command::ShowServer1 => "show server 1 (several open)",
            Command::ShowServer2 => "show server 2 (several open)",
            Command::ShowServer3 => "show server 3 (several open)",
            Command::ShowServer4 => "show server 4 (several open)",
            Command::ShowServer5 => "show server 5 (several open)",
            Command::ShowServer6 => "show server 6 (several open)",
            Command::ShowServer7 => "show server 7 (several open)",
            Command::ShowServer8 => "show server 8 (several open)",
            Command::ShowServer9 => "show server 9 (several open)",
            Command::OpenComposer => "compose any request: method, then params as JSON",
            Command::Ping => "ping the server (its round trip)",
            Command::SetLogLevel => "logging/setLevel: the next level (debug, info, …)",
            Command::ShowServerInfo => "the server: era, transport, instructions, capabilities",
            Command::ShowTools => "left column: the tools",
            Command::ShowResources => "left column: the resources and templates",
            Command::ShowPrompts => "left column: the prompts",
            Command::SaveContents => "save the read contents to a file (bytes for a blob)",
            Command::ToggleSubscription => "subscribe to the selected resource / unsubscribe",
            Command::AcceptCompletion => "take the first completion suggestion",
            Command::OpenLink => "open the next resource the call's result links to or embeds",
        }
    }

    /// The server a `ShowServerN` command shows, from 0.
    pub fn server_index(self) -> Option<usize> {
        const SHOW: [Command; 9] = [
            Command::ShowServer1,
            Command::ShowServer2,
            Command::ShowServer3,
            Command::ShowServer4,
            Command::ShowServer5,
            Command::ShowServer6,
            Command::ShowServer7,
            Command::ShowServer8,
            Command::ShowServer9,
        ];
        SHOW.iter().position(|&show| show == self)
    }

    /// The command's name in `keys.toml`.
    pub fn name(self) -> String {
        // A unit variant serialises to its name; nothing else can come out.
        toml::Value::try_from(self)
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_else(|| format!("{self:?}"))
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
    },
    /// Write bytes to a file (relative to the current directory): saved contents; the outcome
    /// comes back as [`Action::BytesSaved`].
    SaveBytes { path: String, bytes: Vec<u8> },
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
