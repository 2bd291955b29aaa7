//! Everything the screen shows, as plain data. Lines are sanitised and summarised once, when
//! they arrive; rendering only slices them.

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::layout::Rect;
use tui_textarea::TextArea;

use crate::classify::findings::Finding;
use crate::classify::{Class, Outcome};
use crate::mcp::Timestamp;
use crate::mcp::catalog::Catalog;
use crate::mcp::jsonrpc::{Frame, Id};
use crate::mcp::log::{Connection, HttpExchange};
use crate::mcp::messages::Tool;
use crate::mcp::session::Exchange;
use crate::model_view::hosts::HostProfile;

pub use super::action::Stored;
use super::keys::Keymap;

pub use super::stderr_text::StderrText;
/// The panes that take the focus, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    #[default]
    Tools,
    Editor,
    Log,
    Detail,
    Model,
}

impl Focus {
    pub const ORDER: [Focus; 5] = [
        Focus::Tools,
        Focus::Editor,
        Focus::Log,
        Focus::Detail,
        Focus::Model,
    ];
}

/// What kind of log line this is; decides its colour and marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A request or notification we sent.
    Outgoing,
    /// A response we received; its class once known.
    Response(Class),
    /// A request from the server.
    ServerRequest,
    /// A notification from the server.
    Notification,
    /// A line of the server's stderr.
    Stderr,
    /// A line from the server that is not JSON-RPC.
    Invalid,
    /// Our own timeout, a write failure or the server's exit.
    Failure,
    /// A decision of sightline (era fallback…).
    Note,
    /// The era probe's refusal or silence, once the server is known to be legacy: expected.
    Probe,
    /// An HTTP request and its response (Streamable HTTP).
    Http,
}

/// A log line's text as it came off (or went on) the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    /// A JSON-RPC frame, shared with the session rather than copied.
    Frame(Frame),
    /// A line kept as text only: not a frame, or a small frame no call refers to.
    Line(crate::mcp::SharedText),
    /// Consecutive lines of the server's stderr, kept in [`LogState::stderr`].
    Stderr { first: u32, count: u32 },
    /// The details of an HTTP exchange.
    Http(Arc<HttpExchange>),
    /// A replay's frame larger than [`STORED_BYTES`], left in the transcript: the `frame`-th
    /// frame sent or received there, of `bytes` bytes (read back when shown).
    Stored { frame: u64, bytes: usize },
}

impl Raw {
    /// The text of a frame or a line (a stderr run's lines are in [`LogState::stderr`]).
    pub fn as_str(&self) -> &str {
        match self {
            Raw::Frame(frame) => &frame.raw,
            Raw::Line(line) => line,
            Raw::Stderr { .. } | Raw::Http(_) | Raw::Stored { .. } => "",
        }
    }
}

/// One row of the exchange log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    pub at: Timestamp,
    pub kind: LineKind,
    /// One line, sanitised and clipped, ready to draw; `None` for small lines whose row is
    /// derived from `raw` when drawn (see [`LogLine::summary`]).
    pub summary: Option<Box<str>>,
    /// The frame's text as on the wire, for the detail view.
    pub raw: Option<Raw>,
    /// The JSON-RPC id of a request or response.
    pub id: Option<Id>,
    /// The `tools/call` exchange this line belongs to, once it has finished.
    pub exchange: Option<usize>,
    /// Whether a finding is attached.
    pub flagged: bool,
    /// The connection it belongs to (see [`AppState::session`]).
    pub session: u32,
}

/// A finished `tools/call` with what sightline makes of it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    /// The connection it was made on.
    pub session: u32,
    pub tool: String,
    /// The whole exchange; when `stored`, only its outline (ids, times, HTTP details, what was
    /// asked), and [`AppState::whole_call`] has the whole of it once read back.
    pub exchange: Exchange,
    pub outcome: Outcome,
    pub findings: Vec<Finding>,
    /// A replayed call whose frames were left in the transcript.
    pub stored: bool,
}

/// In a replay, frames larger than this stay in the transcript rather than in memory; the
/// call or frame shown is read back from the file, so a 1 GB transcript opens in far less.
pub const STORED_BYTES: usize = 16 * 1024;

/// A replay's frames read back from the transcript: only those on screen are held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadBack {
    /// Frames sent or received so far in the transcript (they are numbered in this order).
    pub frames: u64,
    /// The call shown, whole.
    pub call: Option<(usize, CallRecord)>,
    /// The frame shown, whole.
    pub frame: Option<(u64, Frame)>,
    /// Asked of the runtime and not yet come back.
    pub asked: Vec<Stored>,
    /// Why the last read back failed.
    pub failed: Option<String>,
}

/// A line of the server console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleLine {
    pub at: Timestamp,
    /// `stderr`, or the level of a `notifications/message`.
    pub source: String,
    pub text: String,
}

/// A tool as the tools pane shows it, sanitised and formatted once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolRow {
    pub name: String,
    /// The display name when it differs from `name`.
    pub title: Option<String>,
    pub description: String,
    /// Annotations as `key: value` words.
    pub annotations: String,
    /// The input schema, pretty-printed.
    pub schema: Vec<String>,
}

impl ToolRow {
    /// A tool's line in the list: its name and, when it differs, its display name (sanitised).
    pub fn label(tool: &Tool) -> (String, Option<String>) {
        let safe = |text: &str| crate::sanitize::text(text).into_owned();
        let display_name = tool.display_name();
        let title = (display_name != tool.name).then(|| safe(&display_name));
        (safe(&tool.name), title)
    }

    pub fn new(tool: &Tool) -> Self {
        let safe = |text: &str| crate::sanitize::text(text).into_owned();
        let (name, title) = Self::label(tool);
        let annotations = tool
            .raw
            .get("annotations")
            .and_then(|hints| match hints.value() {
                serde_json::Value::Object(hints) => Some(hints),
                _ => None,
            })
            .map(|hints| {
                hints
                    .iter()
                    .filter(|(key, _)| *key != "title")
                    .map(|(key, value)| format!("{key}: {value}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let schema = tool
            .input_schema()
            .map(|schema| serde_json::to_string_pretty(&schema).unwrap_or_default())
            .unwrap_or_default();
        Self {
            name,
            title,
            description: match &tool.rejected {
                // Why first: it decides whether a host shows this tool at all.
                Some(reason) => safe(&format!(
                    "✗ rejected: conforming HTTP clients drop this tool from tools/list \
                     ({reason}). {}",
                    tool.description().unwrap_or_default()
                )),
                None => safe(&tool.description().unwrap_or_default()),
            },
            annotations: safe(&annotations),
            schema: crate::sanitize::json(&schema)
                .lines()
                .map(str::to_owned)
                .collect(),
        }
    }
}

/// The tools pane. Only the selected tool is described ahead of drawing: a listing of 200,000
/// tools costs its text, not 200,000 descriptions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolsState {
    /// The listing as it came, for judging calls against it.
    pub catalog: Arc<Catalog>,
    /// The same tools, an entry each, for the list's rows.
    pub tools: Arc<Vec<Tool>>,
    pub selected: usize,
    /// The first row in view; it moves only when the selection would leave the view.
    pub offset: usize,
    /// The first row of the selected tool's description and schema in view.
    pub about_scroll: usize,
    /// The selected tool, described.
    pub selected_row: Option<ToolRow>,
    pub show_schema: bool,
    /// Why the list is empty, when it is.
    pub problem: Option<String>,
    /// Whether a listing came (an empty list is the server's word only then).
    pub listed: bool,
}

impl ToolsState {
    /// A new listing.
    pub fn set(&mut self, catalog: Arc<Catalog>) {
        self.tools = Arc::new(catalog.to_vec());
        self.catalog = catalog;
    }

    pub fn selected_tool(&self) -> Option<&Tool> {
        self.tools.get(self.selected)
    }

    /// Selects the tool at `index` (clamped to the list) and describes it.
    pub fn select(&mut self, index: usize) {
        self.selected = index.min(self.tools.len().saturating_sub(1));
        self.selected_row = self.selected_tool().map(ToolRow::new);
    }
}

/// The request editor.
#[derive(Debug, Clone, Default)]
pub struct EditorState {
    pub textarea: TextArea<'static>,
    /// The tool the arguments are for.
    pub tool: Option<String>,
    /// One line per property of the tool's input schema.
    pub hints: Vec<String>,
    /// Invalid JSON (with its position) or, with validation on, schema violations.
    pub problems: Vec<String>,
    /// The text typed for each tool this session, kept when another tool is shown.
    pub drafts: HashMap<String, TextArea<'static>>,
    /// In a replay, the call whose recorded arguments were last put in the editor.
    pub replayed_call: Option<usize>,
}

impl EditorState {
    pub fn text(&self) -> String {
        self.textarea.lines().join("\n")
    }
}

/// The exchange log and its selection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogState {
    pub lines: Vec<LogLine>,
    /// `None` follows the newest line.
    pub selected: Option<usize>,
    /// The first row in view while a line is selected.
    pub offset: usize,
    /// The selected line's request and response, pretty-printed once when selected.
    pub detail: Vec<String>,
    pub detail_scroll: usize,
    /// The rows the console shows (stderr runs, log notifications), as indices into `lines`.
    pub console: Vec<usize>,
    /// Lines in the console: a stderr run counts each of its lines.
    pub console_lines: usize,
    pub stderr: StderrText,
    pub show_console: bool,
    pub console_scroll: usize,
}

impl LogState {
    /// The selected line, or the newest.
    pub fn current(&self) -> Option<usize> {
        self.selected.or_else(|| self.lines.len().checked_sub(1))
    }

    /// The console's lines that fit `height` rows, `scroll` lines up from the newest, oldest
    /// first. Stderr runs are expanded, only as far as needed.
    pub fn console_window(&self, height: usize, scroll: usize) -> Vec<ConsoleLine> {
        let mut skip = scroll.min(self.console_lines.saturating_sub(1));
        let mut shown = Vec::new();
        for &index in self.console.iter().rev() {
            if shown.len() == height {
                break;
            }
            let Some(line) = self.lines.get(index) else {
                continue;
            };
            match line.raw {
                Some(Raw::Stderr { first, count }) => {
                    let count = count as usize;
                    if skip >= count {
                        skip -= count;
                        continue;
                    }
                    let last = count - skip;
                    skip = 0;
                    for offset in (0..last).rev().take(height - shown.len()) {
                        let number = first + u32::try_from(offset).unwrap_or(u32::MAX);
                        shown.push(ConsoleLine {
                            at: self.stderr.time(number),
                            source: "stderr".into(),
                            text: self.stderr.line(number).to_owned(),
                        });
                    }
                }
                _ if skip > 0 => skip -= 1,
                _ => shown.push(line.console()),
            }
        }
        shown.reverse();
        shown
    }
}

/// How the connection is doing.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Link {
    #[default]
    Starting,
    Connecting,
    Connected(Connection),
    Failed(String),
    Disconnected,
}

/// Severity of a status-bar message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Info,
    Error,
}

/// A message in the status line, until it expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub tone: Tone,
    pub text: String,
    /// The tick it was shown at (see [`AppState::ticks`]).
    pub since: u64,
}

impl Status {
    /// Seconds a message stays: errors longer, they may need reading twice.
    pub fn lifetime(&self) -> u64 {
        match self.tone {
            Tone::Info => 6,
            Tone::Error => 12,
        }
    }
}

/// Settings the user toggles.
// Independent switches the user flips one by one, not states of one thing.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub hosts: Vec<HostProfile>,
    pub host: usize,
    /// The MAY rule, on top of the profile's own setting.
    pub forward_protocol_errors: bool,
    pub validation: bool,
    /// Show header values that are secrets (`--show-secrets`) instead of masking them.
    pub show_secrets: bool,
    /// Whether the tasks extension is declared (`--tasks`, `t`).
    pub tasks: bool,
    /// Whether a tool with an invalid `x-mcp-header` may be called anyway
    /// (`--allow-invalid-tool-headers`, `I`).
    pub allow_invalid_tool_headers: bool,
    /// What each key means: the built-in bindings, rebound by the user's `keys.toml`.
    pub keys: Keymap,
    /// The host's program `H` runs (`--host-bin`), when it is not found by itself.
    pub host_bin: Option<String>,
    /// The model the Chat pane talks to (`--model`), if any.
    pub chat: Option<super::chat_pane::ChatModel>,
    /// The test file `K` adds the selected call to (`--test-file`), if any.
    pub test_file: Option<String>,
}

impl Default for Settings {
    /// The built-in host profiles, `spec` active, the MAY rule and validation off, the built-in
    /// keys.
    fn default() -> Self {
        Self {
            hosts: crate::model_view::hosts::builtins(),
            host: 0,
            forward_protocol_errors: false,
            validation: false,
            show_secrets: false,
            tasks: false,
            allow_invalid_tool_headers: false,
            keys: Keymap::default(),
            host_bin: None,
            test_file: None,
            chat: None,
        }
    }
}

impl Settings {
    /// The active profile (the MAY toggle is applied by the call analysis).
    pub fn host(&self) -> &HostProfile {
        self.hosts
            .get(self.host)
            .unwrap_or_else(|| crate::model_view::hosts::spec())
    }

    /// Whether protocol errors are forwarded: the MAY toggle, or the profile's own setting.
    pub fn forwards_protocol_errors(&self) -> bool {
        self.forward_protocol_errors || self.host().forward_protocol_errors
    }
}

/// What the model sees for one call, ready to draw: short texts, the reply's own text clipped
/// and made terminal-safe once, when the call or a setting changes.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPane {
    /// The call it is about (an index into `AppState::calls`).
    pub call: usize,
    /// The host profile it follows.
    pub host: String,
    pub verdict: String,
    pub forwarded: bool,
    /// How the text reaches the model, when that needs saying (see `present::call::ViewWords`).
    pub marker: &'static str,
    /// Terminal-safe, clipped, with a note of what was left out.
    pub text: String,
    pub reason: String,
    /// What the host did that the model cannot tell (terminal-safe).
    pub notes: Vec<String>,
    /// Findings that depend on the host.
    pub findings: Vec<crate::classify::findings::Finding>,
    /// What the real host sent its model for this call (`H`), when it was run.
    pub captured: Option<Captured>,
}

/// The call run through a real host (`H`): running, or what `sightline capture` found.
#[derive(Debug, Clone, PartialEq)]
pub enum Captured {
    /// Since this tick (the pane counts the seconds).
    Running {
        since: u64,
    },
    /// Terminal-safe: the host and its version, the text its model read (or none), whether
    /// the host called the server, and how that differs from the prediction.
    Done {
        host: String,
        version: String,
        text: Option<String>,
        server_called: bool,
        differences: Vec<String>,
    },
    Failed(String),
}

/// Everything the screen shows.
#[derive(Debug, Clone)]
pub struct AppState {
    pub focus: Focus,
    pub tools: ToolsState,
    pub editor: EditorState,
    pub log: LogState,
    pub calls: Vec<CallRecord>,
    /// What the model sees for the selected or latest call, recomputed when either changes.
    pub model: Option<ModelPane>,
    /// The model pane's first visible row.
    pub model_scroll: usize,
    pub link: Link,
    pub transport: String,
    pub settings: Settings,
    pub status: Option<Status>,
    /// Seconds since start, counted by [`crate::app::Action::Tick`]; messages expire by it.
    pub ticks: u64,
    pub pending_calls: usize,
    /// The call on its way, with its progress, until it finishes.
    pub pending: Option<super::pending::PendingCall>,
    /// Typing goes into the request editor (only with the focus on it).
    pub editing: bool,
    pub show_help: bool,
    /// The help's first visible row.
    pub help_scroll: usize,
    /// Detail and the model view wrap long lines; when off they scroll sideways.
    pub wrap: bool,
    /// Columns scrolled sideways in Detail and the model view (wrap off).
    pub hscroll: usize,
    /// The connection number: 1, then one more at each reconnect. Ids of later connections
    /// are shown with it (`2#3`), so a reconnect never leaves two `#3`s.
    pub session: u32,
    /// The tick a reconnect was asked of the session at, until it begins the new attempt
    /// (`Connecting`, or `ConnectFailed` when there is no target): another `r` meanwhile is the
    /// same reconnect. Forty presses would otherwise queue forty server restarts, and the
    /// screen would wait on the session's full command channel behind them.
    pub reconnect_asked: Option<u64>,
    pub screen: Rect,
    /// Server-selection arguments, for the copied command line.
    pub server_args: Vec<String>,
    /// What the latest connection negotiated, and its number: kept after it ends.
    pub negotiated: Option<(u32, Connection)>,
    /// The transcript on screen, when this is a replay: nothing is ever sent.
    pub replay: Option<String>,
    /// A replay of a host watched through `sightline proxy`: followed live, named.
    pub watched: Watched,
    /// In a replay, what was read back from the transcript to be shown.
    pub read_back: ReadBack,
    /// The server's question on screen, waiting for the user's answer.
    pub asking: Option<super::ask::AskPanel>,
    /// The audit of a tool: its plan, running, or its table.
    pub audit: Option<super::audit_panel::AuditPanel>,
    /// Calls run through a real host (`H`): by call index and host profile.
    pub captures: Vec<(usize, String, Captured)>,
    /// The server's name among several open at once (its config entry, its demo style), for
    /// the status line; none when it is the only one.
    pub label: Option<String>,
    /// Requests other than `tools/call` waiting for their answers, with who asked.
    pub requests: super::waiting::Requests,
    /// The request composer: its text is kept between openings.
    pub composer: super::panels::Composer,
    /// The Chat pane: a model calling the server, its runs.
    pub chat: super::chat_pane::ChatPane,
    /// The level the next `l` sets (an index into `composer::LEVELS`).
    pub next_log_level: usize,
    /// The server info overlay, while it is open.
    pub server_info: Option<super::panels::ServerInfoView>,
    /// The Resources and Prompts shelves, and what Detail shows of them.
    pub catalog: super::catalog_state::CatalogState,
}

/// What a replay knows of the host a proxy watched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Watched {
    /// The transcript is a running proxy's, followed as it grows (`sightline attach`).
    pub live: bool,
    /// The host named itself (its first request was seen): its profile was followed.
    pub host_named: bool,
}

impl AppState {
    pub fn new(settings: Settings, server_args: Vec<String>, screen: Rect) -> Self {
        Self {
            replay: None,
            watched: Watched::default(),
            read_back: ReadBack::default(),
            negotiated: None,
            asking: None,
            audit: None,
            captures: Vec::new(),
            label: None,
            requests: super::waiting::Requests::default(),
            composer: super::panels::Composer::default(),
            chat: super::chat_pane::ChatPane::default(),
            next_log_level: 0,
            server_info: None,
            catalog: super::catalog_state::CatalogState::default(),
            focus: Focus::Tools,
            tools: ToolsState::default(),
            editor: EditorState::default(),
            log: LogState::default(),
            calls: Vec::new(),
            model: None,
            model_scroll: 0,
            link: Link::Starting,
            transport: String::new(),
            settings,
            status: None,
            ticks: 0,
            pending_calls: 0,
            pending: None,
            editing: false,
            show_help: false,
            help_scroll: 0,
            wrap: true,
            hscroll: 0,
            session: 1,
            reconnect_asked: None,
            screen,
            server_args,
        }
    }

    /// The call the model pane is about: the selected line's, else the latest.
    pub fn current_call(&self) -> Option<&CallRecord> {
        self.current_call_index().and_then(|i| self.calls.get(i))
    }

    /// Call `index` with all its frames: `None` for a replayed call left in the transcript
    /// until it is read back.
    pub fn whole_call(&self, index: usize) -> Option<&CallRecord> {
        let call = self.calls.get(index)?;
        if !call.stored {
            return Some(call);
        }
        let (read, whole) = self.read_back.call.as_ref()?;
        (*read == index).then_some(whole)
    }

    /// The index in `calls` of [`AppState::current_call`].
    pub fn current_call_index(&self) -> Option<usize> {
        let from_selection = self
            .log
            .selected
            .and_then(|i| self.log.lines.get(i))
            .and_then(|line| line.exchange);
        from_selection.or_else(|| self.calls.len().checked_sub(1))
    }
}
