//! Several servers in one TUI, drawn: the server bar with servers in different states, and the side-by-side screen (the SEP-1303 pair, also scrolled; a pending and a failed server), at 120×40 and 80×24.

#![allow(clippy::unwrap_used)]

mod common;

use common::{PAST, PAST_AS_32602, Session};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::json;
use sightline::app::action::{Edit, Move, Servers, ToServer};
use sightline::app::state::{AppState, Settings};
use sightline::app::workspace::{self, Server, Workspace};
use sightline::app::{Action, Command};
use sightline::mcp::era::Era;
use sightline::mcp::log::SessionEvent;
use sightline::runner::Stage;
use sightline::theme::Theme;

const SIZES: [(u16, u16); 2] = [(120, 40), (80, 24)];

/// A server's state below the bar, as the runtime makes it.
fn server(name: &str, width: u16, height: u16, build: impl Fn(&mut Session)) -> Server {
    let screen = workspace::body_of(Rect::new(0, 0, width, height), true);
    let mut state = AppState::new(Settings::default(), Vec::new(), screen);
    state.label = Some(name.to_owned());
    let mut session = Session::of(state);
    build(&mut session);
    Server {
        name: name.to_owned(),
        state: session.state,
    }
}

fn open(servers: Vec<Server>) -> Workspace {
    Workspace {
        servers,
        selected: 0,
        comparison: None,
        comparing: false,
    }
}

fn draw(workspace: &Workspace, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| sightline::ui::render_workspace(frame, workspace, &Theme::fallback()))
        .unwrap();
    terminal.backend().to_string()
}

fn failed(session: &mut Session, why: &str) {
    session.event(SessionEvent::Connecting {
        transport: "stdio: python3 missing.py".into(),
    });
    session.event(SessionEvent::ConnectFailed {
        stage: Stage::Spawn,
        reason: why.into(),
    });
}

fn three(width: u16, height: u16) -> Workspace {
    open(vec![
        server("demo", width, height, |s| {
            s.connected(Era::Modern, "2026-07-28", "sightline-demo");
        }),
        server("everything", width, height, |s| {
            s.event(SessionEvent::Connecting {
                transport: "stdio: node server-everything".into(),
            });
        }),
        server("python", width, height, |s| {
            failed(
                s,
                "cannot start 'python3-missing': No such file or directory (os error 2)",
            );
        }),
    ])
}

#[test]
fn the_server_bar_with_three_servers_in_different_states() {
    for (width, height) in SIZES {
        let workspace = three(width, height);
        insta::assert_snapshot!(
            format!("server_bar_{width}x{height}"),
            draw(&workspace, width, height)
        );
    }
}

#[test]
fn the_server_bar_keeps_the_failed_server_readable_when_it_is_shown() {
    let (width, height) = (80, 24);
    let mut workspace = three(width, height);
    workspace::update(
        &mut workspace,
        Action::Command(Command::Servers(Servers::Next)),
    );
    workspace::update(
        &mut workspace,
        Action::Command(Command::Servers(Servers::Next)),
    );
    let screen = draw(&workspace, width, height);
    let bar = screen.lines().next().unwrap();
    assert!(bar.contains("3 python failed: cannot start"), "{bar}");
    insta::assert_snapshot!("server_bar_failed_shown_80x24", screen);
}

/// `book_flight` with a past date in the shown server's editor, and `B`.
fn compare(workspace: &mut Workspace) {
    workspace::update(workspace, Action::Command(Command::Edit(Edit::OpenEditor)));
    let editor = &mut workspace.servers[0].state.editor;
    editor.textarea = tui_textarea::TextArea::new(vec![r#"{"departureDate":"12/12/2024"}"#.into()]);
    workspace::update(
        workspace,
        Action::Command(Command::ToServer(ToServer::SideBySide)),
    );
}

/// Server `index` answers the comparison's call with `reply`, in the live order.
fn answers(workspace: &mut Workspace, index: usize, reply: &str) {
    let state = std::mem::replace(
        &mut workspace.servers[index].state,
        AppState::new(Settings::default(), Vec::new(), Rect::default()),
    );
    let mut session = Session::of(state);
    // The harness counts the call as pending itself; the comparison already did.
    session.state.pending_calls -= 1;
    let arguments = json!({"departureDate": "12/12/2024"});
    session.call(3, "book_flight", &arguments, reply);
    workspace.servers[index].state = session.state;
    workspace.look_for_answers(index);
}

/// The legacy demo and the SEP-1303 one, compared on a past date, both answered.
fn sep1303_pair(width: u16, height: u16) -> Workspace {
    let mut workspace = open(vec![
        server("legacy", width, height, |s| {
            s.connected(Era::Legacy, "2025-11-25", "sightline-demo");
        }),
        server("sep1303", width, height, |s| {
            s.connected(Era::Modern, "2026-07-28", "sightline-demo");
        }),
    ]);
    compare(&mut workspace);
    answers(&mut workspace, 0, PAST_AS_32602);
    answers(&mut workspace, 1, PAST);
    workspace
}

#[test]
fn the_sep1303_pair_side_by_side() {
    for (width, height) in SIZES {
        let workspace = sep1303_pair(width, height);
        let screen = draw(&workspace, width, height);
        assert!(screen.contains("protocol error · -32602"), "{screen}");
        assert!(screen.contains("tool error"), "{screen}");
        insta::assert_snapshot!(format!("side_by_side_sep1303_{width}x{height}"), screen);
    }
}

/// At 80×24 the legacy column's reason is cut: the columns scroll together to its last row,
/// the short one staying whole, and the border counts what went above.
#[test]
fn the_sep1303_pair_scrolled_to_the_end_at_80x24() {
    let (width, height) = (80, 24);
    let mut workspace = sep1303_pair(width, height);
    workspace::update(
        &mut workspace,
        Action::Command(Command::Move(Move::SelectLast)),
    );
    let screen = draw(&workspace, width, height);
    assert!(screen.contains("↑ 14 above"), "{screen}");
    assert!(!screen.contains("more ┘"), "nothing left below:\n{screen}");
    // The legacy column ends with what the measured hosts do: its last row is in view.
    assert!(
        screen.contains("run (langchain)  "),
        "the legacy column's last rows:\n{screen}"
    );
    insta::assert_snapshot!("side_by_side_sep1303_scrolled_80x24", screen);
}

#[test]
fn side_by_side_with_a_pending_and_a_failed_server() {
    for (width, height) in SIZES {
        let mut workspace = open(vec![
            server("legacy", width, height, |s| {
                s.connected(Era::Legacy, "2025-11-25", "sightline-demo");
            }),
            server("slow", width, height, |s| {
                s.connected(Era::Modern, "2026-07-28", "sightline-demo");
            }),
            server("broken", width, height, |s| {
                failed(s, "${API_TOKEN} is not set");
            }),
        ]);
        compare(&mut workspace);
        answers(&mut workspace, 0, PAST_AS_32602);
        let screen = draw(&workspace, width, height);
        assert!(screen.contains("pending…"), "{screen}");
        assert!(screen.contains("not sent: failed"), "{screen}");
        insta::assert_snapshot!(
            format!("side_by_side_pending_failed_{width}x{height}"),
            screen
        );
    }
}
