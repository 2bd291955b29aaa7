//! The built-in bindings, in the order the help lists them: the table `keys.toml` rebinds.

use std::borrow::Cow;

use crossterm::event::{KeyCode, KeyModifiers};

use super::{Binding, Scope};
use crate::app::action::Command;

const fn bind(
    code: KeyCode,
    modifiers: KeyModifiers,
    keys: &'static str,
    command: Command,
    scope: Scope,
    help: &'static str,
) -> Binding {
    Binding {
        code,
        modifiers,
        keys: Cow::Borrowed(keys),
        command,
        scope,
        help,
        also: None,
    }
}

/// A row whose label also names the command's keys in the scope `also` (`v / Alt-v`).
const fn bind_also(
    code: KeyCode,
    modifiers: KeyModifiers,
    keys: &'static str,
    command: Command,
    scope: Scope,
    help: &'static str,
    also: Scope,
) -> Binding {
    Binding {
        code,
        modifiers,
        keys: Cow::Borrowed(keys),
        command,
        scope,
        help,
        also: Some(also),
    }
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const ALT: KeyModifiers = KeyModifiers::ALT;
use Scope::{Answering, Browsing, Editing, Global, Help};

/// Every binding, in the order the help lists them (grouped by scope there). A row with no
/// `keys` is an alias, listed on the row before it.
#[rustfmt::skip]
pub(super) const DEFAULTS: &[Binding] = &[
    bind(KeyCode::Char('s'), CTRL, "Ctrl-S", Command::SendRequest, Global, "send the request"),
    bind(KeyCode::Char('c'), CTRL, "Ctrl-C", Command::Quit, Global, "quit"),
    bind(KeyCode::Char('k'), CTRL, "Ctrl-K", Command::CancelCall, Global, "cancel the pending call"),
    bind(KeyCode::F(1), NONE, "F1", Command::ToggleHelp, Global, "this help"),
    bind(KeyCode::Enter, NONE, "Enter", Command::OpenEditor, Browsing, "edit the request of the selected tool"),
    bind(KeyCode::Tab, NONE, "Tab", Command::FocusNext, Browsing, "next pane"),
    bind(KeyCode::BackTab, SHIFT, "Shift-Tab", Command::FocusPrev, Browsing, "previous pane"),
    bind(KeyCode::Down, NONE, "↓ / j", Command::SelectNext, Browsing, "next row (Tools: its draft shows in Request)"),
    bind(KeyCode::Char('j'), NONE, "", Command::SelectNext, Browsing, ""),
    bind(KeyCode::Up, NONE, "↑ / k", Command::SelectPrev, Browsing, "previous row"),
    bind(KeyCode::Char('k'), NONE, "", Command::SelectPrev, Browsing, ""),
    bind(KeyCode::PageDown, NONE, "PgDn / PgUp", Command::PageDown, Browsing, "page down / up"),
    bind(KeyCode::PageUp, NONE, "", Command::PageUp, Browsing, ""),
    bind(KeyCode::Home, NONE, "Home / g", Command::SelectFirst, Browsing, "first row"),
    bind(KeyCode::Char('g'), NONE, "", Command::SelectFirst, Browsing, ""),
    bind(KeyCode::End, NONE, "End / G", Command::SelectLast, Browsing, "last row; follow new entries"),
    bind(KeyCode::Char('G'), SHIFT, "", Command::SelectLast, Browsing, ""),
    bind(KeyCode::Left, NONE, "← / →", Command::ScrollLeft, Browsing, "scroll Detail / the model view sideways (wrap off)"),
    bind(KeyCode::Right, NONE, "", Command::ScrollRight, Browsing, ""),
    bind(KeyCode::Char('w'), NONE, "w", Command::ToggleWrap, Browsing, "wrap Detail and the model view on / off"),
    bind(KeyCode::Char('s'), NONE, "s", Command::ToggleSchema, Browsing, "the selected tool's description and schema, in full"),
    bind(KeyCode::Char('`'), NONE, "`", Command::ToggleConsole, Browsing, "server console (stderr, log messages)"),
    bind_also(KeyCode::Char('v'), NONE, "v / Alt-v", Command::ToggleValidation, Browsing, "client-side validation on / off", Editing),
    bind_also(KeyCode::Char('m'), NONE, "m / Alt-m", Command::ToggleForwarding, Browsing, "MAY rule: forward protocol errors on / off", Editing),
    bind_also(KeyCode::Char('h'), NONE, "h / Alt-h", Command::CycleHost, Browsing, "next host profile", Editing),
    bind(KeyCode::Char('t'), NONE, "t", Command::ToggleTasks, Browsing, "tasks on / off (2025-11-25 optional tools, 2026-07-28 extension)"),
    bind(KeyCode::Char('I'), SHIFT, "I", Command::ToggleInvalidHeaders, Browsing, "call tools with an invalid x-mcp-header: on / off"),
    bind(KeyCode::Char('y'), NONE, "y", Command::CopyRequest, Browsing, "copy the request (OSC 52)"),
    bind(KeyCode::Char('Y'), SHIFT, "Y", Command::CopyResponse, Browsing, "copy the response"),
    bind(KeyCode::Char('M'), SHIFT, "M", Command::CopyModelView, Browsing, "copy what the model sees"),
    bind(KeyCode::Char('C'), SHIFT, "C", Command::CopyCommandLine, Browsing, "copy the `sightline call` command line"),
    bind(KeyCode::Char('H'), SHIFT, "H", Command::CaptureOnHost, Browsing, "re-run the call through the real host of this profile"),
    bind(KeyCode::Char('E'), SHIFT, "E", Command::SaveCall, Browsing, "save the selected call as a transcript (for replay)"),
    bind(KeyCode::Char('J'), SHIFT, "J", Command::SaveCallJson, Browsing, "save the selected call as JSON, with what the model sees"),
    bind(KeyCode::Char('L'), SHIFT, "L", Command::SaveLog, Browsing, "save the whole log as a transcript"),
    bind(KeyCode::Char('A'), SHIFT, "A", Command::Audit, Browsing, "audit the selected tool: invalid calls, and what the model could read"),
    bind(KeyCode::Char('T'), SHIFT, "T", Command::ShowTools, Browsing, "left column: the tools"),
    bind(KeyCode::Char('R'), SHIFT, "R", Command::ShowResources, Browsing, "left column: the resources and templates (Enter reads / fills)"),
    bind(KeyCode::Char('P'), SHIFT, "P", Command::ShowPrompts, Browsing, "left column: the prompts (Enter fills the arguments)"),
    bind(KeyCode::Char('S'), SHIFT, "S", Command::ToggleSubscription, Browsing, "subscribe to the selected resource / unsubscribe"),
    bind(KeyCode::Char('D'), SHIFT, "D", Command::SaveContents, Browsing, "save the read contents to a file (bytes for a blob)"),
    bind(KeyCode::Char('o'), NONE, "o", Command::OpenLink, Browsing, "open the next resource the call's result links to or embeds"),
    bind(KeyCode::Char('x'), NONE, "x", Command::CancelCall, Browsing, "cancel the pending call"),
    bind(KeyCode::Char(':'), NONE, ":", Command::OpenComposer, Browsing, "compose any request: method, then params as JSON"),
    bind(KeyCode::Char('p'), NONE, "p", Command::Ping, Browsing, "ping the server (its round trip)"),
    bind(KeyCode::Char('l'), NONE, "l", Command::SetLogLevel, Browsing, "logging/setLevel: the next level (debug, info, …)"),
    bind(KeyCode::Char('i'), NONE, "i", Command::ShowServerInfo, Browsing, "the server: era, transport, instructions, capabilities"),
    bind(KeyCode::Char('r'), NONE, "r", Command::Reconnect, Browsing, "restart the server and reconnect"),
    bind(KeyCode::Char(']'), NONE, "] / [", Command::NextServer, Browsing, "next / previous server (several open)"),
    bind(KeyCode::Char('['), NONE, "", Command::PrevServer, Browsing, ""),
    bind(KeyCode::Char('1'), NONE, "1 … 9", Command::ShowServer1, Browsing, "show server 1 … 9 (several open)"),
    bind(KeyCode::Char('2'), NONE, "", Command::ShowServer2, Browsing, ""),
    bind(KeyCode::Char('3'), NONE, "", Command::ShowServer3, Browsing, ""),
    bind(KeyCode::Char('4'), NONE, "", Command::ShowServer4, Browsing, ""),
    bind(KeyCode::Char('5'), NONE, "", Command::ShowServer5, Browsing, ""),
    bind(KeyCode::Char('6'), NONE, "", Command::ShowServer6, Browsing, ""),
    bind(KeyCode::Char('7'), NONE, "", Command::ShowServer7, Browsing, ""),
    bind(KeyCode::Char('8'), NONE, "", Command::ShowServer8, Browsing, ""),
    bind(KeyCode::Char('9'), NONE, "", Command::ShowServer9, Browsing, ""),
    bind_also(KeyCode::Char('B'), SHIFT, "B / Alt-b", Command::SideBySide, Browsing, "send to every server, answers side by side (Esc closes)", Editing),
    bind(KeyCode::Char('?'), NONE, "?", Command::ToggleHelp, Browsing, "this help"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Browsing, "back to the tools"),
    bind(KeyCode::Char('q'), NONE, "q", Command::Quit, Browsing, "quit"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Editing, "stop editing (the draft is kept)"),
    bind(KeyCode::Tab, NONE, "Tab", Command::NextPlaceholder, Editing, "next value"),
    bind(KeyCode::BackTab, SHIFT, "Shift-Tab", Command::PrevPlaceholder, Editing, "previous value"),
    bind(KeyCode::Char('v'), ALT, "Alt-v", Command::ToggleValidation, Editing, "validation on / off"),
    bind(KeyCode::Char('m'), ALT, "Alt-m", Command::ToggleForwarding, Editing, "MAY rule on / off"),
    bind(KeyCode::Char('h'), ALT, "Alt-h", Command::CycleHost, Editing, "next host profile"),
    bind(KeyCode::Char('b'), ALT, "Alt-b", Command::SideBySide, Editing, "send to every server, side by side"),
    bind(KeyCode::Char('c'), ALT, "Alt-c", Command::AcceptCompletion, Editing, "take the first completion (prompt and template forms)"),
    bind(KeyCode::Enter, NONE, "Enter", Command::Accept, Answering, "accept: send the answer as shown"),
    bind(KeyCode::Char('d'), CTRL, "Ctrl-D", Command::Decline, Answering, "decline"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Answering, "cancel (a dismissed question)"),
    bind(KeyCode::Down, NONE, "↓ / ↑  ← → Space", Command::SelectNext, Answering, "field · value · toggle; letters are typed"),
    bind(KeyCode::Up, NONE, "", Command::SelectPrev, Answering, ""),
    bind(KeyCode::Down, NONE, "↓ / ↑", Command::SelectNext, Help, "scroll"),
    bind(KeyCode::Up, NONE, "", Command::SelectPrev, Help, ""),
    bind(KeyCode::Char('j'), NONE, "", Command::SelectNext, Help, ""),
    bind(KeyCode::Char('k'), NONE, "", Command::SelectPrev, Help, ""),
    bind(KeyCode::PageDown, NONE, "PgDn / PgUp", Command::PageDown, Help, "page down / up"),
    bind(KeyCode::PageUp, NONE, "", Command::PageUp, Help, ""),
    bind(KeyCode::Home, NONE, "Home / End", Command::SelectFirst, Help, "top / end"),
    bind(KeyCode::End, NONE, "", Command::SelectLast, Help, ""),
    bind(KeyCode::Esc, NONE, "Esc / ?", Command::Back, Help, "close"),
    bind(KeyCode::Char('?'), NONE, "", Command::Back, Help, ""),
    bind(KeyCode::Char('q'), NONE, "", Command::Back, Help, ""),
];
