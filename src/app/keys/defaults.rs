//! The built-in bindings, in the order the help lists them: the table `keys.toml` rebinds.

use crate::app::action::{
    Chat, Edit, Lens, Move, Output, Question, Servers, Shelves, ToServer, View,
};
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
    bind(KeyCode::Char('s'), CTRL, "Ctrl-S", Command::ToServer(ToServer::Request), Global, "send the request"),
    bind(KeyCode::Char('c'), CTRL, "Ctrl-C", Command::Quit, Global, "quit"),
    bind(KeyCode::Char('k'), CTRL, "Ctrl-K", Command::ToServer(ToServer::Cancel), Global, "cancel the pending call"),
    bind(KeyCode::F(1), NONE, "F1", Command::Help, Global, "this help"),
    bind(KeyCode::Enter, NONE, "Enter", Command::Edit(Edit::OpenEditor), Browsing, "edit the request of the selected tool"),
    bind(KeyCode::Tab, NONE, "Tab", Command::Move(Move::FocusNext), Browsing, "next pane"),
    bind(KeyCode::BackTab, SHIFT, "Shift-Tab", Command::Move(Move::FocusPrev), Browsing, "previous pane"),
    bind(KeyCode::Down, NONE, "↓ / j", Command::Move(Move::SelectNext), Browsing, "next row (Tools: its draft shows in Request)"),
    bind(KeyCode::Char('j'), NONE, "", Command::Move(Move::SelectNext), Browsing, ""),
    bind(KeyCode::Up, NONE, "↑ / k", Command::Move(Move::SelectPrev), Browsing, "previous row"),
    bind(KeyCode::Char('k'), NONE, "", Command::Move(Move::SelectPrev), Browsing, ""),
    bind(KeyCode::PageDown, NONE, "PgDn / PgUp", Command::Move(Move::PageDown), Browsing, "page down / up"),
    bind(KeyCode::PageUp, NONE, "", Command::Move(Move::PageUp), Browsing, ""),
    bind(KeyCode::Home, NONE, "Home / g", Command::Move(Move::SelectFirst), Browsing, "first row"),
    bind(KeyCode::Char('g'), NONE, "", Command::Move(Move::SelectFirst), Browsing, ""),
    bind(KeyCode::End, NONE, "End / G", Command::Move(Move::SelectLast), Browsing, "last row; follow new entries"),
    bind(KeyCode::Char('G'), SHIFT, "", Command::Move(Move::SelectLast), Browsing, ""),
    bind(KeyCode::Left, NONE, "← / →", Command::Move(Move::ScrollLeft), Browsing, "scroll Detail / the model view sideways (wrap off)"),
    bind(KeyCode::Right, NONE, "", Command::Move(Move::ScrollRight), Browsing, ""),
    bind(KeyCode::Char('w'), NONE, "w", Command::View(View::Wrap), Browsing, "wrap Detail and the model view on / off"),
    bind(KeyCode::Char('s'), NONE, "s", Command::View(View::Schema), Browsing, "the selected tool's description and schema, in full"),
    bind(KeyCode::Char('`'), NONE, "`", Command::View(View::Console), Browsing, "server console (stderr, log messages)"),
    bind_also(KeyCode::Char('v'), NONE, "v / Alt-v", Command::Lens(Lens::Validation), Browsing, "client-side validation on / off", Editing),
    bind_also(KeyCode::Char('m'), NONE, "m / Alt-m", Command::Lens(Lens::Forwarding), Browsing, "MAY rule: forward protocol errors on / off", Editing),
    bind_also(KeyCode::Char('h'), NONE, "h / Alt-h", Command::Lens(Lens::Host), Browsing, "next host profile", Editing),
    bind(KeyCode::Char('t'), NONE, "t", Command::Lens(Lens::Tasks), Browsing, "tasks on / off (2025-11-25 optional tools, 2026-07-28 extension)"),
    bind(KeyCode::Char('I'), SHIFT, "I", Command::Lens(Lens::InvalidHeaders), Browsing, "call tools with an invalid x-mcp-header: on / off"),
    bind(KeyCode::Char('y'), NONE, "y", Command::Output(Output::CopyRequest), Browsing, "copy the request (OSC 52)"),
    bind(KeyCode::Char('Y'), SHIFT, "Y", Command::Output(Output::CopyResponse), Browsing, "copy the response"),
    bind(KeyCode::Char('M'), SHIFT, "M", Command::Output(Output::CopyModelView), Browsing, "copy what the model sees"),
    bind(KeyCode::Char('C'), SHIFT, "C", Command::Output(Output::CopyCommandLine), Browsing, "copy the `sightline call` command line"),
    bind(KeyCode::Char('H'), SHIFT, "H", Command::ToServer(ToServer::CaptureOnHost), Browsing, "re-run the call through the real host of this profile"),
    bind(KeyCode::Char('E'), SHIFT, "E", Command::Output(Output::SaveCall), Browsing, "save the selected call as a transcript (for replay)"),
    bind(KeyCode::Char('J'), SHIFT, "J", Command::Output(Output::SaveCallJson), Browsing, "save the selected call as JSON, with what the model sees"),
    bind(KeyCode::Char('K'), SHIFT, "K", Command::Output(Output::SaveCase), Browsing, "add the selected call to the test file (--test-file)"),
    bind(KeyCode::Char('L'), SHIFT, "L", Command::Output(Output::SaveLog), Browsing, "save the whole log as a transcript"),
    bind(KeyCode::Char('A'), SHIFT, "A", Command::ToServer(ToServer::Audit), Browsing, "audit the selected tool: what the model reads of invalid calls"),
    bind(KeyCode::Char('T'), SHIFT, "T", Command::Shelves(Shelves::Tools), Browsing, "left column: the tools"),
    bind(KeyCode::Char('R'), SHIFT, "R", Command::Shelves(Shelves::Resources), Browsing, "left column: the resources and templates (Enter reads / fills)"),
    bind(KeyCode::Char('P'), SHIFT, "P", Command::Shelves(Shelves::Prompts), Browsing, "left column: the prompts (Enter fills the arguments)"),
    bind(KeyCode::Char('W'), SHIFT, "W", Command::Shelves(Shelves::Skills), Browsing, "left column: the skills (Enter loads one, each file checked)"),
    bind(KeyCode::Char('S'), SHIFT, "S", Command::Shelves(Shelves::Subscription), Browsing, "subscribe to the selected resource / unsubscribe"),
    bind(KeyCode::Char('D'), SHIFT, "D", Command::Output(Output::SaveContents), Browsing, "save the read contents to a file (bytes for a blob)"),
    bind(KeyCode::Char('o'), NONE, "o", Command::Shelves(Shelves::OpenLink), Browsing, "open the next resource the call's result links to or embeds"),
    bind(KeyCode::Char('x'), NONE, "x", Command::ToServer(ToServer::Cancel), Browsing, "cancel the pending call"),
    bind(KeyCode::Char(':'), NONE, ":", Command::Edit(Edit::OpenComposer), Browsing, "compose any request: method, then params as JSON"),
    bind(KeyCode::Char('c'), NONE, "c", Command::Chat(Chat::Open), Browsing, "chat: a model calls the server as this host would (--model)"),
    bind(KeyCode::Char('p'), NONE, "p", Command::ToServer(ToServer::Ping), Browsing, "ping the server (its round trip)"),
    bind(KeyCode::Char('l'), NONE, "l", Command::ToServer(ToServer::SetLogLevel), Browsing, "logging/setLevel: the next level (debug, info, …)"),
    bind(KeyCode::Char('i'), NONE, "i", Command::Shelves(Shelves::ServerInfo), Browsing, "the server: era, transport, instructions, capabilities"),
    bind(KeyCode::Char('r'), NONE, "r", Command::ToServer(ToServer::Reconnect), Browsing, "restart the server and reconnect"),
    bind(KeyCode::Char(']'), NONE, "] / [", Command::Servers(Servers::Next), Browsing, "next / previous server (several open)"),
    bind(KeyCode::Char('['), NONE, "", Command::Servers(Servers::Prev), Browsing, ""),
    bind(KeyCode::Char('1'), NONE, "1 … 9", Command::Servers(Servers::Show(0)), Browsing, "show server 1 … 9 (several open)"),
    bind(KeyCode::Char('2'), NONE, "", Command::Servers(Servers::Show(1)), Browsing, ""),
    bind(KeyCode::Char('3'), NONE, "", Command::Servers(Servers::Show(2)), Browsing, ""),
    bind(KeyCode::Char('4'), NONE, "", Command::Servers(Servers::Show(3)), Browsing, ""),
    bind(KeyCode::Char('5'), NONE, "", Command::Servers(Servers::Show(4)), Browsing, ""),
    bind(KeyCode::Char('6'), NONE, "", Command::Servers(Servers::Show(5)), Browsing, ""),
    bind(KeyCode::Char('7'), NONE, "", Command::Servers(Servers::Show(6)), Browsing, ""),
    bind(KeyCode::Char('8'), NONE, "", Command::Servers(Servers::Show(7)), Browsing, ""),
    bind(KeyCode::Char('9'), NONE, "", Command::Servers(Servers::Show(8)), Browsing, ""),
    bind_also(KeyCode::Char('B'), SHIFT, "B / Alt-b", Command::ToServer(ToServer::SideBySide), Browsing, "send to every server, answers side by side (Esc closes)", Editing),
    bind(KeyCode::Char('?'), NONE, "?", Command::Help, Browsing, "this help"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Browsing, "back to the tools"),
    bind(KeyCode::Char('q'), NONE, "q", Command::Quit, Browsing, "quit"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Editing, "stop editing (the draft is kept)"),
    bind(KeyCode::Tab, NONE, "Tab", Command::Edit(Edit::NextPlaceholder), Editing, "next value"),
    bind(KeyCode::BackTab, SHIFT, "Shift-Tab", Command::Edit(Edit::PrevPlaceholder), Editing, "previous value"),
    bind(KeyCode::Char('v'), ALT, "Alt-v", Command::Lens(Lens::Validation), Editing, "validation on / off"),
    bind(KeyCode::Char('m'), ALT, "Alt-m", Command::Lens(Lens::Forwarding), Editing, "MAY rule on / off"),
    bind(KeyCode::Char('h'), ALT, "Alt-h", Command::Lens(Lens::Host), Editing, "next host profile"),
    bind(KeyCode::Char('b'), ALT, "Alt-b", Command::ToServer(ToServer::SideBySide), Editing, "send to every server, side by side (in Chat: run the prompt)"),
    bind(KeyCode::Char('c'), ALT, "Alt-c", Command::Edit(Edit::AcceptCompletion), Editing, "take the first completion (prompt and template forms)"),
    bind(KeyCode::Char('r'), ALT, "Alt-r", Command::Chat(Chat::Rerun), Editing, "chat: run the last prompt again (Alt-h first: another host)"),
    bind(KeyCode::Enter, NONE, "Enter", Command::Question(Question::Accept), Answering, "accept: send the answer as shown"),
    bind(KeyCode::Char('d'), CTRL, "Ctrl-D", Command::Question(Question::Decline), Answering, "decline"),
    bind(KeyCode::Esc, NONE, "Esc", Command::Back, Answering, "cancel (a dismissed question)"),
    bind(KeyCode::Down, NONE, "↓ / ↑  ← → Space", Command::Move(Move::SelectNext), Answering, "field · value · toggle; letters are typed"),
    bind(KeyCode::Up, NONE, "", Command::Move(Move::SelectPrev), Answering, ""),
    bind(KeyCode::Down, NONE, "↓ / ↑", Command::Move(Move::SelectNext), Help, "scroll"),
    bind(KeyCode::Up, NONE, "", Command::Move(Move::SelectPrev), Help, ""),
    bind(KeyCode::Char('j'), NONE, "", Command::Move(Move::SelectNext), Help, ""),
    bind(KeyCode::Char('k'), NONE, "", Command::Move(Move::SelectPrev), Help, ""),
    bind(KeyCode::PageDown, NONE, "PgDn / PgUp", Command::Move(Move::PageDown), Help, "page down / up"),
    bind(KeyCode::PageUp, NONE, "", Command::Move(Move::PageUp), Help, ""),
    bind(KeyCode::Home, NONE, "Home / End", Command::Move(Move::SelectFirst), Help, "top / end"),
    bind(KeyCode::End, NONE, "", Command::Move(Move::SelectLast), Help, ""),
    bind(KeyCode::Esc, NONE, "Esc / ?", Command::Back, Help, "close"),
    bind(KeyCode::Char('?'), NONE, "", Command::Back, Help, ""),
    bind(KeyCode::Char('q'), NONE, "", Command::Back, Help, ""),
];
