//! The workspace's routing: each server's events to its own state, effects tagged with their server, switching keeps each screen, restarting and comparing.

use crate::app::action::{Edit, Lens, Move, Servers, ToServer};
use ratatui::layout::Rect;
use serde_json::json;

use super::super::action::{Action, Command, Effect, SessionCommand, SessionEvent};
use super::super::state::{AppState, Link, Settings};
use super::{Sent, Workspace, update, update_for};
use crate::classify::Class;
use crate::classify::fixtures::call;
use crate::mcp::era::Era;
use crate::mcp::log::Connection;
use crate::mcp::messages::{ServerInfo, Tool};
use crate::mcp::verdict::Finished;

fn workspace(names: &[&str]) -> Workspace {
    let names = names.iter().map(|name| (*name).to_owned()).collect();
    Workspace::several(names, Rect::new(0, 0, 120, 40), |_, screen| {
        AppState::new(Settings::default(), Vec::new(), screen)
    })
}

fn event(workspace: &mut Workspace, index: usize, event: SessionEvent) -> Vec<(usize, Effect)> {
    update_for(workspace, index, Action::Session(event))
}

fn command(workspace: &mut Workspace, command: Command) -> Vec<(usize, Effect)> {
    update(workspace, Action::Command(command))
}

fn connect(workspace: &mut Workspace, index: usize, name: &str) {
    let connection = Connection {
        era: Era::Modern,
        protocol_version: "2026-07-28".into(),
        server: ServerInfo {
            name: name.into(),
            version: "1".into(),
        },
        capabilities: None,
        http_session: None,
        probe: None,
    };
    event(
        workspace,
        index,
        SessionEvent::Connected(Box::new(connection)),
    );
    let tools = crate::demo_server::tools::definitions()
        .into_iter()
        .map(|raw| Tool::from_value(&raw))
        .collect::<Vec<_>>();
    event(
        workspace,
        index,
        SessionEvent::ToolsListed(std::sync::Arc::new(tools.into())),
    );
}

fn answer(workspace: &mut Workspace, index: usize, exchange: crate::mcp::session::Exchange) {
    event(
        workspace,
        index,
        SessionEvent::CallFinished(Box::new(Finished::unjudged(exchange))),
    );
}

#[test]
fn each_servers_events_reach_only_its_own_state() {
    let mut servers = workspace(&["a", "b", "c"]);
    connect(&mut servers, 1, "second");
    event(
        &mut servers,
        2,
        SessionEvent::ConnectFailed {
            stage: crate::mcp::log::Stage::Spawn,
            reason: "no such program".into(),
        },
    );
    assert_eq!(servers.servers[0].state.link, Link::Starting);
    assert!(matches!(servers.servers[1].state.link, Link::Connected(_)));
    assert_eq!(servers.servers[1].state.tools.tools.len(), 10);
    assert!(servers.servers[0].state.tools.tools.is_empty());
    assert!(
        matches!(&servers.servers[2].state.link, Link::Failed(why) if why.contains("no such program"))
    );
}

#[test]
fn effects_are_tagged_with_the_server_shown_and_r_restarts_only_it() {
    let mut servers = workspace(&["a", "b"]);
    connect(&mut servers, 0, "first");
    connect(&mut servers, 1, "second");
    command(&mut servers, Command::Servers(Servers::Next));
    assert_eq!(servers.selected, 1);
    let effects = command(&mut servers, Command::ToServer(ToServer::Reconnect));
    assert_eq!(
        effects,
        [(1, Effect::Session(SessionCommand::Reconnect))],
        "only the shown server restarts"
    );
    let effects = command(&mut servers, Command::ToServer(ToServer::Request));
    assert!(
        matches!(
            effects.as_slice(),
            [(1, Effect::Session(SessionCommand::Call { .. }))]
        ),
        "{effects:?}"
    );
    assert_eq!(servers.servers[1].state.pending_calls, 1);
    assert_eq!(servers.servers[0].state.pending_calls, 0);
}

#[test]
fn switching_servers_keeps_each_ones_selection_and_draft() {
    let mut servers = workspace(&["a", "b"]);
    connect(&mut servers, 0, "first");
    connect(&mut servers, 1, "second");
    command(&mut servers, Command::Move(Move::SelectNext));
    command(&mut servers, Command::Move(Move::SelectNext));
    command(&mut servers, Command::Edit(Edit::OpenEditor));
    update(
        &mut servers,
        Action::EditorInput(tui_textarea::Input {
            key: tui_textarea::Key::Char('Z'),
            ..Default::default()
        }),
    );
    let draft = servers.servers[0].state.editor.text();
    assert!(draft.contains('Z'), "{draft}");
    command(&mut servers, Command::Back);
    command(&mut servers, Command::Servers(Servers::Next));
    assert_eq!(servers.shown().tools.selected, 0, "b has its own selection");
    assert!(!servers.shown().editor.text().contains('Z'));
    command(&mut servers, Command::Servers(Servers::Prev));
    assert_eq!(servers.shown().tools.selected, 2);
    assert_eq!(servers.shown().editor.text(), draft);
}

#[test]
fn the_host_is_one_lens_for_every_server() {
    let mut servers = workspace(&["a", "b"]);
    connect(&mut servers, 0, "first");
    connect(&mut servers, 1, "second");
    command(&mut servers, Command::Lens(Lens::Host));
    command(&mut servers, Command::Lens(Lens::Forwarding));
    let effects = command(&mut servers, Command::Lens(Lens::Tasks));
    assert_eq!(
        servers.servers[0].state.settings,
        servers.servers[1].state.settings
    );
    assert_eq!(servers.servers[1].state.settings.host, 1);
    assert!(servers.servers[1].state.settings.forward_protocol_errors);
    assert_eq!(
        effects,
        [
            (0, Effect::Session(SessionCommand::SetTasks(true))),
            (1, Effect::Session(SessionCommand::SetTasks(true))),
        ],
        "every session declares tasks"
    );
}

#[test]
fn side_by_side_sends_to_every_connected_server_and_fills_in_as_answers_come() {
    let mut servers = workspace(&["legacy", "sep1303", "broken", "slow"]);
    connect(&mut servers, 0, "demo");
    connect(&mut servers, 1, "demo");
    event(
        &mut servers,
        2,
        SessionEvent::ConnectFailed {
            stage: crate::mcp::log::Stage::Spawn,
            reason: "bad URL".into(),
        },
    );
    connect(&mut servers, 3, "other");
    servers.servers[3].state.tools.tools = std::sync::Arc::new(Vec::new());
    command(&mut servers, Command::Edit(Edit::OpenEditor));
    let effects = command(&mut servers, Command::ToServer(ToServer::SideBySide));
    let called: Vec<usize> = effects.iter().map(|(index, _)| *index).collect();
    assert_eq!(called, [0, 1, 3], "the failed server gets nothing");
    assert!(effects.iter().all(|(_, effect)| matches!(
        effect,
        Effect::Session(SessionCommand::Call { tool, .. }) if tool == "book_flight"
    )));
    assert!(servers.comparing);
    assert!(!servers.shown().editing, "the comparison takes the keys");
    let comparison = servers.comparison.clone().unwrap();
    assert!(matches!(&comparison.columns[2].sent, Sent::Not(why) if why.contains("bad URL")));
    assert!(comparison.columns[0].listed);
    assert!(!comparison.columns[3].listed, "not listed, sent anyway");
    assert_eq!(comparison.pending(), 3);

    let arguments = json!({"departureDate": "12/12/2024"});
    answer(
        &mut servers,
        0,
        call("book_flight", arguments.clone()).error(-32602, "Invalid departure date"),
    );
    answer(
        &mut servers,
        1,
        call("book_flight", arguments).tool_error("Invalid departure date"),
    );
    let comparison = servers.comparison.clone().unwrap();
    let legacy = comparison.columns[0].answer.clone().unwrap();
    let sep1303 = comparison.columns[1].answer.clone().unwrap();
    assert_eq!(
        (legacy.class, legacy.code, legacy.forwarded),
        (Class::ProtocolError, Some(-32602), false)
    );
    assert_eq!((sep1303.class, sep1303.forwarded), (Class::ToolError, true));
    assert_eq!(comparison.pending(), 1, "slow has not answered");

    command(&mut servers, Command::Lens(Lens::Forwarding));
    let legacy = servers.comparison.clone().unwrap().columns[0]
        .answer
        .clone();
    assert!(legacy.unwrap().forwarded, "judged again under the MAY rule");

    command(&mut servers, Command::Back);
    assert!(!servers.comparing);
    assert!(
        command(&mut servers, Command::ToServer(ToServer::SideBySide)).is_empty(),
        "the same request reopens the last comparison, sending nothing"
    );
    assert!(servers.comparing);
}

#[test]
fn one_server_is_the_tui_as_it_was() {
    let state = AppState::new(Settings::default(), Vec::new(), Rect::new(0, 0, 80, 24));
    let mut one = Workspace::one(state);
    assert!(!one.has_bar());
    assert_eq!(one.shown().label, None);
    command(&mut one, Command::Servers(Servers::Next));
    assert_eq!(one.selected, 0);
    update(
        &mut one,
        Action::Resized {
            width: 100,
            height: 30,
        },
    );
    assert_eq!(one.shown().screen, Rect::new(0, 0, 100, 30));
    let mut two = workspace(&["a", "b"]);
    assert_eq!(
        two.shown().screen,
        Rect::new(0, 1, 120, 39),
        "below the bar"
    );
    update(
        &mut two,
        Action::Resized {
            width: 80,
            height: 24,
        },
    );
    assert_eq!(two.servers[1].state.screen, Rect::new(0, 1, 80, 23));
}

#[test]
fn a_digit_shows_that_server_and_one_past_the_last_says_how_many_there_are() {
    let mut servers = workspace(&["a", "b", "c"]);
    let press = |servers: &mut Workspace, c: char| {
        let key = crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char(c),
            crossterm::event::KeyModifiers::NONE,
        );
        let action = crate::input::action_for(&crossterm::event::Event::Key(key), servers.shown());
        update(servers, action.unwrap())
    };
    press(&mut servers, '3');
    assert_eq!(servers.selected, 2);
    press(&mut servers, ']');
    assert_eq!(servers.selected, 0, "round the list");
    press(&mut servers, '[');
    assert_eq!(servers.selected, 2);
    press(&mut servers, '9');
    assert_eq!(servers.selected, 2);
    let said = servers
        .shown()
        .status
        .as_ref()
        .map(|status| status.text.clone());
    assert_eq!(said.as_deref(), Some("3 servers are open"));
}

fn status(workspace: &Workspace) -> Option<String> {
    let status = workspace.shown().status.as_ref();
    status.map(|status| status.text.clone())
}

fn click(workspace: &mut Workspace, column: u16, row: u16) {
    update(
        workspace,
        Action::Mouse(super::super::action::Mouse::Clicked { column, row }),
    );
}

#[test]
fn the_bars_entries_take_the_columns_they_are_drawn_in_side_by_side() {
    let mut servers = workspace(&["alpha", "beta", "gamma"]);
    connect(&mut servers, 0, "first");
    for width in [120, 80, 30, 12] {
        let entries = super::bar::bar_entries(&servers, width);
        let mut next = 0;
        for entry in &entries {
            assert_eq!(entry.columns.start, next, "{entries:?}");
            let drawn = unicode_width::UnicodeWidthStr::width(entry.text.as_str());
            assert_eq!(usize::from(entry.columns.end - entry.columns.start), drawn);
            // One column of separator after each.
            next = entry.columns.end + 1;
        }
        assert!(next <= width + 1, "past the row at {width}: {entries:?}");
    }
    let wide = super::bar::bar_entries(&servers, 120);
    assert_eq!(wide.len(), 3);
    assert!(wide[0].text.contains("alpha ready"), "{wide:?}");
}

#[test]
fn a_click_on_a_servers_entry_in_the_bar_shows_that_server() {
    let mut servers = workspace(&["alpha", "beta", "gamma"]);
    connect(&mut servers, 1, "second");
    let entries = super::bar::bar_entries(&servers, 120);
    let beta = entries[1].columns.clone();
    // The separator before it is nobody's.
    click(&mut servers, beta.start - 1, 0);
    assert_eq!(servers.selected, 0);
    click(&mut servers, beta.start + 1, 0);
    assert_eq!(servers.selected, 1);
    assert_eq!(status(&servers).as_deref(), Some("server beta: ready"));
    // The same column one row down is the shown server's screen, not the bar.
    let gamma = super::bar::bar_entries(&servers, 120)[2].columns.clone();
    click(&mut servers, gamma.start + 1, 1);
    assert_eq!(servers.selected, 1);
    click(&mut servers, gamma.end - 1, 0);
    assert_eq!(servers.selected, 2);
}

#[test]
fn a_panel_on_the_shown_server_keeps_a_click_on_the_bar() {
    let mut servers = workspace(&["alpha", "beta"]);
    command(&mut servers, Command::Help);
    let beta = super::bar::bar_entries(&servers, 120)[1].columns.clone();
    click(&mut servers, beta.start + 1, 0);
    // The help takes the click (and closes); the next one shows the server.
    assert_eq!(servers.selected, 0);
    assert!(!servers.shown().show_help);
    click(&mut servers, beta.start + 1, 0);
    assert_eq!(servers.selected, 1);
}

/// Two servers compared, the second answering with a tool error of `rows` lines.
fn compared(rows: usize) -> Workspace {
    let mut servers = workspace(&["short", "long"]);
    connect(&mut servers, 0, "demo");
    connect(&mut servers, 1, "demo");
    command(&mut servers, Command::Edit(Edit::OpenEditor));
    command(&mut servers, Command::ToServer(ToServer::SideBySide));
    let arguments = json!({"departureDate": "12/12/2024"});
    answer(
        &mut servers,
        0,
        call("book_flight", arguments.clone()).error(-32602, "Invalid departure date"),
    );
    let text = (1..=rows).map(|n| format!("line {n}")).collect::<Vec<_>>();
    answer(
        &mut servers,
        1,
        call("book_flight", arguments).tool_error(&text.join("\n")),
    );
    servers
}

fn scroll(servers: &Workspace) -> usize {
    servers.comparison.as_ref().unwrap().scroll
}

#[test]
fn the_comparison_scrolls_to_the_longest_columns_last_row_and_no_further() {
    let mut servers = compared(80);
    let comparison = servers.comparison.clone().unwrap();
    let most = super::columns::most_scroll(&servers, &comparison);
    // 80 lines of text and a few more in a column of 40 − 4 rows.
    assert!(most > 40, "{most}");
    command(&mut servers, Command::Move(Move::SelectNext));
    command(&mut servers, Command::Move(Move::SelectNext));
    assert_eq!(scroll(&servers), 2);
    command(&mut servers, Command::Move(Move::SelectPrev));
    assert_eq!(scroll(&servers), 1);
    command(&mut servers, Command::Move(Move::PageDown));
    assert!(scroll(&servers) > 20, "a page is most of a column");
    command(&mut servers, Command::Move(Move::SelectLast));
    assert_eq!(scroll(&servers), most);
    command(&mut servers, Command::Move(Move::SelectNext));
    command(&mut servers, Command::Move(Move::PageDown));
    assert_eq!(scroll(&servers), most, "never past the last row");
    command(&mut servers, Command::Move(Move::SelectPrev));
    assert_eq!(
        scroll(&servers),
        most - 1,
        "one key back from the end moves at once"
    );
    command(&mut servers, Command::Move(Move::SelectFirst));
    assert_eq!(scroll(&servers), 0);
    update(
        &mut servers,
        Action::Mouse(super::super::action::Mouse::ScrolledDown {
            column: 60,
            row: 10,
        }),
    );
    assert_eq!(scroll(&servers), super::columns::WHEEL_ROWS);
    // The keys scrolled the comparison, not the shown server's panes behind it.
    assert_eq!(servers.shown().log.selected, None);
}

#[test]
fn a_comparison_that_fits_does_not_scroll() {
    let mut servers = compared(3);
    let comparison = servers.comparison.clone().unwrap();
    assert_eq!(super::columns::most_scroll(&servers, &comparison), 0);
    command(&mut servers, Command::Move(Move::SelectNext));
    command(&mut servers, Command::Move(Move::PageDown));
    assert_eq!(scroll(&servers), 0);
}

#[test]
fn alt_b_in_the_chat_pane_runs_the_prompt_on_every_server_and_each_pane_tallies_them_all() {
    use crate::app::action::Chat;
    use crate::app::chat::ChatModel;
    use crate::model_api::{Api, Turn, Usage};
    let mut workspace = Workspace::several(
        vec!["legacy".into(), "sep1303".into()],
        Rect::new(0, 0, 120, 40),
        |_, screen| {
            let settings = Settings {
                chat: Some(ChatModel {
                    api: Api::Chat,
                    name: "any".into(),
                    label: "openai:any".into(),
                    max_turns: 4,
                    naming: Vec::new(),
                }),
                ..Settings::default()
            };
            AppState::new(settings, Vec::new(), screen)
        },
    );
    connect(&mut workspace, 0, "legacy");
    connect(&mut workspace, 1, "sep1303");
    command(&mut workspace, Command::Chat(Chat::Open));
    for c in "Book".chars() {
        let key = crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char(c));
        update(&mut workspace, Action::EditorInput(key.into()));
    }
    let effects = command(&mut workspace, Command::ToServer(ToServer::SideBySide));
    let asked: Vec<usize> = effects
        .iter()
        .filter_map(|(server, effect)| matches!(effect, Effect::AskModel { .. }).then_some(*server))
        .collect();
    assert_eq!(asked, [0, 1], "one model request per server: {effects:?}");
    assert!(
        workspace.comparison.is_none(),
        "no request comparison in the Chat pane"
    );
    let done = Turn {
        text: "Which date?".into(),
        calls: Vec::new(),
        usage: Usage::default(),
    };
    update_for(
        &mut workspace,
        1,
        Action::ModelAnswered {
            run: 1,
            result: Ok(done),
        },
    );
    let shown = &workspace.shown().chat.elsewhere;
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert!(shown[0].1.starts_with("… asking the model"), "{shown:?}");
    assert!(
        shown[1].1.starts_with("✓ answered after 1 turn ·"),
        "{shown:?}"
    );
}
