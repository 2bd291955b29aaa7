//! `update(state, action) -> effects`: the only place state changes. Synchronous, no I/O, no
//! clock; expensive formatting happens here once, never in rendering.

use std::fmt::Write;

use serde_json::Value;

use super::action::{Action, Command, Effect, Mouse, SessionCommand, SessionEvent};
use super::describe::{clip_line, describe_received, describe_sent};
use super::layout::{self, areas};
use super::state::{AppState, CallRecord, Focus, LineKind, Link, LogLine, ModelPane, Raw, Tone};
use crate::analysis::{self, CallContext, analyze};
use crate::mcp::jsonrpc::Message;
use crate::mcp::log::{LogEntry, LogEvent};
use crate::mcp::session::Exchange;
use crate::model_view::{self, Block};
use crate::sanitize;
use crate::schema::skeleton;

/// Most lines of a stderr run the detail shows (all of them are in the console).
const DETAIL_STDERR_LINES: u32 = 2000;
/// Notifications and server requests up to this size keep only their text; their row is
/// derived from it when drawn (cheap at this size), so a flood costs little more than its bytes.
const DERIVE_LIMIT: usize = 4096;
/// Frames larger than this are shown as received (clipped), not pretty-printed.
const PRETTY_LIMIT: usize = 4 * 1024 * 1024;
/// How much of an oversized frame the detail shows.
const RAW_PREVIEW: usize = 64 * 1024;
const WHEEL_STEP: usize = 3;
/// Width of the rows an oversized frame's preview is cut into.
const PREVIEW_WIDTH: usize = 120;
/// Longest model-view text kept for display (copying takes the whole view).
const MODEL_TEXT_BYTES: usize = 16 * 1024;

/// Applies one action.
pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::Command(command) => on_command(state, command),
        Action::EditorInput(input) => {
            if state.focus == Focus::Editor && !state.show_help {
                state.editor.textarea.input(input);
                check_editor(state);
            }
            Vec::new()
        }
        Action::Session(event) => {
            on_session(state, event);
            Vec::new()
        }
        Action::Mouse(mouse) => {
            on_mouse(state, mouse);
            show_editor_cursor(state);
            Vec::new()
        }
        Action::Resized { width, height } => {
            state.screen = ratatui::layout::Rect::new(0, 0, width, height);
            Vec::new()
        }
    }
}

fn on_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    let effects = apply_command(state, command);
    show_editor_cursor(state);
    effects
}

/// The editor's cursor shows only while the editor has the focus.
fn show_editor_cursor(state: &mut AppState) {
    let style = if state.focus == Focus::Editor && !state.show_help {
        ratatui::style::Style::new().reversed()
    } else {
        ratatui::style::Style::new()
    };
    state.editor.textarea.set_cursor_style(style);
}

fn apply_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    if state.show_help && !matches!(command, Command::Quit | Command::SendRequest) {
        // The help is modal: any key closes it, and only that.
        state.show_help = false;
        return Vec::new();
    }
    match command {
        Command::Quit => return vec![Effect::Quit],
        Command::FocusNext => cycle_focus(state, 1),
        Command::FocusPrev => cycle_focus(state, Focus::ORDER.len() - 1),
        Command::SelectNext => move_selection(state, 1, false),
        Command::SelectPrev => move_selection(state, 1, true),
        Command::PageDown => move_selection(state, page(state), false),
        Command::PageUp => move_selection(state, page(state), true),
        Command::SelectFirst => move_selection(state, usize::MAX, true),
        Command::SelectLast => select_last(state),
        Command::OpenEditor => open(state),
        Command::Back => {
            if state.focus == Focus::Editor {
                state.focus = Focus::Tools;
            }
        }
        Command::SendRequest => return send(state),
        Command::ToggleHelp => state.show_help = true,
        Command::ToggleSchema => state.tools.show_schema = !state.tools.show_schema,
        Command::ToggleConsole => state.log.show_console = !state.log.show_console,
        Command::ToggleValidation => {
            state.settings.validation = !state.settings.validation;
            check_editor(state);
            let word = if state.settings.validation {
                "on: arguments are checked against the input schema"
            } else {
                "off: sending exactly what you type"
            };
            inform(state, format!("client-side validation {word}"));
        }
        Command::ToggleForwarding => {
            state.settings.forward_protocol_errors = !state.settings.forward_protocol_errors;
            refresh_model(state);
            let text = if state.settings.forward_protocol_errors {
                "MAY rule on: protocol errors forwarded to the model"
            } else {
                "MAY rule off: protocol errors not forwarded to the model"
            };
            inform(state, text.to_owned());
        }
        Command::CycleHost => {
            state.settings.host = (state.settings.host + 1) % state.settings.hosts.len().max(1);
            refresh_model(state);
            let host = state.settings.host();
            inform(
                state,
                format!("host profile '{}': {}", host.name, host.description),
            );
        }
        Command::CopyRequest => {
            return copy(
                state,
                |call| Some(call.exchange.request.raw.to_string()),
                "request",
            );
        }
        Command::CopyResponse => {
            return copy(
                state,
                |call| call.exchange.response().map(|frame| frame.raw.to_string()),
                "response",
            );
        }
        Command::CopyModelView => {
            // The shown view is clipped; the copy is built whole, only when asked for.
            let text = state
                .current_call()
                .map(|call| analyze(&call.exchange, &call_context(state)).view.text());
            return copy_text(state, text, "model view");
        }
        Command::CopyCommandLine => {
            let line = command_line(state);
            return copy_text(state, line, "command line");
        }
        Command::Reconnect => {
            inform(state, "reconnecting…".into());
            return vec![Effect::Session(SessionCommand::Reconnect)];
        }
        Command::CancelCall => {
            if state.pending_calls == 0 {
                inform(state, "no call is pending".into());
                return Vec::new();
            }
            return vec![Effect::Session(SessionCommand::CancelCall)];
        }
    }
    Vec::new()
}

fn inform(state: &mut AppState, text: String) {
    state.status = Some((Tone::Info, text));
}

fn complain(state: &mut AppState, text: String) {
    state.status = Some((Tone::Error, text));
}

fn cycle_focus(state: &mut AppState, step: usize) {
    let at = Focus::ORDER
        .iter()
        .position(|f| *f == state.focus)
        .unwrap_or(0);
    state.focus = Focus::ORDER[(at + step) % Focus::ORDER.len()];
}

fn page(state: &AppState) -> usize {
    let panes = areas(state.screen);
    layout::inner_height(panes.log).max(1)
}

fn move_selection(state: &mut AppState, by: usize, up: bool) {
    let step = |at: usize, len: usize| {
        if up {
            at.saturating_sub(by)
        } else {
            at.saturating_add(by).min(len.saturating_sub(1))
        }
    };
    match state.focus {
        Focus::Tools | Focus::Editor => {
            let len = state.tools.tools.len();
            state.tools.select(step(state.tools.selected, len));
        }
        Focus::Log if state.log.show_console => {
            let at = state.log.console_scroll;
            state.log.console_scroll = if up {
                at.saturating_add(by)
            } else {
                at.saturating_sub(by)
            };
        }
        Focus::Log => {
            let len = state.log.lines.len();
            if len > 0 {
                let at = state.log.current().unwrap_or(0);
                select_line(state, Some(step(at, len)));
            }
        }
        Focus::Detail => {
            let at = state.log.detail_scroll;
            state.log.detail_scroll = step(at, state.log.detail.len());
        }
        Focus::Model => state.model_scroll = step(state.model_scroll, model_rows(state)),
    }
}

/// Rows the model pane has at least (before wrapping): a bound for its scrolling.
fn model_rows(state: &AppState) -> usize {
    let findings = state.current_call().map_or(0, |call| call.findings.len());
    let text = state
        .model
        .as_ref()
        .map_or(0, |pane| pane.text.lines().count());
    text + 3 * findings + 6
}

fn select_last(state: &mut AppState) {
    match state.focus {
        Focus::Log if state.log.show_console => state.log.console_scroll = 0,
        Focus::Log => select_line(state, None),
        Focus::Tools | Focus::Editor => {
            state
                .tools
                .select(state.tools.tools.len().saturating_sub(1));
        }
        Focus::Detail => state.log.detail_scroll = state.log.detail.len().saturating_sub(1),
        Focus::Model => state.model_scroll = model_rows(state).saturating_sub(1),
    }
}

/// Selects a log line (`None`: follow the newest) and prepares its detail and model view.
fn select_line(state: &mut AppState, line: Option<usize>) {
    state.log.selected = line;
    state.log.detail_scroll = 0;
    refresh_detail(state);
    // Rows of the same call share its view: rebuilt only when the call changes.
    if state.model.as_ref().map(|model| model.call) != state.current_call_index() {
        refresh_model(state);
    }
}

fn open(state: &mut AppState) {
    match state.focus {
        Focus::Tools => {
            let Some(tool) = state.tools.selected_tool().cloned() else {
                complain(state, "no tool to edit: the server listed none".into());
                return;
            };
            if state.editor.tool.as_deref() != Some(&tool.name) {
                load_skeleton(state, &tool.name, tool.input_schema().as_ref());
            }
            state.focus = Focus::Editor;
        }
        Focus::Log => state.focus = Focus::Detail,
        Focus::Editor | Focus::Detail | Focus::Model => {}
    }
}

fn load_skeleton(state: &mut AppState, tool: &str, schema: Option<&Value>) {
    let (text, hints) = skeleton(schema);
    // Property names come from the server: escaped, the JSON means the same and draws safely.
    let text = sanitize::json(&text);
    let mut textarea = tui_textarea::TextArea::new(text.lines().map(str::to_owned).collect());
    textarea.set_tab_length(2);
    textarea.set_cursor_line_style(ratatui::style::Style::new());
    state.editor.textarea = textarea;
    show_editor_cursor(state);
    state.editor.tool = Some(tool.to_owned());
    state.editor.hints = hints
        .iter()
        .map(|hint| sanitize::text(hint).into_owned())
        .collect();
    check_editor(state);
}

/// Parses the editor (always) and validates it against the schema (when validation is on).
fn check_editor(state: &mut AppState) {
    state.editor.problems.clear();
    let text = state.editor.text();
    let arguments = match parse_arguments(&text) {
        Ok(arguments) => arguments,
        Err(problem) => {
            state.editor.problems.push(problem);
            return;
        }
    };
    if !state.settings.validation {
        return;
    }
    let Some(schema) = state
        .editor
        .tool
        .as_ref()
        .and_then(|name| state.tools.tools.iter().find(|t| t.name == name))
        .and_then(crate::mcp::messages::Tool::input_schema)
    else {
        return;
    };
    state.editor.problems = crate::schema::violations(&schema, &arguments)
        .iter()
        .map(|problem| sanitize::text(problem).into_owned())
        .collect();
}

fn parse_arguments(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|error| format!("not valid JSON: {error}"))
}

fn send(state: &mut AppState) -> Vec<Effect> {
    let Some(tool) = state
        .editor
        .tool
        .clone()
        .or_else(|| state.tools.selected_tool().map(|t| t.name.to_string()))
    else {
        complain(
            state,
            "select a tool first (Enter on a tool opens the editor)".into(),
        );
        return Vec::new();
    };
    let text = state.editor.text();
    let arguments = if text.trim().is_empty() && state.editor.tool.is_none() {
        Value::Object(serde_json::Map::new())
    } else {
        match parse_arguments(&text) {
            Ok(arguments) => arguments,
            Err(problem) => {
                // Never fall back to earlier arguments: the user sees why nothing was sent.
                state.editor.problems = vec![problem.clone()];
                complain(state, format!("not sent: the arguments are {problem}"));
                return Vec::new();
            }
        }
    };
    if state.pending_calls > 0 {
        complain(
            state,
            "a call is still pending: wait for it, or x cancels it".into(),
        );
        return Vec::new();
    }
    if !state.link_is_up() {
        complain(
            state,
            "not sent: the server is not connected (r reconnects)".into(),
        );
        return Vec::new();
    }
    state.pending_calls += 1;
    let note = if state.settings.validation && !state.editor.problems.is_empty() {
        " despite validation errors"
    } else {
        ""
    };
    inform(
        state,
        format!("sent tools/call '{}'{note}", sanitize::text(&tool)),
    );
    select_line(state, None);
    vec![Effect::Session(SessionCommand::Call { tool, arguments })]
}

impl AppState {
    fn link_is_up(&self) -> bool {
        matches!(self.link, Link::Connected(_))
    }
}

fn copy(
    state: &mut AppState,
    pick: impl Fn(&CallRecord) -> Option<String>,
    what: &str,
) -> Vec<Effect> {
    let text = state
        .current_call()
        .and_then(pick)
        .map(|raw| pretty(&raw).join("\n"));
    copy_text(state, text, what)
}

fn copy_text(state: &mut AppState, text: Option<String>, what: &str) -> Vec<Effect> {
    let Some(text) = text else {
        complain(state, format!("no {what} to copy yet"));
        return Vec::new();
    };
    inform(
        state,
        format!("copied the {what} ({} bytes, OSC 52)", text.len()),
    );
    vec![Effect::Copy(text)]
}

/// The `sightline call …` line that repeats the editor's request.
fn command_line(state: &AppState) -> Option<String> {
    let tool = state
        .editor
        .tool
        .clone()
        .or_else(|| state.tools.selected_tool().map(|t| t.name.to_string()))?;
    let text = state.editor.text();
    let arguments = parse_arguments(&text).map_or(text, |value| value.to_string());
    let mut words = vec![
        "sightline".to_owned(),
        "call".to_owned(),
        shell_quote(&tool),
        shell_quote(&arguments),
    ];
    let host = state.settings.host();
    if host.name != "spec" {
        words.extend(["--host".to_owned(), shell_quote(&host.name)]);
    }
    if state.settings.forward_protocol_errors {
        words.push("--forward-protocol-errors".into());
    }
    words.extend(state.server_args.iter().map(|arg| shell_quote(arg)));
    Some(words.join(" "))
}

fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn on_session(state: &mut AppState, event: SessionEvent) {
    match event {
        SessionEvent::Connecting { transport } => {
            state.link = Link::Connecting;
            state.transport = sanitize::text(&transport).into_owned();
        }
        SessionEvent::Connected(connection) => state.link = Link::Connected(*connection),
        SessionEvent::ConnectFailed { reason, .. } => {
            let reason = sanitize::text(&reason).into_owned();
            complain(state, format!("could not connect: {reason} (r retries)"));
            state.link = Link::Failed(reason);
        }
        SessionEvent::ToolsListed(tools) => {
            state.tools.tools = tools;
            state.tools.problem = None;
            state.tools.select(state.tools.selected);
            if state.editor.tool.is_none()
                && let Some(tool) = state.tools.selected_tool().cloned()
            {
                load_skeleton(state, &tool.name, tool.input_schema().as_ref());
            }
        }
        SessionEvent::ToolsFailed(reason) => {
            state.tools.problem = Some(sanitize::text(&reason).into_owned());
        }
        SessionEvent::Logged(entry) => log_entry(state, entry),
        SessionEvent::CallFinished(exchange) => finish_call(state, *exchange),
        SessionEvent::Disconnected => {
            state.link = Link::Disconnected;
            state.pending_calls = 0;
        }
    }
}

fn finish_call(state: &mut AppState, exchange: Exchange) {
    state.pending_calls = state.pending_calls.saturating_sub(1);
    let (outcome, found) = analysis::judge(&exchange, &call_context(state));
    let tool = exchange
        .params()
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let index = state.calls.len();
    let flagged = !found.is_empty();
    // The call's lines are near the end of the log: mark them as part of this exchange.
    for line in state.log.lines.iter_mut().rev().take(4096) {
        if line.id.as_ref() == Some(&exchange.id)
            && line.exchange.is_none()
            && !matches!(line.kind, LineKind::ServerRequest)
        {
            line.exchange = Some(index);
            // The call record holds these frames now; one copy is enough.
            line.raw = None;
            if matches!(line.kind, LineKind::Response(_) | LineKind::Failure) {
                line.flagged = flagged;
            }
        }
    }
    state.calls.push(CallRecord {
        tool,
        exchange,
        outcome,
        findings: found,
    });
    if state.log.selected.is_none() {
        refresh_detail(state);
    }
    refresh_model(state);
}

/// Adds a stderr line; consecutive lines are one row of the log, however many there are.
fn stderr_line(state: &mut AppState, text: &str, at: crate::mcp::Timestamp) {
    let Some(number) = state.log.stderr.push(text, at) else {
        return;
    };
    state.log.console_lines += 1;
    if let Some(LogLine {
        raw: Some(Raw::Stderr { count, .. }),
        ..
    }) = state.log.lines.last_mut()
    {
        *count += 1;
        return;
    }
    state.log.console.push(state.log.lines.len());
    state.log.lines.push(LogLine {
        at,
        kind: LineKind::Stderr,
        summary: None,
        raw: Some(Raw::Stderr {
            first: number,
            count: 1,
        }),
        id: None,
        exchange: None,
        flagged: false,
    });
}

fn log_entry(state: &mut AppState, entry: LogEntry) {
    let at = entry.at;
    let line = |kind, summary: Option<String>, raw: Option<Raw>, id| LogLine {
        at,
        kind,
        summary: summary.map(|text| clip_line(&text).into_boxed_str()),
        raw,
        id,
        exchange: None,
        flagged: false,
    };
    let index = state.log.lines.len();
    let new = match entry.event {
        LogEvent::Sent(frame) => {
            let (summary, id) = describe_sent(&frame);
            line(
                LineKind::Outgoing,
                Some(summary),
                Some(Raw::Frame(frame)),
                id,
            )
        }
        LogEvent::Received { frame, role } => {
            if frame.message.method() == Some("notifications/message") {
                state.log.console.push(index);
                state.log.console_lines += 1;
            }
            let derived = match &frame.message {
                Message::Notification { .. } => Some(LineKind::Notification),
                Message::Request { .. } => Some(LineKind::ServerRequest),
                Message::Response { .. } => None,
            };
            match derived {
                // The most numerous lines keep only their text; the row is derived when drawn.
                Some(kind) if frame.raw.len() <= DERIVE_LIMIT => {
                    line(kind, None, Some(Raw::Line(frame.into_raw())), None)
                }
                Some(_) | None => {
                    let (kind, summary, id) = describe_received(&frame, &role);
                    line(kind, Some(summary), Some(Raw::Frame(frame)), id)
                }
            }
        }
        LogEvent::Invalid(invalid) => {
            let summary = format!("✗ {}: {}", invalid.error, invalid.raw);
            let raw = (!invalid.raw.is_empty()).then(|| Raw::Line(invalid.raw));
            line(LineKind::Invalid, Some(summary), raw, None)
        }
        LogEvent::Stderr(text) => {
            for text in text.split('\n') {
                stderr_line(state, text, at);
            }
            return;
        }
        LogEvent::TimedOut {
            id,
            method,
            after_ms,
        } => {
            let summary = format!(
                "⏱ #{id} {method}: no reply within {after_ms} ms (sightline's own timeout; cancelled)"
            );
            line(LineKind::Failure, Some(summary), None, Some(id))
        }
        LogEvent::WriteFailed(reason) => line(
            LineKind::Failure,
            Some(format!("✗ write failed: {reason}")),
            None,
            None,
        ),
        LogEvent::Closed { status } => line(
            LineKind::Failure,
            Some(format!("■ server output closed ({status})")),
            None,
            None,
        ),
        LogEvent::Note(text) => line(LineKind::Note, Some(format!("• {text}")), None, None),
    };
    state.log.lines.push(new);
}

/// Pretty JSON lines of a frame's raw text, sanitised; huge frames are shown as received.
fn pretty(raw: &str) -> Vec<String> {
    if raw.len() > PRETTY_LIMIT {
        let shown = model_view::clip(raw, RAW_PREVIEW);
        let mut lines = vec![format!(
            "(a frame of {} bytes: the first {} as received; y / Y copy it whole)",
            raw.len(),
            shown.len()
        )];
        let safe: Vec<char> = sanitize::text(shown).chars().collect();
        lines.extend(
            safe.chunks(PREVIEW_WIDTH)
                .map(|chunk| chunk.iter().collect::<String>()),
        );
        return lines;
    }
    let text = serde_json::from_str::<Value>(raw)
        .and_then(|value| serde_json::to_string_pretty(&value))
        .unwrap_or_else(|_| raw.to_owned());
    sanitize::json(&text).lines().map(str::to_owned).collect()
}

fn refresh_detail(state: &mut AppState) {
    let line = state.log.selected.and_then(|i| state.log.lines.get(i));
    let call = match line {
        Some(line) => line.exchange.and_then(|i| state.calls.get(i)),
        None => state.calls.last(),
    };
    state.log.detail = match (call, line) {
        (Some(call), _) => {
            // The response first: it is what the user is looking for.
            let mut lines = match call.exchange.response() {
                Some(frame) => {
                    let mut lines = vec![format!("← response ({} bytes)", frame.raw.len())];
                    lines.extend(pretty(&frame.raw));
                    lines
                }
                None => vec![format!(
                    "← no response: {}",
                    sanitize::text(&call.outcome.detail)
                )],
            };
            lines.push(format!(
                "→ request ({} bytes)",
                call.exchange.request.raw.len()
            ));
            lines.extend(pretty(&call.exchange.request.raw));
            lines
        }
        (None, Some(line)) => match &line.raw {
            Some(Raw::Stderr { first, count }) => {
                let shown = (*count).min(DETAIL_STDERR_LINES);
                let mut lines = vec![format!(
                    "stderr: {count} lines{}",
                    if shown < *count {
                        format!(", the last {shown}")
                    } else {
                        String::new()
                    }
                )];
                let start = first + (count - shown);
                lines.extend((start..first + count).map(|n| state.log.stderr.line(n).to_owned()));
                lines
            }
            Some(raw) => pretty(raw.as_str()),
            None => vec![state.log.summary(line).into_owned()],
        },
        (None, None) => Vec::new(),
    };
}

fn negotiated_version(state: &AppState) -> &str {
    match &state.link {
        Link::Connected(connection) => &connection.protocol_version,
        Link::Starting | Link::Connecting | Link::Failed(_) | Link::Disconnected => "unknown",
    }
}

/// What the analysis of a call depends on in this session.
fn call_context(state: &AppState) -> CallContext<'_> {
    CallContext {
        version: negotiated_version(state),
        catalog: Some(&state.tools.tools),
        host: state.settings.host(),
        forward_protocol_errors: state.settings.forward_protocol_errors,
    }
}

/// Rebuilds the shown model view; the reply's text is borrowed, and only what fits is copied.
fn refresh_model(state: &mut AppState) {
    state.model_scroll = 0;
    let current = state
        .current_call_index()
        .and_then(|index| Some((index, state.calls.get(index)?)));
    state.model = current.map(|(index, record)| {
        let view = analysis::view(&record.exchange, &record.outcome, &call_context(state));
        let (shown, omitted) = view.text_within(MODEL_TEXT_BYTES);
        let mut text = sanitize::text_keeping_newlines(&shown);
        if omitted > 0 {
            let _ = write!(text, "… ({omitted} more bytes)");
        }
        ModelPane {
            call: index,
            host: sanitize::text(&view.host).into_owned(),
            verdict: view.verdict(),
            forwarded: view.forwarded,
            is_error: view.is_error,
            rule: view.rule,
            structured: view
                .blocks
                .iter()
                .any(|block| matches!(block, Block::Structured { .. })),
            text,
            reason: sanitize::text(&view.reason).into_owned(),
        }
    });
}

fn on_mouse(state: &mut AppState, mouse: Mouse) {
    let panes = areas(state.screen);
    let (column, row) = match mouse {
        Mouse::Clicked { column, row }
        | Mouse::ScrolledUp { column, row }
        | Mouse::ScrolledDown { column, row } => (column, row),
    };
    let position = ratatui::layout::Position { x: column, y: row };
    let targets = [
        (panes.tools, Focus::Tools),
        (panes.editor, Focus::Editor),
        (panes.log, Focus::Log),
        (panes.detail, Focus::Detail),
        (panes.model, Focus::Model),
    ];
    let Some((area, focus)) = targets
        .into_iter()
        .find(|(area, _)| area.contains(position))
    else {
        return;
    };
    if state.show_help {
        state.show_help = false;
        return;
    }
    match mouse {
        Mouse::Clicked { .. } => {
            state.focus = focus;
            let row_in = usize::from(row.saturating_sub(area.y + 1));
            let height = layout::inner_height(area);
            match focus {
                Focus::Tools if !state.tools.show_schema => {
                    let start = window_start(state.tools.selected, state.tools.tools.len(), height);
                    if start + row_in < state.tools.tools.len() && row > area.y {
                        state.tools.select(start + row_in);
                    }
                }
                Focus::Log if !state.log.show_console => {
                    let len = state.log.lines.len();
                    let start = window_start(state.log.current().unwrap_or(0), len, height);
                    if start + row_in < len && row > area.y {
                        select_line(state, Some(start + row_in));
                    }
                }
                _ => {}
            }
        }
        Mouse::ScrolledUp { .. } | Mouse::ScrolledDown { .. } => {
            let up = matches!(mouse, Mouse::ScrolledUp { .. });
            let previous = state.focus;
            state.focus = focus;
            let by = if focus == Focus::Tools { 1 } else { WHEEL_STEP };
            move_selection(state, by, up);
            state.focus = previous;
        }
    }
}

/// First visible row of a list of `len` rows, `height` tall, keeping `selected` in view.
pub fn window_start(selected: usize, len: usize, height: usize) -> usize {
    let height = height.max(1);
    selected
        .saturating_add(1)
        .saturating_sub(height)
        .min(len.saturating_sub(height))
}
