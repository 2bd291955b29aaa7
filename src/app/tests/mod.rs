//! Transition tests: actions in, state and effects out. No terminal, no I/O. The shared
//! harness is here; the tests are in one module per area.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use serde_json::json;

use super::action::{Action, Command, Effect, Mouse};
use super::action::{SessionCommand, SessionEvent};
use super::state::{AppState, Focus, LineKind, Link, Settings};
use super::update::update;
use crate::classify::Class;
use crate::classify::fixtures::call;
use crate::mcp::Timestamp;
use crate::mcp::era::Era;
use crate::mcp::jsonrpc::parse;
use crate::mcp::log::{Connection, LogEntry, LogEvent, Role};
use crate::mcp::messages::{ServerInfo, Tool};

mod calls;
mod catalog;
mod chat;
mod editor;
mod keys;
mod newcomer;
mod overlays;
mod protocol;
mod requests;
mod skills;

fn state() -> AppState {
    let settings = Settings::default();
    let mut state = AppState::new(
        settings,
        vec!["--demo".into(), "legacy".into()],
        Rect::new(0, 0, 120, 40),
    );
    let connection = Connection {
        era: Era::Legacy,
        protocol_version: "2025-11-25".into(),
        server: ServerInfo {
            name: "demo".into(),
            version: "1".into(),
        },
        capabilities: None,
        http_session: None,
        probe: None,
    };
    session(&mut state, SessionEvent::Connected(Box::new(connection)));
    let tools = crate::demo_server::tools::definitions()
        .into_iter()
        .map(|raw| Tool::from_value(&raw))
        .collect::<Vec<_>>();
    session(
        &mut state,
        SessionEvent::ToolsListed(std::sync::Arc::new(tools.into())),
    );
    state
}

fn session(state: &mut AppState, event: SessionEvent) -> Vec<Effect> {
    update(state, Action::Session(event))
}

fn command(state: &mut AppState, command: Command) -> Vec<Effect> {
    update(state, Action::Command(command))
}

/// A key as the terminal reports it, mapped by the real keymap for the state's mode.
fn press(state: &mut AppState, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    let event = crossterm::event::Event::Key(KeyEvent::new(code, modifiers));
    match crate::input::action_for(&event, state) {
        Some(action) => update(state, action),
        None => Vec::new(),
    }
}

/// Typed key by key, through the keymap: letters are text only while editing.
fn type_text(state: &mut AppState, text: &str) {
    for c in text.chars() {
        press(state, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

/// The status line's message, empty when there is none.
fn status(state: &AppState) -> &str {
    state
        .status
        .as_ref()
        .map_or("", |status| status.text.as_str())
}

fn set_editor(state: &mut AppState, text: &str) {
    state.editor.textarea = tui_textarea::TextArea::new(text.lines().map(str::to_owned).collect());
}

fn log(state: &mut AppState, event: LogEvent) {
    session(
        state,
        SessionEvent::Logged(LogEntry {
            at: Timestamp(1),
            event,
        }),
    );
}

fn finish(state: &mut AppState, exchange: crate::mcp::session::Exchange) {
    // The user's send raised the count before the call went out.
    state.pending_calls += 1;
    answer_call(state, exchange);
}

/// The session's frames and end of a call already counted as pending (one the app sent).
fn answer_call(state: &mut AppState, exchange: crate::mcp::session::Exchange) -> Vec<Effect> {
    log(state, LogEvent::Sent(exchange.request.clone()));
    if let Some(frame) = exchange.response() {
        log(
            state,
            LogEvent::Received {
                frame: frame.clone(),
                role: Role::Reply {
                    method: "tools/call".into(),
                },
            },
        );
    }
    session(
        state,
        SessionEvent::CallFinished(Box::new(crate::mcp::verdict::Finished::unjudged(exchange))),
    )
}

/// The effect's call, as sent.
fn sent_call(effects: &[Effect]) -> (String, serde_json::Value) {
    match effects {
        [Effect::Session(SessionCommand::Call { tool, arguments })] => {
            (tool.clone(), arguments.clone())
        }
        other => panic!("not one call: {other:?}"),
    }
}

/// Cycles `h` until the profile is `name`.
fn use_host(state: &mut AppState, name: &str) {
    for _ in 0..crate::model_view::hosts::builtins().len() {
        if state.settings.host().name == name {
            return;
        }
        press(state, KeyCode::Char('h'), KeyModifiers::NONE);
    }
    panic!("no profile {name}");
}
