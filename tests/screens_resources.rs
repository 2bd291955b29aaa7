//! Screen snapshots of the Resources and Prompts shelves at 120×40 and 80×24: the lists, a text
//! and a blob read, the template form, a prompt's messages, completion suggestions, and a
//! subscribed resource that was updated.

#[path = "common/catalog.rs"]
mod catalog;
mod common;

use common::{Session, screen};
use serde_json::json;
use sightline::app::Command;
use sightline::app::action::{Edit, Move, Shelves, ToServer};
use sightline::app::state::Focus;
use sightline::mcp::era::Era;
use sightline::theme::Theme;

const SIZES: [(u16, u16); 2] = [(120, 40), (80, 24)];

fn snapshot(name: &str, build: impl Fn(&mut Session)) {
    for (width, height) in SIZES {
        let mut session = Session::new(width, height);
        build(&mut session);
        insta::assert_snapshot!(
            format!("{name}_{width}x{height}"),
            screen(&session.state, &Theme::fallback())
        );
    }
}

fn timetable(s: &mut Session) {
    s.answer(
        6,
        "resources/read",
        &json!({"uri": "demo://timetable"}),
        &json!({"result": {"contents": [{"uri": "demo://timetable", "mimeType": "text/plain",
            "text": "flight  route                 status\nLH123   Frankfurt → Lisbon    boarding\nBA456   London → Oslo         on time\n"}]}}),
    );
}

#[test]
fn the_resources_shelf() {
    snapshot("resources", |s| {
        s.catalog().command(Command::Shelves(Shelves::Resources));
    });
}

#[test]
fn a_text_resource_read() {
    snapshot("resources_text", |s| {
        s.catalog()
            .command(Command::Shelves(Shelves::Resources))
            .command(Command::Edit(Edit::OpenEditor));
        timetable(s);
    });
}

#[test]
fn a_blob_resource_read() {
    snapshot("resources_blob", |s| {
        s.catalog()
            .command(Command::Shelves(Shelves::Resources))
            .command(Command::Move(Move::SelectNext))
            .command(Command::Edit(Edit::OpenEditor));
        s.answer(
            6,
            "resources/read",
            &json!({"uri": "demo://logo.png"}),
            &json!({"result": {"contents": [{"uri": "demo://logo.png", "mimeType": "image/png",
                "blob": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/"}]}}),
        );
    });
}

#[test]
fn the_template_form() {
    snapshot("resources_template", |s| {
        s.catalog()
            .command(Command::Shelves(Shelves::Resources))
            .command(Command::Move(Move::SelectLast))
            .command(Command::Edit(Edit::OpenEditor));
        assert_eq!(s.state.focus, Focus::Editor);
    });
}

#[test]
fn the_prompts_shelf() {
    snapshot("prompts", |s| {
        s.catalog().command(Command::Shelves(Shelves::Prompts));
    });
}

#[test]
fn a_prompts_messages() {
    snapshot("prompts_messages", |s| {
        s.catalog()
            .command(Command::Shelves(Shelves::Prompts))
            .command(Command::Edit(Edit::OpenEditor))
            .command(Command::ToServer(ToServer::Request));
        s.answer(
            7,
            "prompts/get",
            &json!({"name": "plan_trip", "arguments": {"destination": "Lisbon"}}),
            &json!({"result": {"description": "An itinerary to Lisbon", "messages": [
                {"role": "user", "content": {"type": "text", "text": "Plan a trip to Lisbon: flights, a hotel, and one thing to see."}},
                {"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": "AAEC"}},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "demo://timetable", "mimeType": "text/plain", "text": "LH123 boarding"}}},
                {"role": "user", "content": {"type": "resource_link", "uri": "flights://LH123", "name": "LH123"}},
            ]}}),
        );
        s.command(Command::Back);
    });
}

#[test]
fn completion_suggestions_in_the_prompt_form() {
    snapshot("prompts_completion", |s| {
        s.catalog()
            .command(Command::Shelves(Shelves::Prompts))
            .command(Command::Edit(Edit::OpenEditor));
        // Typed in the live order: the key, then the completion request it leads to answered.
        let key = crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('L'),
            crossterm::event::KeyModifiers::NONE,
        );
        sightline::app::update(
            &mut s.state,
            sightline::app::Action::EditorInput(key.into()),
        );
        s.answer(
            7,
            "completion/complete",
            &json!({"ref": {"type": "ref/prompt", "name": "plan_trip"}, "argument": {"name": "destination", "value": "L"}}),
            &json!({"result": {"completion": {"values": ["Lisbon", "London", "Lyon"], "total": 5, "hasMore": true}}}),
        );
    });
}

#[test]
fn a_subscribed_resource_that_was_updated() {
    snapshot("resources_updated", |s| {
        s.catalog()
            .command(Command::Shelves(Shelves::Resources))
            .command(Command::Shelves(Shelves::Subscription));
        s.answer(
            6,
            "resources/subscribe",
            &json!({"uri": "demo://timetable"}),
            &json!({"result": {}}),
        );
        s.notified(r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"demo://timetable"}}"#);
    });
}

/// 2026-07-28: `S` opened a `subscriptions/listen` stream, not acknowledged yet (`○`), then
/// acknowledged with the resource (`●`).
#[test]
fn a_listen_stream_before_and_after_its_acknowledgement() {
    let listening = |s: &mut Session| {
        s.catalog_in(Era::Modern, "2026-07-28")
            .command(Command::Shelves(Shelves::Resources))
            .command(Command::Shelves(Shelves::Subscription));
        s.sent(r#"{"jsonrpc":"2.0","id":6,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["demo://timetable"]}}}"#);
    };
    snapshot("resources_listening", listening);
    snapshot("resources_listen_acknowledged", |s| {
        listening(s);
        s.notified(r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"resourceSubscriptions":["demo://timetable"]},"_meta":{"io.modelcontextprotocol/subscriptionId":6}}}"#);
    });
}

#[test]
fn a_hostile_servers_names_and_contents_are_drawn_safe() {
    let mut session = Session::new(120, 40);
    session
        .catalog()
        .command(Command::Shelves(Shelves::Resources));
    // The shelf was listed once: a list_changed lists it again, now with hostile text.
    session.notified(r#"{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}"#);
    session.answer(
        10,
        "resources/list",
        &json!({}),
        &json!({"result": {"resources": [
            {"uri": "evil://\u{1b}[2Jx", "name": "\u{1b}]52;c;aGk=\u{7}clip", "description": "\u{202e}reversed"},
        ]}}),
    );
    session.command(Command::Edit(Edit::OpenEditor));
    session.answer(
        11,
        "resources/read",
        &json!({"uri": "evil://\u{1b}[2Jx"}),
        &json!({"result": {"contents": [{"uri": "evil://\u{1b}[2Jx", "text": "a\u{1b}[31mred\u{9b}b"}]}}),
    );
    let drawn = screen(&session.state, &Theme::fallback());
    for control in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
        assert!(
            !drawn.contains(control),
            "{control:?} reached the screen:\n{drawn}"
        );
    }
    assert!(drawn.contains("clip") && drawn.contains("red"), "{drawn}");
}
