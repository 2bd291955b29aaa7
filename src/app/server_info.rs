//! The server info overlay (`i`): who the server is, its era, protocol version and transport,
//! its `instructions` and its capabilities, as terminal-safe lines built once when it opens;
//! it scrolls and closes.

use super::action::{Command, Effect, Move, Shelves, ToServer, any_group};
use super::modals::Panes;
pub use super::panels::ServerInfoView;
use super::state::{AppState, Link, Raw};
use crate::mcp::era::Era;
use crate::mcp::jsonrpc::{Message, Reply};
use crate::sanitize;

/// `i`: opens the overlay on what the latest connection negotiated.
pub fn open(state: &mut AppState) {
    let mut lines = Vec::new();
    let Some((number, connection)) = &state.negotiated else {
        state.server_info = Some(ServerInfoView {
            lines: vec!["Not connected yet: nothing is known of the server.".into()],
            scroll: 0,
        });
        return;
    };
    let era = match connection.era {
        Era::Legacy => "legacy (initialize)",
        Era::Modern => "modern (server/discover, stateless)",
    };
    let up = if matches!(state.link, Link::Connected(_)) {
        "connected"
    } else {
        "not connected now"
    };
    lines.push(format!(
        "server     {}",
        sanitize::text(&connection.server.label())
    ));
    lines.push(format!(
        "era        {era} · protocol {}",
        sanitize::text(&connection.protocol_version)
    ));
    lines.push(format!("transport  {}", sanitize::text(&state.transport)));
    if let Some(session) = &connection.http_session {
        lines.push(format!("session    {}", sanitize::text(session)));
    }
    lines.push(format!("connection {number}, {up}"));
    lines.push(String::new());
    lines.push("instructions".into());
    match instructions(state) {
        Some(text) => lines.extend(
            sanitize::text_keeping_newlines(&text)
                .lines()
                .map(|line| format!("  {line}")),
        ),
        None => lines.push("  (none given)".into()),
    }
    lines.push(String::new());
    lines.push("capabilities".into());
    let capabilities = connection
        .capabilities
        .as_ref()
        .map(|json| serde_json::to_string_pretty(&json.value()).unwrap_or_default());
    match capabilities {
        Some(text) => lines.extend(
            sanitize::text_keeping_newlines(&text)
                .lines()
                .map(|line| format!("  {line}")),
        ),
        None => lines.push("  (none given)".into()),
    }
    state.server_info = Some(ServerInfoView { lines, scroll: 0 });
}

/// The `instructions` of the latest handshake answer in the log (`initialize` or
/// `server/discover`), which the connection does not keep.
fn instructions(state: &AppState) -> Option<String> {
    state.log.lines.iter().rev().find_map(|line| {
        let Some(Raw::Frame(frame)) = &line.raw else {
            return None;
        };
        let Message::Response {
            reply: Reply::Result(result),
            ..
        } = &frame.message
        else {
            return None;
        };
        let handshake =
            result.get("serverInfo").is_some() || result.get("supportedVersions").is_some();
        if !handshake {
            return None;
        }
        Some(
            result
                .get("instructions")
                .and_then(|text| text.as_str().map(std::borrow::Cow::into_owned))
                .unwrap_or_default(),
        )
        .filter(|text| !text.is_empty())
    })
}

/// While the overlay is open: it scrolls, Esc or `i` close it, quit and help get through.
// Every command is decided here, by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub fn command(state: &mut AppState, command: Command, to_panes: Panes) -> Vec<Effect> {
    let Some(view) = state.server_info.as_mut() else {
        return Vec::new();
    };
    let last = view.lines.len().saturating_sub(1);
    match command {
        Command::Back | Command::Shelves(Shelves::ServerInfo) => state.server_info = None,
        Command::Move(Move::SelectNext) => view.scroll = (view.scroll + 1).min(last),
        Command::Move(Move::SelectPrev) => view.scroll = view.scroll.saturating_sub(1),
        Command::Move(Move::PageDown) => view.scroll = (view.scroll + 10).min(last),
        Command::Move(Move::PageUp) => view.scroll = view.scroll.saturating_sub(10),
        Command::Move(Move::SelectFirst) => view.scroll = 0,
        Command::Move(Move::SelectLast) => view.scroll = last,
        Command::Quit | Command::Help | Command::ToServer(ToServer::Cancel | ToServer::Request) => {
            return to_panes(state, command);
        }
        any_group!() => {}
    }
    Vec::new()
}
