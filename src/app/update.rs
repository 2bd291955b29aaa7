//! `update(state, action) -> effects`: the only place state changes. Synchronous, no I/O, no
//! clock; expensive formatting happens here once, never in rendering.

use std::fmt::Write;

use serde_json::Value;

use super::action::{Action, Command, Effect, Mouse, SessionCommand, SessionEvent};
use super::ask::{AskPanel, PanelKey};
use super::audit::{AuditPanel, Phase as AuditPhase, Row as AuditRow};
use super::describe::{clip_line, describe_received, describe_sent, id_label};
use super::editor::{
    check_editor, jump_to_placeholder, parse_arguments, select_value_at_cursor, show_editor_cursor,
    show_selected_tool,
};
use super::layout::{self, areas};
use super::state::{
    AppState, CallRecord, Focus, LineKind, Link, LogLine, ModelPane, Raw, STORED_BYTES, Status,
    Stored, Tone,
};
use crate::analysis::{self, CallContext, analyze};
use crate::classify::Class;
use crate::input::keymap::{self, Mode};
use crate::mcp::era::Era;
use crate::mcp::input::Answer;
use crate::mcp::jsonrpc::{Frame, Id, Message, Reply, error_code_name};
use crate::mcp::log::{HttpExchange, LogEntry, LogEvent, Role};
use crate::mcp::session::{End, Exchange};
use crate::model_view::{self, Block};
use crate::sanitize;

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
/// Columns one ← or → scrolls.
const HSCROLL_STEP: usize = 8;
/// Width of the rows an oversized frame's preview is cut into.
const PREVIEW_WIDTH: usize = 120;
/// Longest model-view text kept for display (copying takes the whole view).
const MODEL_TEXT_BYTES: usize = 16 * 1024;

/// Applies one action.
pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    let mut effects = apply(state, action);
    if state.replay.is_some() {
        effects.extend(read_back_wanted(state));
    }
    effects
}

fn apply(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::Command(command) => on_command(state, command),
        Action::EditorInput(input) => {
            if let Some(panel) = state.asking.as_mut() {
                if let Some(key) = panel_key(&input) {
                    panel.key(key);
                }
            } else if state.key_mode() == Mode::Editing {
                state.editor.textarea.input(input);
                check_editor(state);
            }
            Vec::new()
        }
        Action::Session(event) => on_session(state, event),
        Action::Mouse(mouse) => {
            on_mouse(state, mouse);
            show_editor_cursor(state);
            Vec::new()
        }
        Action::Resized { width, height } => {
            state.screen = ratatui::layout::Rect::new(0, 0, width, height);
            Vec::new()
        }
        Action::Saved { path, result } => {
            let path = sanitize::text(&path).into_owned();
            match result {
                // Short enough for 80 columns: the name is what the user needs.
                // In a replay the REPLAY mark takes the room of the hint, which it makes plain.
                Ok(_) if state.replay.is_some() => inform(state, format!("saved {path}")),
                Ok(_) => inform(state, format!("saved {path}: `sightline replay` opens it")),
                Err(error) => complain(state, format!("could not save {path}: {error}")),
            }
            Vec::new()
        }
        Action::Captured { call, host, result } => {
            let said = super::capture::finished(state, call, &host, result);
            refresh_model(state);
            inform(state, said);
            Vec::new()
        }
        Action::FrameRead { number, result } => {
            frame_read(state, number, result);
            Vec::new()
        }
        Action::CallRead { index, result } => {
            call_read(state, index, result);
            Vec::new()
        }
        Action::Tick => {
            state.ticks += 1;
            if state
                .status
                .as_ref()
                .is_some_and(|status| state.ticks >= status.since + status.lifetime())
            {
                state.status = None;
            }
            Vec::new()
        }
    }
}

/// What a replay must read back from its transcript for the panes on screen, not yet asked
/// for: the current call, and the selected line's frame.
fn read_back_wanted(state: &mut AppState) -> Vec<Effect> {
    let call = state
        .current_call_index()
        .filter(|&index| state.calls.get(index).is_some_and(|call| call.stored))
        .filter(|&index| state.whole_call(index).is_none())
        .map(Stored::Call);
    let frame = match state.log.selected.and_then(|i| state.log.lines.get(i)) {
        Some(LogLine {
            raw: Some(Raw::Stored { frame, .. }),
            ..
        }) if state
            .read_back
            .frame
            .as_ref()
            .is_none_or(|(read, _)| read != frame) =>
        {
            Some(Stored::Frame(*frame))
        }
        _ => None,
    };
    let mut effects = Vec::new();
    for wanted in call.into_iter().chain(frame) {
        if state.read_back.failed.is_none() && !state.read_back.asked.contains(&wanted) {
            state.read_back.asked.push(wanted);
            effects.push(Effect::ReadBack(wanted));
        }
    }
    effects
}

/// The replay's `number`-th frame came back from the transcript (or why not): kept for Detail
/// if it is the size the stored line says.
fn frame_read(state: &mut AppState, number: u64, result: Result<Frame, String>) {
    answered(state, Stored::Frame(number));
    let bytes = state
        .log
        .lines
        .iter()
        .rev()
        .find_map(|line| match line.raw {
            Some(Raw::Stored { frame, bytes }) if frame == number => Some(bytes),
            _ => None,
        });
    match result {
        Ok(frame) if Some(frame.raw.len()) == bytes => {
            state.read_back.frame = Some((number, frame));
            state.read_back.failed = None;
        }
        Ok(_) => read_back_failed(state, "the transcript changed since it was read"),
        Err(error) => read_back_failed(state, &error),
    }
    refresh_detail(state);
}

/// The replay's call `index` came back from the transcript (or why not): held whole for the
/// panes if it is the call its outline says.
fn call_read(state: &mut AppState, index: usize, result: Result<Box<Exchange>, String>) {
    answered(state, Stored::Call(index));
    match (result, state.calls.get(index)) {
        (Ok(exchange), Some(outline)) if exchange.id == outline.exchange.id => {
            let whole = CallRecord {
                exchange: *exchange,
                stored: false,
                ..outline.clone()
            };
            state.read_back.call = Some((index, whole));
            state.read_back.failed = None;
        }
        (Ok(_), _) => read_back_failed(state, "the transcript changed since it was read"),
        (Err(error), _) => read_back_failed(state, &error),
    }
    refresh_detail(state);
    refresh_model(state);
}

/// A read-back asked for is no longer outstanding.
fn answered(state: &mut AppState, what: Stored) {
    state.read_back.asked.retain(|asked| *asked != what);
}

fn read_back_failed(state: &mut AppState, error: &str) {
    let error = sanitize::text(error).into_owned();
    complain(
        state,
        format!("could not read the transcript again: {error}"),
    );
    state.read_back.failed = Some(error);
}

fn on_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    let sends = matches!(
        command,
        Command::SendRequest
            | Command::Reconnect
            | Command::CancelCall
            | Command::ToggleTasks
            | Command::Audit
    );
    if sends && state.replay.is_some() {
        // Short: the status line already says REPLAY, and 80 columns must hold it.
        complain(state, "a replay sends nothing".into());
        return Vec::new();
    }
    let effects = if state.show_help {
        help_command(state, command)
    } else if state.asking.is_some() {
        ask_command(state, command)
    } else if state.audit.is_some() {
        audit_command(state, command)
    } else if state.picker.is_some() {
        picker_command(state, command)
    } else {
        apply_command(state, command)
    };
    show_editor_cursor(state);
    effects
}

/// The help is modal: it scrolls, closes, and lets only the global commands through.
fn help_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    let last = help_scroll_limit(state);
    let page = layout::help_popup(state.screen, keymap::help_entries().len())
        .height
        .saturating_sub(2)
        .max(1) as usize;
    match command {
        Command::Back | Command::ToggleHelp => state.show_help = false,
        Command::SelectNext => state.help_scroll = (state.help_scroll + 1).min(last),
        Command::SelectPrev => state.help_scroll = state.help_scroll.saturating_sub(1),
        Command::PageDown => state.help_scroll = (state.help_scroll + page).min(last),
        Command::PageUp => state.help_scroll = state.help_scroll.saturating_sub(page),
        Command::SelectFirst => state.help_scroll = 0,
        Command::SelectLast => state.help_scroll = last,
        Command::Quit | Command::SendRequest | Command::CancelCall => {
            state.show_help = false;
            return apply_command(state, command);
        }
        _ => {}
    }
    Vec::new()
}

/// The server's question is modal: the keys edit the answer, and Enter, Ctrl-D or Esc send
/// it; help and quit get through, and cancelling the call dismisses the question first.
fn ask_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    let Some(panel) = state.asking.as_mut() else {
        return Vec::new();
    };
    let answer = match command {
        Command::SelectNext => {
            panel.key(PanelKey::Down);
            return Vec::new();
        }
        Command::SelectPrev => {
            panel.key(PanelKey::Up);
            return Vec::new();
        }
        Command::Accept | Command::SendRequest => panel.accept(),
        Command::Decline => panel.decline(),
        Command::Back => panel.cancel(),
        Command::CancelCall => {
            let mut effects = answer_panel(state, AskPanel::cancel);
            effects.extend(apply_command(state, command));
            return effects;
        }
        Command::Quit | Command::ToggleHelp => return apply_command(state, command),
        _ => return Vec::new(),
    };
    let number = panel.number;
    state.asking = None;
    inform(state, format!("answered: {}", describe(&answer)));
    vec![Effect::Session(SessionCommand::Answer { number, answer })]
}

/// Sends `choose(panel)` as the answer to the question on screen.
fn answer_panel(state: &mut AppState, choose: impl Fn(&AskPanel) -> Answer) -> Vec<Effect> {
    let Some(panel) = state.asking.take() else {
        return Vec::new();
    };
    let answer = choose(&panel);
    vec![Effect::Session(SessionCommand::Answer {
        number: panel.number,
        answer,
    })]
}

/// An answer in a few words, for the status line.
fn describe(answer: &Answer) -> String {
    match answer {
        Answer::Result(result) => match result.get("action").and_then(Value::as_str) {
            Some(action) => action.to_owned(),
            None => "sent".to_owned(),
        },
        Answer::Refused(error) => format!("refused ({})", error.message),
    }
}

/// The panel's key for an editor-style input.
fn panel_key(input: &tui_textarea::Input) -> Option<PanelKey> {
    use tui_textarea::Key;
    if input.ctrl || input.alt {
        return None;
    }
    Some(match input.key {
        Key::Up => PanelKey::Up,
        Key::Down => PanelKey::Down,
        Key::Left => PanelKey::Left,
        Key::Right => PanelKey::Right,
        Key::Char(' ') => PanelKey::Toggle,
        Key::Char(c) => PanelKey::Char(c),
        Key::Backspace => PanelKey::Backspace,
        _ => return None,
    })
}

/// The server picker is modal: it moves, picks with Enter, and lets help and quit through.
fn picker_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    let Some(picker) = state.picker.as_mut() else {
        return Vec::new();
    };
    let last = picker.choices.len().saturating_sub(1);
    match command {
        Command::SelectNext => picker.selected = (picker.selected + 1).min(last),
        Command::SelectPrev => picker.selected = picker.selected.saturating_sub(1),
        Command::SelectFirst | Command::PageUp => picker.selected = 0,
        Command::SelectLast | Command::PageDown => picker.selected = last,
        Command::OpenEditor | Command::SendRequest => {
            let Some((name, _)) = picker.choices.get(picker.selected) else {
                return Vec::new();
            };
            let name = name.clone();
            state.picker = None;
            // The first connection of this run: the refusal to guess a server was none.
            state.link = Link::Starting;
            // "Pick one" is answered.
            state.status = None;
            state
                .server_args
                .extend(["--server".to_owned(), name.clone()]);
            return vec![Effect::Session(SessionCommand::Use(name))];
        }
        Command::Quit | Command::ToggleHelp => return apply_command(state, command),
        _ => {}
    }
    Vec::new()
}

/// The help's last useful first row: its end at the bottom of the popup.
fn help_scroll_limit(state: &AppState) -> usize {
    let rows = keymap::help_entries().len();
    let shown = layout::help_popup(state.screen, rows)
        .height
        .saturating_sub(2) as usize;
    rows.saturating_sub(shown)
}

fn apply_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    match command {
        // Only the question panel answers; elsewhere these keys mean nothing.
        Command::Accept | Command::Decline => {}
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
            if state.editing {
                state.editing = false;
                inform(
                    state,
                    "stopped editing; the draft is kept (Enter edits again)".into(),
                );
            } else if state.focus == Focus::Editor {
                state.focus = Focus::Tools;
            }
        }
        Command::NextPlaceholder => jump_to_placeholder(state, false),
        Command::PrevPlaceholder => jump_to_placeholder(state, true),
        Command::SendRequest => return send(state),
        Command::ToggleHelp => {
            state.show_help = true;
            state.help_scroll = 0;
        }
        Command::ToggleSchema => {
            state.tools.show_schema = !state.tools.show_schema;
            state.tools.about_scroll = 0;
        }
        Command::ToggleConsole => state.log.show_console = !state.log.show_console,
        Command::ToggleTasks => return toggle_tasks(state),
        Command::ToggleWrap
        | Command::ScrollLeft
        | Command::ScrollRight
        | Command::ToggleValidation
        | Command::ToggleForwarding
        | Command::ToggleInvalidHeaders
        | Command::CycleHost => toggle(state, command),
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
                .current_call_index()
                .and_then(|index| state.whole_call(index))
                .map(|call| analyze(&call.exchange, &call_context(state)).view.text());
            return copy_text(state, text, "model view");
        }
        Command::CopyCommandLine => {
            let line = command_line(state);
            return copy_text(state, line, "command line");
        }
        Command::SaveLog | Command::SaveCall | Command::SaveCallJson => {
            return save(state, command);
        }
        Command::Audit => start_audit(state),
        Command::CaptureOnHost => match super::capture::start(state) {
            Ok(effect) => {
                refresh_model(state);
                inform(
                    state,
                    format!("running the real {}…", state.settings.host().name),
                );
                return vec![effect];
            }
            Err(why) => complain(state, why),
        },
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

/// `L`, `E`, `J`: the log or the selected call, as a file the runtime writes.
fn save(state: &mut AppState, command: Command) -> Vec<Effect> {
    if let (Command::SaveLog, Some(replayed)) = (command, &state.replay) {
        // The replay's log is its transcript, which keeps every event in its own kind.
        let name = std::path::Path::new(replayed)
            .file_stem()
            .map_or_else(|| "replay".into(), |name| name.to_string_lossy());
        return vec![Effect::CopyFile {
            from: replayed.clone(),
            path: format!("sightline-log-{}.jsonl", super::export::safe(&name)),
        }];
    }
    let saved = match command {
        Command::SaveLog => super::export::log_transcript(state),
        Command::SaveCall => state
            .current_call_index()
            .and_then(|index| super::export::call_transcript(state, index)),
        _ => state.current_call_index().and_then(|index| {
            let record = state.whole_call(index)?;
            let view = analysis::view(&record.exchange, &record.outcome, &call_context(state));
            super::export::call_json(state, index, &view)
        }),
    };
    let Some((path, text)) = saved else {
        complain(state, "nothing to save yet".into());
        return Vec::new();
    };
    vec![Effect::Save { path, text }]
}

/// `t`: the tasks extension declared from the next request on, or no more.
fn toggle_tasks(state: &mut AppState) -> Vec<Effect> {
    state.settings.tasks = !state.settings.tasks;
    let on = state.settings.tasks;
    let text = if on {
        "tasks extension on: declared on every 2026-07-28 request, task handles polled"
    } else {
        "tasks extension off: not declared"
    };
    inform(state, text.to_owned());
    vec![Effect::Session(SessionCommand::SetTasks(on))]
}

/// The view and setting toggles, each saying what it did in the status line.
fn toggle(state: &mut AppState, command: Command) {
    match command {
        Command::ToggleWrap => {
            state.wrap = !state.wrap;
            state.hscroll = 0;
            let text = if state.wrap {
                "wrap on: long lines in Detail and the model view wrap"
            } else {
                "wrap off: long lines end in … (← → scroll sideways)"
            };
            inform(state, text.into());
        }
        Command::ScrollLeft | Command::ScrollRight if state.wrap => {
            inform(
                state,
                "lines wrap: w turns wrapping off to scroll sideways".into(),
            );
        }
        Command::ScrollLeft => state.hscroll = state.hscroll.saturating_sub(HSCROLL_STEP),
        Command::ScrollRight => state.hscroll += HSCROLL_STEP,
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
        Command::ToggleInvalidHeaders => {
            let allow = !state.settings.allow_invalid_tool_headers;
            state.settings.allow_invalid_tool_headers = allow;
            let text = if allow {
                "tools with an invalid x-mcp-header: sent anyway, as a deliberate test"
            } else {
                "tools with an invalid x-mcp-header: excluded, as 2026-07-28 asks"
            };
            inform(state, text.into());
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
                format!(
                    "host profile '{}': {}",
                    sanitize::text(&host.name),
                    sanitize::text(&host.description)
                ),
            );
        }
        _ => {}
    }
}

fn inform(state: &mut AppState, text: String) {
    set_status(state, Tone::Info, text);
}

fn complain(state: &mut AppState, text: String) {
    set_status(state, Tone::Error, text);
}

fn set_status(state: &mut AppState, tone: Tone, text: String) {
    state.status = Some(Status {
        tone,
        text,
        since: state.ticks,
    });
}

fn cycle_focus(state: &mut AppState, step: usize) {
    let at = Focus::ORDER
        .iter()
        .position(|f| *f == state.focus)
        .unwrap_or(0);
    state.focus = Focus::ORDER[(at + step) % Focus::ORDER.len()];
    state.editing = false;
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
        Focus::Tools if state.tools.show_schema => {
            state.tools.about_scroll = step(state.tools.about_scroll, usize::MAX);
        }
        Focus::Tools | Focus::Editor => {
            let len = state.tools.tools.len();
            select_tool(state, step(state.tools.selected, len));
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
            select_tool(state, state.tools.tools.len().saturating_sub(1));
        }
        Focus::Detail => state.log.detail_scroll = state.log.detail.len().saturating_sub(1),
        Focus::Model => state.model_scroll = model_rows(state).saturating_sub(1),
    }
}

/// Selects a tool: the list keeps it in view, and the Request pane shows its draft.
fn select_tool(state: &mut AppState, index: usize) {
    state.tools.select(index);
    state.tools.about_scroll = 0;
    let rows = layout::tool_list_rows(areas(state.screen).tools, state.tools.tools.len());
    state.tools.offset = keep_in_view(state.tools.offset, state.tools.selected, rows);
    show_selected_tool(state);
}

/// The first row of a list window that keeps `selected` in view, moving `offset` as little as
/// possible (the selection moves within the window; the window moves only at its edges).
pub fn keep_in_view(offset: usize, selected: usize, rows: usize) -> usize {
    let rows = rows.max(1);
    if selected < offset {
        selected
    } else if selected >= offset + rows {
        selected + 1 - rows
    } else {
        offset
    }
}

/// Selects a log line (`None`: follow the newest) and prepares its detail and model view.
fn select_line(state: &mut AppState, line: Option<usize>) {
    state.log.selected = line;
    if let Some(line) = line {
        let rows = layout::inner_height(areas(state.screen).log);
        state.log.offset = keep_in_view(state.log.offset, line, rows);
    }
    state.log.detail_scroll = 0;
    state.hscroll = 0;
    refresh_detail(state);
    // Rows of the same call share its view: rebuilt only when the call changes.
    if state.model.as_ref().map(|model| model.call) != state.current_call_index() {
        refresh_model(state);
    }
}

/// Enter: on a tool or the Request pane, start editing (on the first value of a fresh
/// skeleton, selected, so typing replaces it); on a log row, look at its detail.
fn open(state: &mut AppState) {
    match state.focus {
        Focus::Tools | Focus::Editor => {
            if state.tools.selected_tool().is_none() {
                complain(state, "no tool to edit: the server listed none".into());
                return;
            }
            show_selected_tool(state);
            state.focus = Focus::Editor;
            state.editing = true;
            select_value_at_cursor(state);
        }
        Focus::Log => {
            let selected = state.log.selected.and_then(|i| state.log.lines.get(i));
            if matches!(
                selected.and_then(|line| line.raw.as_ref()),
                Some(Raw::Stderr { .. })
            ) {
                // A run of stderr lines opens where all of them are, one per row.
                state.log.show_console = true;
            } else {
                state.focus = Focus::Detail;
            }
        }
        Focus::Detail | Focus::Model => {}
    }
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
    let excluded = state
        .tools
        .tools
        .iter()
        .any(|listed| listed.name == tool.as_str() && listed.rejected.is_some());
    if excluded && !state.settings.allow_invalid_tool_headers {
        // Short, for 80 columns: the Tools pane says why it is rejected.
        complain(
            state,
            "not sent: its x-mcp-header is invalid (I sends it anyway)".into(),
        );
        return Vec::new();
    }
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
        .current_call_index()
        .and_then(|index| state.whole_call(index))
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

/// The `sightline call …` line that repeats the selected call's request (its tool and its
/// arguments as sent), or with no call selected, the editor's.
fn command_line(state: &AppState) -> Option<String> {
    let selected = state
        .log
        .selected
        .and_then(|line| state.log.lines.get(line)?.exchange)
        .and_then(|index| state.whole_call(index));
    let (tool, arguments) = if let Some(call) = selected {
        let arguments = call.exchange.params().and_then(|p| p.get("arguments"));
        let arguments = arguments.map_or_else(|| "{}".to_owned(), Value::to_string);
        (call.tool.clone(), arguments)
    } else {
        let tool = state
            .editor
            .tool
            .clone()
            .or_else(|| state.tools.selected_tool().map(|t| t.name.to_string()))?;
        let text = state.editor.text();
        let arguments = parse_arguments(&text).map_or(text, |value| value.to_string());
        (tool, arguments)
    };
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

fn on_session(state: &mut AppState, event: SessionEvent) -> Vec<Effect> {
    match event {
        SessionEvent::Connecting { transport } => {
            if state.link != Link::Starting {
                // A reconnect: a new connection, whose ids start again at 1.
                state.session += 1;
                let text = format!(
                    "── connection {0}: the server was restarted; its ids read {0}#1, {0}#2… ──",
                    state.session
                );
                state.log.lines.push(note_line(state, &text));
            }
            state.link = Link::Connecting;
            state.transport = sanitize::text(&transport).into_owned();
        }
        SessionEvent::Connected(connection) => {
            state.negotiated = Some((state.session, (*connection).clone()));
            if connection.era == Era::Legacy {
                label_probe_answers(state);
            }
            if state.session > 1 {
                inform(
                    state,
                    format!(
                        "reconnected to {} {}",
                        sanitize::text(&connection.server.name),
                        sanitize::text(&connection.server.version)
                    ),
                );
            }
            state.link = Link::Connected(*connection);
        }
        SessionEvent::ConnectFailed { reason, .. } => {
            let reason = sanitize::text(&reason).into_owned();
            complain(state, format!("could not connect: {reason} (r retries)"));
            state.link = Link::Failed(reason);
        }
        SessionEvent::ToolsListed(tools) => {
            state.tools.tools = tools;
            state.tools.problem = None;
            select_tool(state, state.tools.selected);
        }
        SessionEvent::ToolsFailed(reason) => {
            state.tools.problem = Some(sanitize::text(&reason).into_owned());
        }
        SessionEvent::Logged(entry) => log_entry(state, entry),
        SessionEvent::CallFinished(exchange) => return finish_call(state, *exchange),
        SessionEvent::Asked {
            number,
            request,
            proposed,
        } => {
            let panel = AskPanel::new(number, *request, &proposed);
            state.asking = Some(panel);
        }
        SessionEvent::Disconnected => {
            state.link = Link::Disconnected;
            state.pending_calls = 0;
            if let Some(audit) = state.audit.as_mut()
                && audit.pending().is_some()
            {
                audit.phase = AuditPhase::Done;
                complain(state, "the audit stopped: the server went away".into());
            }
        }
    }
    Vec::new()
}

/// A line of sightline's own, in the current connection.
fn note_line(state: &AppState, text: &str) -> LogLine {
    LogLine {
        at: state
            .log
            .lines
            .last()
            .map_or_else(Default::default, |line| line.at),
        kind: LineKind::Note,
        summary: Some(clip_line(text).into_boxed_str()),
        raw: None,
        id: None,
        exchange: None,
        flagged: false,
        session: state.session,
    }
}

/// Once a connection is known to be legacy, the era probe's refusal (or silence) is what was
/// expected: its rows say so, dimmed. The frame itself is unchanged, one Enter away.
fn label_probe_answers(state: &mut AppState) {
    const RECENT: usize = 256;
    let session = state.session;
    let probes: Vec<Id> = state
        .log
        .lines
        .iter()
        .rev()
        .take(RECENT)
        .filter(|line| line.session == session && line.kind == LineKind::Outgoing)
        .filter(|line| {
            matches!(&line.raw, Some(Raw::Frame(frame)) if frame.message.method() == Some("server/discover"))
        })
        .filter_map(|line| line.id.clone())
        .collect();
    for line in state.log.lines.iter_mut().rev().take(RECENT) {
        let probe =
            line.session == session && line.id.as_ref().is_some_and(|id| probes.contains(id));
        if !probe {
            continue;
        }
        let label = id_label(session, line.id.as_ref().unwrap_or(&Id::Number(0)));
        let answer = match (&line.kind, &line.raw) {
            (LineKind::Response(Class::ProtocolError), Some(Raw::Frame(frame))) => {
                match &frame.message {
                    Message::Response {
                        reply: Reply::Error(error),
                        ..
                    } => format!(
                        "← {label} server/discover refused: {} {} — the era probe's expected answer from a legacy server (Enter shows it)",
                        error.code,
                        error_code_name(error.code)
                    ),
                    _ => continue,
                }
            }
            (LineKind::Failure, _) => format!(
                "⏱ {label} server/discover: no answer within the probe timeout — the era probe; treated as a legacy server"
            ),
            _ => continue,
        };
        line.kind = LineKind::Probe;
        line.summary = Some(clip_line(&answer).into_boxed_str());
    }
}

fn finish_call(state: &mut AppState, exchange: Exchange) -> Vec<Effect> {
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
    let session = state.session;
    // The earlier rounds of a multi round-trip call are the same logical call.
    let ids: Vec<&Id> = std::iter::once(&exchange.id)
        .chain(
            exchange
                .rounds
                .iter()
                .filter_map(|round| round.asked_by.as_ref()),
        )
        .collect();
    for line in state.log.lines.iter_mut().rev().take(4096) {
        if line.id.as_ref().is_some_and(|id| ids.contains(&id))
            && line.session == session
            && line.exchange.is_none()
        {
            line.exchange = Some(index);
            // The call record holds these frames now; one copy is enough. (An HTTP row keeps
            // its details: a resumed call had several exchanges, the record only the last.)
            if line.kind != LineKind::Http {
                line.raw = None;
            }
            if matches!(line.kind, LineKind::Response(_) | LineKind::Failure) {
                line.flagged = flagged;
            }
        }
    }
    state.calls.push(CallRecord {
        session,
        tool,
        exchange,
        outcome,
        findings: found,
        stored: false,
    });
    if state.log.selected.is_none() {
        refresh_detail(state);
    }
    refresh_model(state);
    if state.replay.is_some() {
        store_call(state, index);
    }
    audited(state, index)
}

/// A finished call that was the running audit's case: its verdict, and the next case sent.
fn audited(state: &mut AppState, index: usize) -> Vec<Effect> {
    let Some(record) = state.calls.get(index) else {
        return Vec::new();
    };
    let arguments = record.exchange.params().and_then(|p| p.get("arguments"));
    let Some(audit) = state.audit.as_ref() else {
        return Vec::new();
    };
    if !audit.is_pending(&record.tool, arguments) {
        return Vec::new();
    }
    let Some(case) = audit.pending().cloned() else {
        return Vec::new();
    };
    let judged = crate::audit::judge(&case, &record.exchange, &call_context(state));
    let Some(audit) = state.audit.as_mut() else {
        return Vec::new();
    };
    let next = audit.finished(AuditRow {
        judged,
        call: index,
    });
    if let Some(case) = next.cloned() {
        return send_case(state, &case);
    }
    let summary = state
        .audit
        .as_ref()
        .map(AuditPanel::summary)
        .unwrap_or_default();
    inform(state, format!("audit done: {summary}"));
    Vec::new()
}

/// Sends an audit case as an ordinary call.
fn send_case(state: &mut AppState, case: &crate::audit::Case) -> Vec<Effect> {
    state.pending_calls += 1;
    vec![Effect::Session(SessionCommand::Call {
        tool: case.tool.clone(),
        arguments: case.arguments.clone(),
    })]
}

/// `A`: the plan of the selected tool's audit, for consent.
fn start_audit(state: &mut AppState) {
    let Some(tool) = state
        .tools
        .selected_tool()
        .map(|tool| tool.name.to_string())
    else {
        complain(state, "select a tool to audit first".into());
        return;
    };
    if state.pending_calls > 0 {
        complain(
            state,
            "a call is still pending: wait for it, or x cancels it".into(),
        );
        return;
    }
    if !state.link_is_up() {
        complain(state, "not connected (r reconnects)".into());
        return;
    }
    state.audit = Some(AuditPanel::new(
        &tool,
        &state.tools.tools,
        state.settings.allow_invalid_tool_headers,
    ));
}

/// The audit panel is modal: Enter sends the plan (and, once done, opens a row's exchange),
/// ↑↓ move, Esc stops the audit or closes its table; help and quit get through.
fn audit_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    let Some(audit) = state.audit.as_mut() else {
        return Vec::new();
    };
    match command {
        Command::SelectNext => audit.select(1),
        Command::SelectPrev => audit.select(-1),
        Command::SelectFirst | Command::PageUp => audit.selected = 0,
        Command::SelectLast | Command::PageDown => audit.select(isize::MAX),
        Command::OpenEditor | Command::SendRequest | Command::Accept => match audit.phase {
            AuditPhase::Confirm => {
                let Some(first) = audit.plan.cases.first().cloned() else {
                    return Vec::new();
                };
                audit.phase = AuditPhase::Running { next: 0 };
                return send_case(state, &first);
            }
            // Running, the table stays: its next case is about to be sent.
            AuditPhase::Running { .. } => {}
            AuditPhase::Done => {
                let call = audit
                    .rows
                    .get(audit.selected)
                    .and_then(|row| Some(row.as_ref()?.call));
                if let Some(call) = call {
                    state.audit = None;
                    open_call(state, call);
                }
            }
        },
        Command::Back => {
            if audit.pending().is_some() {
                // The call in flight finishes as an ordinary call; nothing more is sent.
                audit.phase = AuditPhase::Done;
                inform(state, "audit stopped".into());
            } else {
                state.audit = None;
            }
        }
        Command::Quit | Command::ToggleHelp => return apply_command(state, command),
        _ => {}
    }
    Vec::new()
}

/// Focuses the log on call `index`: its response (or failure) line selected.
fn open_call(state: &mut AppState, index: usize) {
    let line = state.log.lines.iter().rposition(|line| {
        line.exchange == Some(index)
            && matches!(line.kind, LineKind::Response(_) | LineKind::Failure)
    });
    let line = line.or_else(|| {
        state
            .log
            .lines
            .iter()
            .rposition(|line| line.exchange == Some(index))
    });
    if let Some(line) = line {
        state.focus = Focus::Log;
        state.log.show_console = false;
        select_line(state, Some(line));
    }
}

/// In a replay, leaves a big call's frames in the transcript: the record keeps its outline,
/// and the whole of it only while it is the latest (shown until something is selected).
fn store_call(state: &mut AppState, index: usize) {
    let Some(record) = state.calls.get_mut(index) else {
        return;
    };
    let frames = std::iter::once(&record.exchange.request).chain(record.exchange.response());
    if frames.map(|frame| frame.raw.len()).sum::<usize>() <= STORED_BYTES {
        return;
    }
    let outline = CallRecord {
        exchange: outline(&record.exchange),
        stored: true,
        ..record.clone()
    };
    let whole = std::mem::replace(record, outline);
    if state.current_call_index() == Some(index) {
        state.read_back.call = Some((index, whole));
    }
}

/// What a stored call keeps: the exchange without its frames' text (an empty request and an
/// empty reply of the same id stand in for them) and without a task's final reply.
fn outline(exchange: &Exchange) -> Exchange {
    let request = Frame::new(
        "",
        Message::Request {
            id: exchange.id.clone(),
            method: exchange.method.clone(),
            params: None,
        },
    );
    let end = match &exchange.end {
        End::Replied(frame) => {
            let id = match &frame.message {
                Message::Response { id, .. } => id.clone(),
                _ => None,
            };
            let reply = Reply::Result(crate::mcp::json::Json::from_value(&Value::Null));
            End::Replied(Frame::new("", Message::Response { id, reply }))
        }
        other => other.clone(),
    };
    let task = exchange.task.as_ref().map(|task| {
        Box::new(crate::mcp::session::TaskRun {
            reply: None,
            ..(**task).clone()
        })
    });
    Exchange {
        request,
        end,
        task,
        ..exchange.clone()
    }
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
        session: state.session,
    });
}

fn log_entry(state: &mut AppState, entry: LogEntry) {
    let at = entry.at;
    let session = state.session;
    let stored = replayed_frame(state, &entry.event);
    let line = |kind, summary: Option<String>, raw: Option<Raw>, id| LogLine {
        at,
        kind,
        summary: summary.map(|text| clip_line(&text).into_boxed_str()),
        raw,
        id,
        exchange: None,
        flagged: false,
        session,
    };
    let index = state.log.lines.len();
    let mut answers_call = None;
    let mut new = match entry.event {
        LogEvent::Sent(frame) => {
            let (summary, id) = describe_sent(&frame, session);
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
                    // A late or duplicate reply belongs to its call as much as the first.
                    if let (
                        Role::Late { .. } | Role::Duplicate { .. },
                        Message::Response { id: Some(id), .. },
                    ) = (&role, &frame.message)
                    {
                        answers_call = state
                            .calls
                            .iter()
                            .rposition(|call| call.session == session && &call.exchange.id == id);
                    }
                    let (kind, summary, id) = describe_received(&frame, &role, session);
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
                "⏱ {} {method}: no reply within {after_ms} ms (sightline's own timeout; cancelled)",
                id_label(session, &id)
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
        LogEvent::Note(text) => note(&text, line),
        LogEvent::Http(http) => {
            let summary = format!("⇄ {}", http.summary());
            // Linked to its call by the request's id, like the frames it carried.
            let id = http.request_id.clone();
            line(LineKind::Http, Some(summary), Some(Raw::Http(http)), id)
        }
    };
    new.exchange = answers_call;
    store_frame(&mut new, stored);
    state.log.lines.push(new);
}

/// A note's line; a long one (an authorization URL) keeps its whole text for Detail.
fn note(
    text: &str,
    line: impl Fn(LineKind, Option<String>, Option<Raw>, Option<Id>) -> LogLine,
) -> LogLine {
    let whole = (text.chars().count() > 200).then(|| Raw::Line(text.into()));
    line(LineKind::Note, Some(format!("• {text}")), whole, None)
}

/// Leaves a line's big frame in the replay's transcript, where it is frame `number`.
fn store_frame(line: &mut LogLine, number: Option<u64>) {
    if let (Some(number), Some(Raw::Frame(frame))) = (number, &line.raw)
        && frame.raw.len() > STORED_BYTES
    {
        line.raw = Some(Raw::Stored {
            frame: number,
            bytes: frame.raw.len(),
        });
    }
}

/// In a replay, numbers the frames as the transcript has them; `Some(n)` for a frame that may
/// stay there (not a reply of the connection's setup, which `E` exports from the log).
fn replayed_frame(state: &mut AppState, event: &LogEvent) -> Option<u64> {
    if state.replay.is_none() || !matches!(event, LogEvent::Sent(_) | LogEvent::Received { .. }) {
        return None;
    }
    let number = state.read_back.frames;
    state.read_back.frames += 1;
    let setup = matches!(event, LogEvent::Received { role: Role::Reply { method }, .. }
        if super::export::SETUP.contains(&method.as_str()));
    (!setup).then_some(number)
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
    let index = match line {
        Some(line) => line.exchange,
        None => state.calls.len().checked_sub(1),
    };
    let call = index.and_then(|index| state.whole_call(index));
    if call.is_none() && index.is_some_and(|index| state.calls.get(index).is_some()) {
        state.log.detail = vec![reading_back(state)];
        return;
    }
    state.log.detail = match (call, line) {
        // An HTTP row shows its own details, also when it belongs to a call.
        (
            _,
            Some(LogLine {
                raw: Some(Raw::Http(http)),
                ..
            }),
        ) => http_lines(http, state.settings.show_secrets),
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
            if !call.exchange.rounds.is_empty() {
                // Said before the HTTP details: it is part of what the call was.
                lines.push(format!(
                    "→ the server asked, and sightline answered ({})",
                    call.exchange.rounds.len()
                ));
                lines.extend(
                    call.exchange
                        .rounds
                        .iter()
                        .map(|round| format!("  {}", sanitize::text(&round.describe()))),
                );
            }
            if let Some(http) = &call.exchange.http {
                lines.extend(http_lines(http, state.settings.show_secrets));
            }
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
            Some(Raw::Http(http)) => http_lines(http, state.settings.show_secrets),
            Some(Raw::Stored { frame, .. }) => match &state.read_back.frame {
                Some((read, whole)) if read == frame => pretty(&whole.raw),
                _ => vec![reading_back(state)],
            },
            Some(raw) => pretty(raw.as_str()),
            None => vec![state.log.summary(line).into_owned()],
        },
        (None, None) => Vec::new(),
    };
}

/// What Detail says of a replay's call or frame not yet read back from the transcript.
fn reading_back(state: &AppState) -> String {
    match &state.read_back.failed {
        Some(error) => format!("could not read this back from the transcript: {error}"),
        None => "reading this back from the transcript…".to_owned(),
    }
}

/// An HTTP exchange's details, terminal-safe.
fn http_lines(http: &HttpExchange, show_secrets: bool) -> Vec<String> {
    http.lines(show_secrets)
        .iter()
        .map(|line| sanitize::text(line).into_owned())
        .collect()
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
        .and_then(|index| Some((index, state.whole_call(index)?)));
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
            notes: view
                .notes
                .iter()
                .map(|note| sanitize::text(note).into_owned())
                .collect(),
            findings: view.findings.clone(),
            captured: super::capture::of(state, index, &view.host).cloned(),
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
            // A click in the editor means "type here".
            state.editing = focus == Focus::Editor;
            let row_in = usize::from(row.saturating_sub(area.y + 1));
            let height = layout::inner_height(area);
            match focus {
                // The rows drawn there: the same windows the panes draw.
                Focus::Tools if !state.tools.show_schema => {
                    let len = state.tools.tools.len();
                    let rows = layout::tool_list_rows(area, len);
                    let start = keep_in_view(state.tools.offset, state.tools.selected, rows);
                    if row_in < rows && start + row_in < len && row > area.y {
                        select_tool(state, start + row_in);
                    }
                }
                Focus::Log if !state.log.show_console => {
                    let len = state.log.lines.len();
                    let start = match state.log.selected {
                        Some(selected) => keep_in_view(state.log.offset, selected, height),
                        None => len.saturating_sub(height),
                    };
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
